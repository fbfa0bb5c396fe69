use crate::wire::ab::*;
use crate::wire::measure::*;
use crate::wire::sweep::*;
use super::*;

/// One CPU, two hogs: the CPU is always busy, and the two can only hand it to each other.
const HOGS: &str = r#"{ "format": "fairground-scenario/1", "name": "Two hogs: CFS!", "duration_ms": 100,
  "scheduler": { "policy": "cfs-v6.2" },
  "tasks": [ { "name": "hog", "count": 2, "behavior": { "kind": "hog" } } ] }"#;

/// A periodic task alone on its CPU: it fires every 5 ms from 5 ms to 495 ms (99 firings) and
/// never waits for the CPU.
const ALONE: &str = r#"{ "format": "fairground-scenario/1", "name": "alone", "duration_ms": 500,
  "scheduler": { "policy": "eevdf-v6.6" },
  "tasks": [ { "name": "cyc", "behavior": { "kind": "periodic", "period_us": 5000, "run_us": 100 } } ] }"#;

const CLAMP: &str = include_str!("../../../static/scenarios/clamp-lesson.json");

fn ok<T>(r: Result<T, String>) -> T {
    match r {
        Ok(x) => x,
        Err(e) => panic!("refused: {e}"),
    }
}

#[test]
fn ftrace_export_is_ftrace_text_with_the_hogs_handing_the_cpu_to_each_other() {
    let e = ok(export(HOGS, ExportKind::Ftrace));
    assert_eq!(e.file_name, "two-hogs-cfs.ftrace.txt");
    assert_eq!(e.mime, "text/plain");
    assert_eq!(e.body.lines().next(), Some("# tracer: nop"));
    let switches: Vec<&str> = e.body.lines().filter(|l| l.contains("sched_switch: ")).collect();
    assert!(switches.len() >= 3, "{} switches", switches.len());
    // First the idle CPU gives way to a hog; after that the CPU is never idle, so every switch
    // goes from one hog to the other.
    assert!(switches[0].contains("prev_comm=swapper/0 prev_pid=0") && switches[0].contains("==> next_comm=hog/"), "{}", switches[0]);
    for pair in switches[1..].windows(2) {
        let next_of = |l: &str| l.split("next_comm=").nth(1).and_then(|s| s.split_whitespace().next()).map(str::to_string);
        let prev_of = |l: &str| l.split("prev_comm=").nth(1).and_then(|s| s.split_whitespace().next()).map(str::to_string);
        assert_eq!(next_of(pair[0]), prev_of(pair[1]), "the task switched in is the next one switched out");
        assert_ne!(prev_of(pair[1]), next_of(pair[1]), "a hog never switches to itself: {}", pair[1]);
    }
}

#[test]
fn report_export_is_the_contract_report() {
    let e = ok(export(HOGS, ExportKind::Report));
    assert_eq!(e.file_name, "two-hogs-cfs-report.json");
    let v: serde_json::Value = ok(serde_json::from_str(&e.body).map_err(|e| e.to_string()));
    assert_eq!(v["format"], "fairground-report/1");
    assert_eq!(v["policy"], "cfs-v6.2");
    let tasks = v["tasks"].as_array().expect("tasks");
    assert_eq!(tasks.len(), 2);
    // One CPU, always busy: the hogs' CPU times add up to the duration.
    let total: u64 = tasks.iter().map(|t| t["cpu_ns"].as_u64().expect("cpu_ns")).sum();
    assert_eq!(total, 100_000_000);
}

#[test]
fn samples_export_has_one_line_per_wakeup() {
    let e = ok(export(ALONE, ExportKind::Samples));
    assert_eq!(e.file_name, "alone-samples.csv");
    let mut lines = e.body.lines();
    assert_eq!(lines.next(), Some("task,kind,ns"));
    let wakeups: Vec<&str> = lines.filter(|l| l.starts_with("cyc,wakeup_latency,")).collect();
    assert_eq!(wakeups.len(), 99);
    // Alone on the CPU, a wakeup runs at once.
    assert!(wakeups.iter().all(|l| l.ends_with(",0")), "{wakeups:?}");
}

