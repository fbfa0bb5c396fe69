//! latency-nice v12: the no-op invariant against cfs-v6.2, the get_latency_max() clamps, the
//! latency tree, and the latency-nice trend (issue 3).

use fairground_sim::engine::Sim;
use fairground_sim::parse_scenario;
use fairground_sim::report::Report;
use proptest::prelude::*;

fn run(text: &str) -> Report {
    let v = parse_scenario(text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"));
    let mut sim = Sim::new(&v).unwrap_or_else(|e| panic!("refused: {e}"));
    sim.run();
    sim.report()
}

fn scenario(policy: &str, features: &str, seed: u64, duration_ms: u64, tasks: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "t", "seed": {seed}, "duration_ms": {duration_ms},
            "scheduler": {{ "policy": "{policy}", "features": {{ {features} }} }}, "tasks": [ {tasks} ] }}"#
    )
}

const CLAMPS_OFF: &str = r#""latency_max_clamp_tick": false, "latency_max_clamp_offset": "off", "latency_max_clamp_wakeup": false"#;

/// Everything but the policy name and the effective tunables' v12 addition.
fn decisions(r: &Report) -> (u64, Vec<fairground_sim::report::TaskReport>, Vec<fairground_sim::report::CpuReport>) {
    (r.events, r.tasks.clone(), r.cpus.clone())
}

