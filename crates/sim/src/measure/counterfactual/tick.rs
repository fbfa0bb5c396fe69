//! Tick checks with one thing changed.
//!
//! CFS / v12 `check_preempt_tick()` (v6.2, v12 7/8): curr's nice changes `sched_slice()`'s
//! share of the period; the vruntime comparison that may follow would read a vruntime
//! charged at the other weight, which the log does not have, so that case gives None.
//! v12's tick clamp only matters once the comparison is made.
//!
//! EEVDF `update_deadline()` (v6.6, v6.12): the request ends when vruntime reaches the
//! deadline, vruntime at the request's start plus `calc_delta_fair(slice)`; another slice
//! moves that deadline by the difference of the two virtual slices. (A request that began at
//! a fork's placement had half a slice, PLACE_DEADLINE_INITIAL; the log does not tell it.)

use super::{task_load, Change};
use crate::cfs::Fair;
use crate::explain::{Decision, Why};
use crate::weights::{calc_delta, calc_delta_fair, LoadWeight};

/// Whether `check_preempt_tick()` would have rescheduled curr.
pub(super) fn cfs_tick(f: &Fair, d: &Decision, change: Change) -> Option<bool> {
    let Why::CfsTick {
        delta_exec,
        ideal_runtime,
        delta,
        latency_max,
        compared,
        period,
        weight,
        rq_weight,
        min_gran,
        via_groups,
        ..
    } = d.why
    else {
        return None;
    };
    match change {
        Change::TickClamp(on) if f.v12 => {
            if !compared {
                // The clamp is read only in the vruntime comparison.
                return Some(d.outcome);
            }
            Some((delta as u64) > ideal_runtime || (on && (delta as u64) > latency_max))
        }
        Change::Nice(n) => {
            // A SCHED_IDLE curr keeps its weight whatever its nice; a task below a group
            // entity changes its group's share only through the group's load.
            if via_groups
                || crate::weights::scale_load_down(weight) == crate::weights::WEIGHT_IDLEPRIO
            {
                return None;
            }
            let w = LoadWeight::for_nice(n).weight;
            let mut rq = LoadWeight {
                weight: rq_weight - weight + w,
                inv_weight: 0,
            };
            let mut slice = calc_delta(period, w, &mut rq).max(min_gran);
            if f.cfg.feat.ideal_runtime_cap {
                slice = slice.min(f.cfg.latency_ns);
            }
            if delta_exec > slice {
                Some(true)
            } else if delta_exec < f.cfg.min_granularity_ns {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether the tick would have rescheduled curr had its request been made with `other`:
/// `update_deadline()` against the moved deadline, then v6.12's `did_preempt_short()` (the
/// protection follows the request, so only eligibility decides it). None when a reschedule
/// was already pending (often an update_curr() earlier in the instant that ended the request,
/// which another slice would also move), or when these do not give the recorded outcome with
/// the request's own slice (a group entity's request above curr ended).
pub(super) fn eevdf_tick(f: &Fair, d: &Decision, change: Change) -> Option<bool> {
    let Why::EevdfTick { vruntime_rel, deadline_rel, slice, weight, protected, eligible, pending, .. } = d.why else { return None };
    let Change::Slice(other) = change else { return None };
    if pending || f.eevdf == Some(crate::eevdf::Version::V618) {
        return None;
    }
    let lw = task_load(weight);
    let vslice = |s: u64| calc_delta_fair(s, &mut { lw }) as i64;
    let short = f.eevdf == Some(crate::eevdf::Version::V612) && f.cfg.feat.preempt_short && !protected && !eligible;
    let resched = |s: u64| {
        let deadline = deadline_rel.wrapping_sub(vslice(slice)).wrapping_add(vslice(s));
        vruntime_rel.wrapping_sub(deadline) >= 0 || short
    };
    (resched(slice) == d.outcome).then(|| resched(other))
}
