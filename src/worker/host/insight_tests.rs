//! The panels' data from the worker: the decision log survives rewinds unchanged, covers the
//! run from its start when opened late, says when the v12 clamp decided; the trees and "why did
//! this run?" agree with the trace; bad requests answer without panicking.

use crate::wire::insight::*;
use crate::wire::proto::NONE;
use crate::worker::host::{Budget, Host};

fn unlimited() -> Budget<'static> {
    Budget { clock_ms: &|| 0.0, max_ms: f64::INFINITY }
}

fn shipped(stem: &str) -> String {
    let p = format!("{}/static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn log_ask() -> Ask {
    Ask { log: Some(LogFilter { cpu: None, task: None, kinds: KIND_ALL, clamp_only: false }), ..Default::default() }
}

fn insight(h: &mut Host) -> Insight {
    *h.progress((0, 0.0)).insight.expect("a panel is open")
}

fn all_entries(h: &Host) -> Vec<(u64, u32, String)> {
    h.insight.decisions.iter().zip(&h.insight.attrs).map(|(d, a)| (d.at_ns, d.cpu, super::entry(&h.sim, d, a).text)).collect()
}

#[test]
fn clamp_lesson_log_has_the_clamp_sentence_with_the_kernels_numbers() {
    let (mut h, _) = Host::load(&shipped("clamp-lesson")).unwrap();
    h.set_insight(log_ask(), &unlimited());
    h.seek(1_000_000_000, &unlimited());
    let entries = all_entries(&h);
    // A nice-5 wakee (weight 335): wakeup_gran = 1 ms × 1024 / 335 = 3.057 ms; on one CPU
    // get_latency_max() = 6 ms / 2 − 0.75 ms = 2.25 ms (sysctl_sched_latency 6 ms,
    // min_granularity 0.75 ms, no CPU scaling).
    let clamp: Vec<_> = entries.iter().filter(|e| e.2.ends_with("without the clamp it would not have")).collect();
    assert!(!clamp.is_empty(), "no wakeup preempted only because of the clamp in 1 s");
    for e in &clamp {
        assert!(e.2.contains("wakeup_gran 3.057 ms"), "{}", e.2);
        assert!(e.2.contains("gran 2.250 ms"), "{}", e.2);
        assert!(e.2.contains("clamped to get_latency_max 2.250 ms"), "{}", e.2);
        // A task is named with its nice when not 0: the nice-5 wakee with it, the nice-0 hog without.
        assert!(e.2.starts_with("waker/0 (nice 5) woke") || e.2.starts_with("waker/1 (nice 5) woke"), "{}", e.2);
        assert!(e.2.contains("→ preempts hog/"), "{}", e.2);
    }
    let page = insight(&mut h).log.unwrap();
    assert!(page.entries.len() <= MAX_ENTRIES);
    assert!(page.entries.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
    assert!(page.entries.last().is_some_and(|e| e.at_ns <= h.view_ns()));
    // The flag the page styles by is set exactly on those entries.
    let flagged = h.insight.decisions.iter().zip(&h.insight.attrs).filter(|(d, a)| super::entry(&h.sim, d, a).clamp_decided).count();
    assert!(flagged >= clamp.len());
}

#[test]
fn the_log_after_a_rewind_is_the_log_of_a_fresh_run() {
    let text = shipped("mixed-behaviours");
    let (mut a, _) = Host::load(&text).unwrap();
    a.set_insight(log_ask(), &unlimited());
    a.seek(300_000_000, &unlimited());
    a.seek(120_000_000, &unlimited());
    let (mut b, _) = Host::load(&text).unwrap();
    b.set_insight(log_ask(), &unlimited());
    b.seek(120_000_000, &unlimited());
    let (ea, eb) = (all_entries(&a), all_entries(&b));
    assert!(!ea.is_empty());
    assert_eq!(ea, eb);
    assert!(ea.iter().all(|e| e.0 <= 120_000_000));
}

#[test]
fn opening_the_log_late_replays_from_the_start() {
    let (mut h, _) = Host::load(&shipped("two-hogs")).unwrap();
    h.seek(50_000_000, &unlimited());
    let slices = h.sim.trace.as_ref().unwrap().slices.len();
    h.set_insight(log_ask(), &unlimited());
    // Replayed from the start with recording on, and back where it was, the same slices closed.
    assert_eq!(h.view_ns(), 50_000_000);
    assert_eq!(h.sim.trace.as_ref().unwrap().slices.len(), slices);
    let page = insight(&mut h).log.unwrap();
    assert_eq!(page.from_ns, 0);
    // Two hogs on one CPU: the first pick is at time 0 (a fork), and a tick every 4 ms
    // checks the running hog, so 50 ms holds 12 tick checks (4, 8, …, 48 ms).
    let first = h.insight.decisions.first().unwrap();
    assert_eq!(first.at_ns, 0);
    let ticks = h.insight.decisions.iter().filter(|d| super::kind(d) == KIND_TICK).count();
    assert_eq!(ticks, 12);
    // Closing the panel stops recording and frees the log.
    h.set_insight(Ask::default(), &unlimited());
    assert!(h.sim.fair.log.is_none());
    assert!(h.progress((0, 0.0)).insight.is_none());
}

#[test]
fn filters_by_cpu_task_and_kind() {
    let (mut h, _) = Host::load(&shipped("mixed-behaviours")).unwrap();
    h.set_insight(Ask { log: Some(LogFilter { cpu: Some(0), task: Some(1), kinds: KIND_PICK, clamp_only: false }), ..Default::default() }, &unlimited());
    h.seek(200_000_000, &unlimited());
    let page = insight(&mut h).log.unwrap();
    assert!(!page.entries.is_empty());
    assert!(page.entries.iter().all(|e| e.cpu == 0 && e.task == 1 && e.kind == KIND_PICK), "{:?}", page.entries.first());
    // Out-of-range filters match nothing, and do not panic.
    h.set_insight(Ask { log: Some(LogFilter { cpu: Some(99), task: Some(u32::MAX), kinds: 0, clamp_only: false }), ..Default::default() }, &unlimited());
    assert!(insight(&mut h).log.unwrap().entries.is_empty());
}

#[test]
fn why_did_this_run_names_the_pick_of_the_slice() {
    let (mut h, _) = Host::load(&shipped("two-hogs")).unwrap();
    h.set_insight(log_ask(), &unlimited());
    h.seek(20_000_000, &unlimited());
    // The second stint of the run, as the trace closed it.
    let s = h.sim.trace.as_ref().unwrap().slices[1];
    let mid = (s.start_ns + s.end_ns) / 2;
    h.set_insight(Ask { why: Some((s.cpu, mid)), ..log_ask() }, &unlimited());
    let w = insight(&mut h).why.unwrap();
    assert_eq!((w.task, w.start_ns, w.end_ns), (s.task, s.start_ns, Some(s.end_ns)));
    let pick = w.pick.expect("a pick at the start");
    assert_eq!((pick.at_ns, pick.task, pick.kind), (s.start_ns, s.task, KIND_PICK));
    // A hog is only ever switched out at a tick: the stint started and ended by tick checks.
    assert_eq!(w.started_by.map(|e| e.kind), Some(KIND_TICK));
    assert_eq!(w.ended_by.as_ref().map(|e| (e.kind, e.at_ns)), Some((KIND_TICK, s.end_ns)));
    // A CPU that does not exist is said, not a panic.
    h.set_insight(Ask { why: Some((7, mid)), ..log_ask() }, &unlimited());
    let w = insight(&mut h).why.unwrap();
    assert_eq!(w.task, NONE);
    assert!(w.note.is_some());
}

#[test]
fn trees_show_every_queued_entity_with_curr_beside() {
    let (mut h, _) = Host::load(&shipped("mixed-behaviours")).unwrap();
    h.set_insight(Ask { trees: Some(0), ..Default::default() }, &unlimited());
    for t in [10_000_000u64, 77_000_000, 150_000_000] {
        h.seek(t, &unlimited());
        let tr = insight(&mut h).trees.unwrap();
        // nr_running counts curr too; curr is not in the tree.
        let queued = tr.tasks.nodes.len() as u32 + tr.curr.is_some() as u32;
        assert_eq!(queued, tr.nr_running, "at {t}");
        if let Some(c) = &tr.curr {
            assert!(tr.tasks.nodes.iter().all(|n| n.entity != c.entity));
        }
        if let Some(first) = tr.tasks.nodes.first() {
            assert_eq!(tr.tasks.leftmost, first.entity, "the cached leftmost is the first in order");
        }
        let keys: Vec<i64> = tr.tasks.nodes.iter().map(|n| n.vruntime_rel).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]), "in key order: {keys:?}");
    }
    // A CPU out of range: no trees, no panic.
    h.set_insight(Ask { trees: Some(64), ..Default::default() }, &unlimited());
    assert!(insight(&mut h).trees.is_none());
}

