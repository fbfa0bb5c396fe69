//! Limits that hold: the cost estimate bounds what a run really costs, values below the
//! model's resolution and oversized files are refused at once with a message naming them.

use fairground_sim::engine::Sim;
use fairground_sim::scenario::{check_cost, estimate};
use fairground_sim::{parse_scenario, Limits};

fn refused(text: &str) -> String {
    match parse_scenario(text) {
        Ok(v) => match check_cost(&v.scenario, &Limits::NATIVE) {
            Ok(_) => panic!("accepted:\n{}", &text[..text.len().min(400)]),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

const HEAD: &str = r#""format": "fairground-scenario/1", "name": "t", "scheduler": {"policy": "cfs-v6.2"}"#;

/// `run_us` 0.0001 draws 0 ns every time: each cycle would advance time by the 1 ns floor of
/// a burst. Below the resolution, the value is refused, naming it.
#[test]
fn values_below_the_resolution_are_refused() {
    for b in [
        r#"{"kind": "bursty", "run_us": 0.0001, "sleep_us": 0.0001}"#,
        r#"{"kind": "bursty", "run_us": 5, "sleep_us": {"exp": 0.0004}}"#,
        r#"{"kind": "bursty", "run_us": {"uniform": [0, 0.0009]}, "sleep_us": 10}"#,
    ] {
        let e = refused(&format!(r#"{{{HEAD}, "duration_ms": 1000, "tasks": [{{"name": "a", "behavior": {b}}}]}}"#));
        assert!(e.contains("below the model's resolution of 1 ns"), "{e}");
        assert!(e.starts_with("tasks[0].behavior."), "{e}");
    }
}

/// At the resolution itself (1 ns bursts, no sleep) a second is 10^9 cycles of 4 events:
/// the estimate says so and the cost check refuses it.
#[test]
fn a_cycle_at_the_resolution_is_costed_as_such() {
    let text = format!(r#"{{{HEAD}, "duration_ms": 1000, "tasks": [{{"name": "a", "behavior": {{"kind": "bursty", "run_us": 0.001, "sleep_us": 0}}}}]}}"#);
    let v = parse_scenario(&text).expect("valid");
    let e = estimate(&v.scenario);
    assert!(e.events >= 4_000_000_000, "{e:?}");
    assert!(check_cost(&v.scenario, &Limits::NATIVE).is_err());
}

/// 1,000 nested cgroups: refused by the depth cap, at once.
#[test]
fn deep_cgroup_trees_are_refused_at_once() {
    let mut cg = vec![r#"{"name": "c0"}"#.to_string()];
    for i in 1..1000 {
        cg.push(format!(r#"{{"name": "c{i}", "parent": "c{}"}}"#, i - 1));
    }
    let text = format!(r#"{{{HEAD}, "duration_ms": 1000, "cgroups": [{}], "tasks": [{{"name": "a", "cgroup": "c999", "behavior": {{"kind": "hog"}}}}]}}"#, cg.join(","));
    let e = refused(&text);
    assert!(e.contains("cgroups[32].parent") && e.contains("at most 32 levels"), "{e}");
}

/// Huge arrays are refused before their entries are read, by count, naming the cap. (A million
/// task entries, 41 MB of text, are refused in about 0.6 s in a release build, most of it the
/// JSON parse; timings are in the notes, not asserted here.)
#[test]
fn huge_arrays_are_refused_quickly() {
    let many = |n: usize, one: &str| vec![one; n].join(",");
    let cases = [
        (format!(r#"{{{HEAD}, "duration_ms": 10, "tasks": [{}]}}"#, many(20_001, r#"{"name": "a", "behavior": {"kind": "hog"}}"#)), "tasks: 20001 task entries; at most 10000"),
        (format!(r#"{{{HEAD}, "duration_ms": 10, "cgroups": [{}], "tasks": [{{"name": "a", "behavior": {{"kind": "hog"}}}}]}}"#, many(200_000, r#"{"name": "g"}"#)), "cgroups: 200000 cgroups; at most 1024"),
        (format!(r#"{{{HEAD}, "duration_ms": 10, "tasks": [{{"name": "a", "behavior": {{"kind": "hog"}}}}], "timeline": [{}]}}"#, many(200_000, r#"{"at_us": 1, "task": "a", "set": {"nice": 1}}"#)), "timeline: 200000 timeline entries; at most 100000"),
    ];
    for (text, want) in cases {
        let e = refused(&text);
        assert!(e.contains(want), "{e}");
    }
}

/// 10,000 distinct task entries (the most allowed) and as many timeline entries naming them
/// validate (name look-ups are hashed: this took seconds when each was a scan).
#[test]
fn ten_thousand_task_entries_validate() {
    let tasks: Vec<String> = (0..10_000).map(|i| format!(r#"{{"name": "t{i}", "behavior": {{"kind": "hog"}}}}"#)).collect();
    let tl: Vec<String> = (0..10_000).map(|i| format!(r#"{{"at_us": {i}, "task": "t{i}", "set": {{"nice": 1}}}}"#)).collect();
    let text = format!(r#"{{{HEAD}, "duration_ms": 10, "tasks": [{}], "timeline": [{}]}}"#, tasks.join(","), tl.join(","));
    parse_scenario(&text).expect("valid");
}

/// Timeline entries cost: 20,000 entries on a 4,096-task group are 8.2·10^7 task changes.
#[test]
fn timeline_entries_are_in_the_estimate() {
    let tl: Vec<String> = (0..20_000).map(|i| format!(r#"{{"at_us": {}, "task": "h", "set": {{"nice": {}}}}}"#, i * 40, i % 2)).collect();
    let text = format!(r#"{{{HEAD}, "duration_ms": 1000, "tasks": [{{"name": "h", "count": 4096, "behavior": {{"kind": "hog"}}}}], "timeline": [{}]}}"#, tl.join(","));
    let v = parse_scenario(&text).expect("valid");
    let e = estimate(&v.scenario);
    assert!(e.events >= 8 * 20_000 * 4096, "{e:?}");
    assert!(check_cost(&v.scenario, &Limits::BROWSER).is_err(), "beyond what a browser tab may run");
}

/// For random valid scenarios (the invariant fuzzer's), the events a run really processes
/// stay within a fixed factor of the estimate.
#[test]
fn the_estimate_bounds_the_real_events() {
    let mut worst = 0.0f64;
    for i in 0..300 {
        let case = fairground_sim::fuzz::generate(7, i);
        let Ok(v) = parse_scenario(&case.to_string()) else { continue };
        let est = estimate(&v.scenario);
        if est.events > 20_000_000 {
            continue;
        }
        let mut sim = Sim::new(&v).expect("builds");
        sim.run();
        let ratio = sim.events as f64 / (est.events.max(1)) as f64;
        worst = worst.max(ratio);
        assert!(sim.events <= 4 * est.events + 1000, "case {i}: {} events, estimated {}\n{case}", sim.events, est.events);
    }
    eprintln!("worst real/estimated events: {worst:.2}");
}

/// An exercise seed beyond what a scenario's seed can hold (2^53) is refused with a message
/// naming the range, not turned into a scenario that then fails validation.
#[test]
fn exercise_seeds_beyond_2_pow_53_are_named() {
    use fairground_sim::lesson::exercise::{generate, Kind, MAX_SEED};
    assert!(generate(Kind::CfsPick, MAX_SEED).is_ok());
    let e = generate(Kind::CfsPick, MAX_SEED + 1).expect_err("refused");
    assert!(e.to_string().contains("exercise seeds go from 0 to 9007199254740992"), "{e}");
}
