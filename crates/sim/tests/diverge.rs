//! What changed, and why: the clamps' impact over a run and the first decision at which two
//! runs part ways, from the decision log.

use fairground_sim::explain::Why;
use fairground_sim::measure::diverge::{clamp_impact, divergences, log_of, namer, run_logged, verdicts_without};
use fairground_sim::measure::parse_assignment;
use fairground_sim::Limits;

fn lesson() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios/clamp-lesson.json")).expect("read")
}

/// On clamp-lesson, A (the wakeup clamp on) and B (off) make the same decisions until the
/// first wakeup check that the wakeup clamp flipped in A; there they part. Every flip's
/// counterfactual is recomputed here by hand from the entry's numbers: without the clamp,
/// v12's `wakeup_preempt_entity()` compares vdiff with offset + wakeup_gran.
#[test]
fn the_first_divergence_is_the_first_decision_the_clamp_flipped() {
    let text = lesson();
    let on = [parse_assignment("scheduler.features.latency_max_clamp_wakeup=true").expect("a")];
    let off = [parse_assignment("scheduler.features.latency_max_clamp_wakeup=false").expect("b")];
    let a = run_logged(&text, &on, &Limits::NATIVE).expect("A");
    let b = run_logged(&text, &off, &Limits::NATIVE).expect("B");
    let (la, lb) = (log_of(&a), log_of(&b));
    let mut first_flip = None;
    for (i, d) in la.iter().enumerate() {
        if let Why::CfsWakeup { vdiff, wakeup_gran, offset, gran, gran_unclamped, latency_max, verdict, .. } = d.why {
            if gran != gran_unclamped {
                // By hand: the clamp bound, so gran = min(offset + wakeup_gran, latency_max).
                assert_eq!(gran, (offset + wakeup_gran).min(latency_max));
                let unclamped = if vdiff < offset { -1 } else { i32::from(vdiff > offset + wakeup_gran) };
                assert_eq!(verdicts_without(&d.why, true).map(|v| v.0), Some(unclamped));
                if (verdict == 1) != (unclamped == 1) && first_flip.is_none() {
                    first_flip = Some(i);
                }
            }
        }
    }
    let first_flip = first_flip.expect("the clamp flips some decision on clamp-lesson");
    let names = namer(&a);
    let d = divergences(la, lb, 5, &names);
    assert_eq!(d.first().map(|x| x.index), Some(first_flip));
    assert!(d[0].a_text.contains("preempts"), "{}", d[0].a_text);
    let impact = clamp_impact(la, a.tasks.len(), a.cpus.len(), true);
    assert!(impact.total.wakeup.flipped > 0 && impact.total.wakeup.flipped <= impact.total.wakeup.bound);
    assert_eq!(impact.total.wakeup, impact.tasks.iter().fold(Default::default(), |mut s: fairground_sim::measure::diverge::SiteCount, t| {
        s.bound += t.wakeup.bound;
        s.flipped += t.wakeup.flipped;
        s
    }));
    assert_eq!(clamp_impact(lb, b.tasks.len(), b.cpus.len(), false).total.wakeup.bound, 0, "no wakeup clamp in B");
}

#[test]
fn identical_runs_do_not_diverge() {
    let text = lesson();
    let a = run_logged(&text, &[], &Limits::NATIVE).expect("A");
    let b = run_logged(&text, &[], &Limits::NATIVE).expect("B");
    assert!(divergences(log_of(&a), log_of(&b), 1, &namer(&a)).is_empty());
}

/// One timeline edit at t: nothing before t can differ.
#[test]
fn a_timeline_edit_diverges_at_or_after_its_time() {
    let text = r#"{"format": "fairground-scenario/1", "name": "edit", "duration_ms": 200, "scheduler": {"policy": "eevdf-v6.12"},
        "tasks": [{"name": "h", "count": 2, "behavior": {"kind": "hog"}},
                  {"name": "p", "behavior": {"kind": "periodic", "period_us": 3000, "run_us": 400}}]}"#;
    let edit = [parse_assignment(r#"timeline=[{"at_us": 73100, "task": "p", "set": {"nice": 10}}]"#).expect("edit")];
    let a = run_logged(text, &[], &Limits::NATIVE).expect("A");
    let b = run_logged(text, &edit, &Limits::NATIVE).expect("B");
    let d = divergences(log_of(&a), log_of(&b), 1, &namer(&a));
    assert_eq!(d.len(), 1, "the edit changes the run");
    assert!(d[0].at_ns >= 73_100_000, "diverged at {} ns", d[0].at_ns);
}

/// The delay table: two hogs at HZ=1000 on one CPU take turns of 3 ms (each stint ends at
/// check_preempt_tick's 3rd tick), so each waits exactly 3 ms every time it is preempted:
/// average and maximum delay 3 ms. A fork's first wait is no delay (contract §1.5: not a
/// wakeup), so the first delay is the first preempted hog's, from 3 ms to 6 ms.
#[test]
fn the_delay_table_of_two_alternating_hogs() {
    use fairground_sim::measure::latency::{delay_table, delay_text};
    let text = r#"{"format": "fairground-scenario/1", "name": "t", "duration_ms": 60, "machine": {"hz": 1000},
        "scheduler": {"policy": "cfs-v6.2"}, "tasks": [{"name": "hog", "count": 2, "behavior": {"kind": "hog"}}]}"#;
    let v = fairground_sim::parse_scenario(text).expect("valid");
    let mut sim = fairground_sim::engine::Sim::new(&v).expect("builds");
    sim.run();
    let rows = delay_table(&sim);
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r.avg_delay_ns, Some(3_000_000), "{}", r.task);
        assert_eq!(r.max_delay_ns, 3_000_000, "{}", r.task);
        assert_eq!(r.runtime_ns, 30_000_000, "{}", r.task);
    }
    let first_waiter = rows.iter().map(|r| r.max_delay_at_ns).min();
    assert_eq!(first_waiter, Some(6_000_000));
    let t = delay_text(&rows, "two hogs");
    assert!(t.contains("Max delay ms") && t.contains("|         3.000 |"), "{t}");
}
