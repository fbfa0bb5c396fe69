//! Parsing and validation of scenario files (contract §1).
//!
//! # How errors look
//! The first error in document order is reported as a [`ScenarioError`] whose `path` is the
//! JSON path of the offending value (`tasks[2].behavior.period_us`; root keys plain:
//! `duration_ms`, `scheduler.policy`; the whole document is the empty path) and whose message
//! says what was expected and what was found:
//! - `expected an integer in 1..=600000, got 0`
//! - `expected an integer in 1..=600000, got 1.0 (not an integer)`
//! - `unknown key "perod_us" (expected one of: kind, period_us, run_us)`
//! - `missing required key "duration_ms"`, reported at the path of the object that lacks it,
//!   once the whole object has been read (so errors inside the object come first);
//! - a syntax error has an empty path, a 1-based `line` and `column` (in characters) and
//!   serde_json's message; duplicate keys in an object are syntax errors.
//!
//! # Choices (see also `CHOICES.md`)
//! - Values that one part of the file needs from another (`machine.cpus` for CPU ids,
//!   `duration_ms` for `start_ms`, the cgroup and task names for references, the policy for
//!   warnings) are read beforehand, so that each check happens at its own place in document
//!   order whatever the order of the keys. When the value they depend on is itself invalid,
//!   dependent checks are relaxed and the invalid value is reported at its own place.
//! - `start_ms` is in `0..=duration_ms` (inclusive: a task forked at the end never runs).
//! - `null` is accepted, meaning "absent", for `description`, `machine.llc_size`,
//!   `cgroups[].parent`, `slice_us` and a task's or workload's `cgroup`.
//! - Tunables and features that do not apply to the policy are validated, kept in the
//!   `Scenario` as written (so a scenario keeps them when run under another policy) and
//!   produce a warning; the engine (`Feat::resolve`, `Config::from_scenario`) skips them.
//! - `bursty` with `run_us` and `sleep_us` both always 0, and `schbench` with `sleep_us` and
//!   `msg_us` both 0, are refused: simulated time would never advance.
//! - A `normal` distribution needs `0 <= mean <= 10^7` and `0 <= sd <= 10^7`.
//! - Warnings are also given for timeline `set`s of `latency_nice` ≠ 0 or `slice_us` ≠ 0
//!   under a policy where they mean nothing, and for timeline entries at or after the end.

use super::fields::*;
use super::refs::Cx;
use super::{jsonc, Costs, Features, Machine, Policy, Preemption, Scaling, Scenario, ScenarioError, Scheduler, Tunables, FORMAT};
use super::{ClampOffset, WakeupPreemptVariant};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A scenario that passed validation, with the report's `warnings` (knobs ignored under the
/// chosen policy).
#[derive(Clone, Debug)]
pub struct Validated {
    pub scenario: Scenario,
    pub warnings: Vec<String>,
}

/// Most tasks a scenario may hold after expansion (contract §1.1).
pub const MAX_TASKS: u64 = 10_000;
/// Most cgroups a scenario may declare, and how deep their tree may go (a root child has
/// depth 1). Each cgroup is a group entity and a runqueue on every CPU, and the report copies
/// each sample into every ancestor, so both bound memory.
pub const MAX_CGROUPS: usize = 1024;
pub const MAX_CGROUP_DEPTH: usize = 32;
/// Most timeline entries (live edits included).
pub const MAX_TIMELINE: usize = 100_000;
/// Most workloads.
pub const MAX_WORKLOADS: usize = 1024;

/// Parse and validate a scenario file (JSON or JSONC) as contract §1 says.
pub fn parse_scenario(text: &str) -> Result<Validated, ScenarioError> {
    let v = jsonc::parse(text)?;
    parse_value(&v)
}

/// Validate an already parsed JSON value (document order is the order of its objects' keys).
pub fn parse_value(v: &Value) -> Result<Validated, ScenarioError> {
    let mut p = P { cx: Cx::read(v), warnings: Vec::new(), names: HashSet::new(), cgroups: HashMap::new(), total: 0 };
    let scenario = p.root(v)?;
    Ok(Validated { scenario, warnings: p.warnings })
}

