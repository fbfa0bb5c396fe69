//! Cross-references: the values read ahead of the walk ([`Cx`]), cgroups and the timeline.

use super::fields::*;
use super::parse::{P, VARIANTS};
use super::{Cgroup, FairPolicy, Policy, ScenarioError, SetAttrs, Target, TimelineEntry, WakeupPreemptVariant};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use super::parse::{MAX_CGROUP_DEPTH, MAX_CGROUPS, MAX_TIMELINE};

/// A workload's roles with their task counts, in expansion order.
pub(crate) type Roles = Vec<(&'static str, u64)>;

/// Values that one part of a file needs from another, read leniently before the walk. A
/// `None` means "invalid": the checks that depend on it are relaxed, and the invalid value
/// itself is reported where it stands.
#[derive(Clone, Debug, Default)]
pub(crate) struct Cx {
    pub cpus: Option<u32>,
    pub duration_ms: Option<u64>,
    pub policy: Option<Policy>,
    pub variant: Option<WakeupPreemptVariant>,
    pub cgroup_set: HashSet<String>,
    /// Task base names and valid counts (the first entry of a name: a later duplicate is an
    /// error reported where it stands).
    pub tasks: HashMap<String, Option<u64>>,
    /// Workload names and, if the parameters are valid, their roles with task counts.
    pub workloads: HashMap<String, Option<Roles>>,
    /// Tasks of a class above the fair class (`"policy": "fifo" | "rr" | "deadline"`), whose
    /// policy a timeline set cannot change.
    pub higher_class: HashSet<String>,
}

/// An array of at most `max` entries: checked before any entry is read, so that a huge file
/// is refused at once.
pub(crate) fn capped<'a>(v: &'a Value, path: &str, max: usize, what: &str) -> R<&'a Vec<Value>> {
    let a = arr(v, path)?;
    if a.len() > max {
        return Err(ScenarioError::at(path, format!("{} {what}; at most {max} are allowed", a.len())));
    }
    Ok(a)
}

fn get<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn int_or(v: &Value, k: &str, default: u64, lo: u64, hi: u64) -> Option<u64> {
    match v.get(k) {
        None => Some(default),
        Some(x) => x.as_u64().filter(|n| (lo..=hi).contains(n)),
    }
}

fn names(v: Option<&Value>) -> impl Iterator<Item = (&Value, String)> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("name").and_then(Value::as_str).map(|n| (e, n.to_string())))
}

impl Cx {
    pub(crate) fn read(v: &Value) -> Cx {
        let cpus = match v.get("machine") {
            None => Some(1),
            Some(m) if m.is_object() => int_or(m, "cpus", 1, 1, 1024).and_then(|c| u32::try_from(c).ok()),
            Some(_) => None,
        };
        let duration_ms = v.get("duration_ms").and_then(Value::as_u64).filter(|d| (1..=600_000).contains(d));
        let policy = get(v, &["scheduler", "policy"]).and_then(Value::as_str).and_then(Policy::from_name);
        let variant = get(v, &["scheduler", "features", "wakeup_preempt_variant"])
            .and_then(Value::as_str)
            .and_then(|s| VARIANTS.iter().find(|(n, _)| *n == s).map(|(_, w)| *w));
        let cgroup_set = names(v.get("cgroups")).map(|(_, n)| n).collect();
        let mut tasks = HashMap::new();
        let mut higher_class = HashSet::new();
        for (e, n) in names(v.get("tasks")) {
            if matches!(e.get("policy").and_then(Value::as_str), Some("fifo" | "rr" | "deadline")) {
                higher_class.insert(n.clone());
            }
            tasks.entry(n).or_insert_with(|| int_or(e, "count", 1, 1, 4096));
        }
        let mut workloads = HashMap::new();
        let wl = names(v.get("workloads"))
            .map(|(e, n)| {
                let roles = match e.get("kind").and_then(Value::as_str) {
                    Some("hackbench") => e
                        .get("groups")
                        .and_then(Value::as_u64)
                        .filter(|g| (1..=64).contains(g))
                        .zip(int_or(e, "fds", 20, 1, 64))
                        .map(|(g, f)| vec![("sender", g * f), ("receiver", g * f)]),
                    Some("schbench") => e
                        .get("messengers")
                        .and_then(Value::as_u64)
                        .filter(|m| (1..=256).contains(m))
                        .zip(e.get("workers").and_then(Value::as_u64).filter(|w| (1..=1024).contains(w)))
                        .map(|(m, w)| vec![("messenger", m), ("worker", m * w)]),
                    _ => None,
                };
                (n, roles)
            });
        for (n, roles) in wl {
            workloads.entry(n).or_insert(roles);
        }
        Cx { cpus, duration_ms, policy, variant, cgroup_set, tasks, workloads, higher_class }
    }

