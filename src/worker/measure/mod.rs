//! The measuring side of the worker: whole runs of the current scenario
//! exported as files (the report of contract §2, the latency samples as CSV, the run as ftrace
//! text), and A/B comparisons of the scenario against a variant of it. Pure Rust: the core
//! computes every figure (`measure::compare`, `measure::csv`, `interop::to_ftrace`); this
//! module only asks it and shapes the answers into plain records for the page. Tested natively.
//!
//! These requests go to a second worker of their own, so that a run of several seconds never
//! holds up the timeline's worker (whose answers are kept short and watched by a watchdog).

use fairground_sim::engine::stats::summarize;
use fairground_sim::engine::{Samples, Sim};
use fairground_sim::interop::to_ftrace;
use fairground_sim::measure::csv::samples_csv;
use fairground_sim::measure::Histogram;
use fairground_sim::parse_scenario;
use fairground_sim::report::LatencyStats;
use fairground_sim::scenario::{self, Limits};

use crate::wire::measure::{log2_label, Answer, ExportKind, Exported, LogHist, Request, PERCENTILES};

mod ab;
mod real;
mod sweep;
pub use ab::{ab_text, ab_text_with, compare_ab, parse_changes};
pub use real::{compare_real, difference};
pub use sweep::sweep_point;

pub(crate) fn pick(l: &LatencyStats) -> [Option<u64>; 7] {
    [l.p50, l.p75, l.p90, l.p95, l.p99, l.p995, l.p999]
}

/// Answer one request. Never panics on what the user typed: every refusal is `Failed`.
pub fn answer(req: Request) -> Answer {
    let out = match req {
        Request::Export { text, kind } => export(&text, kind).map(Answer::Exported),
        Request::Compare { text, b } => compare_ab(&text, &b).map(Answer::Compared),
        Request::Histogram { text, task, width_us, preempt } => histogram(&text, &task, width_us, preempt).map(Answer::Histogram),
        Request::CheckScenario { text } => check_scenario(&text).map(Answer::Checked),
        Request::Ablate { text, b, preset, figure } => ab::ablate_ab(&text, &b, preset.as_deref(), &figure).map(Answer::Ablated),
        Request::ClampFlips { text } => ab::clamp_flips(&text).map(Answer::ClampFlips),
        Request::CompareReal { text, real } => compare_real(&text, &real).map(Answer::Compared),
        Request::Perfetto { text } => perfetto(&text),
        Request::SweepPoint { text, path, value, by } => {
            sweep_point(&text, &path, &value, by.as_ref().map(|(p, v)| (p.as_str(), v.as_str()))).map(Answer::Swept)
        }
    };
    out.unwrap_or_else(|message| Answer::Failed { message })
}

/// A finished run of `text`, within the browser's limits, with slice recording if asked.
fn full_run(text: &str, trace: bool) -> Result<Sim, String> {
    fairground_sim::run_to_end(text, &Limits::BROWSER, trace).map_err(|e| e.to_string())
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
        // The protobuf holds the same events as the ftrace text and the internals besides:
        // about twice the text (docs/exports.md).
        ExportKind::Perfetto => 320,
        ExportKind::Report | ExportKind::Latency => 0,
    }
}

