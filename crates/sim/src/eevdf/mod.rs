//! The EEVDF policies: `eevdf-v6.6` (the first merge), `eevdf-v6.12` ("complete EEVDF":
//! deadline-keyed tree, custom slices, PREEMPT_SHORT, delayed dequeue) and `eevdf-v6.18`
//! (v6.12's code where nothing changed; `protect.rs` has what 6.13 … 6.18 changed: slice
//! protection, the wakeup check, reweight by placement, PREEMPT_LAZY's resched_curr_lazy).
//!
//! They share the engine, the entity arena and the cfs_rqs with the CFS policies; only the
//! fair-class hooks differ. The task-level hooks in `cfs::task_ops` (`enqueue_task_fair`,
//! `pick_next_task_fair`, …) hand over to the functions here when `Fair::eevdf` is set, so
//! the engine calls one set of names whatever the policy.
//!
//! Functions are free functions named exactly as in fair.c (`update_curr`, `place_entity`,
//! `pick_eevdf`), taking the `Fair` as the kernel takes `rq`/`cfs_rq` pointers; each says
//! which version it models. Where v6.6 and v6.12 differ, the v6.12 code is taken when
//! `Version::V612`, and the place says so.
//!
//! Files: `avg.rs` (avg_vruntime, eligibility, lag, min_vruntime), `tree.rs` (the augmented
//! `tasks_timeline` and `pick_eevdf`), `place.rs` (place_entity, update_deadline, reweight),
//! `entity_ops.rs` (update_curr … entity_tick), `task_ops.rs` (the class hooks), `protect.rs`
//! (v6.18's slice protection and wakeup check), `view.rs` (the per-entity state the app draws),
//! `explain.rs` (what the decision log adds).

pub mod avg;
pub mod entity_ops;
pub mod explain;
pub mod place;
pub mod protect;
pub mod task_ops;
pub mod tree;
pub mod view;

use crate::scenario::Policy;

/// Which EEVDF. Ordered: a later version has everything an earlier one's code paths test
/// for unless the place says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// v6.6.0: tree keyed by vruntime, augmented with min_deadline.
    V66,
    /// v6.12.0: tree keyed by deadline, augmented with min_vruntime and min_slice.
    V612,
    /// v6.18: v6.12's tree; slice protection (`vprot`), PICK_BUDDY, PREEMPT_LAZY.
    V618,
}

impl Version {
    pub fn of(p: Policy) -> Option<Version> {
        match p {
            Policy::EevdfV66 => Some(Version::V66),
            Policy::EevdfV612 => Some(Version::V612),
            Policy::EevdfV618 => Some(Version::V618),
            _ => None,
        }
    }
}

/// `sched_setattr()`'s clamp of `sched_runtime` for fair tasks (v6.12 `__setscheduler_params`):
/// 0.1 ms (HZ=1000 × 10) to 100 ms (HZ=100 / 10).
pub fn clamp_custom_slice(runtime_ns: u64) -> u64 {
    runtime_ns.clamp(100_000, 100_000_000)
}

/// Whether the fair class runs v6.12's code paths or later ones (the deadline-keyed tree,
/// custom slices, delayed dequeue).
#[inline]
pub fn since_v612(f: &crate::cfs::Fair) -> bool {
    f.eevdf.is_some_and(|v| v >= Version::V612)
}

/// Whether the fair class runs v6.18's code paths.
#[inline]
pub fn is_v618(f: &crate::cfs::Fair) -> bool {
    f.eevdf == Some(Version::V618)
}
