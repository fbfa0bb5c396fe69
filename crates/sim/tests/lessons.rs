//! Lessons and exercises (issue 10): the format's validation and round trip, generated
//! exercises whose answers agree with the engine (checked another way) for many seeds, and
//! the shipped lessons: every question answered and every number filled from the run.

use fairground_sim::engine::Sim;
use fairground_sim::lesson::exercise::{generate, Kind};
use fairground_sim::lesson::{answer, render_text};
use fairground_sim::parse_scenario;
use fairground_sim::scenario::to_json;
use fairground_sim::weights::scale_load_down;

fn sim_at(scenario: &str, at_ns: u64) -> Sim {
    let v = parse_scenario(scenario).expect("valid");
    let mut s = Sim::new(&v).expect("sim");
    s.run_until(at_ns);
    s
}

#[test]
fn cfs_pick_answers_match_the_next_switch() {
    for seed in 0..40 {
        let ex = generate(Kind::CfsPick, seed).expect("exercise");
        let at = parse_scenario(&ex.scenario).expect("valid").scenario.lesson.expect("lesson").steps[0].at_ns;
        // Another way: step until CPU 0 runs a different task than it ran before `at`.
        let mut s = sim_at(&ex.scenario, at);
        let before = s.cpus[0].curr;
        let next = loop {
            assert!(s.step_instant(), "seed {seed}: no switch before the end");
            if s.cpus[0].curr != before && s.cpus[0].curr != u32::MAX {
                break s.tasks[s.cpus[0].curr as usize].name.clone();
            }
        };
        assert_eq!(ex.answer.value, next, "seed {seed}: {}", ex.answer.explanation);
        assert!(ex.choices.contains(&next));
    }
}

