//! The weighted average of vruntimes V, eligibility and lag (fair.c v6.6 / v6.12:
//! entity_key … update_min_vruntime, cfs_rq_min_slice).
//!
//! V is kept as Σ (v_i − v0)·w_i and Σ w_i with v0 = min_vruntime, so the sums stay small;
//! curr is outside the tree and outside the sums, and is added on the fly.

use super::Version;
use crate::cfs::timeline::min_vruntime;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::{calc_delta_fair, scale_load_down};

/// `entity_key()`: the entity's vruntime relative to the cfs_rq's min_vruntime.
#[inline]
pub fn entity_key(f: &Fair, rq: u32, se: u32) -> i64 {
    f.ents[se as usize].vruntime.wrapping_sub(f.cfs_rqs[rq as usize].min_vruntime) as i64
}

#[inline]
fn weight(f: &Fair, se: u32) -> i64 {
    scale_load_down(f.ents[se as usize].load.weight) as i64
}

/// `avg_vruntime_add()`.
pub fn avg_vruntime_add(f: &mut Fair, rq: u32, se: u32) {
    let (w, key) = (weight(f, se), entity_key(f, rq, se));
    let q = &mut f.cfs_rqs[rq as usize];
    q.avg_vruntime = q.avg_vruntime.wrapping_add(key.wrapping_mul(w));
    q.avg_load += w;
}

/// `avg_vruntime_sub()`.
pub fn avg_vruntime_sub(f: &mut Fair, rq: u32, se: u32) {
    let (w, key) = (weight(f, se), entity_key(f, rq, se));
    let q = &mut f.cfs_rqs[rq as usize];
    q.avg_vruntime = q.avg_vruntime.wrapping_sub(key.wrapping_mul(w));
    q.avg_load -= w;
}

/// `avg_vruntime_update()`: v0 moved forward by `delta`, so every key shrank by it.
#[inline]
fn avg_vruntime_update(f: &mut Fair, rq: u32, delta: i64) {
    let q = &mut f.cfs_rqs[rq as usize];
    q.avg_vruntime = q.avg_vruntime.wrapping_sub(q.avg_load.wrapping_mul(delta));
}

/// The sums with curr added, as `avg_vruntime()` and `vruntime_eligible()` form them.
#[inline]
fn sums_with_curr(f: &Fair, rq: u32) -> (i64, i64) {
    let q = &f.cfs_rqs[rq as usize];
    let (mut avg, mut load) = (q.avg_vruntime, q.avg_load);
    let curr = q.curr;
    if curr != NIL && f.ents[curr as usize].on_rq {
        let w = weight(f, curr);
        avg = avg.wrapping_add(entity_key(f, rq, curr).wrapping_mul(w));
        load += w;
    }
    (avg, load)
}

/// `avg_vruntime()` (v6.6 = v6.12): V, rounded down (a left bias, so that an entity placed
/// at V is eligible). Under eevdf-v6.18 the kernel's call also moves `zero_vruntime` to the
/// result (`avg_vruntime_zero()`); this one only reads, for views and decisions, and gives
/// the same V.
pub fn avg_vruntime(f: &Fair, rq: u32) -> u64 {
    let (mut avg, load) = sums_with_curr(f, rq);
    if load != 0 {
        // The sign flips the effective floor / ceiling of the division.
        if avg < 0 {
            avg -= load - 1;
        }
        avg /= load;
    }
    f.cfs_rqs[rq as usize].min_vruntime.wrapping_add(avg as u64)
}

