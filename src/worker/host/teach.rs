//! Lessons and exercises on the worker side: the page gets a lesson's texts with
//! the figures filled from this run, and asks the worker to check a choice. Answers come from
//! the core (`fairground_sim::lesson`), which runs the scenario as it is now, edits included;
//! the page never holds an answer before the student has chosen.

use fairground_sim::engine::Sim;
use fairground_sim::lesson::{self, exercise};
use fairground_sim::scenario::{self, Highlight, QuestionKind, Validated};

use super::Host;
use crate::wire::proto::{LessonInfo, StepInfo, Verdict};

impl Host {
    fn validated(&self) -> Validated {
        Validated { scenario: self.scenario.clone(), warnings: Vec::new() }
    }

    /// The lesson of the scenario as it is now, each step's `{{figure TASK}}` filled from a
    /// full run of it. A placeholder that cannot be filled leaves the text as written, with a
    /// note naming the problem (the rest of the lesson still works).
    pub fn lesson(&self) -> Result<Option<LessonInfo>, String> {
        let Some(l) = &self.scenario.lesson else { return Ok(None) };
        scenario::check_tries(&self.scenario).map_err(|e| e.to_string())?;
        let v = self.validated();
        let mut sim = Sim::new(&v).map_err(|e| e.to_string())?;
        sim.run();
        let report = sim.report();
        let names: Vec<String> = scenario::expand(&self.scenario).iter().map(|t| t.name.clone()).collect();
        let steps = l
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = match lesson::render_text(&s.text, &report) {
                    Ok(t) => t,
                    Err(e) => format!("{}\n\n(Step {}: a figure could not be filled from the run: {e}.)", s.text, i + 1),
                };
                let highlight = s
                    .highlight
                    .iter()
                    .map(|h| match h {
                        Highlight::Task(n) => ("task".to_string(), n.clone()),
                        Highlight::Cpu(c) => ("cpu".to_string(), c.to_string()),
                        Highlight::Tree(c) => ("tree".to_string(), c.to_string()),
                        Highlight::Decision(d) => ("decision".to_string(), d.clone()),
                        Highlight::Histogram(n) => ("histogram".to_string(), n.clone()),
                        Highlight::Switch(n) => ("switch".to_string(), n.clone()),
                    })
                    .collect();
                let choices = match s.question.as_ref().map(|q| &q.kind) {
                    Some(QuestionKind::NextTask { .. }) => names.clone(),
                    Some(_) => vec!["yes".to_string(), "no".to_string()],
                    None => Vec::new(),
                };
                let tries = s.tries.iter().map(|t| (t.label.clone(), t.set.clone())).collect();
                let figures = lesson::figures(&s.text, &report).unwrap_or_default();
                StepInfo { text, at_ns: s.at_ns, highlight, ask: s.question.as_ref().map(|q| q.ask.clone()), choices, tries, figures, hint: s.hint.clone() }
            })
            .collect();
        Ok(Some(LessonInfo { title: l.title.clone(), steps }))
    }

    /// The scenario text step `step`'s "Try it" action `k` makes (the lesson kept), for the
    /// page to load like any edit.
    pub fn try_it(&self, step: u32, k: u32) -> Result<String, String> {
        let l = self.scenario.lesson.as_ref().ok_or("this scenario has no lesson")?;
        let t = l.steps.get(step as usize).and_then(|s| s.tries.get(k as usize)).ok_or_else(|| format!("step {} has no action {}", step as u64 + 1, k as u64 + 1))?;
        scenario::try_it(&self.scenario, t).map(|doc| doc.to_string())
    }

    /// The simulation's answer to step `step`'s question, compared with `choice`.
    pub fn check(&self, step: u32, choice: &str) -> Result<Verdict, String> {
        let l = self.scenario.lesson.as_ref().ok_or("this scenario has no lesson")?;
        let s = l
            .steps
            .get(step as usize)
            .ok_or_else(|| format!("step {} does not exist: the lesson has {} steps", step as u64 + 1, l.steps.len()))?;
        if s.question.is_none() {
            return Err(format!("step {} asks no question", step as u64 + 1));
        }
        let a = lesson::answer(&self.validated(), s)
            .map_err(|e| e.to_string())?
            .ok_or("the run gives no answer to this question (what it asks about never happens before the end)")?;
        Ok(Verdict {
            step,
            choice: choice.to_string(),
            correct: choice.trim() == a.value,
            value: a.value,
            at_ns: a.at_ns,
            explanation: a.explanation,
        })
    }
}

/// Exercise `seed` of `kind` (one of `EXERCISE_KINDS`), as scenario JSON with a one-step lesson.
pub fn exercise(kind: &str, seed: u64) -> Result<String, String> {
    let k = exercise::Kind::from_name(kind)?;
    exercise::generate(k, seed).map(|e| e.scenario).map_err(|e| format!("exercise {seed} of {kind} could not be made: {e}"))
}

