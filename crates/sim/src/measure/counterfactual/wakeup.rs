//! A CFS / v12 wakeup check with the wakee's nice or latency nice changed, or a clamp
//! switched: `wakeup_gran()`'s `__calc_delta()`, `wakeup_latency_gran()` and
//! `wakeup_preempt_entity()` on the recorded numbers. The wakee is asleep until the check,
//! and while asleep a change of its nice or latency nice moves neither its vruntime nor
//! curr's (v6.2 and v12 `reweight_entity()` off the runqueue only swap the weight).

use super::Change;
use crate::cfs::latency::{latency_gran, v12_wakeup_verdict};
use crate::cfs::Fair;
use crate::explain::{Decision, Why};
use crate::scenario::WakeupPreemptVariant;
use crate::weights::{calc_delta_fair, LoadWeight};

/// The verdict of `wakeup_preempt_entity()` (1 preempts, 0 within granularity, -1 not ahead)
/// had `change` been made before the wakeup; None when the decision is not a CFS/v12 wakeup
/// check, or when the recorded numbers cannot say: a nice change seen through group entities
/// (the group's weight follows at the enqueue), or the thread's min_vruntime variants (they
/// also read min_vruntime).
pub fn wakeup_verdict(f: &Fair, d: &Decision, change: Change) -> Option<i32> {
    let Why::CfsWakeup {
        vdiff,
        wakeup_gran,
        latency_max,
        via_groups,
        curr_offset,
        wakee_offset,
        ..
    } = d.why
    else {
        return None;
    };
    let feat = f.cfg.feat;
    let mut wakee_gran = wakeup_gran;
    let (mut wakee_off, mut wakeup_clamp, mut offset_clamp) = (
        wakee_offset,
        feat.latency_max_clamp_wakeup,
        feat.latency_max_clamp_offset,
    );
    match change {
        Change::Nice(n) => {
            if via_groups {
                return None;
            }
            wakee_gran =
                calc_delta_fair(f.cfg.wakeup_granularity_ns, &mut LoadWeight::for_nice(n)) as i64;
        }
        Change::LatencyNice(n) => wakee_off = f.calc_latency_offset(n),
        Change::WakeupClamp(on) => wakeup_clamp = on,
        Change::OffsetClamp(m) => offset_clamp = m,
        _ => return None,
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
    Some(v12_wakeup_verdict(
        vdiff,
        offset,
        wakee_gran,
        wakeup_clamp,
        latency_max,
    ))
}
