//! What the core scheduler (kernel/sched/core.c) does around the fair class: `__schedule()`,
//! `try_to_wake_up()`, `wake_up_new_task()`, `__sched_setscheduler()`, and the wakeup and fork
//! placement and balancing that the SMP model adds (`crate::smp`).

use super::events::Class;
use super::task::{Beh, TState, FOREVER};
use super::Sim;
use crate::cfs::flags::*;
use crate::cfs::ReschedCause;
use crate::entity::NIL;
use crate::scenario::SetAttrs;

impl Sim {
    /// `__schedule()`: pick the next task of `cpu` and switch to it.
    pub(super) fn schedule(&mut self, cpu: u32) {
        self.events += 1;
        // The request that brought us here, kept to attribute the switch. The pick runs with
        // it still set, so a request raised inside the pick (an update_curr() that finds curr's
        // slice used up, a newly-idle pull's check_preempt) finds it pending and changes
        // nothing; clear_tsk_need_resched(prev) then clears it after the pick (v6.2 … v6.12).
        let cause = self.fair.resched[cpu as usize];
        if self.has_rt && self.schedule_rt(cpu, cause) {
            return;
        }
        let prev = self.cpus[cpu as usize].curr;
        let mut next = self.fair.pick_next_task_fair(cpu, prev);
        if next == NIL && prev != NIL {
            self.fair.put_prev_task_fair(prev);
        }
        if next == NIL {
            next = self.newidle_balance(cpu);
        }
        self.fair.resched[cpu as usize] = None;
        // clear_tsk_need_resched() clears TIF_NEED_RESCHED_LAZY too.
        self.fair.lazy[cpu as usize] = None;
        if next == prev {
            self.update_idle_bit(cpu);
            return;
        }
        if next != NIL && self.fair.log.is_some() {
            self.log_pick(cpu, prev, next);
        }
        if prev != NIL {
            self.switch_out(cpu, prev, cause);
        }
        self.cpus[cpu as usize].curr = next;
        self.update_idle_bit(cpu);
        if next != NIL {
            self.switch_in(cpu, next);
        }
    }

    /// The decision log's entry for a pick.
    fn log_pick(&mut self, cpu: u32, prev: u32, next: u32) {
        let f = &self.fair;
        let q = f.ents[next as usize].cfs_rq;
        let e = &f.ents[next as usize];
        let eevdf = f.eevdf.is_some();
        let (lag, eligible) = if eevdf {
            let v = crate::eevdf::avg::avg_vruntime(f, q);
            (v.wrapping_sub(e.vruntime) as i64, crate::eevdf::avg::entity_eligible(f, q, next))
        } else {
            (0, true)
        };
        let key_rel = e.vruntime.wrapping_sub(f.cfs_rqs[q as usize].min_vruntime) as i64;
        let n = f.pick_note;
        let instead = if n.instead == NIL { NIL } else { f.task_of(n.instead) };
        let (from, queued, eligible_count) = (n.from, n.queued, n.eligible_count);
        let why = crate::explain::Why::Pick { prev, key_rel, lag, eligible, eevdf, from, instead, queued, eligible_count };
        let site = if eevdf { crate::eevdf::tree::pick_site() } else { crate::cfs::Fair::pick_site() };
        let d = crate::explain::Decision { at_ns: self.now, cpu, task: next, other: NIL, outcome: true, why, site };
        self.fair.record(d);
    }

