//! Limits that hold in the conversions: an imported trace or rt-app file always makes a
//! scenario the simulator accepts (unique names, CPUs and times it can hold), cutting with a
//! warning what does not fit, never wrapping or overflowing silently; an exported rt-app file
//! never turns a burst into nothing.

use fairground_sim::interop::ftrace_import::{MAX_SPAN_NS, MAX_STEPS};
use fairground_sim::interop::{export_rtapp, import_ftrace, import_rtapp, ImportOptions};
use fairground_sim::parse_scenario;

/// A switch on CPU 0 at `s` seconds: `prev` (pid, comm, state) out, `next` (pid, comm) in;
/// pid 0 is idle.
fn switch(s: f64, prev: (i64, &str, &str), next: (i64, &str)) -> String {
    let comm = |pid: i64, c: &str| if pid == 0 { "swapper/0".to_string() } else { c.to_string() };
    format!(
        "{:>16}-{:<7} [000] d..2. {s:>12.6}: sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={} ==> next_comm={} next_pid={} next_prio=120\n",
        comm(prev.0, prev.1),
        prev.0,
        comm(prev.0, prev.1),
        prev.0,
        prev.2,
        comm(next.0, next.1),
        next.0
    )
}

/// Each (pid, comm) runs 1 ms in turn on CPU 0 and sleeps.
fn ran_once(tasks: &[(i64, &str)]) -> String {
    let mut t = String::new();
    for (i, &(pid, comm)) in tasks.iter().enumerate() {
        let at = 1.0 + i as f64 * 0.002;
        t += &switch(at, (0, "", "R"), (pid, comm));
        t += &switch(at + 0.001, (pid, comm, "S"), (0, ""));
    }
    t
}

fn names(t: &str) -> Vec<String> {
    let imp = import_ftrace(t, &ImportOptions::default()).expect("imports");
    let v = parse_scenario(&imp.scenario.to_string()).unwrap_or_else(|e| panic!("the scenario is valid: {e}"));
    v.scenario.tasks.iter().map(|t| t.name.clone()).collect()
}

#[test]
fn generated_task_names_are_unique_whatever_the_comms_and_pids() {
    // pid 3 is named foo-7, pid 5 foo; pid 7's foo and foo-7 are both taken.
    assert_eq!(names(&ran_once(&[(3, "foo-7"), (5, "foo"), (7, "foo")])), ["foo-7", "foo", "foo-7-2"]);
    // Comms cut to the same 20 characters, long pids, suffixes that look like others' names.
    let long = "a".repeat(25);
    let mut tasks: Vec<(i64, String)> = Vec::new();
    for (i, comm) in [long.as_str(), "aaaaaaaaaaaaaaaaaaaa", "a-1", "a", "a-1-2", "a-1", "é", "", "a b"].iter().enumerate() {
        tasks.push((1 + i as i64, comm.to_string()));
        tasks.push((i64::MAX - i as i64, comm.to_string()));
    }
    let refs: Vec<(i64, &str)> = tasks.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let got = names(&ran_once(&refs));
    let unique: std::collections::BTreeSet<&String> = got.iter().collect();
    assert_eq!(unique.len(), tasks.len(), "{got:?}");
}

#[test]
fn a_cpu_id_beyond_what_a_scenario_holds_is_an_error_naming_the_line() {
    let ok = ran_once(&[(5, "a")]);
    let far = ok.replacen("[000]", "[4294967295]", 1);
    let e = import_ftrace(&far, &ImportOptions::default()).expect_err("refused");
    assert!(e.contains("line 1") && e.contains("CPU 4294967295") && e.contains("1024"), "{e}");
    let target = format!("{ok}           a-5       [000] d..3.     1.500000: sched_waking: comm=a pid=5 prio=120 target_cpu=1024\n");
    let e = import_ftrace(&target, &ImportOptions::default()).expect_err("refused");
    assert!(e.contains("line 3") && e.contains("CPU 1024"), "{e}");
    // CPU 1023 is the last a scenario has.
    let last = ok.replace("[000]", "[1023]");
    let imp = import_ftrace(&last, &ImportOptions { pin_observed: false, ..ImportOptions::default() }).expect("imports");
    assert_eq!(imp.scenario["machine"]["cpus"], 1024);
}

