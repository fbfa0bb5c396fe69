//! What the decision log keeps of an EEVDF pick and wakeup beyond the kernel's own state:
//! which rule of `pick_next_entity()` / `pick_eevdf()` chose (v6.6, v6.12), what the tree
//! alone would have chosen, how many queued entities were eligible, and the earliest
//! eligible deadline among the entities a wakeup did not compare. Read-only, and only while
//! the log records.

use super::avg::{avg_vruntime, entity_eligible};
use super::tree::pick_eevdf;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::explain::{PickFrom, PickNote, NO_DEADLINE};

/// The queued entities of `rq` in tree order, curr (not in the tree) last.
fn for_each_queued(f: &mut Fair, rq: u32, mut each: impl FnMut(&Fair, u32)) {
    let mut n = f.cfs_rqs[rq as usize].tasks_timeline.leftmost;
    while n != NIL {
        each(f, n);
        n = f.pick_next_in_tree(n);
    }
    let curr = f.cfs_rqs[rq as usize].curr;
    if curr != NIL && f.ents[curr as usize].on_rq {
        each(f, curr);
    }
}

/// Note the pick of `se` by `pick_next_entity()` (v6.6 / v6.12); `buddy`: NEXT_BUDDY chose.
pub fn note_pick(f: &mut Fair, rq: u32, se: u32, buddy: bool) {
    let mut eligible = 0u32;
    for_each_queued(f, rq, |f, n| {
        eligible += u32::from(entity_eligible(f, rq, n))
    });
    let curr = f.cfs_rqs[rq as usize].curr;
    let feat = f.cfg.feat;
    let (from, instead) = if buddy {
        (PickFrom::NextBuddy, pick_eevdf(f, rq, NIL))
    } else if se == curr && super::is_v618(f) && super::protect::protect_slice(f, curr) {
        // v6.18: kept while protected (vprot); without it, the pick decides.
        let other = super::protect::pick_eevdf_v618(f, rq, false);
        (if other == se { PickFrom::EarliestDeadline } else { PickFrom::RunToParity }, other)
    } else if se == curr
        && (feat.run_to_parity || feat.respect_slice)
        && f.ents[curr as usize].vlag as u64 == f.ents[curr as usize].deadline
    {
        // Kept on the request it was picked with; without the rule, the search decides.
        f.cfg.feat.run_to_parity = false;
        f.cfg.feat.respect_slice = false;
        f.cfg.feat.run_to_parity_wakeup = false;
        let other = pick_eevdf(f, rq, NIL);
        f.cfg.feat = feat;
        (
            if other == se {
                PickFrom::EarliestDeadline
            } else {
                PickFrom::RunToParity
            },
            other,
        )
    } else {
        (PickFrom::EarliestDeadline, se)
    };
    let q = f.cfs_rqs[rq as usize].nr_running.min(u16::MAX as u32) as u16;
    f.pick_note = PickNote {
        from,
        instead: if instead == se { NIL } else { instead },
        queued: q,
        eligible_count: eligible.min(u16::MAX as u32) as u16,
    };
}

/// The earliest deadline relative to V among the eligible entities of `rq` other than
/// `a` and `b`, or `NO_DEADLINE`.
pub fn others_deadline_rel(f: &mut Fair, rq: u32, a: u32, b: u32) -> i64 {
    let v = avg_vruntime(f, rq);
    let mut best = NO_DEADLINE;
    for_each_queued(f, rq, |f, n| {
        if n != a && n != b && entity_eligible(f, rq, n) {
            best = best.min(f.ents[n as usize].deadline.wrapping_sub(v) as i64);
        }
    });
    best
}
