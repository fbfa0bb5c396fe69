//! The typed scenario of contract §1, as it stands after parsing and validation.
//!
//! Everything here is plain data: the parser (`parse.rs`) builds it from JSON(C) and the
//! validator fills in defaults, so the engine never sees an `Option` for something that has a
//! default. `serde::Serialize` writes it back as plain contract JSON (share links, reports).

use serde::Serialize;

pub const FORMAT: &str = "fairground-scenario/1";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Policy {
    #[serde(rename = "cfs-v6.2")]
    CfsV62,
    #[serde(rename = "latency-nice-v12")]
    LatencyNiceV12,
    #[serde(rename = "eevdf-v6.6")]
    EevdfV66,
    #[serde(rename = "eevdf-v6.12")]
    EevdfV612,
    #[serde(rename = "eevdf-v6.18")]
    EevdfV618,
}

impl Policy {
    pub const ALL: [Policy; 5] = [Policy::CfsV62, Policy::LatencyNiceV12, Policy::EevdfV66, Policy::EevdfV612, Policy::EevdfV618];
    pub fn name(self) -> &'static str {
        match self {
            Policy::CfsV62 => "cfs-v6.2",
            Policy::LatencyNiceV12 => "latency-nice-v12",
            Policy::EevdfV66 => "eevdf-v6.6",
            Policy::EevdfV612 => "eevdf-v6.12",
            Policy::EevdfV618 => "eevdf-v6.18",
        }
    }
    pub fn from_name(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == s)
    }
    pub fn is_cfs(self) -> bool {
        matches!(self, Policy::CfsV62 | Policy::LatencyNiceV12)
    }
    /// The "complete EEVDF" policies (v6.12 and later): deadline-keyed tree, custom slices,
    /// PREEMPT_SHORT, delayed dequeue.
    pub fn is_v612_or_later(self) -> bool {
        matches!(self, Policy::EevdfV612 | Policy::EevdfV618)
    }
    /// Whether the policy's kernel has PREEMPT_LAZY (v6.13 and later).
    pub fn has_preempt_lazy(self) -> bool {
        self == Policy::EevdfV618
    }
}

/// `tunable_scaling` (enum sched_tunable_scaling).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    None,
    Log,
    Linear,
}

/// `latency_max_clamp_offset`: where `wakeup_latency_gran()` caps the offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClampOffset {
    /// v12 as posted: always `min(offset, get_latency_max())`.
    Always,
    /// The thread's "2nd change": cap only when either side's offset is negative.
    Relative,
    /// No cap.
    Off,
}

/// `wakeup_preempt_variant`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum WakeupPreemptVariant {
    #[serde(rename = "v12")]
    V12,
    /// `min_vruntime - se->vruntime > get_latency_max()`, unsigned compare as first posted.
    #[serde(rename = "min-vruntime")]
    MinVruntime,
    /// The same with the `(s64)` cast.
    #[serde(rename = "min-vruntime-signed")]
    MinVruntimeSigned,
}

/// Tunables as written in the file (normalized, 1-CPU values). `None` = not given.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tunables {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_granularity_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wakeup_granularity_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sched_nr_latency: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_slice_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tunable_scaling: Option<Scaling>,
}

/// Features as written in the file. `None` = not given (the policy default applies).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Features {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gentle_fair_sleepers: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_debit: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_buddy: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_buddy: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wakeup_preemption: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_runtime_cap: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_list: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_max_clamp_tick: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_max_clamp_offset: Option<ClampOffset>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_max_clamp_wakeup: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wakeup_preempt_variant: Option<WakeupPreemptVariant>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_cfs_group_enqueue: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_cfs_group_dequeue: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_lag: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_deadline_initial: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_rel_deadline: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_to_parity: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preempt_short: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_dequeue: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_zero: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub respect_slice: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_to_parity_wakeup: Option<bool>,
    /// PICK_BUDDY (v6.13+, eevdf-v6.18): `pick_next_entity()` honours `cfs_rq->next`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick_buddy: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Machine {
    pub cpus: u32,
    pub hz: u32,
    pub llc_size: Option<u32>,
    /// The machine's shape (`machine.topology`, with `machine.distance`); None: `llc_size`'s
    /// single-thread cores in one node (`Machine::shape`).
    pub topology: Option<crate::smp::Topology>,
    /// What switching, waking and migrating cost in time (`machine.costs`); all 0 by default,
    /// so decisions and figures are those of the cost-free model.
    pub costs: Costs,
    /// The kernel's preemption model (`machine.preemption`); `full` by default.
    pub preemption: Preemption,
}

