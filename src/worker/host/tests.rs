use super::*;

const S: &str = r#"{ "format": "fairground-scenario/1", "name": "mix", "duration_ms": 400, "seed": 3,
  "machine": { "cpus": 2 },
  "scheduler": { "policy": "latency-nice-v12" },
  "tasks": [ { "name": "hog", "count": 3, "behavior": { "kind": "hog" } },
             { "name": "b", "count": 2, "behavior": { "kind": "bursty", "run_us": { "exp": 200 }, "sleep_us": { "exp": 700 } } },
             { "name": "cyc", "nice": 5, "behavior": { "kind": "periodic", "period_us": 3000, "run_us": 200 } } ] }"#;

/// What the page keeps: the slices, with truncations applied.
#[derive(Default)]
struct Page {
    slices: Vec<WireSlice>,
    last: Progress,
}

impl Page {
    fn take(&mut self, p: Progress) {
        if let Some(n) = p.truncate {
            self.slices.truncate(n as usize);
        }
        self.slices.extend_from_slice(&p.slices);
        self.last = p;
    }
}

fn unlimited() -> Budget<'static> {
    Budget { clock_ms: &|| 0.0, max_ms: f64::INFINITY }
}

/// A clock that advances 1 ms per reading: every answer does a little work only.
fn tiny(counter: &std::cell::Cell<f64>) -> impl Fn() -> f64 + '_ {
    move || {
        counter.set(counter.get() + 1.0);
        counter.get()
    }
}

fn run_to(text: &str, to: u64) -> (Host, Page) {
    let (mut h, _) = Host::load(text).unwrap();
    let mut page = Page::default();
    let w = h.seek(to, &unlimited());
    page.take(h.progress(w));
    (h, page)
}

#[test]
fn small_budgets_reach_the_same_state_as_one_big_step() {
    let (_, whole) = run_to(S, u64::MAX);
    let (mut h, _) = Host::load(S).unwrap();
    let c = std::cell::Cell::new(0.0);
    let clock = tiny(&c);
    let mut page = Page::default();
    let mut answers = 0;
    loop {
        let w = h.seek(u64::MAX, &Budget { clock_ms: &clock, max_ms: 3.0 });
        let p = h.progress(w);
        let done = p.finished;
        page.take(p);
        answers += 1;
        if done {
            break;
        }
        assert!(answers < 100_000);
    }
    assert!(answers >= 3, "the budget did not split the work ({answers} answers)");
    assert_eq!(page.slices, whole.slices);
    assert_eq!(page.last.live, whole.last.live);
    assert_eq!(page.last.view_ns, 400_000_000);
}

/// The warm-up runs a copy: it does the work (within its budget), and the run it was taken
/// from answers exactly as one that was never warmed, at time 0 and later.
#[test]
fn warming_up_runs_a_copy_and_leaves_the_run_as_it_was() {
    let (_, whole) = run_to(S, u64::MAX);
    for at in [0, 123_456_789] {
        let (mut h, mut page) = run_to(S, at);
        let before = h.sim.events;
        let (all, _) = h.warm_up(&unlimited());
        assert!(all > 1_000, "the copy ran to the end: {all} events");
        // The clock reads 1, 2, 3 … (one reading every 256 instants): the first third of the
        // 3 ms budget ends at the second reading, the budget at the fifth.
        let c = std::cell::Cell::new(0.0);
        let (some, ms) = h.warm_up(&Budget { clock_ms: &tiny(&c), max_ms: 3.0 });
        assert_eq!(ms, 3.0, "measured from the mark (2) to the last reading (5)");
        assert!((768..all).contains(&some), "three readings' worth of instants, not the whole copy: {some} of {all} events");
        assert_eq!((h.sim.events, h.view_ns()), (before, at));
        let w = h.seek(u64::MAX, &unlimited());
        page.take(h.progress(w));
        assert_eq!(page.slices, whole.slices);
        assert_eq!(page.last.live, whole.last.live);
    }
}

/// A run shorter than the warm-up is copied again until the budget is spent, and the speed
/// is counted from the first third of the budget on: a lesson's speed is read over as long
/// as a long run's.
#[test]
fn a_short_run_is_warmed_up_again_and_measured_after_the_first_third() {
    let (mut h, _) = Host::load(S).unwrap();
    let (one, _) = h.warm_up(&unlimited());
    // A clock that gains 0.001 ms a reading: a copy of this run (a reading every 256 instants
    // and one at its end) takes about a hundredth of a ms, so a 1 ms budget holds a hundred.
    let c = std::cell::Cell::new(0.0);
    let clock = || {
        c.set(c.get() + 0.001);
        c.get()
    };
    let (events, ms) = h.warm_up(&Budget { clock_ms: &clock, max_ms: 1.0 });
    assert!(events > 10 * one, "several copies after the first third: {events} events, one copy {one}");
    assert!((0.66..0.68).contains(&ms), "two thirds of the budget measured: {ms} ms");
    assert_eq!((h.sim.events, h.view_ns()), (0, 0), "the run itself is untouched");
}

