//! Messages of the "inside the scheduler" panels: what the page asks to see (the
//! trees of one CPU, the decision log with its filters, why a stint ran, one task's keys over
//! time) and what the worker sends back. Plain records; the worker fills them from the core's
//! `view` and `explain` modules, the page only draws them.

use serde::{Deserialize, Serialize};

/// Decision kinds, as bits of `Ask::kinds`.
pub const KIND_PICK: u8 = 1;
pub const KIND_WAKEUP: u8 = 2;
pub const KIND_TICK: u8 = 4;
pub const KIND_ALL: u8 = KIND_PICK | KIND_WAKEUP | KIND_TICK;

/// At most this many log entries go out in one answer (the newest matching ones up to the
/// current time), and at most this many tree operations.
pub const MAX_ENTRIES: usize = 200;
pub const MAX_OPS: usize = 64;

/// What the page wants with every answer. Everything is off by default: the worker records the
/// decision log and the tree operations only while their panel is open.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Ask {
    /// The tree view is open, for this CPU.
    pub trees: Option<u32>,
    /// The decision log is open, with these filters.
    pub log: Option<LogFilter>,
    /// "Why did this run?" for the stint of CPU `.0` running at time `.1`.
    pub why: Option<(u32, u64)>,
    /// The key chart is open, for this task.
    pub chart: Option<u32>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LogFilter {
    pub cpu: Option<u32>,
    pub task: Option<u32>,
    /// KIND_* bits; 0 is read as every kind.
    pub kinds: u8,
    /// Only the checks a v12 `get_latency_max()` clamp decided (`Entry::clamp_decided`).
    #[serde(default)]
    pub clamp_only: bool,
}

/// The answer's part for the panels (only the parts asked for are filled).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Insight {
    pub trees: Option<Trees>,
    pub log: Option<LogPage>,
    pub why: Option<WhyRan>,
    pub chart: Option<Chart>,
}

/// One entity, as a tree node or as curr. Keys in ns, relative as the core's `view::NodeInfo`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Node {
    pub entity: u32,
    /// A task's index, or `proto::NONE` for a group entity.
    pub task: u32,
    pub red: bool,
    pub left: u32,
    pub right: u32,
    pub weight: u64,
    pub vruntime_rel: i64,
    pub latency_key_rel: i64,
    pub in_latency_tree: bool,
    pub deadline_rel: i64,
    pub lag: i64,
    pub eligible: bool,
    pub slice: u64,
    pub delayed: bool,
    /// v6.6: min_deadline − V; v6.12: min_vruntime − min_vruntime.
    pub augment_rel: i64,
    /// v6.12: the smallest slice in the subtree.
    pub min_slice: u64,
}

/// One red-black tree: the nodes in key order, with the root and the cached leftmost.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Tree {
    /// "tasks_timeline" or "latency_timeline".
    pub name: String,
    /// What orders it, in words ("vruntime", "deadline", "vruntime + latency_offset").
    pub key: String,
    pub root: u32,
    pub leftmost: u32,
    pub nodes: Vec<Node>,
    /// The operations since the last answer (oldest first, at most MAX_OPS), for animation.
    pub ops: Vec<Op>,
    /// More operations happened than are listed.
    pub ops_dropped: u64,
    /// The tree after each structural operation of `ops`, replayed from the tree of the last
    /// answer (empty when that was not possible), for a step-by-step animation.
    pub frames: Vec<Frame>,
    /// Nodes erased by these operations (for drawing the frames before their erase).
    pub gone: Vec<Node>,
}

/// One intermediate tree: (entity, red, left, right) sorted by entity, and the index in `ops`
/// of the structural operation that produced it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Frame {
    pub root: u32,
    pub nodes: Vec<(u32, bool, u32, u32)>,
    pub op: u32,
}

/// An rb-tree operation (the core's `RbOp`), in words for the list and with the entities
/// involved for highlighting.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Op {
    pub text: String,
    pub entities: Vec<u32>,
    pub rotation: bool,
}

/// The trees of one CPU's root runqueue now.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Trees {
    pub cpu: u32,
    /// "cfs", "v12", "v6.6" or "v6.12".
    pub flavour: String,
    pub nr_running: u32,
    pub min_vruntime: u64,
    /// EEVDF: V (absolute), the zero-lag point.
    pub avg_vruntime: Option<u64>,
    /// EEVDF: V − min_vruntime, so it can be drawn on the vruntime axis.
    pub avg_rel: Option<i64>,
    pub curr: Option<Node>,
    pub tasks: Tree,
    /// v12 only.
    pub latency: Option<Tree>,
}

/// One decision in words, with where it happened.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Entry {
    pub at_ns: u64,
    pub cpu: u32,
    pub task: u32,
    /// KIND_* of this entry.
    pub kind: u8,
    pub outcome: bool,
    /// A v12 clamp bound and the outcome would differ without it.
    pub clamp_decided: bool,
    pub text: String,
    /// Under a wakeup or tick check: the changes that would have turned the outcome the
    /// other way, in words (`measure::counterfactual`); empty when none would.
    #[serde(default)]
    pub whatif: Vec<String>,
    /// The core function that took the decision (`path:line`, from the repository's root) and
    /// the fair.c function it models.
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub models: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LogPage {
    /// The newest matching entries up to the current time, oldest first.
    pub entries: Vec<Entry>,
    /// Entries recorded (all kinds, all CPUs) and kept.
    pub recorded: u64,
    /// The log is complete from this time on (it starts when the panel opens; going back
    /// before that replays and fills it in).
    pub from_ns: u64,
    /// The scan stopped before the start of the log (a narrow filter on a long log).
    pub truncated: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct WhyRan {
    pub cpu: u32,
    pub task: u32,
    pub start_ns: u64,
    /// None: still running.
    pub end_ns: Option<u64>,
    pub pick: Option<Entry>,
    pub started_by: Option<Entry>,
    pub ended_by: Option<Entry>,
    /// Something to say when the log cannot answer (idle there, or not recorded yet).
    pub note: Option<String>,
}

/// One task's keys over time (relative to its runqueue), downsampled to a bounded count.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Chart {
    pub task: u32,
    pub eevdf: bool,
    /// (at_ns, vruntime − min_vruntime, lag, deadline − V, on_rq)
    pub samples: Vec<(u64, i64, i64, i64, bool)>,
    pub from_ns: u64,
}