#[test]
fn a_refused_scenario_is_an_error_not_a_panic() {
    for kind in [ExportKind::Report, ExportKind::Samples, ExportKind::Ftrace] {
        match answer(Request::Export { text: "{ not json".into(), kind }) {
            Answer::Failed { message } => assert!(!message.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn an_export_too_large_for_a_tab_is_refused_before_running() {
    // 400 s of a periodic task firing every 10 µs: the estimate (contract §1.1) counts 4 events
    // per firing and one per 4 ms tick, 4·4·10^7 + 10^5 = 160 100 000 events; at 160 bytes each
    // that is ~24 GiB of ftrace text, and the samples CSV (8 bytes per event) ~1.2 GiB. The
    // report is small whatever the run.
    let big = r#"{ "format": "fairground-scenario/1", "name": "big", "duration_ms": 400000,
      "scheduler": { "policy": "cfs-v6.2" },
      "tasks": [ { "name": "fast", "behavior": { "kind": "periodic", "period_us": 10, "run_us": 1 } } ] }"#;
    for kind in [ExportKind::Ftrace, ExportKind::Samples] {
        let e = check_size(big, kind).unwrap_err();
        assert!(e.contains("160100000 scheduler events") && e.contains("512 MB") && e.contains("duration_ms"), "{e}");
    }
    assert!(check_size(big, ExportKind::Report).is_ok());
    assert!(check_size(CLAMP, ExportKind::Ftrace).is_ok());
}

#[test]
fn changes_are_read_one_per_line_and_bad_ones_are_named() {
    let c = ok(parse_changes("# B\nscheduler.policy=eevdf-v6.12\n\n tasks[0].nice = 5 ; scheduler.features.x=false"));
    assert_eq!(c.len(), 3);
    assert_eq!(c[0].value, serde_json::json!("eevdf-v6.12"));
    assert_eq!((c[1].path.as_str(), &c[1].value), ("tasks[0].nice", &serde_json::json!(5)));
    assert_eq!(c[2].value, serde_json::json!(false));

    let e = parse_changes("scheduler.policy=cfs-v6.2\nnonsense").unwrap_err();
    assert!(e.contains("change 2") && e.contains("nonsense") && e.contains("path=value"), "{e}");
    let e = parse_changes("=5").unwrap_err();
    assert!(e.contains("no path"), "{e}");
    let e = parse_changes("  \n# only a comment").unwrap_err();
    assert!(e.contains("no change"), "{e}");
}

#[test]
fn a_broken_change_is_refused_with_the_cores_message() {
    for (b, want) in [
        ("tasks[7].nice=1", "tasks[7]"),
        ("scheduler.policy=bogus", "bogus"),
        ("tasks[x].nice=1", "bad index"),
        // Refused before anything is built: by validation, or by the cost check.
        ("tasks[0].count=1000000000", "tasks[0].count"),
        ("duration_ms=1000000000000", "duration_ms"),
        // Two wakers firing every 10 µs for 600 s: 4 · 2 · 6·10^7 events, beyond the 4·10^8
        // the browser takes.
        (r#"duration_ms=600000; tasks[1].behavior={"kind":"periodic","period_us":10,"run_us":1}"#, "exceeds the limit"),
        ("machine.cpus=0", "cpus"),
        ("tasks=7", "tasks"),
    ] {
        match answer(Request::Compare { text: CLAMP.into(), b: b.into() }) {
            Answer::Failed { message } => assert!(message.contains(want), "{b}: {message}"),
            other => panic!("{b}: accepted: {other:?}"),
        }
    }
}

/// cpu_ms, wakeups, wakeup_preemptions, the percentiles and max.
const LINES: usize = 3 + PERCENTILES.len() + 1;

fn line<'a>(t: &'a AbTable, task: &str, figure: &str) -> &'a AbLine {
    let task = t.tasks.iter().find(|x| x.name == task).unwrap_or_else(|| panic!("no task {task}"));
    task.lines.iter().find(|l| l.figure == figure).unwrap_or_else(|| panic!("no figure {figure}"))
}

#[test]
fn ab_of_a_variant_equal_to_a_changes_nothing() {
    // clamp-lesson already sets the clamp on: B = A, same seed, so every figure is equal.
    let t = ok(compare_ab(CLAMP, "scheduler.features.latency_max_clamp_wakeup=true"));
    assert_eq!(t.tasks.len(), 4);
    for task in &t.tasks {
        assert_eq!(task.lines.len(), LINES);
        // Hogs never sleep, so they have no latency figures; the wakers have all of them.
        let sleeps = task.name.starts_with("waker");
        for l in &task.lines {
            assert_eq!(l.a, l.b, "{} {}", task.name, l.figure);
            assert!(l.a.is_some() || (!sleeps && l.figure.ends_with("_us")), "{} {}", task.name, l.figure);
            assert!(l.change_pct.is_none_or(|c| c == 0.0), "{} {}: {:?}", task.name, l.figure, l.change_pct);
        }
    }
}

#[test]
fn ab_of_the_wakeup_clamp_shows_longer_waits_without_it() {
    let t = ok(compare_ab(CLAMP, "scheduler.features.latency_max_clamp_wakeup=false"));
    assert_eq!(t.b_changes, vec!["scheduler.features.latency_max_clamp_wakeup=false".to_string()]);
    assert_eq!((t.policy_a.as_str(), t.policy_b.as_str(), t.seed), ("latency-nice-v12", "latency-nice-v12", 1));
    // The scenario's description: a long sleeper finds the hog about 3 ms ahead, between the
    // clamped granularity (2.25 ms) and the nice-5 one (3.06 ms). With the clamp it preempts at
    // once; without, it waits for the tick, so the wakers' upper percentiles grow.
    // The wakeup preemptions fall for the same reason.
    for w in ["waker/0", "waker/1"] {
        let p90 = line(&t, w, "p90_us");
        let (a, b) = (p90.a.expect("a"), p90.b.expect("b"));
        assert!(b > a, "{w} p90: {a} µs with the clamp, {b} µs without");
        if a == 0.0 {
            assert_eq!(p90.change_pct, None, "no percentage of a change from 0");
        }
        let wp = line(&t, w, "wakeup_preemptions");
        let (a, b) = (wp.a.expect("a"), wp.b.expect("b"));
        assert!(b < a, "{w} wakeup preemptions: {a} with the clamp, {b} without");
        let c = wp.change_pct.expect("change");
        assert!((c - (b - a) / a * 100.0).abs() < 1e-9);
    }
    // The hogs share one CPU with the wakers: their CPU time adds up to the same total in A and B.
    let cpu = |side: fn(&AbLine) -> Option<f64>| -> f64 {
        ["hog/0", "hog/1", "waker/0", "waker/1"].iter().map(|n| side(line(&t, n, "cpu_ms")).expect("cpu")).sum()
    };
    assert!((cpu(|l| l.a) - 5000.0).abs() < 1e-6 && (cpu(|l| l.b) - 5000.0).abs() < 1e-6);
    // The CSV carries the same table, in the core's A/B layout.
    let mut csv = t.csv.lines();
    assert_eq!(csv.next(), Some("name,figure,a,b,change_pct"));
    assert_eq!(csv.count(), 4 * LINES);
    assert!(t.csv.contains("\nwaker/0,p99.9_us,"));
    assert_eq!(t.csv_name, "the-wakeup-clamp-nice-5-wakers-against-nice-0-lo-ab.csv");
    // The text for a mail: a heading per task and one line per figure, the same numbers.
    assert!(t.text.contains("B: scheduler.features.latency_max_clamp_wakeup=false"), "{}", t.text);
    let block: Vec<&str> = t.text.split("\nwaker/0").nth(1).expect("waker/0 block").lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(block.len(), 1 + LINES);
    let wp = block.iter().find(|l| l.trim_start().starts_with("wakeup_preemptions")).expect("line");
    let l = line(&t, "waker/0", "wakeup_preemptions");
    let cols: Vec<&str> = wp.split_whitespace().collect();
    assert_eq!(cols[1].parse::<f64>().ok(), l.a);
    assert_eq!(cols[2].parse::<f64>().ok(), l.b);
    assert_eq!(cols[3], format!("{:+.1}%", l.change_pct.expect("change")));
}

#[test]
fn a_task_only_b_has_gets_its_own_table() {
    let t = ok(compare_ab(HOGS, "tasks[0].count=3"));
    let names: Vec<&str> = t.tasks.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["hog/0", "hog/1", "hog/2"]);
    let third = line(&t, "hog/2", "cpu_ms");
    assert_eq!(third.a, None);
    assert!(third.b.is_some() && third.change_pct.is_none());
}

#[test]
fn histogram_counts_every_wakeup_of_the_task() {
    let h = ok(histogram(ALONE, "cyc", None, false));
    // Every latency is 0 ns: all 99 in the [0, 1) µs bucket.
    assert_eq!(h.counts, vec![99]);
    assert!(h.text.contains(" 99 "), "{}", h.text);
    let e = histogram(ALONE, "nobody", None, false).unwrap_err();
    assert!(e.contains("nobody"), "{e}");
}

#[test]
fn file_stems_are_safe_file_names() {
    assert_eq!(file_stem("The wakeup clamp: nice-5 wakers against nice-0 load"), "the-wakeup-clamp-nice-5-wakers-against-nice-0-lo");
    assert_eq!(file_stem("   "), "fairground-run");
    assert_eq!(file_stem("../etc/passwd"), "etc-passwd");
}

#[test]
fn workloads_come_first_and_cgroups_last() {
    let hb = include_str!("../../../static/scenarios/hackbench-8cpu.json");
    let t = ok(compare_ab(hb, "scheduler.policy=cfs-v6.2"));
    let first = &t.tasks[0];
    assert!(first.name.starts_with("workload "), "{}", first.name);
    // hackbench finishes its loops: a completion time on both sides, and no CPU-time line (a
    // workload's CPU time is its tasks').
    let figs: Vec<&str> = first.lines.iter().map(|l| l.figure.as_str()).collect();
    assert_eq!(&figs[..2], ["wakeups", "completion_ms"]);
    let c = &first.lines[1];
    assert!(c.a.is_some_and(|x| x > 0.0) && c.b.is_some_and(|x| x > 0.0), "{c:?}");
    assert!(t.tasks[1..].iter().all(|x| !x.name.starts_with("workload ")));

    let groups = r#"{ "format": "fairground-scenario/1", "name": "g", "duration_ms": 100,
      "scheduler": { "policy": "cfs-v6.2" },
      "cgroups": [ { "name": "A", "shares": 1024 }, { "name": "B", "shares": 1024 } ],
      "tasks": [ { "name": "a", "cgroup": "A", "behavior": { "kind": "hog" } },
                 { "name": "b", "cgroup": "B", "count": 2, "behavior": { "kind": "hog" } } ] }"#;
    let t = ok(compare_ab(groups, "cgroups[1].shares=3072"));
    let names: Vec<&str> = t.tasks.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["a", "b/0", "b/1", "cgroup A", "cgroup B"]);
    // One CPU for 100 ms shared by two groups: half each in A; 1024 : 3072 in B.
    let cpu = |n: &str| line(&t, n, "cpu_ms").clone();
    let (ga, gb) = (cpu("cgroup A"), cpu("cgroup B"));
    assert!((ga.a.expect("a") - 50.0).abs() < 5.0 && (gb.a.expect("a") - 50.0).abs() < 5.0, "{ga:?} {gb:?}");
    assert!((gb.b.expect("b") / 100.0 - 0.75).abs() < 0.05, "{gb:?}");
}

