//! The decision log's counterfactuals (`measure::counterfactual`): what a wakeup check would
//! have decided with the wakee at another nice or latency nice. Each is checked against a
//! real run of that change: the same scenario with a `timeline` set of the wakee 1 µs before
//! its wakeup (it is asleep then, so nothing else moves), whose log has the same check at the
//! same instant; its verdict must be the counterfactual's.

use fairground_sim::explain::{Decision, Why};
use fairground_sim::measure::counterfactual::{wakeup_verdict, Change};
use fairground_sim::measure::run_variant_logged;
use fairground_sim::Limits;

const CLAMP_LESSON: &str = include_str!("../../../static/scenarios/clamp-lesson.json");

fn strip_comment(text: &str) -> String {
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// clamp-lesson for 300 ms under `policy`. Under v12 the wakeup clamp is off: with it, any
/// wakee at nice 4 or above meets the same 2.25 ms, and most changes would change nothing.
fn base(policy: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&strip_comment(CLAMP_LESSON)).expect("json");
    v["duration_ms"] = 300.into();
    v["scheduler"] = serde_json::json!({ "policy": policy });
    if policy == "latency-nice-v12" {
        v["scheduler"]["features"] = serde_json::json!({ "latency_max_clamp_wakeup": false });
    }
    v
}

/// The wakeup checks of a run (not through group entities), with the wakee's name.
fn wakeups(text: &str) -> (Vec<(Decision, String)>, fairground_sim::engine::Sim) {
    let sim = run_variant_logged(text, &[], &Limits::NATIVE, true).expect("runs");
    let log = sim.fair.log.clone().unwrap_or_default();
    let out = log
        .into_iter()
        .filter(|d| matches!(d.why, Why::CfsWakeup { via_groups: false, .. }))
        .map(|d| (d, sim.tasks[d.task as usize].name.clone()))
        .collect();
    (out, sim)
}

fn verdict(d: &Decision) -> i32 {
    match d.why {
        Why::CfsWakeup { verdict, .. } => verdict,
        _ => unreachable!(),
    }
}

fn check(policy: &str, changes: &[Change]) -> usize {
    let v = base(policy);
    let (checks, sim) = wakeups(&v.to_string());
    assert!(checks.len() >= 40, "{policy}: {} wakeup checks", checks.len());
    let mut differ = 0;
    // Every fifth check, so the run count stays small.
    for (d, name) in checks.iter().step_by(5) {
        for &change in changes {
            let Some(want) = wakeup_verdict(&sim.fair, d, change) else { panic!("{policy}: no counterfactual for {change:?}") };
            let set = match change {
                Change::Nice(n) => serde_json::json!({ "nice": n }),
                Change::LatencyNice(n) => serde_json::json!({ "latency_nice": n }),
                _ => unreachable!(),
            };
            let mut w = v.clone();
            let at_us = d.at_ns / 1000 - 1;
            w["timeline"] = serde_json::json!([{ "at_us": at_us, "task": name, "set": set }]);
            let (again, _) = wakeups(&w.to_string());
            let Some((real, _)) = again.iter().find(|(e, _)| e.at_ns == d.at_ns && e.task == d.task) else {
                panic!("{policy}: {change:?} at {} ns: the check of {name} is gone", d.at_ns)
            };
            assert_eq!(verdict(real), want, "{policy}: {} at {} ns, {change:?}", name, d.at_ns);
            differ += usize::from(want != verdict(d));
        }
    }
    differ
}

#[test]
fn nice_counterfactuals_are_what_a_run_with_that_nice_decides() {
    let changes = [Change::Nice(-20), Change::Nice(0), Change::Nice(19)];
    for policy in ["cfs-v6.2", "latency-nice-v12"] {
        // The wakers are at nice 5: at −20 or 0 some checks must go the other way, or the
        // test would prove nothing.
        assert!(check(policy, &changes) > 0, "{policy}: no counterfactual differs from the run");
    }
}

#[test]
fn latency_nice_counterfactuals_are_what_a_run_with_that_latency_nice_decides() {
    let changes = [Change::LatencyNice(-20), Change::LatencyNice(0), Change::LatencyNice(19)];
    assert!(check("latency-nice-v12", &changes) > 0);
}

