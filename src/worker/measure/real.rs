//! Real beside simulated: a recorded trace's own run (A, measured by the import worker) and
//! the model's replay of its tasks (B, run here), as an A/B table: each task's CPU time,
//! wakeups and wakeup-latency percentiles on both sides, the largest differences first, both
//! sides' histograms and the model's slices (the page holds the real ones), and what the model
//! assumes in replaying the trace, stated with the numbers the run used.

use fairground_sim::engine::stats::summarize;
use fairground_sim::measure::csv::rows_csv;
use fairground_sim::measure::{Histogram, Row};
use fairground_sim::report::Report;
use fairground_sim::scenario::{self, Limits};
use serde_json::Value;

use super::ab::{figures, pair, slices_of, MAX_SENT_SLICES, MAX_TRACE_EVENTS};
use super::file_stem;
use crate::wire::ab::{AbHist, AbTable, AbTask, AbTraces, RealHeader};
use crate::wire::real::RealFigures;

/// How far apart a task's two sides are: its CPU time's difference as a share of the run
/// (`span_ms`), plus its p99 wakeup latency's difference as a share of the largest p99 in the
/// table (`max_p99_us`). Absolute differences, so that a task with a few µs of latency on one
/// side and none on the other (common: the model's idle CPUs take a wakeup at once) does not
/// come before one that lost a tenth of a CPU; a side without the figure counts as 0.
pub fn difference(t: &AbTask, span_ms: f64, max_p99_us: f64) -> f64 {
    let diff = |f: &str| {
        let l = t.lines.iter().find(|l| l.figure == f);
        l.map_or(0.0, |l| (l.a.unwrap_or(0.0) - l.b.unwrap_or(0.0)).abs())
    };
    let share = |x: f64, of: f64| if of > 0.0 { x / of } else { 0.0 };
    share(diff("cpu_ms"), span_ms) + share(diff("p99_us"), max_p99_us)
}

/// The largest p99 of either side in `tasks` (µs).
fn max_p99(tasks: &[AbTask]) -> f64 {
    let p99 = |t: &AbTask| t.lines.iter().filter(|l| l.figure == "p99_us").flat_map(|l| [l.a, l.b]).flatten().fold(0.0, f64::max);
    tasks.iter().map(p99).fold(0.0, f64::max)
}

pub fn compare_real(text: &str, real: &RealFigures) -> Result<AbTable, String> {
    let v = fairground_sim::parse_scenario(text).map_err(|e| e.to_string())?;
    let trace = scenario::estimate(&v.scenario).events <= MAX_TRACE_EVENTS;
    let mut sim = fairground_sim::run_to_end(text, &Limits::BROWSER, trace).map_err(|e| e.to_string())?;
    let model_slices = slices_of(&sim);
    let model_sets = sim.wakeup_sample_sets();
    let report = sim.report();
    let log2 = |s: &[u64]| Histogram::log2_us(s).counts;

    // Tasks matched by name: the model's (the scenario's) first, in the order of how far
    // apart the two sides are; a task that ran in the trace but is not replayed is left out
    // (the assumptions say so).
    let mut tasks: Vec<AbTask> = report
        .tasks
        .iter()
        .map(|m| {
            let r = real.tasks.iter().find(|r| r.name == m.name);
            let a = r.map(|r| figures(Some(r.cpu_ns), None, None, &summarize(&mut r.wakeup_latency_ns.clone())));
            let b = figures(Some(m.cpu_ns), None, None, &m.wakeup_latency_ns);
            pair(m.name.clone(), a, Some(b))
        })
        .collect();
    let (span_ms, top) = (real.span_ns.max(report.duration_ns) as f64 / 1e6, max_p99(&tasks));
    tasks.sort_by(|x, y| difference(y, span_ms, top).total_cmp(&difference(x, span_ms, top)));

    let mut hists = Vec::with_capacity(tasks.len() + 1);
    let all_real: Vec<u64> = real.tasks.iter().filter(|t| t.in_scenario).flat_map(|t| t.wakeup_latency_ns.iter().copied()).collect();
    let all_model = model_sets.iter().find(|s| s.0 == "all tasks").map_or_else(Vec::new, |s| s.1.clone());
    hists.push(AbHist { name: "all tasks".into(), a: log2(&all_real), b: log2(&all_model) });
    for t in &tasks {
        let r = real.tasks.iter().find(|r| r.name == t.name).map_or_else(Vec::new, |r| log2(&r.wakeup_latency_ns));
        let m = model_sets.iter().find(|s| s.0 == t.name).map_or_else(Vec::new, |s| log2(&s.1));
        hists.push(AbHist { name: t.name.clone(), a: r, b: m });
    }
    // The whole trace first: a busy machine's most different task may have woken a few times.
    let focus = Some("all tasks".to_string());

    let traces = (trace && model_slices.len() <= MAX_SENT_SLICES).then(|| AbTraces {
        cpus_a: real.cpus,
        cpus_b: sim.cpus.len() as u32,
        tasks_a: real.tasks.iter().map(|t| t.name.clone()).collect(),
        tasks_b: sim.tasks.iter().map(|t| t.name.clone()).collect(),
        // The real run's slices stay on the page, which has them already.
        a: Vec::new(),
        b: model_slices,
        duration_ns: real.span_ns.max(sim.duration_ns),
    });
    let rows: Vec<Row> = tasks
        .iter()
        .flat_map(|t| t.lines.iter().map(|l| Row { name: t.name.clone(), figure: l.figure.clone(), a: l.a, b: l.b, change_pct: l.change_pct }))
        .collect();
    let assumptions = assumptions(text, &report, real);
    let heading = format!("{} ({}) beside its replay under {}\n  A: the real run\n  B: the model\n", real.file, real.format, report.policy);
    Ok(AbTable {
        b_changes: Vec::new(),
        policy_a: real.format.clone(),
        policy_b: report.policy.to_string(),
        seed: report.seed,
        duration_ns: report.duration_ns,
        csv: rows_csv(&rows),
        csv_name: format!("{}-real-vs-model.csv", file_stem(&real.file)),
        text: super::ab_text_with(heading, &tasks),
        tasks,
        focus,
        hists,
        traces,
        why: None,
        real: Some(RealHeader { file: real.file.clone(), format: real.format.clone(), assumptions }),
    })
}