/// The clamp lesson's samples of `task`, straight from a run of the core.
fn samples(text: &str, task: &str) -> Vec<u64> {
    let sim = ok(full_run(text, false));
    sim.tasks.iter().find(|t| t.name == task).map(|t| t.stats.wakeup_latency.clone()).unwrap_or_default()
}

#[test]
fn linear_buckets_count_what_brute_force_counts() {
    let name = "waker/0";
    let xs = samples(CLAMP, name);
    assert!(xs.len() > 50, "{} samples", xs.len());
    for w in [1u64, 50, 700] {
        let h = ok(histogram(CLAMP, name, Some(w), false));
        let max_us = xs.iter().max().copied().unwrap_or(0) / 1000;
        let n = h.counts.len() as u64;
        assert_eq!(n, (max_us / w + 1).min(MAX_LINEAR_BUCKETS), "width {w}");
        for (i, &c) in h.counts.iter().enumerate() {
            let lo = i as u64 * w * 1000;
            let want = if i as u64 + 1 == n { xs.iter().filter(|&&x| x >= lo).count() } else { xs.iter().filter(|&&x| x >= lo && x < lo + w * 1000).count() };
            assert_eq!(c, want as u64, "width {w} bucket {i}");
        }
        assert_eq!(h.labels.len(), h.counts.len());
        assert!(h.labels.last().is_some_and(|l| l.ends_with("∞")), "{:?}", h.labels.last());
    }
    assert!(histogram(CLAMP, name, Some(0), false).is_err());
}

