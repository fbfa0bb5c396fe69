//! Ablation of an A/B: which of the switches separating two runs made the difference.

use fairground_sim::measure::ablate::{ablate, masks, preset, run_in_order, Figure, FULL_SUBSETS_UP_TO};
use fairground_sim::measure::parse_assignment;
use fairground_sim::report::Report;
use fairground_sim::{Limits, ScenarioError};

fn set(xs: &[&str]) -> Vec<fairground_sim::measure::Assignment> {
    xs.iter().map(|s| parse_assignment(s).expect("assignment")).collect()
}

const TWO_HOGS: &str = r#"{"format": "fairground-scenario/1", "name": "ab", "duration_ms": 300, "machine": {"hz": 1000},
    "scheduler": {"policy": "cfs-v6.2"},
    "tasks": [{"name": "a", "behavior": {"kind": "hog"}}, {"name": "b", "behavior": {"kind": "hog"}}]}"#;

/// Three switches of which only one can matter: two hogs never wake, so NEXT_BUDDY (set at a
/// wakeup) and GENTLE_FAIR_SLEEPERS (a sleeper's credit) are inert by construction, while a's
/// nice 0 → 5 moves its share from 50 % to 1024/(1024+335)'s complement. The nice change
/// accounts for all of the difference and the others for none.
#[test]
fn the_switch_that_matters_gets_everything() {
    let a = set(&["scheduler.features.next_buddy=false", "scheduler.features.gentle_fair_sleepers=true", "tasks[0].nice=0"]);
    let b = set(&["scheduler.features.next_buddy=true", "scheduler.features.gentle_fair_sleepers=false", "tasks[0].nice=5"]);
    let fig = Figure::parse("task:a:share").expect("figure");
    let runner = run_in_order(Limits::NATIVE);
    let r = ablate(TWO_HOGS, &a, &b, &fig, &runner).expect("ablates");
    assert_eq!(r.runs, 8, "2^3 subsets");
    assert_eq!(r.effects[0].switch.path, "tasks[0].nice");
    let share = |p: &str| r.effects.iter().find(|e| e.switch.path == p).and_then(|e| e.share_pct).expect("share");
    assert!((share("tasks[0].nice") - 100.0).abs() < 1e-9);
    assert_eq!(share("scheduler.features.next_buddy"), 0.0);
    assert_eq!(share("scheduler.features.gentle_fair_sleepers"), 0.0);
    assert!(r.interactions.is_empty(), "{:?}", r.interactions);
    let (fa, fb) = (r.a.expect("a"), r.b.expect("b"));
    assert!((fa - 50.0).abs() < 1.0 && fb < 30.0, "a's share {fa} → {fb} %");
}

/// Two switches that only matter together: b is a hog that starts at the end of the run
/// (never runs) on CPU 1. Starting it at 0 leaves a alone on CPU 0; moving it to CPU 0 does
/// nothing while it never starts. Only both together halve a's share: an interaction, and
/// each switch's own forward effect is 0.
#[test]
fn two_switches_that_only_matter_together_are_an_interaction() {
    let text = r#"{"format": "fairground-scenario/1", "name": "and", "duration_ms": 200, "machine": {"cpus": 2, "hz": 1000},
        "scheduler": {"policy": "eevdf-v6.12"},
        "tasks": [{"name": "a", "cpus": [0], "behavior": {"kind": "hog"}},
                  {"name": "b", "cpus": [1], "start_ms": 200, "behavior": {"kind": "hog"}}]}"#;
    let a = set(&["tasks[1].start_ms=200", "tasks[1].cpus=[1]"]);
    let b = set(&["tasks[1].start_ms=0", "tasks[1].cpus=[0]"]);
    let runner = run_in_order(Limits::NATIVE);
    let r = ablate(text, &a, &b, &Figure::parse("task:a:share").expect("figure"), &runner).expect("ablates");
    assert_eq!(r.runs, 4);
    let (fa, fb) = (r.a.expect("a"), r.b.expect("b"));
    // Two hogs on one CPU split it evenly, to within a slice or two over 200 ms.
    assert_eq!(fa, 100.0);
    assert!((fb - 50.0).abs() < 1.0, "a's share with b beside it: {fb} %");
    for e in &r.effects {
        assert_eq!(e.forward, Some(0.0), "{}: alone it changes nothing", e.switch.path);
        assert_eq!(e.backward, Some(fb - fa), "{}: without it nothing is left of the change", e.switch.path);
    }
    assert_eq!(r.interactions.len(), 1);
    assert_eq!((r.interactions[0].joint, r.interactions[0].sum), (fb - fa, 0.0));
}

/// The result is the same whichever way the runs are made: here in reverse order on other
/// threads, put back in order, against one after another.
#[test]
fn a_parallel_runner_gives_the_same_ablation() {
    let a = set(&["tasks[0].nice=0", "tasks[1].nice=0", "scheduler.features.start_debit=true"]);
    let b = set(&["tasks[0].nice=3", "tasks[1].nice=-2", "scheduler.features.start_debit=false"]);
    let fig = Figure::parse("task:b:share").expect("figure");
    let seq = run_in_order(Limits::NATIVE);
    let par = |texts: &[String]| -> Vec<Result<Report, ScenarioError>> {
        std::thread::scope(|s| {
            let hs: Vec<_> = texts.iter().rev().map(|t| s.spawn(move || fairground_sim::run_text(t, &Limits::NATIVE))).collect();
            let mut out: Vec<_> = hs.into_iter().map(|h| h.join().expect("thread")).collect();
            out.reverse();
            out
        })
    };
    assert_eq!(ablate(TWO_HOGS, &a, &b, &fig, &seq).expect("seq"), ablate(TWO_HOGS, &a, &b, &fig, &par).expect("par"));
}

/// Every subset up to the limit (2^n runs), the single steps beyond it (2n + 2).
#[test]
fn run_counts() {
    for n in 1..=FULL_SUBSETS_UP_TO {
        let m = masks(n);
        assert_eq!(m.len(), 1 << n);
        let mut sorted = m.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), m.len());
    }
    assert_eq!(masks(FULL_SUBSETS_UP_TO + 1).len(), 2 * (FULL_SUBSETS_UP_TO + 1) + 2);
}

/// The seed-000 preset on the shipped clamp lesson: the wakeup clamp (the thread's third
/// change) accounts for the most of the wakers' extra preemptions.
#[test]
fn the_clamp_preset_ranks_the_wakeup_clamp_first_on_the_clamp_lesson() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios/clamp-lesson.json");
    let text = std::fs::read_to_string(path).expect("read");
    let (a, b) = preset("clamps").expect("preset");
    let v = fairground_sim::scenario::parse_jsonc(&text).expect("json");
    let waker = v["tasks"].as_array().and_then(|ts| ts.iter().find(|t| t["behavior"]["kind"] != "hog")).and_then(|t| t["name"].as_str()).expect("a waker").to_string();
    let count = v["tasks"].as_array().and_then(|ts| ts.iter().find(|t| t["name"] == waker.as_str())).and_then(|t| t["count"].as_u64()).unwrap_or(1);
    let name = if count > 1 { format!("{waker}/0") } else { waker };
    let runner = run_in_order(Limits::NATIVE);
    let r = ablate(&text, &a, &b, &Figure::parse(&format!("task:{name}:preemptions")).expect("figure"), &runner).expect("ablates");
    assert_eq!(r.effects[0].switch.path, "scheduler.features.latency_max_clamp_wakeup", "{:#?}", r.effects);
}