    /// Whether `name` designates tasks: a task's base name, a workload name, or an expanded
    /// name (`hog/3`, `hb/sender7`) that exists after expansion.
    pub(crate) fn resolves(&self, name: &str) -> bool {
        if self.tasks.contains_key(name) || self.workloads.contains_key(name) {
            return true;
        }
        let Some((base, suffix)) = name.split_once('/') else { return false };
        if let Some(count) = self.tasks.get(base) {
            return match (count, index(suffix)) {
                (_, None) => false,
                (Some(c), Some(i)) => *c > 1 && i < *c,
                (None, Some(_)) => true,
            };
        }
        if let Some(roles) = self.workloads.get(base) {
            let Some(roles) = roles else { return true };
            return roles.iter().any(|(role, count)| suffix.strip_prefix(role).and_then(index).is_some_and(|i| i < *count));
        }
        false
    }
}

/// A canonical decimal index (`0`, `17`; not `07`, `+1` or empty).
fn index(s: &str) -> Option<u64> {
    let canonical = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    if canonical { s.parse().ok() } else { None }
}

/// Which kind of target a timeline entry has, as far as its keys tell.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Task,
    Cgroup,
    Unknown,
}

const TASK_SET: &[&str] = &["nice", "latency_nice", "slice_us", "policy"];
const CGROUP_SET: &[&str] = &["shares", "latency_nice"];

/// `slice_us` as written: `null`/0 = default, otherwise clamped to 100..=100000 as v6.12 does.
pub(crate) fn slice(x: &Value, kp: &str) -> R<u64> {
    if x.is_null() {
        return Ok(0);
    }
    let s = uint(x, kp, 0, 1_000_000_000)?;
    Ok(if s == 0 { 0 } else { s.clamp(100, 100_000) })
}

impl P {
    pub(crate) fn cgroups(&mut self, v: &Value, path: &str) -> R<Vec<Cgroup>> {
        let mut out = Vec::new();
        let a = capped(v, path, MAX_CGROUPS, "cgroups")?;
        for (i, e) in a.iter().enumerate() {
            let ep = idx(path, i);
            let o = obj(e, &ep)?;
            let mut c = Cgroup { name: String::new(), parent: None, shares: 1024, latency_nice: 0 };
            let (mut named, mut depth) = (false, 1);
            for (k, x) in o {
                let kp = key(&ep, k);
                match k.as_str() {
                    "name" => {
                        c.name = name(x, &kp)?;
                        if self.cgroups.contains_key(&c.name) {
                            return Err(expected(&kp, "a cgroup name not used by an earlier cgroup", x));
                        }
                        named = true;
                    }
                    "parent" => {
                        c.parent = match x {
                            Value::Null => None,
                            _ => {
                                let p = string(x, &kp, "the name of an earlier cgroup or null")?;
                                let Some(&pd) = self.cgroups.get(p) else {
                                    let what = if self.cx.cgroup_set.contains(p) {
                                        "the name of an earlier cgroup (parents come before children)"
                                    } else {
                                        "the name of an earlier cgroup or null"
                                    };
                                    return Err(expected(&kp, what, x));
                                };
                                if pd + 1 > MAX_CGROUP_DEPTH {
                                    let msg = format!("a cgroup {} levels deep; at most {MAX_CGROUP_DEPTH} levels are allowed", pd + 1);
                                    return Err(ScenarioError::at(kp, msg));
                                }
                                depth = pd + 1;
                                Some(p.to_string())
                            }
                        }
                    }
                    "shares" => c.shares = u32_in(x, &kp, 2, 262_144)?,
                    "latency_nice" => {
                        c.latency_nice = i32_in(x, &kp, -20, 19)?;
                        self.warn_latency_nice(&kp, c.latency_nice, true);
                    }
                    _ => return Err(unknown(&ep, k, &["name", "parent", "shares", "latency_nice"])),
                }
            }
            if !named {
                return Err(missing(&ep, "name"));
            }
            self.cgroups.insert(c.name.clone(), depth);
            out.push(c);
        }
        Ok(out)
    }

