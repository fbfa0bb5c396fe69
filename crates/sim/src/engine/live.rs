//! What a live view of a run needs from the engine: figures of each task at any instant
//! (not only at the end, as the report gives them), and `timeline` entries added while the run
//! is under way (the app's sched_setattr-like edits).

use super::stats::rank_index;
use super::task::TState;
use super::Sim;
use crate::scenario::{self, ScenarioError, TimelineEntry};

/// A task's figures so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskLive {
    /// CPU time received up to the instant asked for.
    pub cpu_ns: u64,
    pub wakeups: u64,
    pub switches: u64,
    pub involuntary: u64,
    pub wakeup_preemptions: u64,
    pub wakeup_latency_count: u64,
    pub wakeup_latency_p50: Option<u64>,
    pub wakeup_latency_p99: Option<u64>,
    pub wakeup_latency_max: Option<u64>,
    pub nice: i32,
    pub latency_nice: i32,
    /// The custom slice set with `slice_us` (eevdf-v6.12), None for the default slice.
    pub custom_slice_ns: Option<u64>,
    /// 0 = not born, 1 = sleeping, 2 = runnable, 3 = running.
    pub state: u8,
}

/// A workload's or cgroup's figures so far, as the report's `workloads` and `cgroups` count
/// them (a schbench's latencies are its workers'; a cgroup's include its descendants').
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupLive {
    /// "workload NAME" or "cgroup NAME", as the A/B tables name them.
    pub name: String,
    /// CPU time of all its tasks (a workload's messengers included).
    pub cpu_ns: u64,
    pub wakeup_latency_count: u64,
    pub wakeup_latency_p50: Option<u64>,
    pub wakeup_latency_p99: Option<u64>,
    /// A workload's completion time once it has completed (from its start).
    pub completion_ns: Option<u64>,
}

/// Nearest-rank p50 and p99 (as `stats::nearest_rank`) without sorting: two selections, so a
/// live view can ask for them many times a second.
fn percentiles_50_99(v: &mut [u64]) -> (Option<u64>, Option<u64>) {
    if v.is_empty() {
        return (None, None);
    }
    let (i50, i99) = (rank_index(v.len(), 50, 100), rank_index(v.len(), 99, 100));
    let p99 = *v.select_nth_unstable(i99).1;
    // Everything left of i99 is ≤ p99, so p50 (at i50 ≤ i99) is found among them.
    let p50 = if i50 == i99 { p99 } else { *v[..i99].select_nth_unstable(i50).1 };
    (Some(p50), Some(p99))
}

impl Sim {
    /// Figures of every task at `at_ns` (≥ the last instant processed), counting the CPU time
    /// of running tasks up to `at_ns`. `scratch` is reused for the percentiles.
    pub fn live_tasks(&self, at_ns: u64, scratch: &mut Vec<u64>, out: &mut Vec<TaskLive>) {
        out.clear();
        for t in &self.tasks {
            let e = &self.fair.ents[t.se as usize];
            let mut cpu_ns = e.sum_exec_runtime;
            if t.state == TState::Running && !self.is_finished() {
                cpu_ns += at_ns.saturating_sub(e.exec_start);
            }
            scratch.clear();
            scratch.extend_from_slice(&t.stats.wakeup_latency);
            let (p50, p99) = percentiles_50_99(scratch);
            out.push(TaskLive {
                cpu_ns,
                wakeups: t.stats.wakeups,
                switches: t.stats.switches,
                involuntary: t.stats.involuntary,
                wakeup_preemptions: t.stats.wakeup_preemptions,
                wakeup_latency_count: scratch.len() as u64,
                wakeup_latency_p50: p50,
                wakeup_latency_p99: p99,
                wakeup_latency_max: scratch.iter().copied().max(),
                nice: t.nice,
                latency_nice: t.latency_nice,
                custom_slice_ns: e.custom_slice.then_some(e.slice),
                state: match t.state {
                    TState::Unborn => 0,
                    TState::Sleeping | TState::Waking => 1,
                    TState::Runnable => 2,
                    TState::Running => 3,
                },
            });
        }
    }

