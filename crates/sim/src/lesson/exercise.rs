//! Fresh seeded exercises, OSTEP-homework style: a small random scenario, a question about a
//! moment of it, choices, and the answer the simulation gives.

use super::{answer, Answer};
use crate::rng::Rng;
use crate::scenario::{parse_scenario, ScenarioError};
use serde_json::json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Which task does CFS pick next?
    CfsPick,
    /// Does a light waker preempt under v12, with the wakeup clamp on or off?
    WakeupClamp,
    /// Is this task eligible under EEVDF?
    EevdfEligibility,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::CfsPick, Kind::WakeupClamp, Kind::EevdfEligibility];

    /// The name links and the CLI use: `cfs-pick`, `wakeup-clamp`, `eevdf-eligibility`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::CfsPick => "cfs-pick",
            Kind::WakeupClamp => "wakeup-clamp",
            Kind::EevdfEligibility => "eevdf-eligibility",
        }
    }

    pub fn from_name(s: &str) -> Result<Kind, String> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            format!("there is no exercise kind \"{s}\" (known: {})", known.join(", "))
        })
    }
}

/// Most exercises one answer key holds: a class, with room to spare.
pub const MAX_KEY_ROWS: u64 = 500;

/// The teacher's answer key for exercises `from..=to` of `kind`, one student per seed, as CSV:
/// the link each student opens, the question, the answer, when it is decided and the worked
/// solution. The same seeds give the same key.
pub fn answer_key(kind: Kind, from: u64, to: u64) -> Result<String, String> {
    if from > to || to - from >= MAX_KEY_ROWS {
        return Err(format!("an answer key covers 1 to {MAX_KEY_ROWS} seeds, from ≤ to; got {from} to {to}"));
    }
    let csv = |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
    let mut out = String::from("kind,seed,link,question,answer,decided_at_ms,solution\n");
    for seed in from..=to {
        let e = generate(kind, seed).map_err(|e| format!("exercise {seed}: {e}"))?;
        let link = format!("#exercise={}&seed={seed}", kind.name());
        let row = [kind.name().to_string(), seed.to_string(), link, e.question.clone(), e.answer.value.clone(), format!("{:.3}", e.answer.at_ns as f64 / 1e6), e.answer.explanation.clone()];
        out += &row.iter().map(|f| csv(f)).collect::<Vec<_>>().join(",");
        out.push('\n');
    }
    Ok(out)
}

#[derive(Clone, Debug)]
pub struct Exercise {
    pub scenario: String,
    pub step: usize,
    pub question: String,
    pub choices: Vec<String>,
    pub answer: Answer,
}

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[(rng.next_u64() % xs.len() as u64) as usize]
}

/// The largest seed a scenario (and so an exercise) can carry.
pub const MAX_SEED: u64 = 1 << 53;

/// Make exercise number `seed` of `kind`. The same seed gives the same exercise.
pub fn generate(kind: Kind, seed: u64) -> Result<Exercise, ScenarioError> {
    // The exercise's scenario carries the seed, and a scenario's seed is at most 2^53 (what a
    // JSON number holds exactly): say so rather than make a scenario that fails validation.
    if seed > MAX_SEED {
        return Err(ScenarioError::at("seed", format!("exercise seeds go from 0 to {MAX_SEED} (2^53); got {seed}")));
    }
    let mut rng = Rng::new(seed, 0xE8E7);
    let at_us = 20_000 + rng.next_u64() % 150_000;
    let (policy, features, tasks, question): (&str, serde_json::Value, Vec<serde_json::Value>, serde_json::Value) = match kind {
        Kind::CfsPick => {
            let n = 3 + (rng.next_u64() % 2) as usize;
            let tasks = (0..n)
                .map(|i| {
                    let nice = pick(&mut rng, &[-5, 0, 0, 3, 5]);
                    let beh = if rng.next_u64().is_multiple_of(3) {
                        json!({ "kind": "bursty", "run_us": pick(&mut rng, &[500, 1500, 3000]), "sleep_us": pick(&mut rng, &[1000, 4000]) })
                    } else {
                        json!({ "kind": "hog" })
                    };
                    json!({ "name": format!("{}", (b'A' + i as u8) as char), "nice": nice, "behavior": beh })
                })
                .collect();
            ("cfs-v6.2", json!({}), tasks, json!({ "ask": "Which task runs next on CPU 0?", "kind": "next_task", "cpu": 0 }))
        }
        Kind::WakeupClamp => {
            let nice = pick(&mut rng, &[3, 5, 7, 10]);
            let clamp = rng.next_u64().is_multiple_of(2);
            let tasks = vec![
                json!({ "name": "A", "behavior": { "kind": "hog" } }),
                json!({ "name": "B", "behavior": { "kind": "hog" } }),
                json!({ "name": "W", "nice": nice, "behavior": { "kind": "periodic", "period_us": pick(&mut rng, &[3000, 7000, 11000]), "run_us": 300 } }),
            ];
            ("latency-nice-v12", json!({ "latency_max_clamp_wakeup": clamp }), tasks, json!({ "ask": "When W next wakes, does it preempt the running task?", "kind": "will_preempt", "task": "W" }))
        }
        Kind::EevdfEligibility => {
            let tasks = (0..3)
                .map(|i| {
                    let beh = if i == 2 {
                        json!({ "kind": "bursty", "run_us": pick(&mut rng, &[300, 2000]), "sleep_us": pick(&mut rng, &[500, 3000]) })
                    } else {
                        json!({ "kind": "hog" })
                    };
                    json!({ "name": format!("{}", (b'A' + i as u8) as char), "nice": pick(&mut rng, &[0, 0, 5, -3]), "behavior": beh })
                })
                .collect();
            let who = pick(&mut rng, &["A", "B", "C"]);
            ("eevdf-v6.12", json!({}), tasks, json!({ "ask": format!("Is {who} eligible at this moment?"), "kind": "eligible", "task": who }))
        }
    };
    let choices: Vec<String> = match kind {
        Kind::CfsPick => tasks.iter().filter_map(|t| t["name"].as_str().map(String::from)).collect(),
        _ => vec!["yes".into(), "no".into()],
    };
    let mut doc = json!({
        "format": "fairground-scenario/1",
        "name": format!("exercise {seed}"),
        "seed": seed,
        "duration_ms": 250,
        "machine": { "cpus": 1, "hz": 1000 },
        "scheduler": { "policy": policy, "features": features },
        "tasks": tasks,
        "lesson": { "steps": [ { "text": "Everything you need to predict the answer is below.", "at_us": at_us, "question": question.clone() } ] },
    });
    // The step's text is the card: the figures the answer depends on, at the moment the
    // question is about, and the rule as a hint (the question itself is asked once, below it).
    let v = parse_scenario(&doc.to_string())?;
    let c = super::card::card(&v, &v.scenario.lesson.as_ref().ok_or_else(|| ScenarioError::at("lesson", "missing"))?.steps[0])?;
    doc["lesson"]["steps"][0]["text"] = json!(c.facts.join("\n\n"));
    doc["lesson"]["steps"][0]["hint"] = json!(c.hint);
    let scenario = doc.to_string();
    let v = parse_scenario(&scenario)?;
    let lesson = v.scenario.lesson.as_ref().ok_or_else(|| ScenarioError::at("lesson", "missing"))?;
    let a = answer(&v, &lesson.steps[0])?.ok_or_else(|| ScenarioError::at("lesson.steps[0].question", "the run gives no answer to this question"))?;
    Ok(Exercise { question: lesson.steps[0].question.as_ref().map_or(String::new(), |q| q.ask.clone()), scenario, step: 0, choices, answer: a })
}
