//! The page's pure logic: URL fragments (contract §3; the share-link codec is in `links`), the scenario index,
//! scenario headings and descriptions, and the scenario's entries as choices for the panels.
//! Nothing here touches the browser, so it is unit-tested natively by `cargo test --workspace`.
//! Numbers and times as shown are in `draw::format`.


/// The scenario opened when the page has no fragment, and after a fragment that cannot be used.
pub const DEFAULT_STEM: &str = "two-hogs";

/// Where the built site serves the shipped scenarios (relative to the page).
pub const SCENARIO_DIR: &str = "static/scenarios";

pub use super::links::{decode_share, encode_share, MAX_SHARED_BYTES};

/// What the URL fragment asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// No fragment (or an empty one): open the default scenario.
    Default,
    /// `#scenario=<stem>`: a shipped scenario.
    Scenario(String),
    /// `#s=<data>`: a shared scenario, still encoded.
    Shared(String),
    /// Anything else; the message names the problem.
    Invalid(String),
}

/// Parse `location.hash` (with or without its leading `#`).
pub fn parse_fragment(hash: &str) -> Route {
    let frag = hash.strip_prefix('#').unwrap_or(hash);
    // Options after `&` (`step`, `present`) are read by `links.rs`.
    let frag = frag.split('&').next().unwrap_or(frag);
    if frag.is_empty() {
        return Route::Default;
    }
    if let Some(stem) = frag.strip_prefix("scenario=") {
        return match check_stem(stem) {
            Ok(()) => Route::Scenario(stem.to_string()),
            Err(e) => Route::Invalid(e),
        };
    }
    if let Some(data) = frag.strip_prefix("s=") {
        return Route::Shared(data.to_string());
    }
    Route::Invalid(format!(
        "the link's fragment \"#{}\" is not understood: expected #scenario=<name> or #s=<data>",
        shorten(frag, 60)
    ))
}

/// A stem is a file name without `.json`: `[A-Za-z0-9_.-]{1,64}`, not starting with a dot.
pub fn check_stem(stem: &str) -> Result<(), String> {
    let ok = !stem.is_empty()
        && stem.len() <= 64
        && !stem.starts_with('.')
        && stem.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "\"{}\" is not a valid scenario name (letters, digits, '-', '_' and '.' only)",
            shorten(stem, 60)
        ))
    }
}

/// The URL of a shipped scenario, relative to the page.
pub fn scenario_url(stem: &str) -> String {
    format!("{SCENARIO_DIR}/{stem}.json")
}


/// One entry of `static/scenarios/index.json` (generated at build time by
/// `scripts/scenario-index.mjs`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct IndexEntry {
    pub stem: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

impl IndexEntry {
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) if !n.is_empty() => format!("{n} ({})", self.stem),
            _ => self.stem.clone(),
        }
    }
}

/// The picker's groups, in the order shown.
pub const GROUPS: [&str; 3] = ["Lessons", "Experiments", "The threads' tables"];

/// Which of `GROUPS` a shipped scenario belongs to, by its stem: `lesson-*` are the guided
/// lessons, `seed*` reproduce the mailing-list threads' tables, the rest are experiments.
pub fn group_of(stem: &str) -> usize {
    if stem.starts_with("lesson-") {
        0
    } else if stem.starts_with("seed") {
        2
    } else {
        1
    }
}

#[derive(serde::Deserialize)]
struct IndexFile {
    scenarios: Vec<IndexEntry>,
}

pub fn parse_index(text: &str) -> Result<Vec<IndexEntry>, String> {
    let f: IndexFile =
        serde_json::from_str(text).map_err(|e| format!("the scenario list (index.json) is invalid: {e}"))?;
    Ok(f.scenarios.into_iter().filter(|e| check_stem(&e.stem).is_ok()).collect())
}

/// Name and description read from a scenario's text, when it is plain JSON; best effort, for
/// the heading shown before (or without) a run.
pub fn scenario_heading(text: &str) -> (Option<String>, Option<String>) {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => (
            v.get("name").and_then(|n| n.as_str()).map(str::to_string),
            v.get("description").and_then(|n| n.as_str()).map(str::to_string),
        ),
        Err(_) => (None, None),
    }
}

/// A piece of inline text in a scenario description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Strong(String),
    Em(String),
    Code(String),
}

/// A deliberately small subset of Markdown for scenario descriptions, until the full app
/// renders them properly: paragraphs (blank-line separated), `**strong**`, `*em*` and
/// `` `code` ``. Anything else is shown as written; no HTML is ever produced from the text.
pub fn markdown_lite(text: &str) -> Vec<Vec<Inline>> {
    let mut paragraphs = Vec::new();
    let mut current = String::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if !current.is_empty() {
                paragraphs.push(inlines(&current));
                current.clear();
            }
        } else {
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(line.trim());
        }
    }
    paragraphs
}

