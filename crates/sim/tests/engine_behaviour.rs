//! Behaviour of the engine and the CFS policies on one CPU: shares, behaviours (contract §1.3),
//! timeline changes, metrics and determinism. Expected numbers come from the kernel's
//! arithmetic or from reasoning about the model, stated beside each.

use fairground_sim::report::{Report, TaskReport};
use fairground_sim::{run_text, Limits};

fn scenario(policy: &str, duration_ms: u64, extra_sched: &str, tasks: &str, timeline: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "t", "duration_ms": {duration_ms},
            "scheduler": {{ "policy": "{policy}" {extra_sched} }},
            "tasks": [ {tasks} ] {timeline} }}"#
    )
}

fn run(text: &str) -> Report {
    match run_text(text, &Limits::NATIVE) {
        Ok(r) => r,
        Err(e) => panic!("scenario refused: {e}\n{text}"),
    }
}

fn task<'a>(r: &'a Report, name: &str) -> &'a TaskReport {
    r.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}"))
}

/// CPU-bound tasks share one CPU by weight: nice 0 vs nice 5 is 1024/(1024+335) = 75.35%,
/// within 1% over 10 s, under both CFS policies.
#[test]
fn nice_0_vs_5_shares_follow_weights() {
    for policy in ["cfs-v6.2", "latency-nice-v12"] {
        let r = run(&scenario(
            policy,
            10_000,
            "",
            r#"{ "name": "a", "behavior": { "kind": "hog" } }, { "name": "b", "nice": 5, "behavior": { "kind": "hog" } }"#,
            "",
        ));
        let want = 1024.0 / 1359.0;
        let a = task(&r, "a").share;
        let b = task(&r, "b").share;
        assert!((a - want).abs() / want < 0.01, "{policy}: a share {a}, want {want}");
        assert!((a + b - 1.0).abs() < 1e-9, "{policy}: the CPU is never idle with two hogs");
        assert_eq!(r.cpus[0].busy_ns, r.duration_ns);
    }
}

/// Two nice-0 hogs at HZ=1000: each slice is 2 999 998 ns, so check_preempt_tick fires on the
/// 3rd tick of a stint (delta_exec 3 000 000 > 2 999 998): stints of 3 ms, i.e. each task is
/// switched out by the tick and the split is even.
#[test]
fn two_hogs_alternate_every_third_tick_at_1000_hz() {
    let text = r#"{ "format": "fairground-scenario/1", "name": "t", "duration_ms": 600,
        "machine": { "hz": 1000 }, "scheduler": { "policy": "cfs-v6.2" },
        "tasks": [ { "name": "hog", "count": 2, "behavior": { "kind": "hog" } } ] }"#;
    let r = run(text);
    for t in &r.tasks {
        assert_eq!(t.preempt_delay_ns.min, Some(3_000_000), "{}", t.name);
        assert_eq!(t.preempt_delay_ns.max, Some(3_000_000), "{}", t.name);
        assert_eq!(t.involuntary, t.involuntary_tick);
        assert_eq!(t.cpu_ns, 300_000_000, "{}", t.name);
    }
}