/// Validator state while walking the document in order.
pub(crate) struct P {
    pub cx: Cx,
    pub warnings: Vec<String>,
    /// Task and workload names seen so far (one namespace). Sets, so that validation stays
    /// linear in the size of the file.
    pub names: HashSet<String>,
    /// Cgroups seen so far, with their depth (a root child has depth 1).
    pub cgroups: HashMap<String, usize>,
    /// Expanded tasks so far.
    pub total: u64,
}

const ROOT_KEYS: &[&str] = &[
    "format", "name", "description", "seed", "duration_ms", "machine", "scheduler", "cgroups", "tasks",
    "workloads", "timeline", "lesson",
];

const TUNABLE_KEYS: &[&str] =
    &["latency_ns", "min_granularity_ns", "wakeup_granularity_ns", "sched_nr_latency", "base_slice_ns", "tunable_scaling"];

pub(crate) const FEATURE_KEYS: &[&str] = &[
    "gentle_fair_sleepers", "start_debit", "last_buddy", "next_buddy", "wakeup_preemption", "ideal_runtime_cap",
    "latency_list", "latency_max_clamp_tick", "latency_max_clamp_offset", "latency_max_clamp_wakeup",
    "wakeup_preempt_variant", "update_cfs_group_enqueue", "update_cfs_group_dequeue", "place_lag",
    "place_deadline_initial", "place_rel_deadline", "run_to_parity", "preempt_short", "delay_dequeue", "delay_zero",
    "respect_slice", "run_to_parity_wakeup", "pick_buddy",
];

const CFS: u8 = 1;
const V12: u8 = 2;
const E66: u8 = 4;
const E612: u8 = 8;
const E618: u8 = 16;
const ALL: u8 = CFS | V12 | E66 | E612 | E618;

/// The policies a tunable or feature applies to (the contract's §1.2 table).
pub(crate) fn applies(k: &str, policy: Policy) -> bool {
    let mask = match k {
        "latency_ns" | "min_granularity_ns" | "wakeup_granularity_ns" | "sched_nr_latency" => CFS | V12,
        "gentle_fair_sleepers" | "start_debit" | "last_buddy" | "ideal_runtime_cap" => CFS | V12,
        "base_slice_ns" | "place_lag" | "place_deadline_initial" | "run_to_parity" => E66 | E612 | E618,
        "latency_list" | "latency_max_clamp_tick" | "latency_max_clamp_offset" | "latency_max_clamp_wakeup"
        | "wakeup_preempt_variant" => V12,
        "place_rel_deadline" | "preempt_short" | "delay_dequeue" | "delay_zero" => E612 | E618,
        // The two RFCs were written against v6.12's pick; v6.18 reworked it (protect_slice()).
        "respect_slice" | "run_to_parity_wakeup" => E612,
        "pick_buddy" => E618,
        _ => ALL,
    };
    let bit = match policy {
        Policy::CfsV62 => CFS,
        Policy::LatencyNiceV12 => V12,
        Policy::EevdfV66 => E66,
        Policy::EevdfV612 => E612,
        Policy::EevdfV618 => E618,
    };
    mask & bit != 0
}

/// `machine.costs`: `"measured"`, or an object of ns values in 0..=10^7, each default 0.
fn costs(v: &Value, path: &str) -> R<Costs> {
    if v.as_str() == Some("measured") {
        return Ok(Costs::MEASURED);
    }
    let what = "\"measured\" or an object with switch_ns, wakeup_ns, idle_exit_ns, migration_ns";
    let o = v.as_object().ok_or_else(|| expected(path, what, v))?;
    let mut c = Costs::default();
    for (k, x) in o {
        let kp = key(path, k);
        let ns = || uint(x, &kp, 0, 10_000_000);
        match k.as_str() {
            "switch_ns" => c.switch_ns = ns()?,
            "wakeup_ns" => c.wakeup_ns = ns()?,
            "idle_exit_ns" => c.idle_exit_ns = ns()?,
            "migration_ns" => c.migration_ns = ns()?,
            _ => return Err(unknown(path, k, &["switch_ns", "wakeup_ns", "idle_exit_ns", "migration_ns"])),
        }
    }
    Ok(c)
}

