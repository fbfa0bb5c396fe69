//! rt-app import and export (issue 11): the supported subset maps both ways, and what is not
//! supported is named.

use fairground_sim::interop::{export_rtapp, import_rtapp};
use fairground_sim::parse_scenario;
use fairground_sim::scenario::{Behavior, Dist};

/// A LISA-style rt-app file: a periodic task, a sleeper, two hogs, one FIFO task and one with
/// phases.
const RTAPP: &str = r#"{
  "global": { "duration": 2, "default_policy": "SCHED_OTHER", "calibration": "CPU0" },
  "tasks": {
    "cyclic": { "loop": -1, "run": 500, "timer": { "ref": "t", "period": 10000 }, "priority": -5, "cpus": [0] },
    "sleeper": { "loop": -1, "run": 2000, "sleep": 8000, "delay": 5000 },
    "hog": { "instance": 2, "loop": -1, "run": 1000000 },
    "rt": { "loop": -1, "policy": "SCHED_FIFO", "run": 100, "timer": { "ref": "u", "period": 1000 } },
    "phased": { "phases": { "p1": { "run": 10 } } }
  }
}"#;

#[test]
fn rtapp_subset_imports_as_behaviours() {
    let (v, warnings) = import_rtapp(RTAPP, "cfs-v6.2").expect("imports");
    let s = parse_scenario(&v.to_string()).expect("valid").scenario;
    assert_eq!(s.duration_ms, 2000);
    let t = |n: &str| s.tasks.iter().find(|t| t.name == n).unwrap_or_else(|| panic!("{n}"));
    // rt-app runs at once, then waits for its timer: 500 µs of a 10 ms period is a duty of 5 %,
    // whose quota runs at the start of each period from the fork on.
    assert_eq!(t("cyclic").behavior, Behavior::Duty { percent: 5, period_us: 10_000 });
    assert_eq!((t("cyclic").attrs.nice, t("cyclic").attrs.cpus.clone()), (-5, Some(vec![0])));
    assert_eq!(t("sleeper").behavior, Behavior::Bursty { run_us: Dist::Fixed(2000.0), sleep_us: Dist::Fixed(8000.0) });
    assert_eq!(t("sleeper").start_ms, 5);
    assert_eq!((t("hog").behavior.clone(), t("hog").count), (Behavior::Hog, 2));
    // The FIFO task is load above the fair class, pinned to CPU 0 (the file names none).
    assert_eq!(t("rt").behavior, Behavior::Duty { percent: 10, period_us: 1000 });
    assert_eq!((t("rt").attrs.policy, t("rt").attrs.cpus.clone()), (fairground_sim::scenario::FairPolicy::Fifo, Some(vec![0])));
    assert!(warnings.iter().any(|w| w.contains("tasks.rt.policy") && w.contains("SCHED_FIFO") && w.contains("not modelled")), "{warnings:?}");
    // One phase of one run, for ever: phases are read now, and this one is a hog.
    assert_eq!(t("phased").behavior, Behavior::Hog);
}

#[test]
fn export_then_import_keeps_the_supported_subset() {
    let text = r#"{ "format": "fairground-scenario/1", "name": "x", "duration_ms": 1500, "machine": { "cpus": 2 }, "scheduler": { "policy": "eevdf-v6.6" },
      "tasks": [ { "name": "h", "count": 3, "nice": 2, "behavior": { "kind": "hog" } },
                 { "name": "p", "cpus": [1], "start_ms": 7, "behavior": { "kind": "periodic", "period_us": 4000, "run_us": 300 } },
                 { "name": "b", "behavior": { "kind": "bursty", "run_us": 100, "sleep_us": 900 } },
                 { "name": "r", "behavior": { "kind": "bursty", "run_us": { "exp": 100 }, "sleep_us": 900 } } ] }"#;
    let s = parse_scenario(text).expect("valid").scenario;
    let (rt, warnings) = export_rtapp(&s);
    assert!(warnings.iter().any(|w| w.starts_with("r:")), "random bursts named: {warnings:?}");
    let (back, _) = import_rtapp(&rt.to_string(), "eevdf-v6.6").expect("imports");
    let b = parse_scenario(&back.to_string()).expect("valid").scenario;
    assert_eq!(b.duration_ms, 1500);
    for name in ["h", "p", "b"] {
        let (x, y) = (s.tasks.iter().find(|t| t.name == name).expect("x"), b.tasks.iter().find(|t| t.name == name).expect("y"));
        assert_eq!((&x.behavior, x.count, x.attrs.nice, &x.attrs.cpus, x.start_ms), (&y.behavior, y.count, y.attrs.nice, &y.attrs.cpus, y.start_ms), "{name}");
    }
    assert!(b.tasks.iter().all(|t| t.name != "r"));
}

