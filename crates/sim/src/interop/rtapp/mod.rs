//! rt-app workload files (the JSON LISA and sched_ext's simulator use), read as rt-app reads
//! them (json-c's looser JSON: comments, trailing commas, keys without values, repeated keys as
//! successive events; see `json`), and written back for the subset that maps exactly.
//!
//! | rt-app                                         | Fairground                          |
//! |------------------------------------------------|-------------------------------------|
//! | `run` (or `runtime`) only, for ever            | `hog`                               |
//! | `run` + `timer { period }`, for ever           | `periodic` (run ≤ period)           |
//! | `run` + `sleep`, for ever                      | `bursty` with fixed values          |
//! | any other sequence: `phases`, finite `loop`s, repeated events, timers | `replay` of the sequence laid out on an uncontended timeline over the run |
//! | `instance`, `priority` (nice), `cpus`, `delay` | `count`, `nice`, `cpus`, `start_ms` |
//! | SCHED_OTHER; SCHED_BATCH, SCHED_IDLE           | the fair class: `"policy": "batch"` / `"idle"` |
//! | SCHED_FIFO, SCHED_RR, SCHED_DEADLINE           | `"policy": "fifo"` / `"rr"` / `"deadline"`, pinned to one CPU: load above the fair class, their own scheduling not modelled |
//!
//! `suspend`/`resume` and `wait`/`signal`/`broad` become sleeps at the pace of what wakes the
//! task (`pace`). Named in warnings, never dropped silently: SCHED_FIFO/RR/DEADLINE tasks'
//! own scheduling and their priority, `lock`, `unlock`, `sync`, `barrier`, `fork`, `sem_*` (dropped, the timing kept),
//! `mem`/`memrun`/`iorun` and `yield` (dropped), `taskgroup`, per-phase settings, `util_min`/`util_max`, `instance: 0`
//! (a task only forked), and `global` settings other than `duration` and `default_policy`.
//! A file none of whose tasks maps is refused, with every reason.
//!
//! Exporting: `duty` becomes `run` + `timer` (its overrun rule differs: rt-app runs late
//! periods back to back), random `bursty` values and `replay` cannot be written.
//!
//! Importing, a value beyond what a scenario holds is brought within it with a warning (a
//! `delay` past the run's end starts the task at the end; a `run` above 10 s, a duration above
//! 600 s, …), never wrapped; a task name is made unique after its characters are replaced.
//! Exporting, a burst below 1 µs is written as 1 µs (rt-app counts in µs; a `run` of 0 would
//! not run at all), with a warning.

mod json;
mod pace;
mod task;

use crate::scenario::{Behavior, Dist, FairPolicy, Scenario};
use json::J;
use serde_json::{json, Map, Value};

/// Global settings that only change how rt-app logs, calibrates or allocates, not what its
/// tasks ask of the scheduler.
const GLOBAL_NOTED: &[&str] = &[
    "calibration", "pi_enabled", "lock_pages", "logdir", "log_basename", "log_size", "ftrace", "gnuplot", "frag", "io_device",
    "mem_buffer_size", "cumulative_slack",
];

/// The longest run a scenario holds, in ms.
const MAX_DURATION_MS: u64 = 600_000;

