//! Load weights and the fixed-point arithmetic of `kernel/sched/fair.c` (v6.2, 64-bit).
//!
//! On 64-bit kernels a task's `load.weight` is the table value shifted left by
//! `SCHED_FIXEDPOINT_SHIFT` (10), and `__calc_delta()` works on `scale_load_down()`ed values.
//! The inverse weight of a *task* entity is the precomputed table value, while any
//! `load_weight` written by `update_load_add/sub/set` (a runqueue's load, a group entity) gets
//! `WMULT_CONST / w` computed lazily; the two differ in the last bit (4194303 vs 4194304 for
//! nice 0), and that difference is visible in `sched_slice()`, so both paths are kept.

pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;
/// NICE_0_LOAD on 64-bit: `1 << (2 * SCHED_FIXEDPOINT_SHIFT)`.
pub const NICE_0_LOAD: u64 = 1 << (2 * SCHED_FIXEDPOINT_SHIFT);
/// `scale_load_down(NICE_0_LOAD)`.
pub const NICE_0_WEIGHT: u64 = 1024;
pub const WMULT_CONST: u64 = 0xFFFF_FFFF;
pub const WMULT_SHIFT: u32 = 32;

/// `sched_prio_to_weight[]` (kernel/sched/core.c, unchanged from v6.2 to v6.12).
pub const SCHED_PRIO_TO_WEIGHT: [u64; 40] = [
    /* -20 */ 88761, 71755, 56483, 46273, 36291,
    /* -15 */ 29154, 23254, 18705, 14949, 11916,
    /* -10 */ 9548, 7620, 6100, 4904, 3906,
    /*  -5 */ 3121, 2501, 1991, 1586, 1277,
    /*   0 */ 1024, 820, 655, 526, 423,
    /*   5 */ 335, 272, 215, 172, 137,
    /*  10 */ 110, 87, 70, 56, 45,
    /*  15 */ 36, 29, 23, 18, 15,
];