/// The answer key (CSV) of exercises `from..=to` of `kind`.
pub fn answer_key(kind: &str, from: u64, to: u64) -> Result<String, String> {
    exercise::answer_key(exercise::Kind::from_name(kind)?, from, to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::proto::EXERCISE_KINDS;
    use crate::worker::host::Budget;

    fn shipped(stem: &str) -> String {
        std::fs::read_to_string(format!("{}/static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"))).expect("shipped scenario")
    }

    #[test]
    fn lesson_texts_are_filled_and_give_nothing_away() {
        let (h, _) = Host::load(&shipped("lesson-1-vruntime")).expect("loads");
        let l = h.lesson().expect("renders").expect("has a lesson");
        assert_eq!(l.steps.len(), 4);
        assert!(l.steps.iter().all(|s| !s.text.contains("{{")), "a placeholder left unfilled");
        // Two nice 0 / nice 5 hogs: the shares are the weights' ratio, 1024 : 335, within the
        // rounding of 1 ms ticks over 200 ms.
        // "A gets 75.3% of the CPU and B 24.7%": the percentages in order.
        let pct: Vec<f64> = l.steps[2]
            .text
            .split('%')
            .filter_map(|p| p.rsplit(' ').next().and_then(|n| n.parse().ok()))
            .collect();
        let (a, b) = (pct[0], pct[1]);
        assert!((a - 75.3).abs() < 1.5 && (b - 24.7).abs() < 1.5, "A {a}% B {b}%");
        assert_eq!(l.steps[1].choices, vec!["A".to_string(), "B".to_string()]);
        assert!(l.steps[0].ask.is_none() && l.steps[1].ask.is_some());
        assert_eq!(l.steps[1].highlight[1], ("decision".to_string(), "pick".to_string()));
    }

    #[test]
    fn exactly_one_choice_is_right_and_the_check_explains_it() {
        let (h, _) = Host::load(&shipped("lesson-1-vruntime")).expect("loads");
        let va = h.check(1, "A").expect("answers");
        let vb = h.check(1, "B").expect("answers");
        assert!(va.correct != vb.correct, "one of A, B is the next pick");
        assert_eq!(va.value, vb.value);
        assert!(va.at_ns >= 9_500_000, "the pick is at or after the step's time, not {}", va.at_ns);
        assert!(!va.explanation.is_empty());
        assert!(h.check(0, "A").unwrap_err().contains("asks no question"));
        assert!(h.check(9, "A").unwrap_err().contains("the lesson has 4 steps"));
        let (plain, _) = Host::load(&shipped("two-hogs")).expect("loads");
        assert_eq!(plain.lesson(), Ok(None));
        assert!(plain.check(0, "x").is_err());
    }

    #[test]
    fn the_answer_follows_the_scenario_not_the_file() {
        // Lesson 2's wakeup: vdiff 3 ms against wakeup_gran 3.057 ms (1 ms × 1024/335 for a
        // nice-5 wakee), clamped to get_latency_max() 2.25 ms. With the clamp W preempts;
        // without it, 3 < 3.057 and it does not.
        let text = shipped("lesson-2-wakeup-clamp");
        let (h, _) = Host::load(&text).expect("loads");
        let with = h.check(1, "yes").expect("answers");
        assert!(with.correct, "{}", with.explanation);
        let off = text.replace("\"latency_max_clamp_wakeup\": true", "\"latency_max_clamp_wakeup\": false");
        assert_ne!(off, text);
        let (h, _) = Host::load(&off).expect("loads");
        let without = h.check(1, "yes").expect("answers");
        assert!(!without.correct && without.value == "no", "{}", without.explanation);
    }

    #[test]
    fn exercises_load_and_are_checked_by_the_run() {
        assert!(exercise("no-such-kind", 1).unwrap_err().contains("no exercise kind"));
        for (kind, _) in EXERCISE_KINDS {
            for seed in [1, 2, 3] {
                let text = exercise(kind, seed).expect("made");
                assert_eq!(text, exercise(kind, seed).expect("made"), "the same seed, the same exercise");
                let (h, _) = Host::load(&text).expect("the exercise is a valid scenario");
                let l = h.lesson().expect("renders").expect("has a lesson");
                let step = &l.steps[0];
                let right: Vec<_> = step.choices.iter().filter(|c| h.check(0, c).expect("answers").correct).collect();
                assert_eq!(right.len(), 1, "{kind} {seed}: one right choice among {:?}", step.choices);
            }
        }
    }

    #[test]
    fn group_weights_are_sampled_and_survive_a_rewind() {
        let (mut h, _) = Host::load(&shipped("seed001-group-weights")).expect("loads");
        let never = || 0.0;
        let b = Budget { clock_ms: &never, max_ms: f64::INFINITY };
        h.seek(400_000_000, &b);
        let g = h.groups_info();
        assert_eq!(g.names, vec!["A", "wakers", "B", "batch"]);
        assert_eq!(g.parents, vec![crate::wire::proto::NONE, 0, crate::wire::proto::NONE, 2]);
        assert!(g.now.iter().all(|cpus| cpus.len() == 8));
        // Sixteen hogs spread two per CPU: group B's load is the same on every CPU, so
        // calc_group_shares() gives each of its entities 1024 / 8 = 128 (PELT averages of
        // equal loads agree to within a few units).
        for (cpu, s) in g.now[2].iter().enumerate() {
            assert!((120..=136).contains(&s.weight), "B on CPU {cpu} weighs {}", s.weight);
        }
        assert!(g.sample_ns.len() > 20 && g.sample_ns.windows(2).all(|w| w[0] < w[1]));
        assert!(g.weights.iter().all(|w| w.len() == 4 * 8));
        h.seek(100_000_000, &b);
        assert!(h.groups_info().sample_ns.iter().all(|&t| t <= 100_000_000));
        h.seek(400_000_000, &b);
        assert_eq!(h.groups_info().weights, g.weights, "the replay samples the same weights");
        assert_eq!(h.groups_info().sample_ns, g.sample_ns);
    }
}