#[test]
fn the_percentile_table_beside_a_histogram_is_nearest_rank_of_its_samples() {
    let name = "waker/0";
    let mut xs = samples(CLAMP, name);
    xs.sort_unstable();
    let h = ok(histogram(CLAMP, name, None, false));
    let rank = |p: f64| xs[((p / 100.0 * xs.len() as f64).ceil() as usize).max(1) - 1] as f64 / 1e3;
    let want = [50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9].map(rank);
    for ((fig, got), w) in h.pct.iter().zip(want) {
        assert_eq!(*got, Some(w), "{fig}");
    }
    assert_eq!(h.pct.last(), Some(&("max_us".to_string(), xs.last().map(|&x| x as f64 / 1e3))));
    // Sets other than one task: every task's wakeups together.
    let all = ok(histogram(CLAMP, "all tasks", None, false));
    let total: u64 = ["waker/0", "waker/1", "hog/0", "hog/1"].iter().map(|t| samples(CLAMP, t).len() as u64).sum();
    assert_eq!(all.counts.iter().sum::<u64>(), total);
}

#[test]
fn a_sweep_point_is_the_b_side_of_the_same_change() {
    let p = ok(sweep_point(CLAMP, "scheduler.features.latency_max_clamp_wakeup", "false", None));
    assert_eq!(p.value, "false");
    let t = ok(compare_ab(CLAMP, "scheduler.features.latency_max_clamp_wakeup=false"));
    for task in &t.tasks {
        let e = p.entities.iter().find(|e| e.name == task.name).expect("same entities");
        for l in &task.lines {
            let got = e.figures.iter().find(|f| f.0 == l.figure).and_then(|f| f.1);
            assert_eq!(got, l.b, "{} {}", task.name, l.figure);
        }
    }
    let e = sweep_point(CLAMP, "tasks[9].latency_nice", "-20", None).unwrap_err();
    assert!(e.contains("tasks[9]"), "{e}");
    assert!(sweep_point(CLAMP, "", "1", None).is_err());
}

