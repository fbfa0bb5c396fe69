//! One point of a sweep. The page runs the points one request each, over a pool of
//! workers, so it can show progress, cancel between points and use every core; each point is
//! the scenario with one path set, same seed, so the result does not depend on which worker
//! ran it or in what order.

use fairground_sim::measure::{parse_assignment, sweep_by};
use fairground_sim::report::Report;
use fairground_sim::scenario::Limits;

use super::ab::{cgroup_figures, task_figures, workload_figures};
use crate::wire::sweep::{Entity, SweepFigures};

/// Workloads, tasks, cgroups: the same entities and figures as an A/B table's side.
fn entities(r: &Report) -> Vec<Entity> {
    let workloads = r.workloads.iter().map(|w| Entity { name: format!("workload {}", w.name), figures: workload_figures(w) });
    let tasks = r.tasks.iter().map(|t| Entity { name: t.name.clone(), figures: task_figures(t) });
    let cgroups = r.cgroups.iter().map(|g| Entity { name: format!("cgroup {}", g.name), figures: cgroup_figures(g) });
    workloads.chain(tasks).chain(cgroups).collect()
}

/// Run `text` with `path` set to `value` (JSON, or a bare word as in B's changes), and the
/// second parameter `by` = (path, value) set too in a two-way sweep.
pub fn sweep_point(text: &str, path: &str, value: &str, by: Option<(&str, &str)>) -> Result<SweepFigures, String> {
    let read = |p: &str, v: &str| {
        let a = parse_assignment(&format!("{p}={v}"))?;
        if a.path.is_empty() {
            return Err("the sweep has no parameter: give a path such as tasks[0].latency_nice".to_string());
        }
        Ok(a)
    };
    let a = read(path, value)?;
    let b = by.map(|(p, v)| read(p, v)).transpose()?;
    let outer = b.as_ref().map(|b| (b.path.as_str(), std::slice::from_ref(&b.value)));
    let points = sweep_by(text, &a.path, std::slice::from_ref(&a.value), outer, &Limits::BROWSER, |_, _| true).map_err(|e| e.to_string())?;
    let p = points.into_iter().next().ok_or("the sweep ran no point")?;
    Ok(SweepFigures { value: p.value.to_string(), by: p.by.map(|b| b.to_string()), entities: entities(&p.report) })
}
