//! The EEVDF state of an entity and of a runqueue at any instant, for the app's views and
//! for tests: read-only, computed as the kernel would compute it at that moment.

use super::avg::{avg_vruntime, entity_eligible};
use crate::cfs::Fair;
use crate::entity::NIL;

/// One entity as EEVDF sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityState {
    pub vruntime: u64,
    /// V − v now (not clamped; the clamp applies when lag is saved at dequeue).
    pub lag: i64,
    pub deadline: u64,
    pub eligible: bool,
    pub slice: u64,
    pub custom_slice: bool,
    /// v6.12: asleep but still queued.
    pub delayed: bool,
    pub on_rq: bool,
}

/// One cfs_rq as EEVDF sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RqState {
    /// V, the weighted average vruntime (`avg_vruntime()`).
    pub avg_vruntime: u64,
    pub min_vruntime: u64,
    /// Σ w_i of the queued entities, curr included.
    pub load: u64,
    pub nr_running: u32,
}

/// The state of entity `se` (meaningful while it is queued; off the queue, `lag` is the
/// saved `vlag`).
pub fn entity_state(f: &Fair, se: u32) -> EntityState {
    let e = &f.ents[se as usize];
    let rq = e.cfs_rq;
    let (lag, eligible) = if e.on_rq {
        (avg_vruntime(f, rq).wrapping_sub(e.vruntime) as i64, entity_eligible(f, rq, se))
    } else {
        (e.vlag, false)
    };
    EntityState {
        vruntime: e.vruntime,
        lag,
        deadline: e.deadline,
        eligible,
        slice: e.slice,
        custom_slice: e.custom_slice,
        delayed: e.sched_delayed,
        on_rq: e.on_rq,
    }
}

/// The state of cfs_rq `rq`.
pub fn rq_state(f: &Fair, rq: u32) -> RqState {
    let q = &f.cfs_rqs[rq as usize];
    let mut load = q.avg_load as u64;
    if q.curr != NIL && f.ents[q.curr as usize].on_rq {
        load += crate::weights::scale_load_down(f.ents[q.curr as usize].load.weight);
    }
    RqState { avg_vruntime: avg_vruntime(f, rq), min_vruntime: q.min_vruntime, load, nr_running: q.nr_running }
}
