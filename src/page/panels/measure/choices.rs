//! What the Export and A/B panel offers to choose from, read from the scenario (wasm32 only,
//! with the panel): B's targets and values by kind (a feature of the scenario's policy, another
//! policy, a task entry's latency nice or nice), the sets a histogram can be of, and the figure
//! "Which change did it?" proposes first.

use serde_json::Value;

use crate::page::logic::entry_names;
use crate::wire::settings::{self, Kind, FEATURES, POLICIES};

/// The index in `POLICIES` of the scenario's policy (the first, CFS, when it names none).
fn policy_index(doc: &Value) -> usize {
    settings::policy_index(&settings::policy(doc))
}

/// (value, label) choices for B's target, by kind.
pub(super) fn targets(kind: &str, doc: &Value) -> Vec<(String, String)> {
    let pi = policy_index(doc);
    match kind {
        "feature" => FEATURES.iter().filter(|f| f.defaults[pi].is_some()).map(|f| (f.key.to_string(), f.key.to_string())).collect(),
        "policy" => POLICIES.iter().filter(|p| **p != POLICIES[pi]).map(|p| (p.to_string(), p.to_string())).collect(),
        "latency_nice" | "nice" => entry_names(doc, "tasks").into_iter().enumerate().map(|(i, n)| (i.to_string(), format!("tasks[{i}] {n}"))).collect(),
        _ => Vec::new(),
    }
}

/// A feature's value now: as the scenario sets it, else the policy's default.
fn feature_now(doc: &Value, key: &str) -> Option<String> {
    let set = doc.pointer(&format!("/scheduler/features/{key}")).map(|v| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    });
    set.or_else(|| FEATURES.iter().find(|f| f.key == key).and_then(|f| f.defaults[policy_index(doc)]).map(str::to_string))
}

/// (value, label) choices for B's value; the first is the default (a different one from now).
pub(super) fn values(kind: &str, target: &str, doc: &Value) -> Vec<String> {
    match kind {
        "feature" => {
            let now = feature_now(doc, target);
            let all: Vec<&str> = match FEATURES.iter().find(|f| f.key == target).map(|f| f.kind) {
                Some(Kind::Bool) => vec!["true", "false"],
                Some(Kind::Choice(c)) => c.to_vec(),
                None => Vec::new(),
            };
            let mut v: Vec<String> = all.iter().filter(|x| Some(x.to_string()) != now).map(|x| x.to_string()).collect();
            v.extend(all.iter().filter(|x| Some(x.to_string()) == now).map(|x| x.to_string()));
            v
        }
        _ => Vec::new(),
    }
}

/// The sets besides one task a histogram can be of, named as the worker names them.
pub(super) fn hist_sets(doc: &Value) -> Vec<String> {
    let mut out = vec!["all tasks".to_string()];
    out.extend(entry_names(doc, "workloads").into_iter().map(|n| format!("workload {n}")));
    out.extend(entry_names(doc, "cgroups").into_iter().map(|n| format!("cgroup {n}")));
    out
}

/// The figure "Which change did it?" offers first: the first task's p99 wakeup latency (its
/// first instance's, when it has several).
pub(super) fn first_task_figure(doc: &Value) -> String {
    let Some(t) = doc.pointer("/tasks/0") else { return String::new() };
    let name = t.get("name").and_then(Value::as_str).unwrap_or_default();
    let many = t.get("count").and_then(Value::as_u64).is_some_and(|c| c > 1);
    format!("task:{name}{}:p99", if many { "/0" } else { "" })
}