/// `avg_vruntime()` where the kernel calls it: under eevdf-v6.18 (79f3f9bedd14 "sched/eevdf:
/// Fix min_vruntime vs avg_vruntime", 6.18.4, with b3d99f43c72b "sched/fair: Fix
/// zero_vruntime tracking", 6.18.17, as in 6.18.44) the sums' base v0 is `zero_vruntime`,
/// which each call moves to V (`update_zero_vruntime()`), so the keys stay within two lag
/// bounds of 0; the model keeps it in `CfsRq::min_vruntime`. Earlier versions only read.
pub fn avg_vruntime_zero(f: &mut Fair, rq: u32) -> u64 {
    if !super::is_v618(f) {
        return avg_vruntime(f, rq);
    }
    let q = &f.cfs_rqs[rq as usize];
    let curr = q.curr;
    let curr = if curr != NIL && f.ents[curr as usize].on_rq { curr } else { NIL };
    let mut weight = q.avg_load;
    let mut delta: i64 = 0;
    if weight != 0 {
        let mut runtime = q.avg_vruntime;
        if curr != NIL {
            let w = self::weight(f, curr);
            runtime = runtime.wrapping_add(entity_key(f, rq, curr).wrapping_mul(w));
            weight += w;
        }
        // The sign flips the effective floor / ceiling of the division.
        if runtime < 0 {
            runtime -= weight - 1;
        }
        delta = runtime / weight;
    } else if curr != NIL {
        // When there is but one element, it is the average.
        delta = entity_key(f, rq, curr);
    }
    // update_zero_vruntime(): v0' = v0 + d, so every key in the sum shrinks by d.
    avg_vruntime_update(f, rq, delta);
    let q = &mut f.cfs_rqs[rq as usize];
    q.min_vruntime = q.min_vruntime.wrapping_add(delta as u64);
    q.min_vruntime
}

/// `vruntime_eligible()` (v6.12; v6.6's `entity_eligible()` is the same test): lag ≥ 0, i.e.
/// Σ(v_j − v0)·w_j ≥ (v − v0)·Σw_j, without the division that would lose precision.
pub fn vruntime_eligible(f: &Fair, rq: u32, vruntime: u64) -> bool {
    Eligibility::of(f, rq).vruntime(vruntime)
}

/// What `vruntime_eligible()` compares against, formed once: `pick_eevdf()` asks about
/// several entities of one runqueue while nothing changes, and forming the sums with curr
/// each time was a good part of what a pick cost.
#[derive(Clone, Copy, Debug)]
pub struct Eligibility {
    avg: i64,
    load: i64,
    v0: u64,
}

impl Eligibility {
    #[inline]
    pub fn of(f: &Fair, rq: u32) -> Eligibility {
        let (avg, load) = sums_with_curr(f, rq);
        Eligibility { avg, load, v0: f.cfs_rqs[rq as usize].min_vruntime }
    }

    /// `vruntime_eligible()` of `vruntime`.
    #[inline]
    pub fn vruntime(&self, vruntime: u64) -> bool {
        let key = vruntime.wrapping_sub(self.v0) as i64;
        self.avg >= key.wrapping_mul(self.load)
    }

    /// `entity_eligible()` of `se`.
    #[inline]
    pub fn entity(&self, f: &Fair, se: u32) -> bool {
        self.vruntime(f.ents[se as usize].vruntime)
    }
}

/// `entity_eligible()`.
#[inline]
pub fn entity_eligible(f: &Fair, rq: u32, se: u32) -> bool {
    vruntime_eligible(f, rq, f.ents[se as usize].vruntime)
}

/// `entity_lag()` (v6.12; inline in v6.6's `update_entity_lag`): V − v clamped to
/// ±calc_delta_fair(max(2·slice, TICK_NSEC)), so the lag limit depends on HZ. Under
/// eevdf-v6.18 the bound is the runqueue's longest slice plus a tick (6e3c0a4e1ad1 "sched/fair:
/// Fix lag clamp", 6.18.17: EEVDF's steady-state bound −r_max < lag < max(r_max, q)), read
/// from the `max_slice` augment as 6.18.44 keeps it.
pub fn entity_lag(f: &mut Fair, avruntime: u64, se: u32) -> i64 {
    let tick = f.cfg.tick_ns;
    let max_slice = super::is_v618(f).then(|| cfs_rq_max_slice(f, f.ents[se as usize].cfs_rq) + tick);
    let e = &mut f.ents[se as usize];
    let vlag = avruntime.wrapping_sub(e.vruntime) as i64;
    let limit = calc_delta_fair(max_slice.unwrap_or((2 * e.slice).max(tick)), &mut e.load) as i64;
    vlag.clamp(-limit, limit)
}

