//! PELT's util, runnable and load signals in every run (kernel/sched/pelt.c and fair.c; the
//! arithmetic is the same from v6.2 to 6.18.44), against vectors worked from the kernel's
//! arithmetic (../shared/reference/kernel-smp.md, V3) and a continuous model of it.

use fairground_sim::report::Report;
use fairground_sim::{run_text, Limits};

const POLICIES: [&str; 5] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12", "eevdf-v6.18"];

fn run(policy: &str, hz: u32, duration_ms: u64, behavior: &str) -> Report {
    let text = format!(
        r#"{{ "format": "fairground-scenario/1", "name": "pelt", "duration_ms": {duration_ms},
            "machine": {{ "cpus": 1, "hz": {hz} }}, "scheduler": {{ "policy": "{policy}" }},
            "tasks": [ {{ "name": "t", "behavior": {behavior} }} ] }}"#
    );
    match run_text(&text, &Limits::NATIVE) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

/// V3: a task that runs 4 ms and sleeps 4 ms, forever. The kernel's integer arithmetic,
/// emulated with updates only at the run/sleep transitions (which is what HZ=250 gives: its
/// 4 ms ticks fall on the transitions), settles at a peak of 533 when the task sleeps and a
/// trough of 490 when it wakes, ±1 in the last digit. After 2 s (60 half-lives of the initial
/// 512's difference) the stored value is the peak in the middle of a sleep (2006 ms: the
/// dequeue at 2004 ms stored it) and the trough in the middle of a run (2002 ms: the enqueue at
/// 2000 ms), under every policy: PELT is the same code in all of them.
#[test]
fn v3_run_4ms_sleep_4ms_settles_at_533_and_490() {
    let periodic = r#"{ "kind": "periodic", "period_us": 8000, "run_us": 4000 }"#;
    for policy in POLICIES {
        let peak = run(policy, 250, 2006, periodic).tasks[0].util_avg;
        let trough = run(policy, 250, 2002, periodic).tasks[0].util_avg;
        assert!((532..=534).contains(&peak), "{policy}: peak {peak}");
        assert!((489..=491).contains(&trough), "{policy}: trough {trough}");
    }
}

/// An always-running task alone on a CPU, forked at 0. Its first utilisation is half the
/// idle CPU's spare capacity, (1024 − 0) / 2 = 512 (`post_init_entity_util_avg()`); then it
/// climbs towards 1024 as 1024 − 512·y^n over n periods of 1.048576 ms (y^32 = 1/2). The
/// averages are recomputed only at an update that crosses a period boundary; at HZ=1000 the
/// updates are the ticks, and the last before the end of a D ms run is at D − 1 ms:
/// - 2 ms: the tick at 1 ms is 976 units of 1024 ns into the first period: still 512;
/// - 10 ms: 9 ms = 8.583 periods, 1024 − 512·2^(−8.583/32) = 598.8;
/// - 100 ms: 99 ms = 94.41 periods, 1024 − 512·2^(−94.41/32) = 957.7.
///
/// The continuous model differs from the kernel's sums by their rounding and by the part of
/// the current period the divider counts (`PELT_MIN_DIVIDER + period_contrib`): ±5.
#[test]
fn an_always_running_task_climbs_from_512() {
    for policy in POLICIES {
        let hog = r#"{ "kind": "hog" }"#;
        assert_eq!(run(policy, 1000, 2, hog).tasks[0].util_avg, 512, "{policy}");
        let at10 = run(policy, 1000, 10, hog).tasks[0].util_avg;
        assert!((594..=604).contains(&at10), "{policy}: {at10}");
        let r = run(policy, 1000, 100, hog);
        let at100 = r.tasks[0].util_avg;
        assert!((953..=963).contains(&at100), "{policy}: {at100}");
        // The CPU's runqueue carries the one task: the same util (updated at the same
        // ticks), its runnable average equal to it (one runnable task that always runs), and
        // its load the task's weight times the same fraction (nice 0: 1024).
        let cpu = &r.cpus[0];
        assert!(cpu.util_avg.abs_diff(at100) <= 2, "{policy}: cpu {} task {at100}", cpu.util_avg);
        assert!(cpu.runnable_avg.abs_diff(cpu.util_avg) <= 2, "{policy}: runnable {}", cpu.runnable_avg);
        assert!(cpu.load_avg <= 1024, "{policy}: load {}", cpu.load_avg);
    }
}

