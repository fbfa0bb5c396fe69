//! `fairground import-rtapp` on files written as rt-app's users write them, then `run`.

use std::process::Command;

fn fg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn fixture(name: &str) -> String {
    format!("{}/../sim/tests/fixtures/rtapp/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_commented_file_imports_and_runs_with_the_cpu_it_asks_for() {
    let (code, out, err) = fg(&["import-rtapp", &fixture("comments.json")]);
    assert_eq!(code, 0, "{err}");
    let path = std::env::temp_dir().join(format!("fairground-rtapp-{}.json", std::process::id()));
    std::fs::write(&path, &out).expect("write");
    let (code, report, err) = fg(&["run", path.to_str().expect("utf-8"), "--json"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&report).expect("json");
    // 2 ms of every 10 ms over 1 s, alone on its CPU: 200 ms.
    assert_eq!(r["tasks"][0]["cpu_ns"], 200_000_000, "{report}");
}

#[test]
fn approximations_are_warned_on_stderr() {
    let (code, _, err) = fg(&["import-rtapp", &fixture("sync_events.json")]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("tasks.producer") && err.contains("barrier"), "{err}");
}

#[test]
fn a_file_with_only_real_time_tasks_imports_them_as_load_and_says_what_is_not_modelled() {
    let dir = std::env::temp_dir().join(format!("fairground-rtapp-rt-{}.json", std::process::id()));
    std::fs::write(&dir, "{ \"tasks\": { \"t\": { \"policy\": \"SCHED_FIFO\", \"run\": 100, }, }, }").expect("write");
    let (code, _, err) = fg(&["import-rtapp", dir.to_str().expect("utf-8")]);
    let _ = std::fs::remove_file(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("tasks.t.policy") && err.contains("SCHED_FIFO") && err.contains("not modelled"), "{err}");
}