/// `update_entity_lag()`.
pub fn update_entity_lag(f: &mut Fair, rq: u32, se: u32) {
    debug_assert!(f.ents[se as usize].on_rq);
    let v = avg_vruntime_zero(f, rq);
    f.ents[se as usize].vlag = entity_lag(f, v, se);
}

/// `__update_min_vruntime()`: min_vruntime only moves forward; when it does, the keys in
/// the running sum are rebased.
fn update_min_vruntime_to(f: &mut Fair, rq: u32, vruntime: u64) {
    let m = f.cfs_rqs[rq as usize].min_vruntime;
    let delta = vruntime.wrapping_sub(m) as i64;
    if delta > 0 {
        avg_vruntime_update(f, rq, delta);
        f.cfs_rqs[rq as usize].min_vruntime = vruntime;
    }
}

/// `update_min_vruntime()`: v6.6 reads the leftmost entity's vruntime (the tree is keyed by
/// vruntime); v6.12 reads the root's augmented `min_vruntime` (the tree is keyed by deadline).
pub fn update_min_vruntime(f: &mut Fair, rq: u32) {
    // 6.18.4 (79f3f9bedd14) removed it: zero_vruntime moves in avg_vruntime_zero() instead.
    if super::is_v618(f) {
        return;
    }
    let q = &f.cfs_rqs[rq as usize];
    let se = match f.eevdf {
        Some(Version::V612 | Version::V618) => q.tasks_timeline.root,
        _ => q.tasks_timeline.leftmost,
    };
    let mut curr = q.curr;
    let mut vruntime = q.min_vruntime;
    if curr != NIL {
        if f.ents[curr as usize].on_rq {
            vruntime = f.ents[curr as usize].vruntime;
        } else {
            curr = NIL;
        }
    }
    if se != NIL {
        let e = &f.ents[se as usize];
        let v = if super::since_v612(f) { e.min_vruntime } else { e.vruntime };
        vruntime = if curr == NIL { v } else { min_vruntime(vruntime, v) };
    }
    // Ensure we never gain time by being placed backwards.
    update_min_vruntime_to(f, rq, vruntime);
}

/// `cfs_rq_max_slice()` (v6.18.17, 6e3c0a4e1ad1): the largest slice among curr and the root's
/// `max_slice`, which can be stale (see `Entity::max_slice`).
pub fn cfs_rq_max_slice(f: &Fair, rq: u32) -> u64 {
    let q = &f.cfs_rqs[rq as usize];
    let mut max_slice = 0;
    if q.curr != NIL && f.ents[q.curr as usize].on_rq {
        max_slice = f.ents[q.curr as usize].slice;
    }
    if q.tasks_timeline.root != NIL {
        max_slice = max_slice.max(f.ents[q.tasks_timeline.root as usize].max_slice);
    }
    max_slice
}

/// `cfs_rq_min_slice()` (v6.12): the smallest slice among curr and the queued entities.
pub fn cfs_rq_min_slice(f: &Fair, rq: u32) -> u64 {
    let q = &f.cfs_rqs[rq as usize];
    let mut min_slice = u64::MAX;
    if q.curr != NIL && f.ents[q.curr as usize].on_rq {
        min_slice = f.ents[q.curr as usize].slice;
    }
    if q.tasks_timeline.root != NIL {
        min_slice = min_slice.min(f.ents[q.tasks_timeline.root as usize].min_slice);
    }
    min_slice
}