#[test]
fn ab_brings_both_histograms_and_timelines_without_gaps() {
    let t = ok(compare_ab(ALONE, "tasks[0].nice=5"));
    let h = t.hists.iter().find(|h| h.name == "cyc").expect("the task's histogram");
    assert_eq!((h.a.clone(), h.b.clone()), (vec![99], vec![99]));
    assert_eq!(t.hists[0].name, "all tasks");
    // One CPU, two hogs for 100 ms: the slices of each run tile the 100 ms, the stint still
    // running at the end included.
    let t = ok(compare_ab(HOGS, "tasks[0].nice=5"));
    let tr = t.traces.expect("short runs are sent");
    assert_eq!((tr.cpus_a, tr.cpus_b, tr.duration_ns), (1, 1, 100_000_000));
    for side in [&tr.a, &tr.b] {
        let busy: u64 = side.iter().map(|s| s.end_ns - s.start_ns).sum();
        assert_eq!(busy, 100_000_000);
        assert!(side.windows(2).all(|w| w[0].end_ns == w[1].start_ns), "no gap, no overlap");
    }
    assert_eq!(tr.tasks_a, ["hog/0", "hog/1"]);
}

#[test]
fn sweep_series_and_csv_follow_the_points() {
    let a = ok(sweep_point(CLAMP, "tasks[1].latency_nice", "-20", None));
    let b = ok(sweep_point(CLAMP, "tasks[1].latency_nice", "19", None));
    let points = vec![Some(a.clone()), None, Some(b.clone())];
    let name = &a.entities.iter().find(|e| e.name.starts_with("waker")).expect("waker").name;
    let s = series(&points, name, &["p90_us", "nonsense"]);
    let fig = |p: &SweepFigures| p.entities.iter().find(|e| &e.name == name).and_then(|e| e.figures.iter().find(|f| f.0 == "p90_us")).and_then(|f| f.1);
    assert_eq!(s[0].1, vec![fig(&a), None, fig(&b)]);
    assert_eq!(s[1].1, vec![None, None, None]);
    let csv = sweep_csv("tasks[1].latency_nice", None, &points);
    let per_point: usize = a.entities.iter().map(|e| e.figures.len()).sum();
    assert_eq!(csv.lines().count(), 1 + 2 * per_point, "a line per figure of each point done");
    assert!(csv.lines().nth(1).is_some_and(|l| l.starts_with("tasks[1].latency_nice,-20,")));
    assert_eq!(value_label("\"eevdf-v6.6\""), "eevdf-v6.6");
    assert_eq!(default_values("tasks[0].latency_nice"), "19..-20");
    // Every policy the app offers, by default, when the policy is swept.
    let policies = fairground_sim::measure::parse_values(default_values("scheduler.policy")).expect("values");
    assert_eq!(policies.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>(), crate::wire::settings::POLICIES);
    let n = fairground_sim::measure::parse_values(default_values("tasks[0].latency_nice")).map(|v| v.len());
    assert_eq!(n, Ok(40), "the default latency-nice sweep is the seed's full range");
}

