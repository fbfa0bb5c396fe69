//! A/B runs: the same scenario and seed under two variants, as the tables of the threads
//! ("baseline vs patched").

use super::patch::{apply_at, Assignment};
use crate::report::{LatencyStats, Report};
use crate::engine::Sim;
use crate::{parse_scenario, run_text, Limits, ScenarioError};
use serde::Serialize;
use serde_json::Value;

/// One row of an A/B table: a task, group or workload and a figure under both variants.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub figure: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// (b − a) / a in percent, when a is not zero.
    pub change_pct: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub a: Report,
    pub b: Report,
    pub rows: Vec<Row>,
}

pub(crate) fn variant(base: &Value, set: &[Assignment]) -> Result<String, ScenarioError> {
    let mut v = base.clone();
    for a in set {
        apply_at(&mut v, a)?;
    }
    Ok(v.to_string())
}

fn figures(name: &str, l: &LatencyStats, cpu_ns: Option<u64>, rows: &mut Vec<(String, String, Option<f64>)>) {
    if let Some(c) = cpu_ns {
        rows.push((name.to_string(), "cpu_ms".into(), Some(c as f64 / 1e6)));
    }
    rows.push((name.to_string(), "wakeups".into(), Some(l.count as f64)));
    for (f, x) in [("p50", l.p50), ("p90", l.p90), ("p95", l.p95), ("p99", l.p99), ("max", l.max)] {
        rows.push((name.to_string(), format!("lat_{f}_us"), x.map(|v| v as f64 / 1e3)));
    }
}

fn rows_of(r: &Report) -> Vec<(String, String, Option<f64>)> {
    let mut rows = Vec::new();
    for t in &r.tasks {
        figures(&t.name, &t.wakeup_latency_ns, Some(t.cpu_ns), &mut rows);
        rows.push((t.name.clone(), "wakeup_preemptions".into(), Some(t.wakeup_preemptions as f64)));
    }
    for g in &r.cgroups {
        figures(&format!("cgroup {}", g.name), &g.wakeup_latency_ns, Some(g.cpu_ns), &mut rows);
    }
    rows
}

/// A finished run of `base` (a scenario file's text) under `set`, for callers that want more
/// than its report (the app's A/B histograms and side-by-side timelines); `trace` records the
/// slices from the start.
pub fn run_variant(base: &str, set: &[Assignment], limits: &Limits, trace: bool) -> Result<Sim, ScenarioError> {
    run_variant_with(base, set, limits, trace, false)
}

/// As `run_variant`, with the decision log recorded too (`crate::explain`), for what the
/// diff of two runs reads (`measure::diverge`).
pub fn run_variant_logged(base: &str, set: &[Assignment], limits: &Limits, trace: bool) -> Result<Sim, ScenarioError> {
    run_variant_with(base, set, limits, trace, true)
}

fn run_variant_with(base: &str, set: &[Assignment], limits: &Limits, trace: bool, log: bool) -> Result<Sim, ScenarioError> {
    let v = crate::scenario::parse_jsonc(base)?;
    let parsed = parse_scenario(&variant(&v, set)?)?;
    crate::scenario::check_cost(&parsed.scenario, limits)?;
    let mut sim = Sim::new(&parsed)?;
    if trace {
        sim.enable_trace();
    }
    if log {
        sim.fair.enable_log();
    }
    sim.run();
    Ok(sim)
}

/// Run `base` (a scenario file's text) under `a` and under `b`, same seed.
pub fn compare(base: &str, a: &[Assignment], b: &[Assignment], limits: &Limits) -> Result<Comparison, ScenarioError> {
    let [ta, tb] = variants(base, a, b)?;
    let ra = run_text(&ta, limits)?;
    let rb = run_text(&tb, limits)?;
    Ok(compare_reports(ra, rb))
}

/// The two scenario texts `compare` runs, `base` under `a` and under `b`, for a caller that
/// runs them side by side (the CLI on two threads) and hands the reports to `compare_reports`.
pub fn variants(base: &str, a: &[Assignment], b: &[Assignment]) -> Result<[String; 2], ScenarioError> {
    let v = crate::scenario::parse_jsonc(base)?;
    Ok([variant(&v, a)?, variant(&v, b)?])
}

/// The A/B rows of two finished runs' reports.
pub fn compare_reports(ra: Report, rb: Report) -> Comparison {
    let (xa, xb) = (rows_of(&ra), rows_of(&rb));
    let rows = xa
        .into_iter()
        .zip(xb)
        .map(|((name, figure, a), (_, _, b))| {
            let change_pct = match (a, b) {
                (Some(a), Some(b)) if a != 0.0 => Some((b - a) / a * 100.0),
                _ => None,
            };
            Row { name, figure, a, b, change_pct }
        })
        .collect();
    Comparison { a: ra, b: rb, rows }
}
