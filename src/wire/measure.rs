//! What the page asks of a measuring worker and what comes back (`Input::Measure`,
//! `Output::Measured`): exports of whole runs, A/B comparisons (`ab`), histograms, sweep points
//! (`sweep`) and ftrace imports. Plain records; the worker's `measure` fills them from the core.

use serde::{Deserialize, Serialize};

use crate::wire::ab::{AblationTable, AbTable};
use crate::wire::sweep::SweepFigures;

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub enum ExportKind {
    /// The report of contract §2, as the CLI prints it.
    Report,
    /// Every wakeup-latency and preempt-delay sample, `task,kind,ns`.
    Samples,
    /// The run as Linux ftrace text (Perfetto, trace-cmd and KernelShark read it).
    Ftrace,
    /// Each task's delay table as `perf sched latency --sort max` prints it (fixed-width text).
    Latency,
    /// The run as a Perfetto protobuf trace (binary: `Request::Perfetto`, `Answer::ExportedBytes`).
    Perfetto,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Request {
    Export { text: String, kind: ExportKind },
    /// A = `text` as it is; B = `text` with the `path=value` lines of `b` applied; same seed.
    Compare { text: String, b: String },
    /// A histogram of the wakeup latencies of `task` (a task's name, or one of the sets of
    /// `Sim::wakeup_sample_sets`: "all tasks", "workload NAME", "cgroup NAME") over the whole
    /// run: runqlat's log2 buckets of µs, or buckets `width_us` wide. `preempt`: the preempt
    /// delays (from an involuntary switch-out to running again) instead.
    Histogram { text: String, task: String, width_us: Option<u64>, preempt: bool },
    /// One point of a sweep: `text` with `path` set to `value` (JSON or a bare word), and in a
    /// two-way sweep the second parameter `by` = (path, value) too.
    SweepPoint { text: String, path: String, value: String, by: Option<(String, String)> },
    /// A scenario file's text (JSON, or JSONC with comments) checked by the core, so that the
    /// page opens only a scenario the simulator accepts.
    CheckScenario { text: String },
    /// "Which change did it?": the A/B of `text` (A) and `text` with the lines of `b` (B),
    /// or of a preset's two sides ("clamps", "complete-eevdf"), taken apart change by change
    /// on `figure` (`task:NAME:p99`, `workload:NAME:completion`, …).
    Ablate { text: String, b: String, preset: Option<String>, figure: String },
    /// The whole run's decisions that a v12 `get_latency_max()` clamp decided (the decision
    /// log's "previous / next" and its header counts).
    ClampFlips { text: String },
    /// Real beside simulated: the model's run of `text` (a scenario imported from a trace)
    /// set against the trace's own run, as an A/B table whose A is the real run.
    CompareReal { text: String, real: crate::wire::real::RealFigures },
    /// The run as a Perfetto protobuf trace (the fair class's internals as counters).
    Perfetto { text: String },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Answer {
    Exported(Exported),
    /// A binary file (the Perfetto protobuf trace).
    ExportedBytes { title: String, file_name: String, bytes: Vec<u8> },
    Compared(AbTable),
    Ablated(AblationTable),
    ClampFlips(ClampFlips),
    Histogram(LogHist),
    Swept(SweepFigures),
    /// The checked scenario as plain JSON (what a share link holds).
    Checked(String),
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

/// Counts per bucket: runqlat's log2 buckets of µs (bucket 0 is [0, 1) µs, bucket k ≥ 1 is
/// [2^(k−1), 2^k) µs), or linear ones of `width_us` (the last one open-ended).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LogHist {
    /// Whose samples: a task, "all tasks", "workload NAME" or "cgroup NAME".
    pub task: String,
    /// "wakeup latency" or "preempt delay".
    pub kind: String,
    pub width_us: Option<u64>,
    pub counts: Vec<u64>,
    /// Each bucket's range as runqlat labels its rows ("4 -> 7"), in µs.
    pub labels: Vec<String>,
    /// schbench's percentile table beside it: (figure, µs), p50 … p99.9 then max.
    pub pct: Vec<(String, Option<f64>)>,
    /// The histogram as runqlat prints it.
    pub text: String,
}

/// A trace (or an rt-app file, `wire::import`) turned into a scenario: the scenario as plain
/// JSON (what a share link holds), and what the page tells the user about it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ImportedTrace {
    pub scenario: String,
    pub tasks: usize,
    pub span_ns: u64,
    pub warnings: Vec<String>,
}

/// runqlat's label of log2 bucket `i` in µs: "0 -> 0", "1 -> 1", "2 -> 3", "4 -> 7", …
pub fn log2_label(i: usize) -> String {
    if i == 0 {
        "0 -> 0".into()
    } else {
        let lo = 1u64 << (i - 1).min(62);
        format!("{lo} -> {}", (lo << 1) - 1)
    }
}

/// Where the clamps decided over a whole run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ClampFlips {
    /// (bound, flipped) for the wakeup granularity, the latency offset and the tick check.
    pub sites: [(u64, u64); 3],
    /// When each decision a clamp flipped was taken, in time order (at most `MAX_FLIP_TIMES`).
    pub times: Vec<u64>,
    /// More flips than `times` holds.
    pub truncated: bool,
}

/// Flip times sent to the page at most.
pub const MAX_FLIP_TIMES: usize = 20_000;
