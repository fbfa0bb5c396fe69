//! Messages between the page and the simulation worker. The page asks; the worker runs the
//! core and answers with figures and slices to draw. Nothing here decides anything about
//! scheduling: these are plain records.

use serde::{Deserialize, Serialize};

/// No task (an idle CPU, no other task).
pub const NONE: u32 = u32::MAX;

/// What the page asks of the worker. Every request gets exactly one answer.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Input {
    /// Validate and build the run of this scenario text (JSON or JSONC), at time 0.
    Load { text: String },
    /// Run forward until every instant up to `to_ns` is processed, or the work budget of one
    /// answer is spent (the answer says how far it got). Also rewinds when `to_ns` is earlier.
    Seek { to_ns: u64 },
    /// Run throwaway copies of the loaded run for a few tens of ms, so that the browser has
    /// optimized its hot paths before the user plays; answered with `Warmed`. The page asks
    /// once a load's first seek is answered (the first drawing is what the user waits for),
    /// and again for a few rounds unless the user plays or seeks.
    WarmUp,
    /// Process the next instant that has events.
    StepInstant,
    /// Back to the instant before the current one.
    StepBackInstant,
    /// sched_setattr-like change of a task from the current time on, recorded in the scenario.
    Edit { task: String, set: EditSet },
    /// Make the worker panic (tests the page's recovery).
    Crash,
    /// Make the run stop as the core stops a runaway, once it reaches `at_ns` (tests how the
    /// page reports a run the core could not continue).
    TestRunaway { at_ns: u64 },
    /// What the trees / decision log / key chart panels look at ("inside the scheduler");
    /// answered with a Progress that carries them.
    Insight(crate::wire::insight::Ask),
    /// The loaded scenario's lesson, its texts filled from the run (answer `Lesson`).
    Lesson,
    /// Check a choice for lesson step `step` (0-based) against the simulation (answer
    /// `Checked`). The page never knows the answer before it asks.
    Check { step: u32, choice: String },
    /// The answer key (CSV) of exercises `from..=to` of `kind` (answer `AnswerKey`).
    AnswerKey { kind: String, from: u64, to: u64 },
    /// The scenario that step `step`'s "Try it" action `action` makes (answer `Tried`).
    TryIt { step: u32, action: u32 },
    /// Make exercise `seed` of `kind` ("cfs-pick", "wakeup-clamp", "eevdf-eligibility"); the
    /// answer `Exercise` carries a scenario with a one-step lesson, to load like any other.
    Exercise { kind: String, seed: u64 },
    /// The task groups' entities per CPU now, and their weights sampled so far (`Groups`).
    Groups,
    /// A whole-run export or an A/B comparison (`worker::measure`); sent to a worker of its own.
    Measure(crate::wire::measure::Request),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct EditSet {
    pub nice: Option<i32>,
    pub latency_nice: Option<i32>,
    pub slice_us: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub enum Output {
    Loaded(RunInfo),
    /// The scenario was refused (the core's message names the problem).
    Refused { message: String },
    Progress(Progress),
    /// An edit was applied and recorded: the scenario as JSON now, and when it applies.
    Edited { text: String, at_ns: u64, progress: Progress },
    EditRefused { message: String },
    /// The worker panicked; it is no longer usable.
    Crashed { message: String },
    /// None when the scenario has no lesson; Err names a problem with it.
    Lesson(Result<Option<LessonInfo>, String>),
    Checked(Result<Verdict, String>),
    AnswerKey(Result<String, String>),
    /// The text of the scenario a "Try it" makes, to load like any edit.
    Tried(Result<String, String>),
    Exercise(Result<String, String>),
    Groups(GroupsInfo),
    /// What the warm-up processed and in what wall time (ms), leaving out its start, which
    /// may have run as baseline code: the worker's speed on this run.
    Warmed { events: u64, ms: f64 },
    /// The answer to `Measure`, and the wall time it took in the worker (ms).
    Measured { answer: crate::wire::measure::Answer, ms: f64 },
}

/// Exercise kinds as the page and links name them.
pub const EXERCISE_KINDS: [(&str, &str); 3] = [
    ("cfs-pick", "CFS: which task runs next?"),
    ("wakeup-clamp", "Wakeup preemption, with and without the v12 clamp"),
    ("eevdf-eligibility", "EEVDF: is this task eligible?"),
];

/// A lesson as the page shows it: nothing in it gives away an answer.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LessonInfo {
    pub title: Option<String>,
    pub steps: Vec<StepInfo>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StepInfo {
    /// Markdown, `{{figure TASK}}` already filled from the run.
    pub text: String,
    pub at_ns: u64,
    /// (kind, what): ("task", "A"), ("cpu", "0"), ("tree", "0"), ("decision", "pick"),
    /// ("histogram", "A").
    pub highlight: Vec<(String, String)>,
    pub ask: Option<String>,
    pub choices: Vec<String>,
    /// The step's "Try it" actions: (label, `path=value` assignments).
    pub tries: Vec<(String, Vec<String>)>,
    /// Each `{{figure TASK}}` of the text once, with its value from this run.
    pub figures: Vec<(String, String)>,
    /// Shown on request (Markdown).
    pub hint: Option<String>,
}

/// The simulation's answer to a question, compared with the student's choice.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub step: u32,
    pub choice: String,
    pub correct: bool,
    pub value: String,
    pub at_ns: u64,
    /// The decision-log entry that explains the answer, in plain words.
    pub explanation: String,
}

