//! eevdf-v6.18: each change from v6.12 that the model takes, on a runqueue driven
//! by hand or a small scenario where it changes the outcome, the commit named. The expected
//! numbers come from fair.c v6.18's arithmetic, worked in the comments.

use fairground_sim::cfs::flags::*;
use fairground_sim::cfs::{Fair, ReschedCause};
use fairground_sim::eevdf::avg;
use fairground_sim::entity::{Entity, NIL};
use fairground_sim::parse_scenario;
use fairground_sim::report::Report;
use fairground_sim::scenario::{Features, Policy, Preemption, Tunables};
use fairground_sim::tunables::Config;
use fairground_sim::weights::LoadWeight;

const MS: u64 = 1_000_000;

/// One CPU at HZ=1000, base slice 3 ms unscaled (so `normalized_sysctl_sched_base_slice` is
/// 3 ms too).
fn fair(policy: Policy) -> Fair {
    let t = Tunables { tunable_scaling: Some(fairground_sim::scenario::Scaling::None), base_slice_ns: Some(3 * MS), ..Tunables::default() };
    Fair::new(Config::new(policy, 1, 1000, &t, &Features::default()), 8)
}

/// A nice-0 task with `slice` ns (a custom slice unless it is the base slice), not queued.
fn add(f: &mut Fair, slice: u64) -> u32 {
    let id = f.ents.len() as u32;
    let mut e = Entity::new(LoadWeight::for_nice(0), 0);
    e.slice = slice;
    e.custom_slice = slice != f.cfg.base_slice_ns;
    f.ents.push(e);
    id
}

fn run_for(f: &mut Fair, ns: u64) {
    f.now += ns;
}

/// 052c3d87c82e (6.17) "sched/fair: Limit run to parity to the min slice of enqueued
/// entities", with 0b9ca2dcabc3 "Always trigger resched at the end of a protected period":
/// A (3 ms slice) is picked beside B (1 ms custom slice). `set_protect_slice()` protects A
/// only to min(deadline_A, v_A + calc_delta_fair(1 ms)) = v_A + 1 ms (nice 0: exact), and
/// the tick that finds A past it reschedules, 2 ms before A's request ends. v6.12 keeps A
/// (RUN_TO_PARITY to its deadline) and asks for nothing at that tick.
#[test]
fn run_to_parity_is_limited_to_the_shortest_queued_slice() {
    for (policy, resched_at_1ms) in [(Policy::EevdfV618, true), (Policy::EevdfV612, false)] {
        let mut f = fair(policy);
        let b = add(&mut f, MS);
        let a = add(&mut f, 3 * MS);
        // B first, so that B runs its 1 ms request first and then A is the pick.
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        assert_eq!(f.ents[b as usize].vruntime, v0, "both placed at V with zero lag");
        assert_eq!(f.pick_next_task_fair(0, NIL), b, "{policy:?}: B's deadline v0 + 1 ms is the earliest");
        run_for(&mut f, MS);
        f.task_tick_fair(b);
        assert!(f.need_resched(0), "{policy:?}: B's request is used up");
        f.resched[0] = None;
        assert_eq!(f.pick_next_task_fair(0, b), a, "{policy:?}: B (v0 + 1 ms) is past V = v0 + 0.5 ms");
        if policy == Policy::EevdfV618 {
            assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(MS), "vprot = min(v0 + 3 ms, v0 + 1 ms)");
        }
        run_for(&mut f, MS);
        f.task_tick_fair(a);
        assert_eq!(f.need_resched(0), resched_at_1ms, "{policy:?}: A at v0 + 1 ms");
        if policy == Policy::EevdfV618 {
            // V = v0 + 1 ms for both; B's deadline v0 + 2 ms beats A's v0 + 3 ms.
            f.resched[0] = None;
            assert_eq!(f.pick_next_task_fair(0, a), b);
        }
    }
}

