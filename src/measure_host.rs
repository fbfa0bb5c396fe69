//! The measuring side of the worker (issues 9 and 11): whole runs of the current scenario
//! exported as files (the report of contract §2, the latency samples as CSV, the run as ftrace
//! text), and A/B comparisons of the scenario against a variant of it. Pure Rust: the core
//! computes every figure (`measure::compare`, `measure::csv`, `interop::to_ftrace`); this
//! module only asks it and shapes the answers into plain records for the page. Tested natively.
//!
//! These requests go to a second worker of their own, so that a run of several seconds never
//! holds up the timeline's worker (whose answers are kept short and watched by a watchdog).

use fairground_sim::engine::Sim;
use fairground_sim::interop::to_ftrace;
use fairground_sim::measure::csv::{rows_csv, samples_csv};
use fairground_sim::measure::{compare, parse_assignment, Assignment, Histogram, Row};
use fairground_sim::report::{LatencyStats, Report};
use fairground_sim::scenario::{self, Limits};
use fairground_sim::parse_scenario;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum ExportKind {
    /// The report of contract §2, as the CLI prints it.
    Report,
    /// Every wakeup-latency and preempt-delay sample, `task,kind,ns`.
    Samples,
    /// The run as Linux ftrace text (Perfetto, trace-cmd and KernelShark read it).
    Ftrace,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Request {
    Export { text: String, kind: ExportKind },
    /// A = `text` as it is; B = `text` with the `path=value` lines of `b` applied; same seed.
    Compare { text: String, b: String },
    /// runqlat-style log2 histogram of one task's wakeup latencies over the whole run.
    Histogram { text: String, task: String },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Answer {
    Exported(Exported),
    Compared(AbTable),
    Histogram(LogHist),
    /// The request was refused: the message names the problem (a bad line of B, a scenario
    /// the core refuses, a task that does not exist).
    Failed { message: String },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Exported {
    pub kind: ExportKind,
    /// The scenario's name (Perfetto's tab title).
    pub title: String,
    pub file_name: String,
    pub mime: String,
    pub body: String,
}

/// The percentiles of the A/B tables, as schbench prints them, with the report field each is.
pub const PERCENTILES: [&str; 7] = ["p50", "p75", "p90", "p95", "p99", "p99.5", "p99.9"];

fn pick(l: &LatencyStats) -> [Option<u64>; 7] {
    [l.p50, l.p75, l.p90, l.p95, l.p99, l.p995, l.p999]
}

/// One line of a task's A/B table: a figure under both variants and the change in percent
/// (None when A is 0 or either side has no figure, e.g. no wakeups).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbLine {
    pub figure: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub change_pct: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbTask {
    pub name: String,
    pub lines: Vec<AbLine>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbTable {
    /// The changes B makes, one `path=value` per entry, as the core read them.
    pub b_changes: Vec<String>,
    pub policy_a: String,
    pub policy_b: String,
    pub seed: u64,
    pub duration_ns: u64,
    pub tasks: Vec<AbTask>,
    /// The same table as CSV (`name,figure,a,b,change_pct`, the core's A/B layout).
    pub csv: String,
    pub csv_name: String,
    /// The same table as plain text to paste into a mail, in the threads' layout.
    pub text: String,
}

/// Counts per log2 bucket of µs: bucket 0 is [0, 1) µs, bucket k ≥ 1 is [2^(k−1), 2^k) µs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LogHist {
    pub task: String,
    pub counts: Vec<u64>,
    /// The histogram as runqlat prints it.
    pub text: String,
}

/// Answer one request. Never panics on what the user typed: every refusal is `Failed`.
pub fn answer(req: Request) -> Answer {
    let out = match req {
        Request::Export { text, kind } => export(&text, kind).map(Answer::Exported),
        Request::Compare { text, b } => compare_ab(&text, &b).map(Answer::Compared),
        Request::Histogram { text, task } => histogram(&text, &task).map(Answer::Histogram),
    };
    out.unwrap_or_else(|message| Answer::Failed { message })
}

/// A finished run of `text`, within the browser's limits, with slice recording if asked.
fn full_run(text: &str, trace: bool) -> Result<Sim, String> {
    let v = parse_scenario(text).map_err(|e| e.to_string())?;
    scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
    let mut sim = Sim::new(&v).map_err(|e| e.to_string())?;
    if trace {
        sim.enable_trace();
    }
    sim.run();
    Ok(sim)
}

/// A file name from the scenario's name: lower case, runs of other characters as one '-'.
pub fn file_stem(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 48 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "fairground-run".into()
    } else {
        out
    }
}

/// Most bytes one export may have: the text is built in the worker, copied to the page and
/// into a Blob, all within one tab's memory.
pub const MAX_EXPORT_BYTES: u64 = 512 << 20;

/// Pessimistic bytes of output per event of the core's cost estimate. Over the shipped
/// scenarios the ftrace text has 10–205 bytes per estimated event (the most on the shortest
/// runs, where forks and the header weigh most) and at most 137 per event processed; a CSV
/// line of a sample (~25 bytes) comes with each wakeup, which the estimate counts as 4 events.
fn bytes_per_event(kind: ExportKind) -> u64 {
    match kind {
        ExportKind::Ftrace => 160,
        ExportKind::Samples => 8,
        ExportKind::Report => 0,
    }
}

/// Refuse, before running, an export too large for the browser; the message says how large.
fn check_size(text: &str, kind: ExportKind) -> Result<(), String> {
    let v = parse_scenario(text).map_err(|e| e.to_string())?;
    let events = scenario::estimate(&v.scenario).events;
    let bytes = events.saturating_mul(bytes_per_event(kind));
    if bytes > MAX_EXPORT_BYTES {
        let what = if kind == ExportKind::Ftrace { "ftrace text" } else { "samples CSV" };
        return Err(format!(
            "The {what} of this run would be about {} MB (estimated from its {events} scheduler events), more than the {} MB a browser tab can hand over. Shorten duration_ms, or use the CLI (fairground export-ftrace / fairground samples).",
            bytes >> 20,
            MAX_EXPORT_BYTES >> 20
        ));
    }
    Ok(())
}

pub fn export(text: &str, kind: ExportKind) -> Result<Exported, String> {
    check_size(text, kind)?;
    let mut sim = full_run(text, kind == ExportKind::Ftrace)?;
    let stem = file_stem(&sim.name);
    // Before the report: building it sorts each task's samples in place, and both the ftrace
    // export (wakeup times) and the samples CSV need them in the order they happened.
    let (file_name, mime, body) = match kind {
        ExportKind::Ftrace => (format!("{stem}.ftrace.txt"), "text/plain", to_ftrace(&sim)),
        ExportKind::Samples => (format!("{stem}-samples.csv"), "text/csv", samples_csv(&sim)),
        ExportKind::Report => {
            let json = serde_json::to_string_pretty(&sim.report()).map_err(|e| format!("the report could not be written as JSON: {e}"))?;
            (format!("{stem}-report.json"), "application/json", json + "\n")
        }
    };
    Ok(Exported { kind, title: sim.name.clone(), file_name, mime: mime.into(), body })
}

/// Read B's changes: one `path=value` per line (or separated by ';'); blank lines and lines
/// starting with '#' are skipped. The error names the line.
pub fn parse_changes(b: &str) -> Result<Vec<Assignment>, String> {
    let mut out = Vec::new();
    for (i, line) in b.split(['\n', ';']).enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let a = parse_assignment(line).map_err(|e| format!("B, change {}: {e}", i + 1))?;
        if a.path.is_empty() {
            return Err(format!("B, change {}: \"{line}\" has no path before '='", i + 1));
        }
        out.push(a);
    }
    if out.is_empty() {
        return Err("B has no change: give at least one path=value, e.g. scheduler.features.latency_max_clamp_wakeup=false".into());
    }
    Ok(out)
}

fn change(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if a != 0.0 => Some((b - a) / a * 100.0),
        _ => None,
    }
}

