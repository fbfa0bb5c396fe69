//! rt-app files as rt-app's users write them: json-c's looser grammar, and rt-app's whole
//! vocabulary either mapped or named in a warning (or in the refusal).

use fairground_sim::interop::import_rtapp;
use fairground_sim::parse_scenario;
use fairground_sim::scenario::{Behavior, Dist, Scenario};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/rtapp/{name}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

/// The imported scenario (checked by the scenario parser) and the warnings.
fn import(text: &str) -> (Scenario, Vec<String>) {
    let (v, w) = import_rtapp(text, "eevdf-v6.12").unwrap_or_else(|e| panic!("imports: {e}"));
    (parse_scenario(&v.to_string()).unwrap_or_else(|e| panic!("valid: {e}")).scenario, w)
}

fn behavior(s: &Scenario, n: &str) -> Behavior {
    s.tasks.iter().find(|t| t.name == n).unwrap_or_else(|| panic!("task {n}")).behavior.clone()
}

fn warned(w: &[String], all: &[&str]) -> bool {
    w.iter().any(|x| all.iter().all(|a| x.contains(a)))
}

fn bursty(r: f64, s: f64) -> Behavior {
    Behavior::Bursty { run_us: Dist::Fixed(r), sleep_us: Dist::Fixed(s) }
}

#[test]
fn comments_are_skipped() {
    let (s, _) = import(&fixture("comments.json"));
    assert_eq!(behavior(&s, "t"), bursty(2000.0, 8000.0));
    assert_eq!(s.duration_ms, 1000);
}

#[test]
fn trailing_commas_are_accepted() {
    let (s, _) = import(&fixture("trailing_commas.json"));
    assert_eq!(behavior(&s, "t"), Behavior::Hog);
    assert_eq!(s.tasks[0].attrs.cpus, Some(vec![0, 1]));
}

#[test]
fn a_key_without_value_is_an_event_and_is_named() {
    let (s, w) = import(&fixture("bare_key.json"));
    // The bare `"suspend",` is read (as json-c does, with a null value): a waits for b's
    // resume every 5 ms, which its own run and sleep already fill, so the wait is 0.
    assert_eq!(behavior(&s, "a"), bursty(1000.0, 4000.0));
    assert_eq!(behavior(&s, "b"), bursty(500.0, 4500.0));
    assert!(warned(&w, &["tasks.a", "suspend", "sleep of 0 µs", "from b"]), "{w:?}");
}

#[test]
fn repeated_keys_are_successive_events() {
    let (s, _) = import(&fixture("repeated_keys.json"));
    assert_eq!(behavior(&s, "t"), Behavior::Replay { start_us: 0, steps_us: vec![(0, 100), (900, 300), (700, 100), (900, 300)] });
}

#[test]
fn errors_name_line_and_column() {
    let e = import_rtapp("{\n  \"tasks\": {\n    \"t\": { \"run\" 5 }\n  }\n}", "eevdf-v6.12").unwrap_err();
    assert!(e.contains("line 3, column 18"), "{e}");
    let e = import_rtapp("{\n /* never closed\n", "eevdf-v6.12").unwrap_err();
    assert!(e.contains("line 2, column 2") && e.contains("comment"), "{e}");
    let e = import_rtapp("{ \"tasks\": { \"t\": { \"run\": 1 } } } x", "eevdf-v6.12").unwrap_err();
    assert!(e.contains("line 1, column 36"), "{e}");
}

#[test]
fn phases_with_loops_and_timers_are_replayed_in_order() {
    let (s, w) = import(&fixture("phases.json"));
    let steps = vec![(0, 1000), (9000, 1000), (9000, 1000), (9000, 7000), (3000, 7000), (8000, 200)];
    assert_eq!(behavior(&s, "t"), Behavior::Replay { start_us: 0, steps_us: steps });
    // No duration and the task ends: the run lasts until it does (55.2 ms).
    assert_eq!(s.duration_ms, 56);
    assert!(warned(&w, &["tasks.t.phases.rest", "cpus"]), "{w:?}");
    assert!(warned(&w, &["tasks.t", "timer"]), "{w:?}");
}

#[test]
fn timer_modes_differ_after_an_overrun() {
    let (s, _) = import(&fixture("timer_modes.json"));
    // Relative: a late timer counts the next period from now; absolute keeps the grid.
    assert_eq!(behavior(&s, "rel"), Behavior::Replay { start_us: 0, steps_us: vec![(0, 26000), (9000, 2000)] });
    assert_eq!(behavior(&s, "abs"), Behavior::Replay { start_us: 0, steps_us: vec![(0, 28000)] });
}