/// 74eec63661d4 (6.17) "sched/fair: Fix NO_RUN_TO_PARITY case": without RUN_TO_PARITY curr
/// is still protected for the unscaled base slice, `normalized_sysctl_sched_base_slice`
/// (here 0.7 ms, the 6.15 default, while the scaled slice on 2 CPUs is 1.4 ms).
#[test]
fn no_run_to_parity_protects_the_normalized_base_slice() {
    let feat = Features { run_to_parity: Some(false), ..Features::default() };
    let mut f = Fair::new(Config::new(Policy::EevdfV618, 2, 1000, &Tunables::default(), &feat), 4);
    assert_eq!((f.cfg.base_slice_ns, f.cfg.normalized_base_slice_ns), (1_400_000, 700_000));
    let a = add(&mut f, 1_400_000);
    let b = add(&mut f, 1_400_000);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    let v0 = f.ents[a as usize].vruntime;
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(700_000), "min(deadline v0 + 1.4 ms, v0 + 0.7 ms)");
}

/// 9de74a9850b9 (6.17) "sched/fair: Remove spurious shorter slice preemption" with
/// `update_protect_slice()`: a wakee with a shorter slice that does not win the pick (it is
/// not eligible) no longer leaves curr alone as in v6.12: curr's protection shrinks to the
/// queue's shortest slice from now.
///
/// A (3 ms) runs alone for 0.5 ms: v_A = v0 + 0.5 ms, vprot = deadline = v0 + 3 ms. B (1 ms
/// slice) wakes with vlag −1 ms: PLACE_LAG inflates it by (W + w)/W = 2048/1024, so
/// v_B = v_A + 2 ms = v0 + 2.5 ms; V = v0 + 1.5 ms, B is not eligible, the unprotected pick
/// is A, and vprot = min(v0 + 3 ms, v_A + 1 ms) = v0 + 1.5 ms. A tick 1 ms later finds A at
/// v0 + 1.5 ms, unprotected: reschedule. v6.12 reschedules only at A's deadline.
#[test]
fn a_shorter_slice_wakee_that_loses_the_pick_shortens_curr_protection() {
    for (policy, resched_after_1ms) in [(Policy::EevdfV618, true), (Policy::EevdfV612, false)] {
        let mut f = fair(policy);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, MS);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        assert_eq!(f.pick_next_task_fair(0, NIL), a);
        run_for(&mut f, MS / 2);
        f.ents[b as usize].vlag = -(MS as i64);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        assert_eq!(f.ents[b as usize].vruntime, v0.wrapping_add(5 * MS / 2), "{policy:?}");
        assert!(!avg::entity_eligible(&f, 0, b));
        f.check_preempt_wakeup(0, a, b, ReschedCause::Wakeup(b));
        assert!(!f.need_resched(0), "{policy:?}: B does not win the pick");
        if policy == Policy::EevdfV618 {
            assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(3 * MS / 2));
        }
        run_for(&mut f, MS);
        f.task_tick_fair(a);
        assert_eq!(f.need_resched(0), resched_after_1ms, "{policy:?}");
    }
}

/// v6.18's check_preempt_wakeup_fair(): a shorter-slice wakee that wins the unprotected
/// pick preempts and cancels curr's protection (vprot = vruntime); f553741ac8c0 (6.15)
/// "sched: Cancel the slice protection of the idle entity" does the same for a SCHED_IDLE
/// curr woken over by a normal task.
#[test]
fn a_winning_shorter_slice_wakee_cancels_curr_protection() {
    let mut f = fair(Policy::EevdfV618);
    let a = add(&mut f, 3 * MS);
    let b = add(&mut f, MS);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    run_for(&mut f, MS / 2);
    // B with zero lag: placed at V = v_A, deadline v_A + 1 ms < A's v0 + 3 ms.
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    f.check_preempt_wakeup(0, a, b, ReschedCause::Wakeup(b));
    assert!(f.need_resched(0));
    assert_eq!(f.ents[a as usize].vprot, f.ents[a as usize].vruntime);

    let mut f = fair(Policy::EevdfV618);
    let a = add(&mut f, 3 * MS);
    let b = add(&mut f, 3 * MS);
    f.ents[a as usize].policy = fairground_sim::scenario::FairPolicy::Idle;
    f.ents[a as usize].load = LoadWeight::idle();
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    run_for(&mut f, MS / 2);
    assert!(fairground_sim::eevdf::protect::protect_slice(&f, a));
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    f.check_preempt_wakeup(0, a, b, ReschedCause::Wakeup(b));
    assert!(f.need_resched(0));
    assert!(!fairground_sim::eevdf::protect::protect_slice(&f, a), "idle curr keeps no protection");
}

