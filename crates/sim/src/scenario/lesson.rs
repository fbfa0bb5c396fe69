//! The `lesson` key (an addition to the contract, docs/scenario-choices.md):
//!
//! ```jsonc
//! "lesson": { "title": "…", "steps": [
//!   { "text": "Markdown, with {{share hog/0}} filled from the run", "at_us": 12000,
//!     "highlight": [ { "task": "hog/0" }, { "cpu": 0 }, { "tree": 0 }, { "decision": "wakeup" }, { "histogram": "hog/0" } ],
//!     "question": { "ask": "Which task runs next on CPU 0?", "kind": "next_task", "cpu": 0 },
//!     "try": [ { "label": "Set B to nice 0", "set": [ "tasks[1].nice=0" ] } ] } ] }
//! ```
//!
//! Question kinds: `next_task` (`cpu`), `will_preempt` (`task`), `eligible` (`task`, EEVDF).
//! Their answers come from the simulation (`crate::lesson`), never from the file.

use super::fields::*;
use super::model::{Highlight, Lesson, LessonStep, Question, QuestionKind, Scenario, TryIt};
use super::{expand, ScenarioError};
use serde_json::Value;

type R<T> = Result<T, ScenarioError>;

pub(crate) fn parse(v: &Value, path: &str) -> R<Lesson> {
    let o = obj(v, path)?;
    let (mut title, mut steps) = (None, None);
    for (k, x) in o {
        let kp = key(path, k);
        match k.as_str() {
            "title" => title = Some(string(x, &kp, "a string")?.to_string()),
            "steps" => {
                let a = arr(x, &kp)?;
                if a.is_empty() || a.len() > 200 {
                    return Err(expected(&kp, "an array of 1 to 200 steps", x));
                }
                steps = Some(a.iter().enumerate().map(|(i, s)| step(s, &idx(&kp, i))).collect::<R<Vec<_>>>()?);
            }
            _ => return Err(unknown(path, k, &["title", "steps"])),
        }
    }
    Ok(Lesson { title, steps: steps.ok_or_else(|| missing(path, "steps"))? })
}

fn step(v: &Value, path: &str) -> R<LessonStep> {
    let o = obj(v, path)?;
    let (mut text, mut at_ns, mut highlight, mut question, mut tries, mut hint) = (None, 0, Vec::new(), None, Vec::new(), None);
    for (k, x) in o {
        let kp = key(path, k);
        match k.as_str() {
            "text" => text = Some(string(x, &kp, "a Markdown string")?.to_string()),
            "at_us" => at_ns = uint(x, &kp, 0, 600_000_000)? * 1000,
            "highlight" => {
                for (i, h) in arr(x, &kp)?.iter().enumerate() {
                    highlight.push(one_highlight(h, &idx(&kp, i))?);
                }
            }
            "question" => question = Some(one_question(x, &kp)?),
            "try" => {
                let a = arr(x, &kp)?;
                if a.is_empty() || a.len() > 4 {
                    return Err(expected(&kp, "an array of 1 to 4 actions", x));
                }
                tries = a.iter().enumerate().map(|(i, t)| one_try(t, &idx(&kp, i))).collect::<R<Vec<_>>>()?;
            }
            "hint" => hint = Some(string(x, &kp, "a Markdown string")?.to_string()),
            _ => return Err(unknown(path, k, &["text", "at_us", "highlight", "question", "try", "hint"])),
        }
    }
    Ok(LessonStep { text: text.ok_or_else(|| missing(path, "text"))?, at_ns, highlight, question, tries, hint })
}

/// `{ "label": "Set B to nice 0", "set": [ "tasks[1].nice=0" ] }`: each entry a `path=value`
/// (what it does to the scenario is checked by `check_tries`, which runs the parser again).
fn one_try(v: &Value, path: &str) -> R<TryIt> {
    let o = obj(v, path)?;
    let (mut label, mut set) = (None, None);
    for (k, x) in o {
        let kp = key(path, k);
        match k.as_str() {
            "label" => label = Some(string(x, &kp, "a string")?.to_string()),
            "set" => {
                let a = arr(x, &kp)?;
                if a.is_empty() || a.len() > 8 {
                    return Err(expected(&kp, "an array of 1 to 8 path=value strings", x));
                }
                let mut out = Vec::with_capacity(a.len());
                for (i, e) in a.iter().enumerate() {
                    let ep = idx(&kp, i);
                    let s = string(e, &ep, "a path=value string")?;
                    crate::measure::patch::parse_assignment(s).map_err(|e| ScenarioError::at(ep, e))?;
                    out.push(s.to_string());
                }
                set = Some(out);
            }
            _ => return Err(unknown(path, k, &["label", "set"])),
        }
    }
    Ok(TryIt { label: label.ok_or_else(|| missing(path, "label"))?, set: set.ok_or_else(|| missing(path, "set"))? })
}

/// The scenario a step's "Try it" action makes: `s` with the action's assignments applied, as
/// JSON (its lesson kept, so the class goes on with it). An assignment that cannot be made, or
/// that makes a scenario the simulator refuses, is an error naming the action and the problem.
pub fn try_it(s: &Scenario, t: &TryIt) -> Result<Value, String> {
    let mut doc = super::write::to_json(s);
    for a in &t.set {
        let a = crate::measure::patch::parse_assignment(a)?;
        crate::measure::patch::apply(&mut doc, &a)?;
    }
    super::parse_scenario(&doc.to_string()).map_err(|e| format!("\"{}\" makes a scenario the simulator refuses: {e}", t.label))?;
    Ok(doc)
}

