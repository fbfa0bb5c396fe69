//! The fair-class hooks under EEVDF (fair.c v6.6 / v6.12): enqueue_task_fair (with v6.12's
//! requeue of a delayed entity), dequeue_task_fair / dequeue_entities, pick_next_entity,
//! pick_next_task_fair, check_preempt_wakeup(_fair), task_tick_fair, task_fork_fair.

use super::avg::{cfs_rq_min_slice, entity_eligible, update_entity_lag};
use super::entity_ops::{dequeue_entity, enqueue_entity, entity_tick, update_curr};
use super::place::place_entity;
use super::tree::{dequeue_timeline, enqueue_timeline, entity_before, pick_eevdf};
use super::Version;
use crate::cfs::flags::*;
use crate::cfs::{Fair, ReschedCause};
use crate::entity::NIL;
use crate::pelt::UPDATE_TG;

/// `requeue_delayed_entity()` (v6.12): a delayed entity woken before a pick reached it stays
/// where it is; with DELAY_ZERO, one whose lag has turned positive is re-placed at zero lag.
/// There is no `update_curr()` on this path (ttwu_runnable → enqueue_task), so the lag is
/// measured against a V that still holds curr's vruntime as of its last update, as in v6.12.
pub fn requeue_delayed_entity(f: &mut Fair, se: u32) {
    let rq = f.ents[se as usize].cfs_rq;
    if !(f.ents[se as usize].sched_delayed && f.ents[se as usize].on_rq) {
        // The kernel's SCHED_WARN_ON(!se->on_rq): erasing it from a tree it is not in would
        // corrupt the tree, so the run stops here instead.
        f.set_fault(format!("requeue_delayed_entity: entity {se} is not a queued delayed entity"));
        return;
    }
    if f.cfg.feat.delay_zero {
        update_entity_lag(f, rq, se);
        if f.ents[se as usize].vlag > 0 {
            let is_curr = f.cfs_rqs[rq as usize].curr == se;
            f.cfs_rqs[rq as usize].nr_running -= 1;
            if !is_curr {
                dequeue_timeline(f, rq, se);
            }
            f.ents[se as usize].vlag = 0;
            place_entity(f, rq, se, 0);
            if !is_curr {
                enqueue_timeline(f, rq, se);
            }
            f.cfs_rqs[rq as usize].nr_running += 1;
        }
    }
    f.update_load_avg(rq, se, 0);
    super::entity_ops::clear_delayed(f, se);
}

/// `enqueue_task_fair()` (v6.6; v6.12 adds ENQUEUE_DELAYED and slice propagation).
pub fn enqueue_task_fair(f: &mut Fair, se: u32, mut flags: u32) {
    f.ctx = enqueue_cause(se, flags);
    let v612 = super::since_v612(f);
    if v612 && flags & ENQUEUE_DELAYED != 0 {
        requeue_delayed_entity(f, se);
        return;
    }
    let idle = u32::from(f.ents[se as usize].is_idle());
    // A delayed task put back without a wakeup (a setattr's DEQUEUE_SAVE / ENQUEUE_RESTORE)
    // stays delayed: it does not count as runnable (6.14+'s "task_new && se->sched_delayed").
    let hr = u32::from(!(flags & ENQUEUE_WAKEUP == 0 && f.ents[se as usize].sched_delayed));
    let mut s = se;
    let mut slice = 0;
    while s != NIL {
        if f.ents[s as usize].on_rq {
            if v612 && f.ents[s as usize].sched_delayed {
                requeue_delayed_entity(f, s);
            }
            break;
        }
        let q = f.ents[s as usize].cfs_rq;
        // A group entity runs with the shortest slice below it (v6.12).
        if v612 && slice != 0 {
            f.ents[s as usize].slice = slice;
            f.ents[s as usize].custom_slice = true;
        }
        enqueue_entity(f, q, s, flags);
        slice = cfs_rq_min_slice(f, q);
        f.cfs_rqs[q as usize].h_nr_running += 1;
        f.cfs_rqs[q as usize].h_nr_runnable += hr;
        f.cfs_rqs[q as usize].idle_h_nr_running += idle;
        flags = ENQUEUE_WAKEUP;
        s = f.ents[s as usize].parent;
    }
    let update_group = f.cfg.feat.update_cfs_group_enqueue;
    while s != NIL {
        let q = update_ancestor(f, s, &mut slice, update_group);
        f.cfs_rqs[q as usize].h_nr_running += 1;
        f.cfs_rqs[q as usize].h_nr_runnable += hr;
        f.cfs_rqs[q as usize].idle_h_nr_running += idle;
        s = f.ents[s as usize].parent;
    }
}

