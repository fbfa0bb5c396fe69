//! One rt-app task read as a plan (its phases and their events, in file order), then laid out
//! as a Fairground behaviour once the run's length is known.

use super::json::J;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// An event the model can play.
#[derive(Clone, Debug, PartialEq)]
pub enum Ev {
    Run(u64),
    Sleep(u64),
    Timer { reference: String, period: u64, absolute: bool },
    /// Wait on a condition until another task wakes it: `suspend` waits on the task's own
    /// name (whatever the value says), `wait` on its `ref`. Replaced by a sleep, or dropped,
    /// when the tasks are paced (`pace.rs`).
    Suspend(String),
    /// Wake what waits on a condition: `resume` a task's name, `signal`/`broad` a `ref`.
    Resume(String),
}

#[derive(Clone)]
pub struct Phase {
    /// Passes of the phase's events; negative is for ever.
    pub loops: i64,
    pub events: Vec<Ev>,
}

/// A task as the model will play it: passes over its phases (negative: for ever).
#[derive(Clone)]
pub struct Plan {
    /// The task's name in the file.
    pub name: String,
    pub path: String,
    pub loops: i64,
    pub phases: Vec<Phase>,
}

/// rt-app's event names, matched as prefixes in rt-app's order (so `runtime1` is a `runtime`,
/// `memrun` is not a `mem`).
const EVENTS: &[&str] = &[
    "lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run", "timer", "suspend", "resume", "memrun", "mem",
    "iorun", "yield", "barrier", "fork", "sem_post", "sem_wait",
];

pub fn event_kind(key: &str) -> Option<&'static str> {
    EVENTS.iter().copied().find(|e| key.starts_with(e))
}

/// Settings a task or phase may carry beside its events.
const SETTINGS: &[&str] = &[
    "instance", "loop", "phases", "cpus", "delay", "priority", "policy", "taskgroup", "util_min", "util_max", "dl-runtime", "dl-period",
    "dl-deadline", "nodes_membind",
];

/// A whole number of µs; one beyond u64 is u64::MAX (brought within range later, with a
/// warning, never wrapped).
pub fn us(v: &J, path: &str) -> Result<u64, String> {
    match v.num() {
        Some(x) if x >= 0.0 && x.fract() == 0.0 => Ok(x as u64),
        _ => Err(format!("{path}: expected a whole number of µs")),
    }
}

/// Why a dropped event is not played, for the task's warning.
fn dropped_note(kind: &str) -> &'static str {
    match kind {
        "mem" | "memrun" | "iorun" => "memory and I/O work have no model and no duration in µs",
        "yield" => "the model has no sched_yield",
        "fork" => "the model starts every task at its start time",
        _ => "the model has no locks, barriers or semaphores",
    }
}

/// The events of one phase (or of a task without `phases`), in file order, repeated keys
/// included. Dropped events are collected in `dropped` for one warning per task.
fn phase_events(o: &[(String, J)], path: &str, own: &str, dropped: &mut BTreeMap<&'static str, String>, runtime: &mut bool) -> Result<Vec<Ev>, String> {
    let mut out = Vec::new();
    for (k, v) in o {
        let kp = format!("{path}.{k}");
        match event_kind(k) {
            Some("run") => out.push(Ev::Run(us(v, &kp)?)),
            Some("runtime") => {
                *runtime = true;
                out.push(Ev::Run(us(v, &kp)?));
            }
            Some("sleep") => out.push(Ev::Sleep(us(v, &kp)?)),
            Some("timer") => {
                let period = v.get("period").map_or(Err(()), |p| us(p, "").map_err(|_| ())).map_err(|()| format!("{kp}.period: expected µs"))?;
                let reference = v.get("ref").and_then(J::str).unwrap_or("unknown").to_string();
                let absolute = v.get("mode").and_then(J::str).is_some_and(|m| m.starts_with("absolute"));
                out.push(Ev::Timer { reference, period, absolute });
            }
            Some("suspend") => out.push(Ev::Suspend(own.to_string())),
            Some("wait") => {
                let r = v.get("ref").and_then(J::str).or(v.str()).ok_or_else(|| format!("{kp}: expected {{ \"ref\": condition, \"mutex\": mutex }}"))?;
                out.push(Ev::Suspend(r.to_string()));
            }
            Some(kind @ ("resume" | "signal" | "broad")) => {
                let r = v.str().ok_or_else(|| format!("{kp}: expected the name of what {kind} wakes"))?;
                out.push(Ev::Resume(r.to_string()));
            }
            Some(kind) => {
                dropped.entry(kind).or_insert(kp);
            }
            None => {}
        }
    }
    Ok(out)
}

/// Non-event keys of a phase or task the model does not read, named.
fn unknown_keys(o: &[(String, J)], path: &str, warnings: &mut Vec<String>) {
    let odd: Vec<&str> = o.iter().map(|(k, _)| k.as_str()).filter(|k| event_kind(k).is_none() && !SETTINGS.contains(k)).collect();
    if !odd.is_empty() {
        warnings.push(format!("{path}: {} not an rt-app setting nor event; ignored", odd.join(", ")));
    }
}

