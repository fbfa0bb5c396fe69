//! Measuring (issue 9): histograms and percentiles against brute force, scenario variants,
//! A/B comparison and sweeps, including the latency-nice trend of the seed tables.

use fairground_sim::engine::stats::nearest_rank;
use fairground_sim::measure::{apply, compare, parse_assignment, parse_values, sweep, Histogram};
use fairground_sim::Limits;
use proptest::prelude::*;
use serde_json::json;

proptest! {
    #[test]
    fn log2_histogram_matches_brute_force(samples in prop::collection::vec(0u64..50_000_000, 0..400)) {
        let h = Histogram::log2_us(&samples);
        prop_assert_eq!(h.total(), samples.len() as u64);
        for (i, &c) in h.counts.iter().enumerate() {
            let (lo, hi) = h.bounds(i);
            let hi = hi.expect("log2 buckets are closed");
            // Brute force: how many samples, in whole µs, fall in [lo, hi).
            let n = samples.iter().filter(|&&s| s / 1000 * 1000 >= lo && s / 1000 * 1000 < hi).count() as u64;
            prop_assert_eq!(c, n, "bucket {} [{}, {})", i, lo, hi);
        }
    }

    #[test]
    fn linear_histogram_matches_brute_force(samples in prop::collection::vec(0u64..10_000_000, 0..400), width in 1u64..2_000_000, n in 1usize..20) {
        let h = Histogram::linear(&samples, width, n);
        prop_assert_eq!(h.total(), samples.len() as u64);
        for (i, &c) in h.counts.iter().enumerate() {
            let (lo, hi) = h.bounds(i);
            let count = samples.iter().filter(|&&s| s >= lo && hi.is_none_or(|h| s < h)).count() as u64;
            prop_assert_eq!(c, count);
        }
    }

    #[test]
    fn nearest_rank_matches_brute_force(mut samples in prop::collection::vec(0u64..1_000_000, 1..300), num in 1u64..1000) {
        samples.sort_unstable();
        let got = nearest_rank(&samples, num, 1000).expect("samples");
        // The smallest value with at least num/1000 of the samples at or below it.
        let n = samples.len() as u64;
        let want = *samples.iter().find(|&&v| samples.iter().filter(|&&x| x <= v).count() as u64 * 1000 >= num * n).expect("exists");
        prop_assert_eq!(got, want);
    }
}

#[test]
fn assignments_set_paths() {
    let mut v = json!({ "scheduler": { "policy": "cfs-v6.2" }, "tasks": [ { "name": "a" } ] });
    for a in ["scheduler.policy=eevdf-v6.12", "scheduler.features.latency_max_clamp_wakeup=false", "tasks[0].latency_nice=-20", "machine.cpus=8"] {
        apply(&mut v, &parse_assignment(a).expect("parses")).expect(a);
    }
    assert_eq!(v["scheduler"]["policy"], "eevdf-v6.12");
    assert_eq!(v["scheduler"]["features"]["latency_max_clamp_wakeup"], false);
    assert_eq!(v["tasks"][0]["latency_nice"], -20);
    assert_eq!(v["machine"]["cpus"], 8);
    assert!(apply(&mut v, &parse_assignment("tasks[3].nice=1").expect("parses")).unwrap_err().contains("no [3]"));
    assert!(parse_assignment("nonsense").is_err());
}

/// A whole run of a scenario's text, kept for its samples.
fn finished(text: &str) -> fairground_sim::engine::Sim {
    let v = fairground_sim::parse_scenario(text).expect("valid");
    let mut sim = fairground_sim::engine::Sim::new(&v).expect("builds");
    sim.run();
    sim
}

fn shipped(stem: &str) -> String {
    std::fs::read_to_string(format!("{}/../../static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"))).expect("shipped")
}

