//! The app's hooks into the engine: the slice recording, live figures, and timeline entries
//! added while a run is under way.

use fairground_sim::engine::trace::{StartWhy, StopWhy};
use fairground_sim::engine::Sim;
use fairground_sim::parse_scenario;
use fairground_sim::scenario::{SetAttrs, Target, TimelineEntry};

const CLAMP: &str = r#"{ "format": "fairground-scenario/1", "name": "t", "duration_ms": 300, "seed": 7,
  "machine": { "cpus": 2 },
  "scheduler": { "policy": "latency-nice-v12" },
  "tasks": [ { "name": "hog", "count": 3, "behavior": { "kind": "hog" } },
             { "name": "b", "count": 2, "behavior": { "kind": "bursty", "run_us": { "exp": 300 }, "sleep_us": { "exp": 900 } } },
             { "name": "cyc", "nice": 5, "behavior": { "kind": "periodic", "period_us": 3000, "run_us": 200 } } ] }"#;

fn traced(text: &str) -> Sim {
    let v = parse_scenario(text).unwrap();
    let mut sim = Sim::new(&v).unwrap();
    sim.enable_trace();
    sim
}

#[test]
fn slices_account_for_all_cpu_time_and_never_overlap() {
    let mut sim = traced(CLAMP);
    sim.run();
    let tr = sim.trace.as_ref().unwrap();
    let mut per_task = vec![0u64; sim.tasks.len()];
    let mut last_end = vec![0u64; sim.cpus.len()];
    for s in &tr.slices {
        assert!(s.start_ns >= last_end[s.cpu as usize], "overlap on cpu {}", s.cpu);
        assert!(s.end_ns > s.start_ns);
        last_end[s.cpu as usize] = s.end_ns;
        per_task[s.task as usize] += s.end_ns - s.start_ns;
    }
    // Stints still open at the end ran up to the end of the run.
    for (cpu, o) in tr.open.iter().enumerate() {
        if let Some(o) = o {
            assert!(o.start_ns >= last_end[cpu]);
            per_task[o.task as usize] += sim.duration_ns - o.start_ns;
        }
    }
    let report = sim.report();
    for (i, t) in report.tasks.iter().enumerate() {
        assert_eq!(per_task[i], t.cpu_ns, "{}", t.name);
    }
    let total: u64 = report.cpus.iter().map(|c| c.busy_ns).sum();
    assert_eq!(per_task.iter().sum::<u64>(), total);
}

#[test]
fn causes_match_the_report_counters() {
    let mut sim = traced(CLAMP);
    sim.run();
    let tr = sim.trace.clone().unwrap();
    let report = sim.report();
    for (i, t) in report.tasks.iter().enumerate() {
        let mine = || tr.slices.iter().filter(move |s| s.task == i as u32);
        let ticks = mine().filter(|s| s.stop_why == StopWhy::Tick).count() as u64;
        let wake = mine().filter(|s| s.stop_why == StopWhy::Wakeup).count() as u64;
        assert_eq!(ticks, t.involuntary_tick, "{}", t.name);
        assert_eq!(wake, t.involuntary_wakeup, "{}", t.name);
        let preempting = tr.slices.iter().filter(|s| s.stop_why == StopWhy::Wakeup && s.other == i as u32).count() as u64;
        assert_eq!(preempting, t.wakeup_preemptions, "{}", t.name);
        // Every stint begun by a wakeup is one latency sample (ran at least 1 ns, or still open).
        let woken = mine().filter(|s| s.start_why == StartWhy::Wakeup).count() as u64;
        assert!(woken <= t.wakeup_latency_ns.count, "{}", t.name);
    }
}

#[test]
fn a_trace_off_run_reports_the_same() {
    let v = parse_scenario(CLAMP).unwrap();
    let mut plain = Sim::new(&v).unwrap();
    plain.run();
    let mut t = traced(CLAMP);
    t.run();
    assert_eq!(serde_json::to_value(plain.report()).unwrap(), serde_json::to_value(t.report()).unwrap());
}

#[test]
fn an_entry_added_mid_run_gives_the_run_of_the_file_with_it() {
    let v = parse_scenario(CLAMP).unwrap();
    let entry = TimelineEntry {
        at_ns: 120_345_000,
        at_in_us: true,
        target: Target::Task("cyc".into()),
        set: SetAttrs { latency_nice: Some(-20), nice: Some(-3), ..SetAttrs::default() },
    };
    let mut edited = v.scenario.clone();
    edited.timeline.push(entry.clone());

    let mut live = Sim::new(&v).unwrap();
    live.run_until(100_000_000);
    live.add_timeline_entry(&edited, &entry).unwrap();
    live.run();

    let text = serde_json::to_string(&fairground_sim::scenario::to_json(&edited)).unwrap();
    let mut fresh = Sim::new(&parse_scenario(&text).unwrap()).unwrap();
    fresh.run();
    let (a, b) = (serde_json::to_value(live.report()).unwrap(), serde_json::to_value(fresh.report()).unwrap());
    assert_eq!(a, b);

    // And the edit changed something (the nice -3 task gets more CPU than unedited).
    let mut base = Sim::new(&v).unwrap();
    base.run();
    assert_ne!(serde_json::to_value(base.report()).unwrap(), a);
}

#[test]
fn an_entry_in_the_past_is_refused() {
    let v = parse_scenario(CLAMP).unwrap();
    let mut sim = Sim::new(&v).unwrap();
    sim.run_until(50_000_000);
    let entry = TimelineEntry { at_ns: 1_000, at_in_us: true, target: Target::Task("cyc".into()), set: SetAttrs::default() };
    assert!(sim.add_timeline_entry(&v.scenario, &entry).is_err());
}

#[test]
fn live_figures_at_the_end_are_the_report() {
    let mut sim = traced(CLAMP);
    while sim.step_instant() {}
    let (mut scratch, mut live) = (Vec::new(), Vec::new());
    let end = sim.duration_ns;
    sim.live_tasks(end, &mut scratch, &mut live);
    let report = sim.report();
    for (l, r) in live.iter().zip(&report.tasks) {
        assert_eq!(l.cpu_ns, r.cpu_ns, "{}", r.name);
        assert_eq!(l.wakeups, r.wakeups);
        assert_eq!(l.wakeup_latency_p50, r.wakeup_latency_ns.p50);
        assert_eq!(l.wakeup_latency_p99, r.wakeup_latency_ns.p99);
    }
}
