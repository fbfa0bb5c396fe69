//! Speed of the SMP engine (issue 4): scheduler events per second for 64 CPUs with 2,000
//! mixed tasks, and for hackbench with 16 groups on 64 CPUs; and the memory a run holds per
//! task and per CPU (printed once, before the timings).
//! Run with `cargo bench -p fairground-sim --bench smp`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use fairground_sim::cfs::CfsRq;
use fairground_sim::engine::task::Task;
use fairground_sim::engine::{Cpu, Sim};
use fairground_sim::entity::Entity;
use fairground_sim::parse_scenario;

/// 2,000 tasks on 64 CPUs in 4 LLCs of 16: 1,200 bursty, 400 periodic (cyclictest-like),
/// 200 duty (stress-ng -l 30) and 200 hogs, for 1 s at 250 Hz.
const MIXED: &str = r#"{ "format": "fairground-scenario/1", "name": "mixed", "duration_ms": 1000,
  "machine": { "cpus": 64, "llc_size": 16 }, "scheduler": { "policy": "cfs-v6.2" },
  "tasks": [
    { "name": "bursty", "count": 1200, "behavior": { "kind": "bursty", "run_us": { "exp": 500 }, "sleep_us": { "exp": 2000 } } },
    { "name": "cyc", "count": 400, "stagger_us": 3, "behavior": { "kind": "periodic", "period_us": 1000, "run_us": 50 } },
    { "name": "duty", "count": 200, "behavior": { "kind": "duty", "percent": 30, "period_us": 10000 } },
    { "name": "hog", "count": 200, "behavior": { "kind": "hog" } } ] }"#;

/// hackbench -g 16 (20 fds, 100 loops: 640,000 messages) on 64 CPUs.
const HACKBENCH: &str = r#"{ "format": "fairground-scenario/1", "name": "hb", "duration_ms": 10000,
  "machine": { "cpus": 64 }, "scheduler": { "policy": "cfs-v6.2" },
  "workloads": [ { "kind": "hackbench", "name": "hb", "groups": 16 } ] }"#;

fn run(text: &str) -> Sim {
    let v = parse_scenario(text).expect("valid");
    let mut sim = Sim::new(&v).expect("runs");
    sim.run();
    sim
}

/// Bytes a finished run holds per task and per CPU: the structs, plus each task's heap
/// (name, affinity, latency samples), plus the engine's per-task and per-CPU side tables.
fn memory(name: &str, sim: &Sim) {
    let n = sim.tasks.len();
    let heap: usize = sim
        .tasks
        .iter()
        .map(|t| t.name.capacity() + t.allowed.capacity() * 4 + (t.stats.wakeup_latency.capacity() + t.stats.preempt_delay.capacity()) * 8)
        .sum();
    let fixed_task = std::mem::size_of::<Task>() + std::mem::size_of::<Entity>() + 12;
    let per_cpu = std::mem::size_of::<Cpu>() + std::mem::size_of::<CfsRq>() + 16 + 12 + 8 + 8;
    eprintln!(
        "{name}: {} tasks, {} CPUs, {} events; per task {} B fixed + {} B heap on average (latency samples); per CPU {} B",
        n,
        sim.cpus.len(),
        sim.events,
        fixed_task,
        heap / n.max(1),
        per_cpu
    );
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("smp");
    g.sample_size(10);
    for (name, text) in [("64cpu_2000_mixed_tasks", MIXED), ("hackbench_16_groups_64cpu", HACKBENCH)] {
        let sim = run(text);
        memory(name, &sim);
        if let Some(w) = sim.wl.first() {
            eprintln!("{name}: completion {:?} ns", w.done_at.map(|t| t - w.start_ns));
        }
        let v = parse_scenario(text).expect("valid");
        g.throughput(Throughput::Elements(sim.events));
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut sim = Sim::new(&v).expect("runs");
                sim.run();
                black_box(sim.events)
            })
        });
    }
    // build_sched_domains() at 1024 CPUs: one LLC of single-thread cores (1024 groups in every
    // CPU's MC domain, the most groups a machine can have) and 8 nodes of SMT2 EPYC-like LLCs.
    let flat = fairground_sim::smp::Topology::flat(1024, 1024);
    let mut numa = fairground_sim::smp::Topology::flat(1024, 1024);
    (numa.threads_per_core, numa.cores_per_llc, numa.llcs_per_node, numa.nodes) = (2, 8, 8, 8);
    for (name, t) in [("domains_1024cpu_one_llc", flat), ("domains_1024cpu_8_nodes", numa)] {
        g.bench_function(name, |b| b.iter(|| black_box(fairground_sim::smp::Domains::build(&t).sds.len())));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
