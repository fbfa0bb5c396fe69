//! Period and slice arithmetic (kernel/sched/fair.c v6.2: __sched_period … sched_vslice).

use super::Fair;
use crate::weights::{calc_delta, calc_delta_fair, calc_delta_tmp};

impl Fair {
    /// `__sched_period()` (v6.2).
    #[inline]
    pub fn sched_period(&self, nr_running: u64) -> u64 {
        if nr_running > self.cfg.sched_nr_latency {
            nr_running * self.cfg.min_granularity_ns
        } else {
            self.cfg.latency_ns
        }
    }

    /// `sched_slice()` (v6.2, ALT_PERIOD and BASE_SLICE on, as by default). Walks up the
    /// hierarchy multiplying by each level's weight fraction; an entity not on its runqueue is
    /// counted as if it were (on an on-stack copy of the load, so no inverse is cached).
    pub fn sched_slice(&mut self, rq: u32, se: u32) -> u64 {
        let cpu = self.cfs_rqs[rq as usize].cpu;
        // ALT_PERIOD: the period is sized by all runnable tasks of the CPU.
        let nr_running = self.cfs_rqs[self.root_rq(cpu) as usize].h_nr_running as u64;
        let mut slice = self.sched_period(nr_running + u64::from(!self.ents[se as usize].on_rq));
        let mut s = se;
        while s != crate::entity::NIL {
            let e = &self.ents[s as usize];
            let (w, on_rq, q) = (e.load.weight, e.on_rq, e.cfs_rq);
            if on_rq {
                slice = calc_delta(slice, w, &mut self.cfs_rqs[q as usize].load);
            } else {
                let mut lw = self.cfs_rqs[q as usize].load;
                lw.add(w);
                slice = calc_delta_tmp(slice, w, lw);
            }
            s = self.ents[s as usize].parent;
        }
        // BASE_SLICE: an idle entity beside non-idle ones gets sysctl_sched_idle_min_granularity
        // (unscaled), so that it still runs a little at a time when its weight's share is tiny.
        let q = &self.cfs_rqs[rq as usize];
        let sched_idle_cfs_rq = q.nr_running != 0 && q.nr_running == q.idle_nr_running;
        let min_gran = if self.ents[se as usize].is_idle() && !sched_idle_cfs_rq {
            self.cfg.idle_min_granularity_ns
        } else {
            self.cfg.min_granularity_ns
        };
        slice.max(min_gran)
    }

    /// `sched_vslice()` (v6.2).
    pub fn sched_vslice(&mut self, rq: u32, se: u32) -> u64 {
        let slice = self.sched_slice(rq, se);
        calc_delta_fair(slice, &mut self.ents[se as usize].load)
    }
}