/// The plan for one task (phases or not), as rt-app's parser reads it: without `phases`, a
/// `loop` counts passes of the task's events and no `loop` is for ever; with `phases`, a
/// phase's `loop` defaults to 1 and the task's to for ever.
pub fn plan(t: &[(String, J)], path: &str, warnings: &mut Vec<String>) -> Result<Plan, String> {
    let obj = J::Obj(t.to_vec());
    let loop_of = |o: &J, p: &str, default: i64| match o.get("loop") {
        None => Ok(default),
        Some(v) => v.int().ok_or_else(|| format!("{p}.loop: expected a whole number (-1 for ever)")),
    };
    let own = path.strip_prefix("tasks.").unwrap_or(path).to_string();
    // Each dropped kind of event, at the first place it occurs.
    let mut dropped = BTreeMap::new();
    let mut runtime = false;
    unknown_keys(t, path, warnings);
    let (loops, phases) = match obj.get("phases") {
        Some(ph) => {
            let list = ph.obj().ok_or_else(|| format!("{path}.phases: expected an object of phases"))?;
            let mut phases = Vec::new();
            for (name, p) in list {
                let pp = format!("{path}.phases.{name}");
                let po = p.obj().ok_or_else(|| format!("{pp}: expected an object"))?;
                unknown_keys(po, &pp, warnings);
                let ignored: Vec<&str> = ["cpus", "priority", "policy", "taskgroup", "util_min", "util_max", "dl-runtime", "dl-period", "dl-deadline", "nodes_membind"]
                    .into_iter()
                    .filter(|k| p.get(k).is_some())
                    .collect();
                if !ignored.is_empty() {
                    warnings.push(format!(
                        "{pp}: {} set for one phase is not modelled (a task keeps one setting for the whole run): the task's own is used",
                        ignored.join(", ")
                    ));
                }
                phases.push(Phase { loops: loop_of(p, &pp, 1)?, events: phase_events(po, &pp, &own, &mut dropped, &mut runtime)? });
            }
            (loop_of(&obj, path, -1)?, phases)
        }
        None => {
            let events = phase_events(t, path, &own, &mut dropped, &mut runtime)?;
            // For ever is counted on the task, so that one pass is one pass of the events.
            match loop_of(&obj, path, -1)? {
                l if l < 0 => (-1, vec![Phase { loops: 1, events }]),
                l => (1, vec![Phase { loops: l, events }]),
            }
        }
    };
    if runtime {
        warnings.push(format!("{path}: runtime (run for a wall-clock time) read as run (CPU time): the same when the task is not kept waiting"));
    }
    // One warning per reason, naming each event it drops.
    let mut by_note: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (kind, at) in &dropped {
        by_note.entry(dropped_note(kind)).or_default().push(at.as_str());
    }
    for (note, kinds) in by_note {
        warnings.push(format!("{} dropped ({note}): {path} keeps its run and sleep timing without them", kinds.join(", ")));
    }
    Ok(Plan { name: own, path: path.into(), loops, phases })
}

/// The most steps a replay may have (the scenario format's `MAX_REPLAY_STEPS`).
const MAX_STEPS: usize = 1_000_000;

/// What `plan` needs and does over `horizon_us` of the task's life: `[sleep, run]` steps laid
/// out on an uncontended timeline, that timeline's end (None: the task runs past the horizon),
/// and whether the steps were cut at the replay limit.
pub struct Laid {
    pub steps: Vec<(u64, u64)>,
    pub end_us: Option<u64>,
    pub cut: bool,
    pub timers: bool,
}

pub fn lay_out(p: &Plan, horizon_us: u64) -> Laid {
    let mut steps: Vec<(u64, u64)> = Vec::new();
    let (mut t, mut pending, mut cut, mut timers) = (0u64, 0u64, false, false);
    let mut next: BTreeMap<&str, u64> = BTreeMap::new();
    // A phase whose pass takes no time cannot move the timeline: played once at most.
    let moves = |ph: &Phase| ph.events.iter().any(|e| matches!(e, Ev::Run(1..) | Ev::Sleep(1..) | Ev::Timer { period: 1.., .. }));
    let mut pass = 0i64;
    'all: while (p.loops < 0 || pass < p.loops) && p.phases.iter().any(moves) {
        pass += 1;
        for ph in p.phases.iter().filter(|ph| moves(ph)) {
            let mut n = 0i64;
            while ph.loops < 0 || n < ph.loops {
                n += 1;
                for e in &ph.events {
                    if t >= horizon_us {
                        break 'all;
                    }
                    match e {
                        Ev::Run(0) => {}
                        Ev::Run(r) => {
                            if pending == 0 && !steps.is_empty() {
                                // Runs with no sleep between are one burst.
                                if let Some(last) = steps.last_mut() {
                                    last.1 = last.1.saturating_add(*r);
                                }
                            } else if steps.len() == MAX_STEPS {
                                cut = true;
                                break 'all;
                            } else {
                                steps.push((pending, *r));
                            }
                            pending = 0;
                            t = t.saturating_add(*r);
                        }
                        Ev::Sleep(s) => {
                            pending = pending.saturating_add(*s);
                            t = t.saturating_add(*s);
                        }
                        Ev::Suspend(_) | Ev::Resume(_) => {}
                        Ev::Timer { reference, period, absolute } => {
                            timers = true;
                            // rt-app's timer: the next wakeup is a period after the last one;
                            // late, it does not sleep, and in relative mode counts from now.
                            let tn = next.entry(reference.as_str()).or_insert(0);
                            *tn = tn.saturating_add(*period);
                            if t < *tn {
                                pending = pending.saturating_add(*tn - t);
                                t = *tn;
                            } else if !absolute {
                                *tn = t;
                            }
                        }
                    }
                }
            }
        }
    }
    let ran_out = t >= horizon_us || cut;
    Laid { steps, end_us: (!ran_out).then_some(t), cut, timers }
}

