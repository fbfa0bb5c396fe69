//! Workloads (contract §1.4): generators whose tasks block on and wake each other.
//!
//! A workload task's life is a chain of *units of work*, each costing some CPU: a hackbench
//! write or read (`msg_us`), a schbench wakeup (`msg_us`) or a worker's round (`cputime_us`).
//! When a unit's cost has been paid (its burst completes) the unit takes effect — a message
//! becomes readable, a worker is woken — and the role decides what comes next: another unit,
//! which runs on in the same stint on the CPU, or a sleep (`DEQUEUE_SLEEP` and `schedule()`).
//! A unit that costs 0 takes effect at once, in the same instant.

mod hackbench;
mod schbench;

pub use hackbench::Hackbench;
pub use schbench::Schbench;

use super::events::Class;
use super::stats::summarize;
use super::task::{Beh, Role, TState};
use super::Sim;
use crate::cfs::flags::DEQUEUE_SLEEP;
use crate::report::WorkloadReport;
use crate::entity::NIL;
use crate::scenario::{Workload, WorkloadKind};

/// The state of one workload in a run.
#[derive(Clone, Debug)]
pub struct WlState {
    pub name: String,
    pub start_ns: u64,
    /// Index of the workload's first task; its tasks are consecutive.
    pub first: u32,
    pub ntasks: u32,
    /// When the last receiver read its last message (hackbench), if it did.
    pub done_at: Option<u64>,
    pub kind: WlKind,
}

#[derive(Clone, Debug)]
pub enum WlKind {
    Hackbench(Hackbench),
    Schbench(Schbench),
}

impl WlState {
    pub fn new(w: &Workload, first: u32) -> WlState {
        let (kind, ntasks) = match w.kind {
            WorkloadKind::Hackbench { groups, fds, loops, msg_us, pipe_msgs } => {
                (WlKind::Hackbench(Hackbench::new(groups, fds, loops, msg_us * 1000, pipe_msgs)), 2 * groups * fds)
            }
            WorkloadKind::Schbench { messengers, workers, sleep_us, cputime_us, msg_us } => (
                WlKind::Schbench(Schbench::new(messengers, workers, sleep_us * 1000, cputime_us * 1000, msg_us * 1000)),
                messengers + messengers * workers,
            ),
        };
        WlState { name: w.name.clone(), start_ns: w.start_ms * 1_000_000, first, ntasks, done_at: None, kind }
    }

    /// Role and per-role index of the workload's `i`-th task, in expansion order.
    pub fn role_of(&self, i: u32) -> (Role, u32) {
        match &self.kind {
            WlKind::Hackbench(h) if i < h.n => (Role::Sender, i),
            WlKind::Hackbench(h) => (Role::Receiver, i - h.n),
            WlKind::Schbench(s) if i < s.messengers => (Role::Messenger, i),
            WlKind::Schbench(s) => (Role::Worker, i - s.messengers),
        }
    }
}

/// What a role does after a unit of work: another unit of this cost, or sleep.
pub type Next = Option<u64>;

impl Sim {
    /// At fork: the cost of the task's first unit, or None if it starts asleep (a receiver
    /// with an empty pipe, a worker, a sender whose first pipe is full).
    pub(super) fn workload_fork(&mut self, ti: u32) -> Next {
        let Beh::Workload { wl, role, idx } = self.tasks[ti as usize].beh else { return None };
        match role {
            Role::Sender => self.hb_sender_next(wl, idx),
            Role::Receiver => self.hb_receiver_first(wl, idx),
            Role::Messenger => self.sb_messenger_first(wl),
            Role::Worker => None,
        }
    }

    /// The running workload task `ti` on `cpu` has paid for its unit: apply it, then run on
    /// with the next unit or sleep. Units of cost 0 are applied in the same call.
    pub(super) fn workload_burst_done(&mut self, cpu: u32, ti: u32) {
        let Beh::Workload { wl, role, idx } = self.tasks[ti as usize].beh else { return };
        // Its wakeups are made by its syscalls on `cpu`.
        let outer = std::mem::replace(&mut self.waker_cpu, cpu);
        self.workload_burst_units(cpu, ti, wl, role, idx);
        self.waker_cpu = outer;
        if outer == NIL && self.fair.cfg.preemption == crate::scenario::Preemption::Lazy {
            self.fair.return_to_user(cpu);
        }
    }