impl Machine {
    /// The machine's shape: `machine.topology`, else `llc_size` single-thread cores per LLC
    /// (default all CPUs) in one node.
    pub fn shape(&self) -> crate::smp::Topology {
        match &self.topology {
            Some(t) => t.clone(),
            None => crate::smp::Topology::flat(self.cpus, self.llc_size.unwrap_or(self.cpus)),
        }
    }
}

impl Default for Machine {
    fn default() -> Self {
        Machine { cpus: 1, hz: 250, llc_size: None, topology: None, costs: Costs::default(), preemption: Preemption::Full }
    }
}

/// `machine.preemption`: the preemption model (PREEMPT_NONE, _VOLUNTARY, _FULL, _LAZY;
/// `preempt=` with PREEMPT_DYNAMIC). What each means to the fair class: docs/model.md,
/// "The preemption model".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Preemption {
    None,
    Voluntary,
    Full,
    /// PREEMPT_LAZY (v6.13+): a fair-class reschedule sets TIF_NEED_RESCHED_LAZY.
    Lazy,
}

impl Preemption {
    pub fn name(self) -> &'static str {
        match self {
            Preemption::None => "none",
            Preemption::Voluntary => "voluntary",
            Preemption::Full => "full",
            Preemption::Lazy => "lazy",
        }
    }
}

/// `machine.costs`, in ns. Where each is charged: docs/model.md, "Costs".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Costs {
    /// `context_switch()`: paid by the incoming task before its first useful instruction,
    /// counted in its runtime (and so its vruntime) but not in its work.
    pub switch_ns: u64,
    /// `try_to_wake_up()` to the enqueue on the target CPU (the wake list and its IPI).
    pub wakeup_ns: u64,
    /// An idle CPU asked to run something leaves its idle state (`cpuidle` exit latency).
    pub idle_exit_ns: u64,
    /// Cache refill on a task's first run after it moved CPU, paid like `switch_ns`.
    pub migration_ns: u64,
    /// Written as the preset `"measured"` (the host calibration in docs/calibration.md).
    pub measured: bool,
}

impl Costs {
    /// The `"measured"` preset: medians of `tools/host/calibrate` on the host the project
    /// is developed on (docs/calibration.md); other machines differ.
    pub const MEASURED: Costs = Costs { switch_ns: 980, wakeup_ns: 19_200, idle_exit_ns: 4_500, migration_ns: 8_900, measured: true };

