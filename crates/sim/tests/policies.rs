//! SCHED_BATCH and SCHED_IDLE within the fair class, as `check_preempt_wakeup()` (v6.2) and
//! `check_preempt_wakeup_fair()` (v6.6, v6.12) treat them:
//!
//! ```c
//! /* Idle tasks are by definition preempted by non-idle tasks. */
//! if (unlikely(task_has_idle_policy(curr)) && likely(!task_has_idle_policy(p)))
//!         goto preempt;
//! /* Batch and idle tasks do not preempt non-idle tasks (their preemption is driven by the tick) */
//! if (unlikely(p->policy != SCHED_NORMAL) || !sched_feat(WAKEUP_PREEMPTION))
//!         return;
//! ```
//! and `set_load_weight()`: a SCHED_IDLE task weighs WEIGHT_IDLEPRIO (3) whatever its nice.

use fairground_sim::engine::trace::StartWhy;
use fairground_sim::engine::Sim;
use fairground_sim::report::{Report, TaskReport};
use fairground_sim::{parse_scenario, run_text, Limits};

const POLICIES: [&str; 4] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"];

fn run(text: &str) -> Report {
    run_text(text, &Limits::NATIVE).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn task<'a>(r: &'a Report, name: &str) -> &'a TaskReport {
    r.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}"))
}

fn scenario(policy: &str, hz: u32, ms: u64, tasks: &str) -> String {
    format!(
        r#"{{"format": "fairground-scenario/1", "name": "policies", "duration_ms": {ms}, "machine": {{"cpus": 1, "hz": {hz}}},
            "scheduler": {{"policy": "{policy}"}}, "tasks": [{tasks}]}}"#
    )
}

/// A SCHED_BATCH periodic task beside a hog never preempts it at a wakeup, under every
/// policy; the same task as SCHED_NORMAL does (the control).
#[test]
fn sched_batch_never_preempts_at_a_wakeup() {
    for policy in POLICIES {
        let tasks = |p: &str| format!(r#"{{"name": "h", "behavior": {{"kind": "hog"}}}}, {{"name": "b", "policy": "{p}", "behavior": {{"kind": "periodic", "period_us": 3000, "run_us": 100}}}}"#);
        let batch = run(&scenario(policy, 1000, 600, &tasks("batch")));
        assert_eq!(task(&batch, "b").wakeup_preemptions, 0, "{policy}");
        assert_eq!(task(&batch, "h").involuntary_wakeup, 0, "{policy}");
        assert!(task(&batch, "b").wakeups > 100, "{policy}: it does run");
        let normal = run(&scenario(policy, 1000, 600, &tasks("normal")));
        assert!(task(&normal, "b").wakeup_preemptions > 0, "{policy}: a normal task does preempt");
    }
}

/// A SCHED_IDLE task (1 ms of work on a 16 ms timer) beside a nice-0 hog on one CPU under
/// cfs-v6.2 at HZ=1000: its wakeups never preempt the hog, so it only ever starts at a tick
/// (check_preempt_tick() switching the hog out); and with weight 3 against 1024 it gets about
/// its weight's share of the CPU, 3/1027 = 0.29 %, not the 6.25 % it asks for (a burst runs
/// to the next tick at least: a slice is never below min_granularity, so the share is within
/// a factor of two of that).
#[test]
fn sched_idle_waits_for_the_tick_and_gets_its_weight() {
    let text = scenario(
        "cfs-v6.2",
        1000,
        10_000,
        r#"{"name": "h", "behavior": {"kind": "hog"}}, {"name": "i", "policy": "idle", "behavior": {"kind": "periodic", "period_us": 16000, "run_us": 1000}}"#,
    );
    let v = parse_scenario(&text).expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    sim.enable_trace();
    sim.run();
    let tick = 1_000_000u64;
    let idle = sim.tasks.iter().position(|t| t.name == "i").expect("i") as u32;
    let stints: Vec<_> = sim.trace.as_ref().expect("trace").slices.iter().filter(|s| s.task == idle).copied().collect();
    assert!(!stints.is_empty(), "the idle task runs");
    for s in &stints {
        if s.start_why != StartWhy::Resume {
            assert_eq!(s.start_ns % tick, 0, "a stint of the idle task starts between ticks: {s:?}");
        }
    }
    let r = sim.report();
    assert_eq!(task(&r, "i").wakeup_preemptions, 0);
    assert_eq!(task(&r, "h").involuntary_wakeup, 0);
    let share = task(&r, "i").share;
    let weight_share = 3.0 / 1027.0;
    assert!(share > weight_share / 2.0 && share < weight_share * 2.0, "idle share {share}, weight share {weight_share}");
}

/// A normal task's wakeup reschedules a running SCHED_IDLE task at once, under every policy.
/// Under CFS the pick then takes the wakee (far left of an idle task whose vruntime runs 341×
/// faster): wakeup latency exactly 0. Under EEVDF the pick is pick_eevdf(), and the kernel's
/// `goto preempt` is a reschedule, not a switch: a wakee placed with a slightly negative lag
/// (it ran while the idle task waited) has that lag inflated by (W + w)/W with W the idle
/// task's weight 3, so it can come back ineligible, and the idle task keeps the CPU until a
/// tick finds its request used up (at HZ=250, within 4 ms).
#[test]
fn a_normal_wakeup_preempts_an_idle_task() {
    let tasks = r#"{"name": "i", "policy": "idle", "behavior": {"kind": "hog"}}, {"name": "p", "behavior": {"kind": "periodic", "period_us": 5000, "run_us": 200}}"#;
    for policy in POLICIES {
        let r = run(&scenario(policy, 250, 300, tasks));
        let p = task(&r, "p");
        assert!(p.wakeups > 50, "{policy}");
        let max = p.wakeup_latency_ns.max.expect("samples");
        if policy.starts_with("eevdf") {
            assert!(max <= 4_000_000, "{policy}: waited {max} ns, beyond a tick");
            assert_eq!(p.wakeup_latency_ns.min, Some(0), "{policy}");
        } else {
            assert_eq!((p.wakeup_latency_ns.min, max), (Some(0), 0), "{policy}");
            assert_eq!(p.wakeup_preemptions, p.wakeups, "{policy}: each wakeup preempted the idle task");
        }
    }
}

/// SCHED_IDLE's weight does not follow nice; the policy is written back when not normal.
#[test]
fn idle_weight_ignores_nice_and_the_policy_round_trips() {
    let tasks = |nice: i32| format!(r#"{{"name": "h", "behavior": {{"kind": "hog"}}}}, {{"name": "i", "nice": {nice}, "policy": "idle", "behavior": {{"kind": "hog"}}}}"#);
    let a = run(&scenario("eevdf-v6.12", 1000, 500, &tasks(-20)));
    let b = run(&scenario("eevdf-v6.12", 1000, 500, &tasks(19)));
    assert_eq!(task(&a, "i").cpu_ns, task(&b, "i").cpu_ns);
    let v = parse_scenario(&scenario("cfs-v6.2", 250, 10, &tasks(0))).expect("valid");
    assert_eq!(fairground_sim::scenario::to_json(&v.scenario)["tasks"][1]["policy"], "idle");
    let e = parse_scenario(&scenario("cfs-v6.2", 250, 10, r#"{"name": "x", "policy": "fifo", "behavior": {"kind": "hog"}}"#)).expect_err("refused");
    assert!(e.to_string().contains("tasks[0].policy"), "{e}");
}