/// periodic {1000, 1500} alone: it wakes at 1 ms, runs until 2.5 ms, so the 2 ms firing finds it
/// busy (overrun) and the 3 ms firing wakes it again. In [0, 10 ms): firings at 1..9 ms, wakeups
/// at 1,3,5,7,9 and overruns at 2,4,6,8.
#[test]
fn periodic_overruns_are_counted() {
    let r = run(&scenario("cfs-v6.2", 10, "", r#"{ "name": "p", "behavior": { "kind": "periodic", "period_us": 1000, "run_us": 1500 } }"#, ""));
    let p = task(&r, "p");
    assert_eq!(p.wakeups, 5);
    assert_eq!(p.overruns, 4);
    assert_eq!(p.wakeup_latency_ns.max, Some(0));
    // 4 full bursts of 1.5 ms plus 1 ms of the one woken at 9 ms.
    assert_eq!(p.cpu_ns, 7_000_000);
}

/// A burst that ends at the same nanosecond as the next firing finishes first: periodic
/// {1000, 1000} alone never overruns and wakes at every firing.
#[test]
fn burst_ending_at_a_firing_finishes_first() {
    let r = run(&scenario("cfs-v6.2", 10, "", r#"{ "name": "p", "behavior": { "kind": "periodic", "period_us": 1000, "run_us": 1000 } }"#, ""));
    let p = task(&r, "p");
    assert_eq!(p.overruns, 0);
    assert_eq!(p.wakeups, 9);
    assert_eq!(p.cpu_ns, 9_000_000);
}

/// duty: at each period start it needs percent% of the period. Alone, 30% of 10 ms is exactly
/// 3 ms per period; 100% never overruns because the quota ends exactly at the next start.
#[test]
fn duty_quota_per_period() {
    let r = run(&scenario("cfs-v6.2", 100, "", r#"{ "name": "d", "behavior": { "kind": "duty", "percent": 30, "period_us": 10000 } }"#, ""));
    let d = task(&r, "d");
    assert_eq!(d.cpu_ns, 30_000_000);
    assert_eq!(d.overruns, 0);
    assert_eq!(d.wakeups, 9, "the first period starts at fork, which is not a wakeup");
    let r = run(&scenario("cfs-v6.2", 100, "", r#"{ "name": "d", "behavior": { "kind": "duty", "percent": 100, "period_us": 10000 } }"#, ""));
    let d = task(&r, "d");
    assert_eq!(d.cpu_ns, 100_000_000);
    assert_eq!(d.overruns, 0);
}

/// duty 80% beside a hog: sharing 50/50 it needs 16 ms for its 8 ms quota, so the period start
/// at +10 ms is an overrun that adds nothing; it then sleeps from +16 ms to the start at +20 ms.
/// 8 ms per 20 ms: 40% of the CPU, one overrun per two periods. Were quotas to accumulate it
/// would stay runnable and take 50%.
#[test]
fn duty_quotas_never_accumulate() {
    let r = run(&scenario(
        "cfs-v6.2",
        1000,
        "",
        r#"{ "name": "d", "behavior": { "kind": "duty", "percent": 80, "period_us": 10000 } }, { "name": "h", "behavior": { "kind": "hog" } }"#,
        "",
    ));
    let d = task(&r, "d");
    assert!((d.share - 0.40).abs() < 0.01, "share {}", d.share);
    assert!((49..=51).contains(&d.overruns), "overruns {}", d.overruns);
}

/// bursty with fixed values alone: 100 µs on, 900 µs off, starting with a burst: exactly
/// 10% of the CPU and one wakeup per millisecond after the first.
#[test]
fn bursty_fixed_alone() {
    let r = run(&scenario("cfs-v6.2", 10, "", r#"{ "name": "b", "behavior": { "kind": "bursty", "run_us": 100, "sleep_us": 900 } }"#, ""));
    let b = task(&r, "b");
    assert_eq!(b.cpu_ns, 1_000_000);
    assert_eq!(b.wakeups, 9);
}

/// The same file and seed give the same report; another seed gives another one.
#[test]
fn runs_are_deterministic() {
    let tasks = r#"{ "name": "b", "count": 3, "behavior": { "kind": "bursty", "run_us": { "exp": 300 }, "sleep_us": { "uniform": [100, 2000] } } },
                   { "name": "n", "behavior": { "kind": "bursty", "run_us": { "normal": [500, 200] }, "sleep_us": 700 } },
                   { "name": "h", "nice": 3, "behavior": { "kind": "hog" } }"#;
    let a = run(&scenario("latency-nice-v12", 2000, "", tasks, ""));
    let b = run(&scenario("latency-nice-v12", 2000, "", tasks, ""));
    assert_eq!(a, b);
    let text = scenario("latency-nice-v12", 2000, "", tasks, "").replacen("\"name\": \"t\",", "\"name\": \"t\", \"seed\": 2,", 1);
    let c = run(&text);
    assert_ne!(a.tasks, c.tasks);
}

/// A timeline change of nice at 5 s (sched_setattr): two hogs split 50/50, then 1024:335.
/// Over 10 s the reweighted one gets about 0.5·0.5 + 0.5·(335/1359) = 37.3%.
#[test]
fn timeline_nice_change_reweights() {
    let r = run(&scenario(
        "cfs-v6.2",
        10_000,
        "",
        r#"{ "name": "h", "count": 2, "behavior": { "kind": "hog" } }"#,
        r#", "timeline": [ { "at_ms": 5000, "task": "h/1", "set": { "nice": 5 } } ]"#,
    ));
    let want = 0.5 * 0.5 + 0.5 * (335.0 / 1359.0);
    let got = task(&r, "h/1").share;
    assert!((got - want).abs() < 0.01, "got {got}, want {want}");
}

/// A task's share is measured over the whole run whenever it started (contract §1.5).
#[test]
fn late_start_and_share() {
    let r = run(&scenario("cfs-v6.2", 1000, "", r#"{ "name": "h", "start_ms": 500, "behavior": { "kind": "hog" } }"#, ""));
    let h = task(&r, "h");
    assert_eq!(h.cpu_ns, 500_000_000);
    assert!((h.share - 0.5).abs() < 1e-12);
}

/// A burst cut short by a preemption leaves its completion queued, where it can never act;
/// it must not make an instant of its own, or "Step one scheduler event" would show nothing
/// happen. So every instant runs at least one scheduler event, but for the tick of a CPU with
/// nothing to run (its load averages count none). Two bursty tasks of 9.937 ms with 1.013 ms
/// sleeps on one CPU take turns at ticks, every turn cutting a burst short, at times that are
/// not a tick's: the report's involuntary switches say how many.
#[test]
fn a_burst_cut_short_leaves_no_empty_instant() {
    let tasks = r#"{ "name": "b", "count": 2, "behavior": { "kind": "bursty", "run_us": 9937, "sleep_us": 1013 } }"#;
    for policy in ["cfs-v6.2", "eevdf-v6.12"] {
        let text = scenario(policy, 2000, "", tasks, "");
        let r = run(&text);
        let cut = task(&r, "b/0").involuntary_tick + task(&r, "b/1").involuntary_tick;
        assert!(cut > 100, "{policy}: {cut} bursts cut short at a tick");
        let v = fairground_sim::parse_scenario(&text).expect("valid");
        let mut sim = fairground_sim::engine::Sim::new(&v).expect("runs");
        let tick = sim.fair.cfg.tick_ns;
        let (mut instants, mut empty) = (0u64, Vec::new());
        loop {
            let before = sim.events;
            if !sim.step_instant() {
                break;
            }
            instants += 1;
            if sim.events == before && sim.now % tick != 0 {
                empty.push(sim.now);
            }
        }
        assert!(instants > 400, "{policy}: {instants} instants");
        assert!(empty.is_empty(), "{policy}: {} instants without an event, the first at {:?} ns", empty.len(), &empty[..empty.len().min(5)]);
    }
}
