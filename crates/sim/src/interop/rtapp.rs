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
//!
//! Importing, a value beyond what a scenario holds is brought within it with a warning (a
//! `delay` past the run's end starts the task at the end; a `run` of 0 or above 10 s, a
//! duration above 600 s, …), never wrapped; a task name is made unique after its characters
//! are replaced. Exporting, a burst below 1 µs is written as 1 µs (rt-app counts in µs; a
//! `run` of 0 would not run at all), with a warning.

use crate::scenario::{Behavior, Dist, Scenario};
use serde_json::{json, Map, Value};

/// A scenario (contract §1) from an rt-app file, and what was left out.
pub fn import_rtapp(text: &str, policy: &str) -> Result<(Value, Vec<String>), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let tasks = v.get("tasks").and_then(Value::as_object).ok_or("no \"tasks\" object")?;
    let mut warnings = Vec::new();
    let global = v.get("global").and_then(Value::as_object);
    let duration_ms = match global.and_then(|g| g.get("duration")).and_then(Value::as_f64) {
        Some(d) if d > 600.0 => {
            warnings.push(format!("global.duration: {d} s is longer than a scenario lasts: 600 s taken"));
            600_000
        }
        Some(d) if d > 0.0 => ((d * 1000.0).round() as u64).max(1),
        _ => {
            warnings.push("global.duration missing or -1 (run until killed): 10 s taken".into());
            10_000
        }
    };
    let mut out = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for (name, t) in tasks {
        let path = format!("tasks.{name}");
        let Some(t) = t.as_object() else { return Err(format!("{path}: expected an object")) };
        if let Some(mut x) = task(t, &path, duration_ms, &mut warnings)? {
            x["name"] = json!(unique_name(name, &path, &mut used, &mut warnings));
            out.push(x);
        }
    }
    if out.is_empty() {
        let why = if warnings.is_empty() { String::new() } else { format!(": {}", warnings.join("; ")) };
        return Err(format!("no rt-app task could be mapped to a Fairground behaviour{why}"));
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

/// `x` brought within `lo..=hi`, with a warning naming `what` when it was not.
fn within(x: u64, lo: u64, hi: u64, what: &str, warnings: &mut Vec<String>) -> u64 {
    let y = x.clamp(lo, hi);
    if y != x {
        warnings.push(format!("{what}: {x} is beyond what a scenario holds ({lo} to {hi}): {y} taken"));
    }
    y
}

/// A scenario name from a task's name: [A-Za-z0-9_.-], 1 to 32 characters, unique (tasks come
/// in file order: the first keeps the name, the next "a_b" after "a b" is "a_b-2").
fn unique_name(name: &str, path: &str, used: &mut std::collections::BTreeSet<String>, warnings: &mut Vec<String>) -> String {
    let mut clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).take(32).collect();
    if clean.is_empty() {
        clean = "task".into();
    }
    let mut unique = clean.clone();
    let mut n = 2u64;
    while used.contains(&unique) {
        let suffix = format!("-{n}");
        unique = clean.chars().take(32 - suffix.len()).collect::<String>() + &suffix;
        n += 1;
    }
    if unique != clean {
        warnings.push(format!("{path}: named {unique} ({clean} is another task's name)"));
    }
    used.insert(unique.clone());
    unique
}

fn task(t: &Map<String, Value>, path: &str, duration_ms: u64, warnings: &mut Vec<String>) -> Result<Option<Value>, String> {
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
    };
    let run = within(run, 1, 10_000_000, &format!("{path}.run"), warnings);
    let sleep = us(t, "sleep", path)?;
    let period = match t.get("timer") {
        None => None,
        Some(x) => Some(x.get("period").and_then(Value::as_u64).ok_or_else(|| format!("{path}.timer.period: expected µs"))?),
    };
    let behavior = match (sleep, period) {
        (None, None) => json!({ "kind": "hog" }),
        (None, Some(p)) => {
            let p = within(p, 1, 10_000_000, &format!("{path}.timer.period"), warnings);
            if run > p {
                warnings.push(format!("{path}.run: {run} µs is longer than the period: {p} µs taken"));
            }
            json!({ "kind": "periodic", "period_us": p, "run_us": run.min(p) })
        }
        (Some(s), None) => json!({ "kind": "bursty", "run_us": run, "sleep_us": within(s, 0, 10_000_000, &format!("{path}.sleep"), warnings) }),
        (Some(_), Some(_)) => {
            warnings.push(format!("{path}: both sleep and timer; the task is left out"));
            return Ok(None);
        }
    };
    let mut o = json!({ "name": "", "behavior": behavior });
    if let Some(n) = t.get("instance").and_then(Value::as_u64) {
        o["count"] = json!(within(n, 1, 4096, &format!("{path}.instance"), warnings));
    }
    if let Some(p) = t.get("priority").and_then(Value::as_i64) {
        let nice = p.clamp(-20, 19);
        if nice != p {
            warnings.push(format!("{path}.priority: {p} is not a nice value (-20 to 19): {nice} taken"));
        }
        o["nice"] = json!(nice);
    }
    if let Some(c) = t.get("cpus") {
        let cpus: Option<Vec<u64>> = c.as_array().and_then(|a| a.iter().map(Value::as_u64).collect());
        match cpus {
            Some(list) if list.iter().all(|&c| c < 1024) => o["cpus"] = json!(list),
            _ => return Err(format!("{path}.cpus: expected a list of CPU numbers 0 to 1023 (a scenario has at most 1024 CPUs)")),
        }
    }
    if let Some(d) = us(t, "delay", path)? {
        // Whole ms, rounded to nearest, without overflow for any delay.
        let ms = d / 1000 + u64::from(d % 1000 >= 500);
        if ms > duration_ms {
            warnings.push(format!("{path}.delay: {d} µs is past the run's end ({duration_ms} ms): the task starts at the end, and does not run"));
        } else if d % 1000 != 0 {
            warnings.push(format!("{path}.delay: {d} µs rounded to whole ms"));
        }
        o["start_ms"] = json!(ms.min(duration_ms));
    }
    Ok(Some(o))
}

/// A burst of `exact` µs written as `r` whole µs (rt-app's unit), but never as a `run` of 0
/// for a burst that is not 0 (rt-app would not run at all): 1 µs then, with a warning.
fn at_least_1us(r: u64, exact: f64, task: &str, warnings: &mut Vec<String>) -> u64 {
    if r == 0 && exact > 0.0 {
        warnings.push(format!("{task}: a burst of {exact} µs is written as run 1 (rt-app counts whole µs)"));
        return 1;
    }
    r
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
                o.insert("run".into(), json!(at_least_1us(*run_us, *run_us as f64, &t.name, &mut warnings)));
                o.insert("timer".into(), json!({ "ref": format!("tick_{}", t.name), "period": period_us }));
            }
            Behavior::Duty { percent, period_us } => {
                let run = u64::from(*percent) * period_us / 100;
                let exact = f64::from(*percent) * *period_us as f64 / 100.0;
                o.insert("run".into(), json!(at_least_1us(run, exact, &t.name, &mut warnings)));
                o.insert("timer".into(), json!({ "ref": format!("tick_{}", t.name), "period": period_us }));
                warnings.push(format!("{}: duty written as run + timer; rt-app runs late periods back to back where duty counts an overrun", t.name));
            }
            Behavior::Bursty { run_us: Dist::Fixed(r), sleep_us: Dist::Fixed(sl) } => {
                o.insert("run".into(), json!(at_least_1us(r.round() as u64, *r, &t.name, &mut warnings)));
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
