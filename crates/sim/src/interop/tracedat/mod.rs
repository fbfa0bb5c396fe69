//! trace-cmd's binary `trace.dat` (file versions 6 and 7, uncompressed), read into the same
//! reader as ftrace text: the header and its sections (v7: found through the options
//! sections' offsets; v6: one after the other), the ring buffer's page and event headers as
//! the file's `header_page` describes them, the sched events' fields as the file's own event
//! formats place them, each CPU's pages in order with their time extends, and the CPUs merged
//! by time. Only the top instance's buffer is read; a compressed file is refused, naming the
//! algorithm (`trace-cmd convert --compression none` writes an uncompressed copy).

mod bytes;
mod format;
mod pages;

use super::ftrace_import::{ImportOptions, Imported, Reader};
use bytes::Bytes;
use format::Format;
use pages::CpuEvents;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The first bytes of every `trace.dat`: `\x17\x08\x44` and "tracing".
pub const MAGIC: &[u8] = b"\x17\x08\x44tracing";

/// The sched events read, by the name in their format.
const READ: [&str; 4] = ["sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new"];

/// What the header says, and where each CPU's pages are.
struct Layout {
    version: u32,
    page_size: u64,
    /// Where an event's data starts in a page, and the size of the page's `commit` word.
    data_offset: u64,
    commit_size: u64,
    formats: Vec<Format>,
    /// (cpu, offset, size) of the top instance's pages.
    cpus: Vec<(u32, u64, u64)>,
    /// Other instances' names (not read).
    other_instances: Vec<String>,
}

/// Read a `trace.dat` held in memory as a scenario.
pub fn import_tracedat(data: &[u8], opts: &ImportOptions) -> Result<Imported, String> {
    if !data.starts_with(MAGIC) {
        return Err("byte 0: not a trace.dat (no \\x17\\x08\\x44tracing magic)".into());
    }
    let (version, after) = Bytes { data, big_endian: false }.cstr(MAGIC.len() as u64, "the file version")?;
    let version: u32 = version.parse().map_err(|_| format!("byte {}: file version {version:?} is not a number", MAGIC.len()))?;
    let endian = *data.get(after as usize).ok_or_else(|| format!("byte {after}: the file ends in its header"))?;
    let b = Bytes { data, big_endian: endian == 1 };
    let layout = match version {
        6 => layout_v6(&b, after + 2)?,
        7 => layout_v7(&b, after + 2)?,
        v => return Err(format!("byte {}: trace.dat version {v}; versions 6 and 7 are read", MAGIC.len())),
    };
    let mut r = Reader::new(opts);
    for name in &layout.other_instances {
        r.warn(format!("the trace instance {name:?} is not read (only the top instance is)"));
    }
    let wanted: Vec<&Format> = layout.formats.iter().filter(|f| READ.contains(&f.name.as_str())).collect();
    if wanted.is_empty() {
        return Err(format!("the file (version {}) describes none of {READ:?}: no sched events to read", layout.version));
    }
    // Each CPU's events come in time order; the earliest of the CPUs' next events goes first
    // (on a tie, the lower CPU).
    let mut heads = BinaryHeap::new();
    let mut cpus: Vec<CpuEvents> = Vec::new();
    let mut next: Vec<Option<pages::Ev>> = Vec::new();
    for &(cpu, off, size) in &layout.cpus {
        let mut it = CpuEvents::new(b, cpu, off, size, layout.page_size, layout.data_offset, layout.commit_size, &wanted);
        let ev = it.next_event()?;
        if let Some(e) = &ev {
            heads.push(Reverse((e.0, cpu, cpus.len())));
        }
        cpus.push(it);
        next.push(ev);
    }
    while let Some(Reverse((_, _, i))) = heads.pop() {
        let Some((ts, at, line)) = next[i].take() else { continue };
        if !r.feed(line, &|| format!("CPU {} event at byte {at} ({ts} ns)", cpus[i].cpu))? {
            break;
        }
        next[i] = cpus[i].next_event()?;
        if let Some(e) = &next[i] {
            heads.push(Reverse((e.0, cpus[i].cpu, i)));
        }
    }
    let other: u64 = cpus.iter().map(|c| c.other_events).sum();
    if other > 0 {
        r.warn(format!("{other} events other than {} were left out", READ.join(", ")));
    }
    r.finish("a trace-cmd trace.dat")
}