#[test]
fn locks_and_barriers_are_dropped_by_name_and_waits_paced() {
    let (s, w) = import(&fixture("sync_events.json"));
    assert_eq!(behavior(&s, "producer"), bursty(1000.0, 9000.0));
    assert_eq!(behavior(&s, "consumer"), bursty(500.0, 4500.0));
    assert!(warned(&w, &["tasks.producer", "barrier", "lock", "unlock", "dropped"]), "{w:?}");
    assert!(warned(&w, &["tasks.consumer", "lock", "sem_post", "sem_wait", "sync", "dropped"]), "{w:?}");
    // signal and broad wake q twice a 10 ms pass: the consumer's own 5 ms fill the wait.
    assert!(warned(&w, &["tasks.consumer", "wait on q", "sleep of 0 µs", "from producer"]), "{w:?}");
}

#[test]
fn policies_map_or_are_named() {
    let (s, w) = import(&fixture("policies.json"));
    let names: Vec<&str> = s.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["other", "batch", "idle", "fifo", "rr", "dl"]);
    assert_eq!(s.tasks[0].attrs.nice, 5);
    // SCHED_BATCH and SCHED_IDLE are fair-class policies of the model.
    use fairground_sim::scenario::FairPolicy;
    assert_eq!([s.tasks[0].attrs.policy, s.tasks[1].attrs.policy, s.tasks[2].attrs.policy], [FairPolicy::Normal, FairPolicy::Batch, FairPolicy::Idle]);
    assert!(!warned(&w, &["SCHED_BATCH"]) && !warned(&w, &["SCHED_IDLE"]), "{w:?}");
    // The classes above the fair class are load on one CPU; their own scheduling is not
    // modelled, and the warning says so (with the priority it did not read).
    for (i, (t, p)) in [("fifo", "SCHED_FIFO"), ("rr", "SCHED_RR"), ("dl", "SCHED_DEADLINE")].into_iter().enumerate() {
        assert_eq!(s.tasks[3 + i].attrs.cpus, Some(vec![0]), "{t}");
        assert!(warned(&w, &[&format!("tasks.{t}.policy"), p, "pinned to CPU 0", "not modelled"]), "{t}: {w:?}");
    }
    assert_eq!([s.tasks[3].attrs.policy, s.tasks[4].attrs.policy, s.tasks[5].attrs.policy], [FairPolicy::Fifo, FairPolicy::Rr, FairPolicy::Deadline]);
    assert!(warned(&w, &["tasks.fifo.policy", "priority is not read"]), "{w:?}");
    // Each of them is a hog: the kernel's throttling, which the model lacks, is named.
    assert!(warned(&w, &["tasks.dl:", "never sleeps", "throttle"]), "{w:?}");
    assert!(warned(&w, &["tasks.dl", "dl-runtime", "not modelled"]), "{w:?}");
    assert!(warned(&w, &["global", "calibration", "logdir", "gnuplot", "ignored"]), "{w:?}");
}

#[test]
fn other_events_and_settings_are_named() {
    let (s, w) = import(&fixture("misc_events.json"));
    assert_eq!(s.tasks.len(), 1);
    let t = &s.tasks[0];
    assert_eq!((t.behavior.clone(), t.count, t.start_ms), (bursty(1000.0, 4000.0), 2, 3));
    assert!(warned(&w, &["tasks.worker", "runtime", "read as run"]), "{w:?}");
    assert!(warned(&w, &["tasks.worker", "iorun", "mem"]), "{w:?}");
    assert!(warned(&w, &["tasks.worker", "yield"]), "{w:?}");
    assert!(warned(&w, &["tasks.worker", "fork"]), "{w:?}");
    assert!(warned(&w, &["tasks.worker.taskgroup", "/tg1"]), "{w:?}");
    assert!(warned(&w, &["tasks.child.instance", "fork"]), "{w:?}");
}