/// The behaviour for a plan: the exact behaviours when one pass for ever is one of them
/// (`hog`, `periodic`, `duty`, `bursty`), else the laid-out steps as a `replay`. `delay_us` is
/// the task's rt-app `delay`: a run + timer thread delayed by at least a period is a `periodic`
/// task forked one period earlier (asleep, its timer fires at the delay), which the caller
/// does when the answer carries `start_back_us`.
pub fn behavior(p: &Plan, horizon_us: u64, delay_us: u64, warnings: &mut Vec<String>) -> Option<Value> {
    let path = &p.path;
    let endless = p.phases.len() == 1 && (p.loops < 0 && p.phases[0].loops == 1 || p.phases[0].loops < 0 && p.loops != 0);
    if endless {
        // Adjacent runs are one run, adjacent sleeps one sleep; runs of 0 are nothing.
        let mut ev: Vec<Ev> = Vec::new();
        for e in p.phases[0].events.iter().filter(|e| !matches!(e, Ev::Run(0) | Ev::Sleep(0) | Ev::Suspend(_) | Ev::Resume(_))) {
            match (ev.last_mut(), e) {
                (Some(Ev::Run(a)), Ev::Run(b)) | (Some(Ev::Sleep(a)), Ev::Sleep(b)) => *a = a.saturating_add(*b),
                _ => ev.push(e.clone()),
            }
        }
        let ok_run = |r: u64| (1..=10_000_000).contains(&r);
        match ev.as_slice() {
            [Ev::Run(_)] => return Some(json!({ "kind": "hog" })),
            [Ev::Run(r), Ev::Timer { period, .. }] if ok_run(*r) && ok_run(*period) => {
                if r > period {
                    warnings.push(format!("{path}.run: {r} µs is longer than the period: {period} µs taken"));
                }
                // rt-app runs at once, then waits for the timer: a periodic task forked a
                // period before the delay first runs at the delay; with no room for that,
                // `duty` runs at once when the run is a whole per cent of the period (its
                // quota); else a periodic task starts asleep, a burst late.
                let run = (*r).min(*period);
                if delay_us >= *period {
                    return Some(json!({ "kind": "periodic", "period_us": period, "run_us": run, "start_back_us": period }));
                }
                if (run * 100) % period == 0 {
                    let percent = run * 100 / period;
                    warnings.push(format!(
                        "{path}: run + timer read as duty {percent}% of {period} µs, which runs at once as rt-app does; a late period's quota carries on where rt-app runs the periods back to back"
                    ));
                    return Some(json!({ "kind": "duty", "percent": percent, "period_us": period }));
                }
                warnings.push(format!(
                    "{path}: run + timer read as periodic, which starts asleep and first runs a period after the start (rt-app runs at once): one burst fewer over the run"
                ));
                return Some(json!({ "kind": "periodic", "period_us": period, "run_us": (*r).min(*period) }));
            }
            [Ev::Run(r), Ev::Sleep(s)] if ok_run(*r) && *s <= 10_000_000 => {
                return Some(json!({ "kind": "bursty", "run_us": r, "sleep_us": s }));
            }
            _ => {}
        }
    }
    let laid = lay_out(p, horizon_us);
    if laid.steps.is_empty() {
        warnings.push(format!("{path}: no run event the model can play; the task is left out"));
        return None;
    }
    if laid.cut {
        warnings.push(format!("{path}: cut after {MAX_STEPS} run bursts (a replay's limit); it sleeps for the rest of the run"));
    }
    if laid.timers {
        warnings.push(format!(
            "{path}: timer waits laid out as sleeps on an uncontended timeline (rt-app's timer wakes at the period's end however late the task ran)"
        ));
    }
    let steps: Vec<Value> = laid.steps.iter().map(|&(s, r)| json!([s.min(1_000_000_000), r.min(1_000_000_000)])).collect();
    Some(json!({ "kind": "replay", "steps_us": steps }))
}
