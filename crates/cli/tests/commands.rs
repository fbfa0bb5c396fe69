//! The CLI's commands beside `run`: compare, sweep, the ftrace and rt-app conversions; bad
//! input exits 2 with a message naming the problem.

use std::process::Command;

fn fg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn compare_prints_rows_as_json() {
    let (code, out, _) = fg(&[
        "compare",
        "static/scenarios/clamp-lesson.json",
        "--a",
        "scheduler.features.latency_max_clamp_wakeup=true",
        "--b",
        "scheduler.features.latency_max_clamp_wakeup=false",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["rows"].as_array().expect("rows").iter().any(|r| r["figure"] == "wakeup_preemptions" && r["a"] != r["b"]));
}

#[test]
fn sweep_runs_each_value() {
    let (code, out, _) = fg(&["sweep", "static/scenarios/two-hogs.json", "--param", "tasks[0].nice", "--values", "0,5", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 4, "two values × two hogs");
    let (code, _, err) = fg(&["sweep", "static/scenarios/two-hogs.json", "--param", "tasks[9].nice", "--values", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("tasks[9].nice"), "{err}");
}

/// A workload gets its own row (its figures: a schbench's cover its workers only), which
/// `--task` can pick by the workload's name.
#[test]
fn sweep_gives_a_workloads_own_row() {
    let args = ["sweep", "static/scenarios/schbench-vs-stress.json", "--param", "workloads[0].workers", "--values", "2", "--json"];
    let (code, out, _) = fg(&args);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rows = v["rows"].as_array().expect("rows");
    let sb: Vec<_> = rows.iter().filter(|r| r["workload"] == "sb").collect();
    assert_eq!(sb.len(), 1, "one workload row per value");
    let workers: u64 = rows.iter().filter(|r| r["task"].as_str().is_some_and(|t| t.starts_with("sb/worker"))).map(|r| r["wakeups"].as_u64().expect("count")).sum();
    assert_eq!(sb[0]["wakeups"].as_u64(), Some(workers), "the workload's samples are its workers'");
    let (code, out, _) = fg(&[&args[..6], &["--task", "sb", "--json"]].concat());
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["rows"].as_array().expect("rows").len(), 1, "{out}");
}

#[test]
fn ftrace_out_and_back() {
    let (code, trace, _) = fg(&["export-ftrace", "static/scenarios/mixed-behaviours.json"]);
    assert_eq!(code, 0);
    assert_eq!(trace.lines().next(), Some("# tracer: nop"));
    let dir = std::env::temp_dir().join(format!("fg-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let f = dir.join("t.txt");
    std::fs::write(&f, &trace).expect("write");
    let (code, scenario, _) = fg(&["import-ftrace", f.to_str().expect("path"), "--policy", "cfs-v6.2"]);
    assert_eq!(code, 0);
    assert!(scenario.contains("\"replay\""));
    std::fs::write(&f, "not a trace\n").expect("write");
    let (code, _, err) = fg(&["import-ftrace", f.to_str().expect("path")]);
    assert_eq!(code, 2);
    assert!(err.contains("no sched_switch"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rtapp_out() {
    let (code, out, _) = fg(&["export-rtapp", "static/scenarios/periodic-vs-hogs.json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert!(v["tasks"].as_object().expect("tasks").len() >= 2);
}

/// Output cut short by the reader (`| head`) ends the command quietly: no panic, no error.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // Runs `args`, reads `first` bytes of its output, closes the pipe; its stderr and status.
    let cut_short = |args: &[&str], first: usize| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("starts");
        let mut out = child.stdout.take().expect("stdout");
        out.read_exact(&mut vec![0u8; first]).expect("some output");
        drop(out);
        let mut err = String::new();
        child.stderr.take().expect("stderr").read_to_string(&mut err).expect("stderr");
        (err, child.wait().expect("ends"))
    };
    let file = format!("{}/../../static/scenarios/clamp-lesson.json", env!("CARGO_MANIFEST_DIR"));
    for args in [vec!["run", file.as_str(), "--json"], vec!["export-ftrace", file.as_str()]] {
        // A few bytes read, then the pipe closed while the command still has much to write.
        let (err, status) = cut_short(&args, 16);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(status.code().is_some(), "{args:?}: killed by a signal: {status:?}");
    }
    // Short output, read by nobody: the pipe is closed before the command gets to write.
    let (err, status) = cut_short(&["--help"], 0);
    assert!(!err.contains("panicked"), "--help: {err}");
    assert_eq!(status.code(), Some(0), "--help: {err}");
}

/// A two-way sweep runs every pair, the second parameter in the outer loop, as the threads'
/// tables (schbench's latency nice across, hackbench's down); each row says both values.
#[test]
fn sweep_by_a_second_parameter_runs_every_pair() {
    let args = ["sweep", "static/scenarios/two-hogs.json", "--param", "tasks[0].nice", "--values", "0,5", "--by", "machine.cpus", "--by-values", "1,2,3", "--json"];
    let (code, out, err) = fg(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["by"], "machine.cpus");
    let rows = v["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 3 * 2 * 2, "3 CPU counts × 2 nice values × 2 hogs");
    let pairs: Vec<(i64, i64)> = rows.iter().step_by(2).map(|r| (r["by"].as_i64().expect("by"), r["value"].as_i64().expect("value"))).collect();
    assert_eq!(pairs, [(1, 0), (1, 5), (2, 0), (2, 5), (3, 0), (3, 5)]);
    // With a CPU each, nice does not matter: both hogs run all the time.
    let cpu = |by: i64, value: i64| rows.iter().filter(|r| r["by"] == by && r["value"] == value).map(|r| r["cpu_ns"].as_u64().expect("cpu")).collect::<Vec<_>>();
    assert_eq!(cpu(2, 5), [100_000_000, 100_000_000]);
    assert!(cpu(1, 5)[0] < cpu(1, 5)[1], "on one CPU nice 5 gets less: {:?}", cpu(1, 5));
    let (code, csv, _) = fg(&[&args[..10], &["--csv"]].concat());
    assert_eq!(code, 0);
    assert!(csv.starts_with("by,value,task,"), "{csv}");
    let (code, _, err) = fg(&[&args[..8], &["--json"]].concat());
    assert_eq!(code, 2, "--by without values");
    assert!(err.contains("--by"), "{err}");
}

/// A sweep over policies shows their names as typed, not as JSON strings.
#[test]
fn a_sweep_over_words_prints_them_plain() {
    let (code, out, err) = fg(&["sweep", "static/scenarios/two-hogs.json", "--param", "scheduler.policy", "--values", "cfs-v6.2,eevdf-v6.12"]);
    assert_eq!(code, 0, "{err}");
    let firsts: Vec<&str> = out.lines().skip(1).filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(firsts, ["cfs-v6.2", "cfs-v6.2", "eevdf-v6.12", "eevdf-v6.12"], "{out}");
}

/// A class's answer key: a header and one row per seed, each row the exercise the link opens
/// (its answer is the generator's), the same seeds the same key; bad kinds and ranges exit 2.
#[test]
fn answer_key_prints_one_row_per_student_and_names_bad_input() {
    let (code, out, err) = fg(&["answer-key", "--kind", "eevdf-eligibility", "--seeds", "5-14"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "kind,seed,link,question,answer,decided_at_ms,solution");
    assert_eq!(lines.len(), 11, "ten students: {out}");
    for (i, l) in lines[1..].iter().enumerate() {
        let seed = 5 + i as u64;
        assert!(l.starts_with(&format!("eevdf-eligibility,{seed},#exercise=eevdf-eligibility&seed={seed},")), "{l}");
        let e = fairground_sim::lesson::exercise::generate(fairground_sim::lesson::exercise::Kind::EevdfEligibility, seed).expect("exercise");
        assert!(l.contains(&format!(",{},", e.answer.value)), "seed {seed}: {l}");
    }
    assert_eq!(fg(&["answer-key", "--kind", "eevdf-eligibility", "--seeds", "5-14"]).1, out, "the same seeds, the same key");
    let (code, _, err) = fg(&["answer-key", "--kind", "guess", "--seeds", "1-2"]);
    assert!(code == 2 && err.contains("no exercise kind \"guess\""), "{err}");
    let (code, _, err) = fg(&["answer-key", "--kind", "cfs-pick", "--seeds", "1-9999"]);
    assert!(code == 2 && err.contains("1 to 500 seeds"), "{err}");
    let (code, _, err) = fg(&["answer-key", "--kind", "cfs-pick", "--seeds", "x"]);
    assert!(code == 2 && err.contains("FROM-TO"), "{err}");
}

/// `fairground domains` (contract §4): per CPU, the domains lowest first with the kernel's
/// level names, cpulists and flag names; on one CPU, none; a refused scenario exits 2.
#[test]
fn domains_lists_each_cpus_levels() {
    let dir = std::env::temp_dir().join(format!("fg-domains-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("m.json");
    let scenario = |machine: &str| {
        format!(r#"{{"format": "fairground-scenario/1", "name": "m", "duration_ms": 10, "machine": {machine},
            "scheduler": {{"policy": "eevdf-v6.18"}}, "tasks": [{{"name": "a", "behavior": {{"kind": "hog"}}}}]}}"#)
    };
    std::fs::write(&file, scenario(r#"{"cpus": 16, "topology": {"threads_per_core": 2, "cores_per_llc": 8, "llcs_per_node": 1, "nodes": 1}}"#)).expect("write");
    let path = file.to_str().expect("utf-8 path");
    let (code, out, _) = fg(&["domains", path, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let cpu3 = &v["cpus"][3];
    assert_eq!(cpu3["cpu"], 3);
    let levels: Vec<&str> = cpu3["domains"].as_array().expect("domains").iter().map(|d| d["level"].as_str().unwrap_or("")).collect();
    assert_eq!(levels, ["SMT", "MC"]);
    assert_eq!(cpu3["domains"][0]["span"], "2-3");
    assert_eq!(cpu3["domains"][0]["groups"], serde_json::json!(["3", "2"]));
    assert_eq!(cpu3["domains"][1]["span"], "0-15");
    assert_eq!(cpu3["domains"][1]["imbalance_pct"], 117);
    assert_eq!((cpu3["domains"][1]["min_interval"].as_u64(), cpu3["domains"][1]["max_interval"].as_u64()), (Some(16), Some(32)));
    assert!(cpu3["domains"][0]["flags"].as_array().expect("flags").contains(&serde_json::json!("SD_SHARE_CPUCAPACITY")));
    let (code, text, _) = fg(&["domains", path]);
    assert_eq!(code, 0);
    assert!(text.contains("CPU3 attaching sched-domain(s):"), "{text}");
    assert!(text.contains(" domain-0: span=2-3 level=SMT"), "{text}");

    std::fs::write(&file, scenario(r#"{"cpus": 1}"#)).expect("write");
    let (code, text, _) = fg(&["domains", path]);
    assert_eq!((code, text.as_str()), (0, "CPU0 attaching NULL sched-domain.\n"));

    std::fs::write(&file, scenario(r#"{"cpus": 8, "topology": "host-2"}"#)).expect("write");
    let (code, _, err) = fg(&["domains", path]);
    assert_eq!(code, 2);
    assert!(err.contains("machine.topology") && err.contains("= 2"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