#[test]
fn without_duration_a_finite_file_lasts_until_its_last_task_ends() {
    let (s, w) = import(&fixture("endless_until_killed.json"));
    assert_eq!(s.duration_ms, 10);
    assert_eq!(behavior(&s, "t"), Behavior::Replay { start_us: 0, steps_us: vec![(1000, 1500); 4] });
    assert!(warned(&w, &["global.duration", "10 ms"]), "{w:?}");
    // A task's delay counts: it ends 5 ms + 2 ms after the start.
    let (s, _) = import(r#"{ "tasks": { "t": { "delay": 5000, "loop": 2, "run": 1000 } } }"#);
    assert_eq!((s.duration_ms, s.tasks[0].start_ms), (7, 5));
}

#[test]
fn a_long_unrolled_loop_is_cut_at_the_replay_limit_with_a_warning() {
    let text = r#"{ "tasks": { "t": { "run": 1, "sleep": 1, "run": 2, "sleep": 1 } }, "global": { "duration": 600 } }"#;
    let (v, w) = import_rtapp(text, "eevdf-v6.12").expect("imports");
    assert_eq!(v["tasks"][0]["behavior"]["steps_us"].as_array().map(Vec::len), Some(1_000_000));
    assert!(warned(&w, &["tasks.t", "cut after 1000000"]), "{w:?}");
}

#[test]
fn a_file_with_nothing_to_play_is_refused_naming_why() {
    let e = import_rtapp(r#"{ "tasks": { "a": { "instance": 0, "run": 10 }, "b": { "lock": "m" } } }"#, "eevdf-v6.12").unwrap_err();
    assert!(e.contains("no rt-app task") && e.contains("tasks.a.instance") && e.contains("tasks.b"), "{e}");
    // A file of real-time tasks alone does play: as load on their CPUs.
    let all_rt = fixture("policies.json").replace("SCHED_OTHER\"", "SCHED_FIFO\"").replace("SCHED_BATCH", "SCHED_RR").replace("SCHED_IDLE", "SCHED_RR");
    let (v, w) = import_rtapp(&all_rt, "eevdf-v6.12").expect("imports");
    assert_eq!(v["tasks"].as_array().map(Vec::len), Some(6));
    assert!(warned(&w, &["global.default_policy", "SCHED_FIFO", "not modelled"]), "{w:?}");
}

#[test]
fn suspend_waits_for_the_pace_of_its_resumes() {
    let text = r#"{ "tasks": {
        "tick": { "run": 100, "resume": "worker", "timer": { "ref": "t", "period": 10000 } },
        "worker": { "suspend": "ignored", "run": 2000 },
        "orphan": { "run": 300, "suspend": "x", "run": 400 },
        "ping": { "run": 1000, "resume": "pong", "suspend", },
        "pong": { "run": 1000, "resume": "ping", "suspend", } },
      "global": { "duration": 1 } }"#;
    let (s, w) = import(text);
    // Resumed once every 10 ms, it runs 2 ms of each 10 ms (a replay: suspend comes first).
    assert_eq!(behavior(&s, "worker"), Behavior::Replay { start_us: 0, steps_us: (0..100).map(|_| (8000, 2000)).collect() });
    assert!(warned(&w, &["tasks.worker", "sleep of 8000 µs", "from tick"]), "{w:?}");
    // No one resumes it: it runs up to its first suspend and waits there, as under rt-app.
    assert_eq!(behavior(&s, "orphan"), Behavior::Replay { start_us: 0, steps_us: vec![(0, 300)] });
    assert!(warned(&w, &["tasks.orphan", "suspend", "no running task wakes it", "for ever"]), "{w:?}");
    // Each waits for the other: they pass the turn round, each waiting while the other runs.
    assert_eq!(behavior(&s, "ping"), bursty(1000.0, 1000.0));
    assert!(warned(&w, &["tasks.ping", "suspend", "sleep of 1000 µs", "wake each other in turn"]), "{w:?}");
}

#[test]
fn a_wait_is_paced_by_its_signals_and_a_cycle_is_cut_where_it_must() {
    let text = r#"{ "tasks": {
        "clock": { "run": 100, "resume": "dec", "timer": { "ref": "t", "period": 30000 } },
        "dec": { "suspend", "run": 1000, "signal": "q", "wait": { "ref": "r", "mutex": "m" } },
        "omx": { "wait": { "ref": "q", "mutex": "m" }, "run": 300, "signal": "r" } },
      "global": { "duration": 3 } }"#;
    let (s, w) = import(text);
    // dec's wait on r (woken by omx, itself waiting on dec) is cut; its suspend keeps the
    // 30 ms pace, which omx then follows through q.
    assert!(warned(&w, &["tasks.dec", "wait on r", "dropped", "omx"]), "{w:?}");
    assert_eq!(behavior(&s, "dec"), Behavior::Replay { start_us: 0, steps_us: (0..100).map(|_| (29000, 1000)).collect() });
    assert_eq!(behavior(&s, "omx"), Behavior::Replay { start_us: 0, steps_us: (0..100).map(|_| (29700, 300)).collect() });
}
