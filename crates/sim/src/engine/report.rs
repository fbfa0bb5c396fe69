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
        let workloads = self.workload_reports();
        // Samples are sorted in place: the run is over and nothing else reads their order.
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
                    wakeup_latency_ns: summarize(&mut s.wakeup_latency),
                    preempt_delay_ns: summarize(&mut s.preempt_delay),
                }
            })
            .collect::<Vec<_>>();

        // A cgroup's figures include its descendants' tasks (§1.5).
        let n = self.cgroups.len();
        let parent: Vec<Option<usize>> = self
            .cgroups
            .iter()
            .map(|g| g.parent.as_ref().and_then(|p| self.cgroups.iter().position(|x| &x.name == p)))
            .collect();
        let mut cg_cpu = vec![0u64; n];
        let mut cg_lat: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (t, r) in self.tasks.iter().zip(&tasks) {
            let mut g = t.cgroup.map(|g| g as usize);
            while let Some(i) = g {
                cg_cpu[i] += r.cpu_ns;
                cg_lat[i].extend_from_slice(&t.stats.wakeup_latency);
                g = parent[i];
            }
        }
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
            cpus: self.cpus.iter().enumerate().map(|(i, c)| CpuReport { id: i as u32, busy_ns: c.busy_ns }).collect(),
        }
    }
}