/// A scenario (contract §1) from an rt-app file, and what was approximated or left out.
pub fn import_rtapp(text: &str, policy: &str) -> Result<(Value, Vec<String>), String> {
    let v = json::parse(text).map_err(|e| format!("not JSON as rt-app reads it: {e}"))?;
    let top = v.obj().ok_or("not an rt-app file: expected an object at the top")?;
    let tasks = v.get("tasks").and_then(J::obj).ok_or("no \"tasks\" object")?;
    let mut warnings = Vec::new();
    let others: Vec<&str> = top.iter().map(|(k, _)| k.as_str()).filter(|k| *k != "tasks" && *k != "global").collect();
    if !others.is_empty() {
        warnings.push(format!("{}: not read (only tasks and global are)", others.join(", ")));
    }
    let global = v.get("global");
    let mut noted: Vec<&str> = Vec::new();
    for (k, _) in global.and_then(J::obj).unwrap_or(&[]) {
        if k != "duration" && k != "default_policy" {
            noted.push(k);
        }
    }
    if !noted.is_empty() {
        let odd: Vec<&str> = noted.iter().copied().filter(|k| !GLOBAL_NOTED.contains(k)).collect();
        let why = if odd.is_empty() { String::new() } else { format!(" ({} not known to rt-app)", odd.join(", ")) };
        warnings.push(format!(
            "global: {} ignored: logging, calibration and memory settings do not change what the tasks ask of the scheduler (run and sleep are read as µs of CPU and wall time){why}",
            noted.join(", ")
        ));
    }
    let default_policy = global.and_then(|g| g.get("default_policy")).and_then(J::str).unwrap_or("SCHED_OTHER").to_string();
    let duration = match global.and_then(|g| g.get("duration")).and_then(J::num) {
        Some(d) if d * 1000.0 > MAX_DURATION_MS as f64 => {
            warnings.push(format!("global.duration: {d} s is longer than a scenario lasts: 600 s taken"));
            Some(MAX_DURATION_MS)
        }
        Some(d) if d > 0.0 => Some(((d * 1000.0).round() as u64).max(1)),
        _ => None,
    };
    let mut out = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for (name, t) in tasks {
        let path = format!("tasks.{name}");
        let Some(t) = t.obj() else { return Err(format!("{path}: expected an object")) };
        if let Some(x) = fair_task(t, &path, &default_policy, &mut warnings)? {
            let n = unique_name(name, &path, &mut used, &mut warnings);
            out.push((n, x));
        }
    }
    let mut plans: Vec<&mut task::Plan> = out.iter_mut().map(|(_, (_, p))| p).collect();
    pace::pace(&mut plans, &mut warnings);
    // Without a duration (or -1: until killed) a file whose tasks all end lasts as long as its
    // longest task on an uncontended timeline; one with an endless task, 10 s.
    let duration_ms = duration.unwrap_or_else(|| {
        let ends: Option<Vec<u64>> = out
            .iter()
            .map(|(_, (o, p))| task::lay_out(p, MAX_DURATION_MS * 1000).end_us.map(|e| e.saturating_add(o["delay_us"].as_u64().unwrap_or(0))))
            .collect();
        match ends {
            Some(e) if !e.is_empty() => {
                let ms = (e.iter().max().copied().unwrap_or(0).div_ceil(1000)).clamp(1, MAX_DURATION_MS);
                warnings.push(format!("global.duration missing or -1 (run until killed): {ms} ms taken, when the last task ends"));
                ms
            }
            _ => {
                warnings.push("global.duration missing or -1 (run until killed): 10 s taken".into());
                10_000
            }
        }
    });
    let mut mapped = Vec::new();
    for (name, (mut o, plan)) in out {
        let delay_us = o.get("delay_us").and_then(Value::as_u64).unwrap_or(0);
        // A run + timer thread delayed by a period or more: a periodic task forked a period
        // before the delay (asleep) first runs at the delay, as rt-app's thread does.
        let mut b = task::behavior(&plan, (duration_ms * 1000).saturating_sub(delay_us).max(1), delay_us, &mut warnings);
        if let Some(back) = b.as_mut().and_then(|b| b.as_object_mut()).and_then(|m| m.remove("start_back_us")).and_then(|v| v.as_u64()) {
            o["delay_us"] = json!(delay_us - back);
        }
        if let Some(d) = o.get("delay_us").and_then(Value::as_u64) {
            // Whole ms, rounded to nearest, without overflow for any delay.
            let ms = d / 1000 + u64::from(d % 1000 >= 500);
            if ms > duration_ms {
                warnings.push(format!("{}.delay: {d} µs is past the run's end ({duration_ms} ms): the task starts at the end, and does not run", plan.path));
            } else if d % 1000 != 0 {
                warnings.push(format!("{}.delay: {d} µs rounded to whole ms", plan.path));
            }
            o.as_object_mut().map(|m| m.remove("delay_us"));
            o["start_ms"] = json!(ms.min(duration_ms));
        }
        if let Some(b) = b {
            if b["kind"] == "hog" && matches!(o["policy"].as_str(), Some("fifo" | "rr" | "deadline")) {
                warnings.push(format!(
                    "{}: a {} task that never sleeps keeps its CPU from the fair class for the whole run here, where the kernel would throttle it (RT: sched_rt_runtime_us, 950 ms of each second; DEADLINE: its dl-runtime per dl-period)",
                    plan.path,
                    o["policy"].as_str().unwrap_or("")
                ));
            }
            o["name"] = json!(name);
            o["behavior"] = b;
            mapped.push(o);
        }
    }
    if mapped.is_empty() {
        let why = if warnings.is_empty() { String::new() } else { format!(": {}", warnings.join("; ")) };
        return Err(format!("no rt-app task could be mapped to a Fairground behaviour{why}"));
    }
    // rt-app does not say how many CPUs; enough for every affinity given.
    let cpus = mapped
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
        "tasks": mapped,
    });
    Ok((scenario, warnings))
}

