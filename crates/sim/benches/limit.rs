//! Speed of the core on the limit workload (`fixtures/limit.json`: 46 tasks on one CPU for
//! 60 s, 40 bursty, 4 periodic at latency nice -20, 2 hogs) under each of the four policies,
//! next to a bare loop of rb-tree insert/erase doing as many operations as the run has events.
//! The printed ratio is a policy's events/s over the bare loop's operations/s: how many tree
//! operations an event costs, the floor being about one.
//! Run with `cargo bench -p fairground-sim --bench limit`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fairground_sim::engine::Sim;
use fairground_sim::rbtree::{self, RbAccess, RbNode, RbRootCached};
use fairground_sim::scenario::{Policy, Validated};
use std::cell::Cell;
use std::time::Duration;

mod common;
use common::timed;

fn scenario(policy: Policy) -> Validated {
    common::scenario(policy, None)
}

fn run(v: &Validated) -> u64 {
    let mut sim = Sim::new(v).expect("runs");
    sim.run();
    sim.events
}

struct Node {
    key: u64,
    queued: bool,
    node: RbNode,
}
struct Arena(Vec<Node>);
impl RbAccess for Arena {
    #[inline]
    fn node(&self, id: u32) -> &RbNode {
        &self.0[id as usize].node
    }
    #[inline]
    fn node_mut(&mut self, id: u32) -> &mut RbNode {
        &mut self.0[id as usize].node
    }
}

fn less(a: &Arena, x: u32, y: u32) -> bool {
    (a.0[x as usize].key.wrapping_sub(a.0[y as usize].key) as i64) < 0
}

/// `ops` insert/erase operations on 46 entities keyed like vruntimes: the leftmost is taken
/// out and put back further right (pick/put), and sleepers leave and come back near the left
/// (dequeue on sleep, enqueue on wakeup with place_entity()'s small credit).
fn bare_loop(ops: u64) -> u32 {
    let n = 46u32;
    let mut a = Arena((0..n).map(|i| Node { key: i as u64 * 1000, queued: false, node: RbNode::CLEARED }).collect());
    let mut root = RbRootCached::new();
    for i in 0..n / 4 {
        a.0[i as usize].queued = true;
        rbtree::rb_add_cached(&mut root, i, &mut a, less);
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut done = 0;
    while done < ops {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let left = root.leftmost;
        let id = (x % n as u64) as u32;
        if x & 1 == 0 && left != rbtree::NIL {
            // pick_next_entity() and put_prev_entity(): out and back in, further right.
            rbtree::rb_erase_cached(&mut root, left, &mut a);
            a.0[left as usize].key += (x >> 40) % 3_000_000;
            rbtree::rb_add_cached(&mut root, left, &mut a, less);
        } else if a.0[id as usize].queued {
            rbtree::rb_erase_cached(&mut root, id, &mut a);
            a.0[id as usize].queued = false;
            done += 1;
            continue;
        } else {
            let min = if left == rbtree::NIL { 0 } else { a.0[left as usize].key };
            a.0[id as usize].key = min.saturating_sub((x >> 44) % 1_500_000);
            a.0[id as usize].queued = true;
            rbtree::rb_add_cached(&mut root, id, &mut a, less);
            done += 1;
            continue;
        }
        done += 2;
    }
    black_box(root.root)
}

fn bench(c: &mut Criterion) {
    let mut rows = Vec::new();
    let mut g = c.benchmark_group("limit");
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    let mut max_events = 0;
    for p in Policy::ALL {
        let v = scenario(p);
        let events = run(&v);
        max_events = max_events.max(events);
        let best = Cell::new(Duration::MAX);
        g.throughput(Throughput::Elements(events));
        g.bench_function(p.name(), |b| b.iter_custom(|iters| timed(&best, iters, || { black_box(run(&v)); })));
        rows.push((p.name(), events, best.get()));
    }
    let best = Cell::new(Duration::MAX);
    g.throughput(Throughput::Elements(max_events));
    g.bench_function("bare_rbtree_loop", |b| b.iter_custom(|iters| timed(&best, iters, || { black_box(bare_loop(max_events)); })));
    g.finish();

    let bare = max_events as f64 / best.get().as_secs_f64();
    println!("\nlimit.json, fastest run of each (events/s; ratio = bare loop ops/s over events/s):");
    println!("  {:<20} {:>12} {:>14} {:>8}", "run", "events", "events/s", "ratio");
    for (name, events, d) in rows {
        let eps = events as f64 / d.as_secs_f64();
        println!("  {name:<20} {events:>12} {:>14.3e} {:>8.2}", eps, bare / eps);
    }
    println!("  {:<20} {max_events:>12} {bare:>14.3e} {:>8.2}", "bare rb-tree loop", 1.0);
}

criterion_group!(benches, bench);
criterion_main!(benches);
