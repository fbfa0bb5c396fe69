//! An EEVDF wakeup with one thing changed: `check_preempt_wakeup()` (v6.6) /
//! `check_preempt_wakeup_fair()` (v6.12) preempts when `pick_eevdf()` would now choose the
//! wakee. From the recorded numbers: curr kept by RUN_TO_PARITY (unless v6.12's
//! `do_preempt_short()` lifted that), else the earliest eligible virtual deadline among the
//! wakee, curr and the others. The wakee's slice only moves its deadline: it is placed (or
//! was, at its last request) at vruntime + `calc_delta_fair(slice)`, and its eligibility
//! and lag do not read the slice.

use super::{task_load, Change};
use crate::cfs::Fair;
use crate::eevdf::Version;
use crate::explain::{Decision, Why, NO_DEADLINE};
use crate::weights::calc_delta_fair;

/// Whether the wakee would have preempted curr; None on a tie of deadlines (the tree's
/// order among equal keys decides, which the log does not keep), under the never-merged
/// RESPECT_SLICE / RUN_TO_PARITY_WAKEUP rules, or for a change that does not apply.
pub(super) fn wakeup(f: &Fair, d: &Decision, change: Change) -> Option<bool> {
    let Why::EevdfWakeup {
        wakee_deadline_rel,
        wakee_eligible,
        curr_deadline_rel,
        curr_eligible,
        curr_protected,
        others_deadline_rel,
        tasks_compared,
        wakee_slice,
        curr_slice,
        wakee_weight,
        ..
    } = d.why
    else {
        return None;
    };
    let feat = f.cfg.feat;
    if feat.respect_slice || feat.run_to_parity_wakeup {
        return None;
    }
    let v612 = f.eevdf >= Some(Version::V612);
    let v618 = f.eevdf == Some(Version::V618);
    let (mut deadline, mut slice) = (wakee_deadline_rel, wakee_slice);
    let (mut run_to_parity, mut preempt_short) = (feat.run_to_parity, v612 && feat.preempt_short);
    match change {
        Change::Slice(s) if v612 && tasks_compared => {
            let lw = task_load(wakee_weight);
            let vslice = |x: u64| calc_delta_fair(x, &mut { lw }) as i64;
            deadline = deadline.wrapping_sub(vslice(slice)).wrapping_add(vslice(s));
            slice = s;
        }
        // v6.18 sizes curr's protection (vprot) with RUN_TO_PARITY when it is picked: switching
        // it at a wakeup would need the queue's slices then.
        Change::RunToParity(_) if v618 => return None,
        Change::RunToParity(on) => run_to_parity = on,
        Change::PreemptShort(on) if v612 => preempt_short = on,
        _ => return None,
    }
    // v6.12's do_preempt_short(): a shorter, eligible wakee ahead of curr (or curr not
    // eligible) cancels curr's protection; v6.18 picks without the protection for any wakee
    // with a shorter slice (9de74a9850b9), and protection no longer asks RUN_TO_PARITY.
    let short = if v618 {
        preempt_short && slice < curr_slice
    } else {
        preempt_short && slice < curr_slice && wakee_eligible && (deadline < curr_deadline_rel || !curr_eligible)
    };
    if (run_to_parity || v618) && curr_protected && !short && curr_eligible {
        return Some(false);
    }
    if !wakee_eligible {
        return Some(false);
    }
    if others_deadline_rel != NO_DEADLINE {
        if others_deadline_rel == deadline {
            return None;
        }
        if others_deadline_rel < deadline {
            return Some(false);
        }
    }
    if curr_eligible {
        if curr_deadline_rel == deadline {
            return None;
        }
        if curr_deadline_rel < deadline {
            return Some(false);
        }
    }
    Some(true)
}