#[test]
fn preempt_delay_histograms_count_the_involuntary_waits() {
    // Two hogs on one CPU, 100 ms: each is switched out at ticks and waits while the other
    // runs; every wait is a preempt-delay sample and none is a wakeup.
    let h = ok(histogram(HOGS, "all tasks", None, true));
    let sim = ok(full_run(HOGS, false));
    let want: u64 = sim.tasks.iter().map(|t| t.stats.preempt_delay.len() as u64).sum();
    assert!(want >= 20, "{want} preemptions in 100 ms of 4 ms ticks");
    assert_eq!(h.counts.iter().sum::<u64>(), want);
    assert_eq!(h.kind, "preempt delay");
    assert!(ok(histogram(HOGS, "all tasks", None, false)).counts.iter().all(|&c| c == 0), "hogs never wake");
}

#[test]
fn a_two_way_sweep_point_sets_both_and_rows_become_lines() {
    // tasks[0] is both hogs (count 2): at nice 0 or 5 alike they halve one CPU, and with two
    // CPUs each has one.
    let cpu = |p: &SweepFigures| p.entities.iter().find(|e| e.name == "hog/0").and_then(|e| e.figures.iter().find(|f| f.0 == "cpu_ms")).and_then(|f| f.1);
    let mut points = Vec::new();
    for cpus in ["1", "2"] {
        for nice in ["0", "5"] {
            let p = ok(sweep_point(HOGS, "tasks[0].nice", nice, Some(("machine.cpus", cpus))));
            assert_eq!((p.value.as_str(), p.by.as_deref()), (nice, Some(cpus)));
            points.push(Some(p));
        }
    }
    let one = |i: usize| points[i].as_ref().and_then(cpu);
    for i in [0, 1] {
        assert!(one(i).is_some_and(|x| (x - 50.0).abs() <= 4.0), "point {i}: {:?}", one(i));
    }
    assert_eq!((one(2), one(3)), (Some(100.0), Some(100.0)), "a CPU each");
    let lines = by_series(&points, 2, &["1".into(), "2".into()], "hog/0", "cpu_ms");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1], ("2".to_string(), vec![Some(100.0), Some(100.0)]));
    assert_eq!(lines[0].1, vec![one(0), one(1)]);
    let csv = sweep_csv("tasks[0].nice", Some("machine.cpus"), &points);
    assert!(csv.starts_with("by_param,by_value,param,value,name,figure,x\nmachine.cpus,1,tasks[0].nice,0,"), "{csv}");
    let e = sweep_point(HOGS, "tasks[0].nice", "1", Some(("tasks[5].nice", "1"))).unwrap_err();
    assert!(e.contains("tasks[5]"), "{e}");
}