/// 6d71a9c61604 (6.14) "sched/fair: Fix EEVDF entity placement bug causing scheduling lag":
/// `reweight_entity()` scales a relative deadline too, `div_s64(deadline * w, w')`. A task
/// off its runqueue after a non-sleep dequeue (PLACE_REL_DEADLINE: deadline holds 3 ms,
/// relative) goes from nice 0 (1024 << 10 = 1 048 576) to nice 5 (335 << 10 = 343 040):
/// vlag 300 000 → 300 000 · 1 048 576 / 343 040 = 917 014 (truncated), deadline
/// 3 000 000 → 9 170 149. v6.12 scales vlag only.
#[test]
fn reweight_scales_the_relative_deadline() {
    for (policy, deadline) in [(Policy::EevdfV618, 9_170_149), (Policy::EevdfV612, 3 * MS)] {
        let mut f = fair(policy);
        let a = add(&mut f, 3 * MS);
        let e = &mut f.ents[a as usize];
        e.vlag = 300_000;
        e.deadline = 3 * MS;
        e.rel_deadline = true;
        f.reweight_entity(0, a, LoadWeight::for_nice(5).weight);
        assert_eq!((f.ents[a as usize].vlag, f.ents[a as usize].deadline), (917_014, deadline), "{policy:?}");
    }
}

/// The same commit, for a queued entity: v6.18 takes its lag (clamped, scaled by w/w') and
/// relative deadline, and places it again with `place_entity()` and PLACE_LAG's (W + w')/W.
/// B (nice 0, queued, v0 + 1 ms) beside curr A (nice 0, v0 + 2 ms): V = v0 + 1.5 ms, lag
/// 0.5 ms. To nice −5 (3121 << 10 = 3 195 904): vlag = 500 000 · 1 048 576 / 3 195 904 =
/// 164 049.97…, truncated to 164 049; without B the sums hold only A, so V = v0 + 2 ms and
/// W = 1024, and the lag is inflated to 164 049 · (1024 + 3121) / 1024 = 679 983 105 / 1024 =
/// 664 046.0009…, truncated to 664 046; v_B = v0 + 2 ms − 664 046.
#[test]
fn reweight_of_a_queued_entity_places_it_again() {
    let mut f = fair(Policy::EevdfV618);
    let b = add(&mut f, 3 * MS);
    let a = add(&mut f, 3 * MS);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    let v0 = f.ents[a as usize].vruntime;
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    run_for(&mut f, MS);
    f.ents[b as usize].vlag = 0;
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    assert_eq!(f.ents[b as usize].vruntime, v0.wrapping_add(MS));
    run_for(&mut f, MS);
    f.reweight_entity(0, b, LoadWeight::for_nice(-5).weight);
    assert_eq!(f.ents[b as usize].vlag, 164_049);
    assert_eq!(f.ents[b as usize].vruntime, v0.wrapping_add(2 * MS - 664_046));
}

