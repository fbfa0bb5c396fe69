//! The invariant fuzzer: random scenarios across the policies, their feature switches, 1–16
//! CPUs (with random topologies and distance tables), cgroups, every behaviour and workload and random timeline edits (no-op ones too),
//! each run instant by instant with `invariants::check` after every instant (and the sched
//! domains checked once, `invariants::check_domains`), plus metamorphic
//! checks (the same seed gives the same report; no-op edits and task names change no figure).
//! A failure comes with its scenario, shrunk to a small one that still fails (`shrink`).
//!
//! `cargo test` runs a bounded number of cases (`tests/fuzz.rs`); `fairground fuzz` soaks for
//! as long as asked and writes each failing case to a file that `fairground run` replays.

pub mod invariants;
mod gen;
mod shrink;

pub use gen::generate;
pub use shrink::shrink;

use crate::engine::Sim;
use crate::report::Report;
use crate::{parse_scenario, scenario, Limits};
use serde_json::Value;

/// Cost bound for one fuzz case: small enough that a case runs in milliseconds.
pub const CASE_LIMITS: Limits = Limits { max_events: 3_000_000, max_memory_bytes: 256 << 20 };

/// What went wrong with a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Which check failed: `invariant`, `runaway`, `estimate`, `determinism`, `no-op edit`,
    /// `names`, `panic`.
    pub check: &'static str,
    pub message: String,
}

/// The outcome of one case: `Ok(None)` when the generator produced a scenario the core
/// refuses (not a failure: the validator's own fuzz tests cover refusals), `Ok(Some(n))` with
/// the instants it ran, or the failure.
pub type Outcome = Result<Option<u64>, Failure>;

/// Run the scenario instant by instant, checking every invariant after each instant.
fn run_checked(text: &str) -> Result<Option<(Report, u64)>, Failure> {
    let Ok(v) = parse_scenario(text) else { return Ok(None) };
    if scenario::check_cost(&v.scenario, &CASE_LIMITS).is_err() {
        return Ok(None);
    }
    let Ok(mut sim) = Sim::new(&v) else { return Ok(None) };
    if let Err(e) = invariants::check_domains(&sim.smp.doms) {
        return Err(Failure { check: "invariant", message: format!("sched domains: {e}") });
    }
    let mut instants = 0u64;
    let mut last = 0u64;
    while sim.step_instant() {
        instants += 1;
        if sim.now < last {
            return Err(Failure { check: "invariant", message: format!("time went back from {last} ns to {} ns", sim.now) });
        }
        last = sim.now;
        if let Err(e) = invariants::check(&sim) {
            return Err(Failure { check: "invariant", message: format!("after the instant at {} ns: {e}", sim.now) });
        }
    }
    if let Some(r) = &sim.runaway {
        return Err(Failure { check: "runaway", message: r.clone() });
    }
    sim.finish();
    Ok(Some((sim.report(), instants)))
}

/// Run a report's figures: everything but the events counted and the warnings, which a
/// timeline entry adds to by itself.
fn figures(r: &Report) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("events");
        o.remove("warnings");
        o.remove("scenario");
        if let Some(Value::Array(ts)) = o.get_mut("tasks") {
            for t in ts {
                if let Some(t) = t.as_object_mut() {
                    t.remove("name");
                }
            }
        }
        for k in ["cgroups", "workloads"] {
            if let Some(Value::Array(xs)) = o.get_mut(k) {
                for x in xs {
                    if let Some(x) = x.as_object_mut() {
                        x.remove("name");
                    }
                }
            }
        }
    }
    v
}

/// Every check on one scenario (a JSON object as `generate` makes them).
pub fn check_case(case: &Value) -> Outcome {
    let text = case.to_string();
    let caught = std::panic::catch_unwind(|| check_case_inner(case, &text));
    match caught {
        Ok(o) => o,
        Err(p) => {
            let msg = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
            Err(Failure { check: "panic", message: msg })
        }
    }
}

/// How far real events may exceed the cost estimate (`scenario::estimate`): the estimate is
/// meant to bound the real cost, so the fuzzer holds it to that.
pub const ESTIMATE_FACTOR: u64 = 4;

fn check_case_inner(case: &Value, text: &str) -> Outcome {
    let Some((report, instants)) = run_checked(text)? else { return Ok(None) };
    if let Ok(v) = parse_scenario(text) {
        let est = scenario::estimate(&v.scenario).events;
        if report.events > ESTIMATE_FACTOR * est + 1000 {
            return Err(Failure { check: "estimate", message: format!("{} events, estimated {est}", report.events) });
        }
    }
    let base = figures(&report);
    // The same seed gives the same report.
    if let Some((again, _)) = run_checked(text)? {
        if figures(&again) != base || again.events != report.events {
            return Err(Failure { check: "determinism", message: "two runs of the same scenario differ".into() });
        }
    }
    // Names change no figure.
    let renamed = gen::rename(case);
    if let Some((r, _)) = run_checked(&renamed.to_string())? {
        if figures(&r) != base {
            return Err(Failure { check: "names", message: "renaming the tasks, workloads and cgroups changed a figure".into() });
        }
    }
    // No-op edits change no figure.
    if let Some(noop) = gen::with_noop_edits(case) {
        if let Some((r, _)) = run_checked(&noop.to_string())? {
            if figures(&r) != base {
                return Err(Failure { check: "no-op edit", message: "adding timeline entries that change nothing changed a figure".into() });
            }
        }
    }
    Ok(Some(instants))
}

/// A failing case as the file `fairground fuzz` writes: the scenario, with the failure in its
/// description, so that `fairground run FILE` replays it.
pub fn failure_file(case: &Value, f: &Failure) -> String {
    let mut c = case.clone();
    if let Some(o) = c.as_object_mut() {
        o.insert("description".into(), Value::String(format!("invariant fuzzer: {} check failed: {}", f.check, f.message)));
    }
    serde_json::to_string_pretty(&c).unwrap_or_default()
}