    pub fn is_zero(&self) -> bool {
        self.switch_ns == 0 && self.wakeup_ns == 0 && self.idle_exit_ns == 0 && self.migration_ns == 0
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scheduler {
    pub policy: Policy,
    pub tunables: Tunables,
    pub features: Features,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cgroup {
    pub name: String,
    pub parent: Option<String>,
    pub shares: u32,
    pub latency_nice: i32,
}

/// A duration in µs for `bursty`: a fixed number or a distribution (contract §1.3).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Dist {
    #[serde(rename = "fixed")]
    Fixed(f64),
    #[serde(rename = "exp")]
    Exp(f64),
    #[serde(rename = "uniform")]
    Uniform(f64, f64),
    #[serde(rename = "normal")]
    Normal(f64, f64),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Behavior {
    Hog,
    Periodic { period_us: u64, run_us: u64 },
    Bursty { run_us: Dist, sleep_us: Dist },
    Duty { percent: u32, period_us: u64 },
    /// An addition to contract §1.3 (docs/scenario-choices.md): a recorded life replayed, as
    /// `[sleep_us, run_us]` steps: sleep, then need that much CPU, then the next step; asleep
    /// for good after the last. `start_us` delays the fork; a first sleep > 0 means forked
    /// asleep, its end a wakeup. What `ftrace` import produces.
    Replay { start_us: u64, steps_us: Vec<(u64, u64)> },
}

/// A task's policy within the fair class (`sched_setattr()`'s `sched_policy`): SCHED_NORMAL,
/// SCHED_BATCH or SCHED_IDLE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum FairPolicy {
    #[default]
    Normal,
    /// Never preempts at a wakeup: its preemption is driven by the tick.
    Batch,
    /// Weight 3 whatever its nice; never preempts at a wakeup, and any non-idle task's wakeup
    /// preempts it.
    Idle,
    /// SCHED_FIFO, SCHED_RR and SCHED_DEADLINE: a class above the fair class, modelled only
    /// as the CPU time it takes from it on its one CPU (`engine/rt.rs`).
    Fifo,
    Rr,
    Deadline,
}

impl FairPolicy {
    pub fn name(self) -> &'static str {
        match self {
            FairPolicy::Normal => "normal",
            FairPolicy::Batch => "batch",
            FairPolicy::Idle => "idle",
            FairPolicy::Fifo => "fifo",
            FairPolicy::Rr => "rr",
            FairPolicy::Deadline => "deadline",
        }
    }

    /// Whether the task is in the fair class at all (SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE).
    pub fn is_fair(self) -> bool {
        matches!(self, FairPolicy::Normal | FairPolicy::Batch | FairPolicy::Idle)
    }
}

/// Attributes shared by tasks and workloads (contract §1.4).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Attrs {
    /// SCHED_NORMAL, SCHED_BATCH or SCHED_IDLE, or a higher class as load (`"policy"`, an
    /// addition to the contract).
    pub policy: FairPolicy,
    pub nice: i32,
    pub latency_nice: i32,
    /// `None` (or 0 in the file) = the default slice.
    pub slice_us: Option<u64>,
    pub cgroup: Option<String>,
    /// `None` = all CPUs.
    pub cpus: Option<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskSpec {
    pub name: String,
    pub count: u32,
    pub attrs: Attrs,
    pub start_ms: u64,
    pub stagger_us: u64,
    pub behavior: Behavior,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum WorkloadKind {
    Hackbench { groups: u32, fds: u32, loops: u64, msg_us: u64, pipe_msgs: u32 },
    Schbench { messengers: u32, workers: u32, sleep_us: u64, cputime_us: u64, msg_us: u64 },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workload {
    pub name: String,
    pub start_ms: u64,
    pub attrs: Attrs,
    pub kind: WorkloadKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Target {
    Task(String),
    Cgroup(String),
}

/// `set` of a timeline entry. Which keys are allowed depends on the target (validated).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SetAttrs {
    pub nice: Option<i32>,
    pub latency_nice: Option<i32>,
    /// `Some(0)` = back to the default slice.
    pub slice_us: Option<u64>,
    pub shares: Option<u32>,
    /// A change of policy within the fair class (normal, batch or idle; validated).
    pub policy: Option<FairPolicy>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineEntry {
    /// `at_ms` or `at_us`, converted to ns.
    pub at_ns: u64,
    /// Whether the file said `at_us` (kept so a scenario round-trips as written).
    pub at_in_us: bool,
    pub target: Target,
    pub set: SetAttrs,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    pub name: String,
    pub description: Option<String>,
    pub seed: u64,
    pub duration_ms: u64,
    pub machine: Machine,
    pub scheduler: Scheduler,
    pub cgroups: Vec<Cgroup>,
    pub tasks: Vec<TaskSpec>,
    pub workloads: Vec<Workload>,
    pub timeline: Vec<TimelineEntry>,
    /// An addition to the contract (docs/scenario-choices.md): a guided lesson.
    pub lesson: Option<Lesson>,
}

/// A lesson: steps through the run, each with text, a time, highlights and maybe a question.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lesson {
    pub title: Option<String>,
    pub steps: Vec<LessonStep>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LessonStep {
    /// Markdown; `{{figure TASK}}` placeholders are filled from the run (`crate::lesson`).
    pub text: String,
    pub at_ns: u64,
    pub highlight: Vec<Highlight>,
    pub question: Option<Question>,
    /// "Try it" actions: changes the text asks the student to make, applied by one click.
    pub tries: Vec<TryIt>,
    /// A hint, shown on request (Markdown).
    pub hint: Option<String>,
}

/// A change a step asks for (the clamp off, B to nice 0), as `path=value` assignments on the
/// scenario (`crate::measure::patch`), the whole run remade with them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TryIt {
    pub label: String,
    pub set: Vec<String>,
}

/// What a step points at.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Highlight {
    Task(String),
    Cpu(u32),
    /// The rb-tree(s) of a CPU's root runqueue.
    Tree(u32),
    /// Decision-log entries of a kind: "wakeup", "tick" or "pick".
    Decision(String),
    /// A task's latency histogram.
    Histogram(String),
    /// A scheduler feature's switch in the scheduler panel (a `scheduler.features` key).
    Switch(String),
}

/// A question whose answer the simulation gives (never the author).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Question {
    pub ask: String,
    pub kind: QuestionKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QuestionKind {
    /// Which task does `cpu` pick next (at or after the step's time)?
    NextTask { cpu: u32 },
    /// At its next wakeup (at or after the step's time), does `task` preempt the running task?
    WillPreempt { task: String },
    /// Under EEVDF, is `task` eligible at the step's time?
    Eligible { task: String },
}
