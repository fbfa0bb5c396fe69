//! `machine.costs`: what a switch, a wakeup, an idle exit and a migration cost in time.
//! Expected values follow from where each cost is charged (docs/model.md, "Costs").

use fairground_sim::report::{Report, TaskReport};
use fairground_sim::{run_text, Limits};

fn run(text: &str) -> Report {
    run_text(text, &Limits::NATIVE).unwrap_or_else(|e| panic!("refused: {e}\n{text}"))
}

fn task<'a>(r: &'a Report, name: &str) -> &'a TaskReport {
    r.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}"))
}

fn scenario(policy: &str, costs: &str, cpus: u32, tasks: &str) -> String {
    format!(
        r#"{{"format": "fairground-scenario/1", "name": "costs", "duration_ms": 10, "machine": {{"cpus": {cpus}, "hz": 1000 {costs}}},
            "scheduler": {{"policy": "{policy}"}}, "tasks": [{tasks}]}}"#
    )
}

const POLICIES: [&str; 4] = ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"];

/// Two hogs on one CPU with a 10 µs switch: the switch is charged to the incoming task's
/// runtime, so every decision and every share is as without it; of each hog's CPU time,
/// exactly switches × 10 µs went to switching.
#[test]
fn a_switch_costs_the_incoming_task_its_time_but_changes_no_decision() {
    let hogs = r#"{"name": "h", "count": 2, "behavior": {"kind": "hog"}}"#;
    for policy in POLICIES {
        let free = run(&scenario(policy, "", 1, hogs));
        let costly = run(&scenario(policy, r#", "costs": {"switch_ns": 10000}"#, 1, hogs));
        for (a, b) in free.tasks.iter().zip(&costly.tasks) {
            assert_eq!((a.cpu_ns, a.switches), (b.cpu_ns, b.switches), "{policy}: {}", a.name);
            assert_eq!(b.overhead_ns, Some(b.switches * 10_000), "{policy}: {}", a.name);
            assert_eq!(a.overhead_ns, None, "no costs, no overhead field");
        }
    }
}

/// A periodic task alone on one CPU (period 1 ms, 100 µs of work, forked asleep: it fires
/// at 1, 2, …, 9 ms within 10 ms). A 10 µs switch makes each burst take 110 µs of CPU, and
/// its wakeup latency is the switch: 10 µs.
#[test]
fn a_switch_delays_the_first_useful_instruction() {
    let p = r#"{"name": "p", "behavior": {"kind": "periodic", "period_us": 1000, "run_us": 100}}"#;
    for policy in POLICIES {
        let r = run(&scenario(policy, r#", "costs": {"switch_ns": 10000}"#, 1, p));
        let t = task(&r, "p");
        assert_eq!(t.wakeups, 9, "{policy}");
        assert_eq!(t.cpu_ns, 9 * 110_000, "{policy}");
        assert_eq!(t.overhead_ns, Some(9 * 10_000), "{policy}");
        assert_eq!((t.wakeup_latency_ns.min, t.wakeup_latency_ns.max), (Some(10_000), Some(10_000)), "{policy}");
    }
}

/// A wakeup onto an idle CPU: the wakeup reaches the runqueue wakeup_ns after the timer, the
/// CPU then needs idle_exit_ns to leave idle, and the switch takes switch_ns: the latency is
/// exactly their sum, at every wakeup.
#[test]
fn a_wakeup_onto_an_idle_cpu_takes_wakeup_plus_idle_exit() {
    let p = r#"{"name": "p", "behavior": {"kind": "periodic", "period_us": 1000, "run_us": 100}}"#;
    for policy in POLICIES {
        for (costs, want) in [
            (r#", "costs": {"wakeup_ns": 5000, "idle_exit_ns": 20000}"#, 25_000),
            (r#", "costs": {"wakeup_ns": 5000, "idle_exit_ns": 20000, "switch_ns": 3000}"#, 28_000),
        ] {
            let r = run(&scenario(policy, costs, 1, p));
            let t = task(&r, "p");
            assert_eq!(t.wakeups, 9, "{policy}");
            assert_eq!((t.wakeup_latency_ns.min, t.wakeup_latency_ns.max), (Some(want), Some(want)), "{policy} {costs}");
        }
    }
}

/// A CPU that is busy does not pay the idle exit: a periodic task waking beside a hog waits
/// for the wakeup cost and the scheduler, never for idle_exit_ns.
#[test]
fn a_busy_cpu_pays_no_idle_exit() {
    let tasks = r#"{"name": "h", "behavior": {"kind": "hog"}}, {"name": "p", "behavior": {"kind": "periodic", "period_us": 1000, "run_us": 100}}"#;
    let free = run(&scenario("eevdf-v6.12", r#", "costs": {"wakeup_ns": 5000}"#, 1, tasks));
    let idle = run(&scenario("eevdf-v6.12", r#", "costs": {"wakeup_ns": 5000, "idle_exit_ns": 1000000}"#, 1, tasks));
    assert_eq!(task(&free, "p").wakeup_latency_ns, task(&idle, "p").wakeup_latency_ns);
}

/// `"measured"` is the calibrated preset, written back as the preset's name.
#[test]
fn the_measured_preset_round_trips() {
    let text = scenario("cfs-v6.2", r#", "costs": "measured""#, 1, r#"{"name": "h", "behavior": {"kind": "hog"}}"#);
    let v = fairground_sim::parse_scenario(&text).expect("valid");
    assert!(v.scenario.machine.costs.measured && !v.scenario.machine.costs.is_zero());
    let back = fairground_sim::scenario::to_json(&v.scenario);
    assert_eq!(back["machine"]["costs"], "measured");
    let e = fairground_sim::parse_scenario(&text.replace(r#""measured""#, r#"{"switch_us": 1}"#)).err().expect("refused");
    assert!(e.to_string().contains("machine.costs"), "{e}");
}