    pub(super) fn switch_out(&mut self, cpu: u32, prev: u32, cause: Option<ReschedCause>) {
        let slept = self.tasks[prev as usize].state != TState::Running;
        self.trace_switch_out(cpu, slept, cause);
        let now = self.now;
        let c = &mut self.cpus[cpu as usize];
        c.gen = c.gen.wrapping_add(1);
        let t = &mut self.tasks[prev as usize];
        let ran = now - t.run_start;
        c.busy_ns += ran;
        // The stint's overhead (switch, cache refill) came first and did no work.
        t.stats.overhead_ns += ran.min(t.overhead);
        let useful = ran.saturating_sub(t.overhead);
        if t.work_left != FOREVER {
            t.work_left -= useful.min(t.work_left);
        }
        if t.rt {
            // update_curr_rt() charges se.sum_exec_runtime too; the fair class lost this time.
            c.rt_ns += ran;
            self.fair.ents[prev as usize].sum_exec_runtime += ran;
        }
        if t.state != TState::Running {
            return; // it went to sleep: a voluntary switch
        }
        t.state = TState::Runnable;
        t.stats.involuntary += 1;
        t.preempted_since = Some(now);
        match cause {
            Some(ReschedCause::Tick) => t.stats.involuntary_tick += 1,
            Some(ReschedCause::Wakeup(w)) => {
                t.stats.involuntary_wakeup += 1;
                self.tasks[w as usize].stats.wakeup_preemptions += 1;
            }
            _ => {}
        }
    }

    pub(super) fn switch_in(&mut self, cpu: u32, next: u32) {
        let costs = self.costs;
        // context_switch() and, after a move, the cache refill: paid before the task's first
        // useful instruction, which is what its latencies measure.
        let t = &mut self.tasks[next as usize];
        t.overhead = costs.switch_ns + if std::mem::take(&mut t.migrated) { costs.migration_ns } else { 0 };
        self.trace_switch_in(cpu, next);
        let now = self.now;
        let gen = self.cpus[cpu as usize].gen;
        if !self.tasks[next as usize].rt {
            self.smp.cfs_tasks.move_to_front(next);
        }
        let t = &mut self.tasks[next as usize];
        t.state = TState::Running;
        t.run_start = now;
        t.stats.switches += 1;
        let useful_at = now + t.overhead;
        let mut delay = None;
        if let Some(w) = t.waking_since.take() {
            t.stats.wakeup_latency.push(useful_at - w);
            delay = Some(useful_at - w);
        }
        if let Some(p) = t.preempted_since.take() {
            t.stats.preempt_delay.push(useful_at - p);
            delay = delay.max(Some(useful_at - p));
        }
        if let Some(d) = delay.filter(|&d| d > t.stats.max_delay) {
            t.stats.max_delay = d;
            t.stats.max_delay_at = useful_at;
        }
        if t.work_left != FOREVER {
            self.queue.push(useful_at + t.work_left, Class::Completion, cpu, gen);
        }
    }

    /// The running task of `cpu` finished its burst: it sleeps and calls schedule().
    pub(super) fn on_completion(&mut self, cpu: u32, gen: u32) {
        let c = &self.cpus[cpu as usize];
        let ti = if c.rt_curr != NIL { c.rt_curr } else { c.curr };
        if c.gen != gen || ti == NIL {
            return; // a stint that was cut short by a preemption
        }
        self.events += 1;
        if matches!(self.tasks[ti as usize].beh, Beh::Workload { .. }) {
            return self.workload_burst_done(cpu, ti);
        }
        let now = self.now;
        {
            let t = &mut self.tasks[ti as usize];
            t.state = TState::Sleeping;
            match &mut t.beh {
                Beh::Bursty { sleep, .. } => {
                    let sleep = sleep.clone();
                    let d = t.rng.draw_ns(&sleep);
                    self.queue.push(now + d, Class::Timer, ti, 0);
                }
                Beh::Replay { steps, at } => {
                    // The next step's sleep; after the last step the task sleeps for good.
                    *at += 1;
                    if let Some(&(sleep, _)) = steps.get(*at) {
                        self.queue.push(now + sleep, Class::Timer, ti, 0);
                    }
                }
                _ => {}
            }
        }
        if !self.tasks[ti as usize].rt {
            self.deactivate_task(ti, DEQUEUE_SLEEP);
        }
        self.schedule(cpu);
    }

