//! `struct sched_entity`: the per-entity scheduler state shared by every policy.
//!
//! Entities live in one arena (`Vec<Entity>`) and are named by their index. Task `i`'s entity
//! is entity `i`; group entities (task groups) come after the tasks. The two rb-tree nodes are
//! embedded, as in the kernel, so a tree insert or erase allocates nothing.

use crate::rbtree::RbNode;
use crate::weights::LoadWeight;

pub const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub struct Entity {
    pub load: LoadWeight,
    /// Node in `tasks_timeline`.
    pub run_node: RbNode,
    /// Node in `latency_timeline` (v12 8/8); "empty" (RB_CLEAR_NODE) when not in that tree.
    pub latency_node: RbNode,
    /// u64 with wrapping arithmetic; always compared through a signed difference.
    pub vruntime: u64,
    pub exec_start: u64,
    pub sum_exec_runtime: u64,
    pub prev_sum_exec_runtime: u64,
    pub on_rq: bool,
    /// v12: `calc_latency_offset(latency_prio)`, computed when the latency nice is set.
    pub latency_offset: i64,
    /// The cfs_rq this entity is (or was last) queued on: index into `Fair::cfs_rqs`.
    pub cfs_rq: u32,
    /// Parent group entity, NIL for an entity of a root cfs_rq.
    pub parent: u32,
    /// The cfs_rq this group entity owns, NIL for a task.
    pub my_q: u32,
    pub depth: u32,
}

impl Entity {
    /// `__sched_fork()` (v6.2 + v12): a fresh entity, off every runqueue.
    pub fn new(load: LoadWeight, cfs_rq: u32) -> Entity {
        Entity {
            load,
            run_node: RbNode::CLEARED,
            latency_node: RbNode::CLEARED,
            vruntime: 0,
            exec_start: 0,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            on_rq: false,
            latency_offset: 0,
            cfs_rq,
            parent: NIL,
            my_q: NIL,
            depth: 0,
        }
    }

    #[inline]
    pub fn is_task(&self) -> bool {
        self.my_q == NIL
    }
}
