//! Which change did it? An A/B whose two sides differ in several switches (features, policy,
//! tunables, nice, latency nice, costs …) is taken apart one switch at a time, as the v12
//! thread did by hand ("applied each change individually. 3rd change seems to cause the
//! regression"): every single step from A towards B and from B back towards A, and with up
//! to [`FULL_SUBSETS_UP_TO`] switches every combination, to find interactions. The runs are
//! handed to a caller-supplied runner, so the CLI can run them in parallel and the browser
//! one after another, with the same result.

use super::compare::variant;
use super::patch::Assignment;
use crate::report::{LatencyStats, Report};
use crate::{run_text, Limits, ScenarioError};
use serde::Serialize;
use serde_json::Value;

/// Up to this many switches, every subset is run (2^n runs) and pairs are checked for
/// interaction; beyond it, only the 2n + 2 single steps.
pub const FULL_SUBSETS_UP_TO: usize = 8;

/// The figure an ablation explains.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Figure {
    /// A task's, workload's or cgroup's wakeup latency percentile (`p50`, `p90`, `p95`, `p99`,
    /// `max`, `mean`), in µs.
    Latency { who: String, stat: String },
    /// A workload's completion time, in ms.
    Completion { workload: String },
    /// A task's wakeup preemptions (of others).
    Preemptions { task: String },
    /// A task's or cgroup's CPU share, in percent.
    Share { who: String },
}

impl Figure {
    /// `task:NAME:p99`, `workload:NAME:p50`, `cgroup:NAME:p90`, `workload:NAME:completion`,
    /// `task:NAME:preemptions`, `task:NAME:share`, `cgroup:NAME:share`.
    pub fn parse(s: &str) -> Result<Figure, String> {
        let parts: Vec<&str> = s.splitn(3, ':').collect();
        let [kind, name, what] = parts[..] else {
            return Err(format!("figure {s:?}: expected KIND:NAME:WHAT, e.g. task:cyclictest:p99"));
        };
        let who = format!("{kind}:{name}");
        Ok(match (kind, what) {
            ("task" | "workload" | "cgroup", "p50" | "p90" | "p95" | "p99" | "max" | "mean") => Figure::Latency { who, stat: what.into() },
            ("workload", "completion") => Figure::Completion { workload: name.into() },
            ("task", "preemptions") => Figure::Preemptions { task: name.into() },
            ("task" | "cgroup", "share") => Figure::Share { who },
            _ => return Err(format!("figure {s:?}: not one of task|workload|cgroup:NAME:p50|p90|p95|p99|max|mean, workload:NAME:completion, task:NAME:preemptions, task|cgroup:NAME:share")),
        })
    }

    /// The figure in a report, or None when the run has none (no samples, not completed).
    pub fn of(&self, r: &Report) -> Result<Option<f64>, String> {
        let lat = |l: &LatencyStats, stat: &str| -> Option<f64> {
            let ns = match stat {
                "p50" => l.p50,
                "p90" => l.p90,
                "p95" => l.p95,
                "p99" => l.p99,
                "max" => l.max,
                _ => l.mean,
            };
            ns.map(|x| x as f64 / 1e3)
        };
        let missing = |who: &str| format!("the report has no {}", who.replace(':', " "));
        match self {
            Figure::Latency { who, stat } => {
                let (kind, name) = who.split_once(':').unwrap_or(("task", who));
                let l = match kind {
                    "task" => r.tasks.iter().find(|t| t.name == name).map(|t| &t.wakeup_latency_ns),
                    "workload" => r.workloads.iter().find(|w| w.name == name).map(|w| &w.wakeup_latency_ns),
                    _ => r.cgroups.iter().find(|g| g.name == name).map(|g| &g.wakeup_latency_ns),
                };
                l.map(|l| lat(l, stat)).ok_or_else(|| missing(who))
            }
            Figure::Completion { workload } => r
                .workloads
                .iter()
                .find(|w| &w.name == workload)
                .map(|w| w.completion_ns.map(|c| c as f64 / 1e6))
                .ok_or_else(|| missing(&format!("workload:{workload}"))),
            Figure::Preemptions { task } => r
                .tasks
                .iter()
                .find(|t| &t.name == task)
                .map(|t| Some(t.wakeup_preemptions as f64))
                .ok_or_else(|| missing(&format!("task:{task}"))),
            Figure::Share { who } => {
                let (kind, name) = who.split_once(':').unwrap_or(("task", who));
                let d = r.duration_ns.max(1) as f64;
                let cpu = match kind {
                    "task" => r.tasks.iter().find(|t| t.name == name).map(|t| t.cpu_ns),
                    _ => r.cgroups.iter().find(|g| g.name == name).map(|g| g.cpu_ns),
                };
                cpu.map(|c| Some(100.0 * c as f64 / d)).ok_or_else(|| missing(who))
            }
        }
    }
}

