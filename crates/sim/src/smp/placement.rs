//! Where a task runs when it wakes or is forked: `select_task_rq_fair()`'s fast path and
//! `find_idlest_cpu()`, as modelled (docs/model.md, "Many CPUs"). Placement reads only the
//! engine's view of each CPU (running task, number of runnable tasks, busy time), never a
//! policy's internals, so it is the same under every policy.

use super::domains::SCHED_CAPACITY_SCALE;
use crate::engine::Sim;
use crate::entity::NIL;

/// `sd->imbalance_pct` of an LLC (MC) domain as `sd_init()` sets it (v6.2).
pub const LLC_IMBALANCE_PCT: u64 = 117;

/// `update_idle_cpu_scan()` (v6.2, SIS_UTIL): the number of CPUs `select_idle_cpu()` may
/// scan in an LLC of `llc_weight` CPUs whose summed utilisation is `sum_util` (each CPU
/// 0..=1024). It falls as the square of the utilisation and reaches 0 at 100/117 = 85%.
pub fn nr_idle_scan(sum_util: u64, llc_weight: u64) -> u32 {
    // x = sum_util / llc_weight                                    [3]
    let x = sum_util / llc_weight.max(1);
    // y = SCHED_CAPACITY_SCALE - x^2 * pct^2 / (10000 * SCHED_CAPACITY_SCALE)   [4]
    let pct = LLC_IMBALANCE_PCT;
    let tmp = (x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE)).min(SCHED_CAPACITY_SCALE);
    let y = SCHED_CAPACITY_SCALE - tmp;
    // nr_scan = llc_weight * y / SCHED_CAPACITY_SCALE               [2]
    (y * llc_weight / SCHED_CAPACITY_SCALE) as u32
}

impl Sim {
    /// `available_idle_cpu()`: nothing running and nothing queued (a task enqueued during
    /// this instant makes its CPU busy at once, as `rq->nr_running` does).
    pub(crate) fn cpu_idle(&self, cpu: u32) -> bool {
        let c = &self.cpus[cpu as usize];
        c.curr == NIL && self.nr_running(cpu) == 0 && c.rt_curr == NIL && c.rt_queue.is_empty()
    }

    /// `sched_idle_cpu()` (v5.6+, as in v6.2 to v6.12): every task the CPU has is SCHED_IDLE
    /// (`rq->nr_running == rq->cfs.idle_h_nr_running`, a higher-class task counted in
    /// nr_running), and it has one. Wakeup placement takes such a CPU as it takes an idle one:
    /// the woken task will preempt what runs there at once.
    pub(crate) fn sched_idle_cpu(&self, cpu: u32) -> bool {
        let c = &self.cpus[cpu as usize];
        let root = &self.fair.cfs_rqs[self.fair.root_rq(cpu) as usize];
        c.rt_curr == NIL && c.rt_queue.is_empty() && root.h_nr_running != 0 && root.h_nr_running == root.idle_h_nr_running
    }

    /// `available_idle_cpu() || sched_idle_cpu()`: what `select_idle_sibling()` and
    /// `__select_idle_cpu()` accept.
    #[inline]
    pub(crate) fn idle_for_wakeup(&self, cpu: u32) -> bool {
        self.cpu_idle(cpu) || self.sched_idle_cpu(cpu)
    }

    /// Runnable tasks of a CPU of every class (`rq->nr_running`): the fair ones and the
    /// fifo/rr/deadline ones, which placement and the balancer count as the kernel does.
    pub(crate) fn rq_nr_running(&self, cpu: u32) -> u32 {
        let c = &self.cpus[cpu as usize];
        self.nr_running(cpu) + u32::from(c.rt_curr != NIL) + c.rt_queue.len() as u32
    }

    /// Runnable tasks of a CPU, the running one included (`rq->cfs.h_nr_running`).
    #[inline]
    pub(crate) fn nr_running(&self, cpu: u32) -> u32 {
        self.fair.cfs_rqs[self.fair.root_rq(cpu) as usize].h_nr_running
    }

    /// Wakeup placement (`select_task_rq_fair()` → `select_idle_sibling()`, modelled with the
    /// previous CPU as the target, no wake_affine): the previous CPU if it is idle or runs only
    /// SCHED_IDLE tasks; else such a CPU found by `select_idle_cpu()` in the previous CPU's
    /// LLC; else the previous CPU. Affinity always holds.
    pub(crate) fn select_task_rq(&self, ti: u32) -> u32 {
        let t = &self.tasks[ti as usize];
        let prev = t.cpu;
        if self.cpus.len() == 1 {
            return 0;
        }
        if t.may_run_on(prev) && self.idle_for_wakeup(prev) {
            return prev;
        }
        let idle = self.select_idle_cpu(ti, prev);
        if idle != NIL {
            return idle;
        }
        if t.may_run_on(prev) {
            return prev;
        }
        self.select_fork_cpu(ti)
    }

