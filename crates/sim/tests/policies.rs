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

/// A higher-class task must name its one CPU (the model does not place them), and a workload
/// stays in the fair class.
#[test]
fn higher_classes_are_pinned_single_tasks() {
    let two = |t: &str| format!(r#"{{"format": "fairground-scenario/1", "name": "p", "duration_ms": 10, "machine": {{"cpus": 2}}, "scheduler": {{"policy": "cfs-v6.2"}}, "tasks": [{t}]}}"#);
    let e = parse_scenario(&two(r#"{"name": "x", "policy": "rr", "cpus": [0, 1], "behavior": {"kind": "hog"}}"#)).expect_err("two CPUs");
    assert!(e.to_string().contains("tasks[0].policy") && e.to_string().contains("pinned to one CPU"), "{e}");
    parse_scenario(&two(r#"{"name": "x", "policy": "deadline", "cpus": [1], "behavior": {"kind": "hog"}}"#)).expect("pinned");
    let w = r#"{"format": "fairground-scenario/1", "name": "p", "duration_ms": 10, "scheduler": {"policy": "cfs-v6.2"}, "tasks": [], "workloads": [{"kind": "schbench", "name": "s", "messengers": 1, "workers": 1, "policy": "fifo", "cpus": [0]}]}"#;
    let e = parse_scenario(w).expect_err("workload");
    assert!(e.to_string().contains("workloads[0].policy"), "{e}");
}

/// `__calc_delta()` (fair.c v6.2), written out from the kernel for the test's own arithmetic:
/// `weight` is already `scale_load_down()`ed and `inv` is the divisor's 32.32 inverse; the
/// factor is shifted right by `fls()` of its high word until it fits 32 bits, then
/// `mul_u64_u32_shr()`.
fn kernel_calc_delta(delta: u64, weight: u64, inv: u64) -> u64 {
    let fls = |x: u64| 64 - x.leading_zeros();
    let mut fact = weight;
    let mut shift = 32u32; // WMULT_SHIFT
    fact *= inv; // mul_u32_u32(fact, lw->inv_weight)
    let hi = fact >> 32;
    if hi != 0 {
        shift -= fls(hi);
        fact >>= fls(hi);
    }
    ((u128::from(delta) * u128::from(fact)) >> shift) as u64
}

/// The delay of a SCHED_IDLE task (20 µs of work on a 16 ms timer, forked 1 ms in) beside a
/// nice-0 hog on one CPU, under cfs-v6.2 at HZ=300, predicted from the kernel's arithmetic and
/// compared stint by stint with the run. The constants, 1 CPU so the tunables' factor is 1:
///
/// - TICK_NSEC = (10^9 + 300/2) / 300 = 3 333 333 ns. A timer at 1 + 16k ms never falls on a
///   tick (3 333 333 and 10^6 are coprime), so every wakeup waits for a later tick.
/// - Weights (`set_load_weight()`): the hog 1024 (calc_delta_fair() is the identity for it),
///   the idle task WEIGHT_IDLEPRIO 3 with the inverse WMULT_IDLEPRIO 1 431 655 765.
/// - Fork placement, `task_fork_fair()` → `place_entity(initial)`: vruntime = min_vruntime
///   (the hog's own, curr alone) + `sched_vslice()` (START_DEBIT). `sched_slice()` counts the
///   task as queued: period `__sched_period(1 + 1)` = 6 ms (2 ≤ sched_nr_latency), times 3 /
///   1027 by `__calc_delta()` with the runqueue's computed inverse WMULT_CONST / 1027, then
///   BASE_SLICE's floor, which for an idle entity beside a non-idle one is
///   sysctl_sched_idle_min_granularity (750 µs). The vslice is that × 1024/3, by
///   WMULT_IDLEPRIO: about 256 ms of the hog's vruntime, so the first run is far away.
/// - Wakeup placement, `place_entity(!initial)`: vruntime = max(vruntime, min_vruntime −
///   thresh), thresh = sysctl_sched_min_granularity for an idle entity (not the latency),
///   halved by GENTLE_FAIR_SLEEPERS: 375 µs.
/// - `check_preempt_wakeup()`: the wakee is SCHED_IDLE, so `p->policy != SCHED_NORMAL`
///   returns before any comparison: never a wakeup preemption.
/// - `check_preempt_tick()` at each tick with both queued: ideal_runtime = `sched_slice(hog)`
///   = 6 ms × 1024 / 1027 (inverse WMULT_CONST / 1027), floored at 750 µs; reschedule when the
///   hog's `sum_exec_runtime − prev_sum_exec_runtime` exceeds it, or when, past
///   min_granularity, the hog is more than ideal_runtime of vruntime right of the leftmost.
///   The pick (`pick_next_entity(cfs_rq, curr)`) keeps the hog while it is left of the idle
///   task (`entity_before()`); a re-picked hog is not set again, so its delta_exec grows on.
/// - The idle task's 20 µs then cost it 20 000 × 1024/3 ≈ 6.8 ms of vruntime.
#[test]
fn sched_idle_delay_follows_the_kernel_arithmetic() {
    const MS: u64 = 1_000_000;
    const WMULT_CONST: u64 = 0xFFFF_FFFF;
    const WMULT_IDLEPRIO: u64 = 1_431_655_765;
    let tick = (1_000_000_000 + 300 / 2) / 300;
    assert_eq!(tick, 3_333_333);
    let (latency, min_gran, idle_min_gran) = (6 * MS, 750_000u64, 750_000u64);
    let (start, period, run, duration) = (MS, 16 * MS, 20_000u64, 1000 * MS);

    let fork_slice = kernel_calc_delta(latency, 3, WMULT_CONST / 1027).max(idle_min_gran);
    let fork_vslice = kernel_calc_delta(fork_slice, 1024, WMULT_IDLEPRIO);
    let ideal_runtime = kernel_calc_delta(latency, 1024, WMULT_CONST / 1027).max(min_gran);
    let credit = min_gran >> 1;
    let run_vruntime = kernel_calc_delta(run, 1024, WMULT_IDLEPRIO);
    assert_eq!(fork_slice, idle_min_gran, "3/1027 of 6 ms is 17.5 µs, under the floor");
    assert!((255 * MS..257 * MS).contains(&fork_vslice), "{fork_vslice}");
    assert!((5_980_000..5_985_000).contains(&ideal_runtime), "{ideal_runtime}");

    // The kernel's steps, event by event. The hog runs whenever the idle task does not, so
    // its vruntime at t is hog_v(0) + t − (the idle task's runtime so far); vruntimes here
    // are relative to hog_v(0).
    let mut idle_ran = 0u64;
    let hog_v = |t: u64, idle_ran: u64| (t - idle_ran) as i64;
    let mut idle_v = hog_v(start, 0) + fork_vslice as i64;
    let (mut queued, mut running_until) = (false, None::<u64>);
    let mut hog_picked_at_runtime = 0u64; // the hog's prev_sum_exec_runtime
    let (mut woke_at, mut overruns) = (0u64, 0u64);
    let mut stints = Vec::new(); // (start, wakeup latency)
    let mut placed = Vec::new(); // (wakeup, min_vruntime − vruntime after place_entity)
    let (mut next_timer, mut next_tick) = (start + period, tick);
    while next_timer.min(next_tick) < duration {
        let t = next_timer.min(next_tick);
        if let Some(end) = running_until.filter(|&e| e <= t) {
            // The burst ends (a completion comes first at an instant): the idle task sleeps,
            // and the hog is set as next, which restarts its slice accounting.
            idle_ran += run;
            idle_v += run_vruntime as i64;
            hog_picked_at_runtime = end - idle_ran;
            running_until = None;
        }
        if t == next_timer {
            next_timer += period;
            if queued || running_until.is_some() {
                overruns += 1;
                continue;
            }
            // enqueue_entity(): update_curr() makes min_vruntime the hog's vruntime, then
            // place_entity() gives at most the sleeper credit.
            let min_vruntime = hog_v(t, idle_ran);
            idle_v = idle_v.max(min_vruntime - credit as i64);
            placed.push((t, min_vruntime - idle_v));
            queued = true;
            woke_at = t;
            continue;
        }
        next_tick += tick;
        if !queued {
            continue; // alone on the runqueue: entity_tick() checks nothing
        }
        let delta_exec = (t - idle_ran) - hog_picked_at_runtime;
        let delta = hog_v(t, idle_ran) - idle_v;
        let resched = delta_exec > ideal_runtime || (delta_exec >= min_gran && delta > ideal_runtime as i64);
        if resched && delta >= 0 {
            stints.push((t, t - woke_at));
            queued = false;
            running_until = Some(t + run);
        }
    }
    // What that predicts, in words: the first run waits out the fork's START_DEBIT, with
    // every timer meanwhile an overrun; from then on each wakeup is placed 375 µs left of the
    // hog and runs at the next tick.
    assert!(stints.len() > 40, "{}", stints.len());
    assert!(stints[0].0 >= start + fork_vslice && stints[0].0 - (start + fork_vslice) < tick);
    assert!(placed.iter().skip(1).all(|&(_, lag)| lag == credit as i64));
    for &(t, delay) in &stints[1..] {
        assert!(delay > 0 && delay < tick && t % tick == 0, "{t} {delay}");
    }

    let tasks = format!(
        r#"{{"name": "h", "behavior": {{"kind": "hog"}}}}, {{"name": "i", "policy": "idle", "start_ms": 1, "behavior": {{"kind": "periodic", "period_us": 16000, "run_us": {}}}}}"#,
        run / 1000
    );
    let text = scenario("cfs-v6.2", 300, duration / MS, &tasks);
    let v = parse_scenario(&text).expect("valid");
    let mut sim = Sim::new(&v).expect("builds");
    sim.enable_trace();
    // Right after a later wakeup, the task sits exactly the idle sleeper credit left of
    // min_vruntime.
    let (w, lag) = placed[3];
    sim.run_until(w + 1);
    let (rq, e) = (sim.fair.root_rq(0), &sim.fair.ents[1]);
    assert!(e.on_rq);
    assert_eq!(sim.fair.cfs_rqs[rq as usize].min_vruntime.wrapping_sub(e.vruntime) as i64, lag);
    sim.run();

    let got: Vec<_> = sim.trace.as_ref().expect("trace").slices.iter().filter(|s| s.task == 1).map(|s| (s.start_ns, s.end_ns - s.start_ns, s.start_why)).collect();
    let want: Vec<_> = stints.iter().map(|&(t, _)| (t, run, StartWhy::Wakeup)).collect();
    assert_eq!(got, want);
    let r = sim.report();
    let i = task(&r, "i");
    assert_eq!((i.wakeup_preemptions, task(&r, "h").involuntary_wakeup), (0, 0));
    assert_eq!(i.overruns, overruns);
    let delays: Vec<u64> = stints.iter().map(|&(_, d)| d).collect();
    assert_eq!(i.wakeup_latency_ns.count as usize, delays.len());
    assert_eq!(i.wakeup_latency_ns.max, delays.iter().copied().max());
    assert_eq!(i.wakeup_latency_ns.min, delays.iter().copied().min());
}

/// A nice-0 hog beside a SCHED_FIFO task pinned to its CPU that runs 2 ms every 10 ms (under
/// every policy). The FIFO task's class is above the fair class, so it runs at each firing at
/// once (wakeup latency 0), and the hog gets the rest: the run of 1 000 ms has firings at 10,
/// 20, …, 990 ms (99 of them, the first timer is one period after the fork), each taking
/// exactly 2 ms, so the hog gets 1 000 − 99 × 2 = 802 ms, 80.2 %; 80 % within the one period
/// the fork's phase leaves unused at the start. The hog's vruntime advanced by exactly its own
/// runtime (weight 1024: calc_delta_fair() is the identity), not by the wall time: the
/// put_prev_task_fair() at each preemption charged it up to the switch and nothing after.
#[test]
fn a_fifo_task_takes_its_time_from_the_fair_class() {
    for policy in POLICIES {
        let tasks = r#"{"name": "h", "behavior": {"kind": "hog"}}, {"name": "rt", "policy": "fifo", "cpus": [0], "behavior": {"kind": "periodic", "period_us": 10000, "run_us": 2000}}"#;
        let text = scenario(policy, 250, 1000, tasks);
        let v = parse_scenario(&text).expect("valid");
        let mut sim = Sim::new(&v).expect("builds");
        // After the fork's instant the hog's vruntime is placed (and absolute under CFS).
        sim.run_until(1);
        let v0 = sim.fair.ents[0].vruntime;
        sim.run();
        let r = sim.report();
        let (h, rt) = (task(&r, "h"), task(&r, "rt"));
        let firings = (1000 - 1) / 10;
        assert_eq!(rt.cpu_ns, firings * 2_000_000, "{policy}");
        assert_eq!(h.cpu_ns, 1_000_000_000 - firings * 2_000_000, "{policy}");
        assert!((h.share - 0.8).abs() <= 0.002 + 1e-12, "{policy}: {}", h.share);
        assert_eq!((rt.wakeups, rt.wakeup_latency_ns.max), (firings, Some(0)), "{policy}");
        assert_eq!((h.involuntary, h.involuntary_wakeup, rt.wakeup_preemptions), (firings, firings, firings), "{policy}");
        assert_eq!(r.cpus[0].rt_ns, Some(firings * 2_000_000), "{policy}");
        assert_eq!(r.cpus[0].busy_ns, 1_000_000_000, "{policy}");
        let e = &sim.fair.ents[0];
        assert_eq!(e.sum_exec_runtime, h.cpu_ns, "{policy}");
        assert_eq!(e.vruntime.wrapping_sub(v0), h.cpu_ns, "{policy}: vruntime moved by the hog's own runtime only");
        assert_eq!(fairground_sim::scenario::to_json(&v.scenario)["tasks"][1]["policy"], "fifo");
    }
}

/// `sched_setscheduler()` to SCHED_IDLE and back on one of two nice-0 hogs (one CPU, HZ=1000),
/// under every policy: the weight becomes WEIGHT_IDLEPRIO 3 with WMULT_IDLEPRIO, the runqueue's
/// load 1024 + 3 and its idle count 1, then 1024 with the table's inverse 4 194 304 again.
/// Under cfs-v6.2, while idle the task gets at most 2 ms of the 100 ms: from the change its
/// ideal_runtime is max(6 ms × 3/1027, 750 µs) = 750 µs, so a tick at most 1 ms later ends its
/// stint (at most one stint in progress, and one more pick), and each 1 ms it runs moves its
/// vruntime 1024/3 ms ≈ 341 ms, far beyond the other hog's 100 ms.
#[test]
fn a_policy_change_reweights_to_the_idle_weight_and_back() {
    for policy in POLICIES {
        let tasks = r#"{"name": "a", "behavior": {"kind": "hog"}}, {"name": "b", "behavior": {"kind": "hog"}}"#;
        let v = parse_scenario(&scenario(policy, 1000, 400, tasks)).expect("valid");
        let mut sim = Sim::new(&v).expect("builds");
        sim.run_until(100_000_000);
        let before = sim.fair.ents[1].sum_exec_runtime;
        sim.sched_setscheduler(1, fairground_sim::scenario::FairPolicy::Idle).expect("fair to fair");
        let (e, rq) = (&sim.fair.ents[1], &sim.fair.cfs_rqs[sim.fair.root_rq(0) as usize]);
        assert_eq!((e.load.weight, e.load.inv_weight), (3 << 10, 1_431_655_765), "{policy}");
        assert_eq!(rq.load.weight, (1024 + 3) << 10, "{policy}");
        if !policy.starts_with("eevdf") {
            assert_eq!(rq.idle_nr_running, 1, "{policy}");
        }
        sim.run_until(200_000_000);
        let idle_ran = sim.fair.ents[1].sum_exec_runtime - before;
        if policy == "cfs-v6.2" {
            assert!(idle_ran <= 2_000_000, "{policy}: {idle_ran}");
        }
        assert!(idle_ran < 10_000_000, "{policy}: as idle it ran {idle_ran} ns of 100 ms");
        sim.sched_setscheduler(1, fairground_sim::scenario::FairPolicy::Normal).expect("and back");
        let (e, rq) = (&sim.fair.ents[1], &sim.fair.cfs_rqs[sim.fair.root_rq(0) as usize]);
        assert_eq!((e.load.weight, e.load.inv_weight), (1024 << 10, 4_194_304), "{policy}");
        assert_eq!((rq.load.weight, rq.idle_nr_running), (2048 << 10, 0), "{policy}");
        assert!(!sim.resched_pending(), "{policy}");
        assert!(sim.sched_setscheduler(1, fairground_sim::scenario::FairPolicy::Fifo).is_err());
        sim.run();
        assert!(sim.runaway.is_none(), "{policy}");
    }
}

/// A fair hog forked on CPU 0 just before a deadline hog pinned there: CPU 0 then has two
/// runnable tasks (`rq->nr_running` counts every class), and the idle CPU 1 pulls the fair
/// one, which runs the whole run but its first tick at most (HZ=250: 4 ms) — where counting
/// only the fair class, CPU 0 looked like one task and the hog starved behind the deadline one.
#[test]
fn an_idle_cpu_pulls_a_fair_task_from_under_a_deadline_hog() {
    let text = r#"{"format": "fairground-scenario/1", "name": "pull", "duration_ms": 500, "machine": {"cpus": 2},
        "scheduler": {"policy": "eevdf-v6.12"},
        "tasks": [{"name": "fair", "behavior": {"kind": "hog"}},
                  {"name": "dl", "policy": "deadline", "cpus": [0], "behavior": {"kind": "hog"}}]}"#;
    let r = fairground_sim::run_text(text, &fairground_sim::Limits::NATIVE).expect("runs");
    let fair = r.tasks.iter().find(|t| t.name == "fair").expect("fair");
    assert!(fair.cpu_ns >= r.duration_ns - 4_000_000, "the fair hog ran {} ns of {}", fair.cpu_ns, r.duration_ns);
    assert_eq!(fair.migrations, 1);
}