/// One switch that differs between A and B: its path and its value on each side (`None`:
/// as in the file, which may be the default).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Switch {
    pub path: String,
    pub a: Option<Value>,
    pub b: Option<Value>,
}

/// What one switch accounts for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effect {
    pub switch: Switch,
    /// A with this switch as in B, minus A.
    pub forward: Option<f64>,
    /// B minus B with this switch as in A.
    pub backward: Option<f64>,
    /// The mean of the two as a percentage of B − A (None when B = A or a run lacks the figure).
    pub share_pct: Option<f64>,
}

/// Two switches whose joint effect from A differs from the sum of their own.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interaction {
    pub first: String,
    pub second: String,
    /// A with both as in B, minus A.
    pub joint: f64,
    /// The two forward effects added.
    pub sum: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ablation {
    pub figure: Figure,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// Most explaining first.
    pub effects: Vec<Effect>,
    pub interactions: Vec<Interaction>,
    /// Scenario runs made (2^n with every subset, else 2n + 2).
    pub runs: usize,
}

/// The value at `path` in `v`, if present.
fn get<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = v;
    for part in path.split('.') {
        let (key, index) = match part.split_once('[') {
            Some((k, rest)) => (k, rest.strip_suffix(']').and_then(|n| n.parse::<usize>().ok())),
            None => (part, None),
        };
        cur = cur.get(key)?;
        if let Some(i) = index {
            cur = cur.get(i)?;
        }
    }
    Some(cur)
}

/// Remove the key at the end of `path` (a switch set on one side only goes back to the
/// file's default on the other).
fn remove(v: &mut Value, path: &str) {
    let (parent, key) = match path.rsplit_once('.') {
        Some((p, k)) => (Some(p), k),
        None => (None, path),
    };
    if key.contains('[') {
        return;
    }
    let mut cur = v;
    if let Some(p) = parent {
        for part in p.split('.') {
            let (k, index) = match part.split_once('[') {
                Some((k, rest)) => (k, rest.strip_suffix(']').and_then(|n| n.parse::<usize>().ok())),
                None => (part, None),
            };
            let Some(next) = cur.get_mut(k) else { return };
            cur = next;
            if let Some(i) = index {
                let Some(next) = cur.get_mut(i) else { return };
                cur = next;
            }
        }
    }
    if let Some(o) = cur.as_object_mut() {
        o.remove(key);
    }
}

/// The switches that differ between `a` and `b` applied to `base`, in the order they are
/// first named (A's assignments, then B's).
pub fn switches(base: &Value, a: &[Assignment], b: &[Assignment]) -> Result<Vec<Switch>, ScenarioError> {
    let va: Value = serde_json::from_str(&variant(base, a)?).map_err(|e| ScenarioError::at("", e.to_string()))?;
    let vb: Value = serde_json::from_str(&variant(base, b)?).map_err(|e| ScenarioError::at("", e.to_string()))?;
    let mut out: Vec<Switch> = Vec::new();
    for x in a.iter().chain(b) {
        if out.iter().any(|s| s.path == x.path) {
            continue;
        }
        let (sa, sb) = (get(&va, &x.path).cloned(), get(&vb, &x.path).cloned());
        if sa != sb {
            out.push(Switch { path: x.path.clone(), a: sa, b: sb });
        }
    }
    Ok(out)
}

/// The scenario text of A with the switches in `mask` as in B.
fn text_of(base: &Value, sw: &[Switch], mask: u64) -> Result<String, ScenarioError> {
    let mut v = base.clone();
    for (i, s) in sw.iter().enumerate() {
        let value = if mask >> i & 1 == 1 { &s.b } else { &s.a };
        match value {
            Some(x) => super::patch::apply_at(&mut v, &Assignment { path: s.path.clone(), value: x.clone() })?,
            None => remove(&mut v, &s.path),
        }
    }
    Ok(v.to_string())
}

/// The masks an ablation of `n` switches runs, in a fixed order: every subset when
/// `n <= FULL_SUBSETS_UP_TO`, else A, B, each single step from A and from B.
pub fn masks(n: usize) -> Vec<u64> {
    let all = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    if n <= FULL_SUBSETS_UP_TO {
        return (0..=all).collect();
    }
    let mut m = vec![0, all];
    m.extend((0..n).map(|i| 1u64 << i));
    m.extend((0..n).map(|i| all & !(1u64 << i)));
    m
}

/// Runs scenario texts and returns their reports in the same order; the CLI's runs them on
/// several threads, `run_in_order` one after another.
pub type Runner<'a> = &'a dyn Fn(&[String]) -> Vec<Result<Report, ScenarioError>>;

/// Run each text in turn (the browser's runner, and the reference for parallel ones).
pub fn run_in_order(limits: Limits) -> impl Fn(&[String]) -> Vec<Result<Report, ScenarioError>> {
    move |texts: &[String]| texts.iter().map(|t| run_text(t, &limits)).collect()
}

