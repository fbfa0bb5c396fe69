//! The core cannot hang and follows `sched_setattr()` as the kernel does: the reproducers of
//! each defect the invariant fuzzer (`fairground_sim::fuzz`) is built to find, as tests.
//! Expected values come from the kernel code cited beside each test and from reasoning about
//! the scenario, stated there.

use fairground_sim::engine::trace::StopWhy;
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

/// The report without what a timeline entry itself adds: its event and its warnings.
fn figures(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).expect("serialises");
    let o = v.as_object_mut().expect("object");
    o.remove("events");
    o.remove("warnings");
    v
}

const NEXT_BUDDY_DELAYED: &str = r#"{"format": "fairground-scenario/1", "name": "delayed next buddy", "seed": 1, "duration_ms": 500,
    "machine": {"cpus": 1, "hz": 1000},
    "scheduler": {"policy": "eevdf-v6.12", "features": {"next_buddy": true}},
    "tasks": [{"name": "hog", "count": 2, "behavior": {"kind": "hog"}},
              {"name": "b", "behavior": {"kind": "bursty", "run_us": 1500, "sleep_us": 2500}}],
    "timeline": [TIMELINE]}"#;

/// A nice change on a delayed task reaches check_preempt_wakeup_fair() through
/// prio_changed_fair(); since v6.12.6 (493afbd187c4) it is not made the next buddy, so the
/// pick never returns a sleeping task. The run ends, and the bursty task (1.5 ms of every
/// 4 ms: a demand of 37.5 %) gets at most its demand, with one change or with many.
#[test]
fn a_nice_change_on_a_delayed_task_does_not_make_it_the_next_buddy() {
    let one = r#"{"at_us": 11500, "task": "b", "set": {"nice": 1}}"#.to_string();
    let many = (0..200).map(|i| format!(r#"{{"at_us": {}, "task": "b", "set": {{"nice": {}}}}}"#, 11_500 + i * 2_300, i % 2)).collect::<Vec<_>>().join(",");
    for tl in [one, many] {
        let text = NEXT_BUDDY_DELAYED.replace("TIMELINE", &tl);
        let v = parse_scenario(&text).expect("valid");
        let mut sim = Sim::new(&v).expect("builds");
        let mut instants = 0u64;
        while sim.step_instant() {
            instants += 1;
            assert!(instants < 10_000_000, "the run does not end");
        }
        assert_eq!(sim.runaway, None);
        let r = sim.report();
        let b = task(&r, "b");
        assert!(b.share <= 0.375, "b got {} of the CPU, more than its 37.5 % demand", b.share);
        for t in &r.tasks {
            assert!(t.wakeup_preemptions <= t.wakeups, "{}: {} wakeup preemptions for {} wakeups", t.name, t.wakeup_preemptions, t.wakeups);
        }
    }
}

/// `__sched_setscheduler()` returns at once when nothing changes (same nice; under v12 the
/// same latency nice; under v6.12 a sched_runtime equal to se.slice), and a key the policy's
/// kernel lacks is not in the attribute at all. So such sets leave every figure as it was,
/// under every policy, on tasks that run, wait, sleep or are not yet forked.
#[test]
fn a_set_that_changes_nothing_changes_no_figure() {
    let tasks = r#"{"name": "h", "count": 2, "nice": 3, "behavior": {"kind": "hog"}},
        {"name": "b", "latency_nice": -5, "behavior": {"kind": "bursty", "run_us": {"exp": 700}, "sleep_us": {"exp": 1500}}},
        {"name": "p", "start_ms": 40, "behavior": {"kind": "periodic", "period_us": 3000, "run_us": 400}}"#;
    for policy in POLICIES {
        for cpus in [1, 2] {
            let base = format!(
                r#"{{"format": "fairground-scenario/1", "name": "noop", "duration_ms": 200, "machine": {{"cpus": {cpus}, "hz": 250}},
                "scheduler": {{"policy": "{policy}"}}, "tasks": [{tasks}] TL }}"#
            );
            let mut tl = Vec::new();
            for i in 0..60u64 {
                let at = 1 + i * 3_317;
                tl.push(format!(r#"{{"at_us": {at}, "task": "h", "set": {{"nice": 3}}}}"#));
                tl.push(format!(r#"{{"at_us": {at}, "task": "p", "set": {{"nice": 0}}}}"#));
                if policy == "latency-nice-v12" {
                    tl.push(format!(r#"{{"at_us": {at}, "task": "b", "set": {{"latency_nice": -5}}}}"#));
                } else {
                    tl.push(format!(r#"{{"at_us": {at}, "task": "b", "set": {{"latency_nice": 7}}}}"#));
                }
                if policy != "eevdf-v6.12" {
                    tl.push(format!(r#"{{"at_us": {at}, "task": "h/1", "set": {{"slice_us": 3000}}}}"#));
                }
            }
            let without = run(&base.replace("TL", ""));
            let with = run(&base.replace("TL", &format!(r#", "timeline": [{}]"#, tl.join(","))));
            assert_eq!(figures(&without), figures(&with), "{policy} on {cpus} CPUs: a no-op set changed the run");
        }
    }
}

/// A latency-nice-only change under v12 keeps the priority, so `__sched_setscheduler()`
/// clears DEQUEUE_MOVE and dequeue_entity() skips update_min_vruntime(): the waiting task goes
/// back at exactly its old place. Two nice-0 hogs at HZ=1000, forked at the same instant: START_DEBIT
/// places each at min_vruntime + its vslice, b's (3 ms, a already queued) below a's (6 ms), so
/// b runs [0, 3) ms, catching up with a, and the tick at 3 ms switches to a. At 4.5 ms b waits
/// with the smaller vruntime, holding min_vruntime back. Setting b's latency nice then must
/// leave b's vruntime and min_vruntime as they were (update_curr() only moves a). With
/// DEQUEUE_MOVE, min_vruntime would jump to a's vruntime and b would go back 1.5 ms further
/// right.
#[test]
fn a_latency_nice_change_under_v12_does_not_move_the_task() {
    let text = r#"{"format": "fairground-scenario/1", "name": "move", "duration_ms": 10, "machine": {"hz": 1000},
        "scheduler": {"policy": "latency-nice-v12"},
        "tasks": [{"name": "a", "behavior": {"kind": "hog"}}, {"name": "b", "behavior": {"kind": "hog"}}],
        "timeline": [{"at_us": 4500, "task": "b", "set": {"latency_nice": 5}}]}"#;
    let v = parse_scenario(text).expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    sim.run_until(4_500_000);
    assert_eq!(sim.cpus[0].curr, 0, "a runs from 3 ms");
    let (b_before, min_before) = (sim.fair.ents[1].vruntime, sim.fair.cfs_rqs[0].min_vruntime);
    assert_eq!(min_before, b_before, "b holds min_vruntime back");
    let off_before = sim.fair.ents[1].latency_offset;
    assert!(sim.step_instant());
    assert_eq!(sim.now, 4_500_000);
    assert_ne!(sim.fair.ents[1].latency_offset, off_before, "the set took effect");
    assert_eq!(sim.fair.ents[1].vruntime, b_before, "b went back where it was");
    assert_eq!(sim.fair.cfs_rqs[0].min_vruntime, min_before);
    assert_eq!(sim.fair.ents[0].vruntime.wrapping_sub(min_before), 1_500_000, "update_curr() charged a");
}

/// A reschedule asked for by update_curr() inside the set is honoured at the return from the
/// syscall, whatever changed, and charged to the set. eevdf-v6.12, one CPU at HZ=100 (ticks at
/// 0 and 10 ms), base slice 0.75 ms: hog a runs from 0; b forks at 1 ms, when a's request is
/// used up, so b runs from 1 ms (placed at V with zero lag). At 3 ms b's slice is set to 3 ms:
/// the dequeue's update_curr() finds b 2 ms into a 0.75 ms request and asks to reschedule.
/// V is then halfway between a (1 ms of vruntime) and b (1 ms + 2 ms), so only a is eligible
/// and runs to the end at 6 ms: a 1 + 3 = 4 ms, b 2 ms. Without the reschedule b would keep
/// the CPU until the 10 ms tick.
#[test]
fn a_reschedule_raised_inside_a_set_is_honoured_and_charged_to_it() {
    let text = r#"{"format": "fairground-scenario/1", "name": "set resched", "duration_ms": 6, "machine": {"cpus": 1, "hz": 100},
        "scheduler": {"policy": "eevdf-v6.12"},
        "tasks": [{"name": "a", "behavior": {"kind": "hog"}}, {"name": "b", "start_ms": 1, "behavior": {"kind": "hog"}}],
        "timeline": [{"at_ms": 3, "task": "b", "set": {"slice_us": 3000}}]}"#;
    let r = run(text);
    assert_eq!(task(&r, "a").cpu_ns, 4_000_000);
    assert_eq!(task(&r, "b").cpu_ns, 2_000_000);
    let b = task(&r, "b");
    assert_eq!((b.involuntary, b.involuntary_tick, b.involuntary_wakeup), (1, 0, 0), "b's switch-out is the set's");
    assert_eq!(task(&r, "a").wakeup_preemptions, 0);
}

/// v6.6's task_fork_fair() runs update_curr() on the forking CPU's curr, and v6.6's
/// update_curr() → update_deadline() asks to reschedule when curr's request is used up and
/// another entity is queued. The reschedule is honoured at the fork's return, even when the
/// child is forked asleep (a periodic task) and never enqueued. Two hogs on one CPU at HZ=250
/// (ticks at 0 and 4 ms): h/0 runs from 0 (it forked first); p/0 forks at 2 ms, long past
/// h/0's 0.75 ms request, so h/0 is switched out then and h/1 runs from 2 ms to the end at
/// 3 ms. v6.12 no longer updates curr in task_fork_fair(), and CFS has no deadline, so under
/// those h/0 keeps running to 3 ms.
#[test]
fn eevdf_v66_honours_the_reschedule_of_a_fork() {
    let text = |policy: &str| {
        format!(
            r#"{{"format": "fairground-scenario/1", "name": "v6.6 fork resched", "duration_ms": 3,
            "machine": {{"cpus": 1, "hz": 250}}, "scheduler": {{"policy": "{policy}"}},
            "tasks": [{{"name": "h", "count": 2, "behavior": {{"kind": "hog"}}}},
                      {{"name": "p", "start_ms": 2, "stagger_us": 500, "count": 3,
                        "behavior": {{"kind": "periodic", "period_us": 10000, "run_us": 1000}}}}]}}"#
        )
    };
    let v = parse_scenario(&text("eevdf-v6.6")).expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    sim.enable_trace();
    sim.run();
    let r = sim.report();
    assert_eq!(task(&r, "h/0").cpu_ns, 2_000_000);
    assert_eq!(task(&r, "h/1").cpu_ns, 1_000_000);
    let h0 = task(&r, "h/0");
    assert_eq!((h0.involuntary, h0.involuntary_tick, h0.involuntary_wakeup), (1, 0, 0), "charged to the fork");
    let p0 = sim.tasks.iter().position(|t| t.name == "p/0").expect("p/0") as u32;
    let tr = sim.trace.as_ref().expect("trace");
    let s = tr.slices.iter().find(|s| s.end_ns == 2_000_000).expect("a stint ends at 2 ms");
    assert_eq!((s.task, s.stop_why, s.other), (0, StopWhy::Fork, p0), "h/0 stops at p/0's fork");
    let alone = |policy: &str| text(policy).replace(r#""start_ms": 2, "stagger_us": 500, "count": 3,"#, r#""start_ms": 3,"#);
    for policy in ["eevdf-v6.12", "cfs-v6.2"] {
        let (r, without) = (run(&text(policy)), run(&alone(policy)));
        for h in ["h/0", "h/1"] {
            assert_eq!(task(&r, h).cpu_ns, task(&without, h).cpu_ns, "{policy}: {h} is as if nothing forked");
        }
    }
}

/// A pick that cannot make progress ends the run with a message instead of hanging: the
/// engine's guard on events per instant.
#[test]
fn every_shipped_scenario_ends_with_no_pending_reschedule() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).expect("scenarios") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        let v = parse_scenario(&text).expect("valid");
        let mut sim = Sim::new(&v).expect("builds");
        let mut until = 0;
        while sim.step_instant() {
            assert!(!sim.resched_pending(), "{}: a reschedule pending after the instant at {} ns", path.display(), sim.now);
            until += 1;
            if until > 200_000 {
                break;
            }
        }
        assert_eq!(sim.runaway, None, "{}", path.display());
        n += 1;
    }
    assert!(n > 10, "found {n} scenarios");
}

/// The runaway guard bounds an instant by the run's cost estimate, so a legitimate instant of
/// many events is not mistaken for one: hackbench with zero-cost messages passes all of its
/// 64·64·64·100 messages at time 0, and completes there.
#[test]
fn zero_cost_messages_at_one_instant_are_not_a_runaway() {
    let text = r#"{"format": "fairground-scenario/1", "name": "hb0", "duration_ms": 10, "machine": {"cpus": 4},
        "scheduler": {"policy": "cfs-v6.2"},
        "workloads": [{"kind": "hackbench", "name": "hb", "groups": 64, "fds": 64, "loops": 100, "msg_us": 0}]}"#;
    let r = run(text);
    assert_eq!(r.workloads[0].completion_ns, Some(0));
}