/// The second loop of `enqueue_task_fair()` and `dequeue_entities()`, for an ancestor that
/// stays queued: its load average and group weight (the tick's, or the switched call site's),
/// and in v6.12 the shortest slice below it. Returns the runqueue it is queued on.
fn update_ancestor(f: &mut Fair, s: u32, slice: &mut u64, update_group: bool) -> u32 {
    let q = f.ents[s as usize].cfs_rq;
    f.update_load_avg(q, s, UPDATE_TG);
    f.se_update_runnable(s);
    if update_group {
        f.update_cfs_group(s);
    }
    if super::since_v612(f) {
        f.ents[s as usize].slice = *slice;
        if super::is_v618(f) {
            super::protect::propagate_min_slice(f, s);
        }
        *slice = cfs_rq_min_slice(f, q);
    }
    q
}

fn enqueue_cause(se: u32, flags: u32) -> ReschedCause {
    if flags & (ENQUEUE_WAKEUP | ENQUEUE_DELAYED) != 0 {
        ReschedCause::Wakeup(se)
    } else if flags & ENQUEUE_MIGRATED != 0 {
        ReschedCause::Migrate(se)
    } else if flags & ENQUEUE_RESTORE != 0 {
        ReschedCause::Attr
    } else {
        ReschedCause::Fork(se)
    }
}

/// `dequeue_entities()` (v6.12; v6.6's `dequeue_task_fair()` is the same walk without the
/// delay). Returns false when the task's own entity was only marked delayed: it stays on
/// the runqueue, counted in nr_running and h_nr_running.
pub fn dequeue_entities(f: &mut Fair, se: u32, mut flags: u32) -> bool {
    let task_sleep = flags & DEQUEUE_SLEEP != 0;
    let task = f.ents[se as usize].is_task();
    let h = u32::from(task);
    let idle = h & u32::from(f.ents[se as usize].is_idle());
    // A delayed task left h_nr_runnable when it was delayed, unless this dequeue completes
    // the delay, whose clear_delayed() counts it back first (6.14+'s dequeue_entities()).
    let hr = h & u32::from(task_sleep || flags & DEQUEUE_DELAYED != 0 || !f.ents[se as usize].sched_delayed);
    // v6.12 starts a group entity's walk from its own queue's shortest slice; v6.18 starts
    // from 0 and takes the queue's where a dequeue stops at a delayed entity.
    let v618 = super::is_v618(f);
    let mut slice = if task || v618 { 0 } else { cfs_rq_min_slice(f, f.ents[se as usize].my_q) };
    let mut s = se;
    while s != NIL {
        let q = f.ents[s as usize].cfs_rq;
        if !dequeue_entity(f, q, s, flags) {
            if task && s == se {
                return false;
            }
            if v618 {
                slice = cfs_rq_min_slice(f, q);
            }
            break;
        }
        f.cfs_rqs[q as usize].h_nr_running -= h;
        f.cfs_rqs[q as usize].h_nr_runnable -= hr;
        f.cfs_rqs[q as usize].idle_h_nr_running -= idle;
        // Don't dequeue the parent if it has other entities besides us.
        if f.cfs_rqs[q as usize].load.weight != 0 {
            slice = cfs_rq_min_slice(f, q);
            s = f.ents[s as usize].parent;
            if task_sleep && s != NIL {
                f.set_next_buddy(s);
            }
            break;
        }
        flags |= DEQUEUE_SLEEP;
        flags &= !DEQUEUE_DELAYED;
        s = f.ents[s as usize].parent;
    }
    let update_group = f.cfg.feat.update_cfs_group_dequeue;
    while s != NIL {
        let q = update_ancestor(f, s, &mut slice, update_group);
        f.cfs_rqs[q as usize].h_nr_running -= h;
        f.cfs_rqs[q as usize].h_nr_runnable -= hr;
        f.cfs_rqs[q as usize].idle_h_nr_running -= idle;
        s = f.ents[s as usize].parent;
    }
    true
}