#[test]
fn ab_comparison_of_the_clamp_lesson() {
    let on = [parse_assignment("scheduler.features.latency_max_clamp_wakeup=true").expect("ok")];
    let off = [parse_assignment("scheduler.features.latency_max_clamp_wakeup=false").expect("ok")];
    let c = compare(&shipped("clamp-lesson"), &on, &off, &Limits::NATIVE).expect("runs");
    let total = |r: &fairground_sim::report::Report| r.tasks.iter().map(|t| t.wakeup_preemptions).sum::<u64>();
    assert!(total(&c.a) > total(&c.b), "the clamp adds wakeup preemptions");
    let row = c.rows.iter().find(|r| r.figure == "wakeup_preemptions" && r.a != r.b).expect("a row that differs");
    let (a, b) = (row.a.expect("a"), row.b.expect("b"));
    assert!((row.change_pct.expect("pct") - (b - a) / a * 100.0).abs() < 1e-9);
    // The same configuration twice, same seed: no difference anywhere.
    let same = compare(&shipped("clamp-lesson"), &on, &on, &Limits::NATIVE).expect("runs");
    assert!(same.rows.iter().all(|r| r.a == r.b));
}

/// The seed-004 table's trend: a cyclictest-like task beside bursty load waits less as its
/// latency nice goes 19 → 0 → −20 (p90; p99 may be noisy).
#[test]
fn latency_nice_sweep_shows_the_trend_and_can_stop() {
    let text = shipped("latency-nice-ladder");
    let values: Vec<serde_json::Value> = [19, 0, -20].iter().map(|&x| json!(x)).collect();
    let points = sweep(&text, "tasks[0].latency_nice", &values, &Limits::NATIVE, |_, _| true).expect("runs");
    let p90: Vec<u64> = points
        .iter()
        .map(|p| p.report.tasks.iter().find(|t| t.name == "cyc-m20").expect("task").wakeup_latency_ns.p90.expect("samples"))
        .collect();
    assert!(p90[0] >= p90[1] && p90[1] >= p90[2] && p90[0] > p90[2], "p90 at 19, 0, -20: {p90:?}");
    let mut seen = 0;
    let stopped = sweep(&text, "tasks[0].latency_nice", &values, &Limits::NATIVE, |i, n| {
        seen = n;
        i < 1
    })
    .expect("runs");
    assert_eq!((stopped.len(), seen), (1, 3), "cancelled after the first point");
}

#[test]
fn csv_exports_hold_every_sample_and_row() {
    use fairground_sim::measure::csv::{rows_csv, samples_csv};
    let s = finished(&shipped("mixed-behaviours"));
    let csv = samples_csv(&s);
    let n: usize = s.tasks.iter().map(|t| t.stats.wakeup_latency.len() + t.stats.preempt_delay.len()).sum();
    assert_eq!(csv.lines().count(), n + 1);
    assert!(csv.lines().skip(1).all(|l| l.split(',').count() == 3));
    let on = [parse_assignment("seed=1").expect("ok")];
    let c = compare(&shipped("two-hogs"), &on, &on, &Limits::NATIVE).expect("runs");
    assert_eq!(rows_csv(&c.rows).lines().count(), c.rows.len() + 1);
}

/// The app and the CLI read a sweep's values with one parser: ranges count in either
/// direction by STEP and include HI when the step lands on it; lists keep JSON and bare words.
#[test]
fn sweep_values_from_text() {
    let ints = |spec: &str| parse_values(spec).map(|v| v.iter().map(|x| x.as_i64().unwrap_or(i64::MIN)).collect::<Vec<_>>());
    let down = ints("19..-20").expect("range");
    assert_eq!(down.len(), 40);
    assert_eq!((down[0], down[19], down[39]), (19, 0, -20));
    assert_eq!(ints("-20..19:5").expect("step"), vec![-20, -15, -10, -5, 0, 5, 10, 15]);
    assert_eq!(ints("3..3").expect("one"), vec![3]);
    assert_eq!(parse_values(" 1, 2 ,eevdf-v6.6").expect("list"), vec![json!(1), json!(2), json!("eevdf-v6.6")]);
    for bad in ["", "1..x", "1..5:0", "1..5:-1", "0..20000"] {
        let e = parse_values(bad).expect_err(bad);
        assert!(!e.is_empty(), "{bad}");
    }
}

