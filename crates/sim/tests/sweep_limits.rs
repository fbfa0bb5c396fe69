//! A sweep's total cost is bounded: its points' estimated scheduler events, each point's own
//! estimate added up, may reach `MAX_SWEEP_RUNS` runs at the per-run limit and no more. A
//! sweep past it is refused before its first run, with the estimate and the limit.

use fairground_sim::measure::sweep::MAX_SWEEP_RUNS;
use fairground_sim::measure::{check_sweep_cost, sweep, sweep_by};
use fairground_sim::Limits;
use serde_json::{json, Value};

/// One hog on one CPU at HZ 1000: estimated at duration_ms / 1 ms ticks × min(1 CPU, 1 task)
/// = duration_ms events, nothing else (a hog never wakes).
fn hog(duration_ms: u64) -> String {
    json!({ "format": "fairground-scenario/1", "name": "hog", "duration_ms": duration_ms,
            "machine": { "cpus": 1, "hz": 1000 }, "scheduler": { "policy": "cfs-v6.2" },
            "tasks": [ { "name": "h", "behavior": { "kind": "hog" } } ] })
    .to_string()
}

/// A target whose runs may have 1000 estimated events: a sweep, 40 × 1000 = 40,000.
const SMALL: Limits = Limits { max_events: 1000, max_memory_bytes: 1 << 30 };

fn seeds(n: u64) -> Vec<Value> {
    (0..n).map(|s| json!(s)).collect()
}

#[test]
fn a_sweep_may_cost_40_runs_at_the_per_run_limit_and_no_more() {
    assert_eq!(MAX_SWEEP_RUNS, 40);
    // 100 events a point: 400 points are 40,000 events, the limit; 401 are 40,100.
    assert_eq!(check_sweep_cost(&hog(100), "seed", &seeds(400), None, &SMALL), Ok(40_000));
    let mut ran = 0;
    let e = sweep(&hog(100), "seed", &seeds(401), &SMALL, |_, _| {
        ran += 1;
        true
    })
    .expect_err("refused");
    assert_eq!(ran, 0, "refused before the first run");
    assert!(e.message.contains("the 401 points of this sweep are estimated at 4.1e4 scheduler events"), "{e}");
    assert!(e.message.contains("limit of 4e4 for one sweep (40 runs at this target's limit of 1000 a run)"), "{e}");
    // Within the limit it runs (stopped after its first point here).
    let done = sweep(&hog(100), "seed", &seeds(400), &SMALL, |_, _| false).expect("runs");
    assert_eq!(done.len(), 1);
}

#[test]
fn each_point_is_estimated_on_its_own_scenario() {
    // 36 points of 1000 ms and 40 of 100 ms: 36,000 + 4,000 = 40,000 events, the limit (a
    // sweep counted as the base scenario's 100 events × 76 points would be 7,600).
    let mut durations: Vec<Value> = vec![json!(1000); 36];
    durations.extend(vec![json!(100); 40]);
    assert_eq!(check_sweep_cost(&hog(100), "duration_ms", &durations, None, &SMALL), Ok(40_000));
    durations.push(json!(100));
    let e = check_sweep_cost(&hog(100), "duration_ms", &durations, None, &SMALL).expect_err("refused");
    assert!(e.message.contains("the 77 points") && e.message.contains("4.1e4"), "{e}");
    // Past the limit early, estimating stops there: the first 41 of 10,000 points of 1000 ms.
    let e = check_sweep_cost(&hog(100), "duration_ms", &vec![json!(1000); 10_000], None, &SMALL).expect_err("refused");
    assert!(e.message.contains("the first 41 of the 10000 points"), "{e}");
}

#[test]
fn a_two_way_sweep_counts_every_pair() {
    // 20 values for each of 21 values: 420 points of 100 events, past 40,000 at the 401st.
    let by: Vec<Value> = (0..21).map(|i| json!(format!("n{i}"))).collect();
    let e = sweep_by(&hog(100), "seed", &seeds(20), Some(("name", &by)), &SMALL, |_, _| true).expect_err("refused");
    assert!(e.message.contains("the first 401 of the 420 points") && e.message.contains("4.1e4"), "{e}");
    // 20 × 20 points are 40,000: within the limit.
    assert_eq!(check_sweep_cost(&hog(100), "seed", &seeds(20), Some(("name", &by[..20])), &SMALL), Ok(40_000));
}

#[test]
fn the_cli_limit_refuses_10000_points_of_a_large_run() {
    // 10,000 points of the shipped seed004 run (hackbench alone is estimated at 2 groups × 20
    // × 20 fds × 5000 loops × 2 × 4 = 3.2e7 events) pass 40 × 4e9 = 1.6e11 after 5000 points.
    let text = std::fs::read_to_string(format!("{}/../../static/scenarios/seed004-schbench-vs-hackbench.json", env!("CARGO_MANIFEST_DIR"))).expect("shipped");
    let e = check_sweep_cost(&text, "seed", &seeds(10_000), None, &Limits::NATIVE).expect_err("refused");
    assert!(e.message.contains("of the 10000 points") && e.message.contains("limit of 1.6e11"), "{e}");
}