    /// Every workload's and cgroup's figures so far, from the tasks' (`live_tasks` at the same
    /// instant). `scratch` is reused for the percentiles.
    pub fn live_groups(&self, tasks: &[TaskLive], scratch: &mut Vec<u64>, out: &mut Vec<GroupLive>) {
        out.clear();
        let mut push = |name: String, all: &mut dyn Iterator<Item = u32>, measured: &mut dyn Iterator<Item = u32>, completion_ns: Option<u64>| {
            let cpu_ns = all.map(|t| tasks.get(t as usize).map_or(0, |l| l.cpu_ns)).sum();
            scratch.clear();
            measured.for_each(|t| scratch.extend_from_slice(&self.tasks[t as usize].stats.wakeup_latency));
            let (p50, p99) = percentiles_50_99(scratch);
            out.push(GroupLive { name, cpu_ns, wakeup_latency_count: scratch.len() as u64, wakeup_latency_p50: p50, wakeup_latency_p99: p99, completion_ns });
        };
        for (wi, w) in self.wl.iter().enumerate() {
            push(format!("workload {}", w.name), &mut (w.first..w.first + w.ntasks), &mut self.workload_members(wi), w.done_at.map(|t| t - w.start_ns));
        }
        for (g, m) in self.cgroups.iter().zip(self.cgroup_members()) {
            push(format!("cgroup {}", g.name), &mut m.iter().copied(), &mut m.iter().copied(), None);
        }
    }

    /// The task running on each CPU (NIL when idle).
    pub fn running(&self) -> impl Iterator<Item = u32> + '_ {
        self.cpus.iter().map(|c| if c.rt_curr != crate::entity::NIL { c.rt_curr } else { c.curr })
    }

    /// The time of the next pending instant, if the run has one before its end.
    /// The next instant with events, or None at the end of the run, and after a runaway
    /// (`Sim::runaway`), so that no caller loops on a run that no longer advances.
    pub fn next_instant(&self) -> Option<u64> {
        if self.runaway.is_some() {
            return None;
        }
        self.queue.peek_time().filter(|&t| t < self.duration_ns)
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Add a `timeline` entry of `s` (the scenario this run was built from, with the entry
    /// appended last) while the run is under way. It must lie after every instant processed so
    /// far; the run is then the same, bit for bit, as a fresh run of `s`: the queue orders
    /// events by (time, class, id), never by when they were pushed, and the entry's id is its
    /// index in the file, as `Sim::new` gives it.
    pub fn add_timeline_entry(&mut self, s: &scenario::Scenario, entry: &TimelineEntry) -> Result<(), ScenarioError> {
        // Instant `now` is still to come only while the queue holds events at it.
        let ahead = entry.at_ns > self.now || (entry.at_ns == self.now && self.queue.peek_time() == Some(self.now));
        if self.finished || !ahead {
            return Err(ScenarioError::at(
                "timeline",
                format!("a change at {} ns cannot be added once the run has reached {} ns", entry.at_ns, self.now),
            ));
        }
        let change = super::resolve_change(s, &scenario::expand(s), entry);
        let id = self.changes.len() as u32;
        self.changes.push(change);
        self.queue.push(entry.at_ns, super::events::Class::Timeline, id, 0);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::percentiles_50_99;
    use crate::engine::stats::nearest_rank;

    #[test]
    fn selections_give_the_nearest_rank_percentiles() {
        let mut x = 12345u64;
        for n in [1usize, 2, 3, 99, 100, 101, 1000, 4321] {
            let v: Vec<u64> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 40) % 97
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let mut w = v.clone();
            assert_eq!(percentiles_50_99(&mut w), (nearest_rank(&sorted, 50, 100), nearest_rank(&sorted, 99, 100)), "n = {n}");
        }
        assert_eq!(percentiles_50_99(&mut []), (None, None));
    }
}