fn inlines(p: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = p;
    while let Some(c) = rest.chars().next() {
        let span = [("**", 0u8), ("`", 1), ("*", 2)].into_iter().find_map(|(mark, kind)| {
            let body = rest.strip_prefix(mark)?;
            let end = body.find(mark)?;
            let inner = &body[..end];
            // As in Markdown, `* x *` is not emphasis.
            let flanked = !inner.starts_with(char::is_whitespace) && !inner.ends_with(char::is_whitespace);
            (end > 0 && (kind == 1 || flanked)).then(|| (kind, inner, mark.len() * 2 + end))
        });
        match span {
            Some((kind, body, len)) => {
                if !text.is_empty() {
                    out.push(Inline::Text(std::mem::take(&mut text)));
                }
                out.push(match kind {
                    0 => Inline::Strong(body.to_string()),
                    1 => Inline::Code(body.to_string()),
                    _ => Inline::Em(body.to_string()),
                });
                rest = &rest[len..];
            }
            None => {
                text.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    if !text.is_empty() {
        out.push(Inline::Text(text));
    }
    out
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

/// The page's scenario text as JSON (Null when there is none or it does not parse), for the
/// panels that offer choices from it.
pub fn doc_of(text: &Option<String>) -> serde_json::Value {
    text.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or(serde_json::Value::Null)
}

/// The names of the entries of array `key` ("tasks", "workloads", "cgroups"), in file order,
/// "?" for an entry without one.
pub fn entry_names(doc: &serde_json::Value, key: &str) -> Vec<String> {
    let name = |x: &serde_json::Value| x.get("name").and_then(serde_json::Value::as_str).unwrap_or("?").to_string();
    doc.get(key).and_then(serde_json::Value::as_array).map_or_else(Vec::new, |xs| xs.iter().map(name).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn scenarios_fall_into_the_pickers_groups() {
        use super::{group_of, GROUPS};
        assert_eq!(GROUPS[group_of("lesson-3-eevdf-lag")], "Lessons");
        assert_eq!(GROUPS[group_of("seed004-schbench-vs-hackbench")], "The threads' tables");
        assert_eq!(GROUPS[group_of("clamp-lesson")], "Experiments", "a lesson only by its prefix");
        assert_eq!(GROUPS[group_of("two-hogs")], "Experiments");
    }

    #[test]
    fn entry_names_follow_the_file() {
        let doc = doc_of(&Some(r#"{ "tasks": [ { "name": "a" }, { "count": 2 } ], "cgroups": 3 }"#.into()));
        assert_eq!(entry_names(&doc, "tasks"), ["a", "?"]);
        assert!(entry_names(&doc, "cgroups").is_empty() && entry_names(&doc, "workloads").is_empty());
        assert_eq!(doc_of(&Some("{ broken".into())), serde_json::Value::Null);
    }

    use super::*;

    #[test]
    fn fragments() {
        assert_eq!(parse_fragment(""), Route::Default);
        assert_eq!(parse_fragment("#"), Route::Default);
        assert_eq!(parse_fragment("#scenario=two-hogs"), Route::Scenario("two-hogs".into()));
        assert_eq!(parse_fragment("scenario=nice-0-vs-5"), Route::Scenario("nice-0-vs-5".into()));
        assert_eq!(parse_fragment("#s=abc"), Route::Shared("abc".into()));
        assert!(matches!(parse_fragment("#scenario=../etc/passwd"), Route::Invalid(_)));
        assert!(matches!(parse_fragment("#scenario="), Route::Invalid(_)));
        assert!(matches!(parse_fragment("#scenario=.hidden"), Route::Invalid(_)));
        assert!(matches!(parse_fragment("#whatever"), Route::Invalid(_)));
    }

    #[test]
    fn share_round_trip() {
        let json = r#"{ "format": "fairground-scenario/1", "name": "two hogs", "duration_ms": 100 }"#;
        let data = encode_share(json);
        assert!(!data.contains('=') && !data.contains('+') && !data.contains('/'));
        assert_eq!(decode_share(&data).as_deref(), Ok(json));
    }

    #[test]
    fn share_garbage_is_an_error_not_a_panic() {
        for bad in ["", "!!!garbage", "AAAA", "____", "a", "%%", "AAECAwQFBgc"] {
            let e = decode_share(bad).unwrap_err();
            assert!(e.contains("share link"), "{bad}: {e}");
        }
    }

    #[test]
    fn share_bomb_is_refused() {
        let big = "x".repeat(MAX_SHARED_BYTES + 1);
        let e = decode_share(&encode_share(&big)).unwrap_err();
        assert!(e.contains("larger than 64 MiB"), "{e}");
    }

    #[test]
    fn index() {
        let ix = parse_index(r#"{"scenarios":[{"stem":"a","name":"A"},{"stem":"../x"},{"stem":"b"}]}"#).unwrap();
        assert_eq!(ix.len(), 2);
        assert_eq!(ix[0].label(), "A (a)");
        assert_eq!(ix[1].label(), "b");
        assert!(parse_index("[").is_err());
    }

    #[test]
    fn heading() {
        let (n, d) = scenario_heading(r#"{"name":"x","description":"**d**"}"#);
        assert_eq!((n.as_deref(), d.as_deref()), (Some("x"), Some("**d**")));
        assert_eq!(scenario_heading("{ // jsonc\n}"), (None, None));
    }

    #[test]
    fn markdown() {
        use Inline::*;
        let p = markdown_lite("One *a* **b**\nsame `c`.\n\n\nTwo ** x 2*3");
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[0],
            vec![
                Text("One ".into()), Em("a".into()), Text(" ".into()), Strong("b".into()),
                Text(" same ".into()), Code("c".into()), Text(".".into())
            ]
        );
        assert_eq!(p[1], vec![Text("Two ** x 2*3".into())]);
        assert!(markdown_lite("").is_empty());
        assert_eq!(markdown_lite("≈ **75.3%**")[0], vec![Text("≈ ".into()), Strong("75.3%".into())]);
    }
}
