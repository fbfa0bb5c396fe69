//! The event formats a `trace.dat` carries (copies of tracefs's `events/<system>/<event>/format`):
//! each event's id and where its fields lie, so that the sched events are read from the file's
//! own description rather than from offsets assumed for one kernel.

use std::collections::BTreeMap;

/// One field, as `field:char prev_comm[16];` then tab-separated `offset:8;`, `size:16;`, `signed:0;`.
#[derive(Clone, Debug)]
pub struct Field {
    pub offset: u64,
    pub size: u64,
    pub signed: bool,
}

#[derive(Clone, Debug)]
pub struct Format {
    pub name: String,
    pub id: u16,
    pub fields: BTreeMap<String, Field>,
}

/// Read one format file; None when it has no name or id (then it describes nothing usable).
pub fn parse(text: &str) -> Option<Format> {
    let mut name = None;
    let mut id = None;
    let mut fields = BTreeMap::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(n) = l.strip_prefix("name:") {
            name = Some(n.trim().to_string());
        } else if let Some(i) = l.strip_prefix("ID:") {
            id = i.trim().parse().ok();
        } else if let Some(f) = l.strip_prefix("field:") {
            let mut decl = "";
            let (mut offset, mut size, mut signed) = (None, None, false);
            for part in f.split(';') {
                let p = part.trim();
                if let Some(v) = p.strip_prefix("offset:") {
                    offset = v.trim().parse().ok();
                } else if let Some(v) = p.strip_prefix("size:") {
                    size = v.trim().parse().ok();
                } else if let Some(v) = p.strip_prefix("signed:") {
                    signed = v.trim() == "1";
                } else if decl.is_empty() {
                    decl = p;
                }
            }
            // The name is the declaration's last word, without an array suffix.
            let fname = decl.split_whitespace().last().unwrap_or("").split('[').next().unwrap_or("").to_string();
            if let (false, Some(offset), Some(size)) = (fname.is_empty(), offset, size) {
                fields.insert(fname, Field { offset, size, signed });
            }
        }
    }
    Some(Format { name: name?, id: id?, fields })
}
