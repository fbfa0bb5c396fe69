//! The seed tables' trends (issue 9) on the shipped experiments, and determinism with
//! workloads.

use fairground_sim::report::Report;
use fairground_sim::{run_text, Limits};
use serde_json::Value;

fn shipped(stem: &str) -> Value {
    let t = std::fs::read_to_string(format!("{}/../../static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"))).expect("shipped");
    serde_json::from_str(&t).expect("json")
}

fn run(v: &Value) -> Report {
    run_text(&v.to_string(), &Limits::NATIVE).expect("runs")
}

/// Seed 004 / S1: cyclictest against hackbench; its latency falls as its latency nice goes
/// 19 → 0 → −20 (mean and p95 strictly, p90 never rises; p99 may be noisy and is not checked).
#[test]
fn cyclictest_latency_falls_with_latency_nice() {
    let mut v = shipped("seed004-cyclictest-vs-hackbench");
    let mut stats = Vec::new();
    for ln in [19, 0, -20] {
        v["tasks"][0]["latency_nice"] = ln.into();
        let r = run(&v);
        let l = r.tasks[0].wakeup_latency_ns.clone();
        stats.push((l.mean.expect("samples"), l.p90.expect("p90"), l.p95.expect("p95")));
    }
    assert!(stats[0].0 > stats[1].0 && stats[1].0 > stats[2].0, "mean: {stats:?}");
    assert!(stats[0].2 > stats[1].2 && stats[1].2 >= stats[2].2 && stats[0].2 > stats[2].2, "p95: {stats:?}");
    assert!(stats[0].1 >= stats[1].1 && stats[1].1 >= stats[2].1, "p90: {stats:?}");
}

/// Seed 004 / m03: "hackbench takes advantage of a latency nice 19 as it mainly wants to run
/// longer slice": at 19 its tasks preempt each other far less than at −20. A switch costs no
/// time in this model, so the completion cannot improve; it must not get worse either.
#[test]
fn hackbench_at_latency_nice_19_preempts_less_and_is_not_slower() {
    let mut v = shipped("seed004-cyclictest-vs-hackbench");
    let mut out = Vec::new();
    for ln in [19, -20] {
        v["workloads"][0]["latency_nice"] = ln.into();
        let r = run(&v);
        let wp: u64 = r.tasks.iter().filter(|t| t.name.starts_with("hb/")).map(|t| t.wakeup_preemptions).sum();
        out.push((r.workloads[0].completion_ns.expect("completes"), wp));
    }
    assert!(out[0].1 * 3 < out[1].1, "wakeup preemptions at 19 and -20: {out:?}");
    assert!(out[0].0 as f64 <= out[1].0 as f64 * 1.005, "completion at 19 and -20: {out:?}");
}

#[test]
fn identical_seeds_give_identical_runs() {
    for stem in ["seed004-cyclictest-vs-hackbench", "seed003-hackbench-eevdf"] {
        let v = shipped(stem);
        assert_eq!(format!("{:?}", run(&v)), format!("{:?}", run(&v)), "{stem}");
    }
}

/// Seed 003 as this model sees it (the description says so): against v6.6, the RFC's
/// RESPECT_SLICE tree makes the woken tasks wait longer, by more than the thread's wait_sum
/// +88 %; but the completion stays within 2 % (the thread's run was 32–68 % longer: the
/// disagreement the description explains).
#[test]
fn seed003_description_holds() {
    let mut v = shipped("seed003-hackbench-eevdf");
    v["scheduler"] = serde_json::json!({ "policy": "eevdf-v6.6" });
    let a = run(&v);
    v["scheduler"] = serde_json::json!({ "policy": "eevdf-v6.12", "features": { "respect_slice": true, "run_to_parity": false } });
    let b = run(&v);
    let mean = |r: &Report| r.workloads[0].wakeup_latency_ns.mean.expect("samples");
    assert!(mean(&b) * 100 >= mean(&a) * 188, "mean wakeup latency {} under v6.6, {} with RESPECT_SLICE", mean(&a), mean(&b));
    let (ca, cb) = (a.workloads[0].completion_ns.expect("done"), b.workloads[0].completion_ns.expect("done"));
    assert!((ca as f64 - cb as f64).abs() < 0.02 * ca as f64, "completion {ca} and {cb}");
}

