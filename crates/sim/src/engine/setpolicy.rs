//! `sched_setscheduler()` / `sched_setattr()` with a policy, between the fair class's three:
//! SCHED_NORMAL, SCHED_BATCH and SCHED_IDLE (core.c v6.2 `__sched_setscheduler()`;
//! syscalls.c in v6.6 and v6.12), the way `sched.rs`'s `setattr` does it for nice.

use super::task::TState;
use super::Sim;
use crate::cfs::flags::*;
use crate::cfs::ReschedCause;
use crate::scenario::FairPolicy;
use crate::weights::LoadWeight;

impl Sim {
    /// `__sched_setscheduler()` changing task `ti`'s policy within the fair class, its nice
    /// kept. The priority (`__normal_prio()`: 120 + nice for all three) does not change, so
    /// DEQUEUE_MOVE is cleared and `check_class_changed()` calls no `prio_changed()`: nothing
    /// is rescheduled by the change itself; the new weight and preemption rules act from the
    /// next tick or wakeup on. A higher-class task, or a policy outside the fair class, is
    /// refused (moving between classes is not modelled).
    pub fn sched_setscheduler(&mut self, ti: u32, policy: FairPolicy) -> Result<(), String> {
        self.setscheduler(ti, policy)?;
        // What update_curr() asked for on the way is honoured at the return from the syscall.
        self.reschedule_dirty(u64::MAX);
        Ok(())
    }

    /// The change itself, its reschedule requests left pending: a timeline entry's are
    /// honoured at the end of its instant, with every other event's of that instant.
    pub(super) fn setscheduler(&mut self, ti: u32, policy: FairPolicy) -> Result<(), String> {
        let Some(t) = self.tasks.get(ti as usize) else { return Err(format!("no task {ti}")) };
        if t.rt || !policy.is_fair() {
            return Err(format!("{}: only normal, batch and idle are modelled as a change of policy", t.name));
        }
        let old = self.fair.ents[ti as usize].policy;
        // "If not changing anything there's no need to proceed further".
        if old == policy || t.state == TState::Unborn {
            self.fair.ents[ti as usize].policy = policy;
            return Ok(());
        }
        let queue_flags = DEQUEUE_SAVE;
        // Whatever update_curr() asks for inside the syscall is the syscall's doing.
        self.fair.ctx = ReschedCause::Attr;
        let queued = self.fair.ents[ti as usize].on_rq;
        let running = self.tasks[ti as usize].state == TState::Running;
        if queued {
            self.fair.dequeue_task_fair(ti, queue_flags);
        }
        if running {
            self.fair.put_prev_task_fair(ti);
        }
        // __setscheduler_params(): p->policy, then set_load_weight(p, true).
        self.fair.ents[ti as usize].policy = policy;
        let nice = self.tasks[ti as usize].nice;
        if policy == FairPolicy::Idle && !self.fair.cfg.policy.is_v612_or_later() {
            // v6.2 and v6.6: an idle task's weight is set directly, not through reweight_task()
            // (the task is off its runqueue here, or asleep).
            self.fair.ents[ti as usize].load = LoadWeight::idle();
        } else {
            // v6.12 passes either weight to reweight_task(); so do v6.2/v6.6 for a normal one.
            self.fair.reweight_task(ti, nice);
        }
        if queued {
            self.fair.enqueue_task_fair(ti, queue_flags);
        }
        if running {
            self.fair.set_next_task_fair(ti, false);
        }
        // A CPU whose tasks all became SCHED_IDLE (or stopped being) changes in the idle map.
        let cpu = self.tasks[ti as usize].cpu;
        self.update_idle_bit(cpu);
        Ok(())
    }
}