fn ms(ns: u64) -> String {
    format!("{:.2} ms", ns as f64 / 1e6)
}

/// What the model assumes in replaying the trace, and what the import left out, with the
/// numbers this run used.
fn assumptions(text: &str, report: &Report, real: &RealFigures) -> Vec<String> {
    let doc: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let e = &report.effective;
    let hz = if e.tick_ns > 0 { 1_000_000_000 / e.tick_ns } else { 0 };
    let mut out = Vec::new();
    let slice = match (e.base_slice_ns, e.latency_ns, e.min_granularity_ns) {
        (Some(b), _, _) => format!("base slice {}", ms(b)),
        (None, Some(l), Some(g)) => format!("sched_latency {}, min_granularity {}", ms(l), ms(g)),
        _ => String::new(),
    };
    let scaled = if e.factor > 1 { format!(" (the tunables scaled ×{} for {}, as the kernel's default tunable_scaling does)", e.factor, cpus(report.cpus.len())) } else { String::new() };
    out.push(format!(
        "The model: {} on {}, HZ {hz} (a trace does not record the host's HZ; the import assumes 250), {slice}{scaled}. Switches and wakeups cost no time in the model unless machine.costs says so; on the real machine they do.",
        report.policy,
        cpus(report.cpus.len())
    ));
    let tasks = doc.get("tasks").and_then(Value::as_array).cloned().unwrap_or_default();
    let pinned = tasks.iter().filter(|t| t.get("cpus").is_some()).count();
    out.push(format!(
        "Pinning: {pinned} of {} tasks are pinned to the CPUs where they did at least a tenth of their running (a trace does not record affinity), so the model balances them only among those.",
        tasks.len()
    ));
    out.push("Left out by the import: migrations (a task is kept to the CPUs it was pinned to), exits (a task that exits just stops), priority changes (the last prio seen is used throughout).".into());
    let rt: Vec<&str> = tasks
        .iter()
        .filter(|t| t.get("policy").and_then(Value::as_str).is_some_and(|p| p != "batch" && p != "idle"))
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    if !rt.is_empty() {
        out.push(format!(
            "Real-time and deadline tasks, {} ({}), are shown as load: each takes the CPU where it ran most whenever it ran, and is not scheduled by the model.",
            rt.len(),
            list(&rt)
        ));
    }
    let left: Vec<&str> = real.tasks.iter().filter(|t| !t.in_scenario).map(|t| t.name.as_str()).collect();
    if !left.is_empty() {
        out.push(format!("Not replayed, {} ({}): they ran in the trace but are not fair-class tasks the model can replay.", left.len(), list(&left)));
    }
    out.push("Wakeup latency: on the real run, from sched_waking (else sched_wakeup) to the sched_switch that puts the task on a CPU; in the model, from try_to_wake_up() to the switch in. A fork's first run and a preempted task's return are not wakeups on either side.".into());
    if !real.warnings.is_empty() {
        let n = real.warnings.len();
        out.push(format!("The import gave {n} warning{} (listed under the Open file… button).", if n == 1 { "" } else { "s" }));
    }
    out
}

