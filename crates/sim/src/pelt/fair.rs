//! fair.c's side of load tracking (v6.2; where later versions differ, the piece says so):
//! ageing an entity and its runqueue, attaching and detaching, the averages a waking task
//! leaves behind when it changes CPU, a new task's initial utilisation, the blocked averages,
//! and the CPU signals that wakeup placement and the balancer read.

use super::{get_pelt_divider, update_load_avg_fields, update_load_sum, SchedAvg, PELT_MIN_DIVIDER};
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::scale_load_down;

/// `update_load_avg()` flags.
pub const UPDATE_TG: u32 = 0x1;
pub const SKIP_AGE_LOAD: u32 = 0x2;
pub const DO_ATTACH: u32 = 0x4;
pub const DO_DETACH: u32 = 0x8;

/// `sub_positive()`.
#[inline]
fn sub_positive(x: &mut u64, y: u64) {
    *x = x.saturating_sub(y);
}

/// `max_t(u32, a, b)`: both sides are cut to 32 bits first, as the kernel's macro does.
#[inline]
fn max_u32(a: u64, b: u64) -> u64 {
    u64::from((a as u32).max(b as u32))
}

/// Where the PELT clock stands at simulated time 0: one whole period (1024 × 1024 ns), so
/// that period boundaries fall where they would from 0, while no update sees the time 0, which
/// PELT reserves for "not attached" (`last_update_time == 0`). A kernel's runqueue clock is
/// never 0 either.
pub const CLOCK_PELT_AT_BOOT: u64 = 1024 * 1024;

impl Fair {
    /// `cfs_rq_clock_pelt()`: the task clock (every modelled CPU runs at full capacity and
    /// frequency, so `clock_pelt` is `clock_task`), from `CLOCK_PELT_AT_BOOT`.
    #[inline]
    pub fn clock_pelt(&self) -> u64 {
        self.now + CLOCK_PELT_AT_BOOT
    }

    #[inline]
    fn se_weight(&self, se: u32) -> u64 {
        scale_load_down(self.ents[se as usize].load.weight)
    }

    /// `se_runnable()`: a task counts 1 while queued, a group entity the runnable tasks below
    /// it as `se_update_runnable()` last recorded them. 6.18 (since 6.14's "More PELT vs
    /// DELAYED_DEQUEUE") counts a delayed entity as not runnable; v6.12.0 still counted it.
    #[inline]
    fn se_runnable(&self, se: u32) -> u64 {
        let e = &self.ents[se as usize];
        if e.sched_delayed && crate::eevdf::is_v618(self) {
            return 0;
        }
        if e.my_q == NIL {
            u64::from(e.on_rq)
        } else {
            u64::from(e.runnable_weight)
        }
    }

    /// The runnable tasks at or below a runqueue as PELT counts them: `h_nr_runnable` (6.18:
    /// delayed tasks left out), `h_nr_running` before.
    #[inline]
    pub fn h_nr_runnable_pelt(&self, rq: u32) -> u32 {
        let q = &self.cfs_rqs[rq as usize];
        if crate::eevdf::is_v618(self) {
            q.h_nr_runnable
        } else {
            q.h_nr_running
        }
    }

    /// `se_update_runnable()`: a group entity's runnable weight follows its queue's runnable
    /// count at the points where the kernel refreshes it.
    #[inline]
    pub fn se_update_runnable(&mut self, se: u32) {
        let q = self.ents[se as usize].my_q;
        if q != NIL {
            self.ents[se as usize].runnable_weight = self.h_nr_runnable_pelt(q);
        }
    }