/// The clamps cannot be switched in the middle of a run; their counterfactual is the
/// verdict the log already records with neither clamp (`verdict_unclamped`) when both go.
#[test]
fn without_the_wakeup_clamp_the_counterfactual_is_the_recorded_unclamped_verdict() {
    let mut v = base("latency-nice-v12");
    v["scheduler"]["features"] = serde_json::json!({ "latency_max_clamp_wakeup": true });
    let (checks, sim) = wakeups(&v.to_string());
    let mut flipped = 0;
    for (d, _) in &checks {
        let Why::CfsWakeup { verdict, verdict_unclamped, offset, offset_unclamped, .. } = d.why else { unreachable!() };
        // At latency nice 0 the offset clamp has nothing to bind.
        assert_eq!(offset, offset_unclamped);
        let cf = wakeup_verdict(&sim.fair, d, Change::WakeupClamp(false));
        assert_eq!(cf, Some(verdict_unclamped), "at {} ns", d.at_ns);
        flipped += usize::from(verdict != verdict_unclamped);
    }
    assert!(flipped > 0, "the lesson's clamp flips some checks");
}

// ---- Tick checks and EEVDF wakeups -------------------------------------------------------
//
// A change that a scenario edit cannot make between two instants of a real run (a feature
// switch; curr's weight while it runs without the setattr's own reschedule) is checked on a
// replay stopped just before the decision's instant: the replay gets the change and runs
// through that instant, and its log must hold the same decision with the counterfactual's
// outcome. Only decisions that come first in their instant on their CPU are checked, so
// nothing decided earlier in the same instant under the change can have moved the state.

use fairground_sim::engine::Sim;
use fairground_sim::measure::counterfactual::outcome;
use fairground_sim::scenario::parse_scenario;
use fairground_sim::weights::LoadWeight;

/// A run of `v` with the log on, not started.
fn fresh(v: &serde_json::Value) -> Sim {
    let parsed = parse_scenario(&v.to_string()).expect("valid");
    let mut sim = Sim::new(&parsed).expect("runs");
    sim.fair.enable_log();
    sim
}

fn whole(v: &serde_json::Value) -> Sim {
    let mut sim = fresh(v);
    sim.run();
    sim
}

/// The decisions matching `keep` that come first in their instant on their CPU.
fn first_in_instant(sim: &Sim, keep: impl Fn(&Decision) -> bool) -> Vec<Decision> {
    let log = sim.fair.log.as_deref().unwrap_or_default();
    log.iter()
        .enumerate()
        .filter(|(i, d)| {
            keep(d)
                && !log[..*i]
                    .iter()
                    .rev()
                    .take_while(|e| e.at_ns == d.at_ns)
                    .any(|e| e.cpu == d.cpu)
        })
        .map(|(_, d)| *d)
        .collect()
}

/// The decisions of a finished logged run that match `keep`, in log order.
fn decisions(sim: &Sim, keep: impl Fn(&Decision) -> bool) -> Vec<Decision> {
    sim.fair.log.as_deref().unwrap_or_default().iter().filter(|d| keep(d)).copied().collect()
}

/// Replays `v` up to `d`'s instant, lets `edit` change the replay, runs through that instant
/// and returns the replay's decision of the same kind about the same task.
fn replayed(v: &serde_json::Value, d: &Decision, edit: impl FnOnce(&mut Sim)) -> Decision {
    let mut sim = fresh(v);
    sim.run_until(d.at_ns);
    edit(&mut sim);
    sim.run_through(d.at_ns);
    let log = sim.fair.log.as_deref().unwrap_or_default();
    *log.iter()
        .find(|e| {
            e.at_ns == d.at_ns
                && e.task == d.task
                && std::mem::discriminant(&e.why) == std::mem::discriminant(&d.why)
        })
        .unwrap_or_else(|| panic!("the decision at {} ns is gone", d.at_ns))
}

const LADDER: &str = include_str!("../../../static/scenarios/latency-nice-ladder.json");

/// latency-nice-ladder for 1 s: tasks at latency nice −20 … 19 whose picks come from
/// latency_timeline.
fn ladder() -> serde_json::Value {
    let mut v = fairground_sim::scenario::parse_jsonc(LADDER).expect("json");
    v["duration_ms"] = 1000.into();
    v
}