#[test]
fn the_histogram_shown_first_is_of_what_b_changes() {
    // clamp-lesson: tasks[0] is "hog" with a count of 2, tasks[1] "waker" with 2.
    assert_eq!(ok(compare_ab(CLAMP, "tasks[1].latency_nice=-20")).focus.as_deref(), Some("waker/0"));
    assert_eq!(ok(compare_ab(CLAMP, "scheduler.features.latency_max_clamp_wakeup=false")).focus, None);
    let hb = include_str!("../../../static/scenarios/hackbench-8cpu.json");
    assert_eq!(ok(compare_ab(hb, "workloads[0].latency_nice=19")).focus.as_deref(), Some("workload hb"));
    assert_eq!(ok(compare_ab(ALONE, "tasks[0].nice=3")).focus.as_deref(), Some("cyc"));
}

#[test]
fn a_scenario_file_is_checked_by_the_core_and_comes_back_as_plain_json() {
    let json = ok(check_scenario("// a comment, as scenario files may have\n{ \"format\": \"fairground-scenario/1\", \"name\": \"x\", \"duration_ms\": 50,\n  \"scheduler\": { \"policy\": \"cfs-v6.2\" }, \"tasks\": [ { \"name\": \"h\", \"behavior\": { \"kind\": \"hog\" } } ] }"));
    assert!(json.starts_with('{') && !json.contains("comment"), "{json}");
    assert!(fairground_sim::parse_scenario(&json).is_ok());
    let e = check_scenario(r#"{ "format": "fairground-scenario/1", "name": "x", "duration_ms": -5, "tasks": [] }"#).unwrap_err();
    assert!(e.contains("duration_ms"), "{e}");
    assert!(matches!(answer(Request::CheckScenario { text: "{ broken".into() }), Answer::Failed { .. }));
}

/// "Which change did it?" in the worker: on the clamp lesson, with the three clamp sites as
/// the preset, the wakeup clamp explains all of the wakers' extra preemptions; B's typed
/// lines work the same way; a bad figure or preset is named.
#[test]
fn ablation_in_the_worker() {
    let text = include_str!("../../../static/scenarios/clamp-lesson.json");
    let t = super::ab::ablate_ab(text, "", Some("clamps"), "task:waker/0:preemptions").expect("ablates");
    assert_eq!(t.runs, 8);
    assert_eq!(t.rows[0].path, "scheduler.features.latency_max_clamp_wakeup");
    assert!(t.rows[0].share_pct.is_some_and(|s| (s - 100.0).abs() < 1e-9), "{:?}", t.rows[0]);
    let typed = super::ab::ablate_ab(text, "scheduler.features.latency_max_clamp_wakeup=false\nmachine.hz=1000", None, "task:waker/0:preemptions").expect("ablates");
    assert_eq!(typed.runs, 4);
    assert!(super::ab::ablate_ab(text, "", Some("clamps"), "task:waker/0:p42").unwrap_err().contains("p42"));
    assert!(super::ab::ablate_ab(text, "", Some("nope"), "task:waker/0:p99").unwrap_err().contains("no preset"));
}

/// The decision log's whole-run clamp counts: the first check a clamp flipped is where the
/// runs with and without the clamps first part (the core's first divergence), and each site's
/// flips are no more than its bindings.
#[test]
fn clamp_flips_start_where_the_clamped_and_unclamped_runs_part() {
    use fairground_sim::measure::diverge::{divergences, log_of, namer, run_logged};
    let f = ok(ab::clamp_flips(CLAMP));
    assert!(!f.times.is_empty() && f.times.windows(2).all(|w| w[0] <= w[1]));
    for (bound, flipped) in f.sites {
        assert!(flipped <= bound);
    }
    assert!(f.sites[0].1 + f.sites[1].1 + f.sites[2].1 >= f.times.len() as u64);
    let off = [
        ok(fairground_sim::measure::parse_assignment("scheduler.features.latency_max_clamp_wakeup=false").map_err(|e| e.to_string())),
        ok(fairground_sim::measure::parse_assignment("scheduler.features.latency_max_clamp_tick=false").map_err(|e| e.to_string())),
        ok(fairground_sim::measure::parse_assignment("scheduler.features.latency_max_clamp_offset=\"off\"").map_err(|e| e.to_string())),
    ];
    let (a, b) = (ok(run_logged(CLAMP, &[], &Limits::NATIVE).map_err(|e| e.to_string())), ok(run_logged(CLAMP, &off, &Limits::NATIVE).map_err(|e| e.to_string())));
    let first = divergences(log_of(&a), log_of(&b), 1, &namer(&a));
    assert_eq!(first.first().map(|d| d.at_ns), f.times.first().copied());
}

/// The delay table export is perf sched latency's table: a row per task with the switches the
/// report counts, in fixed columns.
#[test]
fn the_delay_table_export_has_a_row_per_task_with_the_reports_switches() {
    let e = ok(export(HOGS, ExportKind::Latency));
    assert_eq!((e.file_name.as_str(), e.mime.as_str()), ("two-hogs-cfs-latency.txt", "text/plain"));
    let report: serde_json::Value = serde_json::from_str(&ok(export(HOGS, ExportKind::Report)).body).expect("json");
    for t in report["tasks"].as_array().expect("tasks") {
        let name = t["name"].as_str().expect("name");
        let row = e.body.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("no row for {name}:\n{}", e.body));
        let cols: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cols[2], t["switches"].to_string(), "{row}");
    }
}

