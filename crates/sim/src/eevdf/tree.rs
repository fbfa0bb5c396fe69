//! `tasks_timeline` under EEVDF: the augmented rb-tree and `pick_eevdf()`.
//!
//! v6.6 keys the tree by vruntime and keeps each subtree's earliest deadline (`min_deadline`);
//! v6.12 keys it by deadline and keeps each subtree's smallest vruntime and slice
//! (`min_vruntime`, `min_slice`), so the leftmost entity is the earliest deadline and
//! eligibility prunes subtrees.

use super::avg::{avg_vruntime_add, avg_vruntime_sub, Eligibility};
use super::Version;
use crate::cfs::Fair;
use crate::entity::{Entity, NIL};
use crate::rbtree::{self, RbAccess, RbAugment, RbNode};

/// `deadline_gt()` / `vruntime_gt()`: a wrapping signed comparison of one u64 field.
#[inline]
fn gt(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) > 0
}

/// `entity_before()`: v6.6 compares vruntimes, v6.12 deadlines.
#[inline]
pub fn entity_before(ver: Version, a: &Entity, b: &Entity) -> bool {
    match ver {
        Version::V66 => (a.vruntime.wrapping_sub(b.vruntime) as i64) < 0,
        Version::V612 | Version::V618 => (a.deadline.wrapping_sub(b.deadline) as i64) < 0,
    }
}

/// The arena through `run_node`, with v6.6's `min_deadline_cb`.
pub struct MinDeadline<'a>(pub &'a mut [Entity]);
/// The arena through `run_node`, with `min_vruntime_cb`: v6.12's, or with `MAX_SLICE`
/// v6.18.44's, which keeps each subtree's longest slice too.
pub struct MinVruntimeCb<'a, const MAX_SLICE: bool>(pub &'a mut [Entity]);

/// `run_node` of the arena's entity, for each set of callbacks.
macro_rules! run_node_access {
    ([$($gen:tt)*] $t:ty) => {
        impl<$($gen)*> RbAccess for $t {
            #[inline]
            fn node(&self, id: u32) -> &RbNode {
                &self.0[id as usize].run_node
            }
            #[inline]
            fn node_mut(&mut self, id: u32) -> &mut RbNode {
                &mut self.0[id as usize].run_node
            }
        }
    };
}
run_node_access!([] MinDeadline<'_>);
run_node_access!([const MAX_SLICE: bool] MinVruntimeCb<'_, MAX_SLICE>);

impl RbAugment for MinDeadline<'_> {
    /// `min_deadline_update()` (v6.6).
    #[inline]
    fn augment_recompute(&mut self, id: u32) -> bool {
        let e = &self.0[id as usize];
        let old = e.min_deadline;
        let mut m = e.deadline;
        for c in [e.run_node.right, e.run_node.left] {
            if c != NIL && gt(m, self.0[c as usize].min_deadline) {
                m = self.0[c as usize].min_deadline;
            }
        }
        self.0[id as usize].min_deadline = m;
        m != old
    }
    #[inline]
    fn augment_copy(&mut self, old: u32, new: u32) {
        self.0[new as usize].min_deadline = self.0[old as usize].min_deadline;
    }
}

impl<const MAX_SLICE: bool> RbAugment for MinVruntimeCb<'_, MAX_SLICE> {
    /// `min_vruntime_update()`: v6.12's, and v6.18.44's with `max_slice` (6e3c0a4e1ad1
    /// "sched/fair: Fix lag clamp", 6.18.17), where the entity is unchanged only if all three
    /// fields are.
    #[inline]
    fn augment_recompute(&mut self, id: u32) -> bool {
        let e = &self.0[id as usize];
        let (old_v, old_s, old_m) = (e.min_vruntime, e.min_slice, e.max_slice);
        let (mut v, mut s, mut m) = (e.vruntime, e.slice, e.slice);
        for c in [e.run_node.right, e.run_node.left] {
            if c != NIL {
                let r = &self.0[c as usize];
                if gt(v, r.min_vruntime) {
                    v = r.min_vruntime;
                }
                s = s.min(r.min_slice);
                if MAX_SLICE {
                    m = m.max(r.max_slice);
                }
            }
        }
        let e = &mut self.0[id as usize];
        e.min_vruntime = v;
        e.min_slice = s;
        if MAX_SLICE {
            e.max_slice = m;
        }
        v != old_v || s != old_s || (MAX_SLICE && m != old_m)
    }
    /// RB_DECLARE_CALLBACKS copies only the declared field, `min_vruntime`: on a rotation
    /// `min_slice` is not carried over, exactly as in v6.12 (see docs/model.md), and in
    /// 6.18.44 neither is `max_slice` (upstream's 51b0e68cfa0a, which copies all three, is
    /// later).
    #[inline]
    fn augment_copy(&mut self, old: u32, new: u32) {
        self.0[new as usize].min_vruntime = self.0[old as usize].min_vruntime;
    }
}

