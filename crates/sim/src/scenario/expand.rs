//! Expansion of `count` and workloads into tasks (contract §1.1, §1.4).
//!
//! # Order (contract §2: the report lists tasks in this order)
//! 1. `tasks` in file order. A task with `count` N > 1 gives `name/0` … `name/N-1`, instance
//!    `i` forking at `start_ms`·10^6 + `i`·`stagger_us`·10^3 ns; with count 1 it is `name`.
//! 2. `workloads` in file order:
//!    - `hackbench`: **all senders, then all receivers**: `hb/sender0` … `hb/sender{G·F-1}`,
//!      then `hb/receiver0` … `hb/receiver{G·F-1}`. Index `g·fds + f` is the `f`-th of group
//!      `g` (group-major), and sender `i` and receiver `i` belong to the same group.
//!    - `schbench`: **all messengers, then all workers**: `sb/messenger0` …
//!      `sb/messenger{M-1}`, then `sb/worker0` … `sb/worker{M·W-1}`, worker `m·workers + w`
//!      belonging to messenger `m`.
//!
//!    Every workload task forks at the workload's `start_ms`, carries the workload's attributes
//!    and has `behavior: None` (the engine drives it from the workload).

use super::{Attrs, Behavior, Scenario, WorkloadKind};

#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Index into `Scenario::tasks`, and the instance number.
    Task { spec: usize, instance: u32 },
    /// Index into `Scenario::workloads`; role name such as "sender", "receiver", "messenger", "worker"; global index.
    Workload { spec: usize, role: &'static str, index: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExpandedTask {
    pub name: String,
    pub attrs: Attrs,
    pub start_ns: u64,
    /// `None` for workload tasks (their behaviour comes from the workload).
    pub behavior: Option<Behavior>,
    pub origin: Origin,
}

/// The roles of a workload's tasks, in expansion order, with how many tasks each has.
pub fn workload_roles(kind: &WorkloadKind) -> [(&'static str, u32); 2] {
    match *kind {
        WorkloadKind::Hackbench { groups, fds, .. } => {
            let n = groups.saturating_mul(fds);
            [("sender", n), ("receiver", n)]
        }
        WorkloadKind::Schbench { messengers, workers, .. } => {
            [("messenger", messengers), ("worker", messengers.saturating_mul(workers))]
        }
    }
}

/// Number of tasks after expansion, without building them.
pub fn expanded_len(s: &Scenario) -> u64 {
    let tasks: u64 = s.tasks.iter().map(|t| u64::from(t.count)).sum();
    let wl: u64 = s.workloads.iter().flat_map(|w| workload_roles(&w.kind)).map(|(_, n)| u64::from(n)).sum();
    tasks + wl
}

/// Expand tasks in file order, then workloads (contract §1.1, §1.4).
pub fn expand(s: &Scenario) -> Vec<ExpandedTask> {
    let mut out = Vec::with_capacity(usize::try_from(expanded_len(s)).unwrap_or(0));
    for (spec, t) in s.tasks.iter().enumerate() {
        let base = t.start_ms.saturating_mul(1_000_000);
        for i in 0..t.count {
            let name = if t.count == 1 { t.name.clone() } else { format!("{}/{i}", t.name) };
            let start_ns = base.saturating_add(u64::from(i).saturating_mul(t.stagger_us).saturating_mul(1_000));
            out.push(ExpandedTask {
                name,
                attrs: t.attrs.clone(),
                start_ns,
                behavior: Some(t.behavior.clone()),
                origin: Origin::Task { spec, instance: i },
            });
        }
    }
    for (spec, w) in s.workloads.iter().enumerate() {
        let start_ns = w.start_ms.saturating_mul(1_000_000);
        for (role, n) in workload_roles(&w.kind) {
            for index in 0..n {
                out.push(ExpandedTask {
                    name: format!("{}/{role}{index}", w.name),
                    attrs: w.attrs.clone(),
                    start_ns,
                    behavior: None,
                    origin: Origin::Workload { spec, role, index },
                });
            }
        }
    }
    out
}

/// Indices into `expanded` of the tasks a timeline `task` target designates: one expanded
/// task (`hog/3`, `hb/sender2`, or `hog` when its count is 1), or all tasks of a base task
/// name or of a workload. Empty if the name designates nothing (not after validation).
pub fn target_tasks(s: &Scenario, expanded: &[ExpandedTask], name: &str) -> Vec<usize> {
    let spec_task = s.tasks.iter().position(|t| t.name == name);
    let spec_wl = s.workloads.iter().position(|w| w.name == name);
    expanded
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.name == name
                || match e.origin {
                    Origin::Task { spec, .. } => spec_task == Some(spec),
                    Origin::Workload { spec, .. } => spec_wl == Some(spec),
                }
        })
        .map(|(i, _)| i)
        .collect()
}
