//! The ftrace exporter as it was before it streamed (`to_ftrace` over a whole recorded run,
//! with the line writer it used), kept verbatim as the reference the streaming exporter is
//! compared with, byte for byte.
#![allow(dead_code)]

use fairground_sim::engine::trace::{Slice, StartWhy, StopWhy};
use fairground_sim::engine::Sim;
use fairground_sim::entity::NIL;

pub const END_MARK: &str = "fairground: run ends at ns ";
pub const PID_BASE: i64 = 10_000;

/// The sched events this module reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Switch { prev_comm: String, prev_pid: i64, prev_prio: i64, prev_state: String, next_comm: String, next_pid: i64, next_prio: i64 },
    /// `sched_waking`, `sched_wakeup` and `sched_wakeup_new` share one format.
    Wake { kind: WakeKind, comm: String, pid: i64, prio: i64, target_cpu: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

impl WakeKind {
    pub fn name(self) -> &'static str {
        match self {
            WakeKind::Waking => "sched_waking",
            WakeKind::Wakeup => "sched_wakeup",
            WakeKind::WakeupNew => "sched_wakeup_new",
        }
    }
}

/// `TASK_COMM_LEN - 1` characters, no spaces (a space would split the task column).
fn comm_of(name: &str) -> String {
    name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).take(15).collect()
}

/// (start, end, task, why it started, why it stopped — None while still running).
type Stint = (u64, u64, u32, StartWhy, Option<StopWhy>);