/// "1 CPU", "2 CPUs".
fn cpus(n: usize) -> String {
    if n == 1 {
        "1 CPU".into()
    } else {
        format!("{n} CPUs")
    }
}

/// At most eight names, then how many more.
fn list(names: &[&str]) -> String {
    let mut s = names.iter().take(8).copied().collect::<Vec<_>>().join(", ");
    if names.len() > 8 {
        s.push_str(&format!(" and {} more", names.len() - 8));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAT: &[u8] = include_bytes!("../../../crates/sim/tests/fixtures/tracedat/host-6.18-hogs-sleeper.dat");

    #[test]
    fn the_recorded_trace_beside_its_replay() {
        let (imp, real) = crate::worker::import::import_trace(DAT, "host.dat", "eevdf-v6.18").unwrap_or_else(|e| panic!("refused: {e}"));
        let t = compare_real(&imp.scenario, &real.figures).unwrap_or_else(|e| panic!("refused: {e}"));
        assert_eq!(t.labels(), ("real", "model"));
        let h = t.real.as_ref().expect("a real header");
        assert_eq!(h.format, "a trace-cmd trace.dat");
        let said = h.assumptions.join("\n");
        // The import's HZ, v6.18's 0.70 ms base slice scaled by 1 + log2(2 CPUs) = 2.
        for want in ["HZ 250", "base slice 1.40 ms", "eevdf-v6.18 on 2 CPUs", "Pinning: ", "migrations", "exits", "priority changes"] {
            assert!(said.contains(want), "{want} not in {said}");
        }
        // Every replayed task has a table, the furthest apart first.
        assert_eq!(t.tasks.len(), imp.tasks);
        let span_ms = real.figures.span_ns.max(t.duration_ns) as f64 / 1e6;
        let d: Vec<f64> = t.tasks.iter().map(|x| difference(x, span_ms, max_p99(&t.tasks))).collect();
        assert!(d.windows(2).all(|w| w[0] >= w[1]), "{d:?}");
        // A's CPU time and wakeups are the real run's own.
        for task in &t.tasks {
            let r = real.figures.tasks.iter().find(|r| r.name == task.name).expect("the real task");
            let line = |f: &str| task.lines.iter().find(|l| l.figure == f).and_then(|l| l.a);
            assert_eq!(line("cpu_ms"), Some(r.cpu_ns as f64 / 1e6), "{}", task.name);
            assert_eq!(line("wakeups"), Some(r.wakeup_latency_ns.len() as f64), "{}", task.name);
        }
        // The histogram of all tasks counts every real wakeup latency of the replayed tasks.
        let all = &t.hists[0];
        let n: usize = real.figures.tasks.iter().filter(|r| r.in_scenario).map(|r| r.wakeup_latency_ns.len()).sum();
        assert_eq!((all.name.as_str(), all.a.iter().sum::<u64>()), ("all tasks", n as u64));
        // The model's slices come from the worker, the real ones stay on the page.
        let tr = t.traces.as_ref().expect("a short run's slices");
        assert!(tr.a.is_empty() && !tr.b.is_empty());
        assert_eq!((tr.cpus_a, tr.cpus_b), (2, 2));
        assert_eq!(tr.tasks_a.len(), real.figures.tasks.len());
    }

    #[test]
    fn a_difference_adds_the_shares_of_the_run_and_of_the_largest_p99() {
        use crate::wire::ab::AbLine;
        let line = |f: &str, a, b| AbLine { figure: f.into(), a, b, change_pct: None };
        let t = AbTask { name: "t".into(), lines: vec![line("cpu_ms", Some(100.0), Some(75.0)), line("p99_us", Some(10.0), Some(40.0))] };
        let tiny = AbTask { name: "u".into(), lines: vec![line("cpu_ms", Some(0.2), Some(0.2)), line("p99_us", Some(5.0), Some(0.0))] };
        let tasks = [t, tiny];
        assert_eq!(max_p99(&tasks), 40.0);
        // 25 ms of a 1000 ms run, and 30 µs of the largest p99's 40: 0.025 + 0.75.
        assert_eq!(difference(&tasks[0], 1000.0, 40.0), 0.775);
        // 5 µs of latency more than the model's and the same CPU time: 5/40 only.
        assert_eq!(difference(&tasks[1], 1000.0, 40.0), 0.125);
        let only_one_side = AbTask { name: "v".into(), lines: vec![line("cpu_ms", None, Some(100.0))] };
        assert_eq!(difference(&only_one_side, 1000.0, 0.0), 0.1);
    }
}