    /// `__update_load_avg_se()`: the entity's history, its load weighted by its own weight.
    fn update_load_avg_se(&mut self, now: u64, rq: u32, se: u32) {
        let on_rq = u64::from(self.ents[se as usize].on_rq);
        let runnable = self.se_runnable(se);
        let running = self.cfs_rqs[rq as usize].curr == se;
        let w = self.se_weight(se);
        let simplified = crate::eevdf::since_v612(self);
        let sa = &mut self.ents[se as usize].avg;
        if update_load_sum(now, sa, on_rq, runnable, running) {
            update_load_avg_fields(sa, w);
            Fair::cfs_se_util_change(simplified, sa);
        }
    }

    /// `__update_load_avg_cfs_rq()`: the runqueue's load sum carries the weights, its runnable
    /// sum the number of runnable tasks.
    fn update_load_avg_cfs_rq(&mut self, now: u64, rq: u32) -> bool {
        let q = &self.cfs_rqs[rq as usize];
        let load = scale_load_down(q.load.weight);
        let running = q.curr != NIL;
        let runnable = u64::from(self.h_nr_runnable_pelt(rq));
        let q = &mut self.cfs_rqs[rq as usize];
        if update_load_sum(now, &mut q.avg, load, runnable, running) {
            update_load_avg_fields(&mut q.avg, 1);
            return true;
        }
        false
    }

    /// `update_cfs_rq_load_avg()`: apply what tasks that migrated away left to remove, then
    /// decay.
    pub fn update_cfs_rq_load_avg(&mut self, now: u64, rq: u32) -> bool {
        let mut decayed = false;
        let q = &mut self.cfs_rqs[rq as usize];
        if q.removed_nr != 0 {
            let divider = get_pelt_divider(&q.avg);
            q.removed_nr = 0;
            let sa = &mut q.avg;
            let r = std::mem::take(&mut q.removed_load_avg);
            sub_positive(&mut sa.load_avg, r);
            sub_positive(&mut sa.load_sum, r * divider);
            sa.load_sum = max_u32(sa.load_sum, sa.load_avg * PELT_MIN_DIVIDER);
            let r = std::mem::take(&mut q.removed_util_avg);
            sub_positive(&mut sa.util_avg, r);
            let mut us = u64::from(sa.util_sum);
            sub_positive(&mut us, r * divider);
            sa.util_sum = max_u32(us, sa.util_avg * PELT_MIN_DIVIDER) as u32;
            let r = std::mem::take(&mut q.removed_runnable_avg);
            sub_positive(&mut sa.runnable_avg, r);
            sub_positive(&mut sa.runnable_sum, r * divider);
            sa.runnable_sum = max_u32(sa.runnable_sum, sa.runnable_avg * PELT_MIN_DIVIDER);
            decayed = true;
        }
        decayed | self.update_load_avg_cfs_rq(now, rq)
    }

    /// `enqueue_load_avg()`.
    pub fn enqueue_load_avg(&mut self, rq: u32, se: u32) {
        let w = self.se_weight(se);
        let sa = self.ents[se as usize].avg;
        let q = &mut self.cfs_rqs[rq as usize];
        q.avg.load_avg += sa.load_avg;
        q.avg.load_sum += w * sa.load_sum;
    }

    /// `dequeue_load_avg()`.
    pub fn dequeue_load_avg(&mut self, rq: u32, se: u32) {
        let w = self.se_weight(se);
        let sa = self.ents[se as usize].avg;
        let q = &mut self.cfs_rqs[rq as usize];
        sub_positive(&mut q.avg.load_avg, sa.load_avg);
        sub_positive(&mut q.avg.load_sum, w * sa.load_sum);
        q.avg.load_sum = max_u32(q.avg.load_sum, q.avg.load_avg * PELT_MIN_DIVIDER);
    }

