//! What eevdf-v6.18 changes in the pick and the wakeup check (fair.c v6.18): slice protection
//! through `se->vprot` (run-to-parity limited to the shortest queued slice, 6.17), the
//! wakeup check that lets a shorter slice cut curr's protection, and `reweight_entity()`
//! re-placing the entity. Everything else of v6.18 that we model is v6.12's code (the
//! places that differ test `is_v618()`).

use super::avg::{cfs_rq_min_slice, entity_eligible, update_entity_lag};
use super::place::place_entity;
use super::tree::{dequeue_timeline, enqueue_timeline, entity_before};
use super::Version;
use crate::cfs::timeline::min_vruntime;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::calc_delta_fair;

/// `set_protect_slice()` (v6.18; 052c3d87c82e and 74eec63661d4, 6.17): curr may run without being
/// preempted by a wakeup's pick up to `vprot`: its deadline, or, when a queued entity asks
/// for a shorter slice (RUN_TO_PARITY) or the slice is longer than the unscaled base slice
/// (RUN_TO_PARITY off), that much less. Called from `set_next_entity()` after curr left the
/// tree, so the queue's shortest slice is the others'.
pub fn set_protect_slice(f: &mut Fair, rq: u32, se: u32) {
    let mut slice = f.cfg.normalized_base_slice_ns;
    if f.cfg.feat.run_to_parity {
        slice = cfs_rq_min_slice(f, rq);
    }
    let e = &mut f.ents[se as usize];
    let mut vprot = e.deadline;
    slice = slice.min(e.slice);
    if slice != e.slice {
        vprot = min_vruntime(vprot, e.vruntime.wrapping_add(calc_delta_fair(slice, &mut e.load)));
    }
    e.vprot = vprot;
}

/// `update_protect_slice()` (v6.18): a wakee with a shorter slice that did not win the pick
/// limits curr's protection to the queue's shortest slice from now.
pub fn update_protect_slice(f: &mut Fair, rq: u32, se: u32) {
    let slice = cfs_rq_min_slice(f, rq);
    let e = &mut f.ents[se as usize];
    e.vprot = min_vruntime(e.vprot, e.vruntime.wrapping_add(calc_delta_fair(slice, &mut e.load)));
}

/// `protect_slice()` (v6.18): curr has not reached `vprot`.
#[inline]
pub fn protect_slice(f: &Fair, se: u32) -> bool {
    let e = &f.ents[se as usize];
    (e.vprot.wrapping_sub(e.vruntime) as i64) > 0
}

/// `cancel_protect_slice()` (v6.18).
pub fn cancel_protect_slice(f: &mut Fair, se: u32) {
    if protect_slice(f, se) {
        let e = &mut f.ents[se as usize];
        e.vprot = e.vruntime;
    }
}

/// `__pick_eevdf(cfs_rq, protect)` (v6.18): v6.12's pick, with curr kept while it is
/// eligible and protected (`protect`), whatever RUN_TO_PARITY says (that feature now only
/// sizes the protection in `set_protect_slice()`).
pub fn pick_eevdf_v618(f: &Fair, rq: u32, protect: bool) -> u32 {
    let q = &f.cfs_rqs[rq as usize];
    let first = q.tasks_timeline.leftmost;
    let mut curr = q.curr;
    // We can safely skip eligibility check if there is only one entity in this cfs_rq.
    if q.nr_running == 1 {
        return if curr != NIL && f.ents[curr as usize].on_rq { curr } else { first };
    }
    if curr != NIL && (!f.ents[curr as usize].on_rq || !entity_eligible(f, rq, curr)) {
        curr = NIL;
    }
    if curr != NIL && protect && protect_slice(f, curr) {
        return curr;
    }
    let mut best = super::tree::earliest_eligible(f, rq, &super::avg::Eligibility::of(f, rq));
    if best == NIL || (curr != NIL && entity_before(Version::V618, &f.ents[curr as usize], &f.ents[best as usize])) {
        best = curr;
    }
    best
}

/// `pick_eevdf(cfs_rq, protect)` (v6.18.44): since e837456fdca8 (6.18.33) the next buddy is
/// taken here, under PICK_BUDDY, when eligible, before curr's checks, so the wakeup check's
/// pick sees it too. Returns the pick and whether the buddy was it.
pub fn pick_eevdf_buddy_v618(f: &Fair, rq: u32, protect: bool) -> (u32, bool) {
    let q = &f.cfs_rqs[rq as usize];
    let next = q.next;
    if q.nr_running != 1 && f.cfg.feat.pick_buddy && next != NIL && entity_eligible(f, rq, next) {
        return (next, true);
    }
    let se = pick_eevdf_v618(f, rq, protect);
    // The same fallback as `tree::pick_eevdf()`: an empty pick with entities queued would
    // loop forever; V being a weighted mean, some entity is always eligible.
    (if se == NIL { q.tasks_timeline.leftmost } else { se }, false)
}

/// What `check_preempt_wakeup_fair()` (v6.18.44) decided, past the early returns that precede
/// its pick.
pub enum WakeupAction {
    /// No pick: a fork or a delayed wakee that is not shorter (e837456fdca8), or the sync
    /// hint said no.
    None,
    /// The pick's result; `short` is PREEMPT_SHORT (the pick ignored curr's protection).
    Picked { picked: u32, short: bool },
}