const FOUR_POLICIES: &str = include_str!("../../../static/scenarios/four-policies.json");

/// four-policies (three hogs, a periodic task with a 0.1 ms slice, a bursty worker; HZ 1000)
/// under `policy` for 1 s: many wakeups that preempt and many that do not, and ticks in
/// the middle of slices.
fn mixed(policy: &str) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&strip_comment(FOUR_POLICIES)).expect("json");
    v["duration_ms"] = 1000.into();
    v["scheduler"] = serde_json::json!({ "policy": policy });
    v
}

#[test]
fn eevdf_wakeup_counterfactuals_agree_with_the_recorded_outcome_when_nothing_changes() {
    for policy in ["eevdf-v6.6", "eevdf-v6.12", "eevdf-v6.18"] {
        let v = mixed(policy);
        let sim = whole(&v);
        let feat = sim.fair.cfg.feat;
        // A change to what is already so: RUN_TO_PARITY (v6.18 sizes protection with it at
        // the pick, so there PREEMPT_SHORT).
        let same = if policy == "eevdf-v6.18" { Change::PreemptShort(feat.preempt_short) } else { Change::RunToParity(feat.run_to_parity) };
        let log = sim.fair.log.as_deref().unwrap_or_default();
        let (mut known, mut total) = (0, 0);
        for d in log
            .iter()
            .filter(|d| matches!(d.why, Why::EevdfWakeup { .. }))
        {
            total += 1;
            if let Some(o) = outcome(&sim.fair, d, same) {
                known += 1;
                assert_eq!(o, d.outcome, "{policy} at {} ns: {:?}", d.at_ns, d.why);
            }
        }
        assert!(
            total >= 40 && known * 10 >= total * 9,
            "{policy}: {known} of {total} recomputed"
        );
    }
}

#[test]
fn eevdf_feature_counterfactuals_are_what_a_replay_with_the_feature_switched_decides() {
    for (policy, changes) in [
        ("eevdf-v6.6", vec![Change::RunToParity(false)]),
        (
            "eevdf-v6.12",
            vec![Change::RunToParity(false), Change::PreemptShort(false)],
        ),
        ("eevdf-v6.18", vec![Change::PreemptShort(false)]),
    ] {
        let v = mixed(policy);
        let sim = whole(&v);
        let checks = first_in_instant(&sim, |d| matches!(d.why, Why::EevdfWakeup { .. }));
        assert!(checks.len() >= 20, "{policy}: {} wakeups", checks.len());
        let mut differ = 0;
        for d in &checks {
            for &c in &changes {
                let Some(want) = outcome(&sim.fair, d, c) else {
                    continue;
                };
                let real = replayed(&v, d, |s| match c {
                    Change::RunToParity(on) => s.fair.cfg.feat.run_to_parity = on,
                    Change::PreemptShort(on) => s.fair.cfg.feat.preempt_short = on,
                    _ => unreachable!(),
                });
                assert_eq!(real.outcome, want, "{policy} at {} ns, {c:?}", d.at_ns);
                differ += usize::from(want != d.outcome);
            }
        }
        assert!(
            differ > 0,
            "{policy}: no counterfactual differs from the run"
        );
    }
}

/// The wakee asleep 1 µs before its wakeup gets a custom slice by a timeline `set`, as
/// `sched_setattr()` would: the real run's check must have the counterfactual's outcome.
#[test]
fn eevdf_wakee_slice_counterfactuals_are_what_a_run_with_that_slice_decides() {
    for policy in ["eevdf-v6.12", "eevdf-v6.18"] {
        wakee_slices(policy);
    }
}