/// One side's figures of a table: CPU time, wakeups, wakeup preemptions and completion time
/// where the entity has them, then the latency percentiles and the maximum (in µs).
fn figures(cpu_ns: Option<u64>, preemptions: Option<u64>, completion_ns: Option<u64>, l: &LatencyStats) -> Vec<(String, Option<f64>)> {
    let us = |x: Option<u64>| x.map(|v| v as f64 / 1e3);
    let mut out = Vec::with_capacity(12);
    if let Some(c) = cpu_ns {
        out.push(("cpu_ms".to_string(), Some(c as f64 / 1e6)));
    }
    out.push(("wakeups".into(), Some(l.count as f64)));
    if let Some(p) = preemptions {
        out.push(("wakeup_preemptions".into(), Some(p as f64)));
    }
    if completion_ns.is_some() {
        out.push(("completion_ms".into(), completion_ns.map(|c| c as f64 / 1e6)));
    }
    for (p, x) in PERCENTILES.iter().zip(pick(l)) {
        out.push((format!("{p}_us"), us(x)));
    }
    out.push(("max_us".into(), us(l.max)));
    out
}

/// A table from both sides' figures, matched by figure (a side that lacks the entity or a
/// figure has None there).
fn pair(name: String, a: Option<Vec<(String, Option<f64>)>>, b: Option<Vec<(String, Option<f64>)>>) -> AbTask {
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    let mut names: Vec<&String> = a.iter().map(|x| &x.0).collect();
    names.extend(b.iter().map(|x| &x.0).filter(|f| !a.iter().any(|x| &x.0 == *f)));
    let get = |side: &[(String, Option<f64>)], f: &str| side.iter().find(|x| x.0 == f).and_then(|x| x.1);
    let lines = names
        .into_iter()
        .map(|f| {
            let (va, vb) = (get(&a, f), get(&b, f));
            AbLine { figure: f.clone(), a: va, b: vb, change_pct: change(va, vb) }
        })
        .collect();
    AbTask { name, lines }
}