/// 2a77e4be12cb (6.14) "sched/fair: Untangle NEXT_BUDDY and pick_next_task()": the next
/// buddy (set by a cgroup dequeue or NEXT_BUDDY) is taken under PICK_BUDDY, on by default;
/// v6.12 took it only under NEXT_BUDDY, off by default.
#[test]
fn pick_buddy_takes_the_next_buddy_without_next_buddy() {
    for (policy, feat, want_buddy) in [
        (Policy::EevdfV618, Features::default(), true),
        (Policy::EevdfV618, Features { pick_buddy: Some(false), ..Features::default() }, false),
        (Policy::EevdfV612, Features::default(), false),
    ] {
        let t = Tunables { tunable_scaling: Some(fairground_sim::scenario::Scaling::None), base_slice_ns: Some(3 * MS), ..Tunables::default() };
        let mut f = Fair::new(Config::new(policy, 1, 1000, &t, &feat), 4);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, 3 * MS);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        // Both eligible at V; a is the EEVDF pick (inserted first on equal deadlines).
        f.set_next_buddy(b);
        let got = f.pick_next_task_fair(0, NIL);
        assert_eq!(got, if want_buddy { b } else { a }, "{policy:?} {feat:?}");
    }
}

/// 2ae891b82695 (6.15) "sched: Reduce the default slice to avoid tasks getting an extra
/// tick": 0.70 ms, scaled by 1 + ilog2(cpus).
#[test]
fn default_base_slice_is_0_7_ms() {
    for (cpus, want) in [(1, 700_000), (2, 1_400_000), (8, 2_800_000)] {
        assert_eq!(Config::new(Policy::EevdfV618, cpus, 250, &Tunables::default(), &Features::default()).base_slice_ns, want);
    }
    assert_eq!(Config::new(Policy::EevdfV612, 1, 250, &Tunables::default(), &Features::default()).base_slice_ns, 750_000);
}

// ---- the stable changes after 6.18.2 that this project's host (6.18.44) has ------------------

/// 6e3c0a4e1ad1 "sched/fair: Fix lag clamp" (6.18.17): `update_entity_lag()` clamps to
/// calc_delta_fair(cfs_rq_max_slice() + TICK_NSEC), not max(2·slice, TICK_NSEC). A (3 ms) runs
/// while B (0.1 ms custom slice) and C (10 ms) wait at v0: after 15 ms, v_A = v0 + 15 ms and
/// V = v0 + 5 ms, so B's lag is 5 ms when it sleeps. v6.12 clamps it to max(0.2 ms, 1 ms) =
/// 1 ms. 6.18.44 reads the longest slice as max(curr's 3 ms, the root's max_slice); B is the
/// root and C its right child (a later deadline), and as 6.18.44's `__enqueue_entity()` does
/// not set `max_slice` (upstream's 9a8bc9bb4c3f does), C arrived with its stale 0, so
/// B's max_slice is max(0.1 ms, 0) and the clamp is 3 ms + 1 ms = 4 ms, not C's 10 ms + 1 ms.
#[test]
fn lag_clamp_is_the_longest_queued_slice_plus_a_tick() {
    for (policy, vlag) in [(Policy::EevdfV618, 4 * MS as i64), (Policy::EevdfV612, MS as i64)] {
        let mut f = fair(policy);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, MS / 10);
        let c = add(&mut f, 10 * MS);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        assert_eq!(f.pick_next_task_fair(0, NIL), a);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(c, ENQUEUE_WAKEUP);
        assert_eq!((f.ents[b as usize].vruntime, f.ents[c as usize].vruntime), (v0, v0), "{policy:?}");
        if policy == Policy::EevdfV618 {
            assert_eq!(avg::cfs_rq_max_slice(&f, 0), 3 * MS, "C's 10 ms is not seen");
        }
        run_for(&mut f, 15 * MS);
        assert!(f.dequeue_task_fair(b, DEQUEUE_SLEEP), "B is eligible: no delay");
        assert_eq!(f.ents[b as usize].vlag, vlag, "{policy:?}");
    }
}

