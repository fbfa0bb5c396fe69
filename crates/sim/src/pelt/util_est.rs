//! Estimated utilisation (UTIL_EST, on by default in every version modelled): what a task
//! used by the end of its last activations, so that a task that sleeps often still counts for
//! what it needs when it runs; the CPU's `cpu_util_cfs()` takes the larger of its util_avg and
//! the sum of its queued tasks' estimates. Two forms:
//! - v6.2 and v6.6: `struct util_est { enqueued, ewma }`, UTIL_EST_FASTUP on (an increase
//!   resets the EWMA), no sample when the task's util_avg exceeds its CPU's capacity, and the
//!   update after the dequeue, which has just aged the task's average;
//! - v6.12 and 6.18 (11137d384996 "sched/fair: Simplify util_est", 6.8): one EWMA per task
//!   (`ewma` here), no FASTUP feature (an increase always resets), no sample when the task was
//!   runnable for longer than it ran, and the update before the dequeue.
//!
//! A CPU's sum is its root runqueue's `enqueued` in both forms.

use super::SchedAvg;
use crate::cfs::flags::*;
use crate::cfs::Fair;

/// `UTIL_AVG_UNCHANGED`: in a task's estimate, util_avg has not changed since its enqueue.
pub const UTIL_AVG_UNCHANGED: u32 = 0x8000_0000;
/// `UTIL_EST_WEIGHT_SHIFT`: a new sample weighs 1/4.
const UTIL_EST_WEIGHT_SHIFT: u32 = 2;
/// `UTIL_EST_MARGIN`: 1 % of SCHED_CAPACITY_SCALE.
const UTIL_EST_MARGIN: u32 = 1024 / 100;

/// `struct util_est` (v6.2 and v6.6). From 6.8 a task keeps only `ewma` (with the flag) and a
/// runqueue only the sum, `enqueued`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UtilEst {
    pub enqueued: u32,
    pub ewma: u32,
}

/// `within_margin()`: |value| < margin, by the kernel's unsigned comparison.
#[inline]
fn within_margin(value: i64, margin: i64) -> bool {
    ((value + margin - 1) as u32) < (2 * margin - 1) as u32
}

impl Fair {
    /// 6.8's single-field form (eevdf-v6.12, eevdf-v6.18).
    #[inline]
    fn util_est_simplified(&self) -> bool {
        crate::eevdf::since_v612(self)
    }

    /// `cfs_se_util_change()`: util_avg moved, so the next dequeue may take a sample.
    #[inline]
    pub(super) fn cfs_se_util_change(simplified: bool, sa: &mut SchedAvg) {
        if simplified {
            sa.util_est.ewma &= !UTIL_AVG_UNCHANGED;
        } else {
            sa.util_est.enqueued &= !UTIL_AVG_UNCHANGED;
        }
    }

    /// `_task_util_est()`.
    pub fn task_util_est_raw(&self, se: u32) -> u32 {
        let ue = self.ents[se as usize].avg.util_est;
        if self.util_est_simplified() {
            ue.ewma & !UTIL_AVG_UNCHANGED
        } else {
            ue.ewma.max(ue.enqueued & !UTIL_AVG_UNCHANGED)
        }
    }

    /// The root runqueue of the CPU a task's entity is on.
    fn root_of(&self, se: u32) -> u32 {
        self.root_rq(self.cfs_rqs[self.ents[se as usize].cfs_rq as usize].cpu)
    }

    /// `util_est_enqueue()`: add the task's estimate to its CPU's sum.
    fn util_est_enqueue(&mut self, se: u32) {
        let est = self.task_util_est_raw(se);
        let root = self.root_of(se);
        let q = &mut self.cfs_rqs[root as usize].avg.util_est;
        q.enqueued = q.enqueued.wrapping_add(est);
    }

    /// `util_est_dequeue()`: take it out again.
    fn util_est_dequeue(&mut self, se: u32) {
        let est = self.task_util_est_raw(se);
        let root = self.root_of(se);
        let q = &mut self.cfs_rqs[root as usize].avg.util_est;
        q.enqueued -= q.enqueued.min(est);
    }

    /// `enqueue_task_fair()`'s estimate, before the walk: always (v6.2, v6.6); not for a
    /// delayed task put back by a migration or a restore (v6.12); only for one that is not
    /// delayed or is being woken from its delay (6.18: 729288bc6856, 6.14).
    pub(crate) fn util_est_at_enqueue(&mut self, se: u32, flags: u32) {
        let e = &self.ents[se as usize];
        let add = if crate::eevdf::is_v618(self) {
            !e.sched_delayed || flags & ENQUEUE_DELAYED != 0
        } else if crate::eevdf::since_v612(self) {
            !(e.sched_delayed && (e.migrating || flags & ENQUEUE_RESTORE != 0))
        } else {
            true
        };
        if add {
            self.util_est_enqueue(se);
        }
    }