#[derive(Clone, Copy)]
enum Kind {
    /// A wakeup of `task` targeting `cpu` (sched_waking + sched_wakeup), or a fork.
    Wake { task: u32, new: bool },
    /// `prev` (NIL = idle) leaves `cpu`, `next` (NIL = idle) comes in.
    Switch { prev: u32, prev_state: &'static str, next: u32 },
}

/// Export a run made with `Sim::enable_trace()` (from its start). Stints still running at the
/// end are switched in and left open.
pub fn to_ftrace(sim: &Sim) -> String {
    let ncpu = sim.cpus.len();
    let empty = Vec::new();
    let slices: &Vec<Slice> = sim.trace.as_ref().map_or(&empty, |t| &t.slices);
    let mut per_cpu: Vec<Vec<Stint>> = vec![Vec::new(); ncpu];
    for s in slices {
        per_cpu[s.cpu as usize].push((s.start_ns, s.end_ns, s.task, s.start_why, Some(s.stop_why)));
    }
    if let Some(tr) = &sim.trace {
        for (c, o) in tr.open.iter().enumerate() {
            if let Some(o) = o {
                per_cpu[c].push((o.start_ns, u64::MAX, o.task, o.start_why, None));
            }
        }
    }
    // (time, cpu, kind): built per CPU, then merged in time order.
    let mut events: Vec<(u64, u32, Kind)> = Vec::new();
    let mut wake_no = vec![0usize; sim.tasks.len()];
    for (c, list) in per_cpu.iter_mut().enumerate() {
        list.sort_by_key(|x| x.0);
        let c = c as u32;
        for (i, &(start, end, task, why, stop)) in list.iter().enumerate() {
            match why {
                StartWhy::Fork => {
                    let fork = sim.tasks[task as usize].start_ns.min(start);
                    events.push((fork, c, Kind::Wake { task, new: true }));
                }
                StartWhy::Wakeup => {
                    let k = wake_no[task as usize];
                    wake_no[task as usize] += 1;
                    let lat = sim.tasks[task as usize].stats.wakeup_latency.get(k).copied().unwrap_or(0);
                    events.push((start - lat.min(start), c, Kind::Wake { task, new: false }));
                }
                StartWhy::Resume => {}
            }
            // Coming in: from the stint that ended at this very instant, or from idle.
            let prev = i.checked_sub(1).map(|j| list[j]).filter(|p| p.1 == start);
            if prev.is_none() {
                events.push((start, c, Kind::Switch { prev: NIL, prev_state: "R", next: task }));
            }
            let Some(stop) = stop else { continue };
            let state = if stop == StopWhy::Slept { "S" } else { "R+" };
            let next = list.get(i + 1).filter(|n| n.0 == end).map_or(NIL, |n| n.2);
            events.push((end, c, Kind::Switch { prev: task, prev_state: state, next }));
        }
    }
    // Wakeups before switches at one instant, as a wakeup precedes the switch it causes;
    // switches to sleep before the others (a task leaves a CPU before another runs it).
    events.sort_by_key(|&(t, c, k)| {
        let (switch, not_sleeping) = match k {
            Kind::Switch { prev_state, .. } => (true, prev_state != "S"),
            Kind::Wake { .. } => (false, false),
        };
        (t, switch, not_sleeping, c)
    });

    let mut out = String::with_capacity(events.len() * 150);
    let mut curr = vec![NIL; ncpu];
    let name = |t: u32, cpu: u32| -> (String, i64, i64) {
        if t == NIL {
            (format!("swapper/{cpu}"), 0, 120)
        } else {
            let task = &sim.tasks[t as usize];
            (comm_of(&task.name), PID_BASE + i64::from(t), 120 + i64::from(task.nice))
        }
    };
    let running = |t: u32| -> (String, i64) {
        if t == NIL {
            ("<idle>".to_string(), 0)
        } else {
            (comm_of(&sim.tasks[t as usize].name), PID_BASE + i64::from(t))
        }
    };
    for (ts, cpu, kind) in events {
        match kind {
            Kind::Wake { task, new } => {
                let (comm, pid, prio) = name(task, cpu);
                let (rc, rp) = running(curr[cpu as usize]);
                let kinds: &[WakeKind] = if new { &[WakeKind::WakeupNew] } else { &[WakeKind::Waking, WakeKind::Wakeup] };
                for &k in kinds {
                    let ev = Event::Wake { kind: k, comm: comm.clone(), pid, prio, target_cpu: cpu };
                    write(&mut out, &rc, rp, cpu, "d..3.", ts, &ev);
                }
            }
            Kind::Switch { prev, prev_state, next } => {
                let (pc, pp, pprio) = name(prev, cpu);
                let (nc, np, nprio) = name(next, cpu);
                let (rc, rp) = running(prev);
                let ev = Event::Switch {
                    prev_comm: pc,
                    prev_pid: pp,
                    prev_prio: pprio,
                    prev_state: prev_state.to_string(),
                    next_comm: nc,
                    next_pid: np,
                    next_prio: nprio,
                };
                write(&mut out, &rc, rp, cpu, "d..2.", ts, &ev);
                curr[cpu as usize] = next;
            }
        }
    }
    let mut text = String::with_capacity(out.len() + 1024);
    header(&mut text, out.lines().count(), ncpu, sim.duration_ns);
    text.push_str(&out);
    text
}

/// The tracefs header, plus one comment line with the run's end (tools skip comments; the
/// importer reads it, since a trace otherwise ends at its last event).
fn header(out: &mut String, n: usize, ncpu: usize, end_ns: u64) {
    use std::fmt::Write;
    let _ = write!(
        out,
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: {n}/{n}   #P:{ncpu}\n# {END_MARK}{end_ns}\n#\n\
#                                _-----=> irqs-off/BH-disabled\n\
#                               / _----=> need-resched\n\
#                              | / _---=> hardirq/softirq\n\
#                              || / _--=> preempt-depth\n\
#                              ||| / _-=> migrate-disable\n\
#                              |||| /     delay\n\
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n\
#              | |         |   |||||     |         |\n"
    );
}

/// Write one line in the tracefs layout: task column, CPU, flags, timestamp (µs, as the
/// kernel prints it), event and fields.
pub fn write(out: &mut String, comm: &str, pid: i64, cpu: u32, flags: &str, ts_ns: u64, event: &Event) {
    use std::fmt::Write;
    let (sec, us) = (ts_ns / 1_000_000_000, ts_ns % 1_000_000_000 / 1000);
    let _ = write!(out, "{comm:>16}-{pid:<7} [{cpu:03}] {flags} {sec:>5}.{us:06}: ");
    let _ = match event {
        Event::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio } => writeln!(
            out,
            "sched_switch: prev_comm={prev_comm} prev_pid={prev_pid} prev_prio={prev_prio} prev_state={prev_state} ==> next_comm={next_comm} next_pid={next_pid} next_prio={next_prio}"
        ),
        Event::Wake { kind, comm, pid, prio, target_cpu } => {
            writeln!(out, "{}: comm={comm} pid={pid} prio={prio} target_cpu={target_cpu:03}", kind.name())
        }
    };
}