    /// `sched_fork()` + `wake_up_new_task()`: the task appears at its start time.
    pub(super) fn on_fork(&mut self, ti: u32) {
        self.events += 1;
        let rt = self.tasks[ti as usize].rt;
        // A higher-class task runs on the one CPU it is pinned to (validated).
        let cpu = if rt { self.tasks[ti as usize].allowed[0] } else { self.select_fork_cpu(ti) };
        let tg = self.fair.ents[ti as usize].tg;
        let root = self.fair.tg_cfs_rq(tg, cpu);
        self.tasks[ti as usize].cpu = cpu;
        if !rt {
            self.fair.set_task_rq(ti, tg, cpu);
            self.smp.homed[cpu as usize] += 1;
            self.fair.task_fork_fair(ti);
            // wake_up_new_task(): the first utilisation, from the chosen CPU's runqueue.
            self.fair.post_init_entity_util_avg(ti);
        }
        let t = &mut self.tasks[ti as usize];
        // A workload task's first unit of work, or None: it starts asleep.
        let wl_work = matches!(t.beh, Beh::Workload { .. }).then(|| self.workload_fork(ti));
        let t = &mut self.tasks[ti as usize];
        if let Some(p) = t.beh.period() {
            t.next_fire = t.start_ns + p;
            self.queue.push(t.next_fire, Class::Timer, ti, 0);
        }
        if let Beh::Replay { steps, .. } = &t.beh {
            if steps[0].0 > 0 {
                self.queue.push(t.start_ns + steps[0].0, Class::Timer, ti, 0);
            }
        }
        if t.beh.forked_asleep() || wl_work == Some(None) {
            // Forked, then asleep until its first timer (or, for a workload task, until a
            // message or its messenger wakes it): it keeps its fork placement, made absolute
            // as the first enqueue would have made it (CFS). Under EEVDF it wakes with the
            // zero lag of a new task.
            t.state = TState::Sleeping;
            if self.fair.eevdf.is_none() && !rt {
                let m = self.fair.cfs_rqs[root as usize].min_vruntime;
                let e = &mut self.fair.ents[ti as usize];
                e.vruntime = e.vruntime.wrapping_add(m);
            }
            return;
        }
        t.work_left = match &t.beh {
            Beh::Hog => FOREVER,
            Beh::Bursty { run, .. } => {
                let run = run.clone();
                t.rng.draw_ns(&run).max(1)
            }
            Beh::Duty { quota, .. } => (*quota).max(1),
            Beh::Periodic { run, .. } => *run,
            Beh::Replay { steps, .. } => steps[0].1,
            Beh::Workload { .. } => wl_work.flatten().unwrap_or(0),
        };
        t.state = TState::Runnable;
        if rt {
            return self.rt_activate(ti, ReschedCause::Fork(ti));
        }
        // activate_task() without ENQUEUE_WAKEUP: enqueue_entity renormalises the vruntime
        // (CFS) or places the task (EEVDF; v6.12 with ENQUEUE_INITIAL).
        let flags = crate::eevdf::task_ops::wake_up_new_task_flags(&self.fair);
        self.activate_task(ti, cpu, flags);
        self.check_preempt_curr(cpu, ti, ReschedCause::Fork(ti));
    }

    /// A timer expiry (periodic, duty) or the end of a sleep (bursty).
    pub(super) fn on_timer(&mut self, ti: u32) {
        self.events += 1;
        let t = &mut self.tasks[ti as usize];
        let (work, periodic) = match &t.beh {
            Beh::Periodic { period, run } => (*run, Some(*period)),
            Beh::Duty { quota, period } => ((*quota).max(1), Some(*period)),
            Beh::Bursty { run, .. } => {
                let run = run.clone();
                (t.rng.draw_ns(&run).max(1), None)
            }
            Beh::Replay { steps, at } => (steps[*at].1, None),
            Beh::Hog => return,
            Beh::Workload { .. } => return self.workload_timer(ti),
        };
        if let Some(p) = periodic {
            t.next_fire += p;
            self.queue.push(t.next_fire, Class::Timer, ti, 0);
            if t.state != TState::Sleeping {
                // Still busy: periodic skips this firing; duty's quota carries on and the
                // period adds nothing, so quotas never accumulate.
                t.stats.overruns += 1;
                return;
            }
        }
        // The task's hrtimer fires on the CPU it slept on.
        let timer_cpu = t.cpu;
        self.wake_from(timer_cpu, |s| s.try_to_wake_up(ti, work));
    }

