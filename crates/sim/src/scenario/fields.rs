//! Small typed readers over `serde_json::Value` that produce the validator's errors:
//! `<path>: expected <what>, got <found>`.

use super::ScenarioError;
use serde_json::{Map, Value};

pub(crate) type R<T> = Result<T, ScenarioError>;

/// `a.b` (or `b` at the root).
pub(crate) fn key(path: &str, k: &str) -> String {
    if path.is_empty() { k.to_string() } else { format!("{path}.{k}") }
}

/// `a[i]`.
pub(crate) fn idx(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A short description of a found value, for "got …".
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            if short.len() < s.len() { format!("the string \"{short}…\"") } else { format!("the string \"{s}\"") }
        }
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

pub(crate) fn expected(path: &str, what: &str, v: &Value) -> ScenarioError {
    ScenarioError::at(path, format!("expected {what}, got {}", describe(v)))
}

pub(crate) fn obj<'a>(v: &'a Value, path: &str) -> R<&'a Map<String, Value>> {
    v.as_object().ok_or_else(|| expected(path, "an object", v))
}

pub(crate) fn arr<'a>(v: &'a Value, path: &str) -> R<&'a Vec<Value>> {
    v.as_array().ok_or_else(|| expected(path, "an array", v))
}

pub(crate) fn unknown(path: &str, k: &str, allowed: &[&str]) -> ScenarioError {
    ScenarioError::at(key(path, k), format!("unknown key \"{k}\" (expected one of: {})", allowed.join(", ")))
}

pub(crate) fn missing(path: &str, k: &str) -> ScenarioError {
    ScenarioError::at(path, format!("missing required key \"{k}\""))
}

/// A JSON integer in `lo..=hi`. `1.0`, `1e3` and integers beyond 64 bits are refused.
pub(crate) fn int(v: &Value, path: &str, lo: i64, hi: i64) -> R<i64> {
    let what = format!("an integer in {lo}..={hi}");
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(x),
            Some(_) => Err(expected(path, &what, v)),
            None if n.is_u64() => Err(expected(path, &what, v)),
            None => Err(ScenarioError::at(path, format!("expected {what}, got {n} (not an integer)"))),
        },
        _ => Err(expected(path, &what, v)),
    }
}

pub(crate) fn uint(v: &Value, path: &str, lo: u64, hi: u64) -> R<u64> {
    // Every bound used by the contract fits in i64.
    let x = int(v, path, i64::try_from(lo).unwrap_or(i64::MAX), i64::try_from(hi).unwrap_or(i64::MAX))?;
    Ok(u64::try_from(x).unwrap_or(0))
}

pub(crate) fn u32_in(v: &Value, path: &str, lo: u32, hi: u32) -> R<u32> {
    let x = int(v, path, i64::from(lo), i64::from(hi))?;
    Ok(u32::try_from(x).unwrap_or(0))
}

pub(crate) fn i32_in(v: &Value, path: &str, lo: i32, hi: i32) -> R<i32> {
    let x = int(v, path, i64::from(lo), i64::from(hi))?;
    Ok(i32::try_from(x).unwrap_or(0))
}

/// A JSON number (integer or not) in `lo..=hi`.
pub(crate) fn num(v: &Value, path: &str, lo: f64, hi: f64, what: &str) -> R<f64> {
    match v.as_f64() {
        Some(x) if x >= lo && x <= hi => Ok(x),
        _ => Err(expected(path, what, v)),
    }
}

pub(crate) fn boolean(v: &Value, path: &str) -> R<bool> {
    v.as_bool().ok_or_else(|| expected(path, "true or false", v))
}

pub(crate) fn string<'a>(v: &'a Value, path: &str, what: &str) -> R<&'a str> {
    v.as_str().ok_or_else(|| expected(path, what, v))
}

/// One of a fixed set of strings.
pub(crate) fn one_of<T: Copy>(v: &Value, path: &str, options: &[(&str, T)]) -> R<T> {
    let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    let what = format!("one of {}", names.join(", "));
    let s = v.as_str().ok_or_else(|| expected(path, &what, v))?;
    options.iter().find(|(n, _)| *n == s).map(|(_, t)| *t).ok_or_else(|| expected(path, &what, v))
}

pub(crate) const NAME_RULE: &str = "a name of 1 to 32 characters from A-Z a-z 0-9 _ . -";

pub(crate) fn is_name(s: &str) -> bool {
    (1..=32).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A task, workload or cgroup name: `[A-Za-z0-9_.-]{1,32}`.
pub(crate) fn name(v: &Value, path: &str) -> R<String> {
    match v.as_str() {
        Some(s) if is_name(s) => Ok(s.to_string()),
        _ => Err(expected(path, NAME_RULE, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_are_strict() {
        assert_eq!(int(&json!(5), "x", 1, 10), Ok(5));
        let e = int(&json!(1.0), "x", 1, 10).unwrap_err();
        assert_eq!(e.message, "expected an integer in 1..=10, got 1.0 (not an integer)");
        let e = int(&json!(0), "x", 1, 10).unwrap_err();
        assert_eq!(e.message, "expected an integer in 1..=10, got 0");
        let e = int(&json!(u64::MAX), "x", 1, 10).unwrap_err();
        assert!(e.message.ends_with("got 18446744073709551615"));
        let e = int(&json!("5"), "x", 1, 10).unwrap_err();
        assert_eq!(e.message, "expected an integer in 1..=10, got the string \"5\"");
    }

    #[test]
    fn names() {
        assert!(is_name("hog.1-a_B"));
        assert!(!is_name(""));
        assert!(!is_name("a/b"));
        assert!(!is_name(&"x".repeat(33)));
        assert!(!is_name("é"));
    }
}