fn behavior() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{ "kind": "hog" }"#.to_string()),
        (100u64..5000, 10u64..3000).prop_map(|(p, r)| format!(r#"{{ "kind": "periodic", "period_us": {p}, "run_us": {r} }}"#)),
        (1u64..3000, 1u64..5000).prop_map(|(r, s)| format!(r#"{{ "kind": "bursty", "run_us": {{ "exp": {r} }}, "sleep_us": {{ "exp": {s} }} }}"#)),
        (1u32..100, 500u64..20000).prop_map(|(p, q)| format!(r#"{{ "kind": "duty", "percent": {p}, "period_us": {q} }}"#)),
    ]
}

fn tasks() -> impl Strategy<Value = String> {
    prop::collection::vec((behavior(), -20i32..20, 1u32..4, 0u64..50), 1..6).prop_map(|ts| {
        ts.iter()
            .enumerate()
            .map(|(i, (b, nice, count, start))| {
                format!(r#"{{ "name": "t{i}", "count": {count}, "nice": {nice}, "start_ms": {start}, "behavior": {b} }}"#)
            })
            .collect::<Vec<_>>()
            .join(",")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// The thread's own invariant: with latency nice 0 everywhere and the three clamps off,
    /// v12 reproduces cfs-v6.2 decision for decision (same switches, preemptions, latencies,
    /// CPU times, event count).
    #[test]
    fn v12_with_clamps_off_and_latency_nice_0_is_v6_2(ts in tasks(), seed in 0u64..1000, hz in prop::sample::select(vec![100u32, 250, 1000])) {
        let with_hz = |s: String| s.replacen("\"scheduler\"", &format!("\"machine\": {{ \"hz\": {hz} }}, \"scheduler\""), 1);
        let a = run(&with_hz(scenario("cfs-v6.2", "", seed, 300, &ts)));
        let b = run(&with_hz(scenario("latency-nice-v12", CLAMPS_OFF, seed, 300, &ts)));
        prop_assert_eq!(decisions(&a), decisions(&b));
    }

    /// min_vruntime never goes backwards (signed difference), on every runqueue, at every
    /// instant of random runs under both policies.
    #[test]
    fn min_vruntime_is_monotonic(ts in tasks(), seed in 0u64..1000, v12 in any::<bool>()) {
        let policy = if v12 { "latency-nice-v12" } else { "cfs-v6.2" };
        let v = parse_scenario(&scenario(policy, "", seed, 200, &ts)).expect("valid");
        let mut sim = Sim::new(&v).expect("runs");
        let mut last = sim.fair.cfs_rqs[0].min_vruntime;
        while sim.step_instant() {
            let now = sim.fair.cfs_rqs[0].min_vruntime;
            prop_assert!((now.wrapping_sub(last) as i64) >= 0, "min_vruntime went back from {} to {}", last, now);
            last = now;
        }
    }
}

/// Nice-5 wakers (wakeup_gran 3.06 ms > get_latency_max 2.25 ms at 1 CPU) against nice-0 hogs:
/// the clamp in wakeup_preempt_entity lets their wakeups preempt where v6.2's granularity
/// would not, so switching it off lowers the number of wakeup preemptions.
#[test]
fn wakeup_clamp_changes_preemptions_of_light_wakers() {
    let tasks = r#"{ "name": "hog", "count": 2, "behavior": { "kind": "hog" } },
                   { "name": "waker", "count": 2, "nice": 5, "stagger_us": 1300, "behavior": { "kind": "periodic", "period_us": 7000, "run_us": 300 } }"#;
    let on = run(&scenario("latency-nice-v12", "", 1, 5000, tasks));
    let off = run(&scenario("latency-nice-v12", r#""latency_max_clamp_wakeup": false"#, 1, 5000, tasks));
    let preempts = |r: &Report| r.tasks.iter().filter(|t| t.name.starts_with("waker")).map(|t| t.wakeup_preemptions).sum::<u64>();
    let (p_on, p_off) = (preempts(&on), preempts(&off));
    assert!(p_on > p_off, "clamp on: {p_on} wakeup preemptions, off: {p_off}");
}

/// With nice-0 wakers wakeup_gran (1 ms) is below get_latency_max (2.25 ms) everywhere, so the
/// clamp never binds and switching it off changes nothing at all.
#[test]
fn wakeup_clamp_is_inert_for_nice_0() {
    let tasks = r#"{ "name": "hog", "count": 2, "behavior": { "kind": "hog" } },
                   { "name": "waker", "count": 2, "stagger_us": 1300, "behavior": { "kind": "periodic", "period_us": 7000, "run_us": 300 } }"#;
    let on = run(&scenario("latency-nice-v12", "", 1, 5000, tasks));
    let off = run(&scenario("latency-nice-v12", r#""latency_max_clamp_wakeup": false"#, 1, 5000, tasks));
    assert_eq!(decisions(&on), decisions(&off));
}

/// The trend of the seeds (004: cyclictest against hackbench): a periodic task competing with
/// many tasks that themselves wake and sleep often (16 short bursts of ~100 µs, an overloaded
/// CPU, as hackbench makes it) gets a lower p90 wakeup latency at latency nice -20 than at 0,
/// and no higher at 0 than at 19. (A light periodic task against light load preempts at every
/// wakeup whatever its latency nice, so its p90 is 0 at every level: ties.)
#[test]
fn latency_nice_trend_against_bursty_load() {
    let p90 = |ln: i32| {
        let tasks = format!(
            r#"{{ "name": "cyc", "latency_nice": {ln}, "behavior": {{ "kind": "periodic", "period_us": 1000, "run_us": 100 }} }},
               {{ "name": "load", "count": 16, "behavior": {{ "kind": "bursty", "run_us": {{ "exp": 100 }}, "sleep_us": {{ "exp": 200 }} }} }}"#
        );
        let r = run(&scenario("latency-nice-v12", "", 7, 5000, &tasks));
        r.tasks[0].wakeup_latency_ns.p90.unwrap_or(0)
    };
    let (m20, z, p19) = (p90(-20), p90(0), p90(19));
    assert!(m20 < z, "p90 at -20: {m20} ns, at 0: {z} ns");
    assert!(z <= p19, "p90 at 0: {z} ns, at 19: {p19} ns");
}

/// The latency tree holds exactly the queued, not-running entities with a negative offset
/// that entered it at wakeup (or were put back early), and is empty under cfs-v6.2.
#[test]
fn latency_tree_membership() {
    let tasks = r#"{ "name": "lat", "count": 3, "latency_nice": -10, "behavior": { "kind": "bursty", "run_us": 500, "sleep_us": 300 } },
                   { "name": "hog", "count": 2, "behavior": { "kind": "hog" } }"#;
    for policy in ["latency-nice-v12", "cfs-v6.2"] {
        let v = parse_scenario(&scenario(policy, "", 3, 300, tasks)).expect("valid");
        let mut sim = Sim::new(&v).expect("runs");
        let mut seen = 0;
        while sim.step_instant() {
            let members = sim.fair.latency_in_order(0);
            seen += members.len();
            let curr = sim.fair.cfs_rqs[0].curr;
            for &m in &members {
                let e = &sim.fair.ents[m as usize];
                assert!(e.on_rq && m != curr, "a member is queued and not current");
                assert!(e.latency_offset < 0);
            }
        }
        if policy == "cfs-v6.2" {
            assert_eq!(seen, 0);
        } else {
            assert!(seen > 0, "latency-sensitive wakers pass through the latency tree");
        }
    }
}

/// The shipped clamp lesson shows what its description says: with the wakeup clamp the nice-5
/// wakers preempt at (nearly) every wakeup; without it, fewer, and they wait longer.
#[test]
fn shipped_clamp_lesson_shows_the_clamp() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios/clamp-lesson.json");
    let text = std::fs::read_to_string(path).expect("shipped scenario");
    let on = run(&text);
    let off = run(&text.replace(r#""latency_max_clamp_wakeup": true"#, r#""latency_max_clamp_wakeup": false"#));
    for (a, b) in on.tasks.iter().zip(&off.tasks).filter(|(t, _)| t.name.starts_with("waker")) {
        assert!(a.wakeup_preemptions * 10 >= a.wakeups * 9, "{}: clamp on preempts at most wakeups", a.name);
        assert!(b.wakeup_preemptions < a.wakeup_preemptions, "{}", a.name);
        assert!(b.wakeup_latency_ns.p90 > a.wakeup_latency_ns.p90, "{}", a.name);
    }
}
