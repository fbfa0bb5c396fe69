//! The app's pure logic: URL fragments (contract §3), share-link decoding, the scenario index
//! and number formatting. Nothing here touches the browser, so it is unit-tested natively by
//! `cargo test --workspace`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// The scenario opened when the page has no fragment, and after a fragment that cannot be used.
pub const DEFAULT_STEM: &str = "two-hogs";

/// Where the built site serves the shipped scenarios (relative to the page).
pub const SCENARIO_DIR: &str = "static/scenarios";

/// Largest scenario JSON a share link may inflate to; a guard against decompression bombs.
pub const MAX_SHARED_BYTES: usize = 4 << 20;

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

/// Decode the `<data>` of a `#s=<data>` link: base64url without padding of the raw DEFLATE
/// (RFC 1951) of the scenario JSON.
pub fn decode_share(data: &str) -> Result<String, String> {
    if data.is_empty() {
        return Err("the share link is empty (nothing after #s=)".into());
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(data.trim_end_matches('='))
        .map_err(|e| format!("the share link could not be decoded: it is not valid base64url ({e})"))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_SHARED_BYTES).map_err(|e| {
        format!("the share link could not be decoded: its data is not valid DEFLATE ({:?})", e.status)
    })?;
    String::from_utf8(json).map_err(|_| "the share link could not be decoded: the scenario is not UTF-8 text".into())
}

/// The inverse of [`decode_share`]: the `<data>` of the "copy share link" button.
pub fn encode_share(json: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
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

/// Nanoseconds as microseconds with one decimal; "–" for no value.
pub fn fmt_us(ns: Option<u64>) -> String {
    match ns {
        None => "–".into(),
        Some(ns) => {
            let tenths = (ns + 50) / 100;
            format!("{}.{}", tenths / 10, tenths % 10)
        }
    }
}

/// Nanoseconds as milliseconds, without trailing zeros.
pub fn fmt_ms(ns: u64) -> String {
    let ms = ns / 1_000_000;
    let rest = ns % 1_000_000;
    if rest == 0 {
        format!("{ms} ms")
    } else {
        let frac = format!("{rest:06}");
        format!("{ms}.{} ms", frac.trim_end_matches('0'))
    }
}

/// A share (0..=1) as a percentage with one decimal.
pub fn fmt_pct(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}", share * 100.0)
    } else {
        "–".into()
    }
}

/// Integers with thin groupings for readability: 1234567 → "1 234 567".
pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A time in ns, in the unit that reads best: "850 ns", "12.5 µs", "1.234 ms", "2.5 s".
pub fn fmt_time(ns: u64) -> String {
    let trim = |x: f64, d: usize| {
        let s = format!("{x:.d$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{} µs", trim(ns as f64 / 1e3, 3))
    } else if ns < 1_000_000_000 {
        format!("{} ms", trim(ns as f64 / 1e6, 3))
    } else {
        format!("{} s", trim(ns as f64 / 1e9, 4))
    }
}

/// The smallest 1-2-5 step (in ns, at least 1) not below `min_ns`: axis ticks.
pub fn nice_step(min_ns: f64) -> f64 {
    let mut step = 1.0;
    while step < min_ns && step < 1e13 {
        for m in [2.0, 2.5, 2.0] {
            step *= m;
            if step >= min_ns {
                return step;
            }
        }
    }
    step
}

/// The next tick boundary after `t` (the tick fires at every multiple of TICK_NSEC).
pub fn next_tick(t: u64, tick: u64) -> u64 {
    (t / tick.max(1) + 1) * tick.max(1)
}

/// The tick boundary before `t` (0 at the start).
pub fn prev_tick(t: u64, tick: u64) -> u64 {
    let tick = tick.max(1);
    if t == 0 {
        0
    } else if t % tick == 0 {
        t - tick
    } else {
        t / tick * tick
    }
}

/// Keep a visible window (first ns, span) within sensible bounds for a run of `duration`.
pub fn clamp_window(t0: f64, span: f64, duration: u64) -> (f64, f64) {
    let d = duration.max(1) as f64;
    let span = span.clamp(100.0, (d * 1.5).max(100.0));
    let t0 = t0.clamp(-span * 0.25, (d - span * 0.75).max(-span * 0.25));
    (t0, span)
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
        assert!(decode_share(&encode_share(&big)).is_err());
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

    #[test]
    fn times_and_ticks() {
        assert_eq!(fmt_time(850), "850 ns");
        assert_eq!(fmt_time(12_500), "12.5 µs");
        assert_eq!(fmt_time(1_234_000), "1.234 ms");
        assert_eq!(fmt_time(4_000_000), "4 ms");
        assert_eq!(fmt_time(2_500_000_000), "2.5 s");
        assert_eq!(nice_step(0.5), 1.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(11.0), 20.0);
        assert_eq!(nice_step(1_100_000.0), 2_000_000.0);
        assert_eq!(next_tick(0, 4_000_000), 4_000_000);
        assert_eq!(next_tick(4_000_000, 4_000_000), 8_000_000);
        assert_eq!(prev_tick(4_000_000, 4_000_000), 0);
        assert_eq!(prev_tick(5_000_000, 4_000_000), 4_000_000);
        assert_eq!(prev_tick(0, 4_000_000), 0);
        let (t0, span) = clamp_window(-1e12, 1e15, 100);
        assert_eq!(span, 150.0);
        assert_eq!(t0, -37.5);
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_us(None), "–");
        assert_eq!(fmt_us(Some(0)), "0.0");
        assert_eq!(fmt_us(Some(1_249)), "1.2");
        assert_eq!(fmt_us(Some(1_250)), "1.3");
        assert_eq!(fmt_us(Some(4_000_000)), "4000.0");
        assert_eq!(fmt_ms(100_000_000), "100 ms");
        assert_eq!(fmt_ms(1_500_000), "1.5 ms");
        assert_eq!(fmt_pct(0.753), "75.3");
        assert_eq!(fmt_pct(f64::NAN), "–");
        assert_eq!(fmt_int(1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(fmt_int(12), "12");
    }
}
