//! EEVDF invariants checked at every instant of random runs: the weighted lags of
//! the queued entities sum to zero within V's rounding; the pick is eligible whenever some
//! entity is; the running sums and the tree augments equal a brute-force recomputation; the
//! tree is a valid rb-tree in the version's order; delayed entities are exactly the queued
//! sleepers. Tasks sit in a small cgroup tree, so group entities and their reweighting are
//! checked too, on every runqueue.

use fairground_sim::eevdf::avg;
use fairground_sim::engine::Sim;
use fairground_sim::entity::NIL;
use fairground_sim::fuzz::invariants;
use fairground_sim::parse_scenario;
use proptest::prelude::*;

fn behavior() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{ "kind": "hog" }"#.to_string()),
        (100u64..5000, 10u64..3000).prop_map(|(p, r)| format!(r#"{{ "kind": "periodic", "period_us": {p}, "run_us": {r} }}"#)),
        (1u64..3000, 1u64..5000).prop_map(|(r, s)| format!(r#"{{ "kind": "bursty", "run_us": {{ "exp": {r} }}, "sleep_us": {{ "exp": {s} }} }}"#)),
        (1u32..100, 500u64..20000).prop_map(|(p, q)| format!(r#"{{ "kind": "duty", "percent": {p}, "period_us": {q} }}"#)),
    ]
}

fn tasks() -> impl Strategy<Value = String> {
    let group = prop::option::of(0u32..3);
    prop::collection::vec((behavior(), -20i32..20, 1u32..4, 0u64..30, prop::option::of(100u64..20_000), group), 1..6).prop_map(|ts| {
        ts.iter()
            .enumerate()
            .map(|(i, (b, nice, count, start, slice, g))| {
                let slice = slice.map(|s| format!(r#", "slice_us": {s}"#)).unwrap_or_default();
                let g = g.map(|g| format!(r#", "cgroup": "g{g}""#)).unwrap_or_default();
                format!(r#"{{ "name": "t{i}", "count": {count}, "nice": {nice}, "start_ms": {start}{slice}{g}, "behavior": {b} }}"#)
            })
            .collect::<Vec<_>>()
            .join(",")
    })
}

fn features() -> impl Strategy<Value = String> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(dd, dz, rtp, ps, pl)| {
        format!(
            r#""delay_dequeue": {dd}, "delay_zero": {dz}, "run_to_parity": {rtp}, "preempt_short": {ps}, "place_lag": {pl}"#
        )
    })
}

fn sim(policy: &str, feats: &str, cpus: u32, hz: u32, seed: u64, ts: &str) -> Sim {
    sim_with(policy, feats, "full", cpus, hz, seed, ts)
}

fn sim_with(policy: &str, feats: &str, preemption: &str, cpus: u32, hz: u32, seed: u64, ts: &str) -> Sim {
    let feats = if policy != "eevdf-v6.6" { feats.to_string() } else { feats.split(", ").filter(|f| f.contains("run_to_parity") || f.contains("place_lag")).collect::<Vec<_>>().join(", ") };
    let text = format!(
        r#"{{ "format": "fairground-scenario/1", "name": "p", "seed": {seed}, "duration_ms": 120,
            "machine": {{ "cpus": {cpus}, "hz": {hz}, "preemption": "{preemption}" }},
            "scheduler": {{ "policy": "{policy}", "features": {{ {feats} }} }},
            "cgroups": [ {{ "name": "g0" }}, {{ "name": "g1", "shares": 300 }}, {{ "name": "g2", "parent": "g1", "shares": 5000 }} ],
            "tasks": [ {ts} ] }}"#
    );
    let v = parse_scenario(&text).unwrap_or_else(|e| panic!("refused: {e}\n{text}"));
    Sim::new(&v).unwrap_or_else(|e| panic!("refused: {e}"))
}

fn check_run(mut s: Sim) -> Result<(), TestCaseError> {
    let mut instants = 0u32;
    while s.step_instant() {
        instants += 1;
        // The EEVDF checks (sums, Σ w·lag, eligible pick, augments, delayed = queued
        // sleepers) are among the fuzzer's invariants.
        if let Err(e) = invariants::check(&s) {
            return Err(TestCaseError::fail(format!("after instant {instants} at {} ns: {e}", s.now)));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    #[test]
    fn eevdf_invariants_hold_at_every_instant(
        ts in tasks(), feats in features(), seed in 0u64..1000,
        cpus in 1u32..3, hz in prop::sample::select(vec![100u32, 250, 1000]),
        v612 in any::<bool>(),
    ) {
        let policy = if v612 { "eevdf-v6.12" } else { "eevdf-v6.6" };
        check_run(sim(policy, &feats, cpus, hz, seed, &ts))?;
    }

    /// The same invariants under eevdf-v6.18, with either preemption model that changes
    /// something (lazy) or not (full).
    #[test]
    fn eevdf_v618_invariants_hold_at_every_instant(
        ts in tasks(), feats in features(), seed in 0u64..1000,
        cpus in 1u32..3, hz in prop::sample::select(vec![100u32, 250, 1000]),
        lazy in any::<bool>(),
    ) {
        let preemption = if lazy { "lazy" } else { "full" };
        check_run(sim_with("eevdf-v6.18", &feats, preemption, cpus, hz, seed, &ts))?;
    }
}

/// Under v6.12 a rotation copies only `min_vruntime` (RB_DECLARE_CALLBACKS names one field),
/// so `min_slice` can go stale when slices differ. The model keeps that; with equal slices it
/// is exact, which this pins.
#[test]
fn min_slice_is_exact_when_all_slices_are_equal() {
    let ts = r#"{ "name": "h", "count": 12, "behavior": { "kind": "bursty", "run_us": { "exp": 300 }, "sleep_us": { "exp": 500 } } }"#;
    let mut s = sim("eevdf-v6.12", "", 1, 1000, 7, ts);
    while s.step_instant() {
        let root = s.fair.cfs_rqs[0].tasks_timeline.root;
        if root != NIL {
            assert_eq!(s.fair.ents[root as usize].min_slice, 750_000);
            assert_eq!(avg::cfs_rq_min_slice(&s.fair, 0), 750_000);
        }
    }
}
