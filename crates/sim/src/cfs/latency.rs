//! The latency-nice v12 additions (Vincent Guittot, Feb 2023): the latency offset,
//! `get_sleep_latency()`, `get_latency_max()`, `wakeup_latency_gran()` and the
//! `latency_timeline` rb-tree of 8/8.

use super::flags::ENQUEUE_WAKEUP;
use super::Fair;
use crate::entity::{Entity, NIL};
use crate::rbtree::{self, RbAccess, RbNode};
use crate::scenario::ClampOffset;

/// `LATENCY_NICE_WIDTH / 2`.
const HALF_LATENCY_WIDTH: i64 = 20;

/// The entity arena seen through `latency_node`.
pub struct LatencyNodes<'a>(pub &'a mut [Entity]);

impl RbAccess for LatencyNodes<'_> {
    #[inline]
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].latency_node
    }
    #[inline]
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].latency_node
    }
}

/// `latency_before()` (v12 8/8): ordered by vruntime + latency_offset, wrapping.
#[inline]
pub fn latency_before(a: &Entity, b: &Entity) -> bool {
    let d = a
        .vruntime
        .wrapping_add(a.latency_offset as u64)
        .wrapping_sub(b.vruntime)
        .wrapping_sub(b.latency_offset as u64);
    (d as i64) < 0
}

impl Fair {
    /// `get_sleep_latency(idle)` (v12 1/8; in v6.2 the same arithmetic is inline in
    /// `place_entity()`): half a latency period with GENTLE_FAIR_SLEEPERS, but a SCHED_IDLE
    /// entity's sleeps are credited only against min_granularity, so that it cannot come
    /// back far enough left to take the CPU from normal tasks for long.
    #[inline]
    pub fn get_sleep_latency(&self, idle: bool) -> u64 {
        let thresh = if idle { self.cfg.min_granularity_ns } else { self.cfg.latency_ns };
        if self.cfg.feat.gentle_fair_sleepers {
            thresh >> 1
        } else {
            thresh
        }
    }

    /// `calc_latency_offset()` (v12 5/8): linear in latency nice, C division truncating
    /// toward zero. Computed once when the latency nice is set, from the tunables then.
    pub fn calc_latency_offset(&self, latency_nice: i32) -> i64 {
        (self.get_sleep_latency(false) as i64) * latency_nice as i64 / HALF_LATENCY_WIDTH
    }

    /// `get_latency_max()` (v12 1/8): the sleeper credit less one min_granularity, since a
    /// waker that fails to preempt may wait up to that long for the next tick. Unsigned, as
    /// in C: with a sleeper credit below min_granularity it wraps, as the kernel's would.
    #[inline]
    pub fn get_latency_max(&self) -> u64 {
        self.get_sleep_latency(false).wrapping_sub(self.cfg.min_granularity_ns)
    }

    /// `wakeup_latency_gran()` (v12 5/8), with the clamp switchable: `always` is v12,
    /// `relative` is the thread's 2nd change, `off` removes it.
    pub fn wakeup_latency_gran(&self, curr: u32, se: u32) -> i64 {
        let (curr_off, off) = (self.ents[curr as usize].latency_offset, self.ents[se as usize].latency_offset);
        // min_t(long, ..): the unsigned latency_max is read as a signed long.
        latency_gran(curr_off, off, self.get_latency_max() as i64, self.cfg.feat.latency_max_clamp_offset)
    }

    /// `__enqueue_latency()` (v12 8/8): only latency-sensitive entities, always at wakeup,
    /// otherwise only if they ran less than min_granularity since they were picked (they were
    /// preempted early, so they get a chance to run first in the next slice).
    pub fn enqueue_latency(&mut self, rq: u32, se: u32, flags: u32) {
        if !self.cfg.feat.latency_list {
            return;
        }
        let e = &self.ents[se as usize];
        if e.latency_offset >= 0 || e.latency_node.parent != rbtree::CLEARED {
            return;
        }
        if flags & ENQUEUE_WAKEUP == 0 {
            let delta_exec = e.sum_exec_runtime.wrapping_sub(e.prev_sum_exec_runtime);
            if delta_exec >= self.cfg.min_granularity_ns {
                return;
            }
        }
        let root = &mut self.cfs_rqs[rq as usize].latency_timeline;
        let mut acc = LatencyNodes(&mut self.ents);
        rbtree::rb_add_cached(root, se, &mut acc, |a: &LatencyNodes, x, y| {
            latency_before(&a.0[x as usize], &a.0[y as usize])
        });
    }

    /// `__dequeue_latency()` (v12 8/8): returns whether it was in the tree.
    pub fn dequeue_latency(&mut self, rq: u32, se: u32) -> bool {
        if self.ents[se as usize].latency_node.parent == rbtree::CLEARED {
            return false;
        }
        let root = &mut self.cfs_rqs[rq as usize].latency_timeline;
        let mut acc = LatencyNodes(&mut self.ents);
        rbtree::rb_erase_cached(root, se, &mut acc);
        self.ents[se as usize].latency_node = RbNode::CLEARED;
        true
    }

    /// `__pick_first_latency()` (v12 8/8).
    #[inline]
    pub fn pick_first_latency(&self, rq: u32) -> u32 {
        self.cfs_rqs[rq as usize].latency_timeline.leftmost
    }

    /// Entities in `latency_timeline`, leftmost first.
    pub fn latency_in_order(&mut self, rq: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut n = self.pick_first_latency(rq);
        while n != NIL {
            out.push(n);
            let acc = LatencyNodes(&mut self.ents);
            n = rbtree::rb_next(&acc, n);
        }
        out
    }
}

/// `wakeup_latency_gran()`'s arithmetic (v12 5/8) on the two entities' latency offsets: the
/// wakee's offset, relative to curr's when either is negative, clamped to `latency_max` as
/// `mode` says. The decision log's counterfactuals call it with other offsets.
pub fn latency_gran(curr_off: i64, mut off: i64, latency_max: i64, mode: ClampOffset) -> i64 {
    let relative = off < 0 || curr_off < 0;
    if relative {
        off -= curr_off;
    }
    match mode {
        ClampOffset::Always => off.min(latency_max),
        ClampOffset::Relative if relative => off.min(latency_max),
        ClampOffset::Relative | ClampOffset::Off => off,
    }
}

/// `wakeup_preempt_entity()`'s comparison as v12 writes it (variant "v12"): -1 when the wakee
/// is not `offset` ahead, else 1 when `vdiff` beats `offset + wakeup_gran` (clamped to
/// `latency_max` when the wakeup clamp is on), else 0.
pub fn v12_wakeup_verdict(vdiff: i64, offset: i64, wakeup_gran: i64, clamp: bool, latency_max: i64) -> i32 {
    if vdiff < offset {
        return -1;
    }
    // s64 + unsigned long: wrapping, then read back as s64.
    let mut gran = offset.wrapping_add(wakeup_gran);
    if clamp {
        gran = gran.min(latency_max);
    }
    i32::from(vdiff > gran)
}
