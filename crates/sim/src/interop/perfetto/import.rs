//! A Perfetto protobuf trace read as a scenario, through the same reader as ftrace text: the
//! sched events of its `FtraceEventBundle`s, as full `FtraceEvent`s (`sched_switch`,
//! `sched_waking`, `sched_wakeup`, `sched_wakeup_new`) or in the `CompactSched` form Perfetto's
//! recorder writes by default. Task names come with the events (comms). Other packets
//! (process trees, counters, track events but Fairground's end-of-run mark) and other ftrace
//! events are counted in one warning and left out.
//!
//! The file is read packet by packet from any `Read`, so memory holds one packet and the
//! events waiting to be put in time order: each bundle holds one CPU's events, and bundles of
//! several CPUs cover the same stretch of time, so events are merged by time up to the latest
//! time every CPU seen has reached. A CPU that stops giving events would hold that back for
//! ever; past `MAX_HELD` waiting events the earliest go on anyway (the reader warns if one
//! then comes earlier than what it has read).

use super::export::END_EVENT;
use super::proto::{CompactSched, FtraceEvent, SchedWake, TracePacket};
use crate::interop::ftrace_import::{ImportOptions, Imported, Reader};
use crate::interop::ftrace_line::{prev_state_letters, Event, Line, Other, WakeKind};
use prost::Message;
use std::collections::{BTreeMap, BinaryHeap};
use std::cmp::Reverse;
use std::io::{self, Read};

/// Events held for ordering, at most.
const MAX_HELD: usize = 1 << 20;
/// The largest packet read (Perfetto's own limit on a packet is far smaller).
const MAX_PACKET: u64 = 256 << 20;

/// Whether `head` (the first bytes of a file) starts like a Perfetto trace: field 1,
/// length-delimited, of a length that a packet can have, holding a packet that decodes.
pub fn is_perfetto(head: &[u8]) -> bool {
    if head.first() != Some(&0x0A) {
        return false;
    }
    let mut r = &head[1..];
    let Ok(len) = prost::encoding::decode_varint(&mut r) else { return false };
    if len == 0 || len >= MAX_PACKET {
        return false;
    }
    match r.get(..len as usize) {
        Some(p) => TracePacket::decode(p).is_ok(),
        // A first packet longer than what was looked at: binary, not text, is what tells.
        None => std::str::from_utf8(r).is_err(),
    }
}

/// Bytes read so far, for error messages.
struct Counted<R> {
    inner: R,
    at: u64,
}

impl<R: Read> Counted<R> {
    /// A varint; None at a clean end of file (before its first byte).
    fn varint(&mut self) -> Result<Option<u64>, String> {
        let start = self.at;
        let mut v = 0u64;
        for i in 0..10 {
            let mut b = [0u8];
            match self.inner.read_exact(&mut b) {
                Ok(()) => self.at += 1,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && i == 0 => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(format!("byte {start}: the file ends inside a varint")),
                Err(e) => return Err(format!("byte {}: cannot read the trace: {e}", self.at)),
            }
            v |= u64::from(b[0] & 0x7f) << (7 * i);
            if b[0] < 0x80 {
                return Ok(Some(v));
            }
        }
        Err(format!("byte {start}: a varint longer than 10 bytes (not a protobuf trace?)"))
    }

    fn bytes(&mut self, n: u64, buf: &mut Vec<u8>) -> Result<(), String> {
        let start = self.at;
        buf.clear();
        let got = (&mut self.inner).take(n).read_to_end(buf).map_err(|e| format!("byte {start}: cannot read the trace: {e}"))?;
        self.at += got as u64;
        if (got as u64) < n {
            return Err(format!("byte {start}: the file ends inside a field of {n} bytes ({got} there)"));
        }
        Ok(())
    }
}

/// An event waiting to be read in time order.
struct Held {
    ts: u64,
    seq: u64,
    line: Result<Line, Other>,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.ts, self.seq) == (o.ts, o.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.ts, self.seq).cmp(&(o.ts, o.seq))
    }
}

struct Merge {
    heap: BinaryHeap<Reverse<Held>>,
    seq: u64,
    /// Per CPU, the latest time its bundles reached.
    reached: BTreeMap<u32, u64>,
    /// Per CPU, the task its last switch put on it (comm, pid, prio): a compact switch's prev.
    last_next: BTreeMap<u32, (String, i64, i64)>,
    other_events: u64,
}

impl Merge {
    fn hold(&mut self, ts: u64, line: Result<Line, Other>) {
        self.seq += 1;
        self.heap.push(Reverse(Held { ts, seq: self.seq, line }));
    }

