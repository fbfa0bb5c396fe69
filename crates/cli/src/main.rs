//! `fairground`: run Fairground scenarios from the command line (contract §2).
//!
//! `fairground run FILE [--json]` prints a readable summary, or with `--json` the report of
//! contract §2. Invalid input (unreadable file, syntax, validation, cost) prints the error to
//! stderr and exits 2.

use fairground_sim::report::{LatencyStats, Report};
use fairground_sim::{run_text, Limits};
use std::process::ExitCode;

mod ablate;
mod domains;
mod exercises;
mod fuzz;
mod interop;
mod latency;
mod measure;
mod pool;
mod progress;

const USAGE: &str = "usage: fairground run FILE [--json]

  run FILE     run a scenario file (JSON or JSONC, contract §1)
  --json       print the report as JSON (contract §2) instead of a summary
  -h, --help   show this help

more commands:
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("export-ftrace") => interop::export(&args[1..], false),
        Some("export-perfetto") => interop::export(&args[1..], true),
        Some("import") | Some("import-ftrace") => interop::import(&args[1..]),
        Some("import-rtapp") => interop::import_rtapp(&args[1..]),
        Some("export-rtapp") => interop::export_rtapp(&args[1..]),
        Some("compare") => measure::compare_cmd(&args[1..]),
        Some("sweep") => measure::sweep_cmd(&args[1..]),
        Some("samples") => measure::samples_cmd(&args[1..]),
        Some("fuzz") => fuzz::fuzz_cmd(&args[1..]),
        Some("ablate") => ablate::ablate_cmd(&args[1..]),
        Some("latency") => latency::latency_cmd(&args[1..]),
        Some("domains") => domains::domains_cmd(&args[1..]),
        Some("answer-key") => exercises::answer_key_cmd(&args[1..]),
        Some("-h") | Some("--help") | Some("help") => {
            emit(&format!("{USAGE}{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n", measure::USAGE, latency::USAGE, domains::USAGE, ablate::USAGE, interop::USAGE, interop::USAGE_RTAPP, fuzz::USAGE, exercises::USAGE))
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> ExitCode {
    let mut json = false;
    let mut file = None;
    for a in args {
        match a.as_str() {
            "--json" => json = true,
            s if s.starts_with('-') && s != "-" => {
                eprintln!("fairground: unknown option {}\n{USAGE}", printable(s));
                return ExitCode::from(2);
            }
            s => {
                if file.replace(s.to_string()).is_some() {
                    eprintln!("fairground: more than one FILE given\n{USAGE}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let Some(file) = file else {
        eprintln!("fairground: no FILE given\n{USAGE}");
        return ExitCode::from(2);
    };
    let text = if file == "-" {
        let mut s = String::new();
        match std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
            Ok(_) => s,
            Err(e) => {
                eprintln!("fairground: cannot read standard input: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        match std::fs::read_to_string(&file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("fairground: {}", printable(&format!("cannot read {file}: {e}")));
                return ExitCode::from(2);
            }
        }
    };
    // A lesson's "Try it" actions are scenarios of their own: a teacher learns of a broken one
    // here, not in front of the class.
    if let Err(e) = fairground_sim::parse_scenario(&text).and_then(|v| fairground_sim::scenario::check_tries(&v.scenario)) {
        eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
        return ExitCode::from(2);
    }
    match run_text(&text, &Limits::NATIVE) {
        Ok(report) => {
            if json {
                match serde_json::to_string_pretty(&report) {
                    Ok(s) => emit(&(s + "\n")),
                    Err(e) => {
                        eprintln!("fairground: cannot write the report: {e}");
                        ExitCode::from(1)
                    }
                }
            } else {
                emit(&summary(&report))
            }
        }
        Err(e) => {
            eprintln!("fairground: {}", printable(&format!("{file}: {e}")));
            ExitCode::from(2)
        }
    }
}

fn us(ns: Option<u64>) -> String {
    match ns {
        Some(v) if v % 1000 == 0 => format!("{}", v / 1000),
        Some(v) => format!("{:.1}", v as f64 / 1000.0),
        None => "-".into(),
    }
}

/// schbench prints "Wakeup Latencies percentiles (usec)" with one line per percentile; this
/// prints the same per task.
fn percentiles(title: &str, s: &LatencyStats) -> String {
    let mut out = format!("  {title} percentiles (usec) runtime samples: {}\n", s.count);
    if s.count == 0 {
        return out;
    }
    for (label, v) in [
        ("50.0th", s.p50),
        ("75.0th", s.p75),
        ("90.0th", s.p90),
        ("95.0th", s.p95),
        ("*99.0th", s.p99),
        ("99.5th", s.p995),
        ("99.9th", s.p999),
    ] {
        out.push_str(&format!("  \t{label:>7}: {}\n", us(v)));
    }
    out.push_str(&format!("  \t    min={}, mean={}, max={}\n", us(s.min), us(s.mean), us(s.max)));
    out
}

fn summary(r: &Report) -> String {
    let mut out = format!(
        "scenario: {}\npolicy:   {}   seed {}   duration {} ms   {} events\n",
        printable(&r.scenario),
        printable(r.policy),
        r.seed,
        r.duration_ns / 1_000_000,
        r.events
    );
    let e = &r.effective;
    let mut eff = Vec::new();
    for (k, v) in [
        ("latency_ns", e.latency_ns),
        ("min_granularity_ns", e.min_granularity_ns),
        ("wakeup_granularity_ns", e.wakeup_granularity_ns),
        ("sched_nr_latency", e.sched_nr_latency),
        ("base_slice_ns", e.base_slice_ns),
        ("latency_max_ns", e.latency_max_ns),
    ] {
        if let Some(v) = v {
            eff.push(format!("{k}={v}"));
        }
    }
    eff.push(format!("tick_ns={}", e.tick_ns));
    out.push_str(&format!("effective: {} (factor {})\n", eff.join(" "), e.factor));
    for w in &r.warnings {
        out.push_str(&format!("warning: {}\n", printable(w)));
    }
    out.push('\n');
    for t in &r.tasks {
        out.push_str(&format!(
            "{}: cpu {:.3} ms ({:.2}%)  wakeups {}  switches {}  involuntary {} (tick {}, wakeup {})  wakeup preemptions {}  migrations {}  overruns {}\n",
            printable(&t.name),
            t.cpu_ns as f64 / 1e6,
            t.share * 100.0,
            t.wakeups,
            t.switches,
            t.involuntary,
            t.involuntary_tick,
            t.involuntary_wakeup,
            t.wakeup_preemptions,
            t.migrations,
            t.overruns
        ));
        out.push_str(&percentiles("Wakeup Latencies", &t.wakeup_latency_ns));
        if t.preempt_delay_ns.count > 0 {
            out.push_str(&percentiles("Preempt Delays", &t.preempt_delay_ns));
        }
    }
    for g in &r.cgroups {
        out.push_str(&format!("cgroup {}: cpu {:.3} ms\n", printable(&g.name), g.cpu_ns as f64 / 1e6));
        out.push_str(&percentiles("Wakeup Latencies", &g.wakeup_latency_ns));
    }
    for w in &r.workloads {
        let done = match w.completion_ns {
            Some(ns) => format!("completed in {:.3} ms", ns as f64 / 1e6),
            None => "not completed within the run".to_string(),
        };
        out.push_str(&format!("workload {}: {done}\n", printable(&w.name)));
        out.push_str(&percentiles("Wakeup Latencies", &w.wakeup_latency_ns));
    }
    out.push_str("\ncpus:");
    for c in &r.cpus {
        out.push_str(&format!(" {}:{:.1}%", c.id, c.busy_ns as f64 * 100.0 / r.duration_ns.max(1) as f64));
    }
    out.push('\n');
    if r.cpus.iter().any(|c| c.rt_ns.is_some()) {
        // Only with SCHED_FIFO/RR/DEADLINE tasks, so every other report reads as before.
        out.push_str("lost to fifo/rr/deadline tasks:");
        for c in &r.cpus {
            let ns = c.rt_ns.unwrap_or(0);
            out.push_str(&format!(" {}:{:.3} ms ({:.1}%)", c.id, ns as f64 / 1e6, ns as f64 * 100.0 / r.duration_ns.max(1) as f64));
        }
        out.push('\n');
    }
    out
}

/// Longest run of characters without a space that `printable` keeps (an unknown key or a
/// garbage token is echoed in part), and longest text.
const MAX_RUN: usize = 80;
const MAX_TEXT: usize = 400;

/// User-derived text (names, values, file names, messages that echo input) as the terminal may
/// be given it: control characters (C0, DEL, C1: ESC and BEL sequences would set its title or
/// clear it) escaped as `\u{1b}`, each run of more than 80 characters without a space cut to
/// 80 and "…" (a 1 MB unknown key), and the whole cut at 400 characters and "…". JSON output
/// does not go through it: serde_json escapes what JSON requires.
pub(crate) fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(4 * MAX_TEXT));
    let (mut run, mut total, mut cut) = (0usize, 0usize, false);
    for c in s.chars() {
        if total == MAX_TEXT {
            out.push('…');
            break;
        }
        if c.is_whitespace() && !c.is_control() {
            run = 0;
            cut = false;
        } else {
            run += 1;
            if run > MAX_RUN {
                if !cut {
                    out.push('…');
                    cut = true;
                }
                continue;
            }
        }
        total += 1;
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Print to standard output, ignoring a closed pipe (`| head`) instead of panicking on it.
pub(crate) fn emit(out: &str) -> ExitCode {
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes());
    ExitCode::SUCCESS
}