#[test]
fn broken_rtapp_files_are_errors() {
    assert!(import_rtapp("{", "cfs-v6.2").unwrap_err().contains("not JSON"));
    assert!(import_rtapp("{}", "cfs-v6.2").unwrap_err().contains("tasks"));
    assert!(import_rtapp(r#"{ "tasks": { "a": { "run": -3 } } }"#, "cfs-v6.2").unwrap_err().contains("tasks.a.run"));
    assert!(import_rtapp(r#"{ "tasks": { "a": { "lock": "m" } } }"#, "cfs-v6.2").unwrap_err().contains("no rt-app task"));
}

/// Every task that exports comes back with the same demand: the same behaviour, count, nice,
/// CPUs, start and policy, the higher classes included; so the two scenarios run alike, task
/// for task. (`duty` is left out: it comes back as the `periodic` of the same run and period,
/// the same demand, but a periodic task's first burst waits a period.)
#[test]
fn import_of_export_keeps_each_tasks_demand_and_policy() {
    use fairground_sim::scenario::FairPolicy;
    let text = r#"{ "format": "fairground-scenario/1", "name": "x", "duration_ms": 400, "machine": { "cpus": 2 }, "scheduler": { "policy": "cfs-v6.2" },
      "tasks": [ { "name": "h", "count": 2, "nice": 3, "behavior": { "kind": "hog" } },
                 { "name": "i", "policy": "idle", "cpus": [1], "behavior": { "kind": "periodic", "period_us": 16000, "run_us": 20 } },
                 { "name": "b", "policy": "batch", "start_ms": 5, "behavior": { "kind": "bursty", "run_us": 700, "sleep_us": 1300 } },
                 { "name": "f", "policy": "fifo", "cpus": [0], "behavior": { "kind": "periodic", "period_us": 10000, "run_us": 2000 } },
                 { "name": "r", "policy": "rr", "cpus": [1], "behavior": { "kind": "periodic", "period_us": 5000, "run_us": 500 } },
                 { "name": "dl", "policy": "deadline", "cpus": [1], "behavior": { "kind": "bursty", "run_us": 300, "sleep_us": 9700 } } ] }"#;
    let s = parse_scenario(text).expect("valid").scenario;
    let (rt, _) = export_rtapp(&s);
    let (back, _) = import_rtapp(&rt.to_string(), "cfs-v6.2").expect("imports");
    let b = parse_scenario(&back.to_string()).expect("valid").scenario;
    assert_eq!(b.tasks.len(), s.tasks.len());
    for x in &s.tasks {
        let y = b.tasks.iter().find(|t| t.name == x.name).unwrap_or_else(|| panic!("{}", x.name));
        assert_eq!((&x.behavior, x.count, x.attrs.cpus.clone(), x.start_ms, x.attrs.policy), (&y.behavior, y.count, y.attrs.cpus.clone(), y.start_ms, y.attrs.policy), "{}", x.name);
        if x.attrs.policy.is_fair() {
            assert_eq!(x.attrs.nice, y.attrs.nice, "{}", x.name);
        }
    }
    assert_eq!(b.tasks.iter().find(|t| t.name == "f").map(|t| t.attrs.policy), Some(FairPolicy::Fifo));
    // The same demand runs alike: each task's CPU time is the same in both.
    let run = |t: &str| fairground_sim::run_text(t, &fairground_sim::Limits::NATIVE).expect("runs");
    let (ra, rb) = (run(text), run(&back.to_string()));
    for t in &ra.tasks {
        let u = rb.tasks.iter().find(|u| u.name == t.name).expect("same tasks");
        assert_eq!(t.cpu_ns, u.cpu_ns, "{}", t.name);
    }
    assert_eq!(ra.cpus.iter().map(|c| c.rt_ns).collect::<Vec<_>>(), rb.cpus.iter().map(|c| c.rt_ns).collect::<Vec<_>>());
}

/// rt-app's "run then wait for the timer" runs at once: tutorial example 2's shape (10 ms every
/// 100 ms for 2 s) gives 20 bursts, 200 ms of CPU, as rt-app asks (a periodic task, which
/// starts asleep, would give 19). Delayed by at least a period, the same thread is a periodic
/// task forked a period before the delay; exported and read back, a periodic task stays one.
#[test]
fn run_then_timer_runs_at_once_as_rt_app_does() {
    let file = |delay: &str| format!(r#"{{ "global": {{ "duration": 2 }}, "tasks": {{ "t": {{ "loop": -1, {delay} "run": 10000, "timer": {{ "ref": "u", "period": 100000 }} }} }} }}"#);
    let (v, _) = import_rtapp(&file(""), "cfs-v6.2").expect("imports");
    let s = parse_scenario(&v.to_string()).expect("valid");
    assert_eq!(s.scenario.tasks[0].behavior, Behavior::Duty { percent: 10, period_us: 100_000 });
    let r = fairground_sim::run_text(&v.to_string(), &fairground_sim::Limits::NATIVE).expect("runs");
    assert_eq!(r.tasks[0].cpu_ns, 20 * 10_000_000);
    // A delay of 250 ms: first run at 250 ms, as a periodic task forked at 150 ms (asleep).
    let (v, _) = import_rtapp(&file(r#""delay": 250000,"#), "cfs-v6.2").expect("imports");
    let s = parse_scenario(&v.to_string()).expect("valid").scenario;
    assert_eq!((s.tasks[0].behavior.clone(), s.tasks[0].start_ms), (Behavior::Periodic { period_us: 100_000, run_us: 10_000 }, 150));
    let r = fairground_sim::run_text(&v.to_string(), &fairground_sim::Limits::NATIVE).expect("runs");
    // Bursts at 250, 350, …, 1950 ms: 18 of them.
    assert_eq!(r.tasks[0].cpu_ns, 18 * 10_000_000);
}