fn version(f: &Fair) -> Version {
    f.eevdf.unwrap_or(Version::V612)
}

/// `__enqueue_entity()`.
pub fn enqueue_timeline(f: &mut Fair, rq: u32, se: u32) {
    avg_vruntime_add(f, rq, se);
    let ver = version(f);
    let root = &mut f.cfs_rqs[rq as usize].tasks_timeline;
    match ver {
        Version::V66 => {
            let e = &mut f.ents[se as usize];
            e.min_deadline = e.deadline;
            let mut acc = MinDeadline(&mut f.ents);
            rbtree::rb_add_augmented_cached(root, se, &mut acc, |a: &MinDeadline, x, y| {
                entity_before(Version::V66, &a.0[x as usize], &a.0[y as usize])
            });
        }
        Version::V612 => enqueue_by_deadline::<false>(root, se, &mut f.ents),
        // 6.18.44 does not set max_slice here (upstream's 9a8bc9bb4c3f adds it later), so the
        // new leaf's stale value is what its parent sees.
        Version::V618 => enqueue_by_deadline::<true>(root, se, &mut f.ents),
    }
}

/// v6.12's and v6.18.44's `__enqueue_entity()` tree part: keyed by deadline, the new leaf's
/// `min_vruntime` and `min_slice` set from its own, then `min_vruntime_cb` up the path.
fn enqueue_by_deadline<const MAX_SLICE: bool>(root: &mut rbtree::RbRootCached, se: u32, ents: &mut [Entity]) {
    let e = &mut ents[se as usize];
    e.min_vruntime = e.vruntime;
    e.min_slice = e.slice;
    rbtree::rb_add_augmented_cached(root, se, &mut MinVruntimeCb::<MAX_SLICE>(ents), |a: &MinVruntimeCb<MAX_SLICE>, x, y| {
        entity_before(Version::V612, &a.0[x as usize], &a.0[y as usize])
    });
}

/// `__dequeue_entity()`.
pub fn dequeue_timeline(f: &mut Fair, rq: u32, se: u32) {
    let root = &mut f.cfs_rqs[rq as usize].tasks_timeline;
    match f.eevdf.unwrap_or(Version::V612) {
        Version::V66 => {
            rbtree::rb_erase_augmented_cached(root, se, &mut MinDeadline(&mut f.ents));
        }
        Version::V612 => {
            rbtree::rb_erase_augmented_cached(root, se, &mut MinVruntimeCb::<false>(&mut f.ents));
        }
        Version::V618 => {
            rbtree::rb_erase_augmented_cached(root, se, &mut MinVruntimeCb::<true>(&mut f.ents));
        }
    }
    avg_vruntime_sub(f, rq, se);
}

/// v6.6 `min_deadline_cb_propagate()`: after an in-tree entity's deadline changed.
pub fn propagate_min_deadline(f: &mut Fair, se: u32) {
    MinDeadline(&mut f.ents).augment_propagate(se, NIL);
}