    /// Give `r` every held event no CPU can still precede: up to `known` when the file says
    /// so, else up to the time every CPU seen has reached (all of them when `all`).
    fn release(&mut self, r: &mut Reader, all: bool, known: Option<u64>, at: &str) -> Result<bool, String> {
        let water = if all { u64::MAX } else { known.unwrap_or_else(|| self.reached.values().copied().min().unwrap_or(0)) };
        while let Some(Reverse(h)) = self.heap.peek() {
            if h.ts > water && self.heap.len() <= MAX_HELD {
                break;
            }
            let Some(Reverse(h)) = self.heap.pop() else { break };
            if !r.feed(h.line, &|| format!("the event at {} ns (read by {at})", h.ts))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn wake(&mut self, kind: WakeKind, w: &SchedWake, cpu: u32) -> Result<Event, String> {
        let target = w.target_cpu.unwrap_or(cpu as i32);
        let target_cpu = u32::try_from(target).map_err(|_| format!("{}: target_cpu {target}", kind.name()))?;
        Ok(Event::Wake { kind, comm: w.comm.clone().unwrap_or_default(), pid: i64::from(w.pid.unwrap_or(0)), prio: i64::from(w.prio.unwrap_or(120)), target_cpu })
    }

    fn full(&mut self, cpu: u32, ev: &FtraceEvent) {
        let Some(ts) = ev.timestamp else {
            self.other_events += 1;
            return;
        };
        let event = if let Some(sw) = &ev.sched_switch {
            let next = (sw.next_comm.clone().unwrap_or_default(), i64::from(sw.next_pid.unwrap_or(0)), i64::from(sw.next_prio.unwrap_or(120)));
            self.last_next.insert(cpu, next.clone());
            Ok(Event::Switch {
                prev_comm: sw.prev_comm.clone().unwrap_or_default(),
                prev_pid: i64::from(sw.prev_pid.unwrap_or(0)),
                prev_prio: i64::from(sw.prev_prio.unwrap_or(120)),
                prev_state: prev_state_letters(sw.prev_state.unwrap_or(0)).into(),
                next_comm: next.0,
                next_pid: next.1,
                next_prio: next.2,
            })
        } else if let Some(w) = &ev.sched_waking {
            self.wake(WakeKind::Waking, w, cpu)
        } else if let Some(w) = &ev.sched_wakeup {
            self.wake(WakeKind::Wakeup, w, cpu)
        } else if let Some(w) = &ev.sched_wakeup_new {
            self.wake(WakeKind::WakeupNew, w, cpu)
        } else {
            self.other_events += 1;
            return;
        };
        let line = event.map(|event| Line { ts_ns: ts, cpu, event }).map_err(Other::Skipped);
        self.hold(ts, line);
    }

    fn compact(&mut self, cpu: u32, c: &CompactSched) -> Result<(), String> {
        let comm = |i: Option<&u32>| -> Result<String, String> {
            let i = *i.ok_or("compact_sched: fewer comm indices than events")?;
            c.intern_table.get(i as usize).cloned().ok_or_else(|| format!("compact_sched: comm index {i} past the intern table ({} strings)", c.intern_table.len()))
        };
        let n = c.switch_timestamp.len();
        if [c.switch_prev_state.len(), c.switch_next_pid.len(), c.switch_next_prio.len()].iter().any(|&l| l != n) {
            return Err(format!("compact_sched: {n} switch timestamps but {} prev states, {} next pids, {} next prios", c.switch_prev_state.len(), c.switch_next_pid.len(), c.switch_next_prio.len()));
        }
        let mut ts = 0u64;
        for i in 0..n {
            ts = ts.wrapping_add(c.switch_timestamp[i]);
            let next = (comm(c.switch_next_comm_index.get(i))?, i64::from(c.switch_next_pid[i]), i64::from(c.switch_next_prio[i]));
            // The first switch seen on a CPU does not say who left it: read as idle.
            let prev = self.last_next.insert(cpu, next.clone()).unwrap_or_else(|| (String::new(), 0, 120));
            let event = Event::Switch {
                prev_comm: prev.0,
                prev_pid: prev.1,
                prev_prio: prev.2,
                prev_state: prev_state_letters(c.switch_prev_state[i]).into(),
                next_comm: next.0,
                next_pid: next.1,
                next_prio: next.2,
            };
            self.hold(ts, Ok(Line { ts_ns: ts, cpu, event }));
        }
        let n = c.waking_timestamp.len();
        if [c.waking_pid.len(), c.waking_target_cpu.len(), c.waking_prio.len()].iter().any(|&l| l != n) {
            return Err(format!("compact_sched: {n} waking timestamps but {} pids, {} target CPUs, {} prios", c.waking_pid.len(), c.waking_target_cpu.len(), c.waking_prio.len()));
        }
        let mut ts = 0u64;
        for i in 0..n {
            ts = ts.wrapping_add(c.waking_timestamp[i]);
            let target = c.waking_target_cpu[i];
            let target_cpu = u32::try_from(target).map_err(|_| format!("compact_sched: waking target_cpu {target}"))?;
            let event = Event::Wake { kind: WakeKind::Waking, comm: comm(c.waking_comm_index.get(i))?, pid: i64::from(c.waking_pid[i]), prio: i64::from(c.waking_prio[i]), target_cpu };
            self.hold(ts, Ok(Line { ts_ns: ts, cpu, event }));
        }
        Ok(())
    }
}

/// Read a Perfetto protobuf trace from `input` as a scenario.
pub fn import_perfetto(input: impl Read, opts: &ImportOptions) -> Result<Imported, String> {
    let mut input = Counted { inner: io::BufReader::with_capacity(1 << 16, input), at: 0 };
    let mut r = Reader::new(opts);
    let mut m = Merge { heap: BinaryHeap::new(), seq: 0, reached: BTreeMap::new(), last_next: BTreeMap::new(), other_events: 0 };
    let (mut buf, mut packets) = (Vec::new(), 0u64);
    // Fairground's own export writes its bundles in the order of their first events, so
    // nothing still to come precedes a bundle's first event; it says so in its kernel release.
    let mut ordered = false;
    loop {
        let start = input.at;
        let Some(key) = input.varint()? else { break };
        let (field, wire) = (key >> 3, key & 7);
        let at = format!("packet {} at byte {start}", packets + 1);
        match wire {
            0 => {
                input.varint()?.ok_or_else(|| format!("byte {}: the file ends inside a field", input.at))?;
            }
            1 | 5 => input.bytes(if wire == 1 { 8 } else { 4 }, &mut buf)?,
            2 => {
                let len = input.varint()?.ok_or_else(|| format!("byte {}: the file ends inside a field", input.at))?;
                if len > MAX_PACKET {
                    return Err(format!("byte {start}: a field of {len} bytes (at most {MAX_PACKET} are read; not a Perfetto trace?)"));
                }
                input.bytes(len, &mut buf)?;
            }
            _ => return Err(format!("byte {start}: wire type {wire} is not protobuf's (not a Perfetto trace?)")),
        }
        if field != 1 || wire != 2 {
            continue;
        }
        packets += 1;
        let p = TracePacket::decode(buf.as_slice()).map_err(|e| format!("{at}: not a TracePacket: {e}"))?;
        if let Some(b) = &p.ftrace_events {
            let Some(cpu) = b.cpu else {
                r.warn(format!("{at}: an ftrace bundle without its CPU, left out"));
                continue;
            };
            if b.lost_events == Some(true) {
                m.hold(m.reached.get(&cpu).copied().unwrap_or(0), Err(Other::Lost { cpu }));
            }
            let mut latest = m.reached.get(&cpu).copied().unwrap_or(0);
            for ev in &b.event {
                m.full(cpu, ev);
                latest = latest.max(ev.timestamp.unwrap_or(0));
            }
            if let Some(c) = &b.compact_sched {
                m.compact(cpu, c).map_err(|e| format!("{at}: {e}"))?;
                let last = |d: &[u64]| d.iter().fold(0u64, |a, &x| a.wrapping_add(x));
                latest = latest.max(last(&c.switch_timestamp)).max(last(&c.waking_timestamp));
            }
            m.reached.insert(cpu, latest);
            let first = b.event.iter().filter_map(|e| e.timestamp).min().unwrap_or(0);
            if !m.release(&mut r, false, ordered.then_some(first), &at)? {
                break;
            }
        } else if let Some(info) = &p.system_info {
            ordered = info.utsname.as_ref().and_then(|u| u.release.as_deref()).is_some_and(|r| r.ends_with(super::export::RELEASE_MARK));
        } else if let (Some(ev), Some(ts)) = (&p.track_event, p.timestamp) {
            // Counters, process trees and track events say nothing of the scheduling itself.
            if ev.name.as_deref() == Some(END_EVENT) {
                r.end_mark = Some(ts);
            }
        }
    }
    m.release(&mut r, true, None, "the end of the file")?;
    if m.other_events > 0 {
        r.warn(format!("{} ftrace events other than sched_switch, sched_waking, sched_wakeup and sched_wakeup_new were left out", m.other_events));
    }
    r.finish("a Perfetto trace")
}