/// `sched_prio_to_wmult[]` (kernel/sched/core.c): 2^32 / weight, precomputed.
pub const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    /* -20 */ 48388, 59856, 76040, 92818, 118348,
    /* -15 */ 147320, 184698, 229616, 287308, 360437,
    /* -10 */ 449829, 563644, 704093, 875809, 1099582,
    /*  -5 */ 1376151, 1717300, 2157191, 2708050, 3363326,
    /*   0 */ 4194304, 5237765, 6557202, 8165337, 10153587,
    /*   5 */ 12820798, 15790321, 19976592, 24970740, 31350126,
    /*  10 */ 39045157, 49367440, 61356676, 76695844, 95443717,
    /*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
];

/// `struct load_weight`: `weight` is scaled (<< 10); `inv_weight` 0 means "not computed yet".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadWeight {
    pub weight: u64,
    pub inv_weight: u32,
}

/// `WEIGHT_IDLEPRIO` and `WMULT_IDLEPRIO` (kernel/sched/sched.h): a SCHED_IDLE task's weight,
/// whatever its nice.
pub const WEIGHT_IDLEPRIO: u64 = 3;
pub const WMULT_IDLEPRIO: u32 = 1_431_655_765;

impl LoadWeight {
    /// `set_load_weight()` for a SCHED_IDLE task: the idle weight and its inverse.
    pub fn idle() -> LoadWeight {
        LoadWeight { weight: scale_load(WEIGHT_IDLEPRIO), inv_weight: WMULT_IDLEPRIO }
    }

    /// `set_load_weight()` for a SCHED_NORMAL task (v6.2): table weight and table inverse.
    pub fn for_nice(nice: i32) -> LoadWeight {
        let i = nice_index(nice);
        LoadWeight { weight: scale_load(SCHED_PRIO_TO_WEIGHT[i]), inv_weight: SCHED_PRIO_TO_WMULT[i] }
    }

    /// `update_load_add()`: the inverse must be recomputed.
    #[inline]
    pub fn add(&mut self, w: u64) {
        self.weight += w;
        self.inv_weight = 0;
    }

    /// `update_load_sub()`.
    #[inline]
    pub fn sub(&mut self, w: u64) {
        self.weight -= w;
        self.inv_weight = 0;
    }

    /// `update_load_set()`.
    #[inline]
    pub fn set(&mut self, w: u64) {
        self.weight = w;
        self.inv_weight = 0;
    }
}

/// Index into the prio tables: `nice + 20`, clamped to the table (nice is validated earlier).
#[inline]
pub fn nice_index(nice: i32) -> usize {
    (nice.clamp(-20, 19) + 20) as usize
}

/// `scale_load()` (64-bit).
#[inline]
pub const fn scale_load(w: u64) -> u64 {
    w << SCHED_FIXEDPOINT_SHIFT
}

/// `scale_load_down()` (64-bit): never below 2 for a non-zero weight.
#[inline]
pub const fn scale_load_down(w: u64) -> u64 {
    if w == 0 {
        0
    } else {
        let d = w >> SCHED_FIXEDPOINT_SHIFT;
        if d < 2 {
            2
        } else {
            d
        }
    }
}

/// `__update_inv_weight()` (v6.2).
#[inline]
pub fn update_inv_weight(lw: &mut LoadWeight) {
    if lw.inv_weight != 0 {
        return;
    }
    let w = scale_load_down(lw.weight);
    lw.inv_weight = if w >= WMULT_CONST {
        1
    } else if w == 0 {
        WMULT_CONST as u32
    } else {
        (WMULT_CONST / w) as u32
    };
}

/// `fls()`: 1-based index of the most significant set bit, 0 for 0.
#[inline]
fn fls(x: u32) -> u32 {
    32 - x.leading_zeros()
}

/// `mul_u64_u32_shr()`: (a * b) >> shift on a 128-bit intermediate, truncated to u64.
#[inline]
fn mul_u64_u32_shr(a: u64, b: u32, shift: u32) -> u64 {
    ((a as u128 * b as u128) >> shift) as u64
}

/// `__calc_delta()` (v6.2): `delta_exec * weight / lw.weight` in 32.32 fixed point.
#[inline]
pub fn calc_delta(delta_exec: u64, weight: u64, lw: &mut LoadWeight) -> u64 {
    let mut fact = scale_load_down(weight);
    let mut fact_hi = (fact >> 32) as u32;
    let mut shift = WMULT_SHIFT;

    update_inv_weight(lw);

    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }

    // mul_u32_u32(): the low 32 bits of fact times the inverse.
    fact = (fact & 0xFFFF_FFFF) * lw.inv_weight as u64;

    fact_hi = (fact >> 32) as u32;
    if fact_hi != 0 {
        let fs = fls(fact_hi);
        shift -= fs;
        fact >>= fs;
    }

    mul_u64_u32_shr(delta_exec, fact as u32, shift)
}

/// `__calc_delta()` against a load that is not stored anywhere (the kernel's on-stack copy in
/// `sched_slice()`): the inverse is computed but not kept.
#[inline]
pub fn calc_delta_tmp(delta_exec: u64, weight: u64, lw: LoadWeight) -> u64 {
    let mut tmp = lw;
    calc_delta(delta_exec, weight, &mut tmp)
}

/// `calc_delta_fair()` (v6.2): `delta / w` in virtual time; exact for nice-0 weight.
#[inline]
pub fn calc_delta_fair(delta: u64, lw: &mut LoadWeight) -> u64 {
    if lw.weight != NICE_0_LOAD {
        calc_delta(delta, NICE_0_LOAD, lw)
    } else {
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kernel-source.md part E: calc_delta_fair(1 ms) for every nice level.
    #[test]
    fn calc_delta_fair_one_ms_matches_part_e() {
        let expected: [u64; 40] = [
            11536, 14270, 18129, 22129, 28216, 35123, 44035, 54744, 68499, 85934, 107247, 134383,
            167868, 208809, 262160, 328099, 409436, 514314, 645649, 801879, 1000000, 1248780,
            1563358, 1946768, 2420803, 3056716, 3764705, 4762790, 5953488, 7474452, 9309090,
            11770114, 14628571, 18285714, 22755555, 28444444, 35310344, 44521739, 56888888,
            68266666,
        ];
        for nice in -20..=19 {
            let mut lw = LoadWeight::for_nice(nice);
            assert_eq!(calc_delta_fair(1_000_000, &mut lw), expected[(nice + 20) as usize], "nice {nice}");
        }
    }

    /// Two nice-0 tasks: the runqueue's computed inverse is 0xFFFFFFFF/2048 = 2097151, so the
    /// 6 ms period splits into 2 999 998 ns, not 3 ms.
    #[test]
    fn computed_inverse_differs_from_table_in_last_bit() {
        let mut rq = LoadWeight::default();
        rq.add(scale_load(1024));
        rq.add(scale_load(1024));
        assert_eq!(calc_delta(6_000_000, scale_load(1024), &mut rq), 2_999_998);
        assert_eq!(rq.inv_weight, 2_097_151);
        let mut one = LoadWeight::default();
        one.set(scale_load(1024));
        update_inv_weight(&mut one);
        assert_eq!(one.inv_weight, 4_194_303);
        assert_eq!(LoadWeight::for_nice(0).inv_weight, 4_194_304);
    }

    #[test]
    fn scale_load_down_floors_at_two() {
        assert_eq!(scale_load_down(0), 0);
        assert_eq!(scale_load_down(1), 2);
        assert_eq!(scale_load_down(scale_load(15)), 15);
    }
}