#[test]
fn v12_latency_tree_is_a_subset_and_steps_list_the_operations() {
    // Only latency-sensitive entities (latency_offset < 0) enter latency_timeline
    // (__enqueue_latency, v12 8/8): here cyc-m20 (task 0), never cyc-0 or cyc-19.
    let (mut h, _) = Host::load(&shipped("latency-nice-ladder")).unwrap();
    h.set_insight(Ask { trees: Some(0), ..Default::default() }, &unlimited());
    let _ = h.progress((0, 0.0));
    let (mut saw_ops, mut saw_latency) = (false, false);
    for _ in 0..400 {
        h.step_instant();
        let tr = insight(&mut h).trees.unwrap();
        let lat = tr.latency.expect("v12 has a latency tree");
        for n in &lat.nodes {
            assert_eq!(n.task, 0, "only the latency nice -20 task is latency-sensitive");
            let q = tr.tasks.nodes.iter().find(|m| m.entity == n.entity).expect("a latency node is queued in tasks_timeline too");
            assert!(n.latency_key_rel < q.vruntime_rel, "a negative offset keys it earlier");
            saw_latency = true;
        }
        saw_ops |= !tr.tasks.ops.is_empty();
        assert!(tr.tasks.ops.len() <= MAX_OPS);
    }
    assert!(saw_ops, "400 steps of 19 tasks on one CPU insert and erase");
    assert!(saw_latency, "cyc-m20 waits in the latency tree at some step");
}

