//! A timeline `set` of `policy`: `sched_setscheduler()` between SCHED_NORMAL, SCHED_BATCH and
//! SCHED_IDLE at a chosen time (`Sim::sched_setscheduler`), written back as given, and refused
//! for a value outside the fair class.

use fairground_sim::engine::TaskLive;
use fairground_sim::engine::Sim;
use fairground_sim::scenario::FairPolicy;
use fairground_sim::{parse_scenario, ScenarioError};

/// Two nice-0 hogs on one CPU at HZ=1000 under `policy`; `x` is set to idle at 1 s and back
/// to normal at 3 s.
fn two_hogs(policy: &str, timeline: &str) -> String {
    format!(
        r#"{{"format": "fairground-scenario/1", "name": "set-policy", "duration_ms": 6000, "machine": {{"cpus": 1, "hz": 1000}},
            "scheduler": {{"policy": "{policy}"}},
            "tasks": [{{"name": "a", "behavior": {{"kind": "hog"}}}}, {{"name": "x", "behavior": {{"kind": "hog"}}}}],
            "timeline": [{timeline}]}}"#
    )
}

const IDLE_THEN_NORMAL: &str =
    r#"{"at_ms": 1000, "task": "x", "set": {"policy": "idle"}}, {"at_ms": 3000, "task": "x", "set": {"policy": "normal"}}"#;

/// Task `x`'s CPU time at `t` (every instant before `t` processed; a running stint counted
/// up to `t`).
fn cpu_at(sim: &mut Sim, t: u64) -> u64 {
    sim.run_until(t);
    let mut out: Vec<TaskLive> = Vec::new();
    sim.live_tasks(t, &mut Vec::new(), &mut out);
    out[1].cpu_ns
}

