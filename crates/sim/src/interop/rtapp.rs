//! rt-app workload files (the JSON LISA and sched_ext's simulator use), for the subset that
//! maps onto Fairground's behaviours. Both ways:
//!
//! | rt-app task (events in one loop)             | Fairground behaviour             |
//! |----------------------------------------------|----------------------------------|
//! | `run` only, `loop: -1`                       | `hog`                            |
//! | `run` + `timer { period }`                   | `periodic` (run ≤ period)        |
//! | `run` + `sleep`                              | `bursty` with fixed values       |
//! | `instance`, `priority` (nice), `cpus`, `delay` | `count`, `nice`, `cpus`, `start_ms` |
//!
//! Not supported, and named in the warnings or the error: `phases`, other events (`lock`,
//! `barrier`, `suspend`, `mem`, …), a finite `loop`, policies other than SCHED_OTHER,
//! `taskgroup`, `util_min`/`util_max`. `runtime` (wall-clock run) is read as `run`.
//! Exporting: `duty` becomes `run` + `timer` (its overrun rule differs: rt-app runs late
//! periods back to back), random `bursty` values and `replay` cannot be written.

use crate::scenario::{Behavior, Dist, Scenario};
use serde_json::{json, Map, Value};

/// A scenario (contract §1) from an rt-app file, and what was left out.
pub fn import_rtapp(text: &str, policy: &str) -> Result<(Value, Vec<String>), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tasks = v.get("tasks").and_then(Value::as_object).ok_or("no \"tasks\" object")?;
    let mut warnings = Vec::new();
    let global = v.get("global").and_then(Value::as_object);
    let duration_ms = match global.and_then(|g| g.get("duration")).and_then(Value::as_f64) {
        Some(d) if d > 0.0 => ((d * 1000.0).round() as u64).clamp(1, 600_000),
        _ => {
            warnings.push("global.duration missing or -1 (run until killed): 10 s taken".into());
            10_000
        }
    };
    let mut out = Vec::new();
    for (name, t) in tasks {
        let path = format!("tasks.{name}");
        let Some(t) = t.as_object() else { return Err(format!("{path}: expected an object")) };
        match task(name, t, &path, &mut warnings) {
            Ok(Some(x)) => out.push(x),
            Ok(None) => {}
            Err(e) => return Err(e),
        }
    }
    if out.is_empty() {
        return Err("no rt-app task could be mapped to a Fairground behaviour".into());
    }
    // rt-app does not say how many CPUs; enough for every affinity given.
    let cpus = out
        .iter()
        .filter_map(|t| t.get("cpus").and_then(Value::as_array))
        .flat_map(|a| a.iter().filter_map(Value::as_u64))
        .max()
        .map_or(1, |m| (m + 1).min(1024));
    let scenario = json!({
        "format": "fairground-scenario/1",
        "name": "imported rt-app workload",
        "duration_ms": duration_ms,
        "machine": { "cpus": cpus },
        "scheduler": { "policy": policy },
        "tasks": out,
    });
    Ok((scenario, warnings))
}

fn us(t: &Map<String, Value>, k: &str, path: &str) -> Result<Option<u64>, String> {
    match t.get(k) {
        None => Ok(None),
        Some(x) => x.as_u64().map(Some).ok_or_else(|| format!("{path}.{k}: expected a whole number of µs")),
    }
}