/// `__pick_eevdf()` (v6.6): one descent that remembers the best eligible node on the path
/// and the left subtree with the earliest deadline hanging off it, then a second descent
/// into that subtree if it beats the best.
fn pick_eevdf_v66(f: &Fair, rq: u32) -> u32 {
    let q = &f.cfs_rqs[rq as usize];
    let mut node = q.tasks_timeline.root;
    let mut curr = q.curr;
    let eligible = Eligibility::of(f, rq);
    if curr != NIL && (!f.ents[curr as usize].on_rq || !eligible.entity(f, curr)) {
        curr = NIL;
    }
    let mut best = curr;
    // Once selected, run a task until it either becomes non-eligible or until it gets a
    // new slice (the vlag == deadline "HACK" of set_next_entity()).
    if f.cfg.feat.run_to_parity && curr != NIL && f.ents[curr as usize].vlag as u64 == f.ents[curr as usize].deadline {
        return curr;
    }
    let mut best_left = NIL;
    let ents = &f.ents;
    while node != NIL {
        let se = &ents[node as usize];
        // Eligible entities are to the left of (vruntime-ordered) ineligible ones.
        if !eligible.entity(f, node) {
            node = se.run_node.left;
            continue;
        }
        if best == NIL || gt(ents[best as usize].deadline, se.deadline) {
            best = node;
        }
        // Every node to the left is eligible: keep the subtree with the earliest deadline.
        let l = se.run_node.left;
        if l != NIL {
            if best_left == NIL || gt(ents[best_left as usize].min_deadline, ents[l as usize].min_deadline) {
                best_left = l;
            }
            // The earliest deadline is in the left subtree: done with this descent.
            if ents[l as usize].min_deadline == se.min_deadline {
                break;
            }
        }
        if se.deadline == se.min_deadline {
            break;
        }
        node = se.run_node.right;
    }
    if best_left == NIL || (ents[best_left as usize].min_deadline.wrapping_sub(ents[best as usize].deadline) as i64) > 0 {
        return best;
    }
    // The earliest-deadline entity of best_left's subtree, found by following min_deadline.
    let mut node = best_left;
    while node != NIL {
        let se = &ents[node as usize];
        if se.deadline == se.min_deadline {
            return node;
        }
        let l = se.run_node.left;
        if l != NIL && ents[l as usize].min_deadline == se.min_deadline {
            node = l;
            continue;
        }
        node = se.run_node.right;
    }
    NIL
}

/// `pick_eevdf()` (v6.12): a single queued entity is taken as is; RUN_TO_PARITY keeps an
/// eligible curr; the leftmost (earliest deadline) if eligible; else a heap search pruned by
/// each left subtree's min_vruntime; curr wins over an entity with a later deadline.
///
/// With the two never-merged features of the "complete EEVDF" discussion, the curr checks
/// come first: RESPECT_SLICE's `pick_curr()` may keep an ineligible curr, and
/// RUN_TO_PARITY_WAKEUP skips curr's eligibility check at a wakeup while curr is on the
/// request it was picked with.
fn pick_eevdf_v612(f: &Fair, rq: u32, wakee: u32) -> u32 {
    let q = &f.cfs_rqs[rq as usize];
    let first = q.tasks_timeline.leftmost;
    let mut curr = q.curr;
    if curr != NIL && !f.ents[curr as usize].on_rq {
        curr = NIL;
    }
    if q.nr_running == 1 {
        return if curr != NIL { curr } else { first };
    }
    let eligible = Eligibility::of(f, rq);
    if pick_curr(f, &eligible, curr, wakee) {
        return curr;
    }
    let first_slice = curr != NIL && f.ents[curr as usize].vlag as u64 == f.ents[curr as usize].deadline;
    let skip_eligible = f.cfg.feat.run_to_parity_wakeup && wakee != NIL && first_slice;
    if curr != NIL && !skip_eligible && !eligible.entity(f, curr) {
        curr = NIL;
    }
    if f.cfg.feat.run_to_parity && curr != NIL && first_slice {
        return curr;
    }
    let mut best = earliest_eligible(f, rq, &eligible);
    if best == NIL || (curr != NIL && entity_before(Version::V612, &f.ents[curr as usize], &f.ents[best as usize])) {
        best = curr;
    }
    best
}

