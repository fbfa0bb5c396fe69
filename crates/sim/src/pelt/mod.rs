//! Per-entity load tracking (kernel/sched/pelt.c and pelt.h; the arithmetic is the same from
//! v6.2 to 6.18.44): geometric sums over 1024 µs periods with y^32 = 1/2, for the three signals
//! that the cgroup shares, the load balancer and wakeup placement read: `load_*` (weighted
//! runnable time), `runnable_*` (runnable time, by the number of runnable tasks below a group)
//! and `util_*` (running time).
//!
//! `clock_pelt` is the task clock: every simulated CPU runs at full capacity and maximum
//! frequency, where the two are equal (`update_rq_clock_pelt()` scales by 1024/1024, and a CPU
//! going idle has lost no idle time). `fair.rs` holds fair.c's side: ageing, attaching and
//! detaching, the averages a migrating task leaves behind, a new task's first utilisation, the
//! blocked averages, and the CPU signals (`cpu_util_cfs()`, `cpu_load()`, `cpu_runnable()`).

pub mod fair;
pub mod util_est;

pub use fair::{DO_ATTACH, DO_DETACH, SKIP_AGE_LOAD, UPDATE_TG};

pub const LOAD_AVG_PERIOD: u64 = 32;
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`: the smallest possible `*_sum` divider.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;
/// `SCHED_CAPACITY_SHIFT`.
pub const SCHED_CAPACITY_SHIFT: u32 = 10;

/// `runnable_avg_yN_inv[]` (sched-pelt.h): y^n · 2^32 for n < 32.
const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9,
    0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581,
    0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373,
    0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698,
];

/// `struct sched_avg` (`util_sum` is a u32, as in the kernel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAvg {
    /// In ns; 0 means "not attached to any cfs_rq yet" (a new or migrating task).
    pub last_update_time: u64,
    pub load_sum: u64,
    pub runnable_sum: u64,
    pub util_sum: u32,
    /// Where in the current 1024 µs period the last update fell, in 1024 ns units.
    pub period_contrib: u32,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
    /// A task's estimated utilisation; a root runqueue's sum of its queued tasks' (`util_est.rs`).
    pub util_est: util_est::UtilEst,
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

/// `accumulate_sum()`: returns the number of period boundaries crossed.
fn accumulate_sum(mut delta: u64, sa: &mut SchedAvg, load: u64, runnable: u64, running: bool) -> u64 {
    let mut contrib = delta as u32; // p == 0 -> delta < 1024
    delta += u64::from(sa.period_contrib);
    let periods = delta / 1024;
    if periods != 0 {
        sa.load_sum = decay_load(sa.load_sum, periods);
        sa.runnable_sum = decay_load(sa.runnable_sum, periods);
        sa.util_sum = decay_load(u64::from(sa.util_sum), periods) as u32;
        delta %= 1024;
        if load != 0 {
            // Relies on ___update_load_sum()'s "if (!load) runnable = running = 0".
            contrib = accumulate_pelt_segments(periods, 1024 - sa.period_contrib, delta as u32);
        }
    }
    sa.period_contrib = delta as u32;
    if load != 0 {
        sa.load_sum += load * u64::from(contrib);
    }
    if runnable != 0 {
        sa.runnable_sum += (runnable * u64::from(contrib)) << SCHED_CAPACITY_SHIFT;
    }
    if running {
        sa.util_sum = sa.util_sum.wrapping_add(contrib << SCHED_CAPACITY_SHIFT);
    }
    periods
}

/// `___update_load_sum()`: returns true when a period boundary was crossed (the averages are
/// then due to be recomputed).
pub fn update_load_sum(now: u64, sa: &mut SchedAvg, load: u64, mut runnable: u64, mut running: bool) -> bool {
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
    // running is a subset of runnable, runnable of load: a blocked entity accrues nothing.
    if load == 0 {
        runnable = 0;
        running = false;
    }
    accumulate_sum(delta, sa, load, runnable, running) != 0
}

/// `get_pelt_divider()`.
#[inline]
pub fn get_pelt_divider(sa: &SchedAvg) -> u64 {
    PELT_MIN_DIVIDER + u64::from(sa.period_contrib)
}

/// `___update_load_avg()`: the three averages from their sums.
#[inline]
pub fn update_load_avg_fields(sa: &mut SchedAvg, load: u64) {
    let divider = get_pelt_divider(sa);
    sa.load_avg = load * sa.load_sum / divider;
    sa.runnable_avg = sa.runnable_sum / divider;
    sa.util_avg = u64::from(sa.util_sum) / divider;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task running alone from t = 0: after n whole periods its util_sum is
    /// 1024 · Σ_{k<n} contrib decayed, and util_avg = util_sum / (PELT_MIN_DIVIDER +
    /// period_contrib). Worked by hand from accumulate_sum(): the first update, 1 ms = 976
    /// units of 1024 ns in (1_000_000 >> 10 = 976, no boundary crossed), adds 976 << 10 to
    /// util_sum and leaves the averages alone; the second, at 2 ms (delta 977 units, 976 + 977
    /// = 1953 → one period, 929 left over), decays the sum by y (0xfa83b2da / 2^32), then adds
    /// d1·y + d3 = (1024 − 976)·y + 929 contributions: c1 = decay_load(48, 1) = 46, c2 = 47742
    /// − decay_load(47742, 1) − 1024 = 47742 − 46718 − 1024 = 0, so contrib = 46 + 0 + 929 =
    /// 975; util_sum = decay(999 424) + 975·1024 = 978 008 + 998 400 = 1 976 408, and util_avg
    /// = 1 976 408 / (46 718 + 929) = 41 (a new task's signal rises from 0 over ~100 ms).
    #[test]
    fn util_of_a_running_task_follows_the_pelt_sums() {
        let mut sa = SchedAvg::default();
        assert!(!update_load_sum(1_000_000, &mut sa, 1024, 1, true));
        assert_eq!(sa.util_sum, 976 << 10);
        assert_eq!(sa.period_contrib, 976);
        assert!(update_load_sum(2_000_000, &mut sa, 1024, 1, true));
        assert_eq!(decay_load(999_424, 1), 978_008);
        assert_eq!(decay_load(47742, 1), 46718);
        assert_eq!(sa.period_contrib, 929);
        assert_eq!(sa.util_sum, 978_008 + 975 * 1024);
        update_load_avg_fields(&mut sa, 1024);
        assert_eq!(sa.util_avg, 1_976_408 / (46_718 + 929));
        assert_eq!(sa.util_avg, 41);
        // runnable counts one runnable task as 1024, as util does for one running one.
        assert_eq!(sa.runnable_avg, sa.util_avg);
        // load carries the weight (1024), unshifted: load_sum is 976·1024 decayed + 975·1024.
        assert_eq!(sa.load_avg, 1024 * (decay_load(976 * 1024, 1) + 975 * 1024) / (46_718 + 929));
    }

    /// A blocked entity (load 0) accrues nothing and only decays: after 32 periods asleep its
    /// util_sum has halved (y^32 = 1/2), less decay_load()'s rounding.
    #[test]
    fn a_blocked_entity_halves_every_32_periods() {
        let mut sa = SchedAvg::default();
        // Run for a long time: util_avg converges to its maximum (LOAD_AVG_MAX·1024 /
        // divider, just under 1024).
        let mut t = 0;
        while t < 2_000_000_000 {
            t += 1_000_000;
            if update_load_sum(t, &mut sa, 1024, 1, true) {
                update_load_avg_fields(&mut sa, 1024);
            }
        }
        assert!((1000..=1024).contains(&sa.util_avg), "{}", sa.util_avg);
        let before = sa.util_sum;
        // Sleep exactly 32 periods of 1024 µs from a period boundary.
        let start = sa.last_update_time - u64::from(sa.period_contrib) * 1024;
        let end = start + 32 * 1024 * 1024;
        update_load_sum(end, &mut sa, 0, 0, false);
        // The sum first gained nothing for the rest of the open period, then decayed 32 times.
        assert_eq!(sa.util_sum, decay_load(u64::from(before), 32) as u32);
        // decay_load(): 32 periods are one shift, then the factor for 0 periods,
        // runnable_avg_yN_inv[0] = 0xffffffff, which takes 1 off any sum below 2^32.
        assert_eq!(u64::from(sa.util_sum), (u64::from(before) >> 1) - 1);
    }
}
