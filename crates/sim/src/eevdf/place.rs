//! Placement and requests: `place_entity()`, `update_deadline()`, and reweighting a task
//! that is off the runqueue (fair.c v6.6 / v6.12).

use super::avg::avg_vruntime;
use super::Version;
use crate::cfs::flags::ENQUEUE_INITIAL;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::{calc_delta_fair, scale_load_down, LoadWeight};

/// `place_entity()` (v6.6; v6.12 adds custom slices and PLACE_REL_DEADLINE).
///
/// With PLACE_LAG the entity keeps the lag it had at dequeue: since adding an entity with
/// lag vl moves V by −w·vl/(W + w), the lag is inflated by (W + w)/W first, so that the lag
/// after placement comes out as it was.
pub fn place_entity(f: &mut Fair, rq: u32, se: u32, flags: u32) {
    let vruntime = avg_vruntime(f, rq);
    let v612 = f.eevdf == Some(Version::V612);
    let base = f.cfg.base_slice_ns;
    let q = &f.cfs_rqs[rq as usize];
    let (nr_running, avg_load, curr) = (q.nr_running, q.avg_load, q.curr);
    let curr_w = (curr != NIL && f.ents[curr as usize].on_rq).then(|| scale_load_down(f.ents[curr as usize].load.weight));
    let feat = f.cfg.feat;

    let e = &mut f.ents[se as usize];
    if !(v612 && e.custom_slice) {
        e.slice = base;
    }
    let mut vslice = calc_delta_fair(e.slice, &mut e.load);
    let mut lag: i64 = 0;
    if feat.place_lag && nr_running != 0 {
        lag = e.vlag;
        let mut load = avg_load as u64;
        if let Some(w) = curr_w {
            load += w;
        }
        // `lag *= load + w` is an unsigned multiply stored back into an s64.
        lag = (lag as u64).wrapping_mul(load + scale_load_down(e.load.weight)) as i64;
        if load == 0 {
            load = 1; // WARN_ON_ONCE
        }
        // div_s64(): truncation toward zero, with the divisor as s32.
        lag /= i64::from(load as i32);
    }
    e.vruntime = vruntime.wrapping_sub(lag as u64);

    if v612 && feat.place_rel_deadline && e.rel_deadline {
        e.deadline = e.deadline.wrapping_add(e.vruntime);
        e.rel_deadline = false;
        return;
    }
    // Joining tasks find the others, on average, halfway through their slice.
    if feat.place_deadline_initial && flags & ENQUEUE_INITIAL != 0 {
        vslice /= 2;
    }
    e.deadline = e.vruntime.wrapping_add(vslice);
}

/// `update_deadline()` (v6.6 reschedules itself when `nr_running > 1`; v6.12 returns whether
/// the request is used up and lets `update_curr()` decide). Returns true when curr has used
/// its request and got a new deadline.
pub fn update_deadline(f: &mut Fair, se: u32) -> bool {
    let v612 = f.eevdf == Some(Version::V612);
    let base = f.cfg.base_slice_ns;
    let e = &mut f.ents[se as usize];
    if (e.vruntime.wrapping_sub(e.deadline) as i64) < 0 {
        return false;
    }
    // The virtual-time slope is set by the weight; the request size by the slice.
    if !(v612 && e.custom_slice) {
        e.slice = base;
    }
    e.deadline = e.vruntime.wrapping_add(calc_delta_fair(e.slice, &mut e.load));
    true
}

/// `reweight_entity()` for an entity off the runqueue (v6.6.0 and v6.12 agree here): the
/// saved virtual lag is scaled by old/new weight, so that the real lag w·vl is preserved.
pub fn reweight_task(f: &mut Fair, se: u32, nice: i32) {
    let e = &mut f.ents[se as usize];
    debug_assert!(!e.on_rq);
    let lw = LoadWeight::for_nice(nice);
    let (old, new) = (e.load.weight as i64, lw.weight as i64);
    // div_s64(se->vlag * se->load.weight, weight): a signed 64-bit product.
    e.vlag = e.vlag.wrapping_mul(old) / new;
    e.load = lw;
}
