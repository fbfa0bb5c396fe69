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
    assert_eq!(t("cyclic").behavior, Behavior::Periodic { period_us: 10_000, run_us: 500 });
    assert_eq!((t("cyclic").attrs.nice, t("cyclic").attrs.cpus.clone()), (-5, Some(vec![0])));
    assert_eq!(t("sleeper").behavior, Behavior::Bursty { run_us: Dist::Fixed(2000.0), sleep_us: Dist::Fixed(8000.0) });
    assert_eq!(t("sleeper").start_ms, 5);
    assert_eq!((t("hog").behavior.clone(), t("hog").count), (Behavior::Hog, 2));
    assert!(s.tasks.iter().all(|t| t.name != "rt"));
    assert!(warnings.iter().any(|w| w.contains("tasks.rt.policy") && w.contains("SCHED_FIFO")), "{warnings:?}");
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