fn wakee_slices(policy: &str) {
    let v = mixed(policy);
    let sim = whole(&v);
    let checks = decisions(&sim, |d| matches!(d.why, Why::EevdfWakeup { tasks_compared: true, .. }));
    assert!(checks.len() >= 20);
    let mut differ = 0;
    for d in checks.iter().step_by(4) {
        // Only a wakee that is off the queue takes the slice as it is placed; one still
        // queued (delayed dequeue) would be requeued by the setattr itself.
        let mut before = fresh(&v);
        before.run_until(d.at_ns - 1000);
        if before.fair.ents[d.task as usize].on_rq {
            continue;
        }
        for slice_us in [100u64, 187, 3000, 100_000] {
            let Some(want) = outcome(&sim.fair, d, Change::Slice(slice_us * 1000)) else {
                continue;
            };
            let mut w = v.clone();
            let name = &sim.tasks[d.task as usize].name;
            w["timeline"] = serde_json::json!([{ "at_us": d.at_ns / 1000 - 1, "task": name, "set": { "slice_us": slice_us } }]);
            let again = whole(&w);
            let log = again.fair.log.as_deref().unwrap_or_default();
            let real = log
                .iter()
                .find(|e| {
                    e.at_ns == d.at_ns
                        && e.task == d.task
                        && matches!(e.why, Why::EevdfWakeup { .. })
                })
                .unwrap_or_else(|| panic!("the check at {} ns is gone", d.at_ns));
            assert_eq!(real.outcome, want, "at {} ns, slice {slice_us} µs", d.at_ns);
            differ += usize::from(want != d.outcome);
        }
    }
    assert!(differ > 0, "no slice changes an outcome");
}

#[test]
fn cfs_tick_counterfactuals_are_what_a_replay_with_that_change_decides() {
    for policy in ["cfs-v6.2", "latency-nice-v12"] {
        let mut v = mixed(policy);
        if policy == "latency-nice-v12" {
            v["scheduler"]["features"] = serde_json::json!({ "latency_max_clamp_tick": true });
        }
        let sim = whole(&v);
        let checks = first_in_instant(&sim, |d| {
            matches!(
                d.why,
                Why::CfsTick {
                    via_groups: false,
                    ..
                }
            )
        });
        assert!(checks.len() >= 20, "{policy}: {} tick checks", checks.len());
        let mut changes = vec![Change::Nice(-20), Change::Nice(0), Change::Nice(19)];
        if policy == "latency-nice-v12" {
            changes.push(Change::TickClamp(false));
        }
        let (mut differ, mut known) = (0, 0);
        for d in checks.iter().step_by(3) {
            for &c in &changes {
                let Some(want) = outcome(&sim.fair, d, c) else {
                    continue;
                };
                known += 1;
                let t = d.task as usize;
                let real = replayed(&v, d, |s| match c {
                    Change::Nice(n) => {
                        // curr's weight and its cfs_rq's load, as reweight_entity() leaves them,
                        // without set_user_nice()'s own reschedule.
                        let (old, new) = (s.fair.ents[t].load.weight, LoadWeight::for_nice(n));
                        let q = s.fair.ents[t].cfs_rq as usize;
                        s.fair.ents[t].load = new;
                        s.fair.cfs_rqs[q].load.sub(old);
                        s.fair.cfs_rqs[q].load.add(new.weight);
                    }
                    Change::TickClamp(on) => s.fair.cfg.feat.latency_max_clamp_tick = on,
                    _ => unreachable!(),
                });
                assert_eq!(
                    real.outcome, want,
                    "{policy} at {} ns, {c:?}: {:?}",
                    d.at_ns, d.why
                );
                differ += usize::from(want != d.outcome);
            }
        }
        assert!(
            known >= 10 && differ > 0,
            "{policy}: {known} known, {differ} differ"
        );
    }
}

/// Two nice-0 hogs on one CPU under v6.12 at HZ 1000 with a 3 ms base slice: a request lasts
/// three ticks, and at nice 0 virtual time is wall time, so at a tick `k` ms into a request
/// (vruntime − start = k ms, deadline − start = 3 ms) a slice of s ms is used up iff k ≥ s.
#[test]
fn an_eevdf_tick_with_another_slice_ends_the_request_when_vruntime_reaches_the_new_deadline() {
    let v = serde_json::json!({
        "format": "fairground-scenario/1",
        "name": "two hogs",
        "duration_ms": 40,
        "machine": { "cpus": 1, "hz": 1000 },
        "scheduler": { "policy": "eevdf-v6.12", "tunables": { "base_slice_ns": 3000000 } },
        "tasks": [ { "name": "A", "behavior": { "kind": "hog" } }, { "name": "B", "behavior": { "kind": "hog" } } ]
    });
    let sim = whole(&v);
    let ticks = decisions(&sim, |d| matches!(d.why, Why::EevdfTick { .. }));
    assert!(ticks.len() >= 20);
    let mut seen = [false; 3];
    for d in &ticks {
        let Why::EevdfTick {
            vruntime_rel,
            deadline_rel,
            slice,
            ..
        } = d.why
        else {
            unreachable!()
        };
        assert_eq!(slice, 3_000_000);
        // How far into its request curr is, in whole ms of virtual time.
        let into = 3_000_000 + vruntime_rel - deadline_rel;
        if into % 1_000_000 != 0 || !(1..=3).contains(&(into / 1_000_000)) {
            continue;
        }
        let k = (into / 1_000_000) as u64;
        seen[k as usize - 1] = true;
        assert_eq!(d.outcome, k >= 3, "at {} ns", d.at_ns);
        for s in 1..=4u64 {
            assert_eq!(
                outcome(&sim.fair, d, Change::Slice(s * 1_000_000)),
                Some(k >= s),
                "at {} ns, {k} ms in, slice {s} ms",
                d.at_ns
            );
        }
    }
    assert_eq!(seen, [true; 3], "ticks 1, 2 and 3 ms into a request");
}

