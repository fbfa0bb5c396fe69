//! Shrinking a failing case: remove or simplify one part at a time (a timeline entry, a task,
//! a workload, a cgroup, a feature, a count, CPUs, duration) and keep each step that still
//! fails the same check, until no step does.

use super::{check_case, Failure};
use serde_json::{Map, Value};

/// Every one-step simplification of a case (some invalid: those simply do not reproduce).
fn candidates(case: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let Some(o) = case.as_object() else { return out };
    let with = |f: &dyn Fn(&mut Map<String, Value>)| {
        let mut c = case.clone();
        if let Some(o) = c.as_object_mut() {
            f(o);
        }
        c
    };
    for k in ["timeline", "workloads", "tasks", "cgroups"] {
        let n = o.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        if n > 0 {
            out.push(with(&|o| {
                o.remove(k);
            }));
        }
        for i in 0..n {
            out.push(with(&|o| {
                if let Some(Value::Array(xs)) = o.get_mut(k) {
                    xs.remove(i);
                    if xs.is_empty() {
                        o.remove(k);
                    }
                }
            }));
        }
    }
    // Drop references to cgroups (then the cgroups can go).
    for k in ["tasks", "workloads"] {
        let n = o.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..n {
            for field in ["cgroup", "cpus", "count", "stagger_us", "start_ms", "nice", "latency_nice", "slice_us"] {
                if o[k][i].get(field).is_some() {
                    out.push(with(&|o| {
                        if let Some(x) = o.get_mut(k).and_then(|xs| xs.get_mut(i)).and_then(Value::as_object_mut) {
                            x.remove(field);
                        }
                    }));
                }
            }
        }
    }
    if let Some(feats) = o.get("scheduler").and_then(|s| s.get("features")).and_then(Value::as_object) {
        for f in feats.keys() {
            out.push(with(&|o| {
                if let Some(fs) = o.get_mut("scheduler").and_then(|s| s.get_mut("features")).and_then(Value::as_object_mut) {
                    fs.remove(f);
                }
            }));
        }
    }
    if let Some(cpus) = o.get("machine").and_then(|m| m.get("cpus")).and_then(Value::as_i64) {
        for fewer in [1, cpus / 2, cpus - 1] {
            if fewer >= 1 && fewer < cpus {
                out.push(with(&|o| {
                    if let Some(m) = o.get_mut("machine").and_then(Value::as_object_mut) {
                        m.insert("cpus".into(), fewer.into());
                        m.remove("llc_size");
                        m.remove("topology");
                        m.remove("distance");
                    }
                }));
            }
        }
    }
    if let Some(d) = o.get("duration_ms").and_then(Value::as_i64) {
        for shorter in [d / 2, d - 1] {
            if shorter >= 1 && shorter < d {
                out.push(with(&|o| {
                    o.insert("duration_ms".into(), shorter.into());
                }));
            }
        }
    }
    out
}

/// The smallest case reachable by single steps that still fails `f.check`; at most `budget`
/// re-runs.
pub fn shrink(case: &Value, f: &Failure, budget: usize) -> (Value, Failure) {
    let (mut best, mut fail) = (case.clone(), f.clone());
    let mut runs = 0;
    'outer: loop {
        for c in candidates(&best) {
            if runs >= budget {
                break 'outer;
            }
            runs += 1;
            if let Err(e) = check_case(&c) {
                if e.check == fail.check {
                    best = c;
                    fail = e;
                    continue 'outer;
                }
            }
        }
        break;
    }
    (best, fail)
}