impl P {
    fn root(&mut self, v: &Value) -> R<Scenario> {
        let o = obj(v, "")?;
        let (mut name, mut description, mut seed, mut duration_ms) = (None, None, 1, None);
        let (mut format_seen, mut machine, mut scheduler) = (false, Machine::default(), None);
        let (mut cgroups, mut tasks, mut workloads, mut timeline) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut lesson = None;
        for (k, x) in o {
            let kp = key("", k);
            match k.as_str() {
                "format" => {
                    if x.as_str() != Some(FORMAT) {
                        return Err(expected(&kp, &format!("the string \"{FORMAT}\""), x));
                    }
                    format_seen = true;
                }
                "name" => {
                    let what = "a string of 1 to 120 characters";
                    let s = string(x, &kp, what)?;
                    if !(1..=120).contains(&s.chars().count()) {
                        return Err(expected(&kp, what, x));
                    }
                    name = Some(s.to_string());
                }
                "description" => {
                    description = match x {
                        Value::Null => None,
                        _ => Some(string(x, &kp, "a string or null")?.to_string()),
                    }
                }
                "seed" => seed = uint(x, &kp, 0, 1 << 53)?,
                "duration_ms" => duration_ms = Some(uint(x, &kp, 1, 600_000)?),
                "machine" => machine = self.machine(x, &kp)?,
                "scheduler" => scheduler = Some(self.scheduler(x, &kp)?),
                "cgroups" => cgroups = self.cgroups(x, &kp)?,
                "tasks" => tasks = self.tasks(x, &kp)?,
                "workloads" => workloads = self.workloads(x, &kp)?,
                "timeline" => timeline = self.timeline(x, &kp)?,
                "lesson" => lesson = Some(super::lesson::parse(x, &kp)?),
                _ => return Err(unknown("", k, ROOT_KEYS)),
            }
        }
        if !format_seen {
            return Err(missing("", "format"));
        }
        let name = name.ok_or_else(|| missing("", "name"))?;
        let duration_ms = duration_ms.ok_or_else(|| missing("", "duration_ms"))?;
        let scheduler = scheduler.ok_or_else(|| missing("", "scheduler"))?;
        if tasks.is_empty() && workloads.is_empty() {
            return Err(ScenarioError::at("", "expected at least one task or workload, got none"));
        }
        let s = Scenario { name, description, seed, duration_ms, machine, scheduler, cgroups, tasks, workloads, timeline, lesson };
        if let Some(l) = &s.lesson {
            super::lesson::check_refs(&s, l)?;
        }
        Ok(s)
    }

    fn machine(&mut self, v: &Value, path: &str) -> R<Machine> {
        let o = obj(v, path)?;
        let mut m = Machine::default();
        let (mut topology, mut distance) = (None, None);
        for (k, x) in o {
            let kp = key(path, k);
            match k.as_str() {
                "cpus" => m.cpus = u32_in(x, &kp, 1, 1024)?,
                "hz" => {
                    m.hz = one_of_int(x, &kp, &[100, 250, 300, 1000])?;
                }
                "llc_size" => {
                    m.llc_size = match x {
                        Value::Null => None,
                        _ => {
                            let n = u32_in(x, &kp, 1, 1024)?;
                            if let Some(c) = self.cx.cpus {
                                if c % n != 0 {
                                    let msg = format!("expected a divisor of machine.cpus ({c}), got {n}");
                                    return Err(ScenarioError::at(kp, msg));
                                }
                            }
                            Some(n)
                        }
                    }
                }
                "costs" => m.costs = costs(x, &kp)?,
                "preemption" => m.preemption = self.preemption(x, &kp)?,
                "topology" => topology = Some(super::machine::topology(x, &kp)?),
                "distance" => distance = Some(super::machine::distance(x, &kp)?),
                _ => return Err(unknown(path, k, &["cpus", "hz", "llc_size", "topology", "distance", "costs", "preemption"])),
            }
        }
        m.topology = super::machine::check(path, self.cx.cpus, m.llc_size, topology, distance)?;
        Ok(m)
    }