/// The decision part of `check_preempt_wakeup_fair()` (v6.18.44), after `update_curr()`:
/// PREEMPT_SHORT is "the wakee asks for a shorter slice" and goes straight to a pick that
/// ignores curr's protection; otherwise a fork or a delayed wakee never preempts and, under
/// NEXT_BUDDY, the wakee becomes the buddy unless the buddy's deadline is earlier
/// (`set_preempt_buddy()`; WF_SYNC's `preempt_sync()` is not modelled: the model's wakeups carry
/// no sync hint). The pick is `pick_next_entity()`, which completes the dequeue of a delayed
/// entity it reaches and picks again while entities are queued ("sched/fair: Fix
/// wakeup_preempt_fair() vs delayed dequeue", 6.18.33). If the wakee does not win,
/// RUN_TO_PARITY limits curr's protection to the shortest slice, whatever the slices (in
/// 6.18.2 only for a shorter wakee). The caller reschedules when the pick is `pse` (and then
/// cancels curr's protection for a short wakee).
pub fn wakeup_pick_v618(f: &mut Fair, rq: u32, se: u32, pse: u32, fork: bool) -> WakeupAction {
    let short = f.cfg.feat.preempt_short && f.ents[pse as usize].slice < f.ents[se as usize].slice;
    if !short {
        if fork || f.ents[pse as usize].sched_delayed {
            return WakeupAction::None;
        }
        if f.cfg.feat.next_buddy {
            let next = f.cfs_rqs[rq as usize].next;
            if !(next != NIL && entity_before(Version::V618, &f.ents[next as usize], &f.ents[pse as usize])) {
                f.set_next_buddy(pse);
            }
        }
    }
    let picked = loop {
        let (nse, _) = pick_eevdf_buddy_v618(f, rq, !short);
        if !f.ents[nse as usize].sched_delayed {
            break nse;
        }
        super::task_ops::dequeue_entities(f, nse, crate::cfs::flags::DEQUEUE_SLEEP | crate::cfs::flags::DEQUEUE_DELAYED);
        if f.cfs_rqs[rq as usize].nr_running == 0 {
            break NIL;
        }
    };
    if picked != pse && f.cfg.feat.run_to_parity {
        update_protect_slice(f, rq, se);
    }
    WakeupAction::Picked { picked, short }
}

/// `reweight_entity()` (v6.18, from 6d71a9c61604 in 6.14): a queued entity is taken out with
/// its lag and relative deadline, both scaled by old/new weight, and placed again with
/// `place_entity()` (whose PLACE_LAG inflation keeps the scaled lag), instead of v6.12's
/// `reweight_eevdf()`. `weight` is the new (scaled) weight.
pub fn reweight_entity_v618(f: &mut Fair, rq: u32, se: u32, weight: u64) {
    let on_rq = f.ents[se as usize].on_rq;
    let is_curr = f.cfs_rqs[rq as usize].curr == se;
    let old_weight = f.ents[se as usize].load.weight;
    // ff38424030f9 (6.18.17): curr's protection is kept as a distance, scaled like the deadline.
    let mut rel_vprot = None;
    if on_rq {
        // Commit outstanding execution time.
        super::entity_ops::update_curr(f, rq);
        update_entity_lag(f, rq, se);
        if is_curr && protect_slice(f, se) {
            let e = &f.ents[se as usize];
            rel_vprot = Some(e.vprot.wrapping_sub(e.vruntime) as i64);
        }
        let e = &mut f.ents[se as usize];
        e.deadline = e.deadline.wrapping_sub(e.vruntime);
        e.rel_deadline = true;
        f.cfs_rqs[rq as usize].nr_running -= 1;
        if !is_curr {
            dequeue_timeline(f, rq, se);
        }
        f.cfs_rqs[rq as usize].load.sub(old_weight);
    }
    // div_s64(x * se->load.weight, weight): the divisor as s32, truncation toward zero.
    let scale = |x: i64| x.wrapping_mul(old_weight as i64) / i64::from(weight as i32);
    let e = &mut f.ents[se as usize];
    e.vlag = scale(e.vlag);
    if e.rel_deadline {
        e.deadline = scale(e.deadline as i64) as u64;
    }
    let rel_vprot = rel_vprot.map(scale);
    f.reweight_avg(rq, se, weight);
    if on_rq {
        place_entity(f, rq, se, 0);
        if let Some(vprot) = rel_vprot {
            let e = &mut f.ents[se as usize];
            e.vprot = e.vruntime.wrapping_add(vprot as u64);
        }
        f.cfs_rqs[rq as usize].load.add(weight);
        if !is_curr {
            enqueue_timeline(f, rq, se);
        }
        f.cfs_rqs[rq as usize].nr_running += 1;
    }
}

/// v6.18's `enqueue_task_fair()` / `dequeue_entities()` ancestor loop: after an ancestor's
/// slice changed, `min_vruntime_cb_propagate()` carries it up its tree (563bc2161b94, 6.15),
/// unless it is its runqueue's curr (outside the tree).
pub fn propagate_min_slice(f: &mut Fair, se: u32) {
    let q = f.ents[se as usize].cfs_rq;
    if f.cfs_rqs[q as usize].curr != se && f.ents[se as usize].on_rq {
        use crate::rbtree::RbAugment;
        super::tree::MinVruntimeCb::<true>(&mut f.ents).augment_propagate(se, NIL);
    }
}