/// `pick_next_entity()` (v6.6; v6.12 completes the dequeue of a delayed pick and returns NIL
/// so that the caller picks again; v6.18.2 takes the next buddy here under PICK_BUDDY, and
/// 6.18.33 moved that into `pick_eevdf()`, `protect::pick_eevdf_buddy_v618`).
fn pick_next_entity(f: &mut Fair, rq: u32) -> u32 {
    let (se, buddy) = if super::is_v618(f) {
        super::protect::pick_eevdf_buddy_v618(f, rq, true)
    } else {
        let next = f.cfs_rqs[rq as usize].next;
        if f.cfg.feat.next_buddy && next != NIL && entity_eligible(f, rq, next) {
            (next, true)
        } else {
            (pick_eevdf(f, rq, NIL), false)
        }
    };
    if buddy {
        // "->next will never be delayed" (v6.12.6, 493afbd187c4): 6.12.0 WARNs here and
        // returns the sleeping buddy; the fix keeps delayed entities from being buddies.
        if f.ents[se as usize].sched_delayed {
            f.set_fault(format!("pick_next_entity: next buddy {se} is delayed"));
        }
        if f.log.is_some() {
            super::explain::note_pick(f, rq, se, true);
        }
        return se;
    }
    if f.log.is_some() {
        super::explain::note_pick(f, rq, se, false);
    }
    if f.ents[se as usize].sched_delayed {
        dequeue_entities(f, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
        return NIL;
    }
    se
}

/// `pick_task_fair()` (v6.12; the do-while of v6.6's `pick_next_task_fair()`): descend from
/// the root, starting over when a delayed entity was dequeued instead of picked.
fn pick_task_fair(f: &mut Fair, cpu: u32) -> u32 {
    let root = f.root_rq(cpu);
    // Each retry follows the dequeue of one delayed entity, so there are at most as many
    // retries as entities; more means the pick is not making progress.
    let mut retries = f.ents.len() + 1;
    'again: loop {
        if f.cfs_rqs[root as usize].nr_running == 0 || f.fault.is_some() {
            return NIL;
        }
        if retries == 0 {
            f.set_fault(format!("pick_task_fair: cpu {cpu} retried its pick more times than there are entities"));
            return NIL;
        }
        retries -= 1;
        let mut q = root;
        loop {
            let curr = f.cfs_rqs[q as usize].curr;
            if curr != NIL && f.ents[curr as usize].on_rq {
                update_curr(f, q);
            }
            let se = pick_next_entity(f, q);
            if se == NIL {
                continue 'again;
            }
            let my_q = f.ents[se as usize].my_q;
            if my_q == NIL {
                return se;
            }
            q = my_q;
        }
    }
}

/// `pick_next_task_fair()` (v6.12 structure; v6.6 picks the same way): pick with prev still
/// current, then put and set only where the two paths differ.
pub fn pick_next_task_fair(f: &mut Fair, cpu: u32, prev: u32) -> u32 {
    let se = pick_task_fair(f, cpu);
    if se == NIL {
        return NIL;
    }
    if prev == NIL {
        // The "simple" path: nothing to put back.
        f.set_next_task_fair(se, true);
        return se;
    }
    if se != prev {
        f.put_prev_set_next(prev, se);
    }
    se
}

