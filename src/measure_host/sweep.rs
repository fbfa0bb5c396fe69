//! One point of a sweep (issue 9). The page runs the points one request each, over a pool of
//! workers, so it can show progress, cancel between points and use every core; each point is
//! the scenario with one path set, same seed, so the result does not depend on which worker
//! ran it or in what order.

use fairground_sim::measure::{parse_assignment, sweep};
use fairground_sim::report::Report;
use fairground_sim::scenario::Limits;
use serde::{Deserialize, Serialize};

use super::pct_table;

/// Most points one sweep in the app may have (each is a whole run).
pub const MAX_SWEEP_POINTS: usize = 200;

/// One entity's figures at one point, named and in the order of the A/B tables.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Entity {
    pub name: String,
    pub figures: Vec<(String, Option<f64>)>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SweepFigures {
    /// The value as it was set (JSON text).
    pub value: String,
    pub entities: Vec<Entity>,
}

/// Workloads, tasks, cgroups: the same entities and figures as an A/B table's side.
fn entities(r: &Report) -> Vec<Entity> {
    let mut out = Vec::new();
    for w in &r.workloads {
        let mut f = vec![("wakeups".to_string(), Some(w.wakeup_latency_ns.count as f64))];
        f.push(("completion_ms".into(), w.completion_ns.map(|c| c as f64 / 1e6)));
        f.extend(pct_table(&w.wakeup_latency_ns));
        out.push(Entity { name: format!("workload {}", w.name), figures: f });
    }
    for t in &r.tasks {
        let mut f = vec![("cpu_ms".to_string(), Some(t.cpu_ns as f64 / 1e6)), ("wakeups".into(), Some(t.wakeup_latency_ns.count as f64))];
        f.push(("wakeup_preemptions".into(), Some(t.wakeup_preemptions as f64)));
        f.extend(pct_table(&t.wakeup_latency_ns));
        out.push(Entity { name: t.name.clone(), figures: f });
    }
    for g in &r.cgroups {
        let mut f = vec![("cpu_ms".to_string(), Some(g.cpu_ns as f64 / 1e6)), ("wakeups".into(), Some(g.wakeup_latency_ns.count as f64))];
        f.extend(pct_table(&g.wakeup_latency_ns));
        out.push(Entity { name: format!("cgroup {}", g.name), figures: f });
    }
    out
}

/// Run `text` with `path` set to `value` (JSON, or a bare word as in B's changes).
pub fn sweep_point(text: &str, path: &str, value: &str) -> Result<SweepFigures, String> {
    let a = parse_assignment(&format!("{path}={value}"))?;
    if a.path.is_empty() {
        return Err("the sweep has no parameter: give a path such as tasks[0].latency_nice".into());
    }
    let points = sweep(text, &a.path, std::slice::from_ref(&a.value), &Limits::BROWSER, |_, _| true).map_err(|e| e.to_string())?;
    let p = points.into_iter().next().ok_or("the sweep ran no point")?;
    Ok(SweepFigures { value: p.value.to_string(), entities: entities(&p.report) })
}