    /// Run a wakeup as code on `cpu` (an interrupt there, or a syscall of its task), then that
    /// CPU's return to user mode, which acts on its own TIF_NEED_RESCHED_LAZY.
    pub(super) fn wake_from(&mut self, cpu: u32, wake: impl FnOnce(&mut Sim)) {
        let outer = self.waker_cpu;
        self.waker_cpu = cpu;
        wake(self);
        self.waker_cpu = outer;
        if outer == NIL && cpu != NIL && self.fair.cfg.preemption == crate::scenario::Preemption::Lazy {
            self.fair.return_to_user(cpu);
        }
    }

    /// `smp_processor_id()` for the fair class while it wakes a task onto `cpu`: the waker's
    /// CPU when that is another CPU of the same LLC (`ttwu_queue_cond()` is false there, so
    /// the wakeup is done remotely under the target's lock, and a lazy reschedule sends no
    /// IPI); NIL otherwise (on the CPU itself, or through the wake list's IPI).
    fn remote_waker(&self, cpu: u32) -> u32 {
        let w = self.waker_cpu;
        if w == NIL || w == cpu || self.cpus[w as usize].llc_first != self.cpus[cpu as usize].llc_first {
            return NIL;
        }
        w
    }

    /// `try_to_wake_up()`: choose a CPU, enqueue with ENQUEUE_WAKEUP, check preemption.
    /// A task still on its runqueue (`task_on_rq_queued()`: a v6.12 delayed task) takes
    /// `ttwu_runnable()`, which requeues it where it is.
    pub(super) fn try_to_wake_up(&mut self, ti: u32, work: u64) {
        if self.tasks[ti as usize].rt {
            // Its own class's wakeup: no CPU selection, no wake-list cost.
            self.stats_wakeup(ti, work);
            return self.rt_activate(ti, ReschedCause::Wakeup(ti));
        }
        if self.fair.ents[ti as usize].on_rq {
            if !self.fair.ents[ti as usize].sched_delayed {
                // A sleeping task is queued only while delayed; anything else is a lost dequeue.
                self.fair.set_fault(format!("try_to_wake_up: sleeping task {ti} is queued but not delayed"));
                return;
            }
            let now = self.now;
            let t = &mut self.tasks[ti as usize];
            let cpu = t.cpu;
            t.work_left = work;
            t.state = TState::Runnable;
            t.stats.wakeups += 1;
            t.waking_since = Some(now);
            // It left cfs_tasks when it slept (deactivate_task); it is back on its runqueue.
            self.fair.this_cpu = self.remote_waker(cpu);
            self.activate_task(ti, cpu, ENQUEUE_DELAYED);
            self.check_preempt_curr(cpu, ti, ReschedCause::Wakeup(ti));
            self.fair.this_cpu = NIL;
            return;
        }
        if self.costs.wakeup_ns > 0 {
            // The wakeup reaches its runqueue wakeup_ns later (the wake list and its IPI);
            // the task is TASK_WAKING meanwhile, and its latency runs from now.
            let now = self.now;
            let t = &mut self.tasks[ti as usize];
            t.work_left = work;
            t.state = TState::Waking;
            t.stats.wakeups += 1;
            t.waking_since = Some(now);
            self.queue.push(now + self.costs.wakeup_ns, Class::Wake, ti, 0);
            return;
        }
        self.stats_wakeup(ti, work);
        self.ttwu_queue(ti);
    }

    /// A wakeup delayed by `wakeup_ns` reaches its runqueue.
    pub(super) fn on_wake_arrival(&mut self, ti: u32) {
        self.events += 1;
        if self.tasks[ti as usize].state == TState::Waking {
            self.tasks[ti as usize].state = TState::Sleeping;
            self.ttwu_queue(ti);
        }
    }

