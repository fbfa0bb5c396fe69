//! Wakeup preemption and buddies (kernel/sched/fair.c v6.2: wakeup_gran … check_preempt_wakeup;
//! v12 1/8 and 5/8 rewrote `wakeup_preempt_entity()`; the thread's follow-ups are variants).

use super::{Fair, ReschedCause};
use crate::entity::NIL;
use crate::scenario::{FairPolicy, WakeupPreemptVariant};
use crate::weights::calc_delta_fair;

impl Fair {
    /// `wakeup_gran()` (v6.2): the wakeup granularity in the *wakee's* virtual time, so light
    /// wakees get a larger granularity (and preempt less readily).
    #[inline]
    pub fn wakeup_gran(&mut self, se: u32) -> u64 {
        let g = self.cfg.wakeup_granularity_ns;
        calc_delta_fair(g, &mut self.ents[se as usize].load)
    }

    /// `wakeup_preempt_entity(curr, se)`: should `se` preempt `curr`? 1 = yes, 0 = within
    /// granularity, -1 = se is not ahead. v6.2, or v12 (with its clamp switchable and the
    /// thread's two min_vruntime variants). `rq` is the cfs_rq they share (the variants need
    /// its min_vruntime).
    pub fn wakeup_preempt_entity(&mut self, rq: u32, curr: u32, se: u32) -> i32 {
        let vdiff = self.ents[curr as usize].vruntime.wrapping_sub(self.ents[se as usize].vruntime) as i64;
        if !self.v12 {
            if vdiff <= 0 {
                return -1;
            }
            return v62_wakeup_verdict(vdiff, self.wakeup_gran(se) as i64);
        }

        let offset = self.wakeup_latency_gran(curr, se);
        if vdiff < offset {
            return -1;
        }
        let wakeup_gran = self.wakeup_gran(se) as i64;
        let latency_max = self.get_latency_max();
        match self.cfg.feat.wakeup_preempt_variant {
            // v12 1/8: a long sleeper capped at the sleeper credit must still get a chance to
            // preempt, even when wakeup_gran() is as large as the latency.
            WakeupPreemptVariant::V12 => {
                super::latency::v12_wakeup_verdict(vdiff, offset, wakeup_gran, self.cfg.feat.latency_max_clamp_wakeup, latency_max as i64)
            }
            variant => {
                // s64 + unsigned long: wrapping, then read back as s64.
                let gran = offset.wrapping_add(wakeup_gran);
                if vdiff > gran {
                    return 1;
                }
                let behind = self.cfs_rqs[rq as usize].min_vruntime.wrapping_sub(self.ents[se as usize].vruntime) as i64;
                let fire = if variant == WakeupPreemptVariant::MinVruntime {
                    // As first posted: s64 > unsigned long compares unsigned, so a wakee
                    // ahead of min_vruntime (negative) always preempts.
                    (behind as u64) > latency_max
                } else {
                    behind > latency_max as i64
                };
                i32::from(fire)
            }
        }
    }

    /// The decision log's entry for a CFS wakeup check: the numbers `wakeup_preempt_entity`
    /// used, and its verdict had neither v12 clamp applied.
    #[allow(clippy::too_many_arguments)]
    fn log_wakeup(&mut self, cpu: u32, curr: u32, p: u32, se: u32, pse: u32, verdict: i32, site: &'static crate::explain::Site) {
        let vdiff = self.ents[se as usize].vruntime.wrapping_sub(self.ents[pse as usize].vruntime) as i64;
        let wakeup_gran = self.wakeup_gran(pse) as i64;
        let latency_max = self.get_latency_max() as i64;
        let (offset, offset_unclamped, gran) = if self.v12 {
            let offset = self.wakeup_latency_gran(se, pse);
            let (curr_off, mut raw) = (self.ents[se as usize].latency_offset, self.ents[pse as usize].latency_offset);
            if raw < 0 || curr_off < 0 {
                raw -= curr_off;
            }
            let mut gran = offset.wrapping_add(wakeup_gran);
            if self.cfg.feat.wakeup_preempt_variant == WakeupPreemptVariant::V12 && self.cfg.feat.latency_max_clamp_wakeup {
                gran = gran.min(latency_max);
            }
            (offset, raw, gran)
        } else {
            (0, 0, wakeup_gran)
        };
        let gran_unclamped = offset.wrapping_add(wakeup_gran);
        let verdict_unclamped = if !self.v12 || self.cfg.feat.wakeup_preempt_variant != WakeupPreemptVariant::V12 {
            verdict
        } else {
            super::latency::v12_wakeup_verdict(vdiff, offset_unclamped, wakeup_gran, false, latency_max)
        };
        let d = crate::explain::Decision {
            at_ns: self.now,
            cpu,
            task: p,
            other: curr,
            outcome: verdict == 1,
            why: crate::explain::Why::CfsWakeup {
                vdiff,
                wakeup_gran,
                offset,
                offset_unclamped,
                gran,
                gran_unclamped,
                latency_max,
                verdict,
                verdict_unclamped,
                via_groups: se != curr,
                curr_offset: self.ents[se as usize].latency_offset,
                wakee_offset: self.ents[pse as usize].latency_offset,
            },
            site,
        };
        self.record(d);
    }

