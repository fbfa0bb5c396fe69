//! What the limit and costs benchmarks share: the limit workload under a policy, and timing
//! that keeps the fastest run.

use fairground_sim::parse_scenario;
use fairground_sim::scenario::{Policy, Validated};
use std::cell::Cell;
use std::time::{Duration, Instant};

pub const FIXTURE: &str = include_str!("../fixtures/limit.json");

/// The fixture under `policy`: the policy set, and what that policy does not have dropped
/// (latency nice is v12's only; scheduler features are per policy); with `costs` if given.
pub fn scenario(policy: Policy, costs: Option<&str>) -> Validated {
    let mut v: serde_json::Value = serde_json::from_str(FIXTURE).expect("fixture is JSON");
    v["scheduler"]["policy"] = policy.name().into();
    if let Some(s) = v["scheduler"].as_object_mut() {
        s.remove("features");
    }
    if policy != Policy::LatencyNiceV12 {
        for t in v["tasks"].as_array_mut().expect("tasks") {
            if let Some(t) = t.as_object_mut() {
                t.remove("latency_nice");
            }
        }
    }
    if let Some(c) = costs {
        v["machine"]["costs"] = c.into();
    }
    parse_scenario(&v.to_string()).expect("valid")
}

/// Time `f` once per iteration and keep the fastest run: the machine is shared, and the
/// fastest run is the one least disturbed.
pub fn timed(best: &Cell<Duration>, iters: u64, mut f: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let t = Instant::now();
        f();
        let d = t.elapsed();
        total += d;
        best.set(best.get().min(d));
    }
    total
}
