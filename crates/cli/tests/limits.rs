//! Limits that hold at the command line: text from the user (a scenario's name, an unknown key,
//! an option, a comm in a trace, a swept value) reaches the terminal with its control
//! characters escaped and cut to a readable length; JSON output is left as serde_json writes it.

use std::process::Command;

fn fg(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fairground")).args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// A file of the test's own, removed with its folder at the end of the test.
struct Tmp(std::path::PathBuf);

impl Tmp {
    fn new(test: &str) -> Tmp {
        let dir = std::env::temp_dir().join(format!("fg-limits-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        Tmp(dir)
    }
    fn file(&self, name: &str, text: &str) -> String {
        let f = self.0.join(name);
        std::fs::write(&f, text).expect("write");
        f.to_str().expect("path").to_string()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// ESC, BEL, DEL and the C1 CSI (U+009B): what sets a terminal's title or clears it.
const EVIL: &str = "x\u{1b}]0;pwned\u{7}\u{1b}[2J\u{7f}\u{9b}1m";

fn raw_controls(s: &str) -> Vec<char> {
    s.chars().filter(|c| c.is_control() && *c != '\n' && *c != '\t' && *c != '\r').collect()
}

fn scenario(name: &str, extra: &str) -> String {
    serde_json::json!({
        "format": "fairground-scenario/1", "name": name, "duration_ms": 20,
        "scheduler": { "policy": "cfs-v6.2" },
        "tasks": [ { "name": "h", "behavior": { "kind": "hog" } } ],
    })
    .to_string()
    .replacen('{', &format!("{{{extra}"), 1)
}

#[test]
fn a_scenario_name_is_printed_with_its_control_characters_escaped() {
    let tmp = Tmp::new("name");
    let f = tmp.file("s.json", &scenario(EVIL, ""));
    let (code, out, err) = fg(&["run", &f]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(raw_controls(&out), [], "{out:?}");
    assert!(out.contains(r"scenario: x\u{1b}]0;pwned\u{7}\u{1b}[2J\u{7f}\u{9b}1m"), "{out}");
    // JSON is left as serde_json writes it: the name reads back whole.
    let (code, out, _) = fg(&["run", &f, "--json"]);
    assert_eq!(code, 0);
    assert!(out.contains(r#""scenario": "x\u001b]0;pwned\u0007\u001b[2J"#), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["scenario"], EVIL);
}

#[test]
fn an_unknown_key_is_echoed_escaped_and_cut() {
    let tmp = Tmp::new("key");
    let key = format!("\u{1b}[2J{}", "k".repeat(1 << 20));
    let f = tmp.file("s.json", &scenario("s", &format!("{}: 1, ", serde_json::to_string(&key).expect("json"))));
    let (code, out, err) = fg(&["run", &f]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(raw_controls(&err), [], "{err:?}");
    // The key appears twice, in the path and in the message, each time cut after 80
    // characters from the last space: ESC [ 2 J and 76 k, or the opening quote, ESC [ 2 J and
    // 75 k; then "…". The message is at most 400 characters.
    assert!(err.contains(&format!(r" \u{{1b}}[2J{}… ", "k".repeat(76))), "{err}");
    assert!(err.contains(&format!(r#"unknown key "\u{{1b}}[2J{}… "#, "k".repeat(75))), "{err}");
    assert!(err.contains("unknown key"), "{err}");
    assert!(err.chars().count() < 500, "{} characters", err.chars().count());
}

#[test]
fn an_unknown_option_is_echoed_escaped() {
    for cmd in ["run", "import-ftrace", "sweep"] {
        let (code, _, err) = fg(&[cmd, "--\u{1b}[2J"]);
        assert_eq!(code, 2, "{cmd}");
        assert_eq!(raw_controls(&err), [], "{cmd}: {err:?}");
        assert!(err.contains(r"--\u{1b}[2J"), "{cmd}: {err}");
    }
}

#[test]
fn a_comm_from_a_trace_is_echoed_escaped() {
    let tmp = Tmp::new("comm");
    let t = format!(
        "\
        hog-100     [000] d..2.   100.000000: sched_switch: prev_comm=hog prev_pid=100 prev_prio=120 prev_state=R+ ==> next_comm={EVIL} next_pid=5 next_prio=0
 {EVIL}-5       [000] d..2.   100.001000: sched_switch: prev_comm={EVIL} prev_pid=5 prev_prio=0 prev_state=S ==> next_comm=hog next_pid=100 next_prio=120
        hog-100     [000] d..2.   100.002000: sched_switch: prev_comm=hog prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
"
    );
    let f = tmp.file("t.txt", &t);
    let (code, out, err) = fg(&["import-ftrace", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(r"x\u{1b}]0;pwned\u{7}") && err.contains("not a fair-class task"), "{err}");
    assert_eq!(raw_controls(&err), [], "{err:?}");
    serde_json::from_str::<serde_json::Value>(&out).expect("the scenario, as JSON");
}

#[test]
fn a_swept_value_is_shown_escaped_in_the_table() {
    let (code, out, err) = fg(&["sweep", "static/scenarios/two-hogs.json", "--param", "name", "--values", EVIL]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(raw_controls(&out), [], "{out:?}");
    assert!(out.contains(r"x\u{1b}]0;pwned"), "{out}");
}

/// 10,000 points of a large run would take days: the sweep is refused at once, with the
/// estimate and the limit (40 runs at the per-run limit of 4e9 events), and nothing runs.
#[test]
fn a_sweep_past_the_total_limit_is_refused_before_it_runs() {
    let (code, out, err) = fg(&["sweep", "static/scenarios/seed004-schbench-vs-hackbench.json", "--param", "seed", "--range", "0..9999"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("of the 10000 points of this sweep are estimated at") && err.contains("past the limit of 1.6e11"), "{err}");
    assert!(!err.contains("sweep 1/"), "no point ran: {err}");
}
