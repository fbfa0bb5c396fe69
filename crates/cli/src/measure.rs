//! `fairground compare` and `fairground sweep`: the tables of the threads, from the command
//! line, as text or JSON.

use fairground_sim::measure::sweep::MAX_POINTS;
use fairground_sim::measure::{apply_at, check_sweep_cost, compare_reports, parse_assignment, parse_values, sweep_by, variants, Assignment, SweepPoint};
use fairground_sim::{Limits, ScenarioError};
use serde_json::{json, Value};
use std::process::ExitCode;

use crate::{emit, printable};

pub const USAGE: &str = "  compare FILE --a PATH=VALUE... --b PATH=VALUE... [--first-divergence [N]] [--jobs N] [--json]
                                run FILE under two variants (same seed) and print what changed
                                (with --first-divergence: the first N decisions where they part);
                                A and B run on two threads (--jobs 1: one after the other),
                                e.g. --a scheduler.features.latency_max_clamp_wakeup=true
                                     --b scheduler.features.latency_max_clamp_wakeup=false
  samples FILE                  every wakeup-latency and preempt-delay sample of a run, as CSV
  sweep FILE --param PATH --values V1,V2,... | --range LO..HI[:STEP]
        [--by PATH2 --by-values V1,... | --by-range LO..HI[:STEP]] [--task NAME] [--jobs N]
        [--json | --csv]
                                run FILE once per value of PATH (for each value of PATH2, with
                                --by) and print latency percentiles (of the task or workload
                                NAME, or of every task and workload) against it; the points
                                run on N threads (default: the CPUs), the output the same";

fn fail(msg: String) -> ExitCode {
    eprintln!("fairground: {}", printable(&msg));
    ExitCode::from(2)
}

fn read(file: &str) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))
}

/// What `compare` and `ablate` share on their command line: FILE, then the PATH=VALUE
/// changes of run A after `--a` and of run B after `--b`.
#[derive(Default)]
pub(crate) struct AbArgs {
    pub file: Option<String>,
    pub a: Vec<Assignment>,
    pub b: Vec<Assignment>,
    side: u8,
}

impl AbArgs {
    /// Take one argument that is none of the command's own options.
    pub fn take(&mut self, s: &str) -> Result<(), String> {
        match s {
            "--a" => self.side = 1,
            "--b" => self.side = 2,
            s if self.side == 0 && self.file.is_none() && !s.starts_with('-') => self.file = Some(s.to_string()),
            s => match parse_assignment(s)? {
                x if self.side == 1 => self.a.push(x),
                x if self.side == 2 => self.b.push(x),
                _ => return Err(format!("{s}: give it after --a or --b")),
            },
        }
        Ok(())
    }
}

pub fn compare_cmd(args: &[String]) -> ExitCode {
    let (mut ab, mut json_out) = (AbArgs::default(), false);
    let (mut diverge, mut jobs) = (None, crate::pool::default_jobs());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json_out = true,
            "--jobs" => match crate::pool::parse_jobs(it.next()) {
                Ok(j) => jobs = j,
                Err(e) => return fail(e),
            },
            "--first-divergence" => {
                // An optional count follows: how many diverging decisions to list.
                let n = it.clone().next().and_then(|x| x.parse::<usize>().ok());
                if n.is_some() {
                    it.next();
                }
                diverge = Some(n.unwrap_or(1).clamp(1, 1000));
            }
            s => {
                if let Err(e) = ab.take(s) {
                    return fail(e);
                }
            }
        }
    }
    let AbArgs { file, a, b, .. } = ab;
    let Some(file) = file else { return fail("compare needs a FILE".into()) };
    let text = match read(&file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    if let Some(n) = diverge {
        return first_divergence(&file, &text, &a, &b, n, jobs, json_out);
    }
    // The two runs are independent: on two threads an A/B takes the time of its longer run.
    let runs = variants(&text, &a, &b).and_then(|texts| {
        let mut r = crate::pool::run_parallel(&texts, jobs, |_, _| {}).into_iter();
        match (r.next(), r.next()) {
            (Some(ra), Some(rb)) => Ok(compare_reports(ra?, rb?)),
            _ => Err(ScenarioError::at("", "a run did not finish")),
        }
    });
    let c = match runs {
        Ok(c) => c,
        Err(e) => return fail(format!("{file}: {e}")),
    };
    if json_out {
        return emit(&(serde_json::to_string_pretty(&json!({ "rows": c.rows, "a": c.a, "b": c.b })).unwrap_or_default() + "\n"));
    }
    let f = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.3}"));
    let mut out = format!("{:<24} {:<20} {:>14} {:>14} {:>9}\n", "name", "figure", "A", "B", "change");
    for r in c.rows.iter().filter(|r| r.a.is_some() || r.b.is_some()) {
        let pct = r.change_pct.map_or(String::new(), |p| format!("{p:+.1}%"));
        out.push_str(&format!("{:<24} {:<20} {:>14} {:>14} {:>9}\n", printable(&r.name), printable(&r.figure), f(r.a), f(r.b), pct));
    }
    emit(&out)
}