/// `task_tick_fair()`: returns whether the CPU was asked to reschedule.
pub fn task_tick_fair(f: &mut Fair, se: u32) -> bool {
    static SITE: crate::explain::Site =
        crate::decision_site!("eevdf::task_ops::task_tick_fair", "entity_tick() → update_curr() → update_deadline(), fair.c v6.6 / v6.12 / v6.18");
    f.ctx = ReschedCause::Tick;
    // The deadline update_deadline() compares with, before a new request replaces it, and
    // what did_preempt_short() reads of it; a reschedule already asked for in this instant.
    let (deadline, slice) = (f.ents[se as usize].deadline, f.ents[se as usize].slice);
    let v618 = super::is_v618(f);
    let mut protected = f.ents[se as usize].vlag as u64 == deadline;
    let cpu = f.cfs_rqs[f.ents[se as usize].cfs_rq as usize].cpu;
    let pending = f.need_resched(cpu);
    let mut s = se;
    while s != NIL {
        let q = f.ents[s as usize].cfs_rq;
        entity_tick(f, q, s);
        s = f.ents[s as usize].parent;
    }
    if f.log.is_some() {
        let q = f.ents[se as usize].cfs_rq;
        let v = super::avg::avg_vruntime(f, q);
        let eligible = entity_eligible(f, q, se);
        if v618 {
            // v6.18's update_curr() reschedules once curr is past vprot.
            protected = super::protect::protect_slice(f, se);
        }
        let e = &f.ents[se as usize];
        let why = crate::explain::Why::EevdfTick {
            used_up: (e.vruntime.wrapping_sub(deadline) as i64) >= 0,
            vruntime_rel: e.vruntime.wrapping_sub(v) as i64,
            deadline_rel: deadline.wrapping_sub(v) as i64,
            slice,
            weight: e.load.weight,
            protected,
            eligible,
            pending,
            v618,
        };
        let d = crate::explain::Decision { at_ns: f.now, cpu, task: se, other: NIL, outcome: f.need_resched(cpu), why, site: &SITE };
        f.record(d);
    }
    f.need_resched(cpu)
}

/// `task_fork_fair()`: v6.6 charges the parent's cfs_rq and places the child with
/// ENQUEUE_INITIAL, but `wake_up_new_task()` enqueues without it and `enqueue_entity()`
/// places again, so the half-slice first deadline is lost (kept that way); v6.12 only sets
/// capacity. The enqueue that follows (`wake_up_new_task`) does the placement.
pub fn task_fork_fair(f: &mut Fair, se: u32) {
    f.ctx = ReschedCause::Fork(se);
    if f.eevdf == Some(Version::V66) {
        let q = f.ents[se as usize].cfs_rq;
        if f.cfs_rqs[q as usize].curr != NIL {
            update_curr(f, q);
        }
    }
}

/// The flags `wake_up_new_task()` enqueues a new task with: v6.12 passes ENQUEUE_INITIAL.
pub fn wake_up_new_task_flags(f: &Fair) -> u32 {
    if super::since_v612(f) {
        ENQUEUE_INITIAL
    } else {
        0
    }
}