fn task(name: &str, t: &Map<String, Value>, path: &str, warnings: &mut Vec<String>) -> Result<Option<Value>, String> {
    const KNOWN: &[&str] = &["instance", "loop", "run", "runtime", "sleep", "timer", "priority", "policy", "cpus", "delay"];
    for k in t.keys() {
        if !KNOWN.contains(&k.as_str()) {
            warnings.push(format!("{path}.{k}: not supported; the task is left out"));
            return Ok(None);
        }
    }
    let policy = t.get("policy").and_then(Value::as_str).unwrap_or("SCHED_OTHER");
    if policy != "SCHED_OTHER" {
        warnings.push(format!("{path}.policy: {policy} is not a fair-class policy; the task is left out"));
        return Ok(None);
    }
    let looped = t.get("loop").and_then(Value::as_i64).unwrap_or(-1);
    if looped != -1 {
        warnings.push(format!("{path}.loop: {looped} (finite) is read as -1 (for the whole run)"));
    }
    let run = match (us(t, "run", path)?, us(t, "runtime", path)?) {
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => {
            warnings.push(format!("{path}: no run event; the task is left out"));
            return Ok(None);
        }
    }
    .clamp(1, 10_000_000);
    let sleep = us(t, "sleep", path)?;
    let period = match t.get("timer") {
        None => None,
        Some(x) => Some(x.get("period").and_then(Value::as_u64).ok_or_else(|| format!("{path}.timer.period: expected µs"))?),
    };
    let behavior = match (sleep, period) {
        (None, None) => json!({ "kind": "hog" }),
        (None, Some(p)) => json!({ "kind": "periodic", "period_us": p.clamp(1, 10_000_000), "run_us": run.min(p.max(1)) }),
        (Some(s), None) => json!({ "kind": "bursty", "run_us": run, "sleep_us": s.min(10_000_000) }),
        (Some(_), Some(_)) => {
            warnings.push(format!("{path}: both sleep and timer; the task is left out"));
            return Ok(None);
        }
    };
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).take(32).collect();
    let mut o = json!({ "name": clean, "behavior": behavior });
    if let Some(n) = t.get("instance").and_then(Value::as_u64) {
        o["count"] = json!(n.clamp(1, 4096));
    }
    if let Some(p) = t.get("priority").and_then(Value::as_i64) {
        o["nice"] = json!(p.clamp(-20, 19));
    }
    if let Some(c) = t.get("cpus") {
        o["cpus"] = c.clone();
    }
    if let Some(d) = us(t, "delay", path)? {
        if d % 1000 != 0 {
            warnings.push(format!("{path}.delay: {d} µs rounded to whole ms"));
        }
        o["start_ms"] = json!((d + 500) / 1000);
    }
    Ok(Some(o))
}

/// An rt-app file for a scenario, and what could not be written.
pub fn export_rtapp(s: &Scenario) -> (Value, Vec<String>) {
    let mut tasks = Map::new();
    let mut warnings = Vec::new();
    for t in &s.tasks {
        let mut o = Map::new();
        if t.count > 1 {
            o.insert("instance".into(), json!(t.count));
        }
        o.insert("loop".into(), json!(-1));
        match &t.behavior {
            Behavior::Hog => {
                o.insert("run".into(), json!(1_000_000));
            }
            Behavior::Periodic { period_us, run_us } => {
                o.insert("run".into(), json!(run_us));
                o.insert("timer".into(), json!({ "ref": format!("tick_{}", t.name), "period": period_us }));
            }
            Behavior::Duty { percent, period_us } => {
                o.insert("run".into(), json!(u64::from(*percent) * period_us / 100));
                o.insert("timer".into(), json!({ "ref": format!("tick_{}", t.name), "period": period_us }));
                warnings.push(format!("{}: duty written as run + timer; rt-app runs late periods back to back where duty counts an overrun", t.name));
            }
            Behavior::Bursty { run_us: Dist::Fixed(r), sleep_us: Dist::Fixed(sl) } => {
                o.insert("run".into(), json!(r.round() as u64));
                o.insert("sleep".into(), json!(sl.round() as u64));
            }
            Behavior::Bursty { .. } | Behavior::Replay { .. } => {
                warnings.push(format!("{}: random bursts and replays have no rt-app form; left out", t.name));
                continue;
            }
        }
        if t.attrs.nice != 0 {
            o.insert("priority".into(), json!(t.attrs.nice));
        }
        if let Some(c) = &t.attrs.cpus {
            o.insert("cpus".into(), json!(c));
        }
        if t.start_ms > 0 {
            o.insert("delay".into(), json!(t.start_ms * 1000));
        }
        if t.attrs.latency_nice != 0 || t.attrs.slice_us.is_some() || t.attrs.cgroup.is_some() || t.stagger_us != 0 {
            warnings.push(format!("{}: latency nice, slice, cgroup and stagger are not written", t.name));
        }
        tasks.insert(t.name.clone(), Value::Object(o));
    }
    if !s.workloads.is_empty() {
        warnings.push("workloads (hackbench, schbench) are not written".into());
    }
    let v = json!({
        "global": { "duration": s.duration_ms as f64 / 1000.0, "default_policy": "SCHED_OTHER", "calibration": "CPU0" },
        "tasks": tasks,
    });
    (v, warnings)
}