#[test]
fn a_trace_longer_than_a_scenario_is_cut_at_600_s_with_a_warning() {
    assert_eq!(MAX_SPAN_NS, 600_000_000_000, "duration_ms is at most 600000");
    // A hog runs from 10 s; a sleeper runs 1 ms at 11 s, then at 650 s, past the cut.
    let mut t = switch(10.0, (0, "", "R"), (1, "hog"));
    t += &switch(11.0, (1, "hog", "R+"), (2, "sleeper"));
    t += &switch(11.001, (2, "sleeper", "S"), (1, "hog"));
    t += &switch(650.0, (1, "hog", "R+"), (2, "sleeper"));
    t += &switch(650.001, (2, "sleeper", "S"), (1, "hog"));
    let imp = import_ftrace(&t, &ImportOptions::default()).expect("imports");
    assert!(imp.warnings[0].contains("line 4") && imp.warnings[0].contains("600 s"), "{:?}", imp.warnings);
    assert_eq!(imp.scenario["duration_ms"], 600_000);
    assert_eq!(imp.end_ns - imp.start_ns, MAX_SPAN_NS);
    parse_scenario(&imp.scenario.to_string()).expect("valid");
    let cpu = |name: &str| imp.tasks.iter().find(|t| t.name == name).map(|t| t.cpu_ns);
    // The hog runs to the cut, 600 s after the first event, but for the sleeper's 1 ms.
    assert_eq!(cpu("hog"), Some(600_000_000_000 - 1_000_000));
    assert_eq!(cpu("sleeper"), Some(1_000_000));
}

#[test]
fn a_task_keeps_the_bursts_a_replay_holds_with_a_warning_naming_it() {
    // pid 9 runs 1 ms every 10 ms, five times; two other tasks run once.
    let mut t = ran_once(&[(2, "x"), (3, "y")]);
    for i in 0..5 {
        let at = 2.0 + f64::from(i) * 0.01;
        t += &switch(at, (0, "", "R"), (9, "busy"));
        t += &switch(at + 0.001, (9, "busy", "S"), (0, ""));
    }
    let opts = ImportOptions { max_steps: 3, ..ImportOptions::default() };
    let imp = import_ftrace(&t, &opts).expect("imports");
    let busy = imp.tasks.iter().find(|t| t.name == "busy").expect("busy");
    assert_eq!(busy.steps.len(), 3);
    assert_eq!(busy.cpu_ns, 3_000_000);
    let w = &imp.warnings[0];
    assert!(w.contains("task busy (pid 9)") && w.contains("5 bursts") && w.contains("first 3"), "{w}");
    parse_scenario(&imp.scenario.to_string()).expect("valid");
    // The default is what a replay holds: MAX_STEPS steps are valid, one more is not.
    assert_eq!(ImportOptions::default().max_steps, MAX_STEPS);
    let replay = |n: usize| {
        let steps = vec!["[0,1]"; n].join(",");
        format!(
            r#"{{ "format": "fairground-scenario/1", "name": "r", "duration_ms": 1, "scheduler": {{ "policy": "cfs-v6.2" }},
                "tasks": [ {{ "name": "r", "behavior": {{ "kind": "replay", "steps_us": [{steps}] }} }} ] }}"#
        )
    };
    assert!(parse_scenario(&replay(MAX_STEPS)).is_ok());
    assert!(parse_scenario(&replay(MAX_STEPS + 1)).is_err());
}