/// "Open in Perfetto" is given the protobuf export: it reads back, through the importer, as the
/// run's own tasks with the CPU time the run gave them.
#[test]
fn the_perfetto_export_is_a_protobuf_trace_of_the_run() {
    let Answer::ExportedBytes { title, file_name, bytes } = ok(perfetto(HOGS)) else { panic!("not bytes") };
    assert_eq!((title.as_str(), file_name.as_str()), ("Two hogs: CFS!", "two-hogs-cfs.pftrace"));
    // A Trace's packets are its field 1, length-delimited: tag 0x0a.
    assert_eq!(bytes.first(), Some(&0x0a));
    let opts = fairground_sim::interop::ImportOptions::default();
    let (format, imp) = ok(fairground_sim::interop::import_trace_bytes(&bytes, &opts));
    assert_eq!(format, fairground_sim::interop::TraceFormat::Perfetto);
    let report: serde_json::Value = serde_json::from_str(&ok(export(HOGS, ExportKind::Report)).body).expect("json");
    let cpu: Vec<u64> = report["tasks"].as_array().expect("tasks").iter().map(|t| t["cpu_ns"].as_u64().expect("cpu_ns")).collect();
    assert_eq!(imp.tasks.iter().map(|t| t.cpu_ns).collect::<Vec<_>>(), cpu);
}