/// Tables of one kind of entity, matched by name: A's in order, then those only B has (B may
/// change a task's count, or add a group).
fn match_by_name<T>(a: &[T], b: &[T], name: impl Fn(&T) -> String, figs: impl Fn(&T) -> Vec<(String, Option<f64>)>) -> Vec<AbTask> {
    let mut out: Vec<AbTask> = a.iter().map(|x| pair(name(x), Some(figs(x)), b.iter().find(|y| name(y) == name(x)).map(&figs))).collect();
    for y in b.iter().filter(|y| !a.iter().any(|x| name(x) == name(y))) {
        out.push(pair(name(y), None, Some(figs(y))));
    }
    out
}

/// Workloads first (schbench's and hackbench's own figures, what the threads quote), then tasks,
/// then cgroups.
fn tables(ra: &Report, rb: &Report) -> Vec<AbTask> {
    let mut out = match_by_name(&ra.workloads, &rb.workloads, |w| format!("workload {}", w.name), |w| {
        figures(None, None, w.completion_ns, &w.wakeup_latency_ns)
    });
    out.extend(match_by_name(&ra.tasks, &rb.tasks, |t| t.name.clone(), |t| {
        figures(Some(t.cpu_ns), Some(t.wakeup_preemptions), None, &t.wakeup_latency_ns)
    }));
    out.extend(match_by_name(&ra.cgroups, &rb.cgroups, |g| format!("cgroup {}", g.name), |g| {
        figures(Some(g.cpu_ns), None, None, &g.wakeup_latency_ns)
    }));
    out
}

/// The table as the threads post theirs: a heading per entity, then `figure  A  B  change`
/// in fixed columns (latencies in µs, "-" for none).
pub fn ab_text(scenario: &str, changes: &[Assignment], tasks: &[AbTask]) -> String {
    use std::fmt::Write;
    let mut out = format!("{scenario}\n  A: as is\n  B: {}\n", changes.iter().map(|a| format!("{}={}", a.path, a.value)).collect::<Vec<_>>().join(", "));
    let num = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.1}") });
    for t in tasks {
        let _ = write!(out, "\n{:<22}{:>12}{:>12}{:>10}\n", t.name, "A", "B", "change");
        for l in &t.lines {
            let c = l.change_pct.map_or_else(String::new, |c| format!("{c:+.1}%"));
            let _ = writeln!(out, "  {:<20}{:>12}{:>12}{:>10}", l.figure, num(l.a), num(l.b), c);
        }
    }
    out
}

pub fn compare_ab(text: &str, b: &str) -> Result<AbTable, String> {
    let changes = parse_changes(b)?;
    let c = compare(text, &[], &changes, &Limits::BROWSER).map_err(|e| e.to_string())?;
    let tasks = tables(&c.a, &c.b);
    let rows: Vec<Row> = tasks
        .iter()
        .flat_map(|t| {
            t.lines.iter().map(|l| Row { name: t.name.clone(), figure: l.figure.clone(), a: l.a, b: l.b, change_pct: l.change_pct })
        })
        .collect();
    let text = ab_text(&c.a.scenario, &changes, &tasks);
    Ok(AbTable {
        b_changes: changes.iter().map(|a| format!("{}={}", a.path, a.value)).collect(),
        policy_a: c.a.policy.to_string(),
        policy_b: c.b.policy.to_string(),
        seed: c.a.seed,
        duration_ns: c.a.duration_ns,
        tasks,
        csv: rows_csv(&rows),
        csv_name: format!("{}-ab.csv", file_stem(&c.a.scenario)),
        text,
    })
}

pub fn histogram(text: &str, task: &str) -> Result<LogHist, String> {
    let sim = full_run(text, false)?;
    let t = sim.tasks.iter().find(|t| t.name == task).ok_or_else(|| format!("no task named \"{task}\" in this run"))?;
    let h = Histogram::log2_us(&t.stats.wakeup_latency);
    Ok(LogHist { task: task.to_string(), text: h.to_text(), counts: h.counts })
}

#[cfg(test)]
mod tests;