    /// `dequeue_task_fair()`'s estimate before the walk: the sum loses the task (v6.2, v6.6:
    /// always; v6.12: not a delayed task leaving by a migration or a save; 6.18: not a delayed
    /// one); from v6.12 the sample is taken here too, before the dequeue ages the average.
    pub(crate) fn util_est_before_dequeue(&mut self, se: u32, flags: u32) {
        let e = &self.ents[se as usize];
        let take = if crate::eevdf::is_v618(self) {
            !e.sched_delayed
        } else if crate::eevdf::since_v612(self) {
            !(e.sched_delayed && (e.migrating || flags & DEQUEUE_SAVE != 0))
        } else {
            true
        };
        if take {
            self.util_est_dequeue(se);
        }
        if self.util_est_simplified() {
            self.util_est_update(se, flags & DEQUEUE_SLEEP != 0);
        }
    }

    /// v6.2 and v6.6 take the sample after the walk (`dequeue_throttle:`), with the task's
    /// own DEQUEUE_SLEEP.
    pub(crate) fn util_est_after_dequeue(&mut self, se: u32, task_sleep: bool) {
        if !self.util_est_simplified() {
            self.util_est_update(se, task_sleep);
        }
    }

    /// `util_est_update()`: at the end of an activation (a sleep), sample util_avg.
    fn util_est_update(&mut self, se: u32, task_sleep: bool) {
        if !task_sleep {
            return;
        }
        let a = self.ents[se as usize].avg;
        let dequeued = a.util_avg as u32;
        if self.util_est_simplified() {
            let mut ewma = a.util_est.ewma;
            if ewma & UTIL_AVG_UNCHANGED != 0 {
                return;
            }
            'done: {
                // Reset on increases: the average only smooths decreases.
                if ewma <= dequeued {
                    ewma = dequeued;
                    break 'done;
                }
                let last_ewma_diff = ewma - dequeued;
                if last_ewma_diff < UTIL_EST_MARGIN {
                    break 'done;
                }
                // It may not have had all the CPU it wanted: no sample.
                if u64::from(dequeued + UTIL_EST_MARGIN) < a.runnable_avg {
                    break 'done;
                }
                ewma <<= UTIL_EST_WEIGHT_SHIFT;
                ewma -= last_ewma_diff;
                ewma >>= UTIL_EST_WEIGHT_SHIFT;
            }
            self.ents[se as usize].avg.util_est.ewma = ewma | UTIL_AVG_UNCHANGED;
            return;
        }
        let mut ue = a.util_est;
        if ue.enqueued & UTIL_AVG_UNCHANGED != 0 {
            return;
        }
        let mut last_enqueued_diff = i64::from(ue.enqueued);
        ue.enqueued = dequeued;
        'done: {
            // UTIL_EST_FASTUP.
            if ue.ewma < ue.enqueued {
                ue.ewma = ue.enqueued;
                break 'done;
            }
            let last_ewma_diff = i64::from(ue.enqueued) - i64::from(ue.ewma);
            last_enqueued_diff -= i64::from(ue.enqueued);
            let margin = i64::from(UTIL_EST_MARGIN);
            if within_margin(last_ewma_diff, margin) {
                if !within_margin(last_enqueued_diff, margin) {
                    break 'done;
                }
                return;
            }
            // A task that ran beyond its CPU's original capacity (1024) gives no sample.
            if a.util_avg > crate::smp::domains::SCHED_CAPACITY_SCALE {
                return;
            }
            let e = (i64::from(ue.ewma) << UTIL_EST_WEIGHT_SHIFT) + last_ewma_diff;
            ue.ewma = (e >> UTIL_EST_WEIGHT_SHIFT) as u32;
        }
        ue.enqueued |= UTIL_AVG_UNCHANGED;
        self.ents[se as usize].avg.util_est = ue;
    }
}

#[cfg(test)]
mod tests {
    use super::within_margin;

    /// within_margin(x, 10) is |x| < 10, by the kernel's unsigned comparison.
    #[test]
    fn within_margin_is_an_open_interval() {
        assert!(within_margin(0, 10));
        assert!(within_margin(9, 10));
        assert!(within_margin(-9, 10));
        assert!(!within_margin(10, 10));
        assert!(!within_margin(-10, 10));
    }
}
