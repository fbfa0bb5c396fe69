//! Building the report of contract §2 from a finished run.

use super::stats::summarize;
use super::Sim;
use crate::report::*;

impl Sim {
    /// The report of the run (call after `run()`; runs `finish()` if needed).
    pub fn report(&mut self) -> Report {
        self.finish();
        let cfg = &self.fair.cfg;
        let cfs = cfg.policy.is_cfs();
        let effective = Effective {
            latency_ns: cfs.then_some(cfg.latency_ns),
            min_granularity_ns: cfs.then_some(cfg.min_granularity_ns),
            wakeup_granularity_ns: cfs.then_some(cfg.wakeup_granularity_ns),
            sched_nr_latency: cfs.then_some(cfg.sched_nr_latency),
            base_slice_ns: (!cfs).then_some(cfg.base_slice_ns),
            latency_max_ns: self.fair.v12.then(|| self.fair.get_latency_max()),
            tick_ns: cfg.tick_ns,
            factor: cfg.factor,
        };
        let d = self.duration_ns;
        let costs_zero = self.costs.is_zero();
        let workloads = self.workload_reports();
        // Samples are reordered in place (stats::summarize): the run is over and nothing else
        // reads their order.
        let ents = &self.fair.ents;
        let tasks = self
            .tasks
            .iter_mut()
            .map(|t| {
                let cpu_ns = ents[t.se as usize].sum_exec_runtime;
                let s = &mut t.stats;
                TaskReport {
                    name: t.name.clone(),
                    cpu_ns,
                    share: cpu_ns as f64 / d as f64,
                    wakeups: s.wakeups,
                    switches: s.switches,
                    involuntary: s.involuntary,
                    involuntary_wakeup: s.involuntary_wakeup,
                    involuntary_tick: s.involuntary_tick,
                    wakeup_preemptions: s.wakeup_preemptions,
                    migrations: s.migrations,
                    overruns: s.overruns,
                    overhead_ns: (!costs_zero).then_some(s.overhead_ns),
                    wakeup_latency_ns: summarize(&mut s.wakeup_latency),
                    preempt_delay_ns: summarize(&mut s.preempt_delay),
                    util_avg: ents[t.se as usize].avg.util_avg,
                }
            })
            .collect::<Vec<_>>();

        let cg_tasks = self.cgroup_members();
        let cg_cpu: Vec<u64> = cg_tasks.iter().map(|m| m.iter().map(|&t| tasks[t as usize].cpu_ns).sum()).collect();
        let mut cg_lat: Vec<Vec<u64>> = cg_tasks.iter().map(|m| self.samples_of(m)).collect();
        let cgroups = self
            .cgroups
            .iter()
            .enumerate()
            .map(|(i, g)| CgroupReport { name: g.name.clone(), cpu_ns: cg_cpu[i], wakeup_latency_ns: summarize(&mut cg_lat[i]) })
            .collect();

        Report {
            format: REPORT_FORMAT,
            scenario: self.name.clone(),
            policy: self.fair.cfg.policy.name(),
            seed: self.seed,
            duration_ns: d,
            events: self.events,
            effective,
            warnings: self.warnings.clone(),
            tasks,
            cgroups,
            workloads,
            cpus: self
                .cpus
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let avg = &self.fair.cfs_rqs[self.fair.root_rq(i as u32) as usize].avg;
                    CpuReport {
                        id: i as u32,
                        busy_ns: c.busy_ns,
                        rt_ns: self.has_rt.then_some(c.rt_ns),
                        util_avg: avg.util_avg,
                        load_avg: avg.load_avg,
                        runnable_avg: avg.runnable_avg,
                    }
                })
                .collect(),
        }
    }

    /// Each cgroup's tasks, its descendants' included (§1.5: a cgroup's figures cover them).
    pub(crate) fn cgroup_members(&self) -> Vec<Vec<u32>> {
        let parent: Vec<Option<usize>> =
            self.cgroups.iter().map(|g| g.parent.as_ref().and_then(|p| self.cgroups.iter().position(|x| &x.name == p))).collect();
        let mut out = vec![Vec::new(); self.cgroups.len()];
        for (ti, t) in self.tasks.iter().enumerate() {
            let mut g = t.cgroup.map(|g| g as usize);
            while let Some(i) = g {
                out[i].push(ti as u32);
                g = parent[i];
            }
        }
        out
    }

    fn samples_of(&self, tasks: &[u32]) -> Vec<u64> {
        self.samples_of_kind(tasks, Samples::WakeupLatency)
    }

    fn samples_of_kind(&self, tasks: &[u32], kind: Samples) -> Vec<u64> {
        tasks.iter().flat_map(|&t| kind.of(&self.tasks[t as usize].stats).iter().copied()).collect()
    }

    /// Every set of wakeup-latency samples a histogram can be drawn of, named as the A/B
    /// tables name them: all tasks, each workload (its members), each cgroup, each task.
    pub fn wakeup_sample_sets(&self) -> Vec<(String, Vec<u64>)> {
        self.sample_sets(Samples::WakeupLatency)
    }

    /// The same sets of either kind of sample.
    pub fn sample_sets(&self, kind: Samples) -> Vec<(String, Vec<u64>)> {
        let all: Vec<u32> = (0..self.tasks.len() as u32).collect();
        let mut out = vec![("all tasks".to_string(), self.samples_of_kind(&all, kind))];
        for (wi, w) in self.wl.iter().enumerate() {
            let m: Vec<u32> = self.workload_members(wi).collect();
            out.push((format!("workload {}", w.name), self.samples_of_kind(&m, kind)));
        }
        for (g, m) in self.cgroups.iter().zip(self.cgroup_members()) {
            out.push((format!("cgroup {}", g.name), self.samples_of_kind(&m, kind)));
        }
        out.extend(self.tasks.iter().map(|t| (t.name.clone(), kind.of(&t.stats).clone())));
        out
    }
}

/// Which samples a set holds: the wait from wakeup to running (`wakeup_latency_ns`), or from
/// an involuntary switch-out to running again (`preempt_delay_ns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Samples {
    WakeupLatency,
    PreemptDelay,
}

impl Samples {
    fn of(self, s: &super::task::TaskStats) -> &Vec<u64> {
        match self {
            Samples::WakeupLatency => &s.wakeup_latency,
            Samples::PreemptDelay => &s.preempt_delay,
        }
    }
}
