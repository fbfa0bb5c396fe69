//! Per-entity load tracking, the load part (kernel/sched/pelt.c and fair.c, v6.2; unchanged in
//! substance through v6.12): geometric sums over 1024 µs periods with y^32 = 1/2.
//!
//! Only `load_*` is tracked; `util_*` and `runnable_*` feed frequency selection and capacity
//! decisions that this model does not make. `clock_pelt` is the task clock: every simulated
//! CPU runs at full capacity and maximum frequency, where the two are equal.

use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::scale_load_down;

pub const LOAD_AVG_PERIOD: u64 = 32;
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`: the smallest possible `*_sum` divider.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;

/// `runnable_avg_yN_inv[]` (sched-pelt.h): y^n · 2^32 for n < 32.
const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9,
    0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373,
    0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// `update_load_avg()` flags.
pub const UPDATE_TG: u32 = 0x1;
pub const SKIP_AGE_LOAD: u32 = 0x2;
pub const DO_ATTACH: u32 = 0x4;
pub const DO_DETACH: u32 = 0x8;

/// `struct sched_avg`, load part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAvg {
    /// In ns; 0 means "not attached to any cfs_rq yet" (a new or migrating task).
    pub last_update_time: u64,
    pub load_sum: u64,
    pub load_avg: u64,
    /// Where in the current 1024 µs period the last update fell, in 1024 ns units.
    pub period_contrib: u32,
}

/// `mul_u64_u32_shr(a, mul, 32)`.
#[inline]
fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    ((u128::from(a) * u128::from(mul)) >> shift) as u64
}

/// `decay_load()`: val · y^n.
pub fn decay_load(mut val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut local_n = n as u32;
    if u64::from(local_n) >= LOAD_AVG_PERIOD {
        val >>= u64::from(local_n) / LOAD_AVG_PERIOD;
        local_n %= LOAD_AVG_PERIOD as u32;
    }
    mul_u64_u32_shr(val, RUNNABLE_AVG_YN_INV[local_n as usize], 32)
}

/// `__accumulate_pelt_segments()`: d1·y^p + 1024·Σ_{n=1}^{p-1} y^n + d3.
fn accumulate_pelt_segments(periods: u64, d1: u32, d3: u32) -> u32 {
    let c1 = decay_load(u64::from(d1), periods) as u32;
    let c2 = (LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024) as u32;
    c1.wrapping_add(c2).wrapping_add(d3)
}

/// `accumulate_sum()`, load part: returns the number of period boundaries crossed.
fn accumulate_sum(mut delta: u64, sa: &mut SchedAvg, load: u64) -> u64 {
    let mut contrib = delta as u32; // p == 0 -> delta < 1024
    delta += u64::from(sa.period_contrib);
    let periods = delta / 1024;
    if periods != 0 {
        sa.load_sum = decay_load(sa.load_sum, periods);
        delta %= 1024;
        if load != 0 {
            contrib = accumulate_pelt_segments(periods, 1024 - sa.period_contrib, delta as u32);
        }
    }
    sa.period_contrib = delta as u32;
    if load != 0 {
        sa.load_sum += load * u64::from(contrib);
    }
    periods
}

/// `___update_load_sum()`: returns true when a period boundary was crossed (the averages are
/// then due to be recomputed).
pub fn update_load_sum(now: u64, sa: &mut SchedAvg, load: u64) -> bool {
    let mut delta = now.wrapping_sub(sa.last_update_time);
    if (delta as i64) < 0 {
        sa.last_update_time = now;
        return false;
    }
    // 1024 ns is the unit: close to 1 µs and a shift away.
    delta >>= 10;
    if delta == 0 {
        return false;
    }
    sa.last_update_time += delta << 10;
    accumulate_sum(delta, sa, load) != 0
}

/// `get_pelt_divider()`.
#[inline]
pub fn get_pelt_divider(sa: &SchedAvg) -> u64 {
    PELT_MIN_DIVIDER + u64::from(sa.period_contrib)
}

/// `___update_load_avg()`, load part.
#[inline]
pub fn update_load_avg_fields(sa: &mut SchedAvg, load: u64) {
    sa.load_avg = load * sa.load_sum / get_pelt_divider(sa);
}

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

impl Fair {
    #[inline]
    fn se_weight(&self, se: u32) -> u64 {
        scale_load_down(self.ents[se as usize].load.weight)
    }

    /// `__update_load_avg_se()`: the entity's runnable history, weighted by its own weight.
    fn update_load_avg_se(&mut self, now: u64, se: u32) {
        let on_rq = u64::from(self.ents[se as usize].on_rq);
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        if update_load_sum(now, sa, on_rq) {
            update_load_avg_fields(sa, w);
        }
    }

    /// `__update_load_avg_cfs_rq()`: the runqueue's sum carries the weights.
    fn update_load_avg_cfs_rq(&mut self, now: u64, rq: u32) -> bool {
        let q = &mut self.cfs_rqs[rq as usize];
        let load = scale_load_down(q.load.weight);
        if update_load_sum(now, &mut q.avg, load) {
            update_load_avg_fields(&mut q.avg, 1);
            return true;
        }
        false
    }

    /// `update_cfs_rq_load_avg()`: apply loads removed by tasks that migrated away, then decay.
    pub fn update_cfs_rq_load_avg(&mut self, now: u64, rq: u32) -> bool {
        let mut decayed = false;
        let q = &mut self.cfs_rqs[rq as usize];
        if q.removed_nr != 0 {
            let divider = get_pelt_divider(&q.avg);
            let r = std::mem::take(&mut q.removed_load_avg);
            q.removed_nr = 0;
            sub_positive(&mut q.avg.load_avg, r);
            sub_positive(&mut q.avg.load_sum, r * divider);
            q.avg.load_sum = max_u32(q.avg.load_sum, q.avg.load_avg * PELT_MIN_DIVIDER);
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
        sa.load_sum = sa.load_avg * divider;
        sa.load_sum = if w < sa.load_sum { sa.load_sum / w } else { 1 };
        self.enqueue_load_avg(rq, se);
    }

    /// `detach_entity_load_avg()`.
    fn detach_entity_load_avg(&mut self, rq: u32, se: u32) {
        self.dequeue_load_avg(rq, se);
    }

    /// `update_load_avg()` (v6.2): age the entity and its runqueue, attach or detach it, and
    /// pass the runqueue's change on to its task group.
    ///
    /// Left out: `propagate_entity_load_avg()`, which moves an attach/detach below a group
    /// entity up into that entity's own average; here a group entity's average follows only
    /// its own runnable time and weight (see docs/model.md).
    pub fn update_load_avg(&mut self, rq: u32, se: u32, flags: u32) {
        let now = self.now;
        if self.ents[se as usize].avg.last_update_time != 0 && flags & SKIP_AGE_LOAD == 0 {
            self.update_load_avg_se(now, se);
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

    /// `remove_entity_load_avg()` (a waking task leaves for another CPU): bring the entity's
    /// average up to its old runqueue's clock, and leave its load to be removed there at the
    /// runqueue's next update.
    pub fn remove_entity_load_avg(&mut self, se: u32) {
        let rq = self.ents[se as usize].cfs_rq;
        // sync_entity_load_avg(): decay as blocked up to the runqueue's last update.
        let last = self.cfs_rqs[rq as usize].avg.last_update_time;
        let w = self.se_weight(se);
        let sa = &mut self.ents[se as usize].avg;
        if update_load_sum(last, sa, 0) {
            update_load_avg_fields(sa, w);
        }
        let load = sa.load_avg;
        let q = &mut self.cfs_rqs[rq as usize];
        q.removed_nr += 1;
        q.removed_load_avg += load;
    }

    /// `__update_blocked_fair()` for one CPU: decay every group runqueue of the CPU (children
    /// before parents), refresh the task groups' sums, and age the group entities. The kernel
    /// runs it from the load balancer and nohz idle balancing; the engine runs it at every
    /// tick of every CPU.
    pub fn update_blocked_averages(&mut self, cpu: u32) {
        let now = self.now;
        for g in (0..self.tgs.len()).rev() {
            let rq = self.tgs[g].cfs_rq[cpu as usize];
            if self.update_cfs_rq_load_avg(now, rq) {
                self.update_tg_load_avg(rq);
            }
            let se = self.tgs[g].se[cpu as usize];
            let parent_rq = self.ents[se as usize].cfs_rq;
            if se != NIL {
                self.update_load_avg(parent_rq, se, UPDATE_TG);
            }
        }
        let root = self.root_rq(cpu);
        self.update_cfs_rq_load_avg(now, root);
    }
}