    fn workload_burst_units(&mut self, cpu: u32, ti: u32, wl: u32, role: Role, idx: u32) {
        loop {
            let next = match role {
                Role::Sender => self.hb_sender_done(wl, idx),
                Role::Receiver => self.hb_receiver_done(wl, idx),
                Role::Messenger => self.sb_messenger_done(wl, idx, ti),
                Role::Worker => None,
            };
            match next {
                Some(0) => continue,
                Some(work) => return self.continue_burst(cpu, ti, work),
                None => return self.block_task(cpu, ti),
            }
        }
    }

    /// A workload timer: a schbench messenger's sleep has ended.
    pub(super) fn workload_timer(&mut self, ti: u32) {
        if let Beh::Workload { wl, .. } = self.tasks[ti as usize].beh {
            if let WlKind::Schbench(s) = &self.wl[wl as usize].kind {
                let msg = s.msg;
                // The messenger's timer fires on the CPU it slept on.
                let cpu = self.tasks[ti as usize].cpu;
                self.wake_from(cpu, |s| s.try_to_wake_up(ti, msg));
            }
        }
    }

    /// Wake a workload task that sleeps waiting for this event, with the cost of its next unit.
    /// Returns false if it was not asleep (it is busy, or not forked yet).
    fn wake_workload_task(&mut self, ti: u32, work: u64) -> bool {
        if self.tasks[ti as usize].state != TState::Sleeping {
            return false;
        }
        self.try_to_wake_up(ti, work);
        true
    }

    /// The running task starts its next unit in the same stint: account the stint so far and
    /// post the unit's completion under the CPU's current switch generation.
    fn continue_burst(&mut self, cpu: u32, ti: u32, work: u64) {
        let now = self.now;
        let c = &mut self.cpus[cpu as usize];
        let t = &mut self.tasks[ti as usize];
        let ran = now - t.run_start;
        c.busy_ns += ran;
        // The stint's overhead was paid before its first unit completed.
        t.stats.overhead_ns += ran.min(t.overhead);
        t.overhead = 0;
        t.run_start = now;
        t.work_left = work;
        self.queue.push(now + work, Class::Completion, cpu, c.gen);
    }

    /// The running task blocks (pipe empty or full, worker done, messenger asleep): it sleeps
    /// with DEQUEUE_SLEEP and the CPU calls `schedule()`, as at the end of a burst.
    fn block_task(&mut self, cpu: u32, ti: u32) {
        self.tasks[ti as usize].state = TState::Sleeping;
        self.deactivate_task(ti, DEQUEUE_SLEEP);
        self.schedule(cpu);
    }

    /// Which tasks' wakeups a workload's figures count: all of hackbench's, schbench's workers
    /// only (its messengers' wakeups are timer wakeups schbench does not measure), as §1.4 says.
    pub(crate) fn workload_members(&self, w: usize) -> impl Iterator<Item = u32> + '_ {
        let w = &self.wl[w];
        (w.first..w.first + w.ntasks).filter(move |&i| w.role_of(i - w.first).0 != Role::Messenger)
    }

    /// The report's `workloads`: completion time and the wakeup latency of the members.
    pub(super) fn workload_reports(&self) -> Vec<WorkloadReport> {
        (0..self.wl.len())
            .map(|wi| {
                let w = &self.wl[wi];
                let mut samples: Vec<u64> =
                    self.workload_members(wi).flat_map(|i| self.tasks[i as usize].stats.wakeup_latency.iter().copied()).collect();
                WorkloadReport {
                    name: w.name.clone(),
                    completion_ns: w.done_at.map(|t| t - w.start_ns),
                    wakeup_latency_ns: summarize(&mut samples),
                }
            })
            .collect()
    }
}