#[test]
fn wakeup_clamp_answers_match_the_preemption_counter() {
    let mut seen = (0, 0);
    for seed in 0..40 {
        let ex = generate(Kind::WakeupClamp, seed).expect("exercise");
        // Another way: at the instant of that wakeup, did W's wakeup win it a preemption?
        let mut s = sim_at(&ex.scenario, ex.answer.at_ns);
        let w = s.tasks.iter().position(|t| t.name == "W").expect("W");
        let before = s.tasks[w].stats.wakeup_preemptions;
        s.step_instant();
        let preempted = s.tasks[w].stats.wakeup_preemptions > before;
        assert_eq!(ex.answer.value == "yes", preempted, "seed {seed}: {}", ex.answer.explanation);
        if preempted {
            seen.0 += 1
        } else {
            seen.1 += 1
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0, "both answers occur: {seen:?}");
}

#[test]
fn eevdf_eligibility_answers_match_a_brute_force_mean() {
    let mut seen = (0, 0);
    for seed in 0..40 {
        let ex = generate(Kind::EevdfEligibility, seed).expect("exercise");
        let v = parse_scenario(&ex.scenario).expect("valid");
        let step = &v.scenario.lesson.as_ref().expect("lesson").steps[0];
        // The state the page shows at the step's time: that instant's events processed.
        let mut s = sim_at(&ex.scenario, step.at_ns);
        s.run_through(step.at_ns);
        let who = match &step.question.as_ref().expect("q").kind {
            fairground_sim::scenario::QuestionKind::Eligible { task } => task.clone(),
            _ => unreachable!(),
        };
        let i = s.tasks.iter().position(|t| t.name == who).expect("task");
        let f = &s.fair;
        let e = &f.ents[i];
        // Eligible ⇔ v ≤ the weighted mean of the queued entities' vruntimes (exact, in i128,
        // relative to min_vruntime).
        let q = e.cfs_rq as usize;
        let base = f.cfs_rqs[q].min_vruntime;
        let queued: Vec<usize> = (0..s.tasks.len()).filter(|&j| f.ents[j].on_rq && f.ents[j].cfs_rq as usize == q).collect();
        let w = |j: usize| scale_load_down(f.ents[j].load.weight) as i128;
        let key = |j: usize| f.ents[j].vruntime.wrapping_sub(base) as i64 as i128;
        let eligible = e.on_rq && queued.iter().map(|&j| w(j) * key(j)).sum::<i128>() >= key(i) * queued.iter().map(|&j| w(j)).sum::<i128>();
        assert_eq!(ex.answer.value == "yes", eligible, "seed {seed}: {}", ex.answer.explanation);
        if eligible {
            seen.0 += 1
        } else {
            seen.1 += 1
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0, "both answers occur: {seen:?}");
}

#[test]
fn same_seed_same_exercise() {
    let (a, b) = (generate(Kind::CfsPick, 7).expect("a"), generate(Kind::CfsPick, 7).expect("b"));
    assert_eq!((a.scenario, a.answer), (b.scenario, b.answer));
}

/// Each shipped scenario with a lesson: its path, the validated scenario and the lesson.
fn shipped_lessons() -> Vec<(std::path::PathBuf, fairground_sim::scenario::Validated, fairground_sim::scenario::Lesson)> {
    let dir = format!("{}/../../static/scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("dir") {
        let path = entry.expect("entry").path();
        let v = parse_scenario(&std::fs::read_to_string(&path).expect("read")).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(l) = v.scenario.lesson.clone() {
            out.push((path, v, l));
        }
    }
    out
}

const BASE: &str = r#""format": "fairground-scenario/1", "name": "l", "duration_ms": 100, "scheduler": { "policy": "cfs-v6.2" },
    "tasks": [ { "name": "a", "behavior": { "kind": "hog" } }, { "name": "b", "behavior": { "kind": "hog" } } ]"#;

#[test]
fn lesson_format_validates_and_round_trips() {
    let text = format!(
        r#"{{ {BASE}, "lesson": {{ "title": "t", "steps": [
            {{ "text": "a {{{{share a}}}}", "at_us": 5000, "highlight": [ {{ "task": "a" }}, {{ "cpu": 0 }}, {{ "tree": 0 }}, {{ "decision": "tick" }}, {{ "histogram": "b" }} ],
               "question": {{ "ask": "next?", "kind": "next_task", "cpu": 0 }} }} ] }} }}"#
    );
    let v = parse_scenario(&text).expect("valid");
    let back = parse_scenario(&to_json(&v.scenario).to_string()).expect("round trip");
    assert_eq!(v.scenario, back.scenario);
    for (bad, path) in [
        (r#"{ "text": "x", "at_us": 1, "highlight": [ { "task": "zz" } ] }"#, "lesson.steps[0].highlight[0]"),
        (r#"{ "text": "x", "at_us": 1, "highlight": [ { "cpu": 3 } ] }"#, "lesson.steps[0].highlight[0]"),
        (r#"{ "text": "x", "at_us": 500000 }"#, "lesson.steps[0].at_us"),
        (r#"{ "text": "x", "question": { "ask": "?", "kind": "eligible", "task": "a" } }"#, "lesson.steps[0].question.kind"),
        (r#"{ "text": "x", "question": { "ask": "?", "kind": "guess" } }"#, "lesson.steps[0].question.kind"),
        (r#"{ "at_us": 1 }"#, "lesson.steps[0]"),
    ] {
        let e = parse_scenario(&format!(r#"{{ {BASE}, "lesson": {{ "steps": [ {bad} ] }} }}"#)).expect_err(bad);
        assert_eq!(e.path, path, "{bad}: {e}");
    }
}

#[test]
fn shipped_lessons_answer_every_question_and_fill_every_number() {
    let mut lessons = 0;
    for (path, v, lesson) in shipped_lessons() {
        lessons += 1;
        let mut sim = Sim::new(&v).expect("sim");
        sim.run();
        let report = sim.report();
        for (i, st) in lesson.steps.iter().enumerate() {
            render_text(&st.text, &report).unwrap_or_else(|e| panic!("{} step {i}: {e}", path.display()));
            if st.question.is_some() {
                let a = answer(&v, st).expect("runs").unwrap_or_else(|| panic!("{} step {i}: no answer", path.display()));
                assert!(!a.explanation.is_empty());
            }
        }
    }
    assert!(lessons >= 3, "the lesson series ships: {lessons}");
}

/// Lesson 2's last step tells the student what switching the clamp off does; hold it to it.
#[test]
fn lesson_two_claim_about_the_clamp_holds() {
    let text = std::fs::read_to_string(format!("{}/../../static/scenarios/lesson-2-wakeup-clamp.json", env!("CARGO_MANIFEST_DIR"))).expect("lesson");
    let run = |t: &str| {
        let mut s = Sim::new(&parse_scenario(t).expect("valid")).expect("sim");
        s.run();
        s.report().tasks.into_iter().find(|t| t.name == "W").expect("W")
    };
    let on = run(&text);
    let off = run(&text.replace("\"latency_max_clamp_wakeup\": true", "\"latency_max_clamp_wakeup\": false"));
    assert!(off.wakeup_preemptions < on.wakeup_preemptions);
    assert_eq!(on.wakeup_latency_ns.p90, Some(0));
    let p90 = off.wakeup_latency_ns.p90.expect("samples");
    assert!(p90 > 0 && p90 <= 1_000_000, "waits for the next tick (1 ms at HZ=1000): {p90}");
}

/// Lesson 4's last step: at nice 10 the sleeper's wakeup granularity (1 ms × 1024/110 ≈ 9.3 ms)
/// exceeds its 3 ms sleeper credit, so it stops preempting the hogs.
#[test]
fn lesson_four_claim_about_nice_holds() {
    let text = std::fs::read_to_string(format!("{}/../../static/scenarios/lesson-4-sleeper-credit.json", env!("CARGO_MANIFEST_DIR"))).expect("lesson");
    let run = |nice: i32| {
        let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
        v["tasks"][2]["nice"] = nice.into();
        let mut s = Sim::new(&parse_scenario(&v.to_string()).expect("valid")).expect("sim");
        s.run();
        s.report().tasks.into_iter().find(|t| t.name == "S").expect("S")
    };
    let (n0, n10) = (run(0), run(10));
    assert_eq!(n0.wakeup_preemptions, n0.wakeups, "every wakeup preempts at nice 0");
    assert!(n10.wakeup_preemptions * 4 < n0.wakeup_preemptions, "{} vs {}", n10.wakeup_preemptions, n0.wakeup_preemptions);
}

/// Lesson 3, step 2 asks whether B is eligible "at this moment", 25 ms, when a tick falls at
/// 25 ms: the answer is about the state after that tick, the one the tree view shows then, so
/// it agrees with B's lag there (eligible ⇔ lag ≥ 0).
#[test]
fn lesson_3s_eligibility_answer_is_about_the_state_on_screen() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios/lesson-3-eevdf-lag.json")).expect("shipped");
    let v = parse_scenario(&text).expect("valid");
    let step = v.scenario.lesson.as_ref().expect("lesson").steps.iter().find(|s| s.question.is_some()).expect("a question").clone();
    let a = fairground_sim::lesson::answer(&v, &step).expect("answers").expect("an answer");
    let mut s = Sim::new(&v).expect("sim");
    s.run_through(step.at_ns);
    let b = s.tasks.iter().position(|t| t.name == "B").expect("B") as u32;
    let e = fairground_sim::eevdf::view::entity_state(&s.fair, b);
    assert_eq!(a.value == "yes", e.on_rq && e.lag >= 0, "{}; B's lag on screen {}", a.explanation, e.lag);
    assert!(a.explanation.contains(&format!("{:.3} ms", e.lag as f64 / 1e6)), "{}", a.explanation);
}

/// docs/lessons.md's example is a valid lesson whose placeholders fill, and a misspelt switch
/// is named with its step and field, as the page says.
#[test]
fn the_authoring_guides_example_runs_and_its_errors_name_step_and_field() {
    let doc = include_str!("../../../docs/lessons.md");
    let start = doc.find("```jsonc\n").expect("the example") + "```jsonc\n".len();
    let example = &doc[start..start + doc[start..].find("```").expect("its end")];
    let v = parse_scenario(example).expect("the example is valid");
    let lesson = v.scenario.lesson.as_ref().expect("a lesson");
    assert_eq!(lesson.steps.len(), 3);
    let mut sim = Sim::new(&v).expect("sim");
    sim.run();
    let report = sim.report();
    for s in &lesson.steps {
        let text = render_text(&s.text, &report).expect("placeholders fill");
        assert!(!text.contains("{{"), "{text}");
    }
    assert!(answer(&v, &lesson.steps[1]).expect("answers").is_some());
    let bad = example.replace("\"switch\": \"latency_max_clamp_offset\"", "\"switch\": \"latency_clamp\"");
    let e = parse_scenario(&bad).expect_err("an unknown switch");
    assert_eq!(e.path, "lesson.steps[2].highlight[1].switch");
    assert!(e.message.contains("no scheduler feature named \"latency_clamp\""), "{}", e.message);
}

/// Lesson 5 stages a moment where a latency-sensitive task waits in latency_timeline, and the
/// pick that follows comes from that tree: M, queued after N at the same vruntime, runs first.
#[test]
fn lesson_5_shows_a_task_waiting_in_latency_timeline_and_picked_from_it() {
    use fairground_sim::explain::{PickFrom, Why};
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/scenarios/lesson-5-latency-nice.json")).expect("shipped");
    let v = parse_scenario(&text).expect("valid");
    let lesson = v.scenario.lesson.as_ref().expect("a lesson");
    let step = lesson.steps.iter().find(|s| s.text.contains("also in `latency_timeline`")).expect("the step about latency_timeline");
    let mut sim = Sim::new(&v).expect("sim");
    sim.fair.enable_log();
    sim.run_through(step.at_ns);
    let view = fairground_sim::view::rq_view(&sim.fair, 0);
    let waiting: Vec<String> = view.latency_timeline.nodes.iter().map(|n| sim.tasks[n.0 as usize].name.clone()).collect();
    assert_eq!(waiting, ["M"], "latency_timeline at the step");
    let a = answer(&v, step).expect("answers").expect("a question");
    assert_eq!(a.value, "M");
    let log = sim.fair.log.clone().unwrap_or_default();
    let mut more = sim;
    more.run_through(a.at_ns);
    let pick = more.fair.log.as_deref().unwrap_or_default()[log.len()..].iter().find(|d| matches!(d.why, Why::Pick { .. })).copied().expect("the pick");
    assert!(matches!(pick.why, Why::Pick { from: PickFrom::LatencyTree, .. }), "{:?}", pick.why);
}

/// A step's "Try it" action: validated where it is written (the step, the action, the
/// assignment), round-tripped, and refused when it would make a scenario the simulator refuses.
#[test]
fn try_it_actions_validate_round_trip_and_name_what_is_wrong() {
    let ok = r#"{ "text": "x", "at_us": 1, "try": [ { "label": "b to nice 0", "set": [ "tasks[1].nice=0", "scheduler.features.next_buddy=true" ] } ] }"#;
    let v = parse_scenario(&format!(r#"{{ {BASE}, "lesson": {{ "steps": [ {ok} ] }} }}"#)).expect("valid");
    let back = parse_scenario(&to_json(&v.scenario).to_string()).expect("round trip");
    assert_eq!(v.scenario, back.scenario);
    let t = &v.scenario.lesson.as_ref().expect("lesson").steps[0].tries[0];
    let doc = fairground_sim::scenario::try_it(&v.scenario, t).expect("applies");
    assert_eq!(doc["tasks"][1]["nice"], 0);
    assert_eq!(doc["lesson"]["steps"][0]["try"][0]["label"], "b to nice 0", "the class goes on with the lesson");
    for (bad, path, says) in [
        (r#"{ "text": "x", "try": [ { "set": [ "tasks[1].nice=0" ] } ] }"#, "lesson.steps[0].try[0]", "label"),
        (r#"{ "text": "x", "try": [ { "label": "l", "set": [ "nice0" ] } ] }"#, "lesson.steps[0].try[0].set[0]", "path=value"),
        (r#"{ "text": "x", "try": [ { "label": "l", "set": [] } ] }"#, "lesson.steps[0].try[0].set", "1 to 8"),
        (r#"{ "text": "x", "try": [ { "label": "l", "set": [ "tasks[0].nice=0" ], "then": 1 } ] }"#, "lesson.steps[0].try[0].then", "label, set"),
    ] {
        let e = parse_scenario(&format!(r#"{{ {BASE}, "lesson": {{ "steps": [ {bad} ] }} }}"#)).expect_err(bad);
        assert_eq!(e.path, path, "{bad}: {e}");
        assert!(e.to_string().contains(says), "{bad}: {e}");
    }
    // What an action does to the scenario is checked by running the parser on the result.
    for (bad, says) in [(r#"{ "label": "too nice", "set": [ "tasks[1].nice=99" ] }"#, "too nice"), (r#"{ "label": "l", "set": [ "tasks[7].nice=0" ] }"#, "no [7]")] {
        let ok = r#"{ "label": "fine", "set": [ "tasks[1].nice=1" ] }"#;
        let v = parse_scenario(&format!(r#"{{ {BASE}, "lesson": {{ "steps": [ {{ "text": "x" }}, {{ "text": "y", "try": [ {ok}, {bad} ] }} ] }} }}"#)).expect("parses");
        let e = fairground_sim::scenario::check_tries(&v.scenario).expect_err(bad);
        assert_eq!(e.path, "lesson.steps[1].try[1].set", "{bad}: {e}");
        assert!(e.to_string().contains(says), "{bad}: {e}");
    }
}

/// Every shipped "Try it" makes a valid scenario that changes at least one figure its step
/// shows; lesson 1's (B from nice 5 to nice 0) moves the shares from the weights' ratio
/// 1024 : 335 (A 75.3 %, B 24.7 %) to an even split. The run is 200 ms at HZ 1000, and a slice
/// ends at the first tick past sched_slice() (4 ms at the even split), so the two differ by at
/// most one slice: each share is within 2 ms / 200 ms = 0.01 of its ratio.
#[test]
fn shipped_try_it_actions_change_the_figures_their_step_shows() {
    let report = |v: &fairground_sim::scenario::Validated| {
        let mut s = Sim::new(v).expect("sim");
        s.run();
        s.report()
    };
    let mut tries = 0;
    for (path, v, lesson) in shipped_lessons() {
        let before = report(&v);
        for st in lesson.steps.iter() {
            for t in &st.tries {
                tries += 1;
                let doc = fairground_sim::scenario::try_it(&v.scenario, t).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let after = report(&parse_scenario(&doc.to_string()).expect("valid"));
                let (b, a) = (fairground_sim::lesson::figures(&st.text, &before).expect("b"), fairground_sim::lesson::figures(&st.text, &after).expect("a"));
                assert!(!b.is_empty(), "{}: the step shows figures", path.display());
                assert_ne!(a, b, "{}: \"{}\" changes what the step shows", path.display(), t.label);
                if path.ends_with("lesson-1-vruntime.json") {
                    let share = |r: &fairground_sim::report::Report, n: &str| r.tasks.iter().find(|t| t.name == n).expect("task").share;
                    assert!((share(&before, "B") - 335.0 / 1359.0).abs() <= 0.01, "{}", share(&before, "B"));
                    assert!((share(&after, "B") - 0.5).abs() <= 0.01 && (share(&after, "A") - 0.5).abs() <= 0.01, "{}", share(&after, "B"));
                }
            }
        }
    }
    assert!(tries >= 5, "each shipped lesson carries a Try it: {tries}");
}

/// The card's figures for task `name`: (weight, state, vruntime − min_vruntime in ns).
fn card_task(text: &str, name: &str) -> Option<(i128, String, i128)> {
    let line = text.split("\n\n").find(|l| l.starts_with(&format!("**{name}**:")))?;
    let weight = line.split("weight ").nth(1)?.split(';').next()?.trim().parse().ok()?;
    let state = line.split("; ").nth(1)?.to_string();
    let key = line.split("= ").last()?.trim_end_matches(" ms").trim_end_matches(" ms (now)");
    let key: f64 = key.trim_end_matches(" ms").parse().ok()?;
    Some((weight, state, (key * 1e6).round() as i128))
}

/// An EEVDF eligibility exercise's card carries what the answer depends on: from the card's
/// weights and keys alone, Σ w·key ≥ key × Σ w over the queued tasks (entity_eligible()) gives
/// the simulation's answer, for every seed. And the card never states the answer.
#[test]
fn an_eligibility_card_carries_the_figures_its_answer_depends_on() {
    for seed in 0..40 {
        let ex = generate(Kind::EevdfEligibility, seed).expect("exercise");
        let v = parse_scenario(&ex.scenario).expect("valid");
        let st = &v.scenario.lesson.as_ref().expect("lesson").steps[0];
        assert!(!st.text.contains("eligible") && !st.text.contains(&ex.question), "seed {seed}: the card gives nothing away and does not repeat the question: {}", st.text);
        assert!(st.hint.as_deref().is_some_and(|h| h.contains("entity_eligible()")), "seed {seed}: a hint naming the rule");
        let tasks: Vec<(i128, String, i128)> = ["A", "B", "C"].iter().map(|n| card_task(&st.text, n).unwrap_or_else(|| panic!("seed {seed}: {n} on the card: {}", st.text))).collect();
        let who = ex.question.split(' ').nth(1).expect("Is X eligible");
        let me = &tasks[(who.as_bytes()[0] - b'A') as usize];
        let counted = |s: &str| s.starts_with("running") || s.starts_with("queued") || s.contains("still queued");
        let (sum, load) = tasks.iter().filter(|t| counted(&t.1)).fold((0i128, 0i128), |(s, l), t| (s + t.0 * t.2, l + t.0));
        let eligible = counted(&me.1) && sum >= me.2 * load;
        assert_eq!(ex.answer.value == "yes", eligible, "seed {seed}: card {} / answer {}", st.text, ex.answer.explanation);
        if counted(&me.1) {
            assert!(ex.answer.explanation.contains("Worked"), "seed {seed}: a worked solution: {}", ex.answer.explanation);
        }
    }
}

/// A wakeup-clamp exercise's card: W's weight (asleep or not), the vdiff at its wakeup, the
/// granularity sysctl, get_latency_max() and whether the clamp is on. From those alone,
/// vdiff > min(1 ms × 1024 / w, get_latency_max() if the clamp is on) gives the answer; and the
/// worked solution names the clamp, on or off, as the scenario has it.
#[test]
fn a_wakeup_clamp_card_carries_the_figures_its_answer_depends_on() {
    let num = |text: &str, after: &str| -> f64 {
        let s = text.split(after).nth(1).unwrap_or_else(|| panic!("{after:?} in {text}"));
        s.trim_start().split(' ').next().expect("number").trim_start_matches('+').parse().unwrap_or_else(|e| panic!("{after:?}: {e} in {text}"))
    };
    let mut decided = 0;
    for seed in 0..40 {
        let ex = generate(Kind::WakeupClamp, seed).expect("exercise");
        let v = parse_scenario(&ex.scenario).expect("valid");
        let st = &v.scenario.lesson.as_ref().expect("lesson").steps[0];
        let clamp = v.scenario.scheduler.features.latency_max_clamp_wakeup.expect("the exercise sets the clamp");
        assert!(st.text.contains(&format!("latency_max_clamp_wakeup is {}", if clamp { "on" } else { "off" })), "seed {seed}: {}", st.text);
        let (w, _, _) = card_task(&st.text, "W").unwrap_or_else(|| panic!("seed {seed}: W on the card: {}", st.text));
        let vdiff = (num(&st.text, "after place_entity() =") * 1e6).round();
        let gran_sysctl = num(&st.text, "sysctl_sched_wakeup_granularity =") * 1e6;
        let latency_max = num(&st.text, "get_latency_max() =") * 1e6;
        let mut gran = (gran_sysctl * 1024.0 / w as f64).floor();
        if clamp {
            gran = gran.min(latency_max);
        }
        // The card's figures are rounded to the ns (latency_max to the µs): leave out the rare
        // wakeup whose vdiff is within that of the granularity.
        if (vdiff - gran).abs() > 1000.0 {
            decided += 1;
            assert_eq!(ex.answer.value == "yes", vdiff > gran, "seed {seed}: card {} / answer {}", st.text, ex.answer.explanation);
        }
        let named = format!("the wakeup clamp (latency_max_clamp_wakeup) is {}", if clamp { "on" } else { "off" });
        assert!(ex.answer.explanation.contains(&named), "seed {seed}: {}", ex.answer.explanation);
    }
    assert!(decided >= 30, "most wakeups are decided by more than rounding: {decided}");
}

/// Every question of every shipped lesson is about the state the page shows at its step: the
/// step's instant processed. "Next" (a pick, a wakeup check) is decided after that instant,
/// never at it (the page would already show it happened); an eligibility quotes the lag the
/// tree shows then.
#[test]
fn every_shipped_answer_is_about_the_state_on_screen() {
    let mut asked = 0;
    for (path, v, lesson) in shipped_lessons() {
        for (i, st) in lesson.steps.iter().enumerate() {
            let Some(q) = &st.question else { continue };
            asked += 1;
            let a = answer(&v, st).expect("runs").unwrap_or_else(|| panic!("{} step {i}: no answer", path.display()));
            match &q.kind {
                fairground_sim::scenario::QuestionKind::Eligible { task } => {
                    let mut s = Sim::new(&v).expect("sim");
                    s.run_through(st.at_ns);
                    let t = s.tasks.iter().position(|x| &x.name == task).expect("task") as u32;
                    let e = fairground_sim::eevdf::view::entity_state(&s.fair, t);
                    assert!(a.explanation.contains(&format!("{:.3} ms", e.lag as f64 / 1e6)), "{} step {i}: {}", path.display(), a.explanation);
                }
                _ => assert!(a.at_ns > st.at_ns, "{} step {i}: decided at {} ns, the step shows {} ns", path.display(), a.at_ns, st.at_ns),
            }
        }
    }
    assert!(asked >= 5, "the shipped lessons ask: {asked}");
}

/// A step placed exactly at a pick: the page shows that pick done (the instant processed), so
/// "which task runs next" is the pick after it, not the one on screen.
#[test]
fn a_step_at_a_pick_asks_about_the_next_one() {
    let plain = format!(r#"{{ {BASE} }}"#);
    let mut s = Sim::new(&parse_scenario(&plain).expect("valid")).expect("sim");
    s.fair.enable_log();
    s.run();
    let picks: Vec<u64> = s.fair.log.as_ref().expect("log").iter().filter(|d| matches!(d.why, fairground_sim::explain::Why::Pick { .. })).map(|d| d.at_ns).filter(|&t| t > 0).collect();
    let (t0, t1) = (picks[0], *picks.iter().find(|&&t| t > picks[0]).expect("a second pick"));
    let text = format!(r#"{{ {BASE}, "lesson": {{ "steps": [ {{ "text": "x", "at_us": {}, "question": {{ "ask": "next?", "kind": "next_task", "cpu": 0 }} }} ] }} }}"#, t0 / 1000);
    assert_eq!(t0 % 1000, 0, "picks fall on ticks, whole µs");
    let v = parse_scenario(&text).expect("valid");
    let a = answer(&v, &v.scenario.lesson.as_ref().expect("lesson").steps[0]).expect("runs").expect("an answer");
    assert_eq!(a.at_ns, t1, "the pick after the one at {t0} ns");
}