/// A run reopened at its end has nothing left where it stands: the warm-up runs it again from
/// its start, measures that, and leaves the run where it was.
#[test]
fn a_run_at_its_end_is_warmed_up_from_its_start() {
    let (mut h, _) = run_to(S, u64::MAX);
    let end = (h.sim.events, h.view_ns());
    let c = std::cell::Cell::new(0.0);
    let (events, ms) = h.warm_up(&Budget { clock_ms: &tiny(&c), max_ms: 6.0 });
    assert!(events >= 768 && ms >= 3.0, "{events} events in {ms} ms");
    assert_eq!((h.sim.events, h.view_ns()), end);
}

/// A copy from the start is the run as it is now, edits included: run to its end, it
/// processes as many events as the run did.
#[test]
fn a_copy_from_the_start_carries_the_edits() {
    let (mut h, _) = run_to(S, 100_000_000);
    h.edit("hog/0", &EditSet { nice: Some(15), ..Default::default() }).unwrap();
    h.seek(u64::MAX, &unlimited());
    let mut copy = h.copy_from_start().unwrap();
    while copy.step_instant() {}
    assert_eq!(copy.events, h.sim.events);
    let (plain, _) = run_to(S, u64::MAX);
    assert_ne!(plain.copy_from_start().map(|mut c| { while c.step_instant() {} c.events }), Some(h.sim.events), "the edit changes the run");
}

#[test]
fn going_back_gives_the_state_of_a_run_that_stopped_there() {
    for target in [0, 1, 3_999_999, 4_000_000, 123_456_789, 399_999_999] {
        let (_, fresh) = run_to(S, target);
        let (mut h, mut page) = run_to(S, u64::MAX);
        let w = h.seek(target, &unlimited());
        page.take(h.progress(w));
        assert_eq!(page.last.view_ns, target);
        assert_eq!(page.last.live, fresh.last.live, "at {target}");
        assert_eq!(page.last.running, fresh.last.running, "at {target}");
        // The page kept the whole run; nothing was sent twice.
        let (_, whole) = run_to(S, u64::MAX);
        assert_eq!(page.slices, whole.slices);
    }
}

#[test]
fn stepping_back_an_instant_undoes_stepping_forward_one() {
    let (mut h, mut page) = run_to(S, 50_000_000);
    h.step_instant();
    let before = h.progress((0, 0.0));
    h.step_instant();
    page.take(h.progress((0, 0.0)));
    assert!(page.last.view_ns > before.view_ns);
    h.step_back_instant();
    let back = h.progress((0, 0.0));
    assert_eq!(back.view_ns, before.view_ns);
    assert_eq!(back.live, before.live);
    assert_eq!(back.running, before.running);
}

/// "Step one scheduler event" always runs one: no step lands on the instant of a burst's
/// completion that a preemption left queued, where nothing would happen. Two bursts of
/// 9.937 ms take turns at ticks, each turn leaving such a completion behind; the hog keeps
/// the CPU busy, so that even a tick counts an event.
#[test]
fn every_step_runs_a_scheduler_event() {
    const CUT: &str = r#"{ "format": "fairground-scenario/1", "name": "cut", "duration_ms": 300,
      "scheduler": { "policy": "cfs-v6.2" },
      "tasks": [ { "name": "b", "count": 2, "behavior": { "kind": "bursty", "run_us": 9937, "sleep_us": 1013 } },
                 { "name": "hog", "nice": 19, "behavior": { "kind": "hog" } } ] }"#;
    let (mut h, _) = run_to(CUT, 0);
    let (mut steps, mut empty) = (0, Vec::new());
    while h.sim.next_instant().is_some() {
        let before = h.sim.events;
        h.step_instant();
        steps += 1;
        if h.sim.events == before {
            empty.push(h.view_ns);
        }
    }
    assert!(steps > 100, "{steps} steps");
    assert!(empty.is_empty(), "{} steps ran no event, the first at {:?} ns", empty.len(), &empty[..empty.len().min(5)]);
}

#[test]
fn an_edit_is_recorded_and_its_scenario_replays_the_same_run() {
    let (mut h, mut page) = run_to(S, u64::MAX);
    // Back to 100 ms, then change a task: the future the page saw is dropped.
    let w = h.seek(100_000_000, &unlimited());
    page.take(h.progress(w));
    let (text, at) = h.edit("cyc", &EditSet { latency_nice: Some(-20), nice: Some(-5), slice_us: None }).unwrap();
    assert_eq!(at, 100_001_000);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["timeline"][0]["at_us"], 100_001);
    assert_eq!(v["timeline"][0]["task"], "cyc");
    page.take(h.progress((0, 0.0)));
    assert!(page.slices.iter().all(|s| s.end_ns <= 100_000_000));
    let w = h.seek(u64::MAX, &unlimited());
    page.take(h.progress(w));

    // The recorded scenario, run from scratch, is the same run.
    let (_, replay) = run_to(&text, u64::MAX);
    assert_eq!(page.slices, replay.slices);
    assert_eq!(page.last.live, replay.last.live);
    // And the edit mattered.
    let (_, base) = run_to(S, u64::MAX);
    assert_ne!(base.last.live, replay.last.live);

    // Going back before the edit and forward again still applies it.
    let w = h.seek(20_000_000, &unlimited());
    page.take(h.progress(w));
    let w = h.seek(u64::MAX, &unlimited());
    page.take(h.progress(w));
    assert_eq!(page.last.live, replay.last.live);
}

