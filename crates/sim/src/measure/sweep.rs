//! Sweeps: one scenario run once per value of one parameter, same seed, as the threads' tables
//! by latency nice ("latency nice −20 … 19") or by number of groups.
//!
//! A sweep is refused before its first run when its points' estimated scheduler events (the
//! cost estimate of each point's scenario, contract §1.1), added up, pass `MAX_SWEEP_RUNS`
//! runs at the per-run limit: 1.6e11 at the CLI's, about an hour here at the 5e7 estimated
//! events a second a seed004 run goes at, where 10,000 points of the largest scenario a run
//! accepts would take days.

use super::compare::variant;
use super::patch::Assignment;
use crate::report::Report;
use crate::scenario::{check_cost, parse_scenario, sci};
use crate::{run_text, Limits, ScenarioError};
use serde::Serialize;
use serde_json::{json, Value};

/// Most points one sweep may have (the CLI's limit; the app asks for fewer).
pub const MAX_POINTS: usize = 10_000;

/// A sweep may cost, in estimated scheduler events, this many runs at the per-run limit.
pub const MAX_SWEEP_RUNS: u64 = 40;

/// One point of a sweep: the value set, the value of the second parameter if there is one,
/// and the report.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    pub value: Value,
    pub by: Option<Value>,
    pub report: Report,
}

/// Run `base` once per value of `path`; `progress(i, n)` after each point, returning false to
/// stop early (a cancelled sweep keeps the points done).
pub fn sweep(base: &str, path: &str, values: &[Value], limits: &Limits, progress: impl FnMut(usize, usize) -> bool) -> Result<Vec<SweepPoint>, ScenarioError> {
    sweep_by(base, path, values, None, limits, progress)
}

/// As `sweep`, once per value of `path` for each value of a second parameter `by` (the outer
/// loop), as the threads' two-way tables: schbench's latency nice across, hackbench's down.
pub fn sweep_by(
    base: &str,
    path: &str,
    values: &[Value],
    by: Option<(&str, &[Value])>,
    limits: &Limits,
    mut progress: impl FnMut(usize, usize) -> bool,
) -> Result<Vec<SweepPoint>, ScenarioError> {
    let v = crate::scenario::parse_jsonc(base)?;
    let n = points(values, by).count();
    sweep_cost(&v, path, values, by, limits)?;
    let mut out = Vec::with_capacity(n);
    for (x, b) in points(values, by) {
        let text = point(&v, path, x, by.map(|(bp, _)| bp).zip(b))?;
        out.push(SweepPoint { value: x.clone(), by: b.cloned(), report: run_text(&text, limits)? });
        if !progress(out.len(), n) {
            return Ok(out);
        }
    }
    Ok(out)
}

/// The (value, value of the second parameter) pairs of a sweep, the second in the outer loop.
fn points<'a>(values: &'a [Value], by: Option<(&str, &'a [Value])>) -> impl Iterator<Item = (&'a Value, Option<&'a Value>)> {
    let outer: Vec<Option<&Value>> = match by {
        Some((_, bv)) => bv.iter().map(Some).collect(),
        None => vec![None],
    };
    outer.into_iter().flat_map(move |b| values.iter().map(move |x| (x, b)))
}

/// The scenario text of one point.
fn point(base: &Value, path: &str, x: &Value, by: Option<(&str, &Value)>) -> Result<String, ScenarioError> {
    let mut set = vec![Assignment { path: path.to_string(), value: x.clone() }];
    if let Some((bp, bv)) = by {
        set.push(Assignment { path: bp.to_string(), value: bv.clone() });
    }
    variant(base, &set)
}

/// Refuse, before anything runs, a sweep whose points are estimated past `MAX_SWEEP_RUNS` ×
/// `limits.max_events` scheduler events together, or any of whose points is invalid or past
/// the per-run limits; otherwise the points' estimated events, added up. Each point is
/// estimated on its own scenario (a swept CPU count or duration changes the cost). `sweep_by`
/// checks this first; a caller that runs the points one by one (the app's pool of workers)
/// can check the whole sweep here.
pub fn check_sweep_cost(base: &str, path: &str, values: &[Value], by: Option<(&str, &[Value])>, limits: &Limits) -> Result<u64, ScenarioError> {
    sweep_cost(&crate::scenario::parse_jsonc(base)?, path, values, by, limits)
}

fn sweep_cost(base: &Value, path: &str, values: &[Value], by: Option<(&str, &[Value])>, limits: &Limits) -> Result<u64, ScenarioError> {
    let max = limits.max_events.saturating_mul(MAX_SWEEP_RUNS);
    let n = points(values, by).count();
    let mut total = 0u64;
    for (i, (x, b)) in points(values, by).enumerate() {
        let v = parse_scenario(&point(base, path, x, by.map(|(bp, _)| bp).zip(b))?)?;
        total = total.saturating_add(check_cost(&v.scenario, limits)?.events);
        if total > max {
            // Estimating stops here: the rest would only add to it.
            let which = if i + 1 == n { format!("the {n} points") } else { format!("the first {} of the {n} points", i + 1) };
            return Err(ScenarioError::at(
                "",
                format!(
                    "{which} of this sweep are estimated at {} scheduler events together, past the limit of {} for one sweep \
                     ({MAX_SWEEP_RUNS} runs at this target's limit of {} a run); sweep fewer values or a shorter scenario",
                    sci(total, true),
                    sci(max, false),
                    sci(limits.max_events, false)
                ),
            ));
        }
    }
    Ok(total)
}

/// The values of a sweep from text: `LO..HI` or `LO..HI:STEP` (integers; HI below LO counts
/// down, as `19..-20` for latency nice from 19 to −20), or a comma list `19,0,-20` whose items
/// are JSON or bare strings (`eevdf-v6.6,eevdf-v6.12`). The error says what was expected.
pub fn parse_values(spec: &str) -> Result<Vec<Value>, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("no values: give LO..HI[:STEP] (e.g. 19..-20) or a list (19,0,-20)".into());
    }
    let Some((lo, rest)) = spec.split_once("..") else {
        return Ok(spec.split(',').map(|v| serde_json::from_str(v.trim()).unwrap_or_else(|_| Value::String(v.trim().to_string()))).collect());
    };
    let (hi, step) = rest.split_once(':').unwrap_or((rest, "1"));
    let p = |s: &str| s.trim().parse::<i64>().map_err(|_| format!("{spec}: \"{}\" is not an integer (expected LO..HI[:STEP])", s.trim()));
    let (lo, hi, step) = (p(lo)?, p(hi)?, p(step)?);
    if step <= 0 {
        return Err(format!("{spec}: STEP must be at least 1 (HI below LO counts down)"));
    }
    let span = lo.abs_diff(hi) / step as u64;
    if span >= MAX_POINTS as u64 {
        return Err(format!("{spec}: {} points, more than {MAX_POINTS}", span + 1));
    }
    let dir = if hi < lo { -step } else { step };
    Ok((0..=span as i64).map(|i| json!(lo + i * dir)).collect())
}
