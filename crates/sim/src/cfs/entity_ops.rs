//! Entity-level operations (kernel/sched/fair.c v6.2, with the v12 changes where marked):
//! update_curr, place_entity, enqueue_entity, dequeue_entity, buddies, check_preempt_tick,
//! set_next_entity, pick_next_entity, put_prev_entity, entity_tick.

use super::flags::*;
use super::timeline::{entity_before, max_vruntime};
use crate::pelt::{DO_ATTACH, DO_DETACH, UPDATE_TG};
use super::{Fair, ReschedCause};
use crate::entity::NIL;
use crate::weights::calc_delta_fair;

impl Fair {
    /// `update_curr()` (v6.2): charge the running entity for the time since `exec_start`.
    pub fn update_curr(&mut self, rq: u32) {
        if self.eevdf.is_some() {
            return crate::eevdf::entity_ops::update_curr(self, rq);
        }
        let curr = self.cfs_rqs[rq as usize].curr;
        if curr == NIL || !self.update_curr_se(curr) {
            return;
        }
        self.update_min_vruntime(rq);
    }

    /// The accounting every version's `update_curr()` starts with (v6.12 calls it
    /// `update_curr_se()`): charge the time since `exec_start`, and advance the vruntime by it
    /// scaled by 1024/weight. False when no time has passed.
    pub(crate) fn update_curr_se(&mut self, curr: u32) -> bool {
        let now = self.now;
        let e = &mut self.ents[curr as usize];
        let delta_exec = now.wrapping_sub(e.exec_start);
        if (delta_exec as i64) <= 0 {
            return false;
        }
        e.exec_start = now;
        e.sum_exec_runtime += delta_exec;
        let dv = calc_delta_fair(delta_exec, &mut e.load);
        e.vruntime = e.vruntime.wrapping_add(dv);
        true
    }

    /// `place_entity()` (v6.2; v12 1/8 only factors the sleeper credit into
    /// `get_sleep_latency()`, same arithmetic).
    pub fn place_entity(&mut self, rq: u32, se: u32, initial: bool) {
        let mut vruntime = self.cfs_rqs[rq as usize].min_vruntime;
        if initial && self.cfg.feat.start_debit {
            // The current period is promised to the tasks already there: the newcomer waits
            // for the slot that opens at its end.
            vruntime = vruntime.wrapping_add(self.sched_vslice(rq, se));
        }
        if !initial {
            // Sleeps up to (half) a latency period don't count; an idle entity's up to (half)
            // min_granularity.
            let idle = self.ents[se as usize].is_idle();
            vruntime = vruntime.wrapping_sub(self.get_sleep_latency(idle));
        }
        let e = &mut self.ents[se as usize];
        e.vruntime = max_vruntime(e.vruntime, vruntime);
    }

    /// `enqueue_entity()` (v6.2; v12 8/8 adds `__enqueue_latency`).
    pub fn enqueue_entity(&mut self, rq: u32, se: u32, flags: u32) {
        let renorm = flags & ENQUEUE_WAKEUP == 0 || flags & ENQUEUE_MIGRATED != 0;
        let is_curr = self.cfs_rqs[rq as usize].curr == se;

        // The current task renormalises before update_curr(), anyone else after, so that it
        // is placed at the current moment rather than some moment in the past.
        if renorm && is_curr {
            let m = self.cfs_rqs[rq as usize].min_vruntime;
            let e = &mut self.ents[se as usize];
            e.vruntime = e.vruntime.wrapping_add(m);
        }
        self.update_curr(rq);
        if renorm && !is_curr {
            let m = self.cfs_rqs[rq as usize].min_vruntime;
            let e = &mut self.ents[se as usize];
            e.vruntime = e.vruntime.wrapping_add(m);
        }

        self.update_load_avg(rq, se, UPDATE_TG | DO_ATTACH);
        self.se_update_runnable(se);
        if self.cfg.feat.update_cfs_group_enqueue {
            self.update_cfs_group(se);
        }
        self.account_entity_enqueue(rq, se);

        if flags & ENQUEUE_WAKEUP != 0 {
            self.place_entity(rq, se, false);
        }
        if !is_curr {
            self.enqueue_timeline(rq, se);
            if self.v12 {
                self.enqueue_latency(rq, se, flags);
            }
        }
        self.ents[se as usize].on_rq = true;
    }