#[test]
fn edits_are_refused_with_a_reason() {
    let (mut h, _) = run_to(S, u64::MAX);
    assert!(h.edit("cyc", &EditSet::default()).unwrap_err().contains("over"));
    let (mut h, _) = run_to(S, 1_000_000);
    assert!(h.edit("nobody", &EditSet::default()).unwrap_err().contains("nobody"));
    assert!(h.edit("cyc", &EditSet { nice: Some(40), ..EditSet::default() }).unwrap_err().contains("-20..=19"));
}

#[test]
fn refusals_are_messages() {
    assert!(Host::load("{").is_err());
    // Refused on cost in the browser (contract §1.1): the message gives the estimate.
    let e = Host::load(r#"{ "format": "fairground-scenario/1", "name": "x", "duration_ms": 600000, "scheduler": { "policy": "cfs-v6.2" },
        "tasks": [ { "name": "p", "count": 4096, "behavior": { "kind": "periodic", "period_us": 10, "run_us": 1 } } ] }"#);
    assert!(e.err().is_some_and(|m| m.contains("event")));
}

#[test]
fn many_checkpoints_are_thinned() {
    let (mut h, _) = Host::load(&S.replace("\"duration_ms\": 400", "\"duration_ms\": 20000")).unwrap();
    h.cp_every = 1000;
    h.seek(u64::MAX, &unlimited());
    assert!(h.checkpoints.len() <= MAX_CHECKPOINTS);
    assert!(h.checkpoints.windows(2).all(|w| w[0].upto < w[1].upto));
    let (_, fresh) = run_to(&S.replace("\"duration_ms\": 400", "\"duration_ms\": 20000"), 7_777_777_777);
    let w = h.seek(7_777_777_777, &unlimited());
    assert_eq!(h.progress(w).live, fresh.last.live);
}

#[test]
fn a_slice_edit_under_eevdf_v612_shows_in_the_live_figures() {
    let text = S.replace("latency-nice-v12", "eevdf-v6.12");
    let (mut h, _) = run_to(&text, 10_000_000);
    assert_eq!(h.progress((0, 0.0)).live[5].slice_us, None);
    h.edit("cyc", &EditSet { slice_us: Some(100), ..EditSet::default() }).unwrap();
    let w = h.seek(20_000_000, &unlimited());
    assert_eq!(h.progress(w).live[5].slice_us, Some(100));
    // Back before the edit: the default slice again.
    let w = h.seek(5_000_000, &unlimited());
    assert_eq!(h.progress(w).live[5].slice_us, None);
}

#[test]
fn workload_tasks_say_what_they_are() {
    let text = r#"{ "format": "fairground-scenario/1", "name": "hb", "duration_ms": 20, "machine": { "cpus": 2 },
        "scheduler": { "policy": "cfs-v6.2" },
        "workloads": [ { "kind": "hackbench", "name": "hb", "groups": 1, "fds": 2, "loops": 10 } ] }"#;
    let (mut h, info) = Host::load(text).unwrap();
    assert_eq!(info.tasks[0].name, "hb/sender0");
    assert_eq!(info.tasks[0].behaviour, "hackbench sender");
    assert!(info.tasks.iter().any(|t| t.behaviour == "hackbench receiver"));
    let w = h.seek(u64::MAX, &unlimited());
    let p = h.progress(w);
    assert!(p.finished && !p.slices.is_empty());
}

/// A run the core stops goes no further: a seek past the stop ends at the last instant
/// before it, not finished, with the reason in every answer; going back and forth works and
/// stops at the same place again (the run is deterministic).
#[test]
fn a_stopped_run_stays_stopped_and_rewinds() {
    let (mut h, _) = Host::load(S).unwrap();
    h.stage_runaway(50_000_000);
    h.seek(400_000_000, &unlimited());
    let p = h.progress((0, 0.0));
    assert!(p.view_ns < 50_000_000 && p.view_ns > 40_000_000, "stopped at {}", p.view_ns);
    assert!(!p.finished);
    assert!(p.stopped.as_deref().is_some_and(|m| m.contains("staged for testing")), "{:?}", p.stopped);
    let stop = p.view_ns;
    h.seek(10_000_000, &unlimited());
    let p = h.progress((0, 0.0));
    assert_eq!((p.view_ns, p.stopped.is_some()), (10_000_000, false), "before the stop the run is fine");
    h.seek(400_000_000, &unlimited());
    assert_eq!(h.progress((0, 0.0)).view_ns, stop);
}
