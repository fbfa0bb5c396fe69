//! Task groups (issue 6): PELT and `calc_group_shares` bit for bit on hand-computed cases,
//! CPU shares between and inside groups under every policy, a group's weight split across
//! CPUs by its load, and `shares` / `latency_nice` changes at run time.

use fairground_sim::engine::Sim;
use fairground_sim::pelt::{decay_load, update_load_avg_fields, update_load_sum, SchedAvg, LOAD_AVG_MAX};
use fairground_sim::group::shares::calc_group_shares_of;
use fairground_sim::parse_scenario;
use fairground_sim::report::Report;

const POLICIES: [&str; 4] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"];

fn sim(text: &str) -> Sim {
    let v = parse_scenario(text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"));
    Sim::new(&v).unwrap_or_else(|e| panic!("refused: {e}"))
}

fn run(text: &str) -> Report {
    let mut s = sim(text);
    s.run();
    s.report()
}

fn share(r: &Report, name: &str) -> f64 {
    r.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}")).share
}

fn scenario(policy: &str, cpus: u32, ms: u64, cgroups: &str, tasks: &str, extra: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "g", "duration_ms": {ms}, "machine": {{ "cpus": {cpus}, "hz": 250 }},
            "scheduler": {{ "policy": "{policy}" }}, "cgroups": [ {cgroups} ], "tasks": [ {tasks} ] {extra} }}"#
    )
}

// ---- PELT, against a hand re-implementation of pelt.c (values computed outside the model) --

#[test]
fn decay_load_matches_the_kernel_table_arithmetic() {
    // y^32 = 1/2, but the table's y^0 is 0xffffffff / 2^32, so even n = 0 loses one unit.
    assert_eq!(decay_load(1024, 32), 511);
    assert_eq!(decay_load(1000, 0), 999);
    assert_eq!(decay_load(LOAD_AVG_MAX, 1), 46718);
    assert_eq!(decay_load(1 << 20, 100), 120193);
    assert_eq!(decay_load(5, 32 * 63 + 1), 0, "beyond 63 half-lives everything is gone");
}

#[test]
fn runnable_entity_converges_and_halves_after_32_blocked_periods() {
    // Runnable from t = 0, updated every ms for 100 ms, weight 1024.
    let mut sa = SchedAvg::default();
    for k in 1..=100u64 {
        if update_load_sum(k * 1_000_000, &mut sa, 1, 1, true) {
            update_load_avg_fields(&mut sa, 1024);
        }
    }
    assert_eq!((sa.load_sum, sa.load_avg, sa.period_contrib, sa.last_update_time), (41128, 894, 376, 99_999_744));
    // Blocked for exactly 32 periods: y^32 = 1/2.
    let t = sa.last_update_time + 32 * 1024 * 1024;
    assert!(update_load_sum(t, &mut sa, 0, 0, false));
    update_load_avg_fields(&mut sa, 1024);
    assert_eq!((sa.load_sum, sa.load_avg), (20563, 447));
}

#[test]
fn half_duty_entity_settles_near_half_its_weight() {
    let mut sa = SchedAvg::default();
    for k in 1..=200u64 {
        if update_load_sum(k * 1_000_000, &mut sa, k % 2, k % 2, k % 2 == 1) {
            update_load_avg_fields(&mut sa, 1024);
        }
    }
    assert_eq!((sa.load_sum, sa.load_avg), (23098, 498));
}

// ---- calc_group_shares, the cases of its comment ----------------------------------------

#[test]
fn calc_group_shares_cases() {
    let s = |shares: i64, w: u64, avg: u64, tg: i64, contrib: i64| calc_group_shares_of(shares << 10, w << 10, avg, tg, contrib);
    // Uniprocessor: the group's whole weight.
    assert_eq!(s(1024, 1024, 0, 0, 0), 1024 << 10);
    // Two CPUs with equal load: half each.
    assert_eq!(s(1024, 1024, 1024, 2048, 1024), 512 << 10);
    // An idle CPU gets MIN_SHARES, unscaled.
    assert_eq!(s(1024, 0, 0, 1024, 0), 2);
    // shares = 15 on 8 CPUs with one task each: 15·1024/8 = 1920.
    assert_eq!(s(15, 1024, 1024, 8 * 1024, 1024), 1920);
    // A fresh contribution larger than the folded one: tg_weight grows, never below load.
    assert_eq!(s(1024, 2048, 0, 1024, 1024), 1024 << 10);
    assert_eq!(s(1024, 1024, 0, 3072, 1024), (1024 << 10) * 1024 / 3072);
}

// ---- shares in runs ---------------------------------------------------------------------

#[test]
fn sibling_groups_split_evenly_whatever_their_task_counts() {
    for policy in POLICIES {
        let r = run(&scenario(
            policy,
            1,
            10_000,
            r#"{ "name": "a" }, { "name": "b" }"#,
            r#"{ "name": "one", "cgroup": "a", "behavior": { "kind": "hog" } },
               { "name": "four", "count": 4, "cgroup": "b", "behavior": { "kind": "hog" } }"#,
            "",
        ));
        assert!((share(&r, "one") - 0.5).abs() < 0.01, "{policy}: {}", share(&r, "one"));
        for i in 0..4 {
            assert!((share(&r, &format!("four/{i}")) - 0.125).abs() < 0.005, "{policy}");
        }
        let b = r.cgroups.iter().find(|c| c.name == "b").expect("cgroup b");
        assert!((b.cpu_ns as f64 / 1e10 - 0.5).abs() < 0.01);
    }
}