/// The search part of `__pick_eevdf()` (v6.12, v6.18): the leftmost if eligible (the tree is
/// in deadline order), else a descent pruned by each left subtree's min_vruntime.
pub(crate) fn earliest_eligible(f: &Fair, rq: u32, eligible: &Eligibility) -> u32 {
    let q = &f.cfs_rqs[rq as usize];
    let first = q.tasks_timeline.leftmost;
    if first != NIL && eligible.entity(f, first) {
        return first;
    }
    let ents = &f.ents;
    let mut node = q.tasks_timeline.root;
    while node != NIL {
        let l = ents[node as usize].run_node.left;
        // Eligible entities in the left subtree have earlier deadlines: go there first.
        if l != NIL && eligible.vruntime(ents[l as usize].min_vruntime) {
            node = l;
            continue;
        }
        if eligible.entity(f, node) {
            return node;
        }
        node = ents[node as usize].run_node.right;
    }
    NIL
}

/// Where the decision log says EEVDF picks are made.
pub(crate) fn pick_site() -> &'static crate::explain::Site {
    static SITE: crate::explain::Site = crate::decision_site!("eevdf::tree::pick_eevdf", "pick_eevdf(), fair.c v6.6 / v6.12 / v6.18");
    &SITE
}

/// `pick_eevdf()`. v6.6 falls back to the leftmost entity (with a pr_err) when the search
/// finds nothing; v6.12 has no fallback in the kernel, but an empty result with entities
/// queued would loop the pick forever here, so it takes the same fallback (never seen in
/// the tests: some entity is always eligible, as V is a weighted mean).
///
/// `wakee` is the waking entity when the pick decides a wakeup preemption
/// (`check_preempt_wakeup_fair()`), NIL when `pick_next_entity()` asks.
pub fn pick_eevdf(f: &Fair, rq: u32, wakee: u32) -> u32 {
    let se = match version(f) {
        Version::V66 => pick_eevdf_v66(f, rq),
        Version::V612 => pick_eevdf_v612(f, rq, wakee),
        Version::V618 => super::protect::pick_eevdf_v618(f, rq, true),
    };
    if se == NIL {
        return f.cfs_rqs[rq as usize].tasks_timeline.leftmost;
    }
    se
}

/// `pick_curr()` of the RESPECT_SLICE RFC (Peter Zijlstra, 24 Apr 2024,
/// <20240424150721.GQ30852@noisy.programming.kicks-ass.net>, on queue/sched/eevdf): keep curr
/// until it has used up the request it was picked with (the vlag == deadline "HACK" of
/// `set_next_entity()`), eligible or not; RUN_TO_PARITY relaxes that to the 0-lag point, and
/// PREEMPT_SHORT lets a wakee with a shorter slice and an earlier deadline through.
fn pick_curr(f: &Fair, eligible: &Eligibility, curr: u32, wakee: u32) -> bool {
    if curr == NIL || !f.cfg.feat.respect_slice {
        return false;
    }
    if f.cfg.feat.run_to_parity && !eligible.entity(f, curr) {
        return false;
    }
    let e = &f.ents[curr as usize];
    if f.cfg.feat.preempt_short && wakee != NIL {
        let w = &f.ents[wakee as usize];
        if w.slice < e.slice && (w.deadline.wrapping_sub(e.deadline) as i64) < 0 {
            return false;
        }
    }
    e.vlag as u64 == e.deadline
}
