//! The records of an A/B comparison: per entity, each figure under A and B and the change; each
//! set's histogram under both; both runs' slices for the side-by-side timelines.

use serde::{Deserialize, Serialize};

use crate::wire::proto::WireSlice;

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
    /// Each sample set's log2 histogram under A and B (all tasks, workloads, cgroups, tasks).
    pub hists: Vec<AbHist>,
    /// The set B's first change is about (the task, workload or cgroup it edits), which the
    /// page shows first; None when it changes the whole scenario (a feature, the policy).
    pub focus: Option<String>,
    /// Both runs' slices, for timelines side by side; None when the runs are too long to send.
    pub traces: Option<AbTraces>,
    /// What changed, and why: the clamps' impact in each run and where the runs part; None
    /// when the runs are too long to record every decision.
    #[serde(default)]
    pub why: Option<AbWhy>,
    /// Set when A is a recorded trace's own run and B the model's replay of its tasks.
    #[serde(default)]
    pub real: Option<RealHeader>,
}

impl AbTable {
    /// What the two sides are called: "A" and "B", or "real" and "model".
    pub fn labels(&self) -> (&'static str, &'static str) {
        if self.real.is_some() {
            ("real", "model")
        } else {
            ("A", "B")
        }
    }
}

/// Real beside simulated: which trace A is, and what the model assumes in replaying it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RealHeader {
    pub file: String,
    pub format: String,
    pub assumptions: Vec<String>,
}

/// The decision-level diff of an A/B (`fairground_sim::measure::diverge`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct AbWhy {
    /// Per `get_latency_max()` site (wakeup, offset, tick): how often it bound and how often it
    /// flipped an outcome, in A and in B (all zero outside latency-nice-v12).
    pub clamp_a: [(u64, u64); 3],
    pub clamp_b: [(u64, u64); 3],
    /// Whether either run is latency-nice-v12 (the clamps exist).
    pub v12: bool,
    /// The first decisions at which the runs part: (time, A's decision, B's), in words.
    pub divergences: Vec<(u64, String, String)>,
}

/// One entity's runqlat histogram under A and under B (log2 buckets of µs, as `LogHist`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbHist {
    pub name: String,
    pub a: Vec<u64>,
    pub b: Vec<u64>,
}

/// What ran where in both runs: the same slices the timeline's worker sends.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbTraces {
    pub cpus_a: u32,
    pub cpus_b: u32,
    pub tasks_a: Vec<String>,
    pub tasks_b: Vec<String>,
    pub a: Vec<WireSlice>,
    pub b: Vec<WireSlice>,
    pub duration_ns: u64,
}

/// "Which change did it?": an A/B taken apart change by change (`Request::Ablate`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct AblationTable {
    /// The figure explained, as asked ("task:waker/0:preemptions").
    pub figure: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// Most explaining first.
    pub rows: Vec<AblationRow>,
    /// Pairs whose joint effect from A is not the sum of their own: (first, second, joint, sum).
    pub interactions: Vec<(String, String, f64, f64)>,
    pub runs: usize,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct AblationRow {
    pub path: String,
    /// The value on each side, as JSON text ("(default)" when the file leaves it out).
    pub a: String,
    pub b: String,
    /// A with this change, minus A; B minus B without it.
    pub forward: Option<f64>,
    pub backward: Option<f64>,
    /// Share of the A→B change, in percent.
    pub share_pct: Option<f64>,
}
