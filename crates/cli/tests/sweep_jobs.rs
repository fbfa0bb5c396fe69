//! `fairground sweep --jobs N` and `compare`: runs on threads print exactly what one thread prints,
//! in the same order, in every output form, with and without a second parameter.

use std::process::Command;

fn fg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

const LADDER: &str = "static/scenarios/latency-nice-ladder.json";

#[test]
fn parallel_sweep_equals_sequential_byte_for_byte() {
    for form in [None, Some("--json"), Some("--csv")] {
        let mut args = vec!["sweep", LADDER, "--param", "tasks[0].latency_nice", "--range", "19..-20:6"];
        args.extend(form);
        let run = |jobs: &str| {
            let mut a = args.clone();
            a.extend(["--jobs", jobs]);
            fg(&a)
        };
        let (code, seq, err) = run("1");
        assert_eq!(code, 0, "{err}");
        assert!(seq.lines().count() > 7, "{seq}");
        for jobs in ["2", "3", "8"] {
            let (code, par, err) = run(jobs);
            assert_eq!(code, 0, "{err}");
            assert_eq!(par, seq, "--jobs {jobs} {form:?}");
            // The progress bar is for terminals: a pipe gets nothing on stderr.
            assert_eq!(err, "", "--jobs {jobs} {form:?}");
        }
    }
}

#[test]
fn parallel_two_way_sweep_equals_sequential() {
    let args = ["sweep", LADDER, "--param", "tasks[0].latency_nice", "--values", "-20,0,19", "--by", "scheduler.policy", "--by-values", "cfs-v6.2,latency-nice-v12", "--json"];
    let (code, seq, err) = fg(&[&args[..], &["--jobs", "1"]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, par, err) = fg(&[&args[..], &["--jobs", "4"]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(par, seq);
}

#[test]
fn errors_are_the_same_and_jobs_is_checked() {
    let args = ["sweep", LADDER, "--param", "tasks[99].latency_nice", "--values", "0,1"];
    let (c1, _, e1) = fg(&[&args[..], &["--jobs", "1"]].concat());
    let (c2, _, e2) = fg(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!((c1, &e1), (c2, &e2));
    assert_eq!(c1, 2);
    let (code, _, err) = fg(&["sweep", LADDER, "--param", "tasks[0].latency_nice", "--values", "0", "--jobs", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--jobs takes a whole number"), "{err}");
}

/// `fairground compare`: A and B on two threads print exactly what they print one after the
/// other, as text, as JSON and as the first divergences; a bad change is named either way.
#[test]
fn parallel_compare_equals_sequential() {
    let ab = ["compare", "static/scenarios/clamp-lesson.json", "--a", "scheduler.features.latency_max_clamp_wakeup=true", "--b", "scheduler.features.latency_max_clamp_wakeup=false"];
    for extra in [&[][..], &["--json"][..], &["--first-divergence", "5", "--json"][..]] {
        let (code, seq, err) = fg(&[&ab[..], extra, &["--jobs", "1"]].concat());
        assert_eq!(code, 0, "{extra:?}: {err}");
        assert!(seq.len() > 100, "{extra:?}: {seq}");
        for jobs in [&["--jobs", "2"][..], &[][..]] {
            let (code, par, err) = fg(&[&ab[..], extra, jobs].concat());
            assert_eq!(code, 0, "{extra:?} {jobs:?}: {err}");
            assert_eq!(par, seq, "{extra:?} {jobs:?}");
        }
    }
    let bad = ["compare", "static/scenarios/clamp-lesson.json", "--a", "machine.hz=250", "--b", "tasks[9].nice=1"];
    let (c1, _, e1) = fg(&[&bad[..], &["--jobs", "1"]].concat());
    let (c2, _, e2) = fg(&[&bad[..], &["--jobs", "2"]].concat());
    assert_eq!((c1, c2), (2, 2));
    assert_eq!(e1, e2);
    assert!(e1.contains("tasks[9].nice"), "{e1}");
    let (code, _, err) = fg(&[&ab[..], &["--jobs", "x"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("--jobs takes a whole number"), "{err}");
}
