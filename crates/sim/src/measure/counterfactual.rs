//! What a recorded wakeup check would have decided with one thing changed: the wakee's nice or
//! latency nice, or one of v12's `get_latency_max()` clamps. Computed from the numbers the
//! check used (`Why::CfsWakeup`) and the run's tunables, with the kernel's own arithmetic
//! (`wakeup_gran()`'s `__calc_delta()`, `wakeup_latency_gran()`, `wakeup_preempt_entity()`),
//! so it holds at that decision from that state: the wakee is asleep until the check, and
//! while asleep a change of its nice or latency nice moves neither its vruntime nor curr's
//! (v6.2 and v12 `reweight_entity()` off the runqueue only swap the weight).

use crate::cfs::latency::{latency_gran, v12_wakeup_verdict};
use crate::cfs::Fair;
use crate::explain::{Decision, Why};
use crate::scenario::{ClampOffset, WakeupPreemptVariant};
use crate::weights::{calc_delta_fair, LoadWeight};
use serde::Serialize;

/// One change to try at a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "change", content = "value", rename_all = "snake_case")]
pub enum Change {
    /// The wakee at this nice.
    Nice(i32),
    /// The wakee at this latency nice (latency-nice-v12).
    LatencyNice(i32),
    /// `latency_max_clamp_wakeup` set so.
    WakeupClamp(bool),
    /// `latency_max_clamp_offset` set so.
    OffsetClamp(ClampOffset),
}

impl Change {
    /// In the scenario's words.
    pub fn label(&self) -> String {
        match self {
            Change::Nice(n) => format!("wakee at nice {n}"),
            Change::LatencyNice(n) => format!("wakee at latency nice {n}"),
            Change::WakeupClamp(on) => format!("latency_max_clamp_wakeup {}", if *on { "on" } else { "off" }),
            Change::OffsetClamp(m) => format!("latency_max_clamp_offset {m:?}").to_lowercase(),
        }
    }
}

/// The verdict of `wakeup_preempt_entity()` (1 preempts, 0 within granularity, -1 not ahead)
/// had `change` been made before the wakeup; None when the decision is not a CFS/v12 wakeup
/// check, or when the recorded numbers cannot say: a nice change seen through group entities
/// (the group's weight follows at the enqueue), or the thread's min_vruntime variants (they
/// also read min_vruntime).
pub fn wakeup_verdict(f: &Fair, d: &Decision, change: Change) -> Option<i32> {
    let Why::CfsWakeup { vdiff, wakeup_gran, latency_max, via_groups, curr_offset, wakee_offset, .. } = d.why else { return None };
    let feat = f.cfg.feat;
    let mut wakee_gran = wakeup_gran;
    let (mut wakee_off, mut wakeup_clamp, mut offset_clamp) = (wakee_offset, feat.latency_max_clamp_wakeup, feat.latency_max_clamp_offset);
    match change {
        Change::Nice(n) => {
            if via_groups {
                return None;
            }
            wakee_gran = calc_delta_fair(f.cfg.wakeup_granularity_ns, &mut LoadWeight::for_nice(n)) as i64;
        }
        Change::LatencyNice(n) => wakee_off = f.calc_latency_offset(n),
        Change::WakeupClamp(on) => wakeup_clamp = on,
        Change::OffsetClamp(m) => offset_clamp = m,
    }
    if !f.v12 {
        return match change {
            Change::Nice(_) => Some(crate::cfs::wakeup::v62_wakeup_verdict(vdiff, wakee_gran)),
            _ => None,
        };
    }
    if feat.wakeup_preempt_variant != WakeupPreemptVariant::V12 {
        return None;
    }
    let offset = latency_gran(curr_offset, wakee_off, latency_max, offset_clamp);
    Some(v12_wakeup_verdict(vdiff, offset, wakee_gran, wakeup_clamp, latency_max))
}

/// The changes the decision log offers under a wakeup check: the wakee at nice −20, 0 and
/// 19; under v12 at latency nice −20, 0 and 19, and each clamp the other way.
pub fn standard_changes(f: &Fair) -> Vec<Change> {
    let mut v = vec![Change::Nice(-20), Change::Nice(0), Change::Nice(19)];
    if f.v12 {
        v.extend([Change::LatencyNice(-20), Change::LatencyNice(0), Change::LatencyNice(19)]);
        v.push(Change::WakeupClamp(!f.cfg.feat.latency_max_clamp_wakeup));
        let other = if f.cfg.feat.latency_max_clamp_offset == ClampOffset::Off { ClampOffset::Always } else { ClampOffset::Off };
        v.push(Change::OffsetClamp(other));
    }
    v
}
