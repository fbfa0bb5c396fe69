//! Options a link may add after its scenario (an addition to contract §3, never a change):
//! `#scenario=<stem>&step=N&present=1` or `#s=<data>&step=N&present=1`. `step` opens the
//! scenario's lesson at step N (numbered from 1, as the panel shows them); `present=1` opens
//! presenter mode. base64url never contains `&`, so the scenario part is unchanged.
//! The view travels too: `t=1.23s` (the time cursor; `s`, `ms`, `us`/`µs`, `ns`, a bare
//! number is ms), `task=<name>` (the selected task, percent-encoded), `panels=log,trees,chart`
//! (the panels inside the scheduler that are open).
//! `#exercise=<kind>&seed=N` opens a generated exercise (the worker makes it). And the
//! share-link codec itself (`#s=<data>`, contract §3). Pure, so it is unit-tested natively.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

/// Largest scenario JSON a share link may inflate to; a guard against decompression bombs.
/// 64 MiB holds what the browser's cost limit lets run (a replayed trace of a million
/// bursts is about 20 MB); the validator refuses anything larger by its counts anyway.
pub const MAX_SHARED_BYTES: usize = 64 << 20;

/// Decode the `<data>` of a `#s=<data>` link: base64url without padding of the raw DEFLATE
/// (RFC 1951) of the scenario JSON.
pub fn decode_share(data: &str) -> Result<String, String> {
    if data.is_empty() {
        return Err("the share link is empty (nothing after #s=)".into());
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(data.trim_end_matches('='))
        .map_err(|e| format!("the share link could not be decoded: it is not valid base64url ({e})"))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_SHARED_BYTES).map_err(|e| match e.status {
        miniz_oxide::inflate::TINFLStatus::HasMoreOutput => format!(
            "the share link holds a scenario larger than {} MiB, more than a link may open; open it from its file instead",
            MAX_SHARED_BYTES >> 20
        ),
        s => format!("the share link could not be decoded: its data is not valid DEFLATE ({s:?})"),
    })?;
    String::from_utf8(json).map_err(|_| "the share link could not be decoded: the scenario is not UTF-8 text".into())
}

/// The inverse of [`decode_share`]: the `<data>` of the "copy share link" button.
pub fn encode_share(json: &str) -> String {
    URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9))
}

/// What the options of a link ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// A lesson step, 0-based (the link says N = index + 1).
    pub step: Option<usize>,
    pub present: bool,
    /// An exercise's seed (`#exercise=` links).
    pub seed: Option<u64>,
    /// The time cursor, ns.
    pub t: Option<u64>,
    /// The selected task's name.
    pub task: Option<String>,
    /// Open panels inside the scheduler: "log", "trees", "chart".
    pub panels: Vec<String>,
    /// The timeline's window, from and to (ns): the zoom the sender had.
    pub win: Option<(u64, u64)>,
    /// Run the A/B comparison at once, B being the scenario with this `path=value` change.
    pub ab: Option<String>,
    /// Show the diagnostics (make the worker crash, stop a run) in the help: for tests.
    pub debug: bool,
}

/// The panels a link may open.
pub const PANELS: [&str; 3] = ["log", "trees", "chart"];

/// `1.23s`, `500ms`, `750us`, `12ns`, or a bare number of ms, as ns.
fn parse_time(v: &str) -> Option<u64> {
    let v = v.trim();
    let (num, mult) = [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)]
        .iter()
        .find_map(|(u, m)| v.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((v, 1e6));
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let x: f64 = num.parse().ok()?;
    let ns = (x * mult).round();
    (ns.is_finite() && ns >= 0.0 && ns < 1e18).then_some(ns as u64)
}

/// A time as the shortest exact `t=` value.
fn fmt_time(ns: u64) -> String {
    if ns % 1_000_000 == 0 {
        format!("{}ms", ns / 1_000_000)
    } else if ns % 1000 == 0 {
        format!("{}us", ns / 1000)
    } else {
        format!("{ns}ns")
    }
}

