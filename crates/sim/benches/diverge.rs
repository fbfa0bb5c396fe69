//! What "what changed, and why" costs: the A/B of seed004-cyclictest-vs-hackbench (the
//! cyclictest task's latency nice 0 against −20), both runs with the decision log recorded,
//! then the clamp counts of each and the first 5 decisions where they part — what the A/B
//! panel's worker does — against the two runs without the log.
//! Run with `cargo bench -p fairground-sim --bench diverge`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fairground_sim::measure::diverge::{clamp_impact, divergences, log_of, namer, run_logged};
use fairground_sim::measure::{parse_assignment, run_variant};
use fairground_sim::Limits;
use std::time::Duration;

const SEED004: &str = include_str!("../../../static/scenarios/seed004-cyclictest-vs-hackbench.json");

fn bench(c: &mut Criterion) {
    let b = [parse_assignment("tasks[0].latency_nice=-20").expect("assignment")];
    let mut g = c.benchmark_group("diverge");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    g.bench_function("two runs, no log", |bch| {
        bch.iter(|| {
            let a = run_variant(SEED004, &[], &Limits::NATIVE, false).expect("runs");
            let bb = run_variant(SEED004, &b, &Limits::NATIVE, false).expect("runs");
            black_box((a.events, bb.events))
        })
    });
    g.bench_function("two runs logged + clamp counts + first 5 divergences", |bch| {
        bch.iter(|| {
            let a = run_logged(SEED004, &[], &Limits::NATIVE).expect("runs");
            let bb = run_logged(SEED004, &b, &Limits::NATIVE).expect("runs");
            let ca = clamp_impact(log_of(&a), a.tasks.len(), a.cpus.len(), true);
            let cb = clamp_impact(log_of(&bb), bb.tasks.len(), bb.cpus.len(), true);
            let d = divergences(log_of(&a), log_of(&bb), 5, &namer(&a));
            black_box((ca.total, cb.total, d.len(), log_of(&a).len() + log_of(&bb).len()))
        })
    });
    g.finish();
    let a = run_logged(SEED004, &[], &Limits::NATIVE).expect("runs");
    println!("\ndecisions recorded in one run: {}, {} bytes each", log_of(&a).len(), std::mem::size_of::<fairground_sim::explain::Decision>());
}

criterion_group!(benches, bench);
criterion_main!(benches);
