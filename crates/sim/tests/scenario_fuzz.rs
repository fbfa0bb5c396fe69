//! The scenario parser never panics: random text, and random mutations of a valid file.
//! Whatever it accepts expands, is costed and round-trips through `to_json`.

use fairground_sim::scenario::*;
use proptest::prelude::*;

/// The "All fields" example of contract §1, verbatim (JSONC: comments).
const FULL: &str = r#"{
  "format": "fairground-scenario/1",   // required, exact string
  "name": "Latency nice vs CPU hogs",   // required, 1..=120 chars
  "description": "Markdown shown beside the run", // optional
  "seed": 1,                            // optional integer 0..=2^53, default 1
  "duration_ms": 1000,                  // required, 1..=600000; the run covers [0, duration) of simulated time
  "machine": {                          // optional
    "cpus": 1,                          // 1..=1024, default 1
    "hz": 250,                          // 100 | 250 | 300 | 1000, default 250
    "llc_size": null                    // CPUs per last-level cache; must divide cpus; default: one LLC for all
  },
  "scheduler": {                        // required
    "policy": "latency-nice-v12",       // required: "cfs-v6.2" | "latency-nice-v12" | "eevdf-v6.6" | "eevdf-v6.12"
    "tunables": { },                    // optional, §1.2
    "features": { }                     // optional, §1.2
  },
  "cgroups": [                          // optional cgroup tree (cpu controller), parents before children
    { "name": "bench", "parent": null, "shares": 1024, "latency_nice": -20 }
  ],                                    // name: as for tasks; parent: optional, default null (root);
                                        // shares 2..=262144, default 1024; latency_nice -20..=19, default 0
  "tasks": [                            // at least one task or workload in all
    {
      "name": "cyclictest",             // required, [A-Za-z0-9_.-]{1,32}, unique among tasks and workloads
      "count": 1,                       // optional, 1..=4096, default 1
      "nice": 0,                        // -20..=19, default 0
      "latency_nice": -20,              // -20..=19, default 0
      "slice_us": null,                 // custom slice (sched_attr.sched_runtime): null or 0 = the default slice,
                                        // otherwise clamped to 100..=100000 as v6.12 does
      "cgroup": "bench",                // optional cgroup name; default: the root
      "cpus": [0],                      // optional affinity; default: all CPUs
      "start_ms": 0,                    // optional fork time, default 0
      "stagger_us": 0,                  // optional: instance i starts i × stagger_us later; default 0
      "behavior": { "kind": "periodic", "period_us": 1000, "run_us": 50 }
    }
  ],
  "workloads": [                        // optional generators that expand into tasks, §1.4
    { "kind": "hackbench", "name": "hb", "groups": 4, "fds": 20, "loops": 100 },
    { "kind": "schbench",  "name": "sb", "messengers": 2, "workers": 4 }
  ],
  "timeline": [                         // optional changes during the run, applied like sched_setattr
    { "at_ms": 500, "task": "cyclictest", "set": { "latency_nice": 0 } },
    { "at_us": 750250, "cgroup": "bench", "set": { "latency_nice": 0 } }
  ]                                     // exactly one of at_ms / at_us; exactly one of task / cgroup
}"#;

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
        let mut text = FULL.to_string();
        for (at, del, piece) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) { i -= 1; }
            let mut j = (i + del).min(text.len());
            while !text.is_char_boundary(j) { j += 1; }
            text.replace_range(i..j, PIECES[piece]);
        }
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
