//! Lessons and exercises (issue 10): the answers to a lesson's questions and the numbers in
//! its text, both taken from the simulation, and a generator of fresh seeded exercises.

pub mod card;
pub mod exercise;

use crate::engine::Sim;
use crate::explain::{Decision, Why};
use crate::report::Report;
use crate::scenario::{LessonStep, QuestionKind, ScenarioError, Validated};

/// The simulation's answer to a question, and the decision that explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// A task name, or "yes" / "no".
    pub value: String,
    /// When the deciding event happened (ns).
    pub at_ns: u64,
    /// The decision-log entry, in plain words.
    pub explanation: String,
}

/// Answer `step`'s question by running the scenario to the step's time and watching.
pub fn answer(v: &Validated, step: &LessonStep) -> Result<Option<Answer>, ScenarioError> {
    let Some(q) = &step.question else { return Ok(None) };
    let mut sim = Sim::new(v)?;
    sim.fair.enable_log();
    // Every question is about the state the page shows at the step's time: after that
    // instant's events. "Next" is what comes after it; an eligibility is read in it.
    sim.run_through(step.at_ns);
    let name = |s: &Sim, t: u32| s.tasks.get(t as usize).map_or_else(|| "idle".to_string(), |x| x.name.clone());
    let task_index = |s: &Sim, n: &str| s.tasks.iter().position(|t| t.name == n).map(|i| i as u32);
    let out = match &q.kind {
        QuestionKind::NextTask { cpu } => {
            let cpu = *cpu;
            next_decision(&mut sim, &|d| d.cpu == cpu && matches!(d.why, Why::Pick { .. })).map(|d| Answer {
                value: name(&sim, d.task),
                at_ns: d.at_ns,
                explanation: d.describe(&|t| name(&sim, t)),
            })
        }
        QuestionKind::WillPreempt { task } => {
            let Some(t) = task_index(&sim, task) else { return Ok(None) };
            next_decision(&mut sim, &|d| d.task == t && matches!(d.why, Why::CfsWakeup { .. } | Why::EevdfWakeup { .. })).map(|d| Answer {
                value: if d.outcome { "yes" } else { "no" }.to_string(),
                at_ns: d.at_ns,
                explanation: format!("{}.{}", d.describe(&|x| name(&sim, x)), worked_wakeup(&sim, task, t, &d)),
            })
        }
        QuestionKind::Eligible { task } => {
            let Some(t) = task_index(&sim, task) else { return Ok(None) };
            let e = crate::eevdf::view::entity_state(&sim.fair, t);
            let value = if e.on_rq && e.eligible { "yes" } else { "no" }.to_string();
            let explanation = if e.on_rq {
                format!("{task}: lag V − v = {:.3} ms, so it is {}eligible (eligible means lag ≥ 0).{}", e.lag as f64 / 1e6, if e.eligible { "" } else { "not " }, worked_eligible(&sim, t))
            } else {
                format!("{task} is not queued at this time, so it is not competing")
            };
            Some(Answer { value, at_ns: sim.now.max(step.at_ns), explanation })
        }
    };
    Ok(out)
}

/// The first decision matching `pred` that the log records from now on (the log must be on),
/// stepping the run instant by instant; None if the run ends first.
pub(crate) fn next_decision(sim: &mut Sim, pred: &dyn Fn(&Decision) -> bool) -> Option<Decision> {
    let mut seen = sim.fair.log.as_ref().map_or(0, Vec::len);
    loop {
        if let Some(d) = sim.fair.log.as_ref().and_then(|l| l[seen..].iter().find(|d| pred(d)).copied()) {
            return Some(d);
        }
        seen = sim.fair.log.as_ref().map_or(0, Vec::len);
        if !sim.step_instant() {
            return None;
        }
    }
}

/// The wakeup check worked through with the kernel's numbers: the wakee's granularity from
/// its weight (`wakeup_gran()`, v6.2/v12), the wakeup clamp named on or off, the comparison.
fn worked_wakeup(sim: &Sim, task: &str, t: u32, d: &Decision) -> String {
    let Why::CfsWakeup { vdiff, wakeup_gran, offset, gran, latency_max, verdict, via_groups, .. } = d.why else { return String::new() };
    if via_groups {
        return String::new();
    }
    let ms = crate::explain::ms;
    let gran_sysctl = ms(sim.fair.cfg.wakeup_granularity_ns as i64);
    let w = sim.tasks.get(t as usize).map_or(0, |x| crate::weights::scale_load_down(sim.fair.ents[x.se as usize].load.weight));
    let mut s = format!(
        " Worked: wakeup_gran({task}) = calc_delta_fair({gran_sysctl}, {task}) = {gran_sysctl} × 1024 / {w} = {}",
        ms(wakeup_gran)
    );
    if offset != 0 {
        s += &format!(", plus the latency offset {} = {}", ms(offset), ms(wakeup_gran + offset));
    }
    if sim.fair.v12 {
        s += &if sim.fair.cfg.feat.latency_max_clamp_wakeup {
            format!("; the wakeup clamp (latency_max_clamp_wakeup) is on: gran = min(that, get_latency_max() {}) = {}", ms(latency_max), ms(gran))
        } else {
            format!("; the wakeup clamp (latency_max_clamp_wakeup) is off: gran = {}", ms(gran))
        };
    }
    let (cmp, out) = if verdict == 1 { (">", "it preempts") } else { ("≤", "it does not preempt") };
    s + &format!("; vdiff {} {cmp} {} → {out}.", ms(vdiff), ms(gran))
}