/// `header_page`'s fields: where the data starts, and the size of `commit`.
fn page_header(text: &str) -> Result<(u64, u64), String> {
    let f = format::parse(&format!("name: header_page\nID: 0\n{text}")).ok_or("header_page is unreadable")?;
    let data = f.fields.get("data").ok_or("header_page has no data field")?;
    let commit = f.fields.get("commit").ok_or("header_page has no commit field")?;
    Ok((data.offset, commit.size))
}

/// Event format files: a count (4 bytes) of (size: 8 bytes, text) entries.
fn read_formats(b: &Bytes, mut at: u64, out: &mut Vec<Format>) -> Result<u64, String> {
    let n = b.u32(at, "the count of event formats")?;
    at += 4;
    for _ in 0..n {
        let size = b.u64(at, "the size of an event format")?;
        let text = b.slice(at + 8, size, "an event format")?;
        if let Some(f) = std::str::from_utf8(text).ok().and_then(format::parse) {
            out.push(f);
        }
        at += 8 + size;
    }
    Ok(at)
}

/// Event systems: a count (4 bytes) of (name, formats) entries.
fn read_systems(b: &Bytes, mut at: u64, out: &mut Vec<Format>) -> Result<u64, String> {
    let n = b.u32(at, "the count of event systems")?;
    at += 4;
    for _ in 0..n {
        let (_, next) = b.cstr(at, "an event system's name")?;
        at = read_formats(b, next, out)?;
    }
    Ok(at)
}

/// The `header_page` / `header_event` pair, each a name, a size (8 bytes) and text.
fn read_header_info(b: &Bytes, at: u64) -> Result<((u64, u64), u64), String> {
    let (name, at) = b.cstr(at, "\"header_page\"")?;
    if name != "header_page" {
        return Err(format!("byte {at}: expected \"header_page\", found {name:?}"));
    }
    let size = b.u64(at, "the size of header_page")?;
    let text = b.slice(at + 8, size, "header_page")?;
    let page = page_header(&String::from_utf8_lossy(text)).map_err(|e| format!("byte {}: {e}", at + 8))?;
    let at = at + 8 + size;
    let (_, at) = b.cstr(at, "\"header_event\"")?;
    let size = b.u64(at, "the size of header_event")?;
    Ok((page, at + 8 + size))
}

fn layout_v6(b: &Bytes, at: u64) -> Result<Layout, String> {
    let page_size = u64::from(b.u32(at, "the page size")?);
    let ((data_offset, commit_size), at) = read_header_info(b, at + 4)?;
    let mut formats = Vec::new();
    let at = read_formats(b, at, &mut formats)?;
    let at = read_systems(b, at, &mut formats)?;
    let at = at + 4 + u64::from(b.u32(at, "the size of kallsyms")?);
    let at = at + 4 + u64::from(b.u32(at, "the size of printk formats")?);
    let at = at + 8 + b.u64(at, "the size of the saved command lines")?;
    let ncpu = b.u32(at, "the CPU count")?;
    let mut at = at + 4;
    let mut other_instances = Vec::new();
    loop {
        let tag = b.slice(at, 10, "a section name (options, latency or flyrecord)")?;
        match tag {
            b"options  \0" => {
                at += 10;
                loop {
                    let id = b.u16(at, "an option id")?;
                    if id == 0 {
                        // Version 6 ends its options with a bare zero id.
                        at += 2;
                        break;
                    }
                    let size = u64::from(b.u32(at + 2, "an option size")?);
                    if id == 3 {
                        let (name, _) = b.cstr(at + 6 + 8, "a buffer name")?;
                        other_instances.push(name.to_string());
                    }
                    at += 6 + size;
                }
            }
            b"flyrecord\0" => {
                at += 10;
                let mut cpus = Vec::new();
                for c in 0..ncpu {
                    cpus.push((c, b.u64(at, "a CPU's data offset")?, b.u64(at + 8, "a CPU's data size")?));
                    at += 16;
                }
                return Ok(Layout { version: 6, page_size, data_offset, commit_size, formats, cpus, other_instances });
            }
            b"latency  \0" => return Err(format!("byte {at}: a latency-tracer trace (text), not sched events")),
            _ => return Err(format!("byte {at}: expected \"options\", \"latency\" or \"flyrecord\", found {:?}", String::from_utf8_lossy(tag))),
        }
    }
}

