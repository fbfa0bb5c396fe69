//! The task-group trends of the seeds (issue 6), on the shipped scenarios themselves so that
//! their descriptions stay true.
//! - Seed 001 (Aaron Lu): without `update_cfs_group()` on dequeue the wakers' tail grows;
//!   without it on enqueue too, their median moves toward a tick.
//! - Seed 000 (the v12 thread): at latency nice 0, `latency_max_clamp_wakeup` multiplies
//!   wakeup preemptions through group entities.

use fairground_sim::engine::Sim;
use fairground_sim::parse_scenario;
use fairground_sim::report::Report;

fn shipped(stem: &str) -> String {
    let path = format!("{}/../../static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("shipped scenario")
}

fn with_features(text: &str, features: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).expect("json");
    let f: serde_json::Value = serde_json::from_str(features).expect("features");
    v["scheduler"]["features"] = f;
    v.to_string()
}

fn sim(text: &str) -> Sim {
    let v = parse_scenario(text).unwrap_or_else(|e| panic!("refused: {e}"));
    let mut s = Sim::new(&v).unwrap_or_else(|e| panic!("refused: {e}"));
    s.run();
    s
}

/// The wakers' latency samples, sorted.
fn waker_latencies(s: &Sim) -> Vec<u64> {
    let mut v: Vec<u64> = s.tasks.iter().filter(|t| t.name.starts_with("waker")).flat_map(|t| t.stats.wakeup_latency.iter().copied()).collect();
    v.sort_unstable();
    v
}

fn pct(v: &[u64], p: f64) -> u64 {
    v[((p * v.len() as f64).ceil() as usize).max(1) - 1]
}

#[test]
fn seed001_update_cfs_group_off_raises_tail_then_median() {
    let text = shipped("seed001-group-weights");
    let both = waker_latencies(&sim(&with_features(&text, r#"{ "update_cfs_group_enqueue": true, "update_cfs_group_dequeue": true }"#)));
    let no_deq = waker_latencies(&sim(&with_features(&text, r#"{ "update_cfs_group_enqueue": true, "update_cfs_group_dequeue": false }"#)));
    let none = waker_latencies(&sim(&with_features(&text, r#"{ "update_cfs_group_enqueue": false, "update_cfs_group_dequeue": false }"#)));
    // "At once" costs what the file's machine.costs say: a wakeup reaches the pinned waker's
    // busy CPU (wakeup_ns) and the switch is paid (switch_ns); no idle exit, no migration.
    let costs = parse_scenario(&text).expect("valid").scenario.machine.costs;
    let at_once = costs.wakeup_ns + costs.switch_ns;
    // Both calls: the waking group entity preempts at once, nearly always: the thread's P95
    // under 100 µs.
    assert_eq!(pct(&both, 0.5), at_once);
    assert_eq!(pct(&both, 0.95), at_once);
    assert!(pct(&both, 0.95) < 100_000);
    // No dequeue call: the thread's P95 above 1 ms. (Its median stayed at ~20 µs; here it
    // moves too, a disagreement the scenario's description states.)
    assert!(pct(&no_deq, 0.95) > 1_000_000, "p95 {}", pct(&no_deq, 0.95));
    assert!(pct(&no_deq, 0.99) > pct(&both, 0.99));
    // Neither: the weight from the last tick is too light to preempt, so wakers wait for the
    // next tick; with wakeups at every phase of a 4 ms tick the median is near 2 ms.
    assert!(pct(&none, 0.5) >= 1_000_000, "median {}", pct(&none, 0.5));
    assert!(pct(&none, 0.5) < 4_000_000);
}

fn preemptions_by(r: &Report, prefix: &str) -> u64 {
    r.tasks.iter().filter(|t| t.name.starts_with(prefix)).map(|t| t.wakeup_preemptions).sum()
}

#[test]
fn seed000_wakeup_clamp_multiplies_preemptions_through_group_entities() {
    let text = shipped("seed000-group-clamp");
    let on = sim(&with_features(&text, r#"{ "latency_max_clamp_wakeup": true }"#)).report();
    let off = sim(&with_features(&text, r#"{ "latency_max_clamp_wakeup": false }"#)).report();
    let (a, b) = (preemptions_by(&on, "msg"), preemptions_by(&off, "msg"));
    assert!(a > b, "hackbench-like wakeup preemptions: {a} with the clamp, {b} without");
    // With load balancing (issue 4) spreading the tasks the stress-like group shows it most:
    // its tasks preempt only through the clamp.
    let (c, d) = (preemptions_by(&on, "cpu"), preemptions_by(&off, "cpu"));
    assert!(c > 10 * d.max(10), "stress-like wakeup preemptions: {c} with the clamp, {d} without");
    // The clamp binds only where a granularity exceeds get_latency_max(): without groups the
    // same nice-0 tasks (4 ms × 1024/1024 < 9 ms) are not affected at all.
    let flat = |clamp: bool| {
        let mut v: serde_json::Value = serde_json::from_str(&with_features(&text, &format!(r#"{{ "latency_max_clamp_wakeup": {clamp} }}"#))).expect("json");
        v.as_object_mut().expect("object").remove("cgroups");
        for t in v["tasks"].as_array_mut().expect("tasks") {
            t.as_object_mut().expect("task").remove("cgroup");
        }
        let mut s = sim(&v.to_string());
        let events = s.events;
        (events, preemptions_by(&s.report(), "msg"))
    };
    assert_eq!(flat(true), flat(false));
}