fn rtapp(tasks: &str) -> Result<(fairground_sim::Scenario, Vec<String>), String> {
    let (v, w) = import_rtapp(&format!(r#"{{ "global": {{ "duration": 2 }}, "tasks": {{ {tasks} }} }}"#), "cfs-v6.2")?;
    Ok((parse_scenario(&v.to_string()).unwrap_or_else(|e| panic!("the scenario is valid: {e}")).scenario, w))
}

#[test]
fn an_rtapp_delay_past_the_run_starts_the_task_at_its_end_never_at_0() {
    let (s, w) = rtapp(
        r#""late": { "run": 100, "sleep": 900, "delay": 18446744073709551615 },
           "soon": { "run": 100, "sleep": 900, "delay": 1499 }"#,
    )
    .expect("imports");
    let start = |n: &str| s.tasks.iter().find(|t| t.name == n).map(|t| t.start_ms);
    // 2^64 - 1 µs is far past the 2 s run: the task starts at 2000 ms, the end.
    assert_eq!(start("late"), Some(2000));
    assert!(w.iter().any(|w| w.contains("tasks.late.delay") && w.contains("past the run's end")), "{w:?}");
    // 1499 µs is 1 ms to the nearest.
    assert_eq!(start("soon"), Some(1));
    // A run longer than a scenario is cut to 600 s, with a warning.
    let (v, w) = import_rtapp(r#"{ "global": { "duration": 1e9 }, "tasks": { "h": { "run": 10 } } }"#, "cfs-v6.2").expect("imports");
    assert_eq!(v["duration_ms"], 600_000);
    assert!(w.iter().any(|w| w.contains("global.duration")), "{w:?}");
}

#[test]
fn rtapp_task_names_are_unique_after_their_characters_are_replaced() {
    let long = "x".repeat(40);
    let (s, w) = rtapp(&format!(
        r#""a b": {{ "run": 10 }}, "a_b": {{ "run": 10 }}, "a/b": {{ "run": 10 }}, "": {{ "run": 10 }},
           "{long}": {{ "run": 10 }}, "{long}y": {{ "run": 10 }}"#
    ))
    .expect("imports");
    let names: Vec<&str> = s.tasks.iter().map(|t| t.name.as_str()).collect();
    let x30 = "x".repeat(30);
    assert_eq!(names, ["a_b", "a_b-2", "a_b-3", "task", &"x".repeat(32), &format!("{x30}-2")]);
    assert!(w.iter().any(|w| w.contains(r#"tasks.a_b: named a_b-2"#)), "{w:?}");
}

#[test]
fn when_no_rtapp_task_maps_the_error_says_why() {
    let e = rtapp(r#""a": { "lock": "m" }, "b": { "run": 10, "instance": 0 }"#).expect_err("nothing maps");
    assert!(e.contains("no rt-app task") && e.contains("tasks.a.lock") && e.contains("tasks.b.instance"), "{e}");
}

#[test]
fn rtapp_cpus_a_scenario_cannot_have_are_an_error_naming_the_path() {
    for cpus in ["[18446744073709551615]", "[1024]", "[-1]", "\"0-3\""] {
        let e = rtapp(&format!(r#""a": {{ "run": 10, "cpus": {cpus} }}"#)).expect_err("refused");
        assert!(e.contains("tasks.a.cpus") && e.contains("1024"), "{cpus}: {e}");
    }
    let (s, _) = rtapp(r#""a": { "run": 10, "cpus": [1023] }"#).expect("imports");
    assert_eq!(s.machine.cpus, 1024);
}

#[test]
fn export_rtapp_never_writes_a_zero_run_for_a_burst() {
    // 1 % of 50 µs is 0.5 µs; a fixed 0.4 µs burst; a 0 µs burst (it never runs) stays 0.
    let text = r#"{ "format": "fairground-scenario/1", "name": "x", "duration_ms": 100, "scheduler": { "policy": "cfs-v6.2" },
      "tasks": [ { "name": "d", "behavior": { "kind": "duty", "percent": 1, "period_us": 50 } },
                 { "name": "b", "behavior": { "kind": "bursty", "run_us": 0.4, "sleep_us": 100 } },
                 { "name": "z", "behavior": { "kind": "bursty", "run_us": 0, "sleep_us": 100 } },
                 { "name": "p", "behavior": { "kind": "periodic", "period_us": 1000, "run_us": 2 } } ] }"#;
    let (rt, w) = export_rtapp(&parse_scenario(text).expect("valid").scenario);
    let run = |n: &str| rt["tasks"][n]["run"].as_u64();
    assert_eq!((run("d"), run("b"), run("z"), run("p")), (Some(1), Some(1), Some(0), Some(2)));
    assert!(w.iter().any(|w| w.starts_with("d:") && w.contains("0.5 µs") && w.contains("run 1")), "{w:?}");
    assert!(w.iter().any(|w| w.starts_with("b:") && w.contains("0.4 µs")), "{w:?}");
}
