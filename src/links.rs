//! Options a link may add after its scenario (an addition to contract §3, never a change):
//! `#scenario=<stem>&step=N&present=1` or `#s=<data>&step=N&present=1`. `step` opens the
//! scenario's lesson at step N (numbered from 1, as the panel shows them); `present=1` opens
//! presenter mode. base64url never contains `&`, so the scenario part is unchanged. Pure, so
//! it is unit-tested natively.

/// What the options of a link ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkOptions {
    /// A lesson step, 0-based (the link says N = index + 1).
    pub step: Option<usize>,
    pub present: bool,
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
            "present" => match v {
                "1" | "" | "true" => o.present = true,
                "0" | "false" => o.present = false,
                _ => errors.push(format!("The link's \"present={}\" is not understood (use present=1).", short(v))),
            },
            _ => errors.push(format!("The link's option \"{}\" is not understood (known: step=N, present=1).", short(part))),
        }
    }
    (o, errors)
}

/// The fragment for `base` (`scenario=<stem>` or `s=<data>`) with these options.
pub fn with_options(base: &str, o: &LinkOptions) -> String {
    let mut f = format!("#{}", base.strip_prefix('#').unwrap_or(base));
    if let Some(s) = o.step {
        f.push_str(&format!("&step={}", s + 1));
    }
    if o.present {
        f.push_str("&present=1");
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
    use crate::logic::{parse_fragment, Route};

    #[test]
    fn options_after_the_scenario() {
        assert_eq!(link_options("#scenario=lesson-1-vruntime"), (LinkOptions::default(), vec![]));
        assert_eq!(
            link_options("#scenario=lesson-1-vruntime&step=3&present=1"),
            (LinkOptions { step: Some(2), present: true }, vec![])
        );
        assert_eq!(link_options("#s=abc_-&present=1").0, LinkOptions { step: None, present: true });
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
    fn round_trip_and_ranges() {
        let o = LinkOptions { step: Some(1), present: true };
        let f = with_options("scenario=lesson-2-wakeup-clamp", &o);
        assert_eq!(f, "#scenario=lesson-2-wakeup-clamp&step=2&present=1");
        assert_eq!(link_options(&f), (o, vec![]));
        assert_eq!(step_problem(3, Some(4)), None);
        assert!(step_problem(4, Some(4)).is_some_and(|m| m.contains("step 5") && m.contains("4 steps")));
        assert!(step_problem(0, None).is_some_and(|m| m.contains("no lesson")));
    }
}