#[test]
fn eevdf_trees_and_chart_carry_v_and_lag() {
    let (mut h, _) = Host::load(&shipped("lesson-3-eevdf-lag")).unwrap();
    h.set_insight(Ask { trees: Some(0), chart: Some(0), ..Default::default() }, &unlimited());
    h.seek(200_000_000, &unlimited());
    let i = insight(&mut h);
    let tr = i.trees.unwrap();
    assert!(tr.avg_vruntime.is_some());
    assert!(tr.flavour.starts_with("v6."));
    // Eligible ⇔ lag ≥ 0 (entity_eligible: (V − v)·load ≥ 0, up to rounding in V).
    for n in &tr.tasks.nodes {
        if n.lag > 1_000 {
            assert!(n.eligible, "{n:?}");
        }
        if n.lag < -1_000 {
            assert!(!n.eligible, "{n:?}");
        }
    }
    let c = i.chart.unwrap();
    assert!(c.eevdf && c.samples.len() > 2);
    assert!(c.samples.windows(2).all(|w| w[0].0 <= w[1].0));
    // A task that does not exist: no chart, no panic.
    h.set_insight(Ask { chart: Some(u32::MAX), ..Default::default() }, &unlimited());
    let c = insight(&mut h).chart.unwrap();
    assert!(c.samples.is_empty());
}

