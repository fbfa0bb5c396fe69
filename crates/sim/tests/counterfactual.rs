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