// ---- Picks ---------------------------------------------------------------------------------

use fairground_sim::explain::PickFrom;

/// A pick made by a buddy names the task tasks_timeline alone would have given, its leftmost
/// (or curr, if left of it). That task stays queued: after the instant it is still
/// tasks_timeline's leftmost. (A pick by the latency tree names the buddies' choice, checked
/// below.)
#[test]
fn a_pick_by_a_buddy_or_the_latency_tree_names_the_leftmost_it_passed_over() {
    for (policy, rules) in [
        ("cfs-v6.2", &[PickFrom::NextBuddy, PickFrom::LastBuddy][..]),
        (
            "latency-nice-v12",
            &[
                PickFrom::NextBuddy,
                PickFrom::LastBuddy,
                PickFrom::LatencyTree,
            ][..],
        ),
    ] {
        let v = if policy == "cfs-v6.2" {
            mixed(policy)
        } else {
            ladder()
        };
        let sim = whole(&v);
        let log = sim.fair.log.as_deref().unwrap_or_default();
        let picks: Vec<Decision> = log
            .iter()
            .filter(|d| matches!(d.why, Why::Pick { from, .. } if rules.contains(&from)))
            .copied()
            .collect();
        let count = |r: PickFrom| {
            picks
                .iter()
                .filter(|d| matches!(d.why, Why::Pick { from, .. } if from == r))
                .count()
        };
        if policy == "cfs-v6.2" {
            assert!(
                count(PickFrom::NextBuddy) + count(PickFrom::LastBuddy) >= 1,
                "{policy}: no pick by a buddy"
            );
        } else {
            assert!(
                count(PickFrom::LatencyTree) >= 3,
                "{policy}: {} picks by latency_timeline",
                count(PickFrom::LatencyTree)
            );
        }
        for d in picks.iter().take(60) {
            let Why::Pick {
                instead,
                queued,
                eligible_count,
                from,
                ..
            } = d.why
            else {
                unreachable!()
            };
            assert!(
                instead != d.task && instead != u32::MAX && queued >= 2 && eligible_count == queued,
                "{policy} at {} ns: {:?}",
                d.at_ns,
                d.why
            );
            // The last decision of the instant on that CPU is this pick: nothing else moved.
            if log.iter().any(|e| {
                e.at_ns == d.at_ns
                    && e.cpu == d.cpu
                    && *e != *d
                    && log.iter().position(|x| x == e) > log.iter().position(|x| x == d)
            }) {
                continue;
            }
            if from == PickFrom::LatencyTree {
                continue;
            }
            let mut replay = fresh(&v);
            replay.run_through(d.at_ns);
            let q = replay.fair.ents[d.task as usize].cfs_rq;
            let order = replay.fair.timeline_in_order(q);
            assert_eq!(
                order.first().copied(),
                Some(instead),
                "{policy} at {} ns",
                d.at_ns
            );
        }
    }
}

