//! The scenario parser never panics: random text, and random mutations of a valid file.
//! Whatever it accepts expands, is costed and round-trips through `to_json`.

use fairground_sim::scenario::*;
use proptest::prelude::*;

/// The "All fields" example of contract §1, verbatim (JSONC: comments).
const FULL: &str = include_str!("fixtures/contract-full.jsonc");

/// Everything downstream of an accepted scenario must hold too.
fn check(text: &str) {
    match parse_scenario(text) {
        Ok(v) => {
            let e = expand(&v.scenario);
            assert!(e.len() as u64 <= MAX_TASKS);
            let _ = check_cost(&v.scenario, &Limits::BROWSER);
            let back = parse_value(&to_json(&v.scenario)).map(|b| b.scenario);
            assert_eq!(back.as_ref(), Ok(&v.scenario));
        }
        Err(e) => {
            if let (Some(l), Some(c)) = (e.line, e.column) {
                assert!(l >= 1 && c >= 1);
                assert!(l <= text.lines().count().max(1) + 1);
            }
            let _ = e.to_string();
        }
    }
}

const PIECES: &[&str] = &[
    "", ",", "}", "]", "{", "[", "\"", "//", "/*", "*/", "\n", "0", "-1", "1.0", "1e3", "null", "true",
    "\"hog\"", "\"kind\"", "99999999999999999999", ":", "\\", "\\u00e9", "é",
];

/// Apply `(where, how many bytes to drop, which piece to put)` edits, on char boundaries.
fn mutate(base: &str, edits: &[(prop::sample::Index, usize, usize)]) -> String {
    let mut text = base.to_string();
    for (at, del, piece) in edits {
        let mut i = at.index(text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        let mut j = (i + del).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        text.replace_range(i..j, PIECES[*piece]);
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_text_never_panics(s in "[{}\\[\\],:\"a-z0-9./* \n-]{0,120}") {
        check(&s);
    }

    #[test]
    fn mutations_of_a_valid_file_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..8, 0..PIECES.len()), 1..4)
    ) {
        let text = mutate(FULL, &edits);
        check(&text);
    }

    #[test]
    fn number_mutations_never_panic(n in any::<i64>(), f in any::<f64>(), which in 0usize..40) {
        // Replace the which-th number of the file by an arbitrary integer or float.
        let mut count = 0;
        let mut out = String::new();
        let mut chars = FULL.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                let mut lit = c.to_string();
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_digit() { lit.push(d); chars.next(); } else { break; }
                }
                if count == which { lit = if which % 2 == 0 { n.to_string() } else { format!("{f:?}") }; }
                count += 1;
                out.push_str(&lit);
            } else {
                out.push(c);
            }
        }
        check(&out);
    }
}

const ADDITIONS: &str = include_str!("fixtures/additions.jsonc");

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// The additions (replay, lesson) under mutation: the parser never panics, and what it
    /// accepts runs, and its lesson is answered, without panicking either.
    #[test]
    fn mutations_of_the_additions_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..8, 0..PIECES.len()), 1..4)
    ) {
        let text = mutate(ADDITIONS, &edits);
        check(&text);
        if let Ok(v) = parse_scenario(&text) {
            if check_cost(&v.scenario, &Limits::BROWSER).is_ok() && v.scenario.duration_ms <= 100 {
                let mut s = fairground_sim::engine::Sim::new(&v).expect("accepted scenarios are simulated");
                s.run();
                if let Some(l) = v.scenario.lesson.clone() {
                    for st in &l.steps {
                        let _ = fairground_sim::lesson::answer(&v, st);
                        let _ = fairground_sim::lesson::render_text(&st.text, &s.report());
                    }
                }
            }
        }
    }
}

#[test]
fn the_additions_fixture_is_valid_and_runs() {
    let v = parse_scenario(ADDITIONS).expect("valid");
    let mut s = fairground_sim::engine::Sim::new(&v).expect("sim");
    s.run();
    let r = s.report();
    let t = r.tasks.iter().find(|t| t.name == "r").expect("r");
    assert_eq!(t.cpu_ns, 2_010_000, "800 + 1200 + 10 µs of replayed bursts");
    assert_eq!(t.wakeups, 2, "the first step's sleep 0 is its fork (delayed by start_us), the next two are wakeups");
}