/// A task's settings (a scenario task without its behaviour; `delay_us` until the run's
/// length is known) and its plan, or None (with a warning) when it cannot be replayed.
fn fair_task(t: &[(String, J)], path: &str, default_policy: &str, warnings: &mut Vec<String>) -> Result<Option<(Value, task::Plan)>, String> {
    let o = J::Obj(t.to_vec());
    let policy = o.get("policy").and_then(J::str).unwrap_or(default_policy);
    let at = if o.get("policy").is_some() { format!("{path}.policy") } else { format!("{path} (global.default_policy)") };
    let fair_policy = match policy {
        "SCHED_OTHER" => None,
        "SCHED_BATCH" => Some("batch"),
        "SCHED_IDLE" => Some("idle"),
        "SCHED_FIFO" => Some("fifo"),
        "SCHED_RR" => Some("rr"),
        "SCHED_DEADLINE" => Some("deadline"),
        p => return Err(format!("{at}: {p} is not an rt-app policy (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)")),
    };
    let plan = task::plan(t, path, warnings)?;
    let mut x = json!({ "name": "" });
    if let Some(p) = fair_policy {
        x["policy"] = json!(p);
    }
    match o.get("instance").map(|v| v.int()) {
        None => {}
        Some(Some(0)) => {
            warnings.push(format!("{path}.instance: 0 (the task only runs when another forks it, and fork is not modelled); the task is left out"));
            return Ok(None);
        }
        Some(Some(n)) if n > 0 => x["count"] = json!(within(n as u64, 1, 4096, &format!("{path}.instance"), warnings)),
        Some(_) => return Err(format!("{path}.instance: expected a whole number of threads")),
    }
    let higher = matches!(fair_policy, Some("fifo" | "rr" | "deadline"));
    if higher {
        pin_higher_class(&mut x, &o, path, &at, policy, warnings)?;
    }
    if let Some(p) = o.get("priority").filter(|_| !higher) {
        let p = p.int().ok_or_else(|| format!("{path}.priority: expected a whole number (a nice value)"))?;
        let nice = p.clamp(-20, 19);
        if nice != p {
            warnings.push(format!("{path}.priority: {p} is not a nice value (-20 to 19): {nice} taken"));
        }
        x["nice"] = json!(nice);
    }
    if let Some(c) = o.get("cpus").filter(|_| !higher) {
        let one = c.int().map(|c| vec![c]);
        let list: Option<Vec<i64>> = one.or_else(|| match c {
            J::Arr(a) => a.iter().map(J::int).collect(),
            _ => None,
        });
        match list {
            Some(l) if !l.is_empty() && l.iter().all(|&c| (0..1024).contains(&c)) => x["cpus"] = json!(l),
            _ => return Err(format!("{path}.cpus: expected a list of CPU numbers 0 to 1023 (a scenario has at most 1024 CPUs)")),
        }
    }
    if let Some(d) = o.get("delay") {
        x["delay_us"] = json!(task::us(d, &format!("{path}.delay"))?);
    }
    if let Some(g) = o.get("taskgroup") {
        let g = g.str().unwrap_or("?");
        warnings.push(format!("{path}.taskgroup: {g} not mapped: the task runs in the root group"));
    }
    let clamps: Vec<&str> = ["util_min", "util_max", "dl-runtime", "dl-period", "dl-deadline", "nodes_membind"].into_iter().filter(|k| o.get(k).is_some()).collect();
    if !clamps.is_empty() {
        warnings.push(format!("{path}: {} not modelled; ignored", clamps.join(", ")));
    }
    Ok(Some((x, plan)))
}

/// A SCHED_FIFO/RR/DEADLINE task as load above the fair class: pinned to one CPU (the first
/// of its `cpus`, or CPU 0), its priority and its class's own parameters read as nothing, all
/// said in one warning.
fn pin_higher_class(x: &mut Value, o: &J, path: &str, at: &str, policy: &str, warnings: &mut Vec<String>) -> Result<(), String> {
    let cpus: Option<Vec<i64>> = o.get("cpus").map(|c| match c {
        J::Arr(a) => a.iter().map(J::int).collect::<Option<Vec<i64>>>().unwrap_or_default(),
        c => c.int().into_iter().collect(),
    });
    let cpu = match cpus.as_deref() {
        None => 0,
        Some([c, ..]) if (0..1024).contains(c) => *c,
        Some(_) => return Err(format!("{path}.cpus: expected a list of CPU numbers 0 to 1023 (a scenario has at most 1024 CPUs)")),
    };
    let pinned = if cpus.as_ref().is_some_and(|c| c.len() == 1) { String::new() } else { format!(", pinned to CPU {cpu} (the model does not place such tasks)") };
    let prio = if o.get("priority").is_some() { "; its priority is not read" } else { "" };
    warnings.push(format!(
        "{at}: {policy} runs as load above the fair class{pinned}: it takes its CPU whenever it is runnable; its own scheduling (priorities, round-robin, deadlines, throttling) is not modelled{prio}"
    ));
    x["cpus"] = json!([cpu]);
    Ok(())
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
        let policy = match t.attrs.policy {
            FairPolicy::Normal => None,
            FairPolicy::Batch => Some("SCHED_BATCH"),
            FairPolicy::Idle => Some("SCHED_IDLE"),
            FairPolicy::Fifo => Some("SCHED_FIFO"),
            FairPolicy::Rr => Some("SCHED_RR"),
            FairPolicy::Deadline => Some("SCHED_DEADLINE"),
        };
        if let Some(p) = policy {
            o.insert("policy".into(), json!(p));
        }
        if t.attrs.nice != 0 && t.attrs.policy.is_fair() {
            o.insert("priority".into(), json!(t.attrs.nice));
        }
        if let Some(c) = &t.attrs.cpus {
            o.insert("cpus".into(), json!(c));
        }
        // A periodic task starts asleep and first runs a period after its start; rt-app's
        // run + timer thread runs at once, so its delay carries that period.
        let first_us = t.start_ms * 1000 + if let Behavior::Periodic { period_us, .. } = t.behavior { period_us } else { 0 };
        if first_us > 0 {
            o.insert("delay".into(), json!(first_us));
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