fn layout_v7(b: &Bytes, at: u64) -> Result<Layout, String> {
    let page_size = u64::from(b.u32(at, "the page size")?);
    let (comp, at) = b.cstr(at + 4, "the compression algorithm")?;
    let (_, at) = b.cstr(at, "the compression version")?;
    if comp != "none" && !comp.is_empty() {
        return Err(format!("the trace is compressed ({comp}); `trace-cmd convert --compression none` writes a copy Fairground reads"));
    }
    let mut next = b.u64(at, "the offset of the first options section")?;
    let (mut header, mut formats, mut cpus, mut other_instances) = (None, Vec::new(), Vec::new(), Vec::new());
    let mut seen = 0;
    // Section header: id (2), flags (2), description string id (4), size (8).
    let section = |off: u64, want: u16| -> Result<u64, String> {
        let id = b.u16(off, "a section id")?;
        if id != want {
            return Err(format!("byte {off}: expected section {want}, found section {id}"));
        }
        if b.u16(off + 2, "section flags")? & 1 != 0 {
            return Err(format!("byte {off}: section {id} is compressed"));
        }
        Ok(off + 16)
    };
    while next != 0 {
        seen += 1;
        if seen > 10_000 {
            return Err(format!("byte {next}: options sections loop"));
        }
        let mut at = section(next, 0)?;
        loop {
            let id = b.u16(at, "an option id")?;
            let size = u64::from(b.u32(at + 2, "an option size")?);
            let data = at + 6;
            match id {
                0 => {
                    next = b.u64(data, "the next options section")?;
                    break;
                }
                3 => {
                    let off = b.u64(data, "a buffer's section offset")?;
                    let (name, p) = b.cstr(data + 8, "a buffer name")?;
                    if !name.is_empty() {
                        other_instances.push(name.to_string());
                    } else {
                        let (_, mut p) = b.cstr(p, "a buffer's clock")?;
                        // Current trace-cmd writes the buffer's page size before the CPU count,
                        // older versions do not: the option's size tells which.
                        let n = u64::from(b.u32(p, "a buffer's CPU count")?);
                        if p + 4 + n * 20 != data + size {
                            p += 4;
                        }
                        let n = b.u32(p, "a buffer's CPU count")?;
                        section(off, 3)?;
                        for k in 0..u64::from(n) {
                            let e = p + 4 + k * 20;
                            cpus.push((b.u32(e, "a CPU id")?, b.u64(e + 4, "a CPU's data offset")?, b.u64(e + 12, "a CPU's data size")?));
                        }
                    }
                }
                16 => header = Some(read_header_info(b, section(b.u64(data, "the header info offset")?, 16)?)?.0),
                17 => {
                    read_formats(b, section(b.u64(data, "the ftrace formats offset")?, 17)?, &mut formats)?;
                }
                18 => {
                    read_systems(b, section(b.u64(data, "the event formats offset")?, 18)?, &mut formats)?;
                }
                _ => {}
            }
            at = data + size;
        }
    }
    let (data_offset, commit_size) = header.ok_or("the file has no header info section (header_page)")?;
    Ok(Layout { version: 7, page_size, data_offset, commit_size, formats, cpus, other_instances })
}