/// The sets a histogram is drawn of hold exactly the samples the report's figures count:
/// "all tasks" every task's wakeups, a workload its members' (schbench's workers only), a
/// cgroup its tasks' and its descendants'.
#[test]
fn wakeup_sample_sets_match_the_report() {
    for stem in ["schbench-vs-stress", "seed001-group-weights", "seed004-cyclictest-vs-hackbench"] {
        let mut sim = finished(&shipped(stem));
        let sets = sim.wakeup_sample_sets();
        let r = sim.report();
        let count = |name: &str| sets.iter().find(|s| s.0 == name).map(|s| s.1.len() as u64).expect(name);
        assert_eq!(count("all tasks"), r.tasks.iter().map(|t| t.wakeup_latency_ns.count as u64).sum::<u64>(), "{stem}");
        for t in &r.tasks {
            assert_eq!(count(&t.name), t.wakeup_latency_ns.count as u64, "{stem} {}", t.name);
        }
        for w in &r.workloads {
            assert_eq!(count(&format!("workload {}", w.name)), w.wakeup_latency_ns.count as u64, "{stem} {}", w.name);
        }
        for g in &r.cgroups {
            assert_eq!(count(&format!("cgroup {}", g.name)), g.wakeup_latency_ns.count as u64, "{stem} {}", g.name);
        }
        assert_eq!(sets.len(), 1 + r.workloads.len() + r.cgroups.len() + r.tasks.len(), "{stem}");
        // The preempt-delay sets hold each task's involuntary waits, named the same.
        let pd = sim.sample_sets(fairground_sim::engine::Samples::PreemptDelay);
        let names = |s: &[(String, Vec<u64>)]| s.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&pd), names(&sets), "{stem}");
        for t in &r.tasks {
            let n = pd.iter().find(|s| s.0 == t.name).map(|s| s.1.len() as u64);
            assert_eq!(n, Some(t.preempt_delay_ns.count as u64), "{stem} {}", t.name);
        }
        let all = pd[0].1.len() as u64;
        assert_eq!(all, r.tasks.iter().map(|t| t.preempt_delay_ns.count as u64).sum::<u64>(), "{stem}");
    }
}

/// At the end of a run the live figures of workloads and cgroups are the report's.
#[test]
fn live_groups_at_the_end_are_the_reports() {
    for stem in ["schbench-vs-stress", "seed001-group-weights", "hackbench-8cpu"] {
        let mut sim = finished(&shipped(stem));
        let (mut scratch, mut tasks, mut groups) = (Vec::new(), Vec::new(), Vec::new());
        let end = sim.duration_ns;
        sim.live_tasks(end, &mut scratch, &mut tasks);
        sim.live_groups(&tasks, &mut scratch, &mut groups);
        let r = sim.report();
        assert_eq!(groups.len(), r.workloads.len() + r.cgroups.len(), "{stem}");
        for w in &r.workloads {
            let g = groups.iter().find(|g| g.name == format!("workload {}", w.name)).expect("workload");
            let l = &w.wakeup_latency_ns;
            assert_eq!((g.wakeup_latency_count, g.wakeup_latency_p50, g.wakeup_latency_p99, g.completion_ns), (l.count as u64, l.p50, l.p99, w.completion_ns), "{stem} {}", w.name);
            // Its CPU time is all its tasks', messengers included.
            let prefix = format!("{}/", w.name);
            let cpu: u64 = r.tasks.iter().filter(|t| t.name.starts_with(&prefix)).map(|t| t.cpu_ns).sum();
            assert_eq!(g.cpu_ns, cpu, "{stem} {}", w.name);
        }
        for c in &r.cgroups {
            let g = groups.iter().find(|g| g.name == format!("cgroup {}", c.name)).expect("cgroup");
            let l = &c.wakeup_latency_ns;
            assert_eq!((g.cpu_ns, g.wakeup_latency_count, g.wakeup_latency_p50, g.wakeup_latency_p99), (c.cpu_ns, l.count as u64, l.p50, l.p99), "{stem} {}", c.name);
        }
    }
}
