//! An exercise's card: everything a student needs to predict the answer (weights, the
//! vruntimes of every task, sleeping ones too, the granularities and which switches are on),
//! and a hint naming the fair.c rule. The numbers are the simulation's at the moment the
//! question is about; the outcome itself is never on the card.

use crate::engine::Sim;
use crate::explain::Why;
use crate::scenario::{LessonStep, QuestionKind, ScenarioError, Validated};
use crate::weights::scale_load_down;

/// The card: one line per fact (Markdown), and the hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    pub facts: Vec<String>,
    pub hint: String,
}

/// A time or a vruntime difference in ms, to the ns (what the comparisons are made on).
fn ms6(ns: i64) -> String {
    format!("{:+.6} ms", ns as f64 / 1e6)
}

fn ms3(ns: u64) -> String {
    crate::explain::ms(ns as i64)
}

/// Each task's nice, weight, state and vruntime − min_vruntime of its cfs_rq, as the page shows
/// them at this moment (a sleeping task keeps the vruntime it had when it went to sleep).
fn task_lines(sim: &Sim) -> Vec<String> {
    let f = &sim.fair;
    sim.tasks
        .iter()
        .map(|t| {
            let e = &f.ents[t.se as usize];
            let q = &f.cfs_rqs[e.cfs_rq as usize];
            let state = if q.curr == t.se && e.on_rq {
                "running (curr, not in the tree)"
            } else if e.sched_delayed {
                "asleep, still queued (delayed dequeue)"
            } else if e.on_rq {
                "queued"
            } else {
                "asleep"
            };
            let key = e.vruntime.wrapping_sub(q.min_vruntime) as i64;
            format!("**{}**: nice {}, weight {}; {state}; vruntime − min_vruntime = {}", t.name, t.nice, scale_load_down(e.load.weight), ms6(key))
        })
        .collect()
}

/// The card for `step` of exercise scenario `v`.
pub fn card(v: &Validated, step: &LessonStep) -> Result<Card, ScenarioError> {
    let Some(q) = &step.question else { return Ok(Card { facts: Vec::new(), hint: String::new() }) };
    let mut sim = Sim::new(v)?;
    let c = sim.fair.cfg.clone();
    let head = format!("{}, {} CPU, HZ {}; at {}:", v.scenario.scheduler.policy.name(), c.cpus, c.hz, ms3(step.at_ns));
    Ok(match &q.kind {
        QuestionKind::NextTask { .. } => {
            sim.run_through(step.at_ns);
            let mut facts = vec![head];
            facts.extend(task_lines(&sim));
            facts.push(format!("sched_latency {}, min_granularity {}, wakeup_granularity {}", ms3(c.latency_ns), ms3(c.min_granularity_ns), ms3(c.wakeup_granularity_ns)));
            if let Some(t) = sim.tasks.iter().find(|t| sim.fair.cfs_rqs[sim.fair.ents[t.se as usize].cfs_rq as usize].curr == t.se) {
                let e = &sim.fair.ents[t.se as usize];
                facts.push(format!("{} has run {} since it was picked", t.name, ms3(e.sum_exec_runtime.saturating_sub(e.prev_sum_exec_runtime))));
            }
            Card {
                facts,
                hint: "curr keeps the CPU until check_preempt_tick() finds it has run its slice, sched_slice() = max(sched_latency, nr_running × min_granularity) × its weight / the runqueue's weight, or it sleeps, or a waking task preempts it. Then pick_next_entity() takes the leftmost of tasks_timeline: the smallest vruntime. A task that wakes is placed at max(its vruntime, min_vruntime − sched_latency / 2) (place_entity(), GENTLE_FAIR_SLEEPERS).".into(),
            }
        }
        QuestionKind::WillPreempt { task } => {
            let t = sim.tasks.iter().position(|x| &x.name == task).ok_or_else(|| ScenarioError::at("lesson.steps[0].question.task", format!("no task named {task:?}")))? as u32;
            sim.fair.enable_log();
            sim.run_through(step.at_ns);
            // The same wakeup check the answer is about: the next one from the moment shown.
            let d = super::next_decision(&mut sim, &|d| d.task == t && matches!(d.why, Why::CfsWakeup { .. }));
            let mut facts = vec![head];
            facts.extend(task_lines(&sim).into_iter().filter(|l| l.starts_with(&format!("**{task}**"))).map(|l| format!("{l} (now)")));
            let clamp = if c.feat.latency_max_clamp_wakeup { "on" } else { "off" };
            if let Some(d) = d {
                if let Why::CfsWakeup { vdiff, latency_max, offset, .. } = d.why {
                    let curr = sim.tasks.get(d.other as usize).map_or("idle".to_string(), |x| x.name.clone());
                    facts.push(format!("{task} next wakes at {}; the running task is then {curr} (weight {})", ms3(d.at_ns), sim.tasks.get(d.other as usize).map_or(0, |x| scale_load_down(sim.fair.ents[x.se as usize].load.weight))));
                    facts.push(format!("vdiff = {curr}'s vruntime − {task}'s vruntime after place_entity() = {}", ms6(vdiff)));
                    if offset != 0 {
                        facts.push(format!("latency offset difference (wakeup_latency_gran()) = {}", ms6(offset)));
                    }
                    facts.push(format!("sysctl_sched_wakeup_granularity = {}; get_latency_max() = {}", ms3(c.wakeup_granularity_ns), ms3(latency_max as u64)));
                }
            }
            facts.push(format!("latency_max_clamp_wakeup is {clamp}"));
            Card {
                facts,
                hint: format!("wakeup_preempt_entity(): {task} preempts when vdiff > gran, where gran = wakeup_gran({task}) = sysctl_sched_wakeup_granularity × 1024 / {task}'s weight (calc_delta_fair()); with latency_max_clamp_wakeup on, gran = min(gran, get_latency_max())."),
            }
        }
        QuestionKind::Eligible { .. } => {
            sim.run_through(step.at_ns);
            let mut facts = vec![head];
            facts.extend(task_lines(&sim));
            Card {
                facts,
                hint: "V = avg_vruntime() = min_vruntime + Σ w·(v − min_vruntime) / Σ w over the queued entities, curr included (sleeping tasks do not count, delayed ones do). entity_eligible(): an entity is eligible when its lag V − v ≥ 0.".into(),
            }
        }
    })
}