/// v12's latency tree is switched by `latency_list` in the pick alone: a replay with it off
/// from just before the instant picks the task the entry names.
#[test]
fn without_latency_list_the_pick_is_the_one_the_latency_tree_passed_over() {
    let v = ladder();
    let sim = whole(&v);
    let picks = decisions(&sim, |d| matches!(d.why, Why::Pick { from: PickFrom::LatencyTree, .. }));
    assert!(picks.len() >= 3);
    for d in picks.iter().take(30) {
        let Why::Pick { prev, instead, .. } = d.why else {
            unreachable!()
        };
        let mut replay = fresh(&v);
        replay.run_until(d.at_ns);
        replay.fair.cfg.feat.latency_list = false;
        let seen = replay.fair.log.as_deref().unwrap_or_default().len();
        replay.run_through(d.at_ns);
        // The replay's pick after the same prev; none logged means prev was picked again
        // (`__schedule()` does not switch, and the log keeps only switches).
        let real = replay.fair.log.as_deref().unwrap_or_default()[seen..]
            .iter()
            .find(|e| e.cpu == d.cpu && matches!(e.why, Why::Pick { .. }))
            .filter(|e| matches!(e.why, Why::Pick { prev: p, .. } if p == prev))
            .map_or(prev, |e| e.task);
        assert_eq!(real, instead, "at {} ns", d.at_ns);
    }
}

/// Under EEVDF the pick is the earliest eligible deadline: the picked task was eligible,
/// and at least one of the queued entities was.
#[test]
fn an_eevdf_pick_counts_the_eligible_set_it_chose_from() {
    for policy in ["eevdf-v6.6", "eevdf-v6.12", "eevdf-v6.18"] {
        let sim = whole(&mixed(policy));
        let log = sim.fair.log.as_deref().unwrap_or_default();
        let picks: Vec<_> = log
            .iter()
            .filter(|d| matches!(d.why, Why::Pick { .. }))
            .collect();
        assert!(picks.len() >= 100);
        let mut some_ineligible = false;
        for d in picks {
            let Why::Pick {
                eligible,
                eligible_count,
                queued,
                from,
                ..
            } = d.why
            else {
                unreachable!()
            };
            assert_eq!(
                from,
                PickFrom::EarliestDeadline,
                "{policy} at {} ns",
                d.at_ns
            );
            assert!(
                eligible_count >= 1 && eligible_count <= queued,
                "{policy} at {} ns: {:?}",
                d.at_ns,
                d.why
            );
            some_ineligible |= eligible_count < queued;
            let _ = eligible;
        }
        assert!(
            some_ineligible,
            "{policy}: every pick saw every entity eligible"
        );
    }
}

/// An EEVDF tick with another slice: a replay stopped before the tick's instant gets curr's
/// request as it would have been made with that slice (the deadline moved by the difference
/// of the virtual slices, and the run-to-parity mark with it), and its tick must decide as the
/// counterfactual says, PREEMPT_SHORT's did_preempt_short() and pending reschedules included.
#[test]
fn eevdf_tick_slice_counterfactuals_are_what_a_replay_with_that_request_decides() {
    use fairground_sim::weights::calc_delta_fair;
    for policy in ["eevdf-v6.6", "eevdf-v6.12"] {
        let v = mixed(policy);
        let sim = whole(&v);
        let ticks = first_in_instant(&sim, |d| matches!(d.why, Why::EevdfTick { .. }));
        assert!(ticks.len() >= 50, "{policy}: {} ticks", ticks.len());
        let (mut known, mut differ) = (0, 0);
        for d in ticks.iter().step_by(7) {
            for s in [100_000u64, 1_000_000, 3_000_000, 100_000_000] {
                let Some(want) = outcome(&sim.fair, d, Change::Slice(s)) else { continue };
                known += 1;
                let t = d.task as usize;
                let real = replayed(&v, d, |sim| {
                    let e = &mut sim.fair.ents[t];
                    let protected = e.vlag as u64 == e.deadline;
                    let mut lw = e.load;
                    let old = calc_delta_fair(e.slice, &mut lw);
                    let new = calc_delta_fair(s, &mut lw);
                    e.deadline = e.deadline.wrapping_sub(old).wrapping_add(new);
                    (e.slice, e.custom_slice) = (s, true);
                    if protected {
                        e.vlag = e.deadline as i64;
                    }
                });
                assert_eq!(real.outcome, want, "{policy} at {} ns, slice {s}: {:?}", d.at_ns, d.why);
                differ += usize::from(want != d.outcome);
            }
        }
        assert!(known >= 20 && differ > 0, "{policy}: {known} known, {differ} differ");
    }
}
