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
pub fn apply(v: &mut Value, a: &Assignment) -> Result<(), String> {
    let mut cur = v;
    let parts: Vec<&str> = a.path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (key, index) = match part.split_once('[') {
            Some((k, rest)) => {
                let n = rest.strip_suffix(']').and_then(|n| n.parse::<usize>().ok()).ok_or_else(|| format!("{}: bad index in {part}", a.path))?;
                (k, Some(n))
            }
            None => (*part, None),
        };
        let last = i + 1 == parts.len();
        let obj = cur.as_object_mut().ok_or_else(|| format!("{}: {key} is not inside an object", a.path))?;
        if last && index.is_none() {
            obj.insert(key.to_string(), a.value.clone());
            return Ok(());
        }
        cur = obj.entry(key.to_string()).or_insert_with(|| Value::Object(Default::default()));
        if let Some(n) = index {
            let arr = cur.as_array_mut().ok_or_else(|| format!("{}: {key} is not an array", a.path))?;
            let len = arr.len();
            let el = arr.get_mut(n).ok_or_else(|| format!("{}: {key} has {len} elements, no [{n}]", a.path))?;
            if last {
                *el = a.value.clone();
                return Ok(());
            }
            cur = el;
        }
    }
    Ok(())
}
