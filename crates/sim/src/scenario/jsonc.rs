//! JSONC → JSON (contract §1 "Syntax"): `//` line comments, `/* */` block comments and
//! trailing commas before `}` or `]`.
//!
//! The preprocessor replaces every removed byte by a space and keeps newlines, so the output
//! has exactly the byte length and line structure of the input and a position that
//! `serde_json` reports is a position in the original text. Strings (with their escapes) are
//! copied untouched. The result is parsed into a `serde_json::Value` (document order is kept:
//! the workspace enables `preserve_order`), refusing duplicate keys.

use super::ScenarioError;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Strip comments and trailing commas. On an unterminated block comment, returns the byte
/// offset of its `/*`.
pub(crate) fn strip(text: &str) -> Result<String, usize> {
    let src = text.as_bytes();
    let mut out: Vec<u8> = src.to_vec();
    let blank = |out: &mut Vec<u8>, i: usize| {
        if out[i] != b'\n' && out[i] != b'\r' {
            out[i] = b' ';
        }
    };
    // The last two significant (non-space, non-comment) bytes emitted, by index.
    let mut last: Option<usize> = None;
    let mut before_last: Option<usize> = None;
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        match c {
            b'"' => {
                before_last = last;
                last = Some(i);
                i += 1;
                while i < src.len() {
                    match src[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                // `i` is at the closing quote (or past the end: serde_json reports it).
                i += 1;
                continue;
            }
            b'/' if src.get(i + 1) == Some(&b'/') => {
                while i < src.len() && src[i] != b'\n' {
                    blank(&mut out, i);
                    i += 1;
                }
                continue;
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let start = i;
                blank(&mut out, i);
                blank(&mut out, i + 1);
                i += 2;
                loop {
                    if i >= src.len() {
                        return Err(start);
                    }
                    if src[i] == b'*' && src.get(i + 1) == Some(&b'/') {
                        blank(&mut out, i);
                        blank(&mut out, i + 1);
                        i += 2;
                        break;
                    }
                    blank(&mut out, i);
                    i += 1;
                }
                continue;
            }
            b'}' | b']' => {
                // A trailing comma: `,` that follows a value (not `[`, `{` or another `,`).
                if let Some(l) = last {
                    let after_value = before_last.is_some_and(|b| !matches!(src[b], b'[' | b'{' | b','));
                    if src[l] == b',' && after_value {
                        out[l] = b' ';
                    }
                }
                before_last = last;
                last = Some(i);
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => {
                before_last = last;
                last = Some(i);
            }
        }
        i += 1;
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces, and a multi-byte UTF-8
    // sequence inside a comment is blanked as a whole, so the result is valid UTF-8.
    String::from_utf8(out).map_err(|_| 0)
}

/// 1-based (line, column in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.as_bytes().get(..offset).unwrap_or(&[]);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = 1 + String::from_utf8_lossy(&before[line_start..]).chars().count();
    (line, col)
}

/// Convert serde_json's (line, 1-based byte column) into a 1-based character column of the
/// original text (both texts have the same bytes outside comments).
fn char_column(text: &str, line: usize, byte_col: usize) -> usize {
    let Some(l) = text.split('\n').nth(line.saturating_sub(1)) else { return byte_col.max(1) };
    let mut k = byte_col.min(l.len());
    while !l.is_char_boundary(k) {
        k += 1;
    }
    l.get(..k).map_or(byte_col, |s| s.chars().count()).max(1)
}

fn syntax(message: impl Into<String>, line: usize, column: usize) -> ScenarioError {
    ScenarioError { path: String::new(), message: message.into(), line: Some(line), column: Some(column) }
}

/// Parse JSON or JSONC text into a `Value` in document order.
pub fn parse(text: &str) -> Result<Value, ScenarioError> {
    // A byte-order mark (some editors write one) is not part of the text an editor shows.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let plain = match strip(text) {
        Ok(p) => p,
        Err(at) => {
            let (l, c) = line_col(text, at);
            return Err(syntax("unterminated block comment", l, c));
        }
    };
    let mut de = serde_json::Deserializer::from_str(&plain);
    let parsed = Strict::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    match parsed {
        Ok(Strict(v)) => Ok(v),
        Err(e) => {
            let full = e.to_string();
            let msg = match full.rfind(" at line ") {
                Some(p) => full[..p].to_string(),
                None => full,
            };
            let line = e.line().max(1);
            Err(syntax(msg, line, char_column(text, line, e.column())))
        }
    }
}

/// A `Value` that refuses duplicate object keys (a second `"nice"` would otherwise silently
/// win, which the contract's strictness forbids).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut v = Vec::new();
        while let Some(Strict(x)) = seq.next_element()? {
            v.push(x);
        }
        Ok(Value::Array(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            if m.contains_key(&k) {
                return Err(de::Error::custom(format!("duplicate key \"{k}\"")));
            }
            let Strict(x) = map.next_value()?;
            m.insert(k, x);
        }
        Ok(Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_comments_and_trailing_commas_keeping_positions() {
        let src = "{ // c\n \"a\": [1, 2,], /* x\n y */ \"b\": \"//not\",\n}";
        let out = strip(src).unwrap();
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["b"], "//not");
        assert_eq!(v["a"], serde_json::json!([1, 2]));
    }

    #[test]
    fn lone_commas_stay_errors() {
        assert!(parse("[,]").is_err());
        assert!(parse("{,}").is_err());
        assert!(parse("[1,,]").is_err());
        assert!(parse("[1,]").is_ok());
    }

    #[test]
    fn escapes_in_strings() {
        let v = parse(r#"{"a": "q\"//x", "b": "\\", /* c */ "c": 1}"#).unwrap();
        assert_eq!(v["a"], "q\"//x");
        assert_eq!(v["c"], 1);
    }

    #[test]
    fn syntax_error_position() {
        let e = parse("{\n  \"a\": 1,\n  \"b\": x\n}").unwrap_err();
        assert_eq!((e.line, e.column), (Some(3), Some(8)));
        let e = parse("{\n /* never closed").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(2)));
        // Columns count characters, not bytes.
        let e = parse("{\"é\": x}").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(7)));
    }

    #[test]
    fn duplicate_keys_refused() {
        let e = parse("{\"a\": 1,\n \"a\": 2}").unwrap_err();
        assert!(e.message.contains("duplicate key"), "{e}");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = parse(&deep).unwrap_err();
        assert!(e.message.contains("recursion limit"), "{e}");
        let deep = "{\"a\":".repeat(50_000);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(parse("\u{feff}{\"a\": 1}").unwrap()["a"], 1);
        let e = parse("\u{feff}{x}").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(2)));
    }

    #[test]
    fn order_preserved() {
        let v = parse(r#"{"z": 1, "a": 2}"#).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["z", "a"]);
    }
}