    /// `machine.preemption`: `lazy` only where the policy's kernel has PREEMPT_LAZY (v6.13+).
    fn preemption(&mut self, x: &Value, kp: &str) -> R<Preemption> {
        let opts = [("none", Preemption::None), ("voluntary", Preemption::Voluntary), ("full", Preemption::Full), ("lazy", Preemption::Lazy)];
        let p = one_of(x, kp, &opts)?;
        if let (Preemption::Lazy, Some(policy)) = (p, self.cx.policy) {
            if !policy.has_preempt_lazy() {
                let msg = format!(
                    "expected one of \"none\", \"voluntary\", \"full\" under {} (PREEMPT_LAZY arrived in Linux 6.13: use eevdf-v6.18), got \"lazy\"",
                    policy.name()
                );
                return Err(ScenarioError::at(kp, msg));
            }
        }
        Ok(p)
    }

    fn scheduler(&mut self, v: &Value, path: &str) -> R<Scheduler> {
        let o = obj(v, path)?;
        let (mut policy, mut tunables, mut features) = (None, Tunables::default(), Features::default());
        for (k, x) in o {
            let kp = key(path, k);
            match k.as_str() {
                "policy" => {
                    let opts: Vec<(&str, Policy)> = Policy::ALL.iter().map(|p| (p.name(), *p)).collect();
                    policy = Some(one_of(x, &kp, &opts)?);
                }
                "tunables" => tunables = self.tunables(x, &kp)?,
                "features" => features = self.features(x, &kp)?,
                _ => return Err(unknown(path, k, &["policy", "tunables", "features"])),
            }
        }
        let policy = policy.ok_or_else(|| missing(path, "policy"))?;
        Ok(Scheduler { policy, tunables, features })
    }

    /// Warn that a known key does not apply to the policy.
    fn check_applies(&mut self, kp: &str, k: &str) {
        if let Some(p) = self.cx.policy {
            if !applies(k, p) {
                self.warnings.push(format!("{kp} does not apply to {}; ignored", p.name()));
            }
        }
    }

    fn tunables(&mut self, v: &Value, path: &str) -> R<Tunables> {
        let o = obj(v, path)?;
        let mut t = Tunables::default();
        for (k, x) in o {
            let kp = key(path, k);
            match k.as_str() {
                "latency_ns" => t.latency_ns = Some(uint(x, &kp, 100_000, 1_000_000_000)?),
                "min_granularity_ns" => t.min_granularity_ns = Some(uint(x, &kp, 100_000, 1_000_000_000)?),
                "wakeup_granularity_ns" => t.wakeup_granularity_ns = Some(uint(x, &kp, 0, 1_000_000_000)?),
                "sched_nr_latency" => t.sched_nr_latency = Some(uint(x, &kp, 1, 1000)?),
                "base_slice_ns" => t.base_slice_ns = Some(uint(x, &kp, 100_000, 1_000_000_000)?),
                "tunable_scaling" => {
                    let opts = [("none", Scaling::None), ("log", Scaling::Log), ("linear", Scaling::Linear)];
                    t.tunable_scaling = Some(one_of(x, &kp, &opts)?);
                }
                _ => return Err(unknown(path, k, TUNABLE_KEYS)),
            }
            self.check_applies(&kp, k);
        }
        Ok(t)
    }

