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

    // EEVDF (v6.6, v6.12); unused by the CFS policies.
    /// Virtual deadline: vruntime + the virtual slice at placement or at a new request.
    pub deadline: u64,
    /// Virtual lag `V - v` saved at dequeue (and, the RUN_TO_PARITY "HACK", a copy of the
    /// deadline while the entity is current).
    pub vlag: i64,
    /// Request size r_i in ns: the base slice, or a v6.12 custom slice.
    pub slice: u64,
    /// v6.12: the slice came from `sched_attr::sched_runtime` and is not refreshed.
    pub custom_slice: bool,
    /// v6.12 DELAY_DEQUEUE: asleep but still queued until it is picked or woken.
    pub sched_delayed: bool,
    /// v6.12 PLACE_REL_DEADLINE: `deadline` holds deadline - vruntime while off the queue.
    pub rel_deadline: bool,
    /// v6.18 `se->vprot`: the vruntime up to which curr is protected from a wakeup's pick
    /// (`set_protect_slice()`), replacing v6.12's vlag == deadline stash.
    pub vprot: u64,
    /// v6.6 augment: the earliest deadline in this entity's subtree of `tasks_timeline`.
    pub min_deadline: u64,
    /// v6.12 augments: the smallest vruntime and slice in this entity's subtree.
    pub min_vruntime: u64,
    pub min_slice: u64,
    /// v6.18.17 augment (6e3c0a4e1ad1): the largest slice in this entity's subtree. As in
    /// 6.18.44, `__enqueue_entity()` does not set it, so a leaf carries whatever it had when
    /// it was last recomputed; it starts at 0 (a kzalloc'd group entity's; a task's is copied
    /// from its parent, which the model does not have).
    pub max_slice: u64,
    /// Load tracking (`se->avg`: load, runnable and util).
    pub avg: crate::pelt::SchedAvg,
    /// A group entity's `runnable_weight`: the runnable tasks below it when last refreshed.
    pub runnable_weight: u32,
    /// `TASK_ON_RQ_MIGRATING`: dequeued by the load balancer to move to another CPU.
    pub migrating: bool,
    /// A task's group (`task_group(p)`), NIL for the root group.
    pub tg: u32,
    /// A task's policy (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE); Normal for group entities,
    /// which are never idle here (no cgroup `cpu.idle`).
    pub policy: crate::scenario::FairPolicy,
}

impl Entity {
    /// `__sched_fork()`: a fresh entity, off every runqueue.
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
            deadline: 0,
            vlag: 0,
            slice: 0,
            custom_slice: false,
            sched_delayed: false,
            rel_deadline: false,
            vprot: 0,
            min_deadline: 0,
            min_vruntime: 0,
            min_slice: 0,
            max_slice: 0,
            avg: crate::pelt::SchedAvg::default(),
            runnable_weight: 0,
            migrating: false,
            tg: NIL,
            policy: crate::scenario::FairPolicy::Normal,
        }
    }

    /// `se_is_idle()`: a SCHED_IDLE task (group entities never are: no cgroup `cpu.idle` here).
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.policy == crate::scenario::FairPolicy::Idle
    }

    #[inline]
    pub fn is_task(&self) -> bool {
        self.my_q == NIL
    }
}