/// `compare --first-divergence [N]`: the first N decisions at which runs A and B part ways,
/// each side in words (from both runs' decision logs).
fn first_divergence(file: &str, text: &str, a: &[Assignment], b: &[Assignment], n: usize, jobs: usize, json_out: bool) -> ExitCode {
    use fairground_sim::measure::diverge::{divergences, log_of, namer, run_logged};
    let runs = if jobs > 1 {
        std::thread::scope(|s| {
            let rb = s.spawn(|| run_logged(text, b, &Limits::NATIVE));
            let ra = run_logged(text, a, &Limits::NATIVE);
            let rb = rb.join().unwrap_or_else(|_| Err(ScenarioError::at("", "run B did not finish")));
            ra.and_then(|ra| rb.map(|rb| (ra, rb)))
        })
    } else {
        run_logged(text, a, &Limits::NATIVE).and_then(|ra| run_logged(text, b, &Limits::NATIVE).map(|rb| (ra, rb)))
    };
    let (ra, rb) = match runs {
        Ok(r) => r,
        Err(e) => return fail(format!("{}: {}", printable(file), printable(&e.to_string()))),
    };
    let names = namer(&ra);
    let d = divergences(log_of(&ra), log_of(&rb), n, &names);
    if json_out {
        return emit(&(serde_json::to_string_pretty(&d).unwrap_or_default() + "\n"));
    }
    if d.is_empty() {
        return emit("A and B make the same decisions throughout the run.\n");
    }
    let mut out = String::new();
    for x in &d {
        out += &format!("decision {} at {:.6} ms:\n  A: {}\n  B: {}\n", x.index, x.at_ns as f64 / 1e6, printable(&x.a_text), printable(&x.b_text));
    }
    emit(&out)
}

/// `--values` takes a list; `--range` takes LO..HI[:STEP]; the core reads both forms.
fn values_of(spec: &str, range: bool) -> Result<Vec<Value>, String> {
    if range && !spec.contains("..") {
        return Err(format!("{spec}: expected LO..HI[:STEP]"));
    }
    parse_values(spec)
}

pub fn sweep_cmd(args: &[String]) -> ExitCode {
    let (mut file, mut param, mut values, mut task, mut json_out, mut csv_out) = (None, None, None, None, false, false);
    let (mut by, mut by_values, mut jobs) = (None, None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--param" => param = it.next().cloned(),
            "--values" | "--range" => match it.next().map(|v| values_of(v, arg == "--range")) {
                Some(Ok(v)) => values = Some(v),
                Some(Err(e)) => return fail(e),
                None => return fail(format!("{arg} needs a value")),
            },
            "--by" => by = it.next().cloned(),
            "--by-values" | "--by-range" => match it.next().map(|v| values_of(v, arg == "--by-range")) {
                Some(Ok(v)) => by_values = Some(v),
                Some(Err(e)) => return fail(e),
                None => return fail(format!("{arg} needs a value")),
            },
            "--task" => task = it.next().cloned(),
            "--json" => json_out = true,
            "--csv" => csv_out = true,
            "--jobs" => match crate::pool::parse_jobs(it.next()) {
                Ok(j) => jobs = Some(j),
                Err(e) => return fail(e),
            },
            s if !s.starts_with('-') && file.is_none() => file = Some(s.to_string()),
            s => return fail(format!("unknown option {s}")),
        }
    }
    let (Some(file), Some(param), Some(values)) = (file, param, values) else {
        return fail("sweep needs FILE, --param and --values or --range".into());
    };
    let by = match (by, by_values) {
        (Some(p), Some(v)) => Some((p, v)),
        (None, None) => None,
        _ => return fail("--by needs --by-values or --by-range, and they need --by".into()),
    };
    if values.len() * by.as_ref().map_or(1, |b| b.1.len()) > MAX_POINTS {
        return fail(format!("more than {MAX_POINTS} points"));
    }
    let text = match read(&file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let jobs = jobs.unwrap_or_else(crate::pool::default_jobs);
    let by_ref = by.as_ref().map(|(p, v)| (p.as_str(), v.as_slice()));
    let bar = crate::progress::Bar::new("sweep");
    let progress = |i: usize, n: usize| {
        bar.set(i, n);
        true
    };
    // One thread: the core's own sweep, point after point. More: the same points, run on
    // threads and put back in the core's order.
    let points = if jobs == 1 { sweep_by(&text, &param, &values, by_ref, &Limits::NATIVE, progress) } else { sweep_parallel(&text, &param, &values, by_ref, jobs, progress) };
    let points = match points {
        Ok(p) => p,
        Err(e) => return fail(format!("{file}: {e}")),
    };
    bar.finish();
    if csv_out {
        return emit(&fairground_sim::measure::csv::sweep_csv(&points));
    }
    let mut rows = Vec::new();
    let wanted = |name: &str| task.as_ref().is_none_or(|n| n == name);
    let pcts = |l: &fairground_sim::report::LatencyStats| {
        json!({ "wakeups": l.count, "p50": l.p50, "p75": l.p75, "p90": l.p90, "p95": l.p95, "p99": l.p99, "p995": l.p995, "p999": l.p999, "max": l.max })
    };
    for p in &points {
        for t in p.report.tasks.iter().filter(|t| wanted(&t.name)) {
            let mut r = json!({ "value": p.value, "task": t.name, "cpu_ns": t.cpu_ns });
            if let Some(b) = &p.by {
                merge(&mut r, json!({ "by": b }));
            }
            merge(&mut r, pcts(&t.wakeup_latency_ns));
            rows.push(r);
        }
        // A workload's own figures (a schbench's cover its workers only, as schbench reports
        // them): what the threads' tables quote, which no single task's row gives.
        for w in p.report.workloads.iter().filter(|w| wanted(&w.name)) {
            let mut r = json!({ "value": p.value, "workload": w.name });
            if let Some(b) = &p.by {
                merge(&mut r, json!({ "by": b }));
            }
            merge(&mut r, pcts(&w.wakeup_latency_ns));
            rows.push(r);
        }
    }
    if json_out {
        let mut head = json!({ "param": param });
        if let Some((b, _)) = &by {
            merge(&mut head, json!({ "by": b }));
        }
        merge(&mut head, json!({ "rows": rows }));
        return emit(&(serde_json::to_string_pretty(&head).unwrap_or_default() + "\n"));
    }
    let us = |v: &Value| v.as_u64().map_or("-".into(), |x| format!("{:.1}", x as f64 / 1e3));
    let mut out = String::new();
    let by_name = by.as_ref().map(|(b, _)| printable(b.rsplit('.').next().unwrap_or(b)));
    if let Some(b) = &by_name {
        out += &format!("{b:<10} ");
    }
    out += &format!("{:<10} {:<20} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", printable(param.rsplit('.').next().unwrap_or(&param)), "task", "wakeups", "p50 µs", "p75", "p90", "p95", "p99", "max");
    for r in &rows {
        if by_name.is_some() {
            out += &format!("{:<10} ", shown(&r["by"]));
        }
        out += &format!(
            "{:<10} {:<20} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n",
            shown(&r["value"]),
            printable(r["task"].as_str().or(r["workload"].as_str()).unwrap_or("")),
            r["wakeups"],
            us(&r["p50"]),
            us(&r["p75"]),
            us(&r["p90"]),
            us(&r["p95"]),
            us(&r["p99"]),
            us(&r["max"])
        );
    }
    emit(&out)
}

