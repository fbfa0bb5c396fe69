//! `tasks_timeline` and `min_vruntime` (kernel/sched/fair.c v6.2: max_vruntime … __pick_next_entity).

use super::{CfsRq, Fair};
use crate::entity::{Entity, NIL};
use crate::rbtree::{self, RbAccess, RbNode};

/// `max_vruntime()` (v6.2): the later of two u64 vruntimes under wrapping comparison.
#[inline]
pub fn max_vruntime(max: u64, v: u64) -> u64 {
    if (v.wrapping_sub(max) as i64) > 0 {
        v
    } else {
        max
    }
}

/// `min_vruntime()` (v6.2).
#[inline]
pub fn min_vruntime(min: u64, v: u64) -> u64 {
    if (v.wrapping_sub(min) as i64) < 0 {
        v
    } else {
        min
    }
}

/// `entity_before()` (v6.2).
#[inline]
pub fn entity_before(a: &Entity, b: &Entity) -> bool {
    (a.vruntime.wrapping_sub(b.vruntime) as i64) < 0
}

/// The entity arena seen through `run_node`.
pub struct RunNodes<'a>(pub &'a mut [Entity]);

impl RbAccess for RunNodes<'_> {
    #[inline]
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].run_node
    }
    #[inline]
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].run_node
    }
}

impl Fair {
    /// `update_min_vruntime()` (v6.2).
    pub fn update_min_vruntime(&mut self, rq: u32) {
        let cfs_rq = &self.cfs_rqs[rq as usize];
        let mut curr = cfs_rq.curr;
        let mut vruntime = cfs_rq.min_vruntime;
        if curr != NIL {
            let c = &self.ents[curr as usize];
            if c.on_rq {
                vruntime = c.vruntime;
            } else {
                curr = NIL;
            }
        }
        let leftmost = cfs_rq.tasks_timeline.leftmost;
        if leftmost != NIL {
            let v = self.ents[leftmost as usize].vruntime;
            vruntime = if curr == NIL { v } else { min_vruntime(vruntime, v) };
        }
        let cfs_rq = &mut self.cfs_rqs[rq as usize];
        // Never gain time by being placed backwards.
        cfs_rq.min_vruntime = max_vruntime(cfs_rq.min_vruntime, vruntime);
    }

    /// `__enqueue_entity()` (v6.2): `rb_add_cached(.., __entity_less)`.
    pub fn enqueue_timeline(&mut self, rq: u32, se: u32) {
        let root = &mut self.cfs_rqs[rq as usize].tasks_timeline;
        let mut acc = RunNodes(&mut self.ents);
        rbtree::rb_add_cached(root, se, &mut acc, |a: &RunNodes, x, y| entity_before(&a.0[x as usize], &a.0[y as usize]));
    }

    /// `__dequeue_entity()` (v6.2).
    pub fn dequeue_timeline(&mut self, rq: u32, se: u32) {
        let root = &mut self.cfs_rqs[rq as usize].tasks_timeline;
        let mut acc = RunNodes(&mut self.ents);
        rbtree::rb_erase_cached(root, se, &mut acc);
    }

    /// `__pick_first_entity()` (v6.2): NIL when the tree is empty.
    #[inline]
    pub fn pick_first_entity(&self, rq: u32) -> u32 {
        self.cfs_rqs[rq as usize].tasks_timeline.leftmost
    }

    /// `__pick_next_entity()` (v6.2): the in-order successor in `tasks_timeline`, or NIL.
    pub fn pick_next_in_tree(&mut self, se: u32) -> u32 {
        let acc = RunNodes(&mut self.ents);
        rbtree::rb_next(&acc, se)
    }

    /// Entities queued in `tasks_timeline`, leftmost first (for views and tests).
    pub fn timeline_in_order(&mut self, rq: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut n = self.pick_first_entity(rq);
        while n != NIL {
            out.push(n);
            n = self.pick_next_in_tree(n);
        }
        out
    }

    #[inline]
    pub fn rq(&self, rq: u32) -> &CfsRq {
        &self.cfs_rqs[rq as usize]
    }
}
