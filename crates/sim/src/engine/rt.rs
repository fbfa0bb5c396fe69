//! The classes above the fair class — SCHED_FIFO, SCHED_RR, SCHED_DEADLINE — as load only. A
//! task of theirs is pinned to one CPU and runs there whenever it is runnable, ahead of every
//! fair task, because `pick_next_task()` (core.c, v6.2 … v6.12) asks the classes in order and
//! the fair class comes after them. What the fair class sees is what the kernel shows it: its
//! curr put back with `put_prev_task_fair()` (an `update_curr()` up to the switch), no fair
//! tick while the other class runs, wakeups onto that CPU that cannot preempt, and its pick
//! resuming on the "simple" path of `pick_next_task_fair()` (prev of another class) when the
//! CPU is given back.
//!
//! Their scheduling among themselves is not modelled (priorities, round-robin time slices,
//! EDF, bandwidth and admission control, RT throttling, push/pull between CPUs): several of
//! them runnable on one CPU run one after the other, each to the end of its burst, in the
//! order they became runnable.

use super::task::TState;
use super::Sim;
use crate::cfs::ReschedCause;
use crate::entity::NIL;

impl Sim {
    /// `activate_task()` of a higher-class task + `check_preempt_curr()` (core.c v6.2): the
    /// class is above curr's unless one of its own runs, so the CPU reschedules.
    pub(super) fn rt_activate(&mut self, ti: u32, cause: ReschedCause) {
        let cpu = self.tasks[ti as usize].cpu;
        self.tasks[ti as usize].state = TState::Runnable;
        let c = &mut self.cpus[cpu as usize];
        c.rt_queue.push_back(ti);
        if c.rt_curr == NIL {
            self.fair.resched_curr(cpu, cause);
            self.dirty.push(cpu);
        }
        self.mark_overloaded(cpu);
        self.update_idle_bit(cpu);
    }

    /// The higher classes' part of `__schedule()` → `pick_next_task()`. Returns true when it
    /// decided the CPU (a higher-class task runs on), false when the fair class picks (prev
    /// is then NIL if a higher-class task has just left).
    pub(super) fn schedule_rt(&mut self, cpu: u32, cause: Option<ReschedCause>) -> bool {
        let rt = self.cpus[cpu as usize].rt_curr;
        if rt != NIL {
            if self.tasks[rt as usize].state == TState::Running {
                // Nothing the model has preempts it: the request is dropped after the pick.
                self.fair.resched[cpu as usize] = None;
                return true;
            }
            // It slept: put_prev_task_rt(); the CPU is free for the next pick.
            self.switch_out(cpu, rt, None);
            self.cpus[cpu as usize].rt_curr = NIL;
        }
        let Some(next) = self.cpus[cpu as usize].rt_queue.pop_front() else {
            self.update_idle_bit(cpu);
            return false;
        };
        let prev = self.cpus[cpu as usize].curr;
        if prev != NIL {
            // put_prev_task_fair(): update_curr() charges it up to now; it stays queued, and
            // cfs_rq->curr is NULL until the fair class picks again.
            self.fair.put_prev_task_fair(prev);
            self.switch_out(cpu, prev, cause);
            self.cpus[cpu as usize].curr = NIL;
        }
        self.fair.resched[cpu as usize] = None;
        self.cpus[cpu as usize].rt_curr = next;
        self.update_idle_bit(cpu);
        self.switch_in(cpu, next);
        true
    }

    /// The end of the run for a CPU running a higher-class task: charge it up to the end.
    pub(super) fn finish_rt(&mut self, cpu: u32) {
        let rt = self.cpus[cpu as usize].rt_curr;
        if rt == NIL {
            return;
        }
        let t = &mut self.tasks[rt as usize];
        let ran = self.duration_ns - t.run_start;
        t.stats.overhead_ns += ran.min(t.overhead);
        self.fair.ents[rt as usize].sum_exec_runtime += ran;
        let c = &mut self.cpus[cpu as usize];
        c.busy_ns += ran;
        c.rt_ns += ran;
    }
}
