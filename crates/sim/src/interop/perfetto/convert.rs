//! Recorded ftrace text (tracefs's `trace`, `trace-cmd report`) as a Perfetto protobuf trace of
//! the same events: full `FtraceEvent`s in per-CPU bundles (compact sched off). No Perfetto
//! recorder runs here, so the Perfetto form of the trace.dat fixture (a real recording) is made
//! this way, from its own events. The bundles follow one another in time (each a run of one
//! CPU's events): the importer merges bundles by time up to what every CPU seen so far has
//! reached, so no bundle may hold an event earlier than one already given for another CPU.

use prost::Message;

use super::proto::*;
use crate::interop::ftrace_line::{parse, Event, Other, WakeKind};

/// The kernel's TASK_REPORT bits for the letters ftrace prints (4.14 and later): runnable,
/// preempted (TASK_REPORT_MAX), or a sleep (any low bit; the importer reads no more than that).
fn prev_state_bits(letters: &str) -> i64 {
    match letters {
        "R" => 0,
        "R+" => 0x100,
        "D" => 2,
        _ => 1,
    }
}

/// The sched events of `text` as a Perfetto `Trace` whose `SystemInfo` names kernel `release`.
/// Lines that are not sched events are left out; a "LOST EVENTS" line closes its CPU's bundle
/// with `lost_events` set, as the recorder marks an overrun. An error if nothing is read.
pub fn ftrace_text_to_perfetto(text: &str, release: &str) -> Result<Vec<u8>, String> {
    // (time, order in the text, cpu, the event or None for a loss)
    let mut all: Vec<(u64, usize, u32, Option<FtraceEvent>)> = Vec::new();
    let mut last_ts = 0u64;
    for raw in text.lines() {
        let (cpu, ev) = match parse(raw) {
            Ok(l) => (l.cpu, Some((l.ts_ns, l.event))),
            Err(Other::Lost { cpu }) => (cpu, None),
            Err(_) => continue,
        };
        if cpu >= 1024 {
            return Err(format!("CPU {cpu}: CPUs above 1023 are not converted"));
        }
        let Some((ts, event)) = ev else {
            // A loss has no time of its own: it comes before that CPU's next event.
            all.push((last_ts, all.len(), cpu, None));
            continue;
        };
        last_ts = ts;
        let mut e = FtraceEvent { timestamp: Some(ts), pid: None, sched_switch: None, sched_wakeup: None, sched_waking: None, sched_wakeup_new: None };
        match event {
            Event::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio } => {
                e.sched_switch = Some(SchedSwitch {
                    prev_comm: Some(prev_comm),
                    prev_pid: Some(prev_pid as i32),
                    prev_prio: Some(prev_prio as i32),
                    prev_state: Some(prev_state_bits(&prev_state)),
                    next_comm: Some(next_comm),
                    next_pid: Some(next_pid as i32),
                    next_prio: Some(next_prio as i32),
                });
            }
            Event::Wake { kind, comm, pid, prio, target_cpu } => {
                let w = SchedWake { comm: Some(comm), pid: Some(pid as i32), prio: Some(prio as i32), success: Some(1), target_cpu: Some(target_cpu as i32) };
                match kind {
                    WakeKind::Waking => e.sched_waking = Some(w),
                    WakeKind::Wakeup => e.sched_wakeup = Some(w),
                    WakeKind::WakeupNew => e.sched_wakeup_new = Some(w),
                }
            }
        }
        all.push((ts, all.len(), cpu, Some(e)));
    }
    if !all.iter().any(|x| x.3.is_some()) {
        return Err("no sched_switch, sched_waking, sched_wakeup or sched_wakeup_new lines in the text".into());
    }
    // In time order (on a tie, the text's order): a CPU's run of events is one bundle.
    all.sort_by_key(|x| (x.0, x.1));
    let info = TracePacket {
        system_info: Some(SystemInfo { utsname: Some(Utsname { sysname: Some("Linux".into()), release: Some(release.to_string()) }) }),
        ..Default::default()
    };
    let mut packets = vec![info];
    let mut open: Option<FtraceEventBundle> = None;
    for (_, _, cpu, ev) in all {
        let same = open.as_ref().is_some_and(|b| b.cpu == Some(cpu));
        if !same || ev.is_none() {
            if let Some(b) = open.take().filter(|b| !b.event.is_empty()) {
                packets.push(TracePacket { ftrace_events: Some(b), trusted_packet_sequence_id: Some(1), ..Default::default() });
            }
            // A loss is said on the bundle after the gap.
            open = Some(FtraceEventBundle { cpu: Some(cpu), event: Vec::new(), lost_events: ev.is_none().then_some(true), compact_sched: None });
        }
        if let (Some(e), Some(b)) = (ev, open.as_mut()) {
            b.event.push(e);
        }
    }
    if let Some(b) = open.filter(|b| !b.event.is_empty()) {
        packets.push(TracePacket { ftrace_events: Some(b), trusted_packet_sequence_id: Some(1), ..Default::default() });
    }
    Ok(Trace { packet: packets }.encode_to_vec())
}