/// Every "Try it" of the lesson makes a scenario the simulator accepts; the error names the
/// step and action. Apart from parsing, which would otherwise parse every variant again (and
/// carry the scenario writer into every bundle that parses): the worker checks a lesson with
/// it before showing it, and `fairground validate` too.
pub fn check_tries(s: &Scenario) -> R<()> {
    let Some(l) = &s.lesson else { return Ok(()) };
    for (i, st) in l.steps.iter().enumerate() {
        for (j, t) in st.tries.iter().enumerate() {
            try_it(s, t).map_err(|e| ScenarioError::at(format!("lesson.steps[{i}].try[{j}].set"), e))?;
        }
    }
    Ok(())
}

fn one_highlight(v: &Value, path: &str) -> R<Highlight> {
    let o = obj(v, path)?;
    let mut it = o.iter();
    let (Some((k, x)), None) = (it.next(), it.next()) else {
        return Err(expected(path, "an object with one of task, cpu, tree, decision, histogram, switch", v));
    };
    let kp = key(path, k);
    Ok(match k.as_str() {
        "task" => Highlight::Task(string(x, &kp, "a task name")?.to_string()),
        "cpu" => Highlight::Cpu(u32_in(x, &kp, 0, 1023)?),
        "tree" => Highlight::Tree(u32_in(x, &kp, 0, 1023)?),
        "decision" => Highlight::Decision(one_of(x, &kp, &[("wakeup", "wakeup"), ("tick", "tick"), ("pick", "pick")])?.to_string()),
        "histogram" => Highlight::Histogram(string(x, &kp, "a task name")?.to_string()),
        "switch" => {
            let name = string(x, &kp, "a scheduler feature")?;
            if !super::parse::FEATURE_KEYS.contains(&name) {
                return Err(ScenarioError::at(kp, format!("no scheduler feature named {name:?}")));
            }
            Highlight::Switch(name.to_string())
        }
        _ => return Err(unknown(path, k, &["task", "cpu", "tree", "decision", "histogram", "switch"])),
    })
}

fn one_question(v: &Value, path: &str) -> R<Question> {
    let o = obj(v, path)?;
    let kinds = [("next_task", 0u8), ("will_preempt", 1), ("eligible", 2)];
    let kind = match o.get("kind") {
        Some(x) => one_of(x, &key(path, "kind"), &kinds)?,
        None => return Err(missing(path, "kind")),
    };
    let allowed: &[&str] = if kind == 0 { &["ask", "kind", "cpu"] } else { &["ask", "kind", "task"] };
    let (mut ask, mut cpu, mut task) = (None, None, None);
    for (k, x) in o {
        let kp = key(path, k);
        match k.as_str() {
            _ if !allowed.contains(&k.as_str()) => return Err(unknown(path, k, allowed)),
            "ask" => ask = Some(string(x, &kp, "a string")?.to_string()),
            "cpu" => cpu = Some(u32_in(x, &kp, 0, 1023)?),
            "task" => task = Some(string(x, &kp, "a task name")?.to_string()),
            _ => {}
        }
    }
    let kind = match kind {
        0 => QuestionKind::NextTask { cpu: cpu.ok_or_else(|| missing(path, "cpu"))? },
        1 => QuestionKind::WillPreempt { task: task.ok_or_else(|| missing(path, "task"))? },
        _ => QuestionKind::Eligible { task: task.ok_or_else(|| missing(path, "task"))? },
    };
    Ok(Question { ask: ask.ok_or_else(|| missing(path, "ask"))?, kind })
}

/// References to tasks and CPUs must exist; `eligible` only under EEVDF; times within the run.
pub(crate) fn check_refs(s: &Scenario, l: &Lesson) -> R<()> {
    let names: Vec<String> = expand(s).into_iter().map(|t| t.name).collect();
    let cpus = s.machine.cpus;
    for (i, st) in l.steps.iter().enumerate() {
        let p = format!("lesson.steps[{i}]");
        if st.at_ns >= s.duration_ms * 1_000_000 {
            return Err(ScenarioError::at(format!("{p}.at_us"), format!("expected a time before the end of the run ({} ms)", s.duration_ms)));
        }
        let task_ok = |n: &str| names.iter().any(|x| x == n);
        for (j, h) in st.highlight.iter().enumerate() {
            let hp = format!("{p}.highlight[{j}]");
            match h {
                Highlight::Task(n) | Highlight::Histogram(n) if !task_ok(n) => {
                    return Err(ScenarioError::at(hp, format!("no task named {n:?}")));
                }
                Highlight::Cpu(c) | Highlight::Tree(c) if *c >= cpus => {
                    return Err(ScenarioError::at(hp, format!("CPU {c} does not exist (machine.cpus is {cpus})")));
                }
                _ => {}
            }
        }
        if let Some(q) = &st.question {
            let qp = format!("{p}.question");
            match &q.kind {
                QuestionKind::NextTask { cpu } if *cpu >= cpus => {
                    return Err(ScenarioError::at(format!("{qp}.cpu"), format!("CPU {cpu} does not exist (machine.cpus is {cpus})")));
                }
                QuestionKind::WillPreempt { task } | QuestionKind::Eligible { task } if !task_ok(task) => {
                    return Err(ScenarioError::at(format!("{qp}.task"), format!("no task named {task:?}")));
                }
                QuestionKind::Eligible { .. } if s.scheduler.policy.is_cfs() => {
                    return Err(ScenarioError::at(format!("{qp}.kind"), "eligibility is an EEVDF notion; this scenario's policy is CFS"));
                }
                _ => {}
            }
        }
    }
    Ok(())
}
