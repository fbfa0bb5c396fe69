//! Group entity weights (kernel/sched/fair.c v6.2): `update_tg_load_avg`,
//! `calc_group_shares`, `update_cfs_group`, `reweight_entity`.

use crate::pelt::get_pelt_divider;
use crate::cfs::Fair;
use crate::entity::NIL;
use crate::weights::scale_load_down;

/// `MIN_SHARES`, unscaled on purpose (see `calc_group_shares`).
pub const MIN_SHARES: i64 = 2;

/// `calc_group_shares()` (v6.2) as a pure function, for tests and for the views:
/// tg_shares · load / (tg_load_avg − contrib + load), clamped to [MIN_SHARES, tg_shares], with
/// load = max(grq weight, grq load_avg). `tg_shares` is scaled (<< 10), the rest unscaled.
pub fn calc_group_shares_of(tg_shares: i64, grq_weight: u64, grq_load_avg: u64, tg_load_avg: i64, contrib: i64) -> i64 {
    let load = (scale_load_down(grq_weight) as i64).max(grq_load_avg as i64);
    let mut tg_weight = tg_load_avg;
    // Ensure tg_weight >= load.
    tg_weight -= contrib;
    tg_weight += load;
    let mut shares = tg_shares * load;
    if tg_weight != 0 {
        shares /= tg_weight;
    }
    shares.clamp(MIN_SHARES, tg_shares)
}

impl Fair {
    /// `update_tg_load_avg()` (v6.2): fold this runqueue's change into the group's sum, but
    /// only when it moved by more than 1/64 of what was last folded in. v6.12 also limits it
    /// to once per millisecond per runqueue (the ratelimit of v6.7).
    pub fn update_tg_load_avg(&mut self, rq: u32) {
        let tg = self.cfs_rqs[rq as usize].tg;
        if tg == NIL {
            return; // the root group's sum is not used
        }
        let now = self.now;
        let v612 = crate::eevdf::since_v612(self);
        let q = &mut self.cfs_rqs[rq as usize];
        if v612 && now.wrapping_sub(q.last_update_tg_load_avg) < 1_000_000 {
            return;
        }
        let delta = q.avg.load_avg as i64 - q.tg_load_avg_contrib;
        if delta.abs() > q.tg_load_avg_contrib / 64 {
            self.tgs[tg as usize].load_avg += delta;
            q.tg_load_avg_contrib = q.avg.load_avg as i64;
            q.last_update_tg_load_avg = now;
        }
    }

    /// `calc_group_shares()` for the group runqueue `grq`.
    pub fn calc_group_shares(&self, grq: u32) -> i64 {
        let q = &self.cfs_rqs[grq as usize];
        let tg = &self.tgs[q.tg as usize];
        calc_group_shares_of(tg.shares as i64, q.load.weight, q.avg.load_avg, tg.load_avg, q.tg_load_avg_contrib)
    }

    /// `update_cfs_group()` (v6.2, SMP): give a group entity the weight its runqueue's share
    /// of the group's load earns it. v6.12 skips the reweight when nothing changed; v6.18
    /// also leaves an empty group's weight alone.
    pub fn update_cfs_group(&mut self, se: u32) {
        let gq = self.ents[se as usize].my_q;
        if gq == NIL {
            return;
        }
        // v6.18: "When a group becomes empty, preserve its weight. This matters for
        // DELAY_DEQUEUE." (the weight a delayed group entity competes with).
        if crate::eevdf::is_v618(self) && self.cfs_rqs[gq as usize].load.weight == 0 {
            return;
        }
        let shares = self.calc_group_shares(gq) as u64;
        if crate::eevdf::since_v612(self) && self.ents[se as usize].load.weight == shares {
            return;
        }
        let rq = self.ents[se as usize].cfs_rq;
        self.reweight_entity(rq, se, shares);
    }

    /// `reweight_entity()`: v6.2 swaps the weight in the runqueue's load and the entity's
    /// average; v6.6 also rescales the relative deadline (or vlag off the queue); v6.12 keeps
    /// the lag and the relative deadline through `reweight_eevdf()`.
    pub fn reweight_entity(&mut self, rq: u32, se: u32, weight: u64) {
        if self.eevdf.is_some() {
            return crate::eevdf::place::reweight_entity(self, rq, se, weight);
        }
        let on_rq = self.ents[se as usize].on_rq;
        if on_rq {
            // Commit outstanding execution time at the old weight.
            if self.cfs_rqs[rq as usize].curr == se {
                self.update_curr(rq);
            }
            let w = self.ents[se as usize].load.weight;
            self.cfs_rqs[rq as usize].load.sub(w);
        }
        self.reweight_avg(rq, se, weight);
        if on_rq {
            let w = self.ents[se as usize].load.weight;
            self.cfs_rqs[rq as usize].load.add(w);
        }
    }

    /// The part of `reweight_entity()` every version shares: take the entity's average out of
    /// the runqueue's, set the weight, recompute the average with it, put it back.
    pub fn reweight_avg(&mut self, rq: u32, se: u32, weight: u64) {
        self.dequeue_load_avg(rq, se);
        self.ents[se as usize].load.set(weight);
        let e = &mut self.ents[se as usize];
        let divider = get_pelt_divider(&e.avg);
        e.avg.load_avg = scale_load_down(e.load.weight) * e.avg.load_sum / divider;
        self.enqueue_load_avg(rq, se);
    }
}
