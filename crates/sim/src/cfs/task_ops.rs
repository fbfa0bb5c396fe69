//! Task-level hooks of the fair class (kernel/sched/fair.c v6.2): enqueue_task_fair,
//! dequeue_task_fair, pick_next_task_fair (the CONFIG_FAIR_GROUP_SCHED path), put_prev_task_fair,
//! set_next_task_fair, task_tick_fair, task_fork_fair, migrate_task_rq_fair, reweight_task.

use super::flags::*;
use super::Fair;
use crate::eevdf;
use crate::entity::NIL;
use crate::weights::LoadWeight;

impl Fair {
    /// `enqueue_task_fair()` (v6.2): enqueue the entity and every ancestor not yet queued.
    pub fn enqueue_task_fair(&mut self, se: u32, mut flags: u32) {
        self.util_est_at_enqueue(se, flags);
        if self.eevdf.is_some() {
            return eevdf::task_ops::enqueue_task_fair(self, se, flags);
        }
        let idle = u32::from(self.ents[se as usize].is_idle());
        let mut s = se;
        while s != NIL {
            if self.ents[s as usize].on_rq {
                break;
            }
            let q = self.ents[s as usize].cfs_rq;
            self.enqueue_entity(q, s, flags);
            self.cfs_rqs[q as usize].h_nr_running += 1;
            self.cfs_rqs[q as usize].h_nr_runnable += 1;
            self.cfs_rqs[q as usize].idle_h_nr_running += idle;
            flags = ENQUEUE_WAKEUP;
            s = self.ents[s as usize].parent;
        }
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.update_load_avg(q, s, crate::pelt::UPDATE_TG);
            self.se_update_runnable(s);
            if self.cfg.feat.update_cfs_group_enqueue {
                self.update_cfs_group(s);
            }
            self.cfs_rqs[q as usize].h_nr_running += 1;
            self.cfs_rqs[q as usize].h_nr_runnable += 1;
            self.cfs_rqs[q as usize].idle_h_nr_running += idle;
            s = self.ents[s as usize].parent;
        }
    }

    /// `dequeue_task_fair()` (v6.2): dequeue up the hierarchy while each level empties.
    /// Returns false when the task stays queued (v6.12's delayed dequeue).
    pub fn dequeue_task_fair(&mut self, se: u32, mut flags: u32) -> bool {
        // TASK_ON_RQ_MIGRATING, for migrate_task_rq_fair() to read, with or without PELT
        // (dequeue_load_flags() sets it only when PELT runs).
        if flags & DEQUEUE_MIGRATING != 0 {
            self.ents[se as usize].migrating = true;
        }
        self.util_est_before_dequeue(se, flags);
        if self.eevdf.is_some() {
            let done = eevdf::task_ops::dequeue_entities(self, se, flags);
            self.util_est_after_dequeue(se, flags & DEQUEUE_SLEEP != 0);
            return done;
        }
        let task_sleep = flags & DEQUEUE_SLEEP != 0;
        let idle = u32::from(self.ents[se as usize].is_idle());
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.dequeue_entity(q, s, flags);
            self.cfs_rqs[q as usize].h_nr_running -= 1;
            self.cfs_rqs[q as usize].h_nr_runnable -= 1;
            self.cfs_rqs[q as usize].idle_h_nr_running -= idle;
            if self.cfs_rqs[q as usize].load.weight != 0 {
                // The parent still has other entities: it stays queued. Bias the next pick
                // toward it, so the group keeps the CPU (dequeue's set_next_buddy).
                s = self.ents[s as usize].parent;
                if task_sleep && s != NIL {
                    self.set_next_buddy(s);
                }
                break;
            }
            flags |= DEQUEUE_SLEEP;
            s = self.ents[s as usize].parent;
        }
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.update_load_avg(q, s, crate::pelt::UPDATE_TG);
            self.se_update_runnable(s);
            if self.cfg.feat.update_cfs_group_dequeue {
                self.update_cfs_group(s);
            }
            self.cfs_rqs[q as usize].h_nr_running -= 1;
            self.cfs_rqs[q as usize].h_nr_runnable -= 1;
            self.cfs_rqs[q as usize].idle_h_nr_running -= idle;
            s = self.ents[s as usize].parent;
        }
        self.util_est_after_dequeue(se, task_sleep);
        true
    }

    /// `pick_next_task_fair()` (v6.2 with CONFIG_FAIR_GROUP_SCHED): `prev` is the task entity
    /// that was running (NIL if the CPU was idle, which takes the "simple" path). Returns the
    /// task entity to run, or NIL (the caller then puts prev and goes idle).
    ///
    /// On the group path the pick is made with `prev` still current and only then put back,
    /// and a re-picked prev is not "set" again, so its slice accounting carries on: that is
    /// the kernel's behaviour and it decides when a tick preempts.
    pub(crate) fn pick_site() -> &'static crate::explain::Site {
        static SITE: crate::explain::Site =
            crate::decision_site!("Fair::pick_next_task_fair", "pick_next_task_fair() → pick_next_entity(), fair.c v6.2 (and v12 8/8)");
        &SITE
    }

    pub fn pick_next_task_fair(&mut self, cpu: u32, prev: u32) -> u32 {
        if self.eevdf.is_some() {
            return eevdf::task_ops::pick_next_task_fair(self, cpu, prev);
        }
        let root = self.root_rq(cpu);
        if self.cfs_rqs[root as usize].h_nr_running == 0 {
            return NIL;
        }
        if prev == NIL {
            // simple:
            let mut q = root;
            loop {
                let se = self.pick_next_entity(q, NIL);
                self.set_next_entity(q, se);
                let my_q = self.ents[se as usize].my_q;
                if my_q == NIL {
                    return se;
                }
                q = my_q;
            }
        }
        let mut q = root;
        let se = loop {
            let mut curr = self.cfs_rqs[q as usize].curr;
            if curr != NIL {
                if self.ents[curr as usize].on_rq {
                    self.update_curr(q);
                } else {
                    curr = NIL;
                }
            }
            let se = self.pick_next_entity(q, curr);
            let my_q = self.ents[se as usize].my_q;
            if my_q == NIL {
                break se;
            }
            q = my_q;
        };
        if se != prev {
            self.put_prev_set_next(prev, se);
        }
        se
    }

    /// The end of `pick_next_task_fair()`'s group path (every version): put `prev`'s
    /// hierarchy and set `se`'s, touching only the cfs_rqs where the two paths differ.
    pub(crate) fn put_prev_set_next(&mut self, prev: u32, se: u32) {
        let (mut s, mut p) = (se, prev);
        while self.ents[s as usize].cfs_rq != self.ents[p as usize].cfs_rq {
            let (sd, pd) = (self.ents[s as usize].depth, self.ents[p as usize].depth);
            if sd <= pd {
                let pq = self.ents[p as usize].cfs_rq;
                self.put_prev_entity(pq, p);
                p = self.ents[p as usize].parent;
            }
            if sd >= pd {
                let sq = self.ents[s as usize].cfs_rq;
                self.set_next_entity(sq, s);
                s = self.ents[s as usize].parent;
            }
        }
        let q = self.ents[s as usize].cfs_rq;
        self.put_prev_entity(q, p);
        self.set_next_entity(q, s);
    }

    /// `put_prev_task_fair()` (every version; the entity step is the policy's).
    pub fn put_prev_task_fair(&mut self, se: u32) {
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.put_prev_entity(q, s);
            s = self.ents[s as usize].parent;
        }
    }

    /// `set_next_task_fair()` (every version): make a task current, after a pick (`first`) or
    /// again after a change of attributes (`set_next_task()`, not first).
    pub fn set_next_task_fair(&mut self, se: u32, first: bool) {
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.set_next_entity_first(q, s, first);
            s = self.ents[s as usize].parent;
        }
    }

    /// `task_tick_fair()` (v6.2): returns true if any level asked for a reschedule.
    pub fn task_tick_fair(&mut self, se: u32) -> bool {
        if self.eevdf.is_some() {
            return eevdf::task_ops::task_tick_fair(self, se);
        }
        let mut s = se;
        let mut resched = false;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            resched |= self.entity_tick(q, s);
            s = self.ents[s as usize].parent;
        }
        resched
    }

    /// `task_fork_fair()` (v6.2), as if forked by the task running on the new task's CPU.
    /// When that CPU is idle there is no parent entity; the child then starts from
    /// min_vruntime (a modelling choice: the kernel's parent is always some running task).
    /// Leaves the vruntime relative to min_vruntime, as the kernel does until the first
    /// enqueue renormalises it.
    pub fn task_fork_fair(&mut self, se: u32) {
        if self.eevdf.is_some() {
            return eevdf::task_ops::task_fork_fair(self, se);
        }
        let q = self.ents[se as usize].cfs_rq;
        let curr = self.cfs_rqs[q as usize].curr;
        if curr != NIL {
            self.update_curr(q);
            self.ents[se as usize].vruntime = self.ents[curr as usize].vruntime;
        } else {
            self.ents[se as usize].vruntime = self.cfs_rqs[q as usize].min_vruntime;
        }
        self.place_entity(q, se, true);
        let m = self.cfs_rqs[q as usize].min_vruntime;
        let e = &mut self.ents[se as usize];
        e.vruntime = e.vruntime.wrapping_sub(m);
    }

    /// `migrate_task_rq_fair()` + `set_task_rq()`: the task moves to `new_cpu`, woken there
    /// (its load stays behind on the old runqueue, to be removed at its next update) or
    /// moved while queued by the load balancer (dequeued with DEQUEUE_MIGRATING, which took
    /// its load along). v6.2 makes a waking task's vruntime relative to the old runqueue here;
    /// a queued one was made relative by its dequeue. EEVDF keeps no relative vruntime: the
    /// lag saved at dequeue carries over.
    pub fn migrate_task_rq_fair(&mut self, se: u32, new_cpu: u32) {
        let migrating = std::mem::take(&mut self.ents[se as usize].migrating);
        if self.eevdf.is_none() && !migrating {
            let q = self.ents[se as usize].cfs_rq;
            let m = self.cfs_rqs[q as usize].min_vruntime;
            let e = &mut self.ents[se as usize];
            e.vruntime = e.vruntime.wrapping_sub(m);
        }
        if !migrating {
            self.remove_entity_load_avg(se);
        }
        // Tell the new CPU we migrated: the enqueue attaches the load there.
        self.ents[se as usize].avg.last_update_time = 0;
        let tg = self.ents[se as usize].tg;
        self.set_task_rq(se, tg, new_cpu);
    }

    /// `reweight_task()` (v6.2; v6.6 and v6.12 alike): reweight the entity, then keep the
    /// table's inverse weight rather than a computed one.
    pub fn reweight_task(&mut self, se: u32, nice: i32) {
        // set_load_weight(): a SCHED_IDLE task keeps the idle weight whatever its nice.
        let lw = if self.ents[se as usize].is_idle() { LoadWeight::idle() } else { LoadWeight::for_nice(nice) };
        let rq = self.ents[se as usize].cfs_rq;
        self.reweight_entity(rq, se, lw.weight);
        self.ents[se as usize].load.inv_weight = lw.inv_weight;
    }
}