/// Task groups for the group panel.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct GroupsInfo {
    /// Group names (cgroup order); parents by index (NONE = a child of the root).
    pub names: Vec<String>,
    pub parents: Vec<u32>,
    /// Per group, per CPU, at the current time.
    pub now: Vec<Vec<GroupCpu>>,
    /// Sample times (ns) and, per sample, `weight[group * cpus + cpu]`.
    pub sample_ns: Vec<u64>,
    pub weights: Vec<Vec<u32>>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct GroupCpu {
    pub weight: u64,
    pub on_rq: bool,
    pub se_load_avg: u64,
    pub rq_load_avg: u64,
    pub h_nr_running: u32,
}

/// What does not change while a run plays.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunInfo {
    /// The scenario as plain contract JSON (what share links and edits start from).
    pub text: String,
    pub name: String,
    pub policy: String,
    pub seed: u64,
    pub duration_ns: u64,
    pub tick_ns: u64,
    pub cpus: u32,
    pub tasks: Vec<TaskInfo>,
    pub warnings: Vec<String>,
    /// The report's `effective` tunables, as (key, value in ns or plain).
    pub effective: Vec<(String, u64)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TaskInfo {
    pub name: String,
    pub slice_us: Option<u64>,
    pub cgroup: Option<String>,
    /// "all" or a CPU list.
    pub affinity: String,
    /// A short description of the behaviour ("periodic 1000/50 µs").
    pub behaviour: String,
}

/// Figures of one task at the current time.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Live {
    pub cpu_ns: u64,
    pub wakeups: u64,
    pub switches: u64,
    pub involuntary: u64,
    pub wakeup_preemptions: u64,
    pub lat_count: u64,
    pub lat_p50: Option<u64>,
    pub lat_p99: Option<u64>,
    pub lat_max: Option<u64>,
    pub nice: i32,
    pub latency_nice: i32,
    /// The custom slice in effect (eevdf-v6.12), in µs; None = the default slice.
    pub slice_us: Option<u64>,
    pub state: u8,
}

/// A workload's or cgroup's figures so far (the engine's `GroupLive`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LiveGroup {
    /// "workload NAME" or "cgroup NAME".
    pub name: String,
    pub cpu_ns: u64,
    pub lat_count: u64,
    pub lat_p50: Option<u64>,
    pub lat_p99: Option<u64>,
    pub completion_ns: Option<u64>,
}

/// One closed stint of a task on a CPU; `why` packs (start_why << 4) | stop_why.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct WireSlice {
    pub cpu: u32,
    pub task: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub why: u8,
    pub other: u32,
}

/// Where the run stands after a request.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Progress {
    /// Every instant up to here has been processed.
    pub view_ns: u64,
    /// Scheduler events processed so far.
    pub events: u64,
    pub finished: bool,
    /// Per CPU: the running task (NONE when idle), since when, and why it started.
    pub running: Vec<(u32, u64, u8)>,
    pub live: Vec<Live>,
    /// Workloads and cgroups, with `live` (empty when `live` is).
    pub groups: Vec<LiveGroup>,
    /// Keep only the first `n` slices already sent (a rewind followed by an edit changes the
    /// future); applied before `slices`.
    pub truncate: Option<u64>,
    /// Slices closed since the last answer, numbered on from the slices already sent.
    pub slices: Vec<WireSlice>,
    /// Work of this answer: events processed and wall time spent, for the events/s figure.
    pub work_events: u64,
    pub work_ms: f64,
    /// The open panels' trees, decision log, why-it-ran and key chart ("inside the scheduler").
    pub insight: Option<Box<crate::wire::insight::Insight>>,
    /// The core stopped the run here and cannot go further (`Sim::runaway`): why.
    #[serde(default)]
    pub stopped: Option<String>,
}

/// Why a stint began (high nibble of `WireSlice::why`), as the engine's `StartWhy`.
pub fn start_why_text(code: u8) -> &'static str {
    match code {
        0 => "first run after fork",
        1 => "woken up",
        _ => "resumed after a preemption",
    }
}

/// Why a stint ended (low nibble), as the engine's `StopWhy`.
pub fn stop_why_text(code: u8) -> &'static str {
    match code {
        0 => "slept (burst done)",
        1 => "preempted at a tick",
        2 => "preempted by the wakeup of",
        3 => "preempted by the fork of",
        4 => "preempted after a setattr",
        _ => "switched out",
    }
}