/// `sweep_by` with its points run on `jobs` threads: the same cost check first, each point's
/// scenario built as the core builds it (the base with PATH, then PATH2, set), and the
/// reports in the core's order (PATH2 the outer loop), so the output does not depend on `jobs`.
/// An error is the first point's in that order, as the sequential sweep would stop at.
fn sweep_parallel(
    base: &str,
    path: &str,
    values: &[Value],
    by: Option<(&str, &[Value])>,
    jobs: usize,
    progress: impl Fn(usize, usize) -> bool + Sync,
) -> Result<Vec<SweepPoint>, ScenarioError> {
    check_sweep_cost(base, path, values, by, &Limits::NATIVE)?;
    let v = fairground_sim::scenario::parse_jsonc(base)?;
    let outer: Vec<Option<&Value>> = by.map_or(vec![None], |(_, bv)| bv.iter().map(Some).collect());
    let mut pts = Vec::new();
    for b in outer {
        for x in values {
            let mut set = vec![Assignment { path: path.to_string(), value: x.clone() }];
            if let (Some((bp, _)), Some(bv)) = (by, b) {
                set.push(Assignment { path: bp.to_string(), value: bv.clone() });
            }
            let mut t = v.clone();
            for a in &set {
                apply_at(&mut t, a)?;
            }
            pts.push((x.clone(), b.cloned(), t.to_string()));
        }
    }
    let texts: Vec<&str> = pts.iter().map(|(_, _, t)| t.as_str()).collect();
    let reports = crate::pool::run_parallel(&texts, jobs, |i, n| {
        progress(i, n);
    });
    pts.into_iter()
        .zip(reports)
        .map(|((value, by, _), r)| Ok(SweepPoint { value, by, report: r? }))
        .collect()
}

/// A swept value as the text table shows it: a string without its JSON quotes, printable.
fn shown(v: &Value) -> String {
    printable(&v.as_str().map_or_else(|| v.to_string(), str::to_string))
}

/// Copy `extra`'s keys into the object `row`.
fn merge(row: &mut Value, extra: Value) {
    if let (Some(r), Value::Object(e)) = (row.as_object_mut(), extra) {
        r.extend(e);
    }
}

pub fn samples_cmd(args: &[String]) -> ExitCode {
    let [file] = args else { return fail("samples takes one FILE".into()) };
    let text = match read(file) {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    match fairground_sim::run_to_end(&text, &Limits::NATIVE, false) {
        Ok(sim) => emit(&fairground_sim::measure::csv::samples_csv(&sim)),
        Err(e) => fail(format!("{file}: {e}")),
    }
}
