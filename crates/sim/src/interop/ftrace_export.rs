//! A run as Linux ftrace text: `sched_wakeup_new` at a fork, `sched_waking` and `sched_wakeup`
//! at each wakeup, `sched_switch` at each switch, with idle as `swapper/N` (pid 0), in the
//! layout of `/sys/kernel/tracing/trace`. Perfetto and trace-cmd read it as a real trace: one
//! scheduling track per CPU, and each thread's running, runnable and sleeping states.
//!
//! Tasks get pid 10000 + their index and their name (spaces replaced, cut to the kernel's 15
//! characters) as comm; prio is 120 + nice. Timestamps are printed in µs, as the kernel does.
//! A wakeup's time is the start of the stint it led to minus its recorded wakeup latency, and
//! its target CPU is the CPU of that stint.

use super::ftrace_line::{write, Event, WakeKind};
use crate::engine::trace::{Slice, StartWhy, StopWhy};
use crate::engine::Sim;
use crate::entity::NIL;
use crate::scenario::{ScenarioError, Validated};

/// The comment that carries the end of the run.
pub const END_MARK: &str = "fairground: run ends at ns ";

/// The pid a task is given in the export.
pub const PID_BASE: i64 = 10_000;

/// Run `v` with slice recording on, and export it.
pub fn run_to_ftrace(v: &Validated) -> Result<String, ScenarioError> {
    let mut sim = Sim::new(v)?;
    sim.enable_trace();
    sim.run();
    Ok(to_ftrace(&sim))
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
    // Wakeups before switches at one instant, as a wakeup precedes the switch it causes.
    events.sort_by_key(|&(t, c, k)| (t, matches!(k, Kind::Switch { .. }), c));

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
