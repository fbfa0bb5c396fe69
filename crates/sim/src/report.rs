//! The CLI/app report of contract §2 (`fairground-report/1`).

use serde::Serialize;

pub const REPORT_FORMAT: &str = "fairground-report/1";

/// Percentile summary of a set of latency samples (contract §1.5). With no samples, `count`
/// is 0 and every other field is null.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LatencyStats {
    pub count: u64,
    pub min: Option<u64>,
    pub mean: Option<u64>,
    pub p50: Option<u64>,
    pub p75: Option<u64>,
    pub p90: Option<u64>,
    pub p95: Option<u64>,
    pub p99: Option<u64>,
    pub p995: Option<u64>,
    pub p999: Option<u64>,
    pub max: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effective {
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
    /// Addition to the contract: `get_latency_max()` under latency-nice-v12.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_max_ns: Option<u64>,
    pub tick_ns: u64,
    /// Addition: the CPU-count factor applied to the normalized tunables.
    pub factor: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskReport {
    pub name: String,
    pub cpu_ns: u64,
    pub share: f64,
    pub wakeups: u64,
    pub switches: u64,
    pub involuntary: u64,
    pub involuntary_wakeup: u64,
    pub involuntary_tick: u64,
    pub wakeup_preemptions: u64,
    pub migrations: u64,
    pub overruns: u64,
    /// Addition: of `cpu_ns`, the time spent on context switches and cache refills
    /// (`machine.costs`), which did no work. Present only when the scenario has costs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead_ns: Option<u64>,
    pub wakeup_latency_ns: LatencyStats,
    pub preempt_delay_ns: LatencyStats,
    /// Addition (contract §4): PELT's `se.avg.util_avg` as stored at the end of the run, what
    /// `/proc/PID/sched` would show at that instant (not decayed further).
    pub util_avg: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CgroupReport {
    pub name: String,
    pub cpu_ns: u64,
    pub wakeup_latency_ns: LatencyStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadReport {
    pub name: String,
    pub completion_ns: Option<u64>,
    pub wakeup_latency_ns: LatencyStats,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuReport {
    pub id: u32,
    pub busy_ns: u64,
    /// Addition: of `busy_ns`, the time SCHED_FIFO/RR/DEADLINE tasks ran, which the fair
    /// class lost (present only when the scenario has such tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_ns: Option<u64>,
    /// Addition (contract §4): the root cfs_rq's PELT averages as stored at the end of the run
    /// (`cfs_rq->avg.util_avg`, `load_avg`, `runnable_avg`).
    pub util_avg: u64,
    pub load_avg: u64,
    pub runnable_avg: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub format: &'static str,
    pub scenario: String,
    pub policy: &'static str,
    pub seed: u64,
    pub duration_ns: u64,
    pub events: u64,
    pub effective: Effective,
    pub warnings: Vec<String>,
    pub tasks: Vec<TaskReport>,
    pub cgroups: Vec<CgroupReport>,
    pub workloads: Vec<WorkloadReport>,
    pub cpus: Vec<CpuReport>,
}