/// `check_preempt_wakeup()` (v6.6) / `check_preempt_wakeup_fair()` (v6.12, v6.18): preempt
/// when the pick would now be the woken entity. v6.12 first lets a shorter-slice wakee cancel
/// curr's run-to-parity protection (PREEMPT_SHORT); v6.18 picks without curr's protection
/// for such a wakee (`protect::wakeup_pick_v618`), and its reschedule is a lazy one.
pub fn check_preempt_wakeup(f: &mut Fair, cpu: u32, curr: u32, p: u32, cause: ReschedCause) {
    static SITE: crate::explain::Site = crate::decision_site!(
        "eevdf::task_ops::check_preempt_wakeup",
        "check_preempt_wakeup() (v6.6) / check_preempt_wakeup_fair() (v6.12, v6.18) → pick_eevdf(), fair.c"
    );
    if curr == p {
        return;
    }
    f.ctx = cause;
    let fork = matches!(cause, ReschedCause::Fork(_));
    // v6.12.6 (493afbd187c4, "sched/fair: Fix NEXT_BUDDY"): a delayed task (reached here by
    // prio_changed_fair()) is never made the next buddy. 6.18.33 sets it after the slice
    // test instead (`protect::wakeup_pick_v618`).
    if f.cfg.feat.next_buddy && !fork && !f.ents[p as usize].sched_delayed && !super::is_v618(f) {
        f.set_next_buddy(p);
    }
    if f.need_resched(cpu) {
        return;
    }
    let normal = f.ents[p as usize].policy == crate::scenario::FairPolicy::Normal;
    let (se, pse) = if super::since_v612(f) {
        // v6.12: the feature first, then idle against non-idle at the matching level (group
        // entities are never idle here), then "BATCH and IDLE tasks do not preempt others".
        if !f.cfg.feat.wakeup_preemption {
            return;
        }
        let (se, pse) = f.find_matching_se(curr, p);
        let (cse_idle, pse_idle) = (f.ents[se as usize].is_idle(), f.ents[pse as usize].is_idle());
        if cse_idle && !pse_idle {
            if super::is_v618(f) {
                // v6.18 (f553741ac8c0): "don't give idle entity slice protection".
                super::protect::cancel_protect_slice(f, se);
                f.resched_curr_lazy(cpu, cause);
            } else {
                f.resched_curr(cpu, cause);
            }
            return;
        }
        if cse_idle != pse_idle || !normal {
            return;
        }
        (se, pse)
    } else {
        // v6.6: "Idle tasks are by definition preempted by non-idle tasks", then "Batch and
        // idle tasks do not preempt non-idle tasks (their preemption is driven by the tick)".
        if f.ents[curr as usize].is_idle() && !f.ents[p as usize].is_idle() {
            f.resched_curr(cpu, cause);
            return;
        }
        if !normal || !f.cfg.feat.wakeup_preemption {
            return;
        }
        f.find_matching_se(curr, p)
    };
    let q = f.ents[se as usize].cfs_rq;
    update_curr(f, q);
    let v618 = super::is_v618(f);
    let protected = if v618 {
        super::protect::protect_slice(f, se)
    } else {
        f.ents[se as usize].vlag as u64 == f.ents[se as usize].deadline
    };
    let mut short = false;
    let picked = if v618 {
        match super::protect::wakeup_pick_v618(f, q, se, pse, fork) {
            super::protect::WakeupAction::None => NIL,
            super::protect::WakeupAction::Picked { picked, short: s } => {
                short = s;
                if picked == pse && s {
                    super::protect::cancel_protect_slice(f, se);
                }
                picked
            }
        }
    } else {
        // The RESPECT_SLICE RFC moved this test into `pick_curr()`, which sees the wakee.
        if super::since_v612(f) && !f.cfg.feat.respect_slice && do_preempt_short(f, q, pse, se) {
            let e = &mut f.ents[se as usize];
            if e.vlag as u64 == e.deadline {
                e.vlag = e.deadline.wrapping_add(1) as i64;
                short = true;
            }
        }
        pick_eevdf(f, q, pse)
    };
    if picked == pse {
        if v618 {
            f.resched_curr_lazy(cpu, cause);
        } else {
            f.resched_curr(cpu, cause);
        }
    }
    if f.log.is_some() {
        let others_deadline_rel = super::explain::others_deadline_rel(f, q, se, pse);
        let v = super::avg::avg_vruntime(f, q);
        let rel = |x: u64| x.wrapping_sub(v) as i64;
        let (e, pe) = (&f.ents[se as usize], &f.ents[pse as usize]);
        let why = crate::explain::Why::EevdfWakeup {
            wakee_lag: v.wrapping_sub(pe.vruntime) as i64,
            wakee_deadline_rel: rel(pe.deadline),
            wakee_eligible: entity_eligible(f, q, pse),
            curr_deadline_rel: rel(e.deadline),
            curr_eligible: entity_eligible(f, q, se),
            curr_protected: protected,
            preempt_short: short,
            picked: if picked == NIL { NIL } else { f.task_of(picked) },
            others_deadline_rel,
            tasks_compared: se == curr && pse == p,
            wakee_slice: pe.slice,
            curr_slice: e.slice,
            wakee_weight: pe.load.weight,
        };
        let d = crate::explain::Decision { at_ns: f.now, cpu, task: p, other: curr, outcome: picked == pse, why, site: &SITE };
        f.record(d);
    }
}

/// `do_preempt_short()` (v6.12): the wakee asks for less than curr, is eligible, and either
/// has the earlier deadline or curr is no longer eligible.
fn do_preempt_short(f: &Fair, rq: u32, pse: u32, se: u32) -> bool {
    if !f.cfg.feat.preempt_short {
        return false;
    }
    let (pe, e) = (&f.ents[pse as usize], &f.ents[se as usize]);
    if pe.slice >= e.slice {
        return false;
    }
    if !entity_eligible(f, rq, pse) {
        return false;
    }
    if entity_before(Version::V612, pe, e) {
        return true;
    }
    !entity_eligible(f, rq, se)
}
