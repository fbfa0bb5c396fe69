//! Placement and requests: `place_entity()`, `update_deadline()`, and `reweight_entity()`
//! (fair.c v6.6 / v6.12).

use super::avg::{self, avg_vruntime, avg_vruntime_zero};
use super::{entity_ops, tree};
use crate::cfs::flags::ENQUEUE_INITIAL;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::{calc_delta_fair, scale_load_down};

/// `place_entity()` (v6.6; v6.12 adds custom slices and PLACE_REL_DEADLINE; v6.18 skips the
/// lag arithmetic for a zero vlag, which changes no result, and honours `rel_deadline` alone).
///
/// With PLACE_LAG the entity keeps the lag it had at dequeue: since adding an entity with
/// lag vl moves V by −w·vl/(W + w), the lag is inflated by (W + w)/W first, so that the lag
/// after placement comes out as it was.
pub fn place_entity(f: &mut Fair, rq: u32, se: u32, flags: u32) {
    let vruntime = avg_vruntime_zero(f, rq);
    let v612 = super::since_v612(f);
    let is_v618 = super::is_v618(f);
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

    // v6.18 tests only rel_deadline: reweight_entity() sets it whatever PLACE_REL_DEADLINE says.
    if v612 && (feat.place_rel_deadline || is_v618) && e.rel_deadline {
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
/// the request is used up and lets `update_curr()` decide; v6.18.44 also moves zero_vruntime
/// at each new request, b3d99f43c72b). Returns true when curr has used its request and got a
/// new deadline.
pub fn update_deadline(f: &mut Fair, se: u32) -> bool {
    let v612 = super::since_v612(f);
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
    if super::is_v618(f) {
        let rq = f.ents[se as usize].cfs_rq;
        avg_vruntime_zero(f, rq);
    }
    true
}

/// `reweight_entity()` (v6.6.0: rescales the relative deadline of a queued entity, or the
/// saved vlag of one off the queue; v6.12: `reweight_eevdf()` keeps the lag and the relative
/// deadline against V for a queued entity, and rescales vlag off the queue).
pub fn reweight_entity(f: &mut Fair, rq: u32, se: u32, weight: u64) {
    if super::is_v618(f) {
        return super::protect::reweight_entity_v618(f, rq, se, weight);
    }
    let v612 = super::since_v612(f);
    let on_rq = f.ents[se as usize].on_rq;
    let is_curr = f.cfs_rqs[rq as usize].curr == se;
    let old_weight = f.ents[se as usize].load.weight;
    let mut avruntime = 0;
    if on_rq {
        if v612 {
            // Commit outstanding execution time, then take the entity out of the sums.
            entity_ops::update_curr(f, rq);
            avruntime = avg_vruntime(f, rq);
            if !is_curr {
                tree::dequeue_timeline(f, rq, se);
            }
        } else if is_curr {
            entity_ops::update_curr(f, rq);
        } else {
            avg::avg_vruntime_sub(f, rq, se);
        }
        f.cfs_rqs[rq as usize].load.sub(old_weight);
    }
    // div_s64(x * old_weight, weight): the divisor as s32, truncation toward zero.
    let scale = |x: i64| x.wrapping_mul(old_weight as i64) / i64::from(weight as i32);
    if !on_rq {
        f.ents[se as usize].vlag = scale(f.ents[se as usize].vlag);
    } else if v612 {
        // reweight_eevdf(): v' = V − vl·w/w', d' = V + (d − V)·w/w' (lag clamped first).
        if avruntime != f.ents[se as usize].vruntime {
            let vlag = scale(avg::entity_lag(f, avruntime, se));
            f.ents[se as usize].vruntime = avruntime.wrapping_sub(vlag as u64);
        }
        let e = &mut f.ents[se as usize];
        let vslice = scale(e.deadline.wrapping_sub(avruntime) as i64);
        e.deadline = avruntime.wrapping_add(vslice as u64);
    } else {
        let e = &mut f.ents[se as usize];
        let deadline = scale(e.deadline.wrapping_sub(e.vruntime) as i64);
        e.deadline = e.vruntime.wrapping_add(deadline as u64);
    }
    f.reweight_avg(rq, se, weight);
    if on_rq {
        f.cfs_rqs[rq as usize].load.add(weight);
        if v612 {
            if !is_curr {
                tree::enqueue_timeline(f, rq, se);
            }
            avg::update_min_vruntime(f, rq);
        } else if !is_curr {
            avg::avg_vruntime_add(f, rq, se);
            tree::propagate_min_deadline(f, se);
        }
    }
}
