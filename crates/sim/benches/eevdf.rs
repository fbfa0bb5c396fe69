//! Speed of the EEVDF policies (issue 5): the same workload as `engine.rs` (8 hogs and a fast
//! periodic task on one CPU, HZ=1000) under eevdf-v6.6 and eevdf-v6.12, so the cost of the
//! augmented trees and of delayed dequeue can be read next to the CFS number.
//! Run with `cargo bench -p fairground-sim --bench eevdf`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fairground_sim::engine::Sim;
use fairground_sim::parse_scenario;

fn scenario(policy: &str) -> String {
    format!(
        r#"{{ "format": "fairground-scenario/1", "name": "bench", "duration_ms": 2000,
  "machine": {{ "hz": 1000 }}, "scheduler": {{ "policy": "{policy}" }},
  "tasks": [ {{ "name": "hog", "count": 8, "behavior": {{ "kind": "hog" }} }},
             {{ "name": "cyc", "slice_us": 100, "behavior": {{ "kind": "periodic", "period_us": 100, "run_us": 10 }} }} ] }}"#
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("eevdf");
    g.sample_size(10);
    for policy in ["eevdf-v6.6", "eevdf-v6.12"] {
        let v = parse_scenario(&scenario(policy)).expect("valid");
        let mut sim = Sim::new(&v).expect("runs");
        sim.run();
        g.throughput(Throughput::Elements(sim.events));
        g.bench_function(format!("1cpu_8hogs_periodic_{policy}"), |b| {
            b.iter(|| {
                let mut sim = Sim::new(&v).expect("runs");
                sim.run();
                black_box(sim.events)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
