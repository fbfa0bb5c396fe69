//! A recorded trace's own run, as the import worker measured it (the core's
//! `interop::RealRun`), for "real beside simulated": the page keeps it with the scenario the
//! trace became, and a measuring worker sets the model's replay beside it. Plain records.

use serde::{Deserialize, Serialize};

use crate::wire::proto::WireSlice;

/// One task as it really ran.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RealTask {
    /// The scenario's name for it when the scenario replays it, else `comm-pid`.
    pub name: String,
    pub in_scenario: bool,
    pub cpu_ns: u64,
    /// Every wakeup latency, ns (from the wakeup to the switch in).
    pub wakeup_latency_ns: Vec<u64>,
}

/// What a measuring worker needs of the real run to compare it with the model's: no slices.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RealFigures {
    /// The file's name, and what it was ("a trace-cmd trace.dat", "a Perfetto trace", "ftrace").
    pub file: String,
    pub format: String,
    pub span_ns: u64,
    pub cpus: u32,
    pub tasks: Vec<RealTask>,
    /// The importer's warnings (what it left out, where it cut).
    pub warnings: Vec<String>,
}

/// The real run as the page keeps it: its figures and what ran on each CPU (`task` indexes
/// `figures.tasks`); no slices when there were more than the page is sent.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RealTrace {
    pub figures: RealFigures,
    pub slices: Option<Vec<WireSlice>>,
}

/// Most real slices sent to the page (as many as an A/B run's).
pub const MAX_REAL_SLICES: usize = 2_000_000;