/// A task that only sleeps after its first burst decays: its util halves every 32 periods
/// (33.55 ms). A bursty task that ran 1 ms at fork then sleeps 200 ms holds, at the end of a
/// 150 ms run, what its dequeue at 1 ms stored: its util never changes while it sleeps (a
/// sleeping entity is aged only at its next enqueue, or when it migrates).
#[test]
fn a_sleeping_task_keeps_the_util_its_dequeue_stored() {
    let once = r#"{ "kind": "bursty", "run_us": 1000, "sleep_us": 200000 }"#;
    for policy in POLICIES {
        let r = run(policy, 1000, 150, once);
        // Forked at 0 with 512; dequeued at 1 ms, 976 units into the first period: no
        // boundary crossed, nothing recomputed.
        assert_eq!(r.tasks[0].util_avg, 512, "{policy}");
        // The CPU's average, refreshed at every tick, has decayed the blocked 512 for
        // 149 ms − 1 ms ≈ 141 periods: 512·2^(−141/32) ≈ 24, and runnable with nothing
        // runnable decays alike (its 512 from the same attach).
        let c = &r.cpus[0];
        assert!((19..=30).contains(&c.util_avg), "{policy}: {}", c.util_avg);
        assert!(c.runnable_avg <= c.util_avg + 2, "{policy}: {}", c.runnable_avg);
    }
}

/// util_est: the CPU's utilisation for wakeup placement and the balancer is the larger of its
/// util_avg and the estimates of its queued tasks. V3's task (4 ms on, 4 ms off, HZ=250)
/// samples its util_avg when it sleeps. Its first samples are higher (it starts at 512, above
/// its average) and settle from above; the EWMA follows a lower sample by a quarter of the
/// difference, but only while the difference is at least UTIL_EST_MARGIN (10), so it stops
/// within 10 above the settled sample.
/// - v6.2, v12, v6.6 sample after the dequeue has aged the average: the peak, 533 ± 1, so the
///   estimate is 532..=543, and in the middle of a run (2002 ms), while util_avg has only
///   climbed from its trough of 490, `cpu_util_cfs()` is the estimate;
/// - v6.12 and 6.18 sample before it (7.2's 6d2051403d6c moved it after): the average as the
///   task's wakeup left it 4 ms earlier, the trough, 490 ± 1, so the estimate is 489..=501.
#[test]
fn util_est_holds_the_last_sample_while_the_task_runs() {
    let periodic = r#"{ "kind": "periodic", "period_us": 8000, "run_us": 4000 }"#;
    for policy in POLICIES {
        let text = format!(
            r#"{{ "format": "fairground-scenario/1", "name": "pelt", "duration_ms": 2002,
                "machine": {{ "cpus": 1, "hz": 250 }}, "scheduler": {{ "policy": "{policy}" }},
                "tasks": [ {{ "name": "t", "behavior": {periodic} }} ] }}"#
        );
        let sim = match fairground_sim::run_to_end(&text, &Limits::NATIVE, false) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let util = sim.fair.cfs_rqs[sim.fair.root_rq(0) as usize].avg.util_avg;
        let est = u64::from(sim.fair.task_util_est_raw(0));
        let want = if policy.starts_with("eevdf-v6.1") { 489..=501 } else { 532..=543 };
        assert!(want.contains(&est), "{policy}: estimate {est}");
        assert_eq!(sim.fair.cpu_util_cfs(0), util.max(est), "{policy}");
        if !policy.starts_with("eevdf-v6.1") {
            assert!(util < est, "{policy}: util_avg {util} not below the estimate {est}");
        }
    }
}