    pub(crate) fn timeline(&mut self, v: &Value, path: &str) -> R<Vec<TimelineEntry>> {
        let mut out = Vec::new();
        let a = capped(v, path, MAX_TIMELINE, "timeline entries")?;
        for (i, e) in a.iter().enumerate() {
            let ep = idx(path, i);
            let o = obj(e, &ep)?;
            let kind = match (o.contains_key("task"), o.contains_key("cgroup")) {
                (true, false) => Kind::Task,
                (false, true) => Kind::Cgroup,
                _ => Kind::Unknown,
            };
            let (mut at, mut target, mut set) = (None, None, None);
            for (k, x) in o {
                let kp = key(&ep, k);
                match k.as_str() {
                    "at_ms" | "at_us" => {
                        if at.is_some() {
                            return Err(ScenarioError::at(kp, "expected exactly one of at_ms / at_us, got both"));
                        }
                        let in_us = k == "at_us";
                        let ns = if in_us {
                            uint(x, &kp, 0, 600_000_000)? * 1_000
                        } else {
                            uint(x, &kp, 0, 600_000)? * 1_000_000
                        };
                        if let Some(d) = self.cx.duration_ms {
                            if ns >= d * 1_000_000 {
                                self.warnings.push(format!(
                                    "{kp} is at or after the end of the run (duration_ms {d}); the entry never applies"
                                ));
                            }
                        }
                        at = Some((ns, in_us));
                    }
                    "task" | "cgroup" => {
                        if target.is_some() {
                            return Err(ScenarioError::at(kp, "expected exactly one of task / cgroup, got both"));
                        }
                        let what = if k == "task" { "a task, expanded task or workload name" } else { "a cgroup name" };
                        let n = string(x, &kp, what)?;
                        if k == "task" {
                            if !self.cx.resolves(n) {
                                return Err(expected(&kp, "the name of a task, an expanded task (\"hog/3\") or a workload", x));
                            }
                            target = Some(Target::Task(n.to_string()));
                        } else {
                            if !self.cx.cgroup_set.contains(n) {
                                return Err(expected(&kp, "the name of a cgroup", x));
                            }
                            target = Some(Target::Cgroup(n.to_string()));
                        }
                    }
                    "set" => {
                        let task = o.get("task").and_then(Value::as_str);
                        set = Some(self.set(x, &kp, kind, task)?);
                    }
                    _ => return Err(unknown(&ep, k, &["at_ms", "at_us", "task", "cgroup", "set"])),
                }
            }
            let (at_ns, at_in_us) =
                at.ok_or_else(|| ScenarioError::at(&ep, "missing required key \"at_ms\" or \"at_us\""))?;
            let target =
                target.ok_or_else(|| ScenarioError::at(&ep, "missing required key \"task\" or \"cgroup\""))?;
            let set = set.ok_or_else(|| missing(&ep, "set"))?;
            out.push(TimelineEntry { at_ns, at_in_us, target, set });
        }
        Ok(out)
    }

    fn set(&mut self, v: &Value, path: &str, kind: Kind, task: Option<&str>) -> R<SetAttrs> {
        let o = obj(v, path)?;
        if o.is_empty() {
            return Err(expected(path, "a non-empty object", v));
        }
        let mut s = SetAttrs::default();
        for (k, x) in o {
            let kp = key(path, k);
            match (k.as_str(), kind) {
                ("nice" | "slice_us" | "policy", Kind::Cgroup) => {
                    let msg = format!("\"{k}\" cannot be set on a cgroup (expected one of: {})", CGROUP_SET.join(", "));
                    return Err(ScenarioError::at(kp, msg));
                }
                ("shares", Kind::Task) => {
                    let msg = format!("\"shares\" can only be set on a cgroup (expected one of: {})", TASK_SET.join(", "));
                    return Err(ScenarioError::at(kp, msg));
                }
                ("nice", _) => s.nice = Some(i32_in(x, &kp, -20, 19)?),
                ("latency_nice", _) => {
                    let l = i32_in(x, &kp, -20, 19)?;
                    self.warn_latency_nice(&kp, l, kind == Kind::Cgroup);
                    s.latency_nice = Some(l);
                }
                ("slice_us", _) => {
                    let sl = slice(x, &kp)?;
                    self.warn_slice(&kp, Some(sl));
                    s.slice_us = Some(sl);
                }
                ("shares", _) => s.shares = Some(u32_in(x, &kp, 2, 262_144)?),
                ("policy", _) => s.policy = Some(self.set_policy(x, &kp, task)?),
                _ => {
                    let allowed: &[&str] = match kind {
                        Kind::Task => TASK_SET,
                        Kind::Cgroup => CGROUP_SET,
                        Kind::Unknown => &["nice", "latency_nice", "slice_us", "shares", "policy"],
                    };
                    return Err(unknown(path, k, allowed));
                }
            }
        }
        Ok(s)
    }

    /// A set's `policy`: a change within the fair class, as `sched_setscheduler()` between
    /// SCHED_NORMAL, SCHED_BATCH and SCHED_IDLE. Moving a task into or out of a higher class
    /// is not modelled (those tasks are load only), so neither side may be one.
    fn set_policy(&self, x: &Value, kp: &str, task: Option<&str>) -> R<FairPolicy> {
        if let Some(p @ ("fifo" | "rr" | "deadline")) = x.as_str() {
            let msg = format!(
                "expected \"normal\", \"batch\" or \"idle\", got \"{p}\": a set changes the policy within the fair class only (a higher class is given on the task itself)"
            );
            return Err(ScenarioError::at(kp, msg));
        }
        let opts = [("normal", FairPolicy::Normal), ("batch", FairPolicy::Batch), ("idle", FairPolicy::Idle)];
        let p = one_of(x, kp, &opts)?;
        let base = task.map(|t| t.split_once('/').map_or(t, |(b, _)| b));
        if let Some(t) = base.filter(|b| self.cx.higher_class.contains(*b)) {
            let msg = format!("\"{t}\" is a task of a class above the fair class; its policy cannot be changed by a set (only its CPU time is modelled)");
            return Err(ScenarioError::at(kp, msg));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_indices() {
        assert_eq!(index("0"), Some(0));
        assert_eq!(index("12"), Some(12));
        assert_eq!(index("012"), None);
        assert_eq!(index(""), None);
        assert_eq!(index("+1"), None);
        assert_eq!(index("99999999999999999999999"), None);
    }
}
