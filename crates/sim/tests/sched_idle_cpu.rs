//! `sched_idle_cpu()` in wakeup placement (v5.6+, v6.2–v6.12): `select_idle_sibling()` and
//! `__select_idle_cpu()` take a CPU whose only tasks are SCHED_IDLE as they take an idle one.

use fairground_sim::report::{Report, TaskReport};
use fairground_sim::{run_text, Limits};

fn run(text: &str) -> Report {
    run_text(text, &Limits::NATIVE).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn task<'a>(r: &'a Report, name: &str) -> &'a TaskReport {
    r.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}"))
}

/// Eight CPUs in one LLC: a normal hog pinned to CPU 0, a SCHED_IDLE hog pinned to CPU 1, and
/// a periodic task (100 µs every 1 ms) allowed on both. It forks on CPU 0 (both have one
/// runnable task; the lowest id wins). At its first wakeup CPU 0 is busy with a normal task,
/// so `select_idle_cpu()` scans (the LLC is a quarter busy: SIS_UTIL lets it look at 7 CPUs)
/// and CPU 1, running only a SCHED_IDLE task, is taken. From then on its previous CPU is
/// sched-idle at every wakeup, so it stays there: the normal hog never shares CPU 0.
fn scenario(policy: &str, idle_policy: &str) -> String {
    format!(
        r#"{{"format": "fairground-scenario/1", "name": "sched-idle-cpu", "duration_ms": 100,
            "machine": {{"cpus": 8, "hz": 1000}}, "scheduler": {{"policy": "{policy}"}},
            "tasks": [{{"name": "n", "cpus": [0], "behavior": {{"kind": "hog"}}}},
                      {{"name": "i", "cpus": [1], "policy": "{idle_policy}", "behavior": {{"kind": "hog"}}}},
                      {{"name": "p", "cpus": [0, 1], "behavior": {{"kind": "periodic", "period_us": 1000, "run_us": 100}}}}]}}"#
    )
}

#[test]
fn a_wakeup_goes_to_the_cpu_that_runs_only_sched_idle_tasks() {
    for policy in ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"] {
        let r = run(&scenario(policy, "idle"));
        let (n, p) = (task(&r, "n"), task(&r, "p"));
        // p ran only before its first wakeup on CPU 0: its fork's first burst.
        assert!(n.cpu_ns >= r.duration_ns - 100_000, "{policy}: the normal hog kept CPU 0 ({} ns)", n.cpu_ns);
        assert_eq!(p.migrations, 1, "{policy}: one move, to CPU 1, and it stays");
    }
    // Under CFS a normal wakee reschedules an idle curr at once. At the first wakeup (1 ms)
    // the pick still keeps the idle hog: the periodic task carries its fork's START_DEBIT, a
    // vslice right of min_vruntime, where the running idle hog sits; it runs at the 2 ms
    // tick, by when the hog's weight of 3 has moved it 1 ms × 1024/3 to the right, so the
    // 2 ms timer finds it still waiting (one overrun: 99 firings, 98 wakeups). From then on
    // every wakeup preempts the idle hog at once.
    for policy in ["cfs-v6.2", "latency-nice-v12"] {
        let r = run(&scenario(policy, "idle"));
        let (i, p) = (task(&r, "i"), task(&r, "p"));
        assert_eq!((p.wakeups, p.overruns), (98, 1), "{policy}");
        assert_eq!(i.involuntary_wakeup, p.wakeups - 1, "{policy}");
        assert_eq!((p.wakeup_latency_ns.p95, p.wakeup_latency_ns.max), (Some(0), Some(1_000_000)), "{policy}: only the first waited, to the tick");
    }
}

/// The control: with a normal hog on CPU 1, no CPU the task may use is idle, and it stays on
/// its previous CPU, CPU 0, sharing it with the hog there.
#[test]
fn without_a_sched_idle_cpu_the_wakeup_stays_on_the_previous_cpu() {
    let r = run(&scenario("cfs-v6.2", "normal"));
    let (n, p) = (task(&r, "n"), task(&r, "p"));
    assert_eq!(p.migrations, 0);
    assert!(n.cpu_ns + p.cpu_ns >= r.duration_ns - 1_000 && p.cpu_ns > 5_000_000, "n {} p {}", n.cpu_ns, p.cpu_ns);
}