/// Ablate the A/B of `base_text` (a scenario file) under `a` and `b` on `figure`.
pub fn ablate(base_text: &str, a: &[Assignment], b: &[Assignment], figure: &Figure, runner: Runner) -> Result<Ablation, ScenarioError> {
    let base = crate::scenario::parse_jsonc(base_text)?;
    let sw = switches(&base, a, b)?;
    if sw.is_empty() {
        return Err(ScenarioError::at("", "A and B set the same values: there is no change to take apart"));
    }
    if sw.len() > 63 {
        return Err(ScenarioError::at("", format!("{} switches differ; at most 63 can be taken apart", sw.len())));
    }
    let ms = masks(sw.len());
    let texts = ms.iter().map(|&m| text_of(&base, &sw, m)).collect::<Result<Vec<_>, _>>()?;
    let reports = runner(&texts);
    let mut fig = std::collections::BTreeMap::new();
    for (m, r) in ms.iter().zip(reports) {
        let r = r?;
        fig.insert(*m, figure.of(&r).map_err(|e| ScenarioError::at("", e))?);
    }
    let n = sw.len();
    let all = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let at = |m: u64| fig.get(&m).copied().flatten();
    let (fa, fb) = (at(0), at(all));
    let total = fa.zip(fb).map(|(x, y)| y - x);
    let mut effects: Vec<Effect> = sw
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let forward = at(1 << i).zip(fa).map(|(x, y)| x - y);
            let backward = fb.zip(at(all & !(1 << i))).map(|(x, y)| x - y);
            let share_pct = match (forward, backward, total) {
                (Some(f), Some(b), Some(t)) if t != 0.0 => Some(100.0 * (f + b) / 2.0 / t),
                _ => None,
            };
            Effect { switch: s.clone(), forward, backward, share_pct }
        })
        .collect();
    // Most explaining first; ties (and unknown shares) keep the order the switches were named.
    effects.sort_by(|x, y| {
        let k = |e: &Effect| e.share_pct.map_or(-1.0, f64::abs);
        k(y).partial_cmp(&k(x)).unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut interactions = Vec::new();
    if n <= FULL_SUBSETS_UP_TO {
        // Beyond 5 % of the A→B difference (or of the figure itself when A = B), a joint
        // effect is not the sum of its parts.
        let scale = total.map(f64::abs).filter(|t| *t > 0.0).or(fa.map(f64::abs)).unwrap_or(0.0);
        let tol = (0.05 * scale).max(1e-9);
        for i in 0..n {
            for j in i + 1..n {
                let (Some(fi), Some(fj), Some(fij), Some(f0)) = (at(1 << i), at(1 << j), at(1 << i | 1 << j), fa) else { continue };
                let (joint, sum) = (fij - f0, (fi - f0) + (fj - f0));
                if (joint - sum).abs() > tol {
                    interactions.push(Interaction { first: sw[i].path.clone(), second: sw[j].path.clone(), joint, sum });
                }
            }
        }
        interactions.sort_by(|x, y| (y.joint - y.sum).abs().partial_cmp(&(x.joint - x.sum).abs()).unwrap_or(std::cmp::Ordering::Equal));
    }
    Ok(Ablation { figure: figure.clone(), a: fa, b: fb, effects, interactions, runs: ms.len() })
}

/// The switches of the presets that mirror the seeds, as (A, B) assignments.
pub fn preset(name: &str) -> Option<(Vec<Assignment>, Vec<Assignment>)> {
    let set = |p: &str, v: Value| Assignment { path: p.into(), value: v };
    let f = |k: &str| format!("scheduler.features.{k}");
    match name {
        // Seed 000: the three get_latency_max() clamp sites of latency nice v12, on and off.
        "clamps" => Some((
            vec![
                set(&f("latency_max_clamp_wakeup"), true.into()),
                set(&f("latency_max_clamp_offset"), "always".into()),
                set(&f("latency_max_clamp_tick"), true.into()),
            ],
            vec![
                set(&f("latency_max_clamp_wakeup"), false.into()),
                set(&f("latency_max_clamp_offset"), "off".into()),
                set(&f("latency_max_clamp_tick"), false.into()),
            ],
        )),
        // Seed 003: complete EEVDF's switches (v6.12) against v6.6's behaviour.
        "complete-eevdf" => {
            let keys = ["delay_dequeue", "delay_zero", "preempt_short", "place_rel_deadline"];
            Some((
                std::iter::once(set("scheduler.policy", "eevdf-v6.12".into())).chain(keys.iter().map(|k| set(&f(k), false.into()))).collect(),
                std::iter::once(set("scheduler.policy", "eevdf-v6.12".into())).chain(keys.iter().map(|k| set(&f(k), true.into()))).collect(),
            ))
        }
        _ => None,
    }
}