    fn features(&mut self, v: &Value, path: &str) -> R<Features> {
        let o = obj(v, path)?;
        let mut f = Features::default();
        for (k, x) in o {
            let kp = key(path, k);
            let slot = match k.as_str() {
                "gentle_fair_sleepers" => &mut f.gentle_fair_sleepers,
                "start_debit" => &mut f.start_debit,
                "last_buddy" => &mut f.last_buddy,
                "next_buddy" => &mut f.next_buddy,
                "wakeup_preemption" => &mut f.wakeup_preemption,
                "ideal_runtime_cap" => &mut f.ideal_runtime_cap,
                "latency_list" => &mut f.latency_list,
                "latency_max_clamp_tick" => &mut f.latency_max_clamp_tick,
                "latency_max_clamp_wakeup" => &mut f.latency_max_clamp_wakeup,
                "update_cfs_group_enqueue" => &mut f.update_cfs_group_enqueue,
                "update_cfs_group_dequeue" => &mut f.update_cfs_group_dequeue,
                "place_lag" => &mut f.place_lag,
                "place_deadline_initial" => &mut f.place_deadline_initial,
                "place_rel_deadline" => &mut f.place_rel_deadline,
                "run_to_parity" => &mut f.run_to_parity,
                "preempt_short" => &mut f.preempt_short,
                "delay_dequeue" => &mut f.delay_dequeue,
                "delay_zero" => &mut f.delay_zero,
                "respect_slice" => &mut f.respect_slice,
                "run_to_parity_wakeup" => &mut f.run_to_parity_wakeup,
                "pick_buddy" => &mut f.pick_buddy,
                "latency_max_clamp_offset" => {
                    let opts = [("always", ClampOffset::Always), ("relative", ClampOffset::Relative), ("off", ClampOffset::Off)];
                    f.latency_max_clamp_offset = Some(one_of(x, &kp, &opts)?);
                    self.check_applies(&kp, k);
                    continue;
                }
                "wakeup_preempt_variant" => {
                    f.wakeup_preempt_variant = Some(one_of(x, &kp, VARIANTS)?);
                    self.check_applies(&kp, k);
                    continue;
                }
                _ => return Err(unknown(path, k, FEATURE_KEYS)),
            };
            let b = boolean(x, &kp)?;
            *slot = Some(b);
            if k == "latency_max_clamp_wakeup" && b {
                if let Some(var) = self.cx.variant.filter(|v| *v != WakeupPreemptVariant::V12) {
                    let name = VARIANTS.iter().find(|(_, w)| *w == var).map_or("", |(n, _)| *n);
                    let msg = format!(
                        "expected false or no value: wakeup_preempt_variant \"{name}\" replaces the wakeup clamp, got true"
                    );
                    return Err(ScenarioError::at(kp, msg));
                }
            }
            self.check_applies(&kp, k);
        }
        Ok(f)
    }

    /// Warn about a task, workload or timeline `latency_nice` ≠ 0 outside latency-nice-v12.
    pub(crate) fn warn_latency_nice(&mut self, path: &str, value: i32, cgroup: bool) {
        let Some(p) = self.cx.policy else { return };
        if value == 0 || p == Policy::LatencyNiceV12 {
            return;
        }
        let why = if p.is_cfs() {
            "(latency nice is the unmerged v12 patch set)".to_string()
        } else {
            "(mainline never merged latency nice)".to_string()
        };
        let hint = if !p.is_cfs() && !cgroup { " — use slice_us for a shorter slice" } else { "" };
        self.warnings.push(format!("{path} has no kernel meaning under {} {why}; ignored{hint}", p.name()));
    }

    /// Warn about a custom slice outside eevdf-v6.12.
    pub(crate) fn warn_slice(&mut self, path: &str, value: Option<u64>) {
        let Some(p) = self.cx.policy else { return };
        if matches!(value, None | Some(0)) || p.is_v612_or_later() {
            return;
        }
        self.warnings.push(format!(
            "{path} has no kernel meaning under {} (custom slices arrived in eevdf-v6.12); ignored",
            p.name()
        ));
    }

    /// Count expanded tasks and refuse more than [`MAX_TASKS`].
    pub(crate) fn add_tasks(&mut self, n: u64, path: &str) -> R<()> {
        self.total = self.total.saturating_add(n);
        if self.total > MAX_TASKS {
            let msg = format!("the scenario expands to {} tasks or more; at most {MAX_TASKS} are allowed", self.total);
            return Err(ScenarioError::at(path, msg));
        }
        Ok(())
    }
}

pub(crate) const VARIANTS: &[(&str, WakeupPreemptVariant)] = &[
    ("v12", WakeupPreemptVariant::V12),
    ("min-vruntime", WakeupPreemptVariant::MinVruntime),
    ("min-vruntime-signed", WakeupPreemptVariant::MinVruntimeSigned),
];

fn one_of_int(v: &Value, path: &str, options: &[u32]) -> R<u32> {
    let names: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    let what = format!("one of {}", names.join(", "));
    match v.as_u64() {
        Some(x) if options.iter().any(|o| u64::from(*o) == x) => Ok(u32::try_from(x).unwrap_or(0)),
        _ => Err(expected(path, &what, v)),
    }
}
