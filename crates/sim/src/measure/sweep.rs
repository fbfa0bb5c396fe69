//! Sweeps: one scenario run once per value of one parameter, same seed, as the threads' tables
//! by latency nice ("latency nice −20 … 19") or by number of groups.

use super::compare::variant;
use super::patch::Assignment;
use crate::report::Report;
use crate::{run_text, Limits, ScenarioError};
use serde::Serialize;
use serde_json::{json, Value};

/// Most points one sweep may have (the CLI's limit; the app asks for fewer).
pub const MAX_POINTS: usize = 10_000;

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
    let outer: Vec<Option<&Value>> = match by {
        Some((_, bv)) => bv.iter().map(Some).collect(),
        None => vec![None],
    };
    let n = outer.len() * values.len();
    let mut out = Vec::with_capacity(n);
    for b in outer {
        for x in values {
            let mut set = vec![Assignment { path: path.to_string(), value: x.clone() }];
            if let (Some((bp, _)), Some(bv)) = (by, b) {
                set.push(Assignment { path: bp.to_string(), value: bv.clone() });
            }
            let text = variant(&v, &set)?;
            out.push(SweepPoint { value: x.clone(), by: b.cloned(), report: run_text(&text, limits)? });
            if !progress(out.len(), n) {
                return Ok(out);
            }
        }
    }
    Ok(out)
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