    /// A wakeup's bookkeeping: the task's next burst, its state, the wakeup counted and its
    /// latency started.
    pub(super) fn stats_wakeup(&mut self, ti: u32, work: u64) {
        let now = self.now;
        let t = &mut self.tasks[ti as usize];
        t.work_left = work;
        t.stats.wakeups += 1;
        t.waking_since = Some(now);
    }

    /// The rest of `try_to_wake_up()`: select the CPU, enqueue with ENQUEUE_WAKEUP, check
    /// preemption (`ttwu_queue()` → `ttwu_do_activate()`).
    fn ttwu_queue(&mut self, ti: u32) {
        let cpu = self.select_task_rq(ti);
        let mut flags = ENQUEUE_WAKEUP;
        let t = &mut self.tasks[ti as usize];
        if cpu != t.cpu {
            flags |= ENQUEUE_MIGRATED;
            t.stats.migrations += 1;
            self.smp.rehome(t.cpu, cpu);
            t.cpu = cpu;
            self.fair.migrate_task_rq_fair(ti, cpu);
        }
        let t = &mut self.tasks[ti as usize];
        if flags & ENQUEUE_MIGRATED != 0 {
            t.migrated = true;
        }
        t.state = TState::Runnable;
        self.fair.this_cpu = self.remote_waker(cpu);
        self.activate_task(ti, cpu, flags);
        self.check_preempt_curr(cpu, ti, ReschedCause::Wakeup(ti));
        self.fair.this_cpu = NIL;
    }

    /// Whether `cpu` is idle and still leaving its idle state: its reschedule waits for the
    /// `IdleExit` event. The first request to an idle CPU starts that exit (`idle_exit_ns`).
    pub(super) fn leaving_idle(&mut self, cpu: u32) -> bool {
        let now = self.now;
        let c = &mut self.cpus[cpu as usize];
        if c.curr != NIL || self.costs.idle_exit_ns == 0 {
            return false;
        }
        match c.exiting_idle {
            Some(at) if at <= now => {
                c.exiting_idle = None;
                false
            }
            Some(_) => true,
            None => {
                let at = now + self.costs.idle_exit_ns;
                c.exiting_idle = Some(at);
                self.queue.push(at, Class::IdleExit, cpu, 0);
                true
            }
        }
    }

    /// `cpu` has left idle: it schedules at the end of this instant if it still has
    /// something to do, or goes back to idle.
    pub(super) fn on_idle_exit(&mut self, cpu: u32) {
        self.events += 1;
        if self.fair.need_resched(cpu) {
            self.dirty.push(cpu);
        } else {
            self.cpus[cpu as usize].exiting_idle = None;
        }
    }

    /// `check_preempt_curr()`: an idle CPU always reschedules; otherwise ask the fair class.
    pub(crate) fn check_preempt_curr(&mut self, cpu: u32, ti: u32, cause: ReschedCause) {
        if self.cpus[cpu as usize].rt_curr != NIL {
            return; // a fair task never preempts a higher class
        }
        let curr = self.cpus[cpu as usize].curr;
        if curr == NIL {
            self.fair.resched_curr(cpu, cause);
        } else {
            self.fair.check_preempt_wakeup(cpu, curr, ti, cause);
        }
        if self.fair.need_resched(cpu) {
            self.dirty.push(cpu);
        }
    }