/// 79f3f9bedd14 "sched/eevdf: Fix min_vruntime vs avg_vruntime" (6.18.4) and b3d99f43c72b
/// "sched/fair: Fix zero_vruntime tracking" (6.18.17): the sums' base is zero_vruntime, which
/// `avg_vruntime()` moves to V at each placement, lag update and new request, instead of
/// min_vruntime. A runs 2 ms from v0 beside B at v0; placing C computes V = (2 ms · 1024 +
/// 0 · 1024) / 2048 = v0 + 1 ms, and the base moves there. v6.12's min_vruntime stays at the
/// smallest vruntime, B's v0.
#[test]
fn the_sums_base_follows_v() {
    for (policy, base) in [(Policy::EevdfV618, MS), (Policy::EevdfV612, 0)] {
        let mut f = fair(policy);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, 3 * MS);
        let c = add(&mut f, 3 * MS);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        assert_eq!(f.pick_next_task_fair(0, NIL), a);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        run_for(&mut f, 2 * MS);
        f.enqueue_task_fair(c, ENQUEUE_WAKEUP);
        assert_eq!(f.ents[c as usize].vruntime, v0.wrapping_add(MS), "{policy:?}");
        assert_eq!(f.cfs_rqs[0].min_vruntime, v0.wrapping_add(base), "{policy:?}");
        assert_eq!(avg::avg_vruntime(&f, 0), v0.wrapping_add(MS), "{policy:?}: the same V either way");
    }
}

/// e837456fdca8 "sched/fair: Reimplement NEXT_BUDDY to align with EEVDF goals" (6.18.33): a
/// forked task preempts only through PREEMPT_SHORT. A and B at v0; A runs 2 ms, so V = v0 + 1 ms
/// and A is not eligible. C is forked (ENQUEUE_INITIAL: half a vslice) at V, deadline
/// v0 + 2.5 ms, earlier than B's v0 + 3 ms: v6.12 preempts, 6.18.44 returns before the pick.
/// With a 1 ms slice C is shorter than A and still preempts (deadline v0 + 1.5 ms).
#[test]
fn a_fork_preempts_only_with_a_shorter_slice() {
    for (policy, slice, preempts) in [(Policy::EevdfV618, 3 * MS, false), (Policy::EevdfV618, MS, true), (Policy::EevdfV612, 3 * MS, true)] {
        let mut f = fair(policy);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, 3 * MS);
        let c = add(&mut f, slice);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        assert_eq!(f.pick_next_task_fair(0, NIL), a);
        run_for(&mut f, 2 * MS);
        f.enqueue_task_fair(c, ENQUEUE_INITIAL);
        assert_eq!(f.ents[c as usize].deadline, v0.wrapping_add(MS + slice / 2), "{policy:?}");
        f.check_preempt_wakeup(0, a, c, ReschedCause::Fork(c));
        assert_eq!(f.need_resched(0), preempts, "{policy:?} slice {slice}");
    }
}

/// "sched/fair: Fix wakeup_preempt_fair() vs delayed dequeue" (6.18.33): the wakeup's pick is
/// `pick_next_entity()`, which completes the dequeue of a delayed entity it reaches and picks
/// again. X runs 1 ms from v0 beside A (V = v0 + 0.5 ms) and sleeps ineligible: delayed. A
/// runs 2 ms: V = (v0 + 1 ms + v0 + 2 ms) / 2 = v0 + 1.5 ms, so X is eligible again, with the
/// earliest deadline (v0 + 3 ms) and A is not. W wakes at V, deadline v0 + 4.5 ms. The pick
/// reaches X: 6.18.44 dequeues it (DELAY_ZERO: its 0.5 ms lag is dropped), picks again and
/// finds W, which preempts; v6.12 (and 6.18.2) stop at X and W waits.
#[test]
fn a_wakeup_pick_that_reaches_a_delayed_entity_dequeues_it_and_picks_again() {
    for (policy, preempts) in [(Policy::EevdfV618, true), (Policy::EevdfV612, false)] {
        let mut f = fair(policy);
        let x = add(&mut f, 3 * MS);
        let a = add(&mut f, 3 * MS);
        let w = add(&mut f, 3 * MS);
        f.enqueue_task_fair(x, ENQUEUE_WAKEUP);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[x as usize].vruntime;
        assert_eq!(f.pick_next_task_fair(0, NIL), x);
        run_for(&mut f, MS);
        assert!(!f.dequeue_task_fair(x, DEQUEUE_SLEEP), "{policy:?}: X sleeps ineligible: delayed");
        assert_eq!(f.pick_next_task_fair(0, x), a);
        run_for(&mut f, 2 * MS);
        f.enqueue_task_fair(w, ENQUEUE_WAKEUP);
        assert_eq!(f.ents[w as usize].deadline, v0.wrapping_add(9 * MS / 2), "{policy:?}");
        f.check_preempt_wakeup(0, a, w, ReschedCause::Wakeup(w));
        assert_eq!(f.need_resched(0), preempts, "{policy:?}");
        assert_eq!(f.ents[x as usize].on_rq, !preempts, "{policy:?}: X dequeued by the wakeup's pick");
        if preempts {
            assert_eq!(f.ents[x as usize].vlag, 0);
        }
    }
}

