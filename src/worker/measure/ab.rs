//! A/B comparisons: the scenario as it is (A) against a variant of it (B), same
//! seed. Both runs are kept whole, so besides the schbench-style tables the page gets each
//! entity's histogram under A and B and both runs' slices for side-by-side timelines.

use fairground_sim::engine::Sim;
use fairground_sim::measure::csv::rows_csv;
use fairground_sim::measure::{parse_assignment, run_variant, run_variant_logged, Assignment, Histogram, Row};
use fairground_sim::report::{CgroupReport, LatencyStats, Report, TaskReport, WorkloadReport};
use fairground_sim::scenario::{self, Limits};

use super::{file_stem, pct_table};
use crate::wire::ab::{AbHist, AblationRow, AblationTable, AbLine, AbTable, AbTask, AbTraces, AbWhy};
use crate::wire::measure::{ClampFlips, MAX_FLIP_TIMES};
use crate::wire::proto::WireSlice;

/// Most scheduler events (the core's estimate, pessimistic for hackbench, whose loops it counts
/// whole) for which both runs' slices are recorded: a slice is 40 bytes, at most one per two
/// events, and both runs are held at once.
pub const MAX_TRACE_EVENTS: u64 = 20_000_000;

/// Most slices per run sent to the page (they are copied into the page's own store there).
pub const MAX_SENT_SLICES: usize = 2_000_000;

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
pub(super) fn figures(cpu_ns: Option<u64>, preemptions: Option<u64>, completion_ns: Option<u64>, l: &LatencyStats) -> Vec<(String, Option<f64>)> {
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
    out.extend(pct_table(l));
    out
}

/// A table from both sides' figures, matched by figure (a side that lacks the entity or a
/// figure has None there).
pub(super) fn pair(name: String, a: Option<Vec<(String, Option<f64>)>>, b: Option<Vec<(String, Option<f64>)>>) -> AbTask {
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
    let mut out = match_by_name(&ra.workloads, &rb.workloads, |w| format!("workload {}", w.name), workload_figures);
    out.extend(match_by_name(&ra.tasks, &rb.tasks, |t| t.name.clone(), task_figures));
    out.extend(match_by_name(&ra.cgroups, &rb.cgroups, |g| format!("cgroup {}", g.name), cgroup_figures));
    out
}

/// A workload's figures: its own (schbench's and hackbench's), what the threads quote.
pub(super) fn workload_figures(w: &WorkloadReport) -> Vec<(String, Option<f64>)> {
    figures(None, None, w.completion_ns, &w.wakeup_latency_ns)
}

pub(super) fn task_figures(t: &TaskReport) -> Vec<(String, Option<f64>)> {
    figures(Some(t.cpu_ns), Some(t.wakeup_preemptions), None, &t.wakeup_latency_ns)
}

pub(super) fn cgroup_figures(g: &CgroupReport) -> Vec<(String, Option<f64>)> {
    figures(Some(g.cpu_ns), None, None, &g.wakeup_latency_ns)
}

/// The table as the threads post theirs: a heading per entity, then `figure  A  B  change`
/// in fixed columns (latencies in µs, "-" for none).
pub fn ab_text(scenario: &str, changes: &[Assignment], tasks: &[AbTask]) -> String {
    ab_text_with(format!("{scenario}\n  A: as is\n  B: {}\n", changes.iter().map(|a| format!("{}={}", a.path, a.value)).collect::<Vec<_>>().join(", ")), tasks)
}

/// The tables in fixed columns under `heading`.
pub fn ab_text_with(heading: String, tasks: &[AbTask]) -> String {
    use std::fmt::Write;
    let mut out = heading;
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

/// Every slice of a finished run, the stints still open at the end closed there.
pub(super) fn slices_of(sim: &Sim) -> Vec<WireSlice> {
    let Some(tr) = sim.trace.as_ref() else { return Vec::new() };
    let mut out: Vec<WireSlice> = tr.slices.iter().map(crate::worker::host::wire).collect();
    for (cpu, o) in tr.open.iter().enumerate() {
        if let Some(o) = o.filter(|o| o.start_ns < sim.duration_ns) {
            out.push(WireSlice { cpu: cpu as u32, task: o.task, start_ns: o.start_ns, end_ns: sim.duration_ns, why: (o.start_why as u8) << 4 | 5, other: crate::wire::proto::NONE });
        }
    }
    out
}

fn hists_of(a: &Sim, b: &Sim) -> Vec<AbHist> {
    let (sa, sb) = (a.wakeup_sample_sets(), b.wakeup_sample_sets());
    let log2 = |s: Option<&(String, Vec<u64>)>| s.map_or_else(Vec::new, |s| Histogram::log2_us(&s.1).counts);
    let mut out: Vec<AbHist> = sa.iter().map(|x| AbHist { name: x.0.clone(), a: log2(Some(x)), b: log2(sb.iter().find(|y| y.0 == x.0)) }).collect();
    out.extend(sb.iter().filter(|y| !sa.iter().any(|x| x.0 == y.0)).map(|y| AbHist { name: y.0.clone(), a: Vec::new(), b: log2(Some(y)) }));
    out
}

/// The histogram set B's first change edits: `tasks[i]…` is that entry's task (its first when
/// it has a count), `workloads[i]…` and `cgroups[i]…` the workload or cgroup.
fn focus(text: &str, changes: &[Assignment], hists: &[AbHist]) -> Option<String> {
    let doc = fairground_sim::scenario::parse_jsonc(text).ok()?;
    let (key, rest) = changes.first()?.path.split_once('[')?;
    let i: usize = rest.split_once(']')?.0.parse().ok()?;
    let name = doc.get(key)?.get(i)?.get("name")?.as_str()?;
    let want = match key {
        "workloads" => format!("workload {name}"),
        "cgroups" => format!("cgroup {name}"),
        _ => name.to_string(),
    };
    let task_of_entry = |h: &&AbHist| key == "tasks" && h.name.strip_prefix(name).is_some_and(|r| r.starts_with('/'));
    hists.iter().find(|h| h.name == want).or_else(|| hists.iter().find(task_of_entry)).map(|h| h.name.clone())
}

pub fn compare_ab(text: &str, b: &str) -> Result<AbTable, String> {
    let changes = parse_changes(b)?;
    let v = fairground_sim::parse_scenario(text).map_err(|e| e.to_string())?;
    let estimated = scenario::estimate(&v.scenario).events;
    let trace = estimated <= MAX_TRACE_EVENTS;
    let log = estimated <= MAX_LOGGED_EVENTS;
    let run = |set: &[Assignment]| if log { run_variant_logged(text, set, &Limits::BROWSER, trace) } else { run_variant(text, set, &Limits::BROWSER, trace) };
    let mut sa = run(&[]).map_err(|e| e.to_string())?;
    let mut sb = run(&changes).map_err(|e| e.to_string())?;
    let why = log.then(|| why_of(&sa, &sb));
    let hists = hists_of(&sa, &sb);
    let shown_first = focus(text, &changes, &hists);
    let (a, b) = (slices_of(&sa), slices_of(&sb));
    let traces = (trace && a.len().max(b.len()) <= MAX_SENT_SLICES).then(|| AbTraces {
        cpus_a: sa.cpus.len() as u32,
        cpus_b: sb.cpus.len() as u32,
        tasks_a: sa.tasks.iter().map(|t| t.name.clone()).collect(),
        tasks_b: sb.tasks.iter().map(|t| t.name.clone()).collect(),
        a,
        b,
        duration_ns: sa.duration_ns.max(sb.duration_ns),
    });
    let c = fairground_sim::measure::compare_reports(sa.report(), sb.report());
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
        focus: shown_first,
        hists,
        traces,
        why,
        real: None,
    })
}