    /// `account_entity_enqueue()` (v6.2).
    fn account_entity_enqueue(&mut self, rq: u32, se: u32) {
        let (w, idle) = (self.ents[se as usize].load.weight, self.ents[se as usize].is_idle());
        let q = &mut self.cfs_rqs[rq as usize];
        q.load.add(w);
        q.nr_running += 1;
        q.idle_nr_running += u32::from(idle);
    }

    /// `account_entity_dequeue()` (v6.2).
    fn account_entity_dequeue(&mut self, rq: u32, se: u32) {
        let (w, idle) = (self.ents[se as usize].load.weight, self.ents[se as usize].is_idle());
        let q = &mut self.cfs_rqs[rq as usize];
        q.load.sub(w);
        q.nr_running -= 1;
        q.idle_nr_running -= u32::from(idle);
    }

    /// `clear_buddies()` (v6.2): `__clear_buddies_{last,next,skip}` walk up the hierarchy
    /// while the entity at each level is the buddy.
    pub fn clear_buddies(&mut self, rq: u32, se: u32) {
        let q = &self.cfs_rqs[rq as usize];
        let (is_last, is_next, is_skip) = (q.last == se, q.next == se, q.skip == se);
        if is_last {
            self.clear_buddy_chain(se, |q| &mut q.last);
        }
        if is_next {
            self.clear_buddy_chain(se, |q| &mut q.next);
        }
        if is_skip {
            self.clear_buddy_chain(se, |q| &mut q.skip);
        }
    }

    fn clear_buddy_chain(&mut self, mut se: u32, field: impl Fn(&mut super::CfsRq) -> &mut u32) {
        while se != NIL {
            let q = self.ents[se as usize].cfs_rq;
            let slot = field(&mut self.cfs_rqs[q as usize]);
            if *slot != se {
                break;
            }
            *slot = NIL;
            se = self.ents[se as usize].parent;
        }
    }

    /// `dequeue_entity()` (v6.2; v12 8/8 adds `__dequeue_latency`).
    pub fn dequeue_entity(&mut self, rq: u32, se: u32, flags: u32) {
        self.update_curr(rq);
        let load_flags = dequeue_load_flags(self, se, flags);
        self.update_load_avg(rq, se, load_flags);
        self.se_update_runnable(se);
        self.clear_buddies(rq, se);
        if self.cfs_rqs[rq as usize].curr != se {
            self.dequeue_timeline(rq, se);
            if self.v12 {
                self.dequeue_latency(rq, se);
            }
        }
        self.ents[se as usize].on_rq = false;
        self.account_entity_dequeue(rq, se);

        // Normalise after update_curr() (which may have moved min_vruntime if se held it
        // back) but before update_min_vruntime() discounts se's position.
        if flags & DEQUEUE_SLEEP == 0 {
            let m = self.cfs_rqs[rq as usize].min_vruntime;
            let e = &mut self.ents[se as usize];
            e.vruntime = e.vruntime.wrapping_sub(m);
        }
        if self.cfg.feat.update_cfs_group_dequeue {
            self.update_cfs_group(se);
        }

        // DEQUEUE_SAVE without DEQUEUE_MOVE will be put back: advancing min_vruntime now
        // would place it further back than it started.
        if flags & (DEQUEUE_SAVE | DEQUEUE_MOVE) != DEQUEUE_SAVE {
            self.update_min_vruntime(rq);
        }
    }