/// e837456fdca8 (6.18.33): a wakee that does not win the pick limits curr's protection to the
/// shortest queued slice whatever its own slice (6.18.2 did it only for a shorter wakee). A
/// (3 ms) is picked beside C (3 ms): vprot = its deadline, v0 + 3 ms. After 0.5 ms, B (1 ms)
/// is queued without a wakeup check and D (3 ms, lag −1 ms, so not eligible) wakes: the pick
/// is B, and A's vprot becomes min(v0 + 3 ms, v0 + 0.5 ms + 1 ms). The tick at v0 + 1.6 ms
/// finds A unprotected and reschedules; with vprot at v0 + 3 ms it would not.
#[test]
fn a_wakee_that_loses_limits_curr_protection_whatever_its_slice() {
    let mut f = fair(Policy::EevdfV618);
    let a = add(&mut f, 3 * MS);
    let c = add(&mut f, 3 * MS);
    let b = add(&mut f, MS);
    let d = add(&mut f, 3 * MS);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    f.enqueue_task_fair(c, ENQUEUE_WAKEUP);
    let v0 = f.ents[a as usize].vruntime;
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(3 * MS));
    run_for(&mut f, MS / 2);
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    f.ents[d as usize].vlag = -(MS as i64);
    f.enqueue_task_fair(d, ENQUEUE_WAKEUP);
    f.check_preempt_wakeup(0, a, d, ReschedCause::Wakeup(d));
    assert!(!f.need_resched(0), "B, not D, is the pick");
    assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(3 * MS / 2));
    run_for(&mut f, 11 * MS / 10);
    f.task_tick_fair(a);
    assert!(f.need_resched(0));
}

/// bcd74b2ffdd0 "sched/fair: Only set slice protection at pick time" (6.18.17): making curr
/// current again after a change of attributes (`set_next_task()`, not first) keeps its
/// protection. A (3 ms) is picked beside B (1 ms, lag −2 ms: not eligible), so vprot =
/// min(v0 + 3 ms, v0 + 1 ms); 0.5 ms later a put/set without a pick leaves it at v0 + 1 ms,
/// where a pick's set (6.18.2 set it every time) gives min(v0 + 3 ms, v0 + 0.5 ms + 1 ms).
#[test]
fn protection_is_set_at_a_pick_only() {
    for (first, vprot) in [(false, MS), (true, 3 * MS / 2)] {
        let mut f = fair(Policy::EevdfV618);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, MS);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        let v0 = f.ents[a as usize].vruntime;
        f.ents[b as usize].vlag = -2 * MS as i64;
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        assert_eq!(f.pick_next_task_fair(0, NIL), a);
        assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(MS));
        run_for(&mut f, MS / 2);
        f.put_prev_task_fair(a);
        f.set_next_task_fair(a, first);
        assert_eq!(f.ents[a as usize].vprot, v0.wrapping_add(vprot), "first {first}");
    }
}

