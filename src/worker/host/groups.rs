//! Task-group weights for the group panel (the group entities' weights, as `calc_group_shares`
//! sets them): each group's entity per CPU now, and its weight sampled at fixed intervals of
//! simulated time as the run goes. The samples are taken at the first processed instant of each
//! interval, so a replay after a rewind takes the same ones again (the run is deterministic)
//! and a rewind only has to drop the later ones.

use fairground_sim::engine::Sim;

use crate::wire::proto::{GroupCpu, GroupsInfo, NONE};

/// Samples over a whole run (at most; the interval is at least one tick).
const SAMPLES: u64 = 240;

#[derive(Default)]
pub struct GroupSampler {
    every: u64,
    next_at: u64,
    t: Vec<u64>,
    w: Vec<Vec<u32>>,
}

impl GroupSampler {
    pub fn new(sim: &Sim, tick_ns: u64) -> GroupSampler {
        let every = (sim.duration_ns / SAMPLES).max(tick_ns).max(1);
        GroupSampler { every, ..GroupSampler::default() }
    }

    /// Called after each processed instant.
    #[inline]
    pub fn after_instant(&mut self, sim: &Sim) {
        if sim.fair.tgs.is_empty() || sim.now < self.next_at {
            return;
        }
        let mut w = Vec::with_capacity(sim.fair.tgs.len() * sim.cpus.len());
        for g in 0..sim.fair.tgs.len() as u32 {
            w.extend(sim.fair.group_state(g).iter().map(|s| s.weight.min(u32::MAX as u64) as u32));
        }
        self.t.push(sim.now);
        self.w.push(w);
        self.next_at = (sim.now / self.every + 1) * self.every;
    }

    /// Back to a state where instants before `upto` have been processed.
    pub fn rewind(&mut self, upto: u64) {
        let keep = self.t.partition_point(|&t| t < upto);
        self.t.truncate(keep);
        self.w.truncate(keep);
        self.next_at = self.t.last().map_or(0, |&t| (t / self.every + 1) * self.every);
    }

    pub fn info(&self, sim: &Sim) -> GroupsInfo {
        let tgs = &sim.fair.tgs;
        GroupsInfo {
            names: tgs.iter().map(|g| g.name.clone()).collect(),
            parents: tgs.iter().map(|g| if (g.parent as usize) < tgs.len() { g.parent } else { NONE }).collect(),
            now: (0..tgs.len() as u32)
                .map(|g| {
                    sim.fair
                        .group_state(g)
                        .iter()
                        .map(|s| GroupCpu {
                            weight: s.weight,
                            on_rq: s.on_rq,
                            se_load_avg: s.se_load_avg,
                            rq_load_avg: s.rq_load_avg,
                            h_nr_running: s.h_nr_running,
                        })
                        .collect()
                })
                .collect(),
            sample_ns: self.t.clone(),
            weights: self.w.clone(),
        }
    }
}
