//! What the app draws of a runqueue at an instant (issue 8): the real red-black trees with
//! their colours and shape, each node's keys as the policy uses them, `curr` beside the tree
//! (it is not in it, as in the kernel), and, when asked for, the log of tree operations so
//! that inserts, erases and rotations can be animated. Read-only; nothing here schedules.

use crate::cfs::Fair;
use crate::eevdf::{self, Version};
use crate::entity::NIL;
use crate::rbtree::{self, RbAccess, RbNode, RbOp, RbShape};
use crate::weights::scale_load_down;

/// One entity as a tree node (or as curr).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    pub entity: u32,
    /// The task, or NIL for a group entity.
    pub task: u32,
    /// Weight, unscaled (1024 at nice 0).
    pub weight: u64,
    /// vruntime − min_vruntime: the `tasks_timeline` key under CFS and v6.6.
    pub vruntime_rel: i64,
    /// v12: vruntime + latency_offset − min_vruntime, the `latency_timeline` key.
    pub latency_key_rel: i64,
    pub in_latency_tree: bool,
    /// EEVDF: deadline − V (the v6.12 key), lag V − v, eligibility, slice, delayed.
    pub deadline_rel: i64,
    pub lag: i64,
    pub eligible: bool,
    pub slice: u64,
    pub delayed: bool,
    /// EEVDF augments: v6.6 min_deadline − V; v6.12 min_vruntime − min_vruntime.
    pub augment_rel: i64,
}

/// A CPU's root runqueue, ready to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RqView {
    pub cpu: u32,
    pub nr_running: u32,
    pub min_vruntime: u64,
    /// EEVDF: V, the zero-lag point.
    pub avg_vruntime: Option<u64>,
    pub curr: Option<NodeInfo>,
    /// `tasks_timeline`: shape (ids are entities) and the nodes' information, in order.
    pub tasks_timeline: RbShape,
    pub tasks_nodes: Vec<NodeInfo>,
    /// v12's `latency_timeline` (empty under the other policies).
    pub latency_timeline: RbShape,
}

struct Latency<'a>(&'a Fair);
impl RbAccess for Latency<'_> {
    fn node(&self, id: u32) -> &RbNode {
        &self.0.ents[id as usize].latency_node
    }
    fn node_mut(&mut self, _: u32) -> &mut RbNode {
        unreachable!("the view only reads")
    }
}

struct Run<'a>(&'a Fair);
impl RbAccess for Run<'_> {
    fn node(&self, id: u32) -> &RbNode {
        &self.0.ents[id as usize].run_node
    }
    fn node_mut(&mut self, _: u32) -> &mut RbNode {
        unreachable!("the view only reads")
    }
}

fn node_info(f: &Fair, rq: u32, se: u32, v: Option<u64>) -> NodeInfo {
    let e = &f.ents[se as usize];
    let min = f.cfs_rqs[rq as usize].min_vruntime;
    let rel = |x: u64, base: u64| x.wrapping_sub(base) as i64;
    let (deadline_rel, lag, eligible, augment_rel) = match (f.eevdf, v) {
        (Some(ver), Some(v)) => (
            rel(e.deadline, v),
            rel(v, e.vruntime),
            eevdf::avg::entity_eligible(f, rq, se),
            if ver == Version::V66 { rel(e.min_deadline, v) } else { rel(e.min_vruntime, min) },
        ),
        _ => (0, 0, true, 0),
    };
    NodeInfo {
        entity: se,
        task: if e.is_task() { se } else { NIL },
        weight: scale_load_down(e.load.weight),
        vruntime_rel: rel(e.vruntime, min),
        latency_key_rel: rel(e.vruntime, min).wrapping_add(e.latency_offset),
        in_latency_tree: e.latency_node.parent != rbtree::CLEARED,
        deadline_rel,
        lag,
        eligible,
        slice: e.slice,
        delayed: e.sched_delayed,
        augment_rel,
    }
}

/// The view of CPU `cpu`'s root runqueue.
pub fn rq_view(f: &Fair, cpu: u32) -> RqView {
    let rq = f.root_rq(cpu);
    let q = &f.cfs_rqs[rq as usize];
    let v = f.eevdf.map(|_| eevdf::avg::avg_vruntime(f, rq));
    let tasks_timeline = rbtree::shape(&q.tasks_timeline, &Run(f));
    let tasks_nodes = tasks_timeline.nodes.iter().map(|&(id, ..)| node_info(f, rq, id, v)).collect();
    let curr = (q.curr != NIL && f.ents[q.curr as usize].on_rq).then(|| node_info(f, rq, q.curr, v));
    RqView {
        cpu,
        nr_running: q.nr_running,
        min_vruntime: q.min_vruntime,
        avg_vruntime: v,
        curr,
        tasks_timeline,
        tasks_nodes,
        latency_timeline: rbtree::shape(&q.latency_timeline, &Latency(f)),
    }
}

impl Fair {
    /// Record every operation on CPU `cpu`'s trees from now on (for animation).
    pub fn log_tree_ops(&mut self, cpu: u32) {
        let rq = self.root_rq(cpu) as usize;
        let q = &mut self.cfs_rqs[rq];
        for t in [&mut q.tasks_timeline, &mut q.latency_timeline] {
            if t.log.is_none() {
                t.log = Some(Vec::new());
            }
        }
    }

    /// The operations recorded on CPU `cpu`'s `tasks_timeline` and `latency_timeline` since the
    /// last call.
    pub fn take_tree_ops(&mut self, cpu: u32) -> (Vec<RbOp>, Vec<RbOp>) {
        let rq = self.root_rq(cpu) as usize;
        let q = &mut self.cfs_rqs[rq];
        (q.tasks_timeline.take_log(), q.latency_timeline.take_log())
    }
}
