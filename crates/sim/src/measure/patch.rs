//! `path=value` assignments on a scenario's JSON, so one file can be run under variants:
//! `scheduler.policy=eevdf-v6.12`, `scheduler.features.latency_max_clamp_wakeup=false`,
//! `tasks[0].latency_nice=-20`, `machine.cpus=8`. The value is JSON, or a bare string.

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub path: String,
    pub value: Value,
}

/// Read `path=value`.
pub fn parse_assignment(s: &str) -> Result<Assignment, String> {
    let (path, value) = s.split_once('=').ok_or_else(|| format!("{s}: expected path=value"))?;
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()));
    Ok(Assignment { path: path.trim().to_string(), value })
}

/// Set `a.path` in `v`, creating objects on the way (not array elements: an index must exist).
/// The error starts with the path.
pub fn apply(v: &mut Value, a: &Assignment) -> Result<(), String> {
    set(v, a).map_err(|e| format!("{}: {e}", a.path))
}

/// `apply`, its error a `ScenarioError` at the path (which says the path once).
pub fn apply_at(v: &mut Value, a: &Assignment) -> Result<(), crate::scenario::ScenarioError> {
    set(v, a).map_err(|e| crate::scenario::ScenarioError::at(&a.path, e))
}

fn set(v: &mut Value, a: &Assignment) -> Result<(), String> {
    let mut cur = v;
    let parts: Vec<&str> = a.path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (key, index) = match part.split_once('[') {
            Some((k, rest)) => {
                let n = rest.strip_suffix(']').and_then(|n| n.parse::<usize>().ok()).ok_or_else(|| format!("bad index in {part}"))?;
                (k, Some(n))
            }
            None => (*part, None),
        };
        let last = i + 1 == parts.len();
        let obj = cur.as_object_mut().ok_or_else(|| format!("{key} is not inside an object"))?;
        if last && index.is_none() {
            obj.insert(key.to_string(), a.value.clone());
            return Ok(());
        }
        cur = obj.entry(key.to_string()).or_insert_with(|| Value::Object(Default::default()));
        if let Some(n) = index {
            let arr = cur.as_array_mut().ok_or_else(|| format!("{key} is not an array"))?;
            let len = arr.len();
            let el = arr.get_mut(n).ok_or_else(|| format!("{key} has {len} element{}, no [{n}]", if len == 1 { "" } else { "s" }))?;
            if last {
                *el = a.value.clone();
                return Ok(());
            }
            cur = el;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> Assignment {
        parse_assignment(s).expect("path=value")
    }

    #[test]
    fn sets_values_and_makes_objects_on_the_way() {
        let mut v: Value = serde_json::json!({ "tasks": [{ "name": "x" }] });
        apply(&mut v, &a("tasks[0].nice=5")).expect("sets");
        apply(&mut v, &a("scheduler.features.latency_max_clamp_wakeup=false")).expect("sets");
        apply(&mut v, &a("scheduler.policy=eevdf-v6.12")).expect("sets");
        assert_eq!(v, serde_json::json!({ "tasks": [{ "name": "x", "nice": 5 }], "scheduler": { "features": { "latency_max_clamp_wakeup": false }, "policy": "eevdf-v6.12" } }));
    }

    /// Each error names the path once, whichever form it takes.
    #[test]
    fn errors_name_the_path_once() {
        let mut v: Value = serde_json::json!({ "tasks": [{ "name": "x" }], "machine": 4 });
        for (s, want) in [
            ("tasks[9].nice=1", "tasks has 1 element, no [9]"),
            ("tasks[x].nice=1", "bad index in tasks[x]"),
            ("machine.cpus=2", "cpus is not inside an object"),
            ("tasks.nice[0]=1", "nice is not inside an object"),
        ] {
            let path = s.split_once('=').expect("=").0;
            assert_eq!(apply(&mut v.clone(), &a(s)), Err(format!("{path}: {want}")));
            let e = apply_at(&mut v, &a(s)).expect_err("refused");
            assert_eq!((e.path.as_str(), e.message.as_str()), (path, want));
            assert_eq!(e.to_string().matches(path).count(), 1, "{e}");
        }
        v["tasks"].as_array_mut().expect("array").push(serde_json::json!({}));
        assert_eq!(apply(&mut v, &a("tasks[5].nice=1")), Err("tasks[5].nice: tasks has 2 elements, no [5]".into()));
    }
}