fn err(text: &str) -> ScenarioError {
    match parse_scenario(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// cfs-v6.2: the set takes effect at its instant, not before: the weight is nice 0's 1024
/// (inverse 4 194 304) up to 1 s and WEIGHT_IDLEPRIO 3 (WMULT_IDLEPRIO 1 431 655 765) from
/// it, the runqueue's load 1024 + 3. From then on the idle task's share follows the weights,
/// 3 / (1024 + 3) = 0.292 %: each stint lasts the one tick that passes its ideal_runtime
/// (max(6 ms × 3/1027, 750 µs) = 750 µs), and its 1 ms moves its vruntime 1024/3 ms, which
/// the hog takes 341.3 ms to cover. Over the 2 s as idle that is 2000 / 342.3 = 5.84 stints;
/// the first and the last may be partial, so within 1.5 ms of 5.84 ms. Set back to normal
/// at 3 s, the weights are 1024 and 1024 again and, once the hog has caught up with x's
/// vruntime lead (at most 341 ms), the two share the CPU half and half.
#[test]
fn a_set_to_idle_reweights_from_its_instant_and_a_set_to_normal_restores() {
    let v = parse_scenario(&two_hogs("cfs-v6.2", IDLE_THEN_NORMAL)).expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    let before = cpu_at(&mut sim, 1_000_000_000);
    let e = &sim.fair.ents[1];
    assert_eq!((e.load.weight, e.load.inv_weight, e.policy), (1024 << 10, 4_194_304, FairPolicy::Normal));
    assert!(before > 490_000_000, "half of the first second as normal: {before}");

    sim.run_until(1_000_000_001);
    let (e, rq) = (&sim.fair.ents[1], &sim.fair.cfs_rqs[sim.fair.root_rq(0) as usize]);
    assert_eq!((e.load.weight, e.load.inv_weight, e.policy), (3 << 10, 1_431_655_765, FairPolicy::Idle));
    assert_eq!((rq.load.weight, rq.idle_nr_running), ((1024 + 3) << 10, 1));

    let idle = cpu_at(&mut sim, 3_000_000_000) - before;
    let expected = 2_000_000_000.0 * 3.0 / 1027.0;
    assert!((idle as f64 - expected).abs() <= 1_500_000.0, "as idle x ran {idle} ns of 2 s; the weights say {expected:.0}");

    sim.run_until(3_000_000_001);
    let (e, rq) = (&sim.fair.ents[1], &sim.fair.cfs_rqs[sim.fair.root_rq(0) as usize]);
    assert_eq!((e.load.weight, e.load.inv_weight, e.policy), (1024 << 10, 4_194_304, FairPolicy::Normal));
    assert_eq!((rq.load.weight, rq.idle_nr_running), (2048 << 10, 0));
    let at4 = cpu_at(&mut sim, 4_000_000_000);
    let last = cpu_at(&mut sim, 6_000_000_000) - at4;
    assert!((last as i64 - 1_000_000_000).abs() <= 10_000_000, "back to normal, x ran {last} ns of the last 2 s");
    sim.run();
    assert!(sim.runaway.is_none());
}

/// The same set run whole (not stepped) gives the same result, the set's key is written back
/// as given, and the written scenario reads back to the same one; under every policy the
/// idle task gets less than a normal one would.
#[test]
fn a_policy_set_round_trips_and_runs_under_every_policy() {
    for policy in ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"] {
        let text = two_hogs(policy, r#"{"at_ms": 1000, "task": "x", "set": {"policy": "idle", "nice": 5}}"#);
        let v = parse_scenario(&text).expect("valid");
        assert_eq!(v.scenario.timeline[0].set.policy, Some(FairPolicy::Idle));
        let json = fairground_sim::scenario::to_json(&v.scenario);
        assert_eq!(json["timeline"][0]["set"]["policy"], "idle", "{policy}");
        let again = parse_scenario(&json.to_string()).expect("written back, valid");
        assert_eq!(again.scenario, v.scenario, "{policy}");
        let mut sim = Sim::new(&v).expect("builds");
        sim.run();
        let e = &sim.fair.ents[1];
        // set_load_weight(): an idle task weighs 3 whatever its nice; the nice is kept.
        assert_eq!((e.load.weight, sim.tasks[1].nice), (3 << 10, 5), "{policy}");
        let x = e.sum_exec_runtime;
        assert!(x < 2_600_000_000, "{policy}: x ran {x} ns of 6 s, 1 s of it as normal");
    }
}

/// A value outside the fair class, or not a policy at all, is refused at the set's path;
/// so is a policy set on a cgroup, or on a task of a higher class.
#[test]
fn a_bad_policy_in_a_set_is_refused_naming_its_path() {
    for bad in ["\"fifo\"", "\"rr\"", "\"deadline\""] {
        let tl = format!(r#"{{"at_ms": 1, "task": "a", "set": {{"nice": 1}}}}, {{"at_ms": 2, "task": "x", "set": {{"policy": {bad}}}}}"#);
        let e = err(&two_hogs("cfs-v6.2", &tl));
        assert_eq!(e.path, "timeline[1].set.policy", "{e}");
        assert!(e.message.contains("within the fair class"), "{e}");
    }
    for bad in ["\"SCHED_IDLE\"", "3", "null", "\"Idle\""] {
        let tl = format!(r#"{{"at_ms": 2, "task": "x", "set": {{"policy": {bad}}}}}"#);
        let e = err(&two_hogs("eevdf-v6.6", &tl));
        assert_eq!(e.path, "timeline[0].set.policy", "{e}");
        assert!(e.message.contains(r#"one of "normal", "batch", "idle""#), "{e}");
    }
    let cgroup = r#"{"format": "fairground-scenario/1", "name": "g", "duration_ms": 10, "scheduler": {"policy": "cfs-v6.2"},
        "cgroups": [{"name": "g"}], "tasks": [{"name": "a", "cgroup": "g", "behavior": {"kind": "hog"}}],
        "timeline": [{"at_ms": 1, "cgroup": "g", "set": {"policy": "idle"}}]}"#;
    let e = err(cgroup);
    assert_eq!(e.path, "timeline[0].set.policy", "{e}");
    assert!(e.message.contains("cannot be set on a cgroup"), "{e}");
    let rt = r#"{"format": "fairground-scenario/1", "name": "rt", "duration_ms": 10, "machine": {"cpus": 2}, "scheduler": {"policy": "cfs-v6.2"},
        "tasks": [{"name": "r", "policy": "fifo", "cpus": [1], "behavior": {"kind": "hog"}}],
        "timeline": [{"set": {"policy": "batch"}, "at_ms": 1, "task": "r"}]}"#;
    let e = err(rt);
    assert_eq!(e.path, "timeline[0].set.policy", "{e}");
    assert!(e.message.contains("above the fair class"), "{e}");
}
