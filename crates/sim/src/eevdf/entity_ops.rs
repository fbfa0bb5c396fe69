//! Entity-level operations under EEVDF (fair.c v6.6 / v6.12): update_curr, enqueue_entity,
//! dequeue_entity (with v6.12's delayed dequeue), set_next_entity, put_prev_entity,
//! entity_tick. There is no tick preemption check any more: a reschedule comes from
//! `update_deadline()` when curr has used up its request.

use super::avg::{entity_eligible, update_entity_lag, update_min_vruntime};
use super::place::{place_entity, update_deadline};
use super::tree::{dequeue_timeline, enqueue_timeline};
use super::Version;
use crate::cfs::entity_ops::dequeue_load_flags;
use crate::cfs::flags::*;
use crate::cfs::Fair;
use crate::pelt::{DO_ATTACH, UPDATE_TG};
use crate::entity::NIL;

/// `did_preempt_short()` (v6.12): PREEMPT_SHORT cancelled curr's run-to-parity protection
/// (vlag ≠ deadline) and curr has become ineligible.
fn did_preempt_short(f: &Fair, rq: u32, curr: u32) -> bool {
    if !f.cfg.feat.preempt_short {
        return false;
    }
    let e = &f.ents[curr as usize];
    if e.vlag as u64 == e.deadline {
        return false;
    }
    !entity_eligible(f, rq, curr)
}

/// `update_curr()` (v6.6; v6.12 adds the PREEMPT_SHORT check and moves the resched here;
/// v6.18 reschedules, lazily, once curr is past its protection `vprot`).
pub fn update_curr(f: &mut Fair, rq: u32) {
    let curr = f.cfs_rqs[rq as usize].curr;
    if curr == NIL || !f.update_curr_se(curr) {
        return;
    }
    let used_up = update_deadline(f, curr);
    update_min_vruntime(f, rq);
    if f.cfs_rqs[rq as usize].nr_running == 1 {
        return;
    }
    let resched = match f.eevdf {
        Some(Version::V612) => used_up || did_preempt_short(f, rq, curr),
        // v6.18: "if (resched || !protect_slice(curr))", and the request is a lazy one.
        Some(Version::V618) => used_up || !super::protect::protect_slice(f, curr),
        _ => used_up,
    };
    if resched {
        let cpu = f.cfs_rqs[rq as usize].cpu;
        if super::is_v618(f) {
            f.resched_curr_lazy(cpu, f.ctx);
        } else {
            f.resched_curr(cpu, f.ctx);
        }
        clear_buddies(f, rq, curr);
    }
}

/// `clear_buddies()` (v6.6, v6.12): only the next buddy is left under EEVDF.
pub fn clear_buddies(f: &mut Fair, rq: u32, se: u32) {
    if f.cfs_rqs[rq as usize].next == se {
        let mut s = se;
        while s != NIL {
            let q = f.ents[s as usize].cfs_rq as usize;
            if f.cfs_rqs[q].next != s {
                break;
            }
            f.cfs_rqs[q].next = NIL;
            s = f.ents[s as usize].parent;
        }
    }
}

fn account_entity_enqueue(f: &mut Fair, rq: u32, se: u32) {
    let w = f.ents[se as usize].load.weight;
    let q = &mut f.cfs_rqs[rq as usize];
    q.load.add(w);
    q.nr_running += 1;
}

fn account_entity_dequeue(f: &mut Fair, rq: u32, se: u32) {
    let w = f.ents[se as usize].load.weight;
    let q = &mut f.cfs_rqs[rq as usize];
    q.load.sub(w);
    q.nr_running -= 1;
}

/// `enqueue_entity()` (v6.6 = v6.12): every enqueue places the entity (wakeup, fork,
/// migration, restore); curr is placed before `update_curr()`, anyone else after.
pub fn enqueue_entity(f: &mut Fair, rq: u32, se: u32, flags: u32) {
    let is_curr = f.cfs_rqs[rq as usize].curr == se;
    if is_curr {
        place_entity(f, rq, se, flags);
    }
    update_curr(f, rq);
    // The entity is reweighted (and its lag with it) before it is placed.
    f.update_load_avg(rq, se, UPDATE_TG | DO_ATTACH);
    f.se_update_runnable(se);
    if f.cfg.feat.update_cfs_group_enqueue {
        f.update_cfs_group(se);
    }
    if !is_curr {
        place_entity(f, rq, se, flags);
    }
    account_entity_enqueue(f, rq, se);
    if flags & ENQUEUE_MIGRATED != 0 {
        f.ents[se as usize].exec_start = 0;
    }
    if !is_curr {
        enqueue_timeline(f, rq, se);
    }
    f.ents[se as usize].on_rq = true;
}

/// `finish_delayed_dequeue_entity()` (v6.12; 6.14+ through `clear_delayed()`).
fn finish_delayed_dequeue_entity(f: &mut Fair, se: u32) {
    let delay_zero = f.cfg.feat.delay_zero;
    clear_delayed(f, se);
    let e = &mut f.ents[se as usize];
    if delay_zero && e.vlag > 0 {
        e.vlag = 0;
    }
}