#[test]
fn every_small_step_replays_into_frames_that_end_at_the_tree_after_it() {
    // 19 tasks on one CPU (v12, with a latency tree): each event inserts and erases, often with
    // rotations. The replay of the operation log from the previous answer's tree must land on
    // the core's tree (checked inside `replay`, which returns None otherwise).
    let (mut h, _) = Host::load(&shipped("latency-nice-ladder")).unwrap();
    h.set_insight(Ask { trees: Some(0), ..Default::default() }, &unlimited());
    let _ = h.progress((0, 0.0));
    let (mut animated, mut rotations, mut with_ops) = (0, 0, 0);
    for _ in 0..600 {
        h.step_instant();
        let tr = insight(&mut h).trees.unwrap();
        for t in std::iter::once(&tr.tasks).chain(tr.latency.as_ref()) {
            if t.ops.is_empty() {
                continue;
            }
            with_ops += 1;
            if t.ops_dropped == 0 && t.ops.len() <= MAX_OPS {
                assert!(!t.frames.is_empty(), "{} ops gave no frames: {:?}", t.name, t.ops);
                animated += 1;
                rotations += t.ops.iter().filter(|o| o.rotation).count();
                let last = t.frames.last().unwrap();
                assert_eq!(last.root, t.root);
                assert_eq!(last.nodes.len(), t.nodes.len());
            }
        }
    }
    // Steps of more than MAX_OPS operations (a burst of wakeups) are listed, not animated.
    assert!(animated > 100 && animated + 5 > with_ops, "animated {animated} of {with_ops}");
    assert!(rotations > 0, "no rotation in 600 events");
}

/// "The clamp changed the outcome": with the filter on, every entry is one the clamp decided,
/// and under each such wakeup check the what-if names the clamp: without it the nice-5 wakee
/// (wakeup_gran 3.057 ms against a ~3 ms lead) would not have preempted.
#[test]
fn the_clamp_filter_keeps_only_the_checks_a_clamp_decided_and_says_what_if() {
    let (mut h, _) = Host::load(&shipped("clamp-lesson")).unwrap();
    let mut ask = log_ask();
    if let Some(f) = ask.log.as_mut() {
        f.clamp_only = true;
    }
    h.set_insight(ask, &unlimited());
    h.seek(500_000_000, &unlimited());
    let page = insight(&mut h).log.unwrap();
    assert!(!page.entries.is_empty());
    let flagged = h.insight.decisions.iter().zip(&h.insight.attrs).filter(|(d, a)| super::entry(&h.sim, d, a).clamp_decided).count();
    assert_eq!(page.entries.len(), flagged.min(MAX_ENTRIES));
    for e in &page.entries {
        assert!(e.clamp_decided, "{}", e.text);
        if e.kind == KIND_WAKEUP {
            assert!(e.whatif.iter().any(|w| w == "latency_max_clamp_wakeup off → does not preempt"), "{:?}", e.whatif);
        }
    }
}

/// Under four-policies (eevdf-v6.12: a periodic task with a 0.1 ms slice, a bursty worker,
/// three hogs) the log offers what-ifs under ticks and wakeups too, each naming a change
/// the counterfactuals know, and pick entries name the rule that chose.
#[test]
fn eevdf_ticks_and_wakeups_say_what_if_and_picks_say_which_rule() {
    let (mut h, _) = Host::load(&shipped("four-policies")).unwrap();
    h.set_insight(log_ask(), &unlimited());
    h.seek(300_000_000, &unlimited());
    let entries: Vec<_> = h
        .insight
        .decisions
        .iter()
        .zip(&h.insight.attrs)
        .map(|(d, a)| super::entry(&h.sim, d, a))
        .collect();
    let with = |kind: u8| {
        entries
            .iter()
            .filter(|e| e.kind == kind && !e.whatif.is_empty())
            .count()
    };
    assert!(
        with(KIND_TICK) > 0 && with(KIND_WAKEUP) > 0,
        "ticks {} wakeups {}",
        with(KIND_TICK),
        with(KIND_WAKEUP)
    );
    for e in entries.iter().filter(|e| e.kind == KIND_TICK) {
        for w in &e.whatif {
            assert!(
                w.starts_with("curr with a ")
                    && (w.ends_with("→ rescheduled") || w.ends_with("→ keeps the CPU")),
                "{w}"
            );
        }
    }
    assert!(entries
        .iter()
        .filter(|e| e.kind == KIND_PICK)
        .all(|e| e.text.contains("the earliest eligible deadline")
            || e.text.contains("the next buddy")));
}