/// ff38424030f9 "sched/eevdf: Update se->vprot in reweight_entity()" (6.18.17): curr's
/// remaining protection is kept as a distance from its vruntime and scaled like the deadline.
/// A (nice 0) has 0.5 ms of protection left when it goes to nice 5 (335 << 10 = 343 040):
/// 500 000 · 1 048 576 / 343 040 = 1 528 358.2…, truncated to 1 528 358 past its new vruntime.
#[test]
fn reweight_keeps_curr_protection_scaled() {
    let mut f = fair(Policy::EevdfV618);
    let a = add(&mut f, 3 * MS);
    let b = add(&mut f, MS);
    f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
    f.ents[b as usize].vlag = -2 * MS as i64;
    f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
    assert_eq!(f.pick_next_task_fair(0, NIL), a);
    run_for(&mut f, MS / 2);
    f.reweight_entity(0, a, LoadWeight::for_nice(5).weight);
    let e = &f.ents[a as usize];
    assert_eq!(e.vprot.wrapping_sub(e.vruntime), 1_528_358);
}

// ---- the preemption model ------------------------------------------------------------------

fn run(text: &str) -> Report {
    fairground_sim::run_text(text, &fairground_sim::Limits::NATIVE).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn scenario(policy: &str, preemption: &str, cpus: u32, tasks: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "t", "seed": 5, "duration_ms": 2000,
            "machine": {{ "cpus": {cpus}, "hz": 250, "preemption": "{preemption}" }},
            "scheduler": {{ "policy": "{policy}" }},
            "tasks": [ {tasks} ] }}"#
    )
}

#[test]
fn lazy_is_refused_where_the_kernel_has_no_preempt_lazy() {
    let tasks = r#"{ "name": "h", "behavior": { "kind": "hog" } }"#;
    for policy in ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"] {
        let e = parse_scenario(&scenario(policy, "lazy", 1, tasks)).expect_err(policy);
        assert_eq!(e.path, "machine.preemption", "{policy}");
        assert!(e.message.contains("PREEMPT_LAZY") && e.message.contains(policy), "{policy}: {}", e.message);
        for ok in ["none", "voluntary", "full"] {
            parse_scenario(&scenario(policy, ok, 1, tasks)).unwrap_or_else(|e| panic!("{policy} {ok}: {e}"));
        }
    }
    let v = parse_scenario(&scenario("eevdf-v6.18", "lazy", 1, tasks)).expect("lazy under eevdf-v6.18");
    assert_eq!(v.scenario.machine.preemption, Preemption::Lazy);
    let back = fairground_sim::scenario::to_json(&v.scenario);
    assert_eq!(back["machine"]["preemption"], "lazy");
    let full = parse_scenario(&scenario("eevdf-v6.18", "full", 1, tasks)).unwrap();
    assert!(fairground_sim::scenario::to_json(&full.scenario)["machine"].get("preemption").is_none(), "full is the default");
}

/// What the fair class sees of none, voluntary and full is the same: every task here runs in
/// user mode, and a reschedule (TIF_NEED_RESCHED, with its IPI) is acted on at the return to
/// user mode whatever the model. On one CPU every wakeup is local, so lazy is the same too.
#[test]
fn preemption_models_agree_where_every_wakeup_is_local() {
    let tasks = r#"{ "name": "hog", "count": 2, "behavior": { "kind": "hog" } },
                   { "name": "cyc", "slice_us": 100, "behavior": { "kind": "periodic", "period_us": 1010, "run_us": 100 } },
                   { "name": "b", "behavior": { "kind": "bursty", "run_us": { "exp": 300 }, "sleep_us": { "exp": 700 } } }"#;
    let base = run(&scenario("eevdf-v6.18", "full", 1, tasks));
    for p in ["none", "voluntary", "lazy"] {
        let r = run(&scenario("eevdf-v6.18", p, 1, tasks));
        assert_eq!(r.tasks, base.tasks, "{p}");
    }
}