/// `dequeue_entity()` (v6.6; v6.12 returns false when it only marks the entity delayed: a
/// sleeping entity that is not eligible keeps competing until a pick reaches it).
pub fn dequeue_entity(f: &mut Fair, rq: u32, se: u32, flags: u32) -> bool {
    let sleep = flags & DEQUEUE_SLEEP != 0;
    let v612 = super::since_v612(f);
    update_curr(f, rq);
    // Before the delay (v6.12.6, 493afbd187c4): an entity that becomes delayed is no buddy
    // of any of its runqueues. 6.12.0 cleared only `cfs_rq->next == se` here, and a buddy
    // higher up could then be delayed; v6.6 clears at this same point in effect.
    clear_buddies(f, rq, se);
    if v612 && flags & DEQUEUE_DELAYED == 0 {
        debug_assert!(!(sleep && f.ents[se as usize].sched_delayed));
        if f.cfg.feat.delay_dequeue && sleep && !entity_eligible(f, rq, se) {
            f.update_load_avg(rq, se, 0);
            set_delayed(f, se);
            return false;
        }
    }
    let load_flags = dequeue_load_flags(f, se, flags);
    f.update_load_avg(rq, se, load_flags);
    f.se_update_runnable(se);
    update_entity_lag(f, rq, se);
    if v612 && f.cfg.feat.place_rel_deadline && !sleep {
        let e = &mut f.ents[se as usize];
        e.deadline = e.deadline.wrapping_sub(e.vruntime);
        e.rel_deadline = true;
    }
    if f.cfs_rqs[rq as usize].curr != se {
        dequeue_timeline(f, rq, se);
    }
    f.ents[se as usize].on_rq = false;
    account_entity_dequeue(f, rq, se);
    if f.cfg.feat.update_cfs_group_dequeue {
        f.update_cfs_group(se);
    }
    // Advance min_vruntime if se held it back, unless it is coming straight back (SAVE
    // without MOVE), where that would place it further than it started.
    if flags & (DEQUEUE_SAVE | DEQUEUE_MOVE) != DEQUEUE_SAVE {
        update_min_vruntime(f, rq);
    }
    if v612 && flags & DEQUEUE_DELAYED != 0 {
        finish_delayed_dequeue_entity(f, se);
    }
    true
}

/// `set_next_entity()` (v6.6 = v6.12): curr leaves the tree, and its deadline at the pick is
/// stashed in vlag (the RUN_TO_PARITY "HACK": vlag == deadline until it gets a new slice);
/// v6.18 sets `vprot` instead (`set_protect_slice()`), and since bcd74b2ffdd0 (6.18.17) only
/// at a pick (`first`), so a change of attributes does not renew curr's protection.
pub fn set_next_entity(f: &mut Fair, rq: u32, se: u32, first: bool) {
    clear_buddies(f, rq, se);
    if f.ents[se as usize].on_rq {
        dequeue_timeline(f, rq, se);
        f.update_load_avg(rq, se, UPDATE_TG);
        if super::is_v618(f) {
            if first {
                super::protect::set_protect_slice(f, rq, se);
            }
        } else {
            let e = &mut f.ents[se as usize];
            e.vlag = e.deadline as i64;
        }
    }
    f.cfs_rqs[rq as usize].curr = se;
    let now = f.now;
    let e = &mut f.ents[se as usize];
    e.exec_start = now;
    e.prev_sum_exec_runtime = e.sum_exec_runtime;
}

/// `put_prev_entity()` (v6.6 = v6.12): a still-queued curr goes back into the tree.
pub fn put_prev_entity(f: &mut Fair, rq: u32, prev: u32) {
    if f.ents[prev as usize].on_rq {
        update_curr(f, rq);
        enqueue_timeline(f, rq, prev);
        f.update_load_avg(rq, prev, 0);
    }
    f.cfs_rqs[rq as usize].curr = NIL;
}

/// `entity_tick()` (v6.6 = v6.12, no HRTICK): only accounting; `update_curr()` asks for the
/// reschedule when the request is used up.
pub fn entity_tick(f: &mut Fair, rq: u32, curr: u32) {
    update_curr(f, rq);
    f.update_load_avg(rq, curr, UPDATE_TG);
    f.update_cfs_group(curr);
}

/// `set_delayed()` (6.14+; v6.12 only sets the flag): a delayed task no longer counts in
/// `h_nr_runnable` on the runqueues above it.
pub fn set_delayed(f: &mut Fair, se: u32) {
    f.ents[se as usize].sched_delayed = true;
    count_runnable_above(f, se, false);
}

/// `clear_delayed()` (6.14+): the task counts in `h_nr_runnable` again.
pub fn clear_delayed(f: &mut Fair, se: u32) {
    f.ents[se as usize].sched_delayed = false;
    count_runnable_above(f, se, true);
}

/// The `for_each_sched_entity()` walk of `set_delayed()` and `clear_delayed()`: a task's
/// `h_nr_runnable` on every runqueue above it, counted in or out. A group entity changes
/// nothing: its tasks were counted out by their own dequeues.
fn count_runnable_above(f: &mut Fair, se: u32, runnable: bool) {
    if !f.ents[se as usize].is_task() {
        return;
    }
    let mut s = se;
    while s != NIL {
        let q = &mut f.cfs_rqs[f.ents[s as usize].cfs_rq as usize];
        if runnable {
            q.h_nr_runnable += 1;
        } else {
            q.h_nr_runnable -= 1;
        }
        s = f.ents[s as usize].parent;
    }
}