/// Most estimated events for which both runs record every decision (a decision is about 60
/// bytes, and both logs are held at once).
pub const MAX_LOGGED_EVENTS: u64 = 2_000_000;

/// The clamps' impact in each run and the first decisions where the runs part.
fn why_of(a: &Sim, b: &Sim) -> AbWhy {
    use fairground_sim::measure::diverge::{clamp_impact, divergences, log_of, namer};
    let counts = |s: &Sim| {
        let on = s.fair.v12 && s.fair.cfg.feat.latency_max_clamp_wakeup;
        let c = clamp_impact(log_of(s), s.tasks.len(), s.cpus.len(), on).total;
        [(c.wakeup.bound, c.wakeup.flipped), (c.offset.bound, c.offset.flipped), (c.tick.bound, c.tick.flipped)]
    };
    let names = namer(a);
    AbWhy {
        clamp_a: counts(a),
        clamp_b: counts(b),
        v12: a.fair.v12 || b.fair.v12,
        divergences: divergences(log_of(a), log_of(b), 5, &names).into_iter().map(|d| (d.at_ns, d.a_text, d.b_text)).collect(),
    }
}

/// The decisions a v12 clamp flipped over the whole run of `text`, and each site's counts.
pub fn clamp_flips(text: &str) -> Result<ClampFlips, String> {
    use fairground_sim::measure::diverge::{clamp_impact, flipped_by_clamp, log_of, run_logged};
    let sim = run_logged(text, &[], &Limits::BROWSER).map_err(|e| e.to_string())?;
    let on = sim.fair.v12 && sim.fair.cfg.feat.latency_max_clamp_wakeup;
    let log = log_of(&sim);
    let c = clamp_impact(log, 0, 0, on).total;
    let mut times: Vec<u64> = log.iter().filter(|d| flipped_by_clamp(d, on)).map(|d| d.at_ns).collect();
    let truncated = times.len() > MAX_FLIP_TIMES;
    times.truncate(MAX_FLIP_TIMES);
    Ok(ClampFlips { sites: [(c.wakeup.bound, c.wakeup.flipped), (c.offset.bound, c.offset.flipped), (c.tick.bound, c.tick.flipped)], times, truncated })
}

/// "Which change did it?" in the browser: the A/B taken apart change by change, the runs one
/// after another in this worker, within the browser's limits.
pub fn ablate_ab(text: &str, b: &str, preset: Option<&str>, figure: &str) -> Result<AblationTable, String> {
    use fairground_sim::measure::ablate::{ablate, preset as sides, run_in_order, Figure};
    let fig = Figure::parse(figure.trim())?;
    let (a_set, b_set) = match preset {
        Some(p) => sides(p).ok_or_else(|| format!("there is no preset \"{p}\" (known: clamps, complete-eevdf)"))?,
        None => (Vec::new(), parse_changes(b)?),
    };
    let runner = run_in_order(Limits::BROWSER);
    let r = ablate(text, &a_set, &b_set, &fig, &runner).map_err(|e| e.to_string())?;
    let value = |v: &Option<serde_json::Value>| v.as_ref().map_or("(default)".to_string(), |x| x.to_string());
    Ok(AblationTable {
        figure: figure.trim().to_string(),
        a: r.a,
        b: r.b,
        rows: r
            .effects
            .iter()
            .map(|e| AblationRow {
                path: e.switch.path.clone(),
                a: value(&e.switch.a),
                b: value(&e.switch.b),
                forward: e.forward,
                backward: e.backward,
                share_pct: e.share_pct,
            })
            .collect(),
        interactions: r.interactions.iter().map(|i| (i.first.clone(), i.second.clone(), i.joint, i.sum)).collect(),
        runs: r.runs,
    })
}
