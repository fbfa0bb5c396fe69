//! Speed of the core (issue 2): scheduler events per second on one CPU with 8 hogs and a
//! periodic task, next to a bare loop of rb-tree insert and erase in the same run.
//! Run with `cargo bench -p fairground-sim --bench engine`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fairground_sim::engine::Sim;
use fairground_sim::parse_scenario;
use fairground_sim::rbtree::{self, RbAccess, RbNode, RbRootCached};

const SCENARIO: &str = r#"{ "format": "fairground-scenario/1", "name": "bench", "duration_ms": 2000,
  "machine": { "hz": 1000 }, "scheduler": { "policy": "latency-nice-v12" },
  "tasks": [ { "name": "hog", "count": 8, "behavior": { "kind": "hog" } },
             { "name": "cyc", "latency_nice": -20, "behavior": { "kind": "periodic", "period_us": 100, "run_us": 10 } } ] }"#;

fn events_per_run() -> u64 {
    let v = parse_scenario(SCENARIO).expect("valid");
    let mut sim = Sim::new(&v).expect("runs");
    sim.run();
    sim.events
}

struct Node {
    key: u64,
    node: RbNode,
}
struct Arena(Vec<Node>);
impl RbAccess for Arena {
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].node
    }
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].node
    }
}

fn bench(c: &mut Criterion) {
    let v = parse_scenario(SCENARIO).expect("valid");
    let events = events_per_run();
    let mut g = c.benchmark_group("engine");
    g.throughput(Throughput::Elements(events));
    g.sample_size(10);
    g.bench_function("1cpu_8hogs_periodic_v12", |b| {
        b.iter(|| {
            let mut sim = Sim::new(&v).expect("runs");
            sim.run();
            black_box(sim.events)
        })
    });
    g.finish();

    // 9 queued entities, as on the runqueue above: erase the leftmost, reinsert it further
    // right, as pick/put do.
    let mut g = c.benchmark_group("rbtree");
    let n = 9u32;
    let ops = 1_000_000u64;
    g.throughput(Throughput::Elements(ops * 2));
    g.sample_size(10);
    g.bench_function("insert_erase_9_nodes", |b| {
        b.iter(|| {
            let mut a = Arena((0..n).map(|i| Node { key: i as u64, node: RbNode::CLEARED }).collect());
            let mut root = RbRootCached::new();
            for i in 0..n {
                rbtree::rb_add_cached(&mut root, i, &mut a, |a: &Arena, x, y| a.0[x as usize].key < a.0[y as usize].key);
            }
            let mut k = n as u64;
            for _ in 0..ops {
                let left = root.leftmost;
                rbtree::rb_erase_cached(&mut root, left, &mut a);
                k += 1;
                a.0[left as usize].key = k;
                rbtree::rb_add_cached(&mut root, left, &mut a, |a: &Arena, x, y| a.0[x as usize].key < a.0[y as usize].key);
            }
            black_box(root.root)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
