//! Tasks and their behaviours (contract §1.3).

use crate::rng::Rng;
use crate::scenario::{Behavior, Dist};

/// Work of a hog: never finishes.
pub const FOREVER: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TState {
    /// Before its fork time.
    Unborn,
    Sleeping,
    /// Woken, on its way to its CPU's runqueue (`machine.costs.wakeup_ns`; TASK_WAKING).
    Waking,
    /// Queued, waiting for a CPU.
    Runnable,
    Running,
}

/// What a task does, in ns, with the state its behaviour needs.
#[derive(Clone, Debug)]
pub enum Beh {
    Hog,
    Periodic { period: u64, run: u64 },
    Bursty { run: Dist, sleep: Dist },
    Duty { quota: u64, period: u64 },
    /// `[sleep, run]` steps in ns and the step under way.
    Replay { steps: Vec<(u64, u64)>, at: usize },
    /// A task of workload `wl` (hackbench, schbench): its role drives it (`workloads/`), and
    /// `idx` is its index among the workload's tasks of that role.
    Workload { wl: u32, role: Role, idx: u32 },
}

/// The roles of workload tasks (contract §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Sender,
    Receiver,
    Messenger,
    Worker,
}

impl Beh {
    pub fn from_spec(b: &Behavior) -> Beh {
        match b {
            Behavior::Hog => Beh::Hog,
            Behavior::Periodic { period_us, run_us } => Beh::Periodic { period: period_us * 1000, run: run_us * 1000 },
            Behavior::Bursty { run_us, sleep_us } => Beh::Bursty { run: run_us.clone(), sleep: sleep_us.clone() },
            // percent% of the period, in ns: percent * period_us * 1000 / 100.
            Behavior::Duty { percent, period_us } => Beh::Duty { quota: *percent as u64 * period_us * 10, period: period_us * 1000 },
            Behavior::Replay { steps_us, .. } => Beh::Replay { steps: steps_us.iter().map(|&(s, r)| (s * 1000, r * 1000)).collect(), at: 0 },
        }
    }

    /// Tasks that are forked asleep and woken by their first timer (periodic).
    pub fn forked_asleep(&self) -> bool {
        match self {
            Beh::Periodic { .. } => true,
            Beh::Replay { steps, .. } => steps[0].0 > 0,
            _ => false,
        }
    }

    /// The period of timer-driven behaviours.
    pub fn period(&self) -> Option<u64> {
        match *self {
            Beh::Periodic { period, .. } | Beh::Duty { period, .. } => Some(period),
            _ => None,
        }
    }
}

/// Per-task counters of the report.
#[derive(Clone, Debug, Default)]
pub struct TaskStats {
    pub wakeups: u64,
    pub switches: u64,
    pub involuntary: u64,
    pub involuntary_wakeup: u64,
    pub involuntary_tick: u64,
    pub wakeup_preemptions: u64,
    pub migrations: u64,
    pub overruns: u64,
    /// Time spent on switches and cache refills (`machine.costs`): in `cpu_ns`, not in work.
    pub overhead_ns: u64,
    /// The longest wait to run (a wakeup latency or a preempt delay), and when it ended: the
    /// "max delay" of `perf sched latency`.
    pub max_delay: u64,
    pub max_delay_at: u64,
    pub wakeup_latency: Vec<u64>,
    pub preempt_delay: Vec<u64>,
}

#[derive(Clone, Debug)]
pub struct Task {
    pub name: String,
    /// Entity index (equal to the task index).
    pub se: u32,
    pub cpu: u32,
    pub state: TState,
    pub nice: i32,
    pub latency_nice: i32,
    /// Allowed CPUs as a sorted list; empty = all.
    pub allowed: Vec<u32>,
    pub cgroup: Option<u32>,
    pub start_ns: u64,
    pub beh: Beh,
    /// CPU still needed by the current burst (FOREVER for a hog).
    pub work_left: u64,
    /// When the current stint on a CPU began.
    pub run_start: u64,
    /// Next timer expiry of periodic/duty tasks.
    pub next_fire: u64,
    pub rng: Rng,
    /// Set at a wakeup, cleared when the task first runs after it.
    pub waking_since: Option<u64>,
    /// Set at an involuntary switch-out, cleared when it runs again.
    pub preempted_since: Option<u64>,
    /// The overhead the current stint began with (`switch_ns`, plus `migration_ns` after a
    /// move): its first useful instruction comes that long after `run_start`.
    pub overhead: u64,
    /// Moved to another CPU since it last ran (its next stint pays `migration_ns`).
    pub migrated: bool,
    /// SCHED_FIFO, SCHED_RR or SCHED_DEADLINE: a class above the fair class (`engine/rt.rs`);
    /// its entity is never queued on a cfs_rq.
    pub rt: bool,
    pub stats: TaskStats,
}

impl Task {
    #[inline]
    pub fn may_run_on(&self, cpu: u32) -> bool {
        self.allowed.is_empty() || self.allowed.binary_search(&cpu).is_ok()
    }
}