/// Eligibility worked through as `entity_eligible()` decides it: Σ w·(v − min_vruntime) over the
/// queued entities (curr included) against the task's own key times Σ w, exactly.
fn worked_eligible(sim: &Sim, t: u32) -> String {
    let f = &sim.fair;
    let Some(task) = sim.tasks.get(t as usize) else { return String::new() };
    let e = &f.ents[task.se as usize];
    let base = f.cfs_rqs[e.cfs_rq as usize].min_vruntime;
    let key = |se: u32| f.ents[se as usize].vruntime.wrapping_sub(base) as i64 as i128;
    let w = |se: u32| crate::weights::scale_load_down(f.ents[se as usize].load.weight) as i128;
    let queued: Vec<&crate::engine::task::Task> = sim.tasks.iter().filter(|x| f.ents[x.se as usize].on_rq && f.ents[x.se as usize].cfs_rq == e.cfs_rq).collect();
    if queued.iter().any(|x| f.ents[x.se as usize].depth != 0) {
        return String::new();
    }
    let terms: Vec<String> = queued.iter().map(|x| format!("{} × {:.3}", w(x.se), key(x.se) as f64 / 1e3)).collect();
    let (avg, load) = (queued.iter().map(|x| w(x.se) * key(x.se)).sum::<i128>(), queued.iter().map(|x| w(x.se)).sum::<i128>());
    let mine = key(task.se) * load;
    format!(
        " Worked (keys v − min_vruntime in µs): Σ w·key = {} = {:.3}; Σ w = {load}; V − min_vruntime = {:.3} µs; {}'s key × Σ w = {:.3} × {load} = {:.3}, which is {} Σ w·key → {}.",
        terms.join(" + "),
        avg as f64 / 1e3,
        avg as f64 / load.max(1) as f64 / 1e3,
        task.name,
        key(task.se) as f64 / 1e3,
        mine as f64 / 1e3,
        if mine <= avg { "≤" } else { ">" },
        if mine <= avg { "lag ≥ 0: eligible" } else { "lag < 0: not eligible" }
    )
}

/// Fill `{{figure TASK}}` placeholders from a report: `share` (percent), `cpu_ms`, `wakeups`,
/// `switches`, `preemptions` (wakeup preemptions won), `p50` / `p90` / `p99` / `max` (wakeup
/// latency, ms). An unknown figure or task is an error naming it.
pub fn render_text(text: &str, r: &Report) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((before, inner, after)) = next_placeholder(rest)? {
        out.push_str(before);
        out.push_str(&figure(inner, r)?);
        rest = after;
    }
    out.push_str(rest);
    Ok(out)
}

/// Each placeholder of `text` once, in order, with its value from `r`: ("share B", "25.0%").
/// A step's "Try it" shows these before and after the change.
pub fn figures(text: &str, r: &Report) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut rest = text;
    while let Some((_, inner, after)) = next_placeholder(rest)? {
        if !out.iter().any(|(k, _)| k == inner) {
            out.push((inner.to_string(), figure(inner, r)?));
        }
        rest = after;
    }
    Ok(out)
}

/// The text before the next `{{…}}`, its trimmed inside, and the text after it.
fn next_placeholder(text: &str) -> Result<Option<(&str, &str, &str)>, String> {
    let Some(i) = text.find("{{") else { return Ok(None) };
    let after = &text[i + 2..];
    let j = after.find("}}").ok_or("a {{ without its }}")?;
    Ok(Some((&text[..i], after[..j].trim(), &after[j + 2..])))
}

fn figure(inner: &str, r: &Report) -> Result<String, String> {
    let (fig, task) = inner.split_once(' ').ok_or_else(|| format!("{{{{{inner}}}}}: expected {{{{figure TASK}}}}"))?;
    let t = r.tasks.iter().find(|t| t.name == task.trim()).ok_or_else(|| format!("{{{{{inner}}}}}: no task {task:?}"))?;
    let l = &t.wakeup_latency_ns;
    let ms = |x: Option<u64>| x.map_or("–".to_string(), |v| format!("{:.2} ms", v as f64 / 1e6));
    Ok(match fig {
        "share" => format!("{:.1}%", t.share * 100.0),
        "cpu_ms" => format!("{:.1} ms", t.cpu_ns as f64 / 1e6),
        "wakeups" => t.wakeups.to_string(),
        "switches" => t.switches.to_string(),
        "preemptions" => t.wakeup_preemptions.to_string(),
        "p50" => ms(l.p50),
        "p90" => ms(l.p90),
        "p99" => ms(l.p99),
        "max" => ms(l.max),
        other => return Err(format!("{{{{{inner}}}}}: unknown figure {other:?}")),
    })
}
