//! Which importer a file opened with "Open file…" needs, told from its shape alone, without
//! parsing it (the page carries no parser: the workers check what it opens). Pure; tested
//! natively.
//!
//! - A JSON object with a `"format"` key, or any other object, is a Fairground scenario (the
//!   core names what is wrong with it).
//! - A JSON object whose `"tasks"` is an object, or that has a `"global"`, is an rt-app
//!   workload file: rt-app keys its tasks by name, where a scenario lists them in an array.
//!   rt-app reads its files with json-c, so comments (`/* */`, `//`), trailing commas and keys
//!   without values are stepped over as it would.
//! - Anything else is a trace: ftrace text, trace-cmd's binary trace.dat or a Perfetto
//!   protobuf trace, which the import worker tells apart (`interop::import_trace_bytes`).
//!
//! Only JSON is read as text on the page: `reads_as_text` looks at a file's first bytes, and a
//! trace goes to the import worker as bytes, however large, never decoded here.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Scenario,
    RtApp,
    Trace,
}

/// trace-cmd's `trace.dat` magic (`tracedat::MAGIC` in the core, which the page does not link).
const TRACE_DAT_MAGIC: &[u8] = b"\x17\x08\x44tracing";

/// Whether a file that starts with `head` is a scenario or an rt-app file, to be read as text
/// (`file_kind` then tells which): UTF-8 (a character cut at the end of the head aside) whose
/// first thing past blanks and comments is `{`. Anything else is a trace, handed over as bytes.
pub fn reads_as_text(head: &[u8]) -> bool {
    if head.starts_with(TRACE_DAT_MAGIC) {
        return false;
    }
    if let Err(e) = std::str::from_utf8(head) {
        if e.error_len().is_some() {
            return false;
        }
    }
    let b = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    b.get(skip_blank(b, 0)) == Some(&b'{')
}

/// The kind of file `text` is.
pub fn file_kind(text: &str) -> FileKind {
    let b = text.strip_prefix('\u{feff}').unwrap_or(text).as_bytes();
    let start = skip_blank(b, 0);
    if b.get(start) != Some(&b'{') {
        return FileKind::Trace;
    }
    let keys = top_level_keys(b, start);
    let has = |k: &str| keys.iter().any(|(n, _)| *n == k.as_bytes());
    if has("format") {
        return FileKind::Scenario;
    }
    let tasks_by_name = keys.iter().any(|(n, v)| *n == b"tasks" && *v == Some(b'{'));
    if tasks_by_name || has("global") {
        FileKind::RtApp
    } else {
        FileKind::Scenario
    }
}

/// Past whitespace and json-c's comments from `i` (the end of the text if a comment is never
/// closed).
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    loop {
        match (b.get(i), b.get(i + 1)) {
            (Some(b' ' | b'\t' | b'\n' | b'\r'), _) => i += 1,
            (Some(b'/'), Some(b'/')) => {
                i = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n + 1);
            }
            (Some(b'/'), Some(b'*')) => {
                i = b[i + 2..].windows(2).position(|w| w == b"*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            _ => return i,
        }
    }
}

/// The string starting at the quote at `i`: its raw bytes (escapes left as written) and the
/// index after its closing quote.
fn string_at(b: &[u8], i: usize) -> (&[u8], usize) {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return (&b[i + 1..j], j + 1),
            _ => j += 1,
        }
    }
    (&b[(i + 1).min(b.len())..], b.len())
}

/// The keys of the object opening at `start`, each with the first byte of its value (`None`
/// for a key without a value).
fn top_level_keys(b: &[u8], start: usize) -> Vec<(&[u8], Option<u8>)> {
    let mut keys = Vec::new();
    let (mut i, mut depth, mut at_key) = (start + 1, 1usize, true);
    while i < b.len() {
        i = skip_blank(b, i);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => {
                let (s, end) = string_at(b, i);
                i = end;
                if depth == 1 && at_key {
                    at_key = false;
                    let j = skip_blank(b, i);
                    if b.get(j) == Some(&b':') {
                        i = skip_blank(b, j + 1);
                        keys.push((s, b.get(i).copied()));
                    } else {
                        keys.push((s, None));
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                i += 1;
            }
            b',' => {
                at_key |= depth == 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_rtapp_files_and_traces_are_told_apart() {
        let scenario = r#"// mine
            { "format": "fairground-scenario/1", "name": "x", "tasks": [ { "name": "a" } ] }"#;
        assert_eq!(file_kind(scenario), FileKind::Scenario);
        // Not a valid scenario, but no rt-app shape either: the core will say what is wrong.
        assert_eq!(file_kind(r#"{ "name": "x", "tasks": [] }"#), FileKind::Scenario);
        assert_eq!(file_kind("{}"), FileKind::Scenario);
        let rtapp = "/* a comment before the object */\n{\n\t// and inside\n\t\"tasks\" : { \"t\" : { \"run\" : 1, \"run\" : 2, }, },\n}";
        assert_eq!(file_kind(rtapp), FileKind::RtApp);
        assert_eq!(file_kind("\u{feff}{ \"global\" : { \"duration\" : 2 }, \"tasks\" : [] }"), FileKind::RtApp);
        // A bare key before "tasks", and a "format" inside a task, do not confuse the scan.
        assert_eq!(file_kind(r#"{ "suspend", "tasks": { "t": { "format": 1, "s": "}{\"" } } }"#), FileKind::RtApp);
        // Broken inside is still an rt-app file: its importer names the line and column.
        assert_eq!(file_kind("{ \"tasks\" : { \"t\" : { \"run\" : 1000 \"sleep\" : 1000 } } }"), FileKind::RtApp);
        assert_eq!(file_kind("# tracer: nop\n#\n  <idle>-0 [000] ..."), FileKind::Trace);
        assert_eq!(file_kind(""), FileKind::Trace);
        assert_eq!(file_kind("/* never closed {"), FileKind::Trace);
        assert_eq!(file_kind("{ \"tasks\": { \"t\" /* never closed"), FileKind::RtApp);
        assert_eq!(file_kind("{ \"str"), FileKind::Scenario);
    }

    #[test]
    fn only_json_is_read_as_text() {
        assert!(reads_as_text(b"\xef\xbb\xbf// a scenario\n{ \"format\": 1 }"));
        assert!(reads_as_text(b"\n\n  {"));
        // A head may end inside a character (here the first two bytes of "\u{e9}").
        assert!(reads_as_text(b"{ \"name\": \"caf\xc3"));
        assert!(!reads_as_text(b"# tracer: nop\n"));
        assert!(!reads_as_text(b""));
        // trace.dat, even if what follows its magic were text.
        assert!(!reads_as_text(b"\x17\x08\x44tracing6\0{"));
        // A Perfetto trace: field 1, then a length; starts with a newline byte, but is binary.
        assert!(!reads_as_text(b"\x0a{\x08\xe8\x07\x92\x01"));
        let dat = include_bytes!("../../crates/sim/tests/fixtures/tracedat/host-6.18-hogs-sleeper.dat");
        assert!(!reads_as_text(&dat[..dat.len().min(65536)]));
    }

    #[test]
    fn the_end_to_end_fixture_is_an_rtapp_file() {
        assert_eq!(file_kind(include_str!("../../tests/e2e/fixtures/rtapp-decoder.json")), FileKind::RtApp);
    }
}