/// Seed 004-D / S2: the shipped scenario under schbench latency nice 19, 0 and −20 (hackbench
/// at 0), run once and shared by the tests below.
fn schbench_runs() -> &'static [(i64, Report); 3] {
    static RUNS: std::sync::OnceLock<[(i64, Report); 3]> = std::sync::OnceLock::new();
    RUNS.get_or_init(|| {
        [19, 0, -20].map(|ln| {
            let mut v = shipped("seed004-schbench-vs-hackbench");
            assert_eq!(v["workloads"][0]["kind"], "schbench", "the knob is workloads[0]");
            v["workloads"][0]["latency_nice"] = ln.into();
            (ln, run(&v))
        })
    })
}

fn sb_latency(r: &Report) -> &fairground_sim::report::LatencyStats {
    &r.workloads.iter().find(|w| w.name == "sb").expect("sb").wakeup_latency_ns
}

/// Table 004-D: "90th and 95th percentile latency decrease monotonically with latency nice
/// value of schbench". Non-increasing 19 → 0 → −20, and strictly lower at −20 than at 19.
#[test]
fn schbench_p90_p95_fall_with_its_latency_nice() {
    let l: Vec<_> = schbench_runs().iter().map(|(_, r)| sb_latency(r)).collect();
    let p90: Vec<u64> = l.iter().map(|l| l.p90.expect("samples")).collect();
    let p95: Vec<u64> = l.iter().map(|l| l.p95.expect("samples")).collect();
    for (label, x) in [("p90", p90), ("p95", p95)] {
        assert!(x[0] >= x[1] && x[1] >= x[2] && x[0] > x[2], "{label} at 19, 0, -20: {x:?}");
    }
}

/// The cause the description gives: a woken worker preempts the running message task past a
/// lead of 6.75 ms at 19 (offset clamped to get_latency_max()), 3 ms at 0, and even when up to
/// 6 ms ahead at −20; so the share of its wakeups that preempt rises, and at −20 none waits.
#[test]
fn schbench_workers_preempt_more_as_latency_nice_falls() {
    let share: Vec<f64> = schbench_runs().iter().map(|(_, r)| worker_preempt_share(r)).collect();
    assert!(share[0] < share[1] && share[1] < share[2], "share of worker wakeups that preempt: {share:?}");
    assert_eq!(sb_latency(&schbench_runs()[2].1).max, Some(0), "at -20 every wakeup runs at once");
}

/// Thousands of samples, as the thread's 30 s runs had. A messenger's round is one wakeup
/// (msg_us) and a sleep, so each worker is woken at most once per msg_us + sleep_us from the
/// workload's start: that bounds the count from above. Rounds are lost only to the messengers'
/// own wakeup waits and to overruns; requiring 90 % of the bound says they cost less than a
/// tenth of the rounds.
#[test]
fn schbench_collects_thousands_of_samples() {
    let v = shipped("seed004-schbench-vs-hackbench");
    let sb = &v["workloads"][0];
    let n = |x: &Value| x.as_u64().expect("integer");
    let round_us = n(&sb["sleep_us"]) + sb.get("msg_us").map_or(2, n);
    let measured_us = (n(&v["duration_ms"]) - n(&sb["start_ms"])) * 1000;
    let bound = n(&sb["messengers"]) * n(&sb["workers"]) * measured_us.div_ceil(round_us);
    assert!(bound >= 4000, "the file asks for too few rounds: {bound}");
    for (ln, r) in schbench_runs() {
        let count = sb_latency(r).count;
        assert!(count <= bound && count * 10 >= bound * 9, "LN {ln}: {count} samples, at most {bound}");
    }
}

/// Prateek's fix to Vincent's pitfall: hackbench must still run when schbench's measurement
/// ends. Its CPU work (every message written and read, msg_us each) spread over all CPUs is a
/// lower bound on its run time, and that bound is past the end of the run; and indeed it has
/// not completed in any of the runs.
#[test]
fn hackbench_outlasts_the_schbench_measurement() {
    let v = shipped("seed004-schbench-vs-hackbench");
    let hb = &v["workloads"][1];
    let n = |x: &Value| x.as_u64().expect("integer");
    assert_eq!(hb["kind"], "hackbench");
    let messages = n(&hb["groups"]) * n(&hb["fds"]) * n(&hb["fds"]) * n(&hb["loops"]);
    let min_run_ms = messages * 2 * n(&hb["msg_us"]) / n(&v["machine"]["cpus"]) / 1000;
    assert!(min_run_ms > n(&v["duration_ms"]), "hackbench could finish within the run: {min_run_ms} ms");
    for (ln, r) in schbench_runs() {
        let c = r.workloads.iter().find(|w| w.name == "hb").expect("hb").completion_ns;
        assert!(c.is_none_or(|c| c > r.duration_ns), "schbench LN {ln}: hackbench completed at {c:?}");
    }
}

