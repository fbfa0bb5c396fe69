//! hackbench and schbench (contract §1.4, issue 4). Expected values are reasoned from the
//! workload rules of docs/model.md beside each test.

use fairground_sim::engine::workloads::WlKind;
use fairground_sim::engine::Sim;
use fairground_sim::report::Report;
use fairground_sim::{parse_scenario, run_text, Limits};

/// Placement, balancing and the workloads are the same under every policy.
const POLICIES: [&str; 4] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"];

fn text(policy: &str, cpus: u32, duration_ms: u64, workload: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "w", "duration_ms": {duration_ms},
            "machine": {{ "cpus": {cpus} }}, "scheduler": {{ "policy": "{policy}" }},
            "workloads": [ {workload} ] }}"#
    )
}

fn sim(t: &str) -> Sim {
    let v = parse_scenario(t).unwrap_or_else(|e| panic!("invalid: {e}\n{t}"));
    Sim::new(&v).unwrap_or_else(|e| panic!("refused: {e}"))
}

fn run(t: &str) -> Report {
    run_text(t, &Limits::NATIVE).unwrap_or_else(|e| panic!("refused: {e}\n{t}"))
}

fn hackbench(groups: u32, fds: u32, loops: u64, extra: &str) -> String {
    format!(r#"{{ "kind": "hackbench", "name": "hb", "groups": {groups}, "fds": {fds}, "loops": {loops} {extra} }}"#)
}

fn completion(r: &Report) -> u64 {
    r.workloads[0].completion_ns.expect("hackbench completes within the run")
}

/// Every message is delivered exactly once, and no pipe ever holds more than `pipe_msgs`
/// (unread plus writes under way), whatever the pipe size, message cost and CPU count.
#[test]
fn hackbench_delivers_every_message_exactly_once() {
    for (cpus, groups, fds, loops, msg_us, pipe_msgs) in
        [(1, 1, 3, 5, 2, 1), (4, 2, 5, 20, 2, 3), (8, 3, 4, 10, 0, 2), (3, 2, 7, 4, 5, 655), (16, 4, 6, 8, 1, 1)]
    {
        let extra = format!(r#", "msg_us": {msg_us}, "pipe_msgs": {pipe_msgs}"#);
        let mut s = sim(&text("cfs-v6.2", cpus, 10_000, &hackbench(groups, fds, loops, &extra)));
        let n = groups * fds;
        while s.step_instant() {
            let WlKind::Hackbench(h) = &s.wl[0].kind else { unreachable!() };
            for r in 0..n {
                assert!(h.pipe_fill(r) <= pipe_msgs, "pipe {r} over its size at {}", s.now);
            }
        }
        let WlKind::Hackbench(h) = &s.wl[0].kind else { unreachable!() };
        let want = u64::from(groups * fds * fds) * loops;
        assert_eq!(h.total_written, want);
        assert_eq!(h.total_read, want);
        for r in 0..n {
            assert_eq!(h.read_by(r), u64::from(fds) * loops, "receiver {r}");
            assert_eq!(h.pipe_fill(r), 0);
        }
        assert!(s.wl[0].done_at.is_some());
    }
}

/// On one CPU the CPU is never idle before the end (if every sender is blocked, pipes are
/// full and their readers runnable), and switches cost nothing: completion is exactly the
/// CPU work, 2 × groups × fds² × loops × msg_us. 1 group of 4, 10 loops, 2 µs: 640 µs.
#[test]
fn hackbench_on_one_cpu_completes_in_its_cpu_work() {
    for policy in POLICIES {
        let r = run(&text(policy, 1, 100, &hackbench(1, 4, 10, "")));
        assert_eq!(completion(&r), 640_000, "{policy}");
        let r = run(&text(policy, 1, 100, &hackbench(3, 5, 7, r#", "msg_us": 3, "pipe_msgs": 2"#)));
        assert_eq!(completion(&r), 2 * 3 * 25 * 7 * 3_000, "{policy}");
    }
}

/// A hackbench that cannot finish within the run reports null.
#[test]
fn hackbench_unfinished_is_null() {
    let r = run(&text("cfs-v6.2", 1, 1, &hackbench(1, 4, 1000, "")));
    assert_eq!(r.workloads[0].completion_ns, None);
    assert_eq!(r.workloads[0].name, "hb");
}

/// Completion grows with the number of groups (more work on the same CPUs) and falls with
/// more CPUs (the same work spread wider), under both policies.
#[test]
fn hackbench_completion_grows_with_groups_and_falls_with_cpus() {
    for policy in POLICIES {
        let by_groups: Vec<u64> =
            [1, 2, 4, 8].iter().map(|&g| completion(&run(&text(policy, 4, 5_000, &hackbench(g, 10, 20, ""))))).collect();
        assert!(by_groups.windows(2).all(|w| w[0] < w[1]), "{policy}: by groups {by_groups:?}");
        let by_cpus: Vec<u64> =
            [1, 2, 4, 8].iter().map(|&c| completion(&run(&text(policy, c, 5_000, &hackbench(8, 10, 20, ""))))).collect();
        assert!(by_cpus.windows(2).all(|w| w[0] > w[1]), "{policy}: by cpus {by_cpus:?}");
        // 8 groups of 10, 20 loops, 2 µs: 64 ms of CPU work; never faster than the work
        // spread over all CPUs.
        for (i, c) in [1u64, 2, 4, 8].iter().enumerate() {
            assert!(by_cpus[i] >= 64_000_000 / c, "{policy}: {c} CPUs");
        }
    }
}

/// The same file and seed give the same hackbench run, bit for bit.
#[test]
fn hackbench_is_deterministic() {
    let t = text("latency-nice-v12", 8, 2_000, &hackbench(4, 10, 30, r#", "pipe_msgs": 8"#));
    let a = run(&t);
    let b = run(&t);
    assert_eq!(a, b);
    assert!(a.tasks.iter().map(|t| t.migrations).sum::<u64>() > 0);
}

/// The hackbench figures cover all its tasks: the workload's latency count is the sum of
/// its senders' and receivers' wakeups that ran.
#[test]
fn hackbench_latency_covers_all_tasks() {
    let r = run(&text("cfs-v6.2", 2, 1_000, &hackbench(2, 4, 50, r#", "pipe_msgs": 2"#)));
    let senders: u64 = r.tasks.iter().filter(|t| t.name.contains("sender")).map(|t| t.wakeup_latency_ns.count).sum();
    let receivers: u64 = r.tasks.iter().filter(|t| t.name.contains("receiver")).map(|t| t.wakeup_latency_ns.count).sum();
    assert!(senders > 0 && receivers > 0, "small pipes make senders block and wake");
    assert_eq!(r.workloads[0].wakeup_latency_ns.count, senders + receivers);
}

fn schbench(workers: u32, extra: &str) -> String {
    format!(r#"{{ "kind": "schbench", "name": "sb", "messengers": 1, "workers": {workers} {extra} }}"#)
}

/// Worker wakeup latency rises as workers outnumber CPUs. 8 CPUs, one messenger, workers
/// running 10 ms per 10 ms sleep of the messenger: with fewer workers than idle CPUs each
/// wakes on an idle CPU (latency 0 at p99); beyond, they queue behind each other.
#[test]
fn schbench_latency_rises_as_workers_outnumber_cpus() {
    for policy in POLICIES {
        let mut p50 = Vec::new();
        let mut p99 = Vec::new();
        for w in [2, 4, 8, 16, 32] {
            let r = run(&text(policy, 8, 2_000, &schbench(w, "")));
            let l = &r.workloads[0].wakeup_latency_ns;
            assert!(l.count > 0);
            p50.push(l.p50.unwrap_or(0));
            p99.push(l.p99.unwrap_or(0));
        }
        assert_eq!(p99[0], 0, "{policy}: 2 workers on 8 CPUs always find an idle CPU");
        assert!(p99.windows(2).all(|w| w[0] <= w[1]), "{policy}: p99 {p99:?}");
        assert!(p50.windows(2).all(|w| w[0] <= w[1]), "{policy}: p50 {p50:?}");
        assert!(p99[4] > 1_000_000, "{policy}: 32 workers on 8 CPUs wait milliseconds: {p99:?}");
    }
}

/// schbench's figures cover its workers only; a worker still busy when its messenger wakes
/// it skips the round and counts an overrun. 1 CPU, 4 workers of 10 ms per 1 ms sleep: the
/// messenger comes back long before the workers are done.
#[test]
fn schbench_counts_workers_only_and_overruns() {
    let r = run(&text("cfs-v6.2", 1, 500, &schbench(4, r#", "sleep_us": 1000"#)));
    let workers: u64 = r.tasks.iter().filter(|t| t.name.contains("worker")).map(|t| t.wakeup_latency_ns.count).sum();
    let messenger = r.tasks.iter().find(|t| t.name == "sb/messenger0").expect("messenger");
    assert!(messenger.wakeups > 0);
    assert_eq!(r.workloads[0].wakeup_latency_ns.count, workers);
    assert_eq!(r.workloads[0].completion_ns, None);
    let overruns: u64 = r.tasks.iter().filter(|t| t.name.contains("worker")).map(|t| t.overruns).sum();
    assert!(overruns > 0);
    assert_eq!(messenger.overruns, 0);
    // With room to spare (8 CPUs, 4 workers of 1 ms per 10 ms) nothing overruns.
    let r = run(&text("cfs-v6.2", 8, 500, &schbench(4, r#", "cputime_us": 1000"#)));
    assert!(r.tasks.iter().all(|t| t.overruns == 0));
}

fn shipped(stem: &str) -> String {
    let path = format!("{}/../../static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("shipped scenario")
}

/// The shipped hackbench shows what its description says: completion a little above the
/// 80 ms floor (640 ms of work on 8 CPUs), p50 0, a tail of tens of ms; twice the groups
/// take about twice as long, twice the CPUs about half; v12 at latency nice 0 is identical.
#[test]
fn shipped_hackbench_shows_what_it_says() {
    let text = shipped("hackbench-8cpu");
    let r = run(&text);
    let c = completion(&r);
    assert!((80_000_000..81_000_000).contains(&c), "completion {c}");
    let l = &r.workloads[0].wakeup_latency_ns;
    assert_eq!(l.p50, Some(0));
    assert_eq!(l.p90, Some(2_000), "one message");
    assert!(l.max.unwrap_or(0) > 10_000_000, "max {:?}", l.max);
    let double = completion(&run(&text.replace(r#""groups": 4"#, r#""groups": 8"#).replace(r#""duration_ms": 150"#, r#""duration_ms": 400"#)));
    assert!((c * 19 / 10..c * 21 / 10).contains(&double), "8 groups: {double}");
    let wide = completion(&run(&text.replace(r#""cpus": 8"#, r#""cpus": 16"#)));
    assert!((c * 45 / 100..c * 55 / 100).contains(&wide), "16 CPUs: {wide}");
    let v12 = run(&text.replace("cfs-v6.2", "latency-nice-v12"));
    assert_eq!(v12.workloads, r.workloads);
}

/// The shipped schbench beside stress-ng shows what its description says: p50 and p75 0 with
/// most worker wakeups preempting a stress task, p90 and p99 about one 2 ms round, stress at
/// 50%; 4 workers: no tail; 16 workers: a 2 ms median and stress overruns.
#[test]
fn shipped_schbench_vs_stress_shows_what_it_says() {
    let text = shipped("schbench-vs-stress");
    let r = run(&text);
    let l = &r.workloads[0].wakeup_latency_ns;
    assert_eq!((l.p50, l.p75), (Some(0), Some(0)));
    for p in [l.p90, l.p99] {
        let p = p.unwrap_or(0);
        assert!((1_900_000..=2_100_000).contains(&p), "p90/p99 {p}");
    }
    let workers: Vec<_> = r.tasks.iter().filter(|t| t.name.contains("worker")).collect();
    let (wakeups, preempt): (u64, u64) = workers.iter().fold((0, 0), |a, t| (a.0 + t.wakeups, a.1 + t.wakeup_preemptions));
    assert!(preempt * 2 > wakeups, "{preempt} of {wakeups} wakeups preempt");
    for t in r.tasks.iter().filter(|t| t.name.starts_with("stress")) {
        assert!((t.share - 0.5).abs() < 0.01, "{} {}", t.name, t.share);
    }
    let few = run(&text.replace(r#""workers": 4"#, r#""workers": 2"#));
    assert_eq!(few.workloads[0].wakeup_latency_ns.p99, Some(0));
    let many = run(&text.replace(r#""workers": 4"#, r#""workers": 8"#));
    assert!(many.workloads[0].wakeup_latency_ns.p50.unwrap_or(0) >= 1_900_000);
    assert!(many.tasks.iter().filter(|t| t.name.starts_with("stress")).map(|t| t.overruns).sum::<u64>() > 0);
}

/// The report's `workloads` array (contract §2) carries each workload's name, `completion_ns`
/// (an integer, or null) and `wakeup_latency_ns`, in file order.
#[test]
fn report_json_carries_workloads() {
    let t = text(
        "cfs-v6.2",
        4,
        50,
        &format!("{}, {}", hackbench(1, 2, 3, ""), schbench(2, r#", "name": "sb2""#).replace(r#""name": "sb", "#, "")),
    );
    let v = serde_json::to_value(run(&t)).expect("serialises");
    let w = v["workloads"].as_array().expect("workloads array");
    assert_eq!(w.len(), 2);
    assert_eq!(w[0]["name"], "hb");
    // Each receiver reads 2 × 3 messages of 2 µs: never done before 12 µs.
    assert!(w[0]["completion_ns"].as_u64().is_some_and(|c| c >= 12_000), "{}", w[0]["completion_ns"]);
    assert!(w[0]["wakeup_latency_ns"]["count"].as_u64().is_some());
    assert_eq!(w[1]["name"], "sb2");
    assert!(w[1]["completion_ns"].is_null());
    assert!(w[1]["wakeup_latency_ns"]["p99"].is_u64());
}