    /// `__sched_setscheduler()` as `sched_setattr()` reaches it (core.c v6.2, with v12 4/8's
    /// latency nice; syscalls.c v6.6 and v6.12), for the fields a timeline `set` carries. The
    /// attribute is the task's own as `sched_getattr()` reports it, with the given keys changed;
    /// a key the policy's kernel has no field for (latency nice outside v12, a slice before
    /// v6.12) is not in it, so a set of only such keys changes nothing.
    pub(super) fn setattr(&mut self, ti: u32, set: &SetAttrs) {
        if self.tasks[ti as usize].rt {
            return; // nice, latency nice and slice are the fair class's attributes
        }
        let v612 = crate::eevdf::since_v612(&self.fair);
        let old_nice = self.tasks[ti as usize].nice;
        let new_nice = set.nice.unwrap_or(old_nice);
        let latency = if self.fair.v12 { set.latency_nice } else { None };
        // sched_attr.sched_runtime in ns: 0 asks for the base slice.
        let runtime = if v612 { set.slice_us.map(|us| us.saturating_mul(1000)) } else { None };
        // "If not changing anything there's no need to proceed further": v6.12 compares the
        // raw sched_runtime with se.slice, so 0 on a base-slice task is a change (of nothing).
        let changed = new_nice != old_nice
            || latency.is_some_and(|l| l != self.tasks[ti as usize].latency_nice)
            || runtime.is_some_and(|r| r != self.fair.ents[ti as usize].slice);
        if !changed {
            return;
        }
        // An unchanged priority clears DEQUEUE_MOVE, so that dequeue_entity() leaves
        // min_vruntime alone and the task goes back exactly where it was.
        let mut queue_flags = DEQUEUE_SAVE | DEQUEUE_MOVE;
        if new_nice == old_nice {
            queue_flags &= !DEQUEUE_MOVE;
        }
        // Whatever update_curr() asks for inside the syscall is the syscall's doing.
        self.fair.ctx = ReschedCause::Attr;
        let queued = self.fair.ents[ti as usize].on_rq;
        let running = self.tasks[ti as usize].state == TState::Running;
        let cpu = self.tasks[ti as usize].cpu;
        if queued {
            self.fair.dequeue_task_fair(ti, queue_flags);
        }
        if running {
            self.fair.put_prev_task_fair(ti);
        }
        if new_nice != old_nice {
            // __setscheduler_params() + set_load_weight()
            self.tasks[ti as usize].nice = new_nice;
            self.fair.reweight_task(ti, new_nice);
        }
        if let Some(l) = latency {
            // __setscheduler_latency() (v12 4/8)
            self.tasks[ti as usize].latency_nice = l;
            self.fair.ents[ti as usize].latency_offset = self.fair.calc_latency_offset(l);
        }
        if let Some(r) = runtime {
            // __setscheduler_params() (v6.12): sched_runtime 0 restores the base slice.
            let base = self.fair.cfg.base_slice_ns;
            let e = &mut self.fair.ents[ti as usize];
            e.custom_slice = r != 0;
            e.slice = if r == 0 { base } else { crate::eevdf::clamp_custom_slice(r) };
        }
        if queued {
            // DEQUEUE_SAVE / DEQUEUE_MOVE are ENQUEUE_RESTORE / ENQUEUE_MOVE.
            self.fair.enqueue_task_fair(ti, queue_flags);
        }
        if running {
            self.fair.set_next_task_fair(ti, false);
        }
        if new_nice != old_nice {
            self.prio_changed_fair(ti, cpu, old_nice, new_nice);
        }
        // Any reschedule asked for on the way (above, or by update_curr() in the dequeue or
        // enqueue) is in `resched_pending`, honoured at the end of the instant: the return
        // from the syscall, or the IPI to the task's CPU.
    }

    /// `prio_changed_fair()` (v6.2 = v6.6 = v6.12): a queued task whose priority changed
    /// reschedules its CPU if it runs and got a lower priority, or else may preempt curr.
    fn prio_changed_fair(&mut self, ti: u32, cpu: u32, old_nice: i32, new_nice: i32) {
        if !self.fair.ents[ti as usize].on_rq {
            return;
        }
        let root = self.fair.root_rq(cpu);
        if self.fair.cfs_rqs[root as usize].nr_running == 1 {
            return;
        }
        let curr = self.cpus[cpu as usize].curr;
        if curr == ti {
            if new_nice > old_nice {
                self.fair.resched_curr(cpu, ReschedCause::Attr);
            }
        } else if curr != NIL {
            self.fair.check_preempt_wakeup(cpu, curr, ti, ReschedCause::Attr);
        } else {
            self.fair.resched_curr(cpu, ReschedCause::Attr);
        }
    }
}
