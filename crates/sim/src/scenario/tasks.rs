//! `tasks`, `workloads` and behaviours (contract §1, §1.3, §1.4).

use super::fields::*;
use super::parse::{P, MAX_TASKS, MAX_WORKLOADS};
use super::refs::{capped, slice};
use super::{Attrs, Behavior, Dist, FairPolicy, ScenarioError, TaskSpec, Workload, WorkloadKind};
use serde_json::Value;

const TASK_KEYS: &[&str] =
    &["name", "count", "nice", "latency_nice", "slice_us", "policy", "cgroup", "cpus", "start_ms", "stagger_us", "behavior"];

const COMMON: &[&str] = &["kind", "name", "start_ms", "nice", "latency_nice", "slice_us", "policy", "cgroup", "cpus"];
const HACKBENCH: &[&str] = &["groups", "fds", "loops", "msg_us", "pipe_msgs"];
const SCHBENCH: &[&str] = &["messengers", "workers", "sleep_us", "cputime_us", "msg_us"];

/// Range of each workload parameter.
fn param_range(k: &str) -> (u64, u64) {
    match k {
        "groups" | "fds" => (1, 64),
        "loops" => (1, 10_000_000),
        "msg_us" => (0, 10_000),
        "pipe_msgs" => (1, 65_536),
        "messengers" => (1, 256),
        "workers" => (1, 1024),
        _ => (0, 10_000_000), // sleep_us, cputime_us
    }
}

const DIST_WHAT: &str =
    "a number of µs in 0..=10000000 or one of {\"exp\": mean}, {\"uniform\": [lo, hi]}, {\"normal\": [mean, sd]}";

impl P {
    /// A task or workload name, unique among both.
    fn unique_name(&mut self, x: &Value, kp: &str) -> R<String> {
        let n = name(x, kp)?;
        if !self.names.insert(n.clone()) {
            return Err(expected(kp, "a name not used by an earlier task or workload", x));
        }
        Ok(n)
    }

    fn start_ms(&self, x: &Value, kp: &str) -> R<u64> {
        uint(x, kp, 0, self.cx.duration_ms.unwrap_or(600_000))
    }

