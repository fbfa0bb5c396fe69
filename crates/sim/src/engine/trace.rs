//! An optional recording of what ran where: one slice per stint of a task on a CPU, with why
//! it started and why it stopped (the app's per-CPU timeline). Off by default, so the CLI pays
//! one branch per switch; the app turns it on with `Sim::enable_trace`.
//!
//! Slices are appended when a stint ends, so each CPU's slices come in time order and never
//! overlap. A stint still running is `Trace::open[cpu]`. `mark()`/`rewind()` let a checkpoint
//! (a clone of the `Sim` taken without its trace) be restored without copying the recording.

use super::Sim;
use crate::cfs::ReschedCause;
use crate::entity::NIL;

/// Why a stint began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StartWhy {
    /// First run after its fork.
    Fork = 0,
    /// First run after a wakeup (the wait is the wakeup latency).
    Wakeup = 1,
    /// Running again after an involuntary switch-out.
    Resume = 2,
}

/// Why a stint ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum StopWhy {
    /// The task finished its burst and slept (voluntary).
    Slept = 0,
    /// Preempted at a tick (`check_preempt_tick`).
    Tick = 1,
    /// Preempted at the wakeup of `other` (`check_preempt_wakeup`).
    Wakeup = 2,
    /// Preempted at the fork of `other`.
    Fork = 3,
    /// Preempted after a `sched_setattr`-like change.
    Attr = 4,
    /// Switched out with no recorded cause.
    Other = 5,
    /// Preempted by `other`, which the load balancer had just moved to this CPU.
    Migrate = 6,
}

/// One closed stint of `task` on `cpu` over [start_ns, end_ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub cpu: u32,
    pub task: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub start_why: StartWhy,
    pub stop_why: StopWhy,
    /// The task whose wakeup or fork caused the preemption; NIL otherwise.
    pub other: u32,
    /// What the stint paid before its first useful instruction (`machine.costs`): its wakeup
    /// latency ends that long after `start_ns`.
    pub overhead_ns: u32,
}

/// A stint still running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Open {
    pub task: u32,
    pub start_ns: u64,
    pub start_why: StartWhy,
    pub overhead_ns: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Closed slices in the order they closed (each CPU's in time order).
    pub slices: Vec<Slice>,
    /// Per CPU, the stint running now.
    pub open: Vec<Option<Open>>,
}

/// Where a trace stood when a checkpoint was taken.
#[derive(Clone, Debug)]
pub struct TraceMark {
    len: usize,
    open: Vec<Option<Open>>,
}

/// A stint's overhead fits: each cost is at most 10^7 ns (contract additions, `machine.costs`).
fn overhead(ns: u64) -> u32 {
    u32::try_from(ns).unwrap_or(u32::MAX)
}

impl Trace {
    pub fn new(cpus: usize) -> Trace {
        Trace { slices: Vec::new(), open: vec![None; cpus] }
    }

    pub fn mark(&self) -> TraceMark {
        TraceMark { len: self.slices.len(), open: self.open.clone() }
    }

    /// Back to `m`: the slices closed since are dropped (a deterministic replay closes them
    /// again, identically).
    pub fn rewind(&mut self, m: &TraceMark) {
        self.slices.truncate(m.len);
        self.open.clone_from(&m.open);
    }
}

impl Sim {
    /// Start recording slices (from the current instant on).
    pub fn enable_trace(&mut self) {
        if self.trace.is_none() {
            let mut tr = Trace::new(self.cpus.len());
            for (c, cpu) in self.cpus.iter().enumerate() {
                if cpu.curr != NIL {
                    let t = &self.tasks[cpu.curr as usize];
                    tr.open[c] = Some(Open { task: cpu.curr, start_ns: t.run_start, start_why: StartWhy::Resume, overhead_ns: overhead(t.overhead) });
                }
            }
            self.trace = Some(tr);
        }
    }

    /// Hook of `switch_in`: after the stint's overhead is known, before the task's
    /// waking/preempted marks are cleared.
    #[inline]
    pub(super) fn trace_switch_in(&mut self, cpu: u32, next: u32) {
        let Some(tr) = self.trace.as_mut() else { return };
        let t = &self.tasks[next as usize];
        let why = if t.waking_since.is_some() {
            StartWhy::Wakeup
        } else if t.preempted_since.is_some() {
            StartWhy::Resume
        } else {
            StartWhy::Fork
        };
        tr.open[cpu as usize] = Some(Open { task: next, start_ns: self.now, start_why: why, overhead_ns: overhead(t.overhead) });
    }

    /// Hook of `switch_out`: `slept` when the task is no longer runnable.
    #[inline]
    pub(super) fn trace_switch_out(&mut self, cpu: u32, slept: bool, cause: Option<ReschedCause>) {
        let Some(tr) = self.trace.as_mut() else { return };
        let Some(o) = tr.open[cpu as usize].take() else { return };
        let (stop_why, other) = if slept {
            (StopWhy::Slept, NIL)
        } else {
            match cause {
                Some(ReschedCause::Tick) => (StopWhy::Tick, NIL),
                Some(ReschedCause::Wakeup(w)) => (StopWhy::Wakeup, w),
                Some(ReschedCause::Fork(w)) => (StopWhy::Fork, w),
                Some(ReschedCause::Attr) => (StopWhy::Attr, NIL),
                Some(ReschedCause::Migrate(w)) => (StopWhy::Migrate, w),
                None => (StopWhy::Other, NIL),
            }
        };
        if self.now > o.start_ns {
            tr.slices.push(Slice {
                cpu,
                task: o.task,
                start_ns: o.start_ns,
                end_ns: self.now,
                start_why: o.start_why,
                stop_why,
                other,
                overhead_ns: o.overhead_ns,
            });
        }
    }
}