/// The browser must be able to open it (its limit is the estimate, not the run).
#[test]
fn schbench_scenario_fits_the_browser() {
    let v = fairground_sim::scenario::parse_value(&shipped("seed004-schbench-vs-hackbench")).expect("parses");
    fairground_sim::scenario::check_cost(&v.scenario, &Limits::BROWSER).expect("within the browser's limits");
}

/// The shipped scenario with `edit` applied, run.
fn schbench_variant(edit: impl FnOnce(&mut Value)) -> Report {
    let mut v = shipped("seed004-schbench-vs-hackbench");
    edit(&mut v);
    run(&v)
}

/// The share of the schbench workers' wakeups that preempted the running task.
fn worker_preempt_share(r: &Report) -> f64 {
    let w: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("sb/worker")).collect();
    w.iter().map(|t| t.wakeup_preemptions).sum::<u64>() as f64 / w.iter().map(|t| t.wakeups).sum::<u64>() as f64
}

/// hackbench's mean stint: its CPU time over its switches in.
fn hb_stint_ns(r: &Report) -> u64 {
    let h: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("hb/")).collect();
    h.iter().map(|t| t.cpu_ns).sum::<u64>() / h.iter().map(|t| t.switches).sum::<u64>()
}

/// What the description says of hackbench's own latency nice, which this model does not turn
/// the thread's way. At 19 its tasks preempt one another less, run longer stints, and a worker
/// at 0 that waits waits longer: p90 and p95 rise. At −19, v12 takes a worker's offset
/// relative to the running task's −8.55 ms and clamps it to get_latency_max(), so workers at
/// 0 and at 19 meet the same 6.75 ms threshold: the gap between their shares of preempting
/// wakeups, which latency nice opens at hackbench 0, all but closes (under a fifth of it).
#[test]
fn hackbench_latency_nice_moves_the_row_as_the_description_says() {
    let base = &schbench_runs()[1].1;
    let set = |hb: i64, sb: i64| {
        schbench_variant(|v| {
            v["workloads"][1]["latency_nice"] = hb.into();
            v["workloads"][0]["latency_nice"] = sb.into();
        })
    };
    let hb19 = set(19, 0);
    let (a, b) = (sb_latency(base), sb_latency(&hb19));
    assert!(b.p90 > a.p90 && b.p95 > a.p95, "schbench at 0, hackbench at 0 then 19: {a:?} {b:?}");
    assert!(hb_stint_ns(&hb19) > hb_stint_ns(base), "hackbench stints at 19 and 0");
    let gap0 = worker_preempt_share(base) - worker_preempt_share(&schbench_runs()[0].1);
    let gap19 = (worker_preempt_share(&set(-19, 0)) - worker_preempt_share(&set(-19, 19))).abs();
    assert!(gap19 * 5.0 < gap0, "gap between schbench 0 and 19 at hackbench -19: {gap19}, at 0: {gap0}");
}

/// The pitfall, shown: a hackbench that ends early (loops 1000: 1.6 s of 8 s of work) leaves
/// schbench alone for the rest of the run, and its p90 at latency nice 19 looks better.
#[test]
fn a_hackbench_that_ends_early_flatters_schbench() {
    let short = schbench_variant(|v| {
        v["workloads"][1]["loops"] = 1000.into();
        v["workloads"][0]["latency_nice"] = 19.into();
    });
    let c = short.workloads.iter().find(|w| w.name == "hb").expect("hb").completion_ns.expect("finishes");
    assert!(c < short.duration_ns / 2, "hackbench completed at {c}");
    assert!(sb_latency(&short).p90 < sb_latency(&schbench_runs()[0].1).p90);
}

/// At −20 the latency tree catches the few wakeups that do not preempt: without it some wait.
#[test]
fn at_latency_nice_minus_20_the_latency_tree_catches_the_rest() {
    let r = schbench_variant(|v| {
        v["workloads"][0]["latency_nice"] = (-20).into();
        v["scheduler"]["features"] = serde_json::json!({ "latency_list": false });
    });
    assert!(sb_latency(&r).max > Some(0), "{:?}", sb_latency(&r));
}