    /// `set_next_buddy()` (v6.2).
    pub fn set_next_buddy(&mut self, se: u32) {
        self.set_buddy_chain(se, |q| &mut q.next);
    }

    /// `set_last_buddy()` (v6.2).
    pub fn set_last_buddy(&mut self, se: u32) {
        self.set_buddy_chain(se, |q| &mut q.last);
    }

    /// Mark `se` and its ancestors as the buddy of their cfs_rqs, stopping at one not queued.
    fn set_buddy_chain(&mut self, mut se: u32, field: impl Fn(&mut super::CfsRq) -> &mut u32) {
        while se != NIL {
            let e = &self.ents[se as usize];
            // An idle entity is never a buddy (se_is_idle(), v6.2 … v6.12).
            if !e.on_rq || e.is_idle() {
                return;
            }
            let (q, parent) = (e.cfs_rq, e.parent);
            *field(&mut self.cfs_rqs[q as usize]) = se;
            se = parent;
        }
    }

    /// `find_matching_se()` (v6.2): walk both entities up to siblings on one cfs_rq.
    pub fn find_matching_se(&self, mut se: u32, mut pse: u32) -> (u32, u32) {
        let (mut sd, mut pd) = (self.ents[se as usize].depth, self.ents[pse as usize].depth);
        while sd > pd {
            se = self.ents[se as usize].parent;
            sd -= 1;
        }
        while pd > sd {
            pse = self.ents[pse as usize].parent;
            pd -= 1;
        }
        while self.ents[se as usize].cfs_rq != self.ents[pse as usize].cfs_rq {
            se = self.ents[se as usize].parent;
            pse = self.ents[pse as usize].parent;
        }
        (se, pse)
    }

    /// `check_preempt_wakeup()` (v6.2): `curr` is the running task's entity, `p` the woken
    /// one's, both on `cpu`. Returns the verdict of `wakeup_preempt_entity` (or None when it
    /// was not asked).
    pub fn check_preempt_wakeup(&mut self, cpu: u32, curr: u32, p: u32, cause: ReschedCause) -> Option<i32> {
        static SITE: crate::explain::Site =
            crate::decision_site!("Fair::check_preempt_wakeup", "check_preempt_wakeup() → wakeup_preempt_entity(), fair.c v6.2 (and v12 1/8, 5/8)");
        if self.eevdf.is_some() {
            crate::eevdf::task_ops::check_preempt_wakeup(self, cpu, curr, p, cause);
            return None;
        }
        let fork = matches!(cause, ReschedCause::Fork(_));
        if curr == p {
            return None;
        }
        // task_cfs_rq(curr): the cfs_rq the running task is queued on.
        let curr_rq = self.ents[curr as usize].cfs_rq;
        let scale = u64::from(self.cfs_rqs[curr_rq as usize].nr_running) >= self.cfg.sched_nr_latency;
        let mut next_buddy_marked = false;
        if self.cfg.feat.next_buddy && scale && !fork {
            self.set_next_buddy(p);
            next_buddy_marked = true;
        }
        // A wakeup that finds TIF_NEED_RESCHED already set changes nothing more.
        if self.need_resched(cpu) {
            return None;
        }
        // Idle tasks are by definition preempted by non-idle tasks.
        if self.ents[curr as usize].is_idle() && !self.ents[p as usize].is_idle() {
            self.preempt_at_wakeup(cpu, curr, cause, scale);
            return Some(1);
        }
        // Batch and idle tasks do not preempt non-idle tasks (their preemption is driven by
        // the tick).
        if self.ents[p as usize].policy != FairPolicy::Normal || !self.cfg.feat.wakeup_preemption {
            return None;
        }
        let (se, pse) = self.find_matching_se(curr, p);
        let q = self.ents[se as usize].cfs_rq;
        self.update_curr(q);
        let verdict = self.wakeup_preempt_entity(q, se, pse);
        if self.log.is_some() {
            self.log_wakeup(cpu, curr, p, se, pse, verdict, &SITE);
        }
        if verdict == 1 {
            // Bias the pick toward the entity that triggered the preemption.
            if !next_buddy_marked {
                self.set_next_buddy(pse);
            }
            self.preempt_at_wakeup(cpu, se, cause, scale);
        }
        Some(verdict)
    }

    /// The `preempt:` label of `check_preempt_wakeup()` (v6.2): reschedule, and make the
    /// preempted entity the last buddy.
    fn preempt_at_wakeup(&mut self, cpu: u32, se: u32, cause: ReschedCause, scale: bool) {
        self.resched_curr(cpu, cause);
        if self.ents[se as usize].on_rq && self.cfg.feat.last_buddy && scale && self.ents[se as usize].is_task() {
            self.set_last_buddy(se);
        }
    }
}

/// `wakeup_preempt_entity()`'s comparison as v6.2 writes it: -1 when the wakee is not ahead,
/// else 1 when `vdiff` beats the wakee's granularity, else 0. The decision log's
/// counterfactuals call it with another granularity.
pub fn v62_wakeup_verdict(vdiff: i64, gran: i64) -> i32 {
    if vdiff <= 0 {
        -1
    } else {
        i32::from(vdiff > gran)
    }
}