/// 7c70cb94d29c (6.13) "sched: Add Lazy preemption model": a fair-class reschedule asked
/// from another CPU of the same LLC sets TIF_NEED_RESCHED_LAZY and sends no IPI; the target
/// acts on it at its next tick (sched_tick() promotes it), not at once.
#[test]
fn a_remote_lazy_reschedule_waits_for_the_targets_tick() {
    for (preemption, at_once) in [(Preemption::Full, true), (Preemption::Lazy, false)] {
        let t = Tunables { tunable_scaling: Some(fairground_sim::scenario::Scaling::None), base_slice_ns: Some(3 * MS), ..Tunables::default() };
        let mut cfg = Config::new(Policy::EevdfV618, 2, 1000, &t, &Features::default());
        cfg.preemption = preemption;
        let mut f = Fair::new(cfg, 4);
        let a = add(&mut f, 3 * MS);
        let b = add(&mut f, MS);
        f.set_task_rq(a, NIL, 1);
        f.set_task_rq(b, NIL, 1);
        f.enqueue_task_fair(a, ENQUEUE_WAKEUP);
        assert_eq!(f.pick_next_task_fair(1, NIL), a);
        run_for(&mut f, MS / 2);
        // B is woken from CPU 0 onto CPU 1; its shorter slice wins the unprotected pick.
        f.this_cpu = 0;
        f.enqueue_task_fair(b, ENQUEUE_WAKEUP);
        f.check_preempt_wakeup(1, a, b, ReschedCause::Wakeup(b));
        f.this_cpu = NIL;
        assert_eq!(f.need_resched(1), at_once, "{preemption:?}");
        assert_eq!(f.lazy[1].is_some(), !at_once, "{preemption:?}");
        // CPU 1's tick: sched_tick() promotes the lazy flag; the switch is the wakeup's.
        run_for(&mut f, MS / 2);
        f.return_to_user(1);
        f.task_tick_fair(a);
        assert!(f.need_resched(1));
        assert_eq!(f.resched[1], Some(ReschedCause::Wakeup(b)), "{preemption:?}");
    }
}

/// The same through the engine: a schbench messenger wakes its workers, whose CPUs run
/// pinned hogs, from the other CPU of the LLC. Under full the 0.1 ms-slice worker preempts the
/// hog at once (PREEMPT_SHORT) or within its protection; under lazy nothing is sent, and a
/// worker woken remotely runs only after its CPU's next tick (HZ=250: at most 4 ms later).
#[test]
fn remote_wakeups_wait_for_the_tick_under_lazy() {
    let text = |preemption: &str| {
        format!(
            r#"{{ "format": "fairground-scenario/1", "name": "lz", "seed": 2, "duration_ms": 3000,
                "machine": {{ "cpus": 2, "hz": 250, "preemption": "{preemption}" }},
                "scheduler": {{ "policy": "eevdf-v6.18" }},
                "tasks": [ {{ "name": "h0", "cpus": [0], "behavior": {{ "kind": "hog" }} }},
                           {{ "name": "h1", "cpus": [1], "behavior": {{ "kind": "hog" }} }} ],
                "workloads": [ {{ "name": "sb", "kind": "schbench", "messengers": 1, "workers": 2, "sleep_us": 3000,
                                  "cputime_us": 200, "msg_us": 20, "slice_us": 100 }} ] }}"#
        )
    };
    let worst_p50 = |r: &Report| {
        r.tasks.iter().filter(|t| t.name.starts_with("sb/worker")).filter_map(|t| t.wakeup_latency_ns.p50).max().expect("worker wakeups")
    };
    let (full, lazy) = (run(&text("full")), run(&text("lazy")));
    assert!(worst_p50(&full) <= 300_000, "full: a worker's median wait {} ns", worst_p50(&full));
    assert!(worst_p50(&lazy) >= 1_000_000, "lazy: a worker's median wait {} ns", worst_p50(&lazy));
    for t in lazy.tasks.iter().filter(|t| t.name.starts_with("sb/worker")) {
        let max = t.wakeup_latency_ns.max.unwrap_or(0);
        assert!(max <= 4_000_000, "lazy: {} waited {max} ns, more than a tick", t.name);
    }
}