/// Percent-encoding of a task name for a fragment (RFC 3986 unreserved characters kept).
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let h = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The options after the first `&` of a fragment, and a readable message for each one that
/// cannot be used (the scenario opens all the same).
pub fn link_options(hash: &str) -> (LinkOptions, Vec<String>) {
    let frag = hash.strip_prefix('#').unwrap_or(hash);
    let mut o = LinkOptions::default();
    let mut errors = Vec::new();
    for part in frag.split('&').skip(1).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match k {
            "step" => match v.parse::<usize>() {
                Ok(n) if n >= 1 => o.step = Some(n - 1),
                _ => errors.push(format!("The link's \"step={}\" is not a step number (steps are numbered from 1).", short(v))),
            },
            // A scenario's seed holds at most 2^53 (what a JSON number holds exactly).
            "seed" => match v.parse::<u64>() {
                Ok(n) if n <= 1 << 53 => o.seed = Some(n),
                _ => errors.push(format!("The link's \"seed={}\" is not a whole number from 0 to {}.", short(v), 1u64 << 53)),
            },
            "present" => match v {
                "1" | "" | "true" => o.present = true,
                "0" | "false" => o.present = false,
                _ => errors.push(format!("The link's \"present={}\" is not understood (use present=1).", short(v))),
            },
            "t" => match parse_time(v) {
                Some(ns) => o.t = Some(ns),
                None => errors.push(format!("The link's \"t={}\" is not a time (for example t=1.23s, t=500ms, t=750us).", short(v))),
            },
            "task" => match decode(v).filter(|n| !n.is_empty()) {
                Some(n) => o.task = Some(n),
                None => errors.push(format!("The link's \"task={}\" is not a task name.", short(v))),
            },
            "panels" => {
                for p in v.split(',').filter(|p| !p.is_empty()) {
                    if PANELS.contains(&p) {
                        o.panels.push(p.to_string());
                    } else {
                        errors.push(format!("The link's panel \"{}\" is not one of log, trees, chart.", short(p)));
                    }
                }
            }
            "win" => match v.split_once('-').and_then(|(a, b)| Some((parse_time(a)?, parse_time(b)?))) {
                Some((a, b)) if a < b => o.win = Some((a, b)),
                _ => errors.push(format!("The link's \"win={}\" is not a window of the timeline (FROM-TO, for example win=10ms-30ms).", short(v))),
            },
            "ab" => match decode(v).filter(|a| a.contains('=')) {
                Some(a) => o.ab = Some(a),
                None => errors.push(format!("The link's \"ab={}\" is not a change (path=value, for example ab=scheduler.features.latency_max_clamp_wakeup=false).", short(v))),
            },
            "debug" => o.debug = v == "1",
            _ => errors.push(format!(
                "The link's option \"{}\" is not understood (known: step=N, present=1, seed=N, t=TIME, task=NAME, panels=log,trees,chart, win=FROM-TO, ab=PATH=VALUE).",
                short(part)
            )),
        }
    }
    (o, errors)
}

/// `#exercise=<kind>&seed=N`: the kind and seed (1 when the link has none), or what is wrong
/// with them; None for other fragments.
pub fn exercise_link(hash: &str, kinds: &[&str]) -> Option<Result<(String, u64), String>> {
    let frag = hash.strip_prefix('#').unwrap_or(hash);
    let kind = frag.split('&').next()?.strip_prefix("exercise=")?;
    if !kinds.contains(&kind) {
        return Some(Err(format!("there is no exercise kind \"{}\" (known: {})", short(kind), kinds.join(", "))));
    }
    let (o, errors) = link_options(hash);
    if let Some(e) = errors.iter().find(|e| e.contains("seed=")) {
        return Some(Err(e.trim_end_matches('.').to_string()));
    }
    Some(Ok((kind.to_string(), o.seed.unwrap_or(1))))
}

/// The fragment for `base` (`scenario=<stem>` or `s=<data>`) with these options.
pub fn with_options(base: &str, o: &LinkOptions) -> String {
    let mut f = format!("#{}", base.strip_prefix('#').unwrap_or(base));
    if let Some(s) = o.seed {
        f.push_str(&format!("&seed={s}"));
    }
    if let Some(s) = o.step {
        f.push_str(&format!("&step={}", s + 1));
    }
    if o.present {
        f.push_str("&present=1");
    }
    if let Some(t) = o.t {
        f.push_str(&format!("&t={}", fmt_time(t)));
    }
    if let Some(n) = &o.task {
        f.push_str(&format!("&task={}", encode(n)));
    }
    if !o.panels.is_empty() {
        f.push_str(&format!("&panels={}", o.panels.join(",")));
    }
    if let Some((a, b)) = o.win {
        f.push_str(&format!("&win={}-{}", fmt_time(a), fmt_time(b)));
    }
    f
}

/// The message for a step a link asks for that the scenario does not have.
pub fn step_problem(step: usize, steps: Option<usize>) -> Option<String> {
    match steps {
        None => Some(format!("The link asks for lesson step {}, but this scenario has no lesson.", step + 1)),
        Some(n) if step >= n => Some(format!("The link asks for step {}, but this lesson has {n} steps: showing step 1.", step + 1)),
        Some(_) => None,
    }
}