    /// `attach_entity_load_avg()`: align the entity with the runqueue's period and add it.
    fn attach_entity_load_avg(&mut self, rq: u32, se: u32) {
        let qa = self.cfs_rqs[rq as usize].avg;
        let divider = get_pelt_divider(&qa);
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        sa.last_update_time = qa.last_update_time;
        sa.period_contrib = qa.period_contrib;
        sa.util_sum = (sa.util_avg * divider) as u32;
        sa.runnable_sum = sa.runnable_avg * divider;
        sa.load_sum = sa.load_avg * divider;
        sa.load_sum = if w < sa.load_sum { sa.load_sum / w } else { 1 };
        let sa = *sa;
        self.enqueue_load_avg(rq, se);
        let q = &mut self.cfs_rqs[rq as usize].avg;
        q.util_avg += sa.util_avg;
        q.util_sum = q.util_sum.wrapping_add(sa.util_sum);
        q.runnable_avg += sa.runnable_avg;
        q.runnable_sum += sa.runnable_sum;
    }

    /// `detach_entity_load_avg()`.
    fn detach_entity_load_avg(&mut self, rq: u32, se: u32) {
        self.dequeue_load_avg(rq, se);
        let sa = self.ents[se as usize].avg;
        let q = &mut self.cfs_rqs[rq as usize].avg;
        sub_positive(&mut q.util_avg, sa.util_avg);
        let mut us = u64::from(q.util_sum);
        sub_positive(&mut us, u64::from(sa.util_sum));
        q.util_sum = max_u32(us, q.util_avg * PELT_MIN_DIVIDER) as u32;
        sub_positive(&mut q.runnable_avg, sa.runnable_avg);
        sub_positive(&mut q.runnable_sum, sa.runnable_sum);
        q.runnable_sum = max_u32(q.runnable_sum, q.runnable_avg * PELT_MIN_DIVIDER);
    }

    /// `update_load_avg()` (v6.2): age the entity and its runqueue, attach or detach it, and
    /// pass the runqueue's change on to its task group.
    ///
    /// Left out: `propagate_entity_load_avg()`, which moves an attach/detach below a group
    /// entity up into that entity's own average; here a group entity's average follows only
    /// its own runnable time and weight (see docs/model.md).
    pub fn update_load_avg(&mut self, rq: u32, se: u32, flags: u32) {
        let now = self.clock_pelt();
        if self.ents[se as usize].avg.last_update_time != 0 && flags & SKIP_AGE_LOAD == 0 {
            self.update_load_avg_se(now, rq, se);
        }
        let decayed = self.update_cfs_rq_load_avg(now, rq);
        if self.ents[se as usize].avg.last_update_time == 0 && flags & DO_ATTACH != 0 {
            self.attach_entity_load_avg(rq, se);
            self.update_tg_load_avg(rq);
        } else if flags & DO_DETACH != 0 {
            self.detach_entity_load_avg(rq, se);
            self.update_tg_load_avg(rq);
        } else if decayed && flags & UPDATE_TG != 0 {
            self.update_tg_load_avg(rq);
        }
    }

    /// `sync_entity_load_avg()`: decay a dequeued entity as blocked up to its runqueue's
    /// last update (`__update_load_avg_blocked_se()`).
    pub fn sync_entity_load_avg(&mut self, se: u32) {
        let rq = self.ents[se as usize].cfs_rq;
        let last = self.cfs_rqs[rq as usize].avg.last_update_time;
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        if update_load_sum(last, sa, 0, 0, false) {
            update_load_avg_fields(sa, w);
        }
    }

    /// `remove_entity_load_avg()` (a waking task leaves for another CPU): bring the entity's
    /// average up to its old runqueue's clock, and leave its load, utilisation and runnable
    /// average to be removed there at the runqueue's next update.
    pub fn remove_entity_load_avg(&mut self, se: u32) {
        self.sync_entity_load_avg(se);
        let rq = self.ents[se as usize].cfs_rq;
        let sa: SchedAvg = self.ents[se as usize].avg;
        let q = &mut self.cfs_rqs[rq as usize];
        q.removed_nr += 1;
        q.removed_util_avg += sa.util_avg;
        q.removed_load_avg += sa.load_avg;
        q.removed_runnable_avg += sa.runnable_avg;
    }