/// Refuse, before running, an export too large for the browser; the message says how large.
fn check_size(text: &str, kind: ExportKind) -> Result<(), String> {
    let v = parse_scenario(text).map_err(|e| e.to_string())?;
    let events = scenario::estimate(&v.scenario).events;
    let bytes = events.saturating_mul(bytes_per_event(kind));
    if bytes > MAX_EXPORT_BYTES {
        let (what, cli) = match kind {
            ExportKind::Ftrace => ("ftrace text", "fairground export-ftrace"),
            ExportKind::Perfetto => ("Perfetto trace", "fairground export-perfetto"),
            _ => ("samples CSV", "fairground samples"),
        };
        return Err(format!(
            "The {what} of this run would be about {} MB (estimated from its {events} scheduler events), more than the {} MB a browser tab can hand over. Shorten duration_ms, or use the CLI ({cli}).",
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
        ExportKind::Latency => {
            let rows = fairground_sim::measure::latency::delay_table(&sim);
            (format!("{stem}-latency.txt"), "text/plain", fairground_sim::measure::latency::delay_text(&rows, &sim.name))
        }
        ExportKind::Perfetto => return Err("a Perfetto trace is asked for with Request::Perfetto".into()),
        ExportKind::Report => {
            let json = serde_json::to_string_pretty(&sim.report()).map_err(|e| format!("the report could not be written as JSON: {e}"))?;
            (format!("{stem}-report.json"), "application/json", json + "\n")
        }
    };
    Ok(Exported { kind, title: sim.name.clone(), file_name, mime: mime.into(), body })
}

/// The run as a Perfetto protobuf trace (`interop::write_perfetto`: the sched events as
/// Perfetto's own ftrace protos, the fair class's internals as counters, the decisions as
/// instant events), refused before running when it would be too large to hand over.
pub fn perfetto(text: &str) -> Result<Answer, String> {
    check_size(text, ExportKind::Perfetto)?;
    let v = parse_scenario(text).map_err(|e| e.to_string())?;
    scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
    let bytes = fairground_sim::interop::run_to_perfetto(&v).map_err(|e| e.to_string())?;
    let title = v.scenario.name.clone();
    Ok(Answer::ExportedBytes { file_name: format!("{}.pftrace", file_stem(&title)), title, bytes })
}

/// A scenario file's text (JSON or JSONC) as plain JSON, if the core accepts the scenario; the
/// error is the core's message.
pub fn check_scenario(text: &str) -> Result<String, String> {
    let v = scenario::parse_jsonc(text).map_err(|e| e.to_string())?;
    let json = v.to_string();
    parse_scenario(&json).map_err(|e| e.to_string())?;
    Ok(json)
}

/// Most linear buckets: a width far below the samples' spread would make millions.
pub const MAX_LINEAR_BUCKETS: u64 = 400;

/// The percentile table as schbench prints it, then the maximum, in µs.
pub(crate) fn pct_table(l: &LatencyStats) -> Vec<(String, Option<f64>)> {
    let us = |x: Option<u64>| x.map(|v| v as f64 / 1e3);
    let mut out: Vec<(String, Option<f64>)> = PERCENTILES.iter().zip(pick(l)).map(|(p, x)| (format!("{p}_us"), us(x))).collect();
    out.push(("max_us".into(), us(l.max)));
    out
}

pub fn histogram(text: &str, task: &str, width_us: Option<u64>, preempt: bool) -> Result<LogHist, String> {
    let sim = full_run(text, false)?;
    let (kind, samples_kind) = if preempt { ("preempt delay", Samples::PreemptDelay) } else { ("wakeup latency", Samples::WakeupLatency) };
    let sets = sim.sample_sets(samples_kind);
    let Some((_, samples)) = sets.iter().find(|s| s.0 == task) else {
        let names: Vec<&str> = sets.iter().take(8).map(|s| s.0.as_str()).collect();
        return Err(format!("no task or set named \"{task}\" in this run (there are: {}, …)", names.join(", ")));
    };
    let h = match width_us {
        None => Histogram::log2_us(samples),
        Some(0) => return Err("a linear bucket must be at least 1 µs wide".into()),
        Some(w) => {
            let max_us = samples.iter().copied().max().unwrap_or(0) / 1000;
            // One bucket past the largest sample, unless that would be too many: the last
            // bucket is open-ended and holds the rest.
            let n = (max_us / w + 1).min(MAX_LINEAR_BUCKETS);
            Histogram::linear(samples, w * 1000, n as usize)
        }
    };
    let labels = (0..h.counts.len())
        .map(|i| match h.bounds(i) {
            _ if width_us.is_none() => log2_label(i),
            (lo, Some(hi)) => format!("{} -> {}", lo / 1000, hi / 1000),
            (lo, None) => format!("{} -> ∞", lo / 1000),
        })
        .collect::<Vec<_>>();
    let max = h.counts.iter().copied().max().unwrap_or(0).max(1);
    let text = labels
        .iter()
        .zip(&h.counts)
        .map(|(l, &c)| format!("{:>21} : {c:<8} |{:<40}|\n", l, "*".repeat((c * 40).div_ceil(max) as usize)))
        .collect();
    let mut sorted = samples.clone();
    let stats = summarize(&mut sorted);
    Ok(LogHist { task: task.to_string(), kind: kind.into(), width_us, counts: h.counts, labels, pct: pct_table(&stats), text })
}

#[cfg(test)]
mod tests;