    /// `select_idle_cpu()` (v6.2 with SIS_UTIL): scan the target's LLC from the CPU after the
    /// target, wrapping (`for_each_cpu_wrap`), over the CPUs the task may use, and stop after
    /// `nr_idle_scan` of them. `nr_idle_scan` is refreshed at each balance of the LLC domain
    /// (`balance.rs`); 0 means the LLC is too busy to be worth scanning.
    pub(crate) fn select_idle_cpu(&self, ti: u32, target: u32) -> u32 {
        let t = &self.tasks[ti as usize];
        let c = &self.cpus[target as usize];
        if c.llc_size <= 1 {
            return NIL;
        }
        // "because !--nr is the condition to stop scan"
        let nr = self.smp.nr_idle_scan[(target / c.llc_size) as usize] + 1;
        if nr == 1 {
            return NIL;
        }
        if t.allowed.is_empty() {
            // Every CPU counts: the scan looks at the nr - 1 CPUs after the target, wrapping
            // in the LLC; the idle map finds the first idle one among them.
            let found = self.scan_idle_map(target, c.llc_first, c.llc_size, nr - 1);
            debug_assert_eq!(found, self.select_idle_cpu_walk(ti, target, nr), "idle map out of date");
            return found;
        }
        self.select_idle_cpu_walk(ti, target, nr)
    }

    /// The first idle CPU among the `n` CPUs after `target` in its LLC, wrapping.
    fn scan_idle_map(&self, target: u32, first: u32, size: u32, n: u32) -> u32 {
        let end = first + size;
        let n = n.min(size);
        let a_end = (target + 1 + n).min(end);
        if let Some(cpu) = self.next_idle(target + 1, a_end) {
            return cpu;
        }
        let rest = n - (a_end - (target + 1));
        if rest > 0 {
            if let Some(cpu) = self.next_idle(first, first + rest) {
                return cpu;
            }
        }
        NIL
    }

    /// `select_idle_cpu()`'s loop itself, CPU by CPU, counting only allowed CPUs.
    fn select_idle_cpu_walk(&self, ti: u32, target: u32, mut nr: u32) -> u32 {
        let t = &self.tasks[ti as usize];
        let c = &self.cpus[target as usize];
        for k in 1..=c.llc_size {
            let cpu = c.llc_first + (target - c.llc_first + k) % c.llc_size;
            if !t.may_run_on(cpu) {
                continue;
            }
            nr -= 1;
            if nr == 0 {
                return NIL;
            }
            if self.idle_for_wakeup(cpu) {
                return cpu;
            }
        }
        NIL
    }

    /// Fork placement (`find_idlest_cpu()`, modelled): the allowed CPU with the fewest
    /// runnable tasks of any class; on ties, the fewest tasks homed there (running, queued or asleep: a
    /// stand-in for PELT's blocked load, so that tasks forked asleep spread too); then the
    /// lowest id.
    pub(crate) fn select_fork_cpu(&self, ti: u32) -> u32 {
        let t = &self.tasks[ti as usize];
        let mut best = NIL;
        let mut best_load = (u32::MAX, u32::MAX);
        for cpu in 0..self.cpus.len() as u32 {
            if !t.may_run_on(cpu) {
                continue;
            }
            let l = (self.rq_nr_running(cpu), self.smp.homed[cpu as usize]);
            if l < best_load {
                best = cpu;
                best_load = l;
                if l == (0, 0) {
                    break;
                }
            }
        }
        if best == NIL {
            0
        } else {
            best
        }
    }
}

#[cfg(test)]
mod tests {
    use super::nr_idle_scan;

    /// Worked by hand from update_idle_cpu_scan()'s integer arithmetic, 8-CPU LLC:
    /// idle → scan all 8; 6 busy (x = 768): tmp = 768²·117²/10240000 = 788, y = 236,
    /// 236·8/1024 = 1; 7 busy (x = 896): tmp = 1073 → capped 1024 → 0.
    #[test]
    fn sis_util_scan_depth() {
        assert_eq!(nr_idle_scan(0, 8), 8);
        assert_eq!(nr_idle_scan(6 * 1024, 8), 1);
        assert_eq!(nr_idle_scan(7 * 1024, 8), 0);
        assert_eq!(nr_idle_scan(8 * 1024, 8), 0);
        // half busy: x = 512, tmp = 512²·13689/10240000 = 350, y = 674, 674·64/1024 = 42.
        assert_eq!(nr_idle_scan(32 * 1024, 64), 42);
    }

    /// V4 (../shared/reference/kernel-smp.md): an 8-CPU LLC at 25, 50, 75 and 85.4 % summed
    /// utilisation: x = 256, 512, 768, 875; tmp = x²·117²/10 240 000 = 87, 350, 788, 1023;
    /// (1024 − tmp)·8/1024 = 7, 5, 1, 0.
    #[test]
    fn v4_scan_depths() {
        assert_eq!([2048, 4096, 6144, 7000].map(|u| nr_idle_scan(u, 8)), [7, 5, 1, 0]);
    }
}