    /// `post_init_entity_util_avg()`: a new task starts with half the spare capacity of its
    /// runqueue as utilisation (its share of the runqueue's utilisation by weight, if that is
    /// less), and as much runnable. Read before the runqueue is aged, as the kernel reads it.
    /// v6.2 and v6.6 multiply by `se->load.weight`, which is scaled up by 1024 on 64-bit, so
    /// the share is nearly always above the cap; "sched/fair: Fix initial util_avg
    /// calculation" (2024, in v6.12 and 6.18 here) uses `se_weight()`.
    pub fn post_init_entity_util_avg(&mut self, se: u32) {
        let rq = self.ents[se as usize].cfs_rq;
        let qa = self.cfs_rqs[rq as usize].avg;
        let cap = (crate::smp::domains::SCHED_CAPACITY_SCALE as i64 - qa.util_avg as i64) / 2;
        let weight = if crate::eevdf::since_v612(self) { self.se_weight(se) } else { self.ents[se as usize].load.weight };
        let sa = &mut self.ents[se as usize].avg;
        if cap > 0 {
            if qa.util_avg != 0 {
                sa.util_avg = qa.util_avg * weight / (qa.load_avg + 1);
                if sa.util_avg > cap as u64 {
                    sa.util_avg = cap as u64;
                }
            } else {
                sa.util_avg = cap as u64;
            }
        }
        sa.runnable_avg = sa.util_avg;
    }

    /// `__update_blocked_fair()` for one CPU: decay every group runqueue of the CPU (children
    /// before parents), refresh the task groups' sums, and age the group entities; then the
    /// root. Returns whether any average there is still non-zero (`cfs_rq_has_blocked()`),
    /// which keeps an idle CPU's blocked load in nohz's periodic updates.
    pub fn update_blocked_averages(&mut self, cpu: u32) -> bool {
        let now = self.clock_pelt();
        let mut has_blocked = false;
        for g in (0..self.tgs.len()).rev() {
            let rq = self.tgs[g].cfs_rq[cpu as usize];
            if self.update_cfs_rq_load_avg(now, rq) {
                self.update_tg_load_avg(rq);
            }
            let se = self.tgs[g].se[cpu as usize];
            if se != NIL {
                let parent_rq = self.ents[se as usize].cfs_rq;
                self.update_load_avg(parent_rq, se, UPDATE_TG);
            }
            let a = &self.cfs_rqs[rq as usize].avg;
            has_blocked |= a.load_avg != 0 || a.util_avg != 0;
        }
        let root = self.root_rq(cpu);
        self.update_cfs_rq_load_avg(now, root);
        let a = &self.cfs_rqs[root as usize].avg;
        has_blocked | (a.load_avg != 0 || a.util_avg != 0)
    }
}

impl Fair {
    /// `cpu_util_cfs()` (6.18: `cpu_util(cpu, NULL, -1, 0)`): the larger of the root
    /// runqueue's util_avg and its queued tasks' estimates (UTIL_EST), clamped to the CPU's
    /// capacity (1024 on every modelled CPU).
    pub fn cpu_util_cfs(&self, cpu: u32) -> u64 {
        let a = &self.cfs_rqs[self.root_rq(cpu) as usize].avg;
        a.util_avg.max(u64::from(a.util_est.enqueued)).min(crate::smp::domains::SCHED_CAPACITY_SCALE)
    }

    /// `cpu_load()`: the root runqueue's load_avg.
    pub fn cpu_load(&self, cpu: u32) -> u64 {
        self.cfs_rqs[self.root_rq(cpu) as usize].avg.load_avg
    }

    /// `cpu_runnable()`: the root runqueue's runnable_avg.
    pub fn cpu_runnable(&self, cpu: u32) -> u64 {
        self.cfs_rqs[self.root_rq(cpu) as usize].avg.runnable_avg
    }
}
