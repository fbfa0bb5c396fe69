//! One CPU's ring-buffer pages, event by event (the kernel's `ring_buffer.c` layout, as
//! libtraceevent's kbuffer reads it): a page is a timestamp, a `commit` word (the data's size;
//! its top bits flag events lost before the page) and the data; each event has a 4-byte
//! header of `type_len` (5 bits) and `time_delta` (27 bits), added to the time so far.
//! `type_len` 1–28 is an event of `type_len` × 4 bytes, 0 one whose length is the next word,
//! 29 padding, 30 a time extend (delta += next word << 27), 31 an absolute time stamp.

use super::bytes::Bytes;
use super::format::{Field, Format};
use crate::interop::ftrace_line::{prev_state_letters, Event, Line, Other, WakeKind};

/// `RB_MISSED_EVENTS` and `RB_MISSED_STORED` in `commit`.
const MISSED: u64 = (1 << 31) | (1 << 30);

pub struct CpuEvents<'a> {
    b: Bytes<'a>,
    pub cpu: u32,
    /// The next page, and the end of this CPU's pages.
    page: u64,
    end: u64,
    page_size: u64,
    data_offset: u64,
    commit_size: u64,
    /// Within the current page: the next event and the end of the data.
    pos: u64,
    data_end: u64,
    ts: u64,
    formats: Vec<Format>,
    /// A loss to report before the next page's events.
    lost: bool,
    pub other_events: u64,
}

/// An event: its time, its byte offset in the file, what it is.
pub type Ev = (u64, u64, Result<Line, Other>);

impl<'a> CpuEvents<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(b: Bytes<'a>, cpu: u32, off: u64, size: u64, page_size: u64, data_offset: u64, commit_size: u64, formats: &[&Format]) -> Self {
        CpuEvents {
            b,
            cpu,
            page: off,
            end: off.saturating_add(size),
            page_size: page_size.max(1),
            data_offset,
            commit_size,
            pos: 0,
            data_end: 0,
            ts: 0,
            formats: formats.iter().map(|&f| f.clone()).collect(),
            lost: false,
            other_events: 0,
        }
    }

    /// Step to the next page; false when there is none.
    fn next_page(&mut self) -> Result<bool, String> {
        if self.page >= self.end {
            return Ok(false);
        }
        let p = self.page;
        self.page += self.page_size;
        self.ts = self.b.u64(p, "a page's timestamp")?;
        let commit = self.b.uint(p + 8, self.commit_size, "a page's commit word")?;
        self.lost = commit & MISSED != 0;
        let size = commit & !MISSED & 0xffff_ffff;
        if self.data_offset + size > self.page_size {
            return Err(format!("byte {}: CPU {}'s page claims {size} bytes of data in a page of {}", p + 8, self.cpu, self.page_size));
        }
        self.pos = p + self.data_offset;
        self.data_end = self.pos + size;
        Ok(true)
    }

    /// The next event of this CPU that the importer reads (or a loss), in time order.
    pub fn next_event(&mut self) -> Result<Option<Ev>, String> {
        loop {
            if self.pos + 4 > self.data_end {
                if !self.next_page()? {
                    return Ok(None);
                }
                if self.lost {
                    self.lost = false;
                    return Ok(Some((self.ts, self.page - self.page_size, Err(Other::Lost { cpu: self.cpu }))));
                }
                continue;
            }
            let at = self.pos;
            let head = self.b.u32(at, "an event header")?;
            let (type_len, delta) = (head & 0x1f, u64::from(head >> 5));
            match type_len {
                29 => {
                    // Padding; with no delta, the rest of the page is empty.
                    if delta == 0 {
                        self.pos = self.data_end;
                    } else {
                        self.pos = at + 4 + u64::from(self.b.u32(at + 4, "a padding length")?);
                    }
                    continue;
                }
                30 => {
                    self.ts = self.ts.wrapping_add((u64::from(self.b.u32(at + 4, "a time extend")?) << 27) + delta);
                    self.pos = at + 8;
                    continue;
                }
                31 => {
                    // An absolute time stamp (its top bits are the page's).
                    let abs = (u64::from(self.b.u32(at + 4, "a time stamp")?) << 27) + delta;
                    self.ts = (self.ts & !((1u64 << 59) - 1)) | abs;
                    self.pos = at + 8;
                    continue;
                }
                _ => {}
            }
            self.ts = self.ts.wrapping_add(delta);
            let (data, len) = if type_len == 0 {
                let l = u64::from(self.b.u32(at + 4, "an event length")?);
                (at + 8, l.saturating_sub(4))
            } else {
                (at + 4, u64::from(type_len) * 4)
            };
            self.pos = data + ((len + 3) & !3);
            if self.pos > self.data_end {
                return Err(format!("byte {at}: an event of {len} bytes runs past its page's data (CPU {})", self.cpu));
            }
            let id = self.b.u16(data, "an event's type")?;
            let Some(i) = self.formats.iter().position(|f| f.id == id) else {
                self.other_events += 1;
                continue;
            };
            let line = self.decode(i, data, len).map(|event| Line { ts_ns: self.ts, cpu: self.cpu, event }).map_err(Other::Skipped);
            return Ok(Some((self.ts, at, line)));
        }
    }

    fn decode(&self, i: usize, data: u64, len: u64) -> Result<Event, String> {
        let f = &self.formats[i];
        let field = |name: &str| -> Result<&Field, String> {
            f.fields.get(name).filter(|x| x.offset + x.size <= len).ok_or_else(|| format!("{}: no field {name} within the event's {len} bytes", f.name))
        };
        let int = |name: &str| -> Result<i64, String> {
            let x = field(name)?;
            let v = self.b.uint(data + x.offset, x.size, name)?;
            let bits = 8 * x.size;
            Ok(if x.signed && bits < 64 && v >> (bits - 1) & 1 == 1 { (v as i64) - (1i64 << bits) } else { v as i64 })
        };
        let text = |name: &str| -> Result<String, String> {
            let x = field(name)?;
            let raw = self.b.slice(data + x.offset, x.size, name)?;
            let n = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
            Ok(String::from_utf8_lossy(&raw[..n]).into_owned())
        };
        Ok(match f.name.as_str() {
            "sched_switch" => Event::Switch {
                prev_comm: text("prev_comm")?,
                prev_pid: int("prev_pid")?,
                prev_prio: int("prev_prio")?,
                prev_state: prev_state_letters(int("prev_state")?).into(),
                next_comm: text("next_comm")?,
                next_pid: int("next_pid")?,
                next_prio: int("next_prio")?,
            },
            name => {
                let kind = match name {
                    "sched_waking" => WakeKind::Waking,
                    "sched_wakeup" => WakeKind::Wakeup,
                    _ => WakeKind::WakeupNew,
                };
                let target = int("target_cpu")?;
                Event::Wake {
                    kind,
                    comm: text("comm")?,
                    pid: int("pid")?,
                    prio: int("prio")?,
                    target_cpu: u32::try_from(target).map_err(|_| format!("{name}: target_cpu {target}"))?,
                }
            }
        })
    }
}