#[test]
fn nested_groups_multiply() {
    // root: a (1024) | b (1024) → b: c (512) | d (1536): c gets 1/2·1/4, d 1/2·3/4.
    for policy in POLICIES {
        let r = run(&scenario(
            policy,
            1,
            10_000,
            r#"{ "name": "a" }, { "name": "b" }, { "name": "c", "parent": "b", "shares": 512 },
               { "name": "d", "parent": "b", "shares": 1536 }"#,
            r#"{ "name": "one", "cgroup": "a", "behavior": { "kind": "hog" } },
               { "name": "four", "count": 4, "cgroup": "c", "behavior": { "kind": "hog" } },
               { "name": "two", "count": 2, "cgroup": "d", "behavior": { "kind": "hog" } }"#,
            "",
        ));
        let c: f64 = (0..4).map(|i| share(&r, &format!("four/{i}"))).sum();
        let d: f64 = (0..2).map(|i| share(&r, &format!("two/{i}"))).sum();
        assert!((share(&r, "one") - 0.5).abs() < 0.01, "{policy}");
        assert!((c - 0.125).abs() < 0.01, "{policy}: c {c}");
        assert!((d - 0.375).abs() < 0.01, "{policy}: d {d}");
        // A cgroup's figures include its descendants' (§1.5).
        let b = r.cgroups.iter().find(|g| g.name == "b").expect("b");
        assert!((b.cpu_ns as f64 / 1e10 - (c + d)).abs() < 1e-6);
    }
}

/// A group busy on two CPUs has its weight split between them by load: each group entity
/// weighs about 512 against a nice-0 task's 1024 there, so the group's tasks get a third of
/// each CPU (the kernel's behaviour, which flat CFS would make a half).
#[test]
fn a_group_spread_over_two_cpus_weighs_half_on_each() {
    for policy in POLICIES {
        let r = run(&scenario(
            policy,
            2,
            10_000,
            r#"{ "name": "g" }"#,
            r#"{ "name": "g0", "cgroup": "g", "cpus": [0], "behavior": { "kind": "hog" } },
               { "name": "g1", "cgroup": "g", "cpus": [1], "behavior": { "kind": "hog" } },
               { "name": "r0", "cpus": [0], "behavior": { "kind": "hog" } },
               { "name": "r1", "cpus": [1], "behavior": { "kind": "hog" } }"#,
            "",
        ));
        for (g, r0) in [("g0", "r0"), ("g1", "r1")] {
            assert!((share(&r, g) - 1.0 / 3.0).abs() < 0.02, "{policy}: {g} {}", share(&r, g));
            assert!((share(&r, r0) - 2.0 / 3.0).abs() < 0.02, "{policy}: {r0} {}", share(&r, r0));
        }
    }
}

#[test]
fn shares_change_at_run_time() {
    // From 1:1 to 3:1 at 5 s: the first group's share goes from 1/2 to 3/4 → 5/8 overall.
    for policy in POLICIES {
        let r = run(&scenario(
            policy,
            1,
            10_000,
            r#"{ "name": "a" }, { "name": "b" }"#,
            r#"{ "name": "x", "cgroup": "a", "behavior": { "kind": "hog" } },
               { "name": "y", "cgroup": "b", "behavior": { "kind": "hog" } }"#,
            r#", "timeline": [ { "at_ms": 5000, "cgroup": "a", "set": { "shares": 3072 } } ]"#,
        ));
        assert!((share(&r, "x") - 0.625).abs() < 0.01, "{policy}: {}", share(&r, "x"));
    }
}

/// v12's `sched_group_set_latency()` re-keys a group entity queued in the latency tree: it
/// stays in with a new negative offset, leaves with a non-negative one, and (as in the patch)
/// one that was not in the tree is not added by the change.
#[test]
fn group_latency_nice_rekeys_queued_group_entities() {
    use fairground_sim::cfs::flags::ENQUEUE_WAKEUP;
    use fairground_sim::rbtree::CLEARED;
    let text = scenario(
        "latency-nice-v12",
        1,
        10,
        r#"{ "name": "lat", "latency_nice": -20 }"#,
        r#"{ "name": "w", "cgroup": "lat", "start_ms": 5, "behavior": { "kind": "hog" } }"#,
        "",
    );
    let mut s = sim(&text);
    let f = &mut s.fair;
    let ge = f.tgs[0].se[0];
    assert_eq!(f.ents[ge as usize].latency_offset, -3_000_000);
    f.set_task_rq(0, 0, 0);
    f.enqueue_task_fair(0, ENQUEUE_WAKEUP);
    let in_tree = |f: &fairground_sim::cfs::Fair| f.ents[ge as usize].latency_node.parent != CLEARED;
    assert!(in_tree(f) && f.pick_first_latency(0) == ge, "a waking group entity with a negative offset");
    f.sched_group_set_latency(0, -10);
    assert!(in_tree(f), "still negative: re-keyed, still in");
    assert_eq!(f.ents[ge as usize].latency_offset, f.calc_latency_offset(-10));
    f.sched_group_set_latency(0, 0);
    assert_eq!(f.ents[ge as usize].latency_offset, 0);
    assert!(!in_tree(f), "offset 0: out of the latency tree");
    f.sched_group_set_latency(0, -5);
    assert!(!in_tree(f), "not queued in the tree before the change: not added by it");
}