    fn tick_site() -> &'static crate::explain::Site {
        static SITE: crate::explain::Site = crate::decision_site!("Fair::check_preempt_tick", "check_preempt_tick(), fair.c v6.2 (and v12 1/8)");
        &SITE
    }

    /// `check_preempt_tick()` (v6.2, optionally with 79ba1e607d68's cap; v12 5/8 adds the
    /// latency offset and the `get_latency_max()` trigger). Returns true if it rescheduled.
    pub fn check_preempt_tick(&mut self, rq: u32, curr: u32) -> bool {
        let cpu = self.cfs_rqs[rq as usize].cpu;
        let mut ideal_runtime = self.sched_slice(rq, curr);
        if self.cfg.feat.ideal_runtime_cap {
            ideal_runtime = ideal_runtime.min(self.cfg.latency_ns);
        }
        let c = &self.ents[curr as usize];
        let delta_exec = c.sum_exec_runtime.wrapping_sub(c.prev_sum_exec_runtime);
        if delta_exec > ideal_runtime {
            self.resched_curr(cpu, ReschedCause::Tick);
            // It ran long enough: no buddy favours may re-elect it.
            self.clear_buddies(rq, curr);
            return true;
        }

        // A task that narrowly missed wakeup preemption should not wait a whole slice.
        if delta_exec < self.cfg.min_granularity_ns {
            return false;
        }

        let se = self.pick_first_entity(rq);
        if se == NIL {
            return false;
        }
        let delta = self.ents[curr as usize].vruntime.wrapping_sub(self.ents[se as usize].vruntime) as i64;

        let fire = if self.v12 {
            let offset = self.wakeup_latency_gran(curr, se);
            if delta < offset {
                return false;
            }
            // C compares s64 against unsigned long as unsigned: a negative delta (allowed
            // here when offset < 0) reads as huge and reschedules.
            (delta as u64) > ideal_runtime
                || (self.cfg.feat.latency_max_clamp_tick && (delta as u64) > self.get_latency_max())
        } else {
            if delta < 0 {
                return false;
            }
            (delta as u64) > ideal_runtime
        };
        if fire {
            self.resched_curr(cpu, ReschedCause::Tick);
        }
        fire
    }

    /// `set_next_entity()` (v6.2; v12 8/8: a picked entity leaves the latency tree), as a pick
    /// calls it.
    pub fn set_next_entity(&mut self, rq: u32, se: u32) {
        self.set_next_entity_first(rq, se, true)
    }

    /// `set_next_entity()`; `first` is false where a change of attributes makes the task current
    /// again (`set_next_task()`), which only eevdf-v6.18 tells apart.
    pub fn set_next_entity_first(&mut self, rq: u32, se: u32, first: bool) {
        if self.eevdf.is_some() {
            return crate::eevdf::entity_ops::set_next_entity(self, rq, se, first);
        }
        self.clear_buddies(rq, se);
        if self.ents[se as usize].on_rq {
            // 'current' is not kept in the tree.
            self.dequeue_timeline(rq, se);
            if self.v12 {
                self.dequeue_latency(rq, se);
            }
            self.update_load_avg(rq, se, UPDATE_TG);
        }
        self.cfs_rqs[rq as usize].curr = se;
        let now = self.now;
        let e = &mut self.ents[se as usize];
        // update_stats_curr_start(): exec_start = rq_clock_task.
        e.exec_start = now;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
    }

    /// `pick_next_entity()` (v6.2; v12 8/8 appends the latency-tree check): leftmost (or
    /// curr if left of it), avoid the skip buddy, prefer next then last buddy when not unfair.
    pub fn pick_next_entity(&mut self, rq: u32, curr: u32) -> u32 {
        use crate::explain::PickFrom;
        let mut left = self.pick_first_entity(rq);
        let mut from = PickFrom::Leftmost;
        if left == NIL
            || (curr != NIL && entity_before(&self.ents[curr as usize], &self.ents[left as usize]))
        {
            left = curr;
            from = PickFrom::Curr;
        }
        let mut se = left;

        let q = &self.cfs_rqs[rq as usize];
        let (skip, next, last) = (q.skip, q.next, q.last);
        if skip != NIL && skip == se {
            let second = if se == curr {
                self.pick_first_entity(rq)
            } else {
                let mut s = self.pick_next_in_tree(se);
                if s == NIL || (curr != NIL && entity_before(&self.ents[curr as usize], &self.ents[s as usize])) {
                    s = curr;
                }
                s
            };
            if second != NIL && self.wakeup_preempt_entity(rq, second, left) < 1 {
                se = second;
                from = if se == left { from } else { PickFrom::Second };
            }
        }

        if next != NIL && self.wakeup_preempt_entity(rq, next, left) < 1 {
            // Someone really wants this to run; if it's not unfair, run it.
            se = next;
            // Named by the rule only where the rule changed the choice.
            from = if se == left {
                from
            } else {
                PickFrom::NextBuddy
            };
        } else if last != NIL && self.wakeup_preempt_entity(rq, last, left) < 1 {
            // Prefer the last buddy: give the CPU back to a preempted task.
            se = last;
            from = if se == left {
                from
            } else {
                PickFrom::LastBuddy
            };
        }

        // What tasks_timeline and the buddies chose, which the latency tree may override.
        let without_latency = se;
        if self.v12 && self.cfg.feat.latency_list {
            let latency = self.pick_first_latency(rq);
            if latency != NIL && latency != se && self.wakeup_preempt_entity(rq, latency, se) < 1 {
                se = latency;
                from = PickFrom::LatencyTree;
            }
        }
        if self.log.is_some() {
            let queued = self.cfs_rqs[rq as usize].nr_running.min(u16::MAX as u32) as u16;
            let instead = match from {
                PickFrom::LatencyTree => without_latency,
                _ if se == left => NIL,
                _ => left,
            };
            self.pick_note = crate::explain::PickNote {
                from,
                instead,
                queued,
                eligible_count: queued,
            };
        }
        se
    }

    /// `put_prev_entity()` (v6.2; v12 8/8 may put it back in the latency tree).
    pub fn put_prev_entity(&mut self, rq: u32, prev: u32) {
        if self.eevdf.is_some() {
            return crate::eevdf::entity_ops::put_prev_entity(self, rq, prev);
        }
        if self.ents[prev as usize].on_rq {
            self.update_curr(rq);
            self.enqueue_timeline(rq, prev);
            if self.v12 {
                self.enqueue_latency(rq, prev, 0);
            }
            self.update_load_avg(rq, prev, 0);
        }
        self.cfs_rqs[rq as usize].curr = NIL;
    }

    /// The decision log's entry for a CFS tick check (recomputed, read-only in effect).
    fn log_tick(&mut self, rq: u32, curr: u32, fired: bool, site: &'static crate::explain::Site) {
        let mut ideal_runtime = self.sched_slice(rq, curr);
        if self.cfg.feat.ideal_runtime_cap {
            ideal_runtime = ideal_runtime.min(self.cfg.latency_ns);
        }
        let c = &self.ents[curr as usize];
        let delta_exec = c.sum_exec_runtime.wrapping_sub(c.prev_sum_exec_runtime);
        let left = self.pick_first_entity(rq);
        let (delta, offset) = if left == NIL {
            (0, 0)
        } else {
            let d = self.ents[curr as usize].vruntime.wrapping_sub(self.ents[left as usize].vruntime) as i64;
            (d, if self.v12 { self.wakeup_latency_gran(curr, left) } else { 0 })
        };
        let latency_max = self.get_latency_max();
        let by_slice = delta_exec > ideal_runtime
            || (delta >= offset
                && (delta as u64) > ideal_runtime
                && delta_exec >= self.cfg.min_granularity_ns);
        let compared = delta_exec <= ideal_runtime
            && delta_exec >= self.cfg.min_granularity_ns
            && left != NIL
            && delta >= offset;
        let cpu = self.cfs_rqs[rq as usize].cpu;
        let period =
            self.sched_period(self.cfs_rqs[self.root_rq(cpu) as usize].h_nr_running as u64);
        let q = &self.cfs_rqs[rq as usize];
        let c = &self.ents[curr as usize];
        let min_gran = if c.is_idle() && !(q.nr_running != 0 && q.nr_running == q.idle_nr_running) {
            self.cfg.idle_min_granularity_ns
        } else {
            self.cfg.min_granularity_ns
        };
        let why = crate::explain::Why::CfsTick {
            delta_exec,
            ideal_runtime,
            delta,
            offset,
            latency_max,
            by_latency_max: fired && !by_slice,
            compared,
            period,
            weight: c.load.weight,
            rq_weight: q.load.weight,
            min_gran,
            via_groups: c.parent != NIL,
        };
        let d = crate::explain::Decision {
            at_ns: self.now,
            cpu,
            task: curr,
            other: NIL,
            outcome: fired,
            why,
            site,
        };
        self.record(d);
    }

    /// `entity_tick()` (v6.2, no HRTICK): returns true if it rescheduled.
    pub fn entity_tick(&mut self, rq: u32, curr: u32) -> bool {
        self.update_curr(rq);
        // The tick keeps the averages and the group weights current whatever the
        // enqueue/dequeue switches say.
        self.update_load_avg(rq, curr, UPDATE_TG);
        self.update_cfs_group(curr);
        if self.cfs_rqs[rq as usize].nr_running > 1 {
            let fired = self.check_preempt_tick(rq, curr);
            if self.log.is_some() && self.ents[curr as usize].is_task() {
                self.log_tick(rq, curr, fired, Self::tick_site());
            }
            return fired;
        }
        false
    }
}

/// `update_load_avg()`'s flags in `dequeue_entity()`: a task the load balancer is moving takes
/// its load along (DO_DETACH); anyone else leaves it behind as blocked load.
pub(crate) fn dequeue_load_flags(f: &mut Fair, se: u32, flags: u32) -> u32 {
    if flags & DEQUEUE_MIGRATING != 0 && f.ents[se as usize].is_task() {
        f.ents[se as usize].migrating = true;
        UPDATE_TG | DO_DETACH
    } else {
        UPDATE_TG
    }
}
