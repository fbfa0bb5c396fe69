//! `fairground ablate`: the seed-000 question on the shipped clamp lesson, in text, JSON and
//! CSV, the same on one thread as on several, and bad input named.

use std::process::Command;

fn fg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

const LESSON: &str = "static/scenarios/clamp-lesson.json";

/// The wakers' preemptions halve without the clamps, and the wakeup clamp accounts for all
/// of it (the thread's "3rd change"): the lesson's wakers are too light to preempt without it.
#[test]
fn the_wakeup_clamp_did_it_on_the_clamp_lesson() {
    let (code, out, err) = fg(&["ablate", LESSON, "--preset", "clamps", "--figure", "task:waker/0:preemptions", "--json", "--jobs", "1"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["runs"], 8);
    assert_eq!(v["effects"][0]["switch"]["path"], "scheduler.features.latency_max_clamp_wakeup");
    let (_, par, _) = fg(&["ablate", LESSON, "--preset", "clamps", "--figure", "task:waker/0:preemptions", "--json", "--jobs", "4"]);
    assert_eq!(out, par, "parallel output equals the sequential one");
    let (code, text, _) = fg(&["ablate", LESSON, "--preset", "clamps", "--figure", "task:waker/0:preemptions"]);
    assert_eq!(code, 0);
    assert!(text.lines().nth(4).is_some_and(|l| l.starts_with("scheduler.features.latency_max_clamp_wakeup")), "{text}");
    let (_, csv, _) = fg(&["ablate", LESSON, "--preset", "clamps", "--figure", "task:waker/0:preemptions", "--csv"]);
    assert!(csv.starts_with("path,a,b,forward,backward,share_pct\n\"scheduler.features.latency_max_clamp_wakeup\""), "{csv}");
}

#[test]
fn bad_input_is_named() {
    for (args, want) in [
        (vec!["ablate", LESSON, "--preset", "clamps"], "needs --figure"),
        (vec!["ablate", LESSON, "--preset", "nope", "--figure", "task:waker/0:p99"], "not one of clamps"),
        (vec!["ablate", LESSON, "--preset", "clamps", "--figure", "task:waker/0:p42"], "figure \"task:waker/0:p42\""),
        (vec!["ablate", LESSON, "--preset", "clamps", "--figure", "task:nobody:p99"], "no task nobody"),
        (vec!["ablate", LESSON, "--a", "machine.cpus=1", "--b", "machine.cpus=1", "--figure", "task:waker/0:p99"], "no change to take apart"),
    ] {
        let (code, _, err) = fg(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// `fairground latency`: the perf-sched-latency table, longest maximum delay first.
#[test]
fn latency_prints_the_delay_table() {
    let (code, out, err) = fg(&["latency", "static/scenarios/two-hogs.json", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rows = v.as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    assert!(rows[0]["max_delay_ns"].as_u64() >= rows[1]["max_delay_ns"].as_u64());
    let (code, text, _) = fg(&["latency", "static/scenarios/two-hogs.json"]);
    assert_eq!(code, 0);
    assert!(text.contains("Avg delay ms") && text.contains("hog/0") && text.contains("hog/1"), "{text}");
}

/// `compare --first-divergence`: on the clamp lesson the runs part where the clamp lets a
/// light waker preempt in A and not in B; the same variant twice never parts.
#[test]
fn compare_first_divergence() {
    let (code, out, err) = fg(&[
        "compare", LESSON, "--a", "scheduler.features.latency_max_clamp_wakeup=true", "--b", "scheduler.features.latency_max_clamp_wakeup=false",
        "--first-divergence", "3", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let d = v.as_array().expect("list");
    assert_eq!(d.len(), 3);
    assert!(d[0]["a_text"].as_str().is_some_and(|t| t.contains("→ preempts")), "{}", d[0]);
    assert!(d[0]["b_text"].as_str().is_some_and(|t| t.contains("does not preempt")), "{}", d[0]);
    let (code, out, _) = fg(&["compare", LESSON, "--a", "machine.hz=250", "--b", "machine.hz=250", "--first-divergence"]);
    assert_eq!(code, 0);
    assert!(out.contains("same decisions"), "{out}");
}