    /// The attributes shared by tasks and workloads; `Ok(false)` if `k` is not one of them.
    fn attr(&mut self, k: &str, x: &Value, kp: &str, a: &mut Attrs) -> R<bool> {
        match k {
            "nice" => a.nice = i32_in(x, kp, -20, 19)?,
            "latency_nice" => {
                a.latency_nice = i32_in(x, kp, -20, 19)?;
                self.warn_latency_nice(kp, a.latency_nice, false);
            }
            "slice_us" => {
                let s = slice(x, kp)?;
                a.slice_us = (s != 0).then_some(s);
                self.warn_slice(kp, a.slice_us);
            }
            "cgroup" => {
                a.cgroup = match x {
                    Value::Null => None,
                    _ => {
                        let n = string(x, kp, "the name of a cgroup or null")?;
                        if !self.cx.cgroup_set.contains(n) {
                            return Err(expected(kp, "the name of a cgroup or null", x));
                        }
                        Some(n.to_string())
                    }
                }
            }
            "cpus" => a.cpus = Some(self.cpu_list(x, kp)?),
            "policy" => {
                let opts = [
                    ("normal", FairPolicy::Normal),
                    ("batch", FairPolicy::Batch),
                    ("idle", FairPolicy::Idle),
                    ("fifo", FairPolicy::Fifo),
                    ("rr", FairPolicy::Rr),
                    ("deadline", FairPolicy::Deadline),
                ];
                a.policy = one_of(x, kp, &opts)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn cpu_list(&self, v: &Value, path: &str) -> R<Vec<u32>> {
        let a = arr(v, path)?;
        if a.is_empty() {
            return Err(expected(path, "a non-empty array of CPU ids", v));
        }
        let max = self.cx.cpus.unwrap_or(1024).saturating_sub(1);
        let mut out: Vec<u32> = Vec::with_capacity(a.len());
        for (j, x) in a.iter().enumerate() {
            let jp = idx(path, j);
            let c = u32_in(x, &jp, 0, max)?;
            if out.contains(&c) {
                return Err(expected(&jp, "a CPU id not already listed", x));
            }
            out.push(c);
        }
        Ok(out)
    }

    pub(crate) fn tasks(&mut self, v: &Value, path: &str) -> R<Vec<TaskSpec>> {
        let mut out = Vec::new();
        let mut total = 0u64;
        // Every entry is at least one task.
        let a = capped(v, path, MAX_TASKS as usize, "task entries")?;
        for (i, e) in a.iter().enumerate() {
            let ep = idx(path, i);
            let o = obj(e, &ep)?;
            let mut t = TaskSpec {
                name: String::new(),
                count: 1,
                attrs: Attrs::default(),
                start_ms: 0,
                stagger_us: 0,
                behavior: Behavior::Hog,
            };
            let (mut named, mut behaved) = (false, false);
            for (k, x) in o {
                let kp = key(&ep, k);
                match k.as_str() {
                    "name" => {
                        t.name = self.unique_name(x, &kp)?;
                        named = true;
                    }
                    "count" => t.count = u32_in(x, &kp, 1, 4096)?,
                    "start_ms" => t.start_ms = self.start_ms(x, &kp)?,
                    "stagger_us" => t.stagger_us = uint(x, &kp, 0, 1_000_000_000)?,
                    "behavior" => {
                        t.behavior = behavior(x, &kp)?;
                        behaved = true;
                    }
                    _ => {
                        if !self.attr(k, x, &kp, &mut t.attrs)? {
                            return Err(unknown(&ep, k, TASK_KEYS));
                        }
                    }
                }
            }
            if !named {
                return Err(missing(&ep, "name"));
            }
            if !behaved {
                return Err(missing(&ep, "behavior"));
            }
            if !t.attrs.policy.is_fair() && t.attrs.cpus.as_ref().is_none_or(|c| c.len() != 1) {
                // The model does not place real-time tasks (select_task_rq_rt(), push/pull).
                return Err(ScenarioError::at(
                    key(&ep, "policy"),
                    format!("expected a \"{}\" task to be pinned to one CPU (\"cpus\": [n]): the classes above the fair class are modelled only as the time they take on their CPU", t.attrs.policy.name()),
                ));
            }
            total += u64::from(t.count);
            out.push(t);
        }
        self.add_tasks(total, path)?;
        Ok(out)
    }

    pub(crate) fn workloads(&mut self, v: &Value, path: &str) -> R<Vec<Workload>> {
        let mut out = Vec::new();
        let mut total = 0u64;
        let a = capped(v, path, MAX_WORKLOADS, "workloads")?;
        for (i, e) in a.iter().enumerate() {
            let ep = idx(path, i);
            let o = obj(e, &ep)?;
            let kind = o.get("kind").and_then(Value::as_str).filter(|k| matches!(*k, "hackbench" | "schbench"));
            let params: Vec<&str> = match kind {
                Some("hackbench") => HACKBENCH.to_vec(),
                Some(_) => SCHBENCH.to_vec(),
                None => HACKBENCH.iter().chain(SCHBENCH.iter().filter(|k| **k != "msg_us")).copied().collect(),
            };
            let allowed: Vec<&str> = COMMON.iter().chain(params.iter()).copied().collect();
            let (mut wname, mut start_ms, mut attrs) = (None, 0, Attrs::default());
            let mut got: Vec<(&str, u64)> = Vec::new();
            for (k, x) in o {
                let kp = key(&ep, k);
                match k.as_str() {
                    "kind" => {
                        one_of(x, &kp, &[("hackbench", ()), ("schbench", ())])?;
                    }
                    "name" => wname = Some(self.unique_name(x, &kp)?),
                    "start_ms" => start_ms = self.start_ms(x, &kp)?,
                    _ if params.contains(&k.as_str()) => {
                        if kind.is_some() {
                            let (lo, hi) = param_range(k);
                            let p = params.iter().find(|p| **p == k.as_str()).copied().unwrap_or("");
                            got.push((p, uint(x, &kp, lo, hi)?));
                        }
                    }
                    _ => {
                        if !self.attr(k, x, &kp, &mut attrs)? {
                            return Err(unknown(&ep, k, &allowed));
                        }
                    }
                }
            }
            if !attrs.policy.is_fair() {
                return Err(ScenarioError::at(
                    key(&ep, "policy"),
                    format!("expected \"normal\", \"batch\" or \"idle\" for a workload, got \"{}\" (only single tasks may be in a higher class)", attrs.policy.name()),
                ));
            }
            let name = wname.ok_or_else(|| missing(&ep, "name"))?;
            let kind = kind.ok_or_else(|| missing(&ep, "kind"))?;
            let param = |k: &str, default: Option<u64>| {
                got.iter().find(|(p, _)| *p == k).map(|(_, v)| *v).or(default).ok_or_else(|| missing(&ep, k))
            };
            let as32 = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
            let (kind, n) = if kind == "hackbench" {
                let (groups, fds) = (as32(param("groups", None)?), as32(param("fds", Some(20))?));
                let k = WorkloadKind::Hackbench {
                    groups,
                    fds,
                    loops: param("loops", Some(100))?,
                    msg_us: param("msg_us", Some(2))?,
                    pipe_msgs: as32(param("pipe_msgs", Some(655))?),
                };
                (k, 2 * u64::from(groups) * u64::from(fds))
            } else {
                let (messengers, workers) = (as32(param("messengers", None)?), as32(param("workers", None)?));
                let (sleep_us, msg_us) = (param("sleep_us", Some(10_000))?, param("msg_us", Some(2))?);
                if sleep_us == 0 && msg_us == 0 {
                    let msg = "sleep_us and msg_us are both 0: the messengers would loop without simulated time \
                               passing (expected at least one of them > 0)";
                    return Err(ScenarioError::at(&ep, msg));
                }
                let cputime_us = param("cputime_us", Some(10_000))?;
                let k = WorkloadKind::Schbench { messengers, workers, sleep_us, cputime_us, msg_us };
                (k, u64::from(messengers) * (1 + u64::from(workers)))
            };
            total += n;
            out.push(Workload { name, start_ms, attrs, kind });
        }
        self.add_tasks(total, path)?;
        Ok(out)
    }
}

fn behavior(v: &Value, path: &str) -> R<Behavior> {
    let o = obj(v, path)?;
    let kinds = [("hog", 0u8), ("periodic", 1), ("bursty", 2), ("duty", 3), ("replay", 4)];
    let kind = o.get("kind").and_then(Value::as_str).and_then(|s| kinds.iter().find(|(n, _)| *n == s)).map(|k| k.1);
    let allowed: &[&str] = match kind {
        Some(0) => &["kind"],
        Some(1) => &["kind", "period_us", "run_us"],
        Some(2) => &["kind", "run_us", "sleep_us"],
        Some(3) => &["kind", "percent", "period_us"],
        Some(4) => &["kind", "start_us", "steps_us"],
        _ => &["kind", "period_us", "run_us", "sleep_us", "percent", "start_us", "steps_us"],
    };
    let (mut period, mut run, mut percent) = (None, None, None);
    let (mut run_d, mut sleep_d) = (None, None);
    let mut steps = None;
    let mut start_us = 0;
    for (k, x) in o {
        let kp = key(path, k);
        if !allowed.contains(&k.as_str()) {
            return Err(unknown(path, k, allowed));
        }
        match (k.as_str(), kind) {
            ("kind", _) => {
                one_of(x, &kp, &kinds)?;
            }
            (_, None) => {} // the kind is missing or invalid: reported below or at its own place
            ("period_us", _) => period = Some(uint(x, &kp, 1, 10_000_000)?),
            ("run_us", Some(2)) => run_d = Some(dist(x, &kp)?),
            ("run_us", _) => run = Some(uint(x, &kp, 1, 10_000_000)?),
            ("sleep_us", _) => sleep_d = Some(dist(x, &kp)?),
            ("steps_us", _) => steps = Some(replay_steps(x, &kp)?),
            ("start_us", _) => start_us = uint(x, &kp, 0, 600_000_000)?,
            _ => percent = Some(u32_in(x, &kp, 1, 100)?), // percent
        }
    }
    Ok(match kind.ok_or_else(|| missing(path, "kind"))? {
        0 => Behavior::Hog,
        1 => Behavior::Periodic { period_us: need(period, path, "period_us")?, run_us: need(run, path, "run_us")? },
        2 => {
            let (run_us, sleep_us) = (need(run_d, path, "run_us")?, need(sleep_d, path, "sleep_us")?);
            if always_zero(&run_us) && always_zero(&sleep_us) {
                let msg = "run_us and sleep_us are both always 0: simulated time would never advance \
                           (expected at least one of them to be able to exceed 0)";
                return Err(ScenarioError::at(path, msg));
            }
            Behavior::Bursty { run_us, sleep_us }
        }
        3 => Behavior::Duty { percent: need(percent, path, "percent")?, period_us: need(period, path, "period_us")? },
        _ => Behavior::Replay { start_us, steps_us: need(steps, path, "steps_us")? },
    })
}

/// Most steps one replayed task may have.
pub const MAX_REPLAY_STEPS: usize = 1_000_000;

/// `steps_us`: 1..=10^6 pairs `[sleep_us 0..=10^9, run_us 1..=10^9]`.
fn replay_steps(v: &Value, path: &str) -> R<Vec<(u64, u64)>> {
    let a = arr(v, path)?;
    if a.is_empty() || a.len() > MAX_REPLAY_STEPS {
        return Err(expected(path, &format!("an array of 1 to {MAX_REPLAY_STEPS} [sleep_us, run_us] pairs"), v));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            let p = idx(path, i);
            let pair = arr(x, &p)?;
            if pair.len() != 2 {
                return Err(expected(&p, "a pair [sleep_us, run_us]", x));
            }
            Ok((uint(&pair[0], &idx(&p, 0), 0, 1_000_000_000)?, uint(&pair[1], &idx(&p, 1), 1, 1_000_000_000)?))
        })
        .collect()
}

fn need<T>(x: Option<T>, path: &str, k: &str) -> R<T> {
    x.ok_or_else(|| missing(path, k))
}

fn always_zero(d: &Dist) -> bool {
    match *d {
        Dist::Fixed(x) => x == 0.0,
        Dist::Exp(_) => false,
        Dist::Uniform(_, hi) => hi == 0.0,
        Dist::Normal(m, sd) => m == 0.0 && sd == 0.0,
    }
}

/// The model's resolution: one nanosecond, in µs.
const RESOLUTION_US: f64 = 0.001;

/// A bursty duration below the model's 1 ns resolution rounds to 0 at every draw, so each
/// cycle would advance time by 1 ns: refused, naming the value (`0` itself is allowed).
fn at_resolution(d: Dist, path: &str) -> R<Dist> {
    let smallest_positive = match d {
        Dist::Fixed(x) | Dist::Exp(x) => x,
        Dist::Uniform(_, hi) => hi,
        Dist::Normal(m, sd) => m.max(sd),
    };
    if smallest_positive > 0.0 && smallest_positive < RESOLUTION_US {
        let msg = format!(
            "{} µs is below the model's resolution of 1 ns (0.001 µs): every draw would be 0 ns and \
             simulated time would crawl; use 0 or at least 0.001",
            smallest_positive
        );
        return Err(ScenarioError::at(path, msg));
    }
    Ok(d)
}

/// A bursty duration: a number or a one-key distribution object (contract §1.3).
fn dist(v: &Value, path: &str) -> R<Dist> {
    let d = dist_raw(v, path)?;
    at_resolution(d, path)
}

fn dist_raw(v: &Value, path: &str) -> R<Dist> {
    const MAX: f64 = 10_000_000.0;
    match v {
        Value::Number(_) => Ok(Dist::Fixed(num(v, path, 0.0, MAX, DIST_WHAT)?)),
        Value::Object(o) => {
            let mut it = o.iter();
            let (Some((k, x)), None) = (it.next(), it.next()) else {
                return Err(expected(path, "an object with exactly one of the keys exp, uniform, normal", v));
            };
            let kp = key(path, k);
            match k.as_str() {
                "exp" => {
                    let m = num(x, &kp, 0.0, MAX, "a mean in µs, > 0 and <= 10000000")?;
                    if m <= 0.0 {
                        return Err(expected(&kp, "a mean in µs, > 0 and <= 10000000", x));
                    }
                    Ok(Dist::Exp(m))
                }
                "uniform" => {
                    let (lo, hi) = pair(x, &kp, "[lo, hi]")?;
                    if hi < lo {
                        return Err(expected(&idx(&kp, 1), &format!("hi >= lo ({lo})"), &o_index(x, 1)));
                    }
                    Ok(Dist::Uniform(lo, hi))
                }
                "normal" => {
                    let (m, sd) = pair(x, &kp, "[mean, sd]")?;
                    Ok(Dist::Normal(m, sd))
                }
                _ => Err(unknown(path, k, &["exp", "uniform", "normal"])),
            }
        }
        _ => Err(expected(path, DIST_WHAT, v)),
    }
}

fn o_index(v: &Value, i: usize) -> Value {
    v.get(i).cloned().unwrap_or(Value::Null)
}

/// Two numbers in 0..=10^7.
fn pair(v: &Value, path: &str, shape: &str) -> R<(f64, f64)> {
    let what = format!("an array {shape} of two numbers in 0..=10000000");
    match v.as_array().map(Vec::as_slice) {
        Some([a, b]) => {
            let a = num(a, &idx(path, 0), 0.0, 10_000_000.0, "a number in 0..=10000000")?;
            let b = num(b, &idx(path, 1), 0.0, 10_000_000.0, "a number in 0..=10000000")?;
            Ok((a, b))
        }
        _ => Err(expected(path, &what, v)),
    }
}