fn short(s: &str) -> String {
    if s.chars().count() <= 40 {
        s.to_string()
    } else {
        s.chars().take(40).chain(std::iter::once('…')).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::logic::{parse_fragment, Route};

    #[test]
    fn options_after_the_scenario() {
        assert_eq!(link_options("#scenario=lesson-1-vruntime"), (LinkOptions::default(), vec![]));
        assert_eq!(
            link_options("#scenario=lesson-1-vruntime&step=3&present=1"),
            (LinkOptions { step: Some(2), present: true, ..Default::default() }, vec![])
        );
        assert_eq!(link_options("#s=abc_-&present=1").0, LinkOptions { present: true, ..Default::default() });
        // The route is read as before, options aside.
        assert_eq!(parse_fragment("#scenario=lesson-1-vruntime&step=3"), Route::Scenario("lesson-1-vruntime".into()));
        assert_eq!(parse_fragment("#s=abc&present=1"), Route::Shared("abc".into()));
    }

    #[test]
    fn bad_options_are_named_not_fatal() {
        for (frag, want) in [
            ("#scenario=x&step=0", "step=0"),
            ("#scenario=x&step=-1", "step=-1"),
            ("#scenario=x&step=abc", "step=abc"),
            ("#scenario=x&step=99999999999999999999999", "not a step number"),
            ("#scenario=x&present=maybe", "present=maybe"),
            ("#scenario=x&zoom=2", "\"zoom=2\" is not understood"),
        ] {
            let (o, e) = link_options(frag);
            assert_eq!(o.step, None, "{frag}");
            assert_eq!(e.len(), 1, "{frag}");
            assert!(e[0].contains(want), "{frag}: {}", e[0]);
        }
    }

    #[test]
    fn exercise_links() {
        let kinds = ["cfs-pick", "wakeup-clamp"];
        assert_eq!(exercise_link("#scenario=x", &kinds), None);
        assert_eq!(exercise_link("#exercise=cfs-pick&seed=42&present=1", &kinds), Some(Ok(("cfs-pick".into(), 42))));
        assert_eq!(exercise_link("#exercise=wakeup-clamp", &kinds), Some(Ok(("wakeup-clamp".into(), 1))));
        assert!(exercise_link("#exercise=nope&seed=1", &kinds).is_some_and(|r| r.is_err_and(|e| e.contains("no exercise kind \"nope\""))));
        assert!(exercise_link("#exercise=cfs-pick&seed=-3", &kinds).is_some_and(|r| r.is_err_and(|e| e.contains("seed=-3"))));
        // A scenario's seed holds at most 2^53: beyond, the link is refused with the range.
        assert_eq!(exercise_link("#exercise=cfs-pick&seed=9007199254740992", &kinds), Some(Ok(("cfs-pick".into(), 1 << 53))));
        assert!(exercise_link("#exercise=cfs-pick&seed=9007199254740993", &kinds)
            .is_some_and(|r| r.is_err_and(|e| e.contains("from 0 to 9007199254740992"))));
        assert_eq!(
            link_options(&with_options("exercise=cfs-pick", &LinkOptions { seed: Some(7), present: true, ..Default::default() })),
            (LinkOptions { seed: Some(7), present: true, ..Default::default() }, vec![])
        );
    }

    #[test]
    fn round_trip_and_ranges() {
        let o = LinkOptions { step: Some(1), present: true, ..Default::default() };
        let f = with_options("scenario=lesson-2-wakeup-clamp", &o);
        assert_eq!(f, "#scenario=lesson-2-wakeup-clamp&step=2&present=1");
        assert_eq!(link_options(&f), (o, vec![]));
        assert_eq!(step_problem(3, Some(4)), None);
        assert!(step_problem(4, Some(4)).is_some_and(|m| m.contains("step 5") && m.contains("4 steps")));
        assert!(step_problem(0, None).is_some_and(|m| m.contains("no lesson")));
    }

    #[test]
    fn the_timeline_window_travels_in_the_link() {
        let o = LinkOptions { win: Some((10_000_000, 30_500_000)), ..Default::default() };
        let f = with_options("scenario=two-hogs", &o);
        assert_eq!(f, "#scenario=two-hogs&win=10ms-30500us");
        assert_eq!(link_options(&f), (o, vec![]));
        for bad in ["win=5ms", "win=30ms-10ms", "win=a-b"] {
            let (o, e) = link_options(&format!("#scenario=x&{bad}"));
            assert_eq!(o.win, None, "{bad}");
            assert!(e.len() == 1 && e[0].contains(bad), "{bad}: {e:?}");
        }
    }

    #[test]
    fn the_view_travels_in_the_link() {
        let o = LinkOptions {
            t: Some(1_230_000_000),
            task: Some("hog/0 & co".into()),
            panels: vec!["log".into(), "trees".into()],
            ..Default::default()
        };
        let f = with_options("s=abc", &o);
        assert_eq!(f, "#s=abc&t=1230ms&task=hog/0%20%26%20co&panels=log,trees");
        assert_eq!(link_options(&f), (o, vec![]));
        for (v, ns) in [("1.23s", 1_230_000_000), ("500ms", 500_000_000), ("750us", 750_000), ("750µs", 750_000), ("12ns", 12), ("2.5", 2_500_000)] {
            assert_eq!(link_options(&format!("#scenario=x&t={v}")).0.t, Some(ns), "{v}");
        }
        assert_eq!(fmt_time(1_500), "1500ns");
        assert_eq!(fmt_time(1_500_000), "1500us");
        for (frag, want) in [
            ("#scenario=x&t=soon", "t=soon"),
            ("#scenario=x&t=-1s", "t=-1s"),
            ("#scenario=x&t=1e9", "t=1e9"),
            ("#scenario=x&task=%ZZ", "task=%ZZ"),
            ("#scenario=x&panels=log,graph", "\"graph\" is not one of"),
        ] {
            let (_, e) = link_options(frag);
            assert_eq!(e.len(), 1, "{frag}");
            assert!(e[0].contains(want), "{frag}: {}", e[0]);
        }
    }
}
