//! What the cost model (`machine.costs`) costs the core: the limit workload
//! (`fixtures/limit.json`, 46 tasks on one CPU for 60 s) under each policy, with every cost 0
//! and with the host's measured preset. A wakeup then arrives at its runqueue in an event of its
//! own, so a run with costs has more events; both the time per run and the events per second
//! are printed. Run with `cargo bench -p fairground-sim --bench costs`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fairground_sim::engine::Sim;
use fairground_sim::scenario::{Policy, Validated};
use std::cell::Cell;
use std::time::Duration;

mod common;
use common::{scenario, timed};

fn run(v: &Validated) -> u64 {
    let mut sim = Sim::new(v).expect("runs");
    sim.run();
    sim.events
}

fn bench(c: &mut Criterion) {
    let mut rows = Vec::new();
    let mut g = c.benchmark_group("costs");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for p in Policy::ALL {
        for (label, costs) in [("zero", None), ("measured", Some("measured"))] {
            let v = scenario(p, costs);
            let events = run(&v);
            let best = Cell::new(Duration::MAX);
            g.throughput(Throughput::Elements(events));
            g.bench_function(format!("{}/{label}", p.name()), |b| b.iter_custom(|iters| timed(&best, iters, || { black_box(run(&v)); })));
            rows.push((p.name(), label, events, best.get()));
        }
    }
    g.finish();
    println!("\nlimit.json, fastest run of each:");
    println!("  {:<18} {:<9} {:>10} {:>10} {:>12}", "policy", "costs", "events", "ms/run", "events/s");
    for (name, label, events, d) in rows {
        println!("  {name:<18} {label:<9} {events:>10} {:>10.1} {:>12.3e}", d.as_secs_f64() * 1e3, events as f64 / d.as_secs_f64());
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
