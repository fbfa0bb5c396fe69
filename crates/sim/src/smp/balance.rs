//! Load balancing, modelled (not the kernel's `load_balance()`; docs/model.md, "Many CPUs"):
//! the scheduling domains, `newidle_balance()`, the periodic `rebalance_domains()`, and
//! moving a queued task between CPUs through the fair class's hooks.
//!
//! # Domains
//! At most two levels: the LLC (`llc_size` CPUs, when more than one) and the whole machine
//! (when it holds more than one LLC). A domain of `span` CPUs balances every `span` ms
//! (`sd->balance_interval` starts at `sd_weight` ms), turned into ticks as
//! `msecs_to_jiffies()` does (rounded up, at least 1), at ticks whose number is a multiple of
//! it. There is no `busy_factor` and no interval doubling.
//!
//! # Load
//! A CPU's load is its number of runnable tasks of every class (`rq->nr_running`: the fair
//! tasks and the fifo/rr/deadline ones), not a weighted or PELT load.
//! A task may move if it is queued but not running, and allowed on the destination
//! (`can_migrate_task()` without cache hotness); the candidate is taken from the tail of the
//! source's `cfs_tasks`, the least recently run first, as `detach_tasks()` does.

use crate::engine::cfs_tasks::CfsTasks;
use super::placement::nr_idle_scan;
use super::{Domains, Topology};
use crate::engine::task::TState;
use crate::engine::Sim;
use crate::cfs::flags::*;
use crate::cfs::ReschedCause;
use crate::entity::NIL;

/// One level of scheduling domains: every `span` consecutive CPUs form one domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    pub span: u32,
    /// Balance interval in ticks.
    pub interval_ticks: u64,
}

/// The machine's topology and the balancer's state.
#[derive(Clone, Debug)]
pub struct Smp {
    /// The sched domains the kernel builds on the machine's shape (`domains.rs`), shared by
    /// the copies of a run (checkpoints, A/B sides): they never change in a run.
    pub doms: std::sync::Arc<Domains>,
    pub levels: Vec<Level>,
    pub llc_size: u32,
    /// Per LLC: `sd_llc_shared->nr_idle_scan`.
    pub nr_idle_scan: Vec<u32>,
    pub cfs_tasks: CfsTasks,
    /// Per CPU: forked tasks whose CPU (where they run or last ran) it is, asleep or not. Fork
    /// placement breaks ties with it, a stand-in for the blocked load PELT would show.
    pub homed: Vec<u32>,
    /// Bit per CPU: it held at least two runnable tasks when last enqueued on (the kernel's
    /// `rd->overload`, per CPU). Newly-idle balance looks only at these CPUs, re-checking
    /// each; a CPU found with fewer is cleared. Only an optimisation: a CPU with fewer than
    /// two runnable tasks is never a source.
    overloaded: Vec<u64>,
    /// Bit per CPU: idle (nothing running, nothing runnable), kept current at every
    /// `schedule()`, `activate_task()` and `deactivate_task()`; lets `select_idle_cpu()` find
    /// the next idle CPU with a few word operations instead of visiting every CPU.
    pub(crate) idle: Vec<u64>,
    /// Scratch orderings for the periodic balance (reused: no allocation per balance).
    by_load_desc: Vec<u32>,
    by_load_asc: Vec<u32>,
}

/// `msecs_to_jiffies()`: rounded up, at least one tick.
pub fn interval_ticks(span_ms: u64, hz: u32) -> u64 {
    (span_ms * u64::from(hz)).div_ceil(1000).max(1)
}

impl Smp {
    /// The balancer of a machine of shape `topo`: its LLC is `sd_llc_size`, as
    /// `update_top_cache_domain()` finds it.
    pub fn new(topo: &Topology, hz: u32, tasks: usize) -> Smp {
        let cpus = topo.cpus();
        let doms = Domains::build(topo);
        let llc_size = doms.sd_llc_size[0];
        let mut levels = Vec::new();
        if llc_size > 1 {
            levels.push(Level { span: llc_size, interval_ticks: interval_ticks(llc_size.into(), hz) });
        }
        if llc_size < cpus {
            levels.push(Level { span: cpus, interval_ticks: interval_ticks(cpus.into(), hz) });
        }
        Smp {
            doms: std::sync::Arc::new(doms),
            levels,
            llc_size,
            nr_idle_scan: vec![llc_size; (cpus / llc_size.max(1)) as usize],
            cfs_tasks: CfsTasks::new(cpus as usize, tasks),
            homed: vec![0; cpus as usize],
            overloaded: vec![0; (cpus as usize).div_ceil(64)],
            idle: (0..(cpus as usize).div_ceil(64))
                .map(|w| {
                    let n = (cpus as usize - w * 64).min(64);
                    if n == 64 {
                        u64::MAX
                    } else {
                        (1u64 << n) - 1
                    }
                })
                .collect(),
            by_load_desc: Vec::with_capacity(cpus as usize),
            by_load_asc: Vec::with_capacity(cpus as usize),
        }
    }

    /// A task's CPU changes from `from` to `to`.
    pub fn rehome(&mut self, from: u32, to: u32) {
        self.homed[from as usize] -= 1;
        self.homed[to as usize] += 1;
    }

    /// The longest balance interval, in ticks: no CPU stays idle longer than this while
    /// another holds a queued task it may take (pinned by `tests/smp.rs`).
    pub fn max_interval_ticks(&self) -> u64 {
        self.levels.iter().map(|l| l.interval_ticks).max().unwrap_or(1)
    }
}

impl Sim {
    /// `activate_task()`: enqueue in the fair class and on the CPU's `cfs_tasks`.
    pub(crate) fn activate_task(&mut self, ti: u32, cpu: u32, flags: u32) {
        self.fair.enqueue_task_fair(ti, flags);
        self.smp.cfs_tasks.add(cpu, ti);
        self.mark_overloaded(cpu);
        self.update_idle_bit(cpu);
    }

    /// `rq->nr_running >= 2`: a CPU the balancer may pull from (the bitmap is cleared lazily).
    pub(crate) fn mark_overloaded(&mut self, cpu: u32) {
        if self.rq_nr_running(cpu) >= 2 {
            self.smp.overloaded[cpu as usize / 64] |= 1 << (cpu % 64);
        }
    }

    /// `deactivate_task()`: dequeue from the fair class and from `cfs_tasks`.
    pub(crate) fn deactivate_task(&mut self, ti: u32, flags: u32) {
        let cpu = self.tasks[ti as usize].cpu;
        self.fair.dequeue_task_fair(ti, flags);
        self.smp.cfs_tasks.remove(ti);
        self.update_idle_bit(cpu);
    }

    /// Refresh `cpu`'s bit in the idle map, which `select_idle_cpu()` reads: idle, or
    /// running only SCHED_IDLE tasks.
    pub(crate) fn update_idle_bit(&mut self, cpu: u32) {
        if self.cpus[cpu as usize].llc_size <= 1 {
            // select_idle_cpu() reads the map only in an LLC of more than one CPU: this
            // bit is never read, and keeping it was a visible part of a one-CPU run.
            return;
        }
        let (w, b) = (cpu as usize / 64, 1u64 << (cpu % 64));
        if self.idle_for_wakeup(cpu) {
            self.smp.idle[w] |= b;
        } else {
            self.smp.idle[w] &= !b;
        }
    }

    /// The first idle CPU in `[from, end)` by the idle map.
    pub(crate) fn next_idle(&self, from: u32, end: u32) -> Option<u32> {
        next_bit(&self.smp.idle, from, end)
    }

    /// `can_migrate_task()` over `detach_tasks()`'s walk: the least recently run task of
    /// `src` that is queued (not running) and allowed on `dst`, or NIL.
    fn detachable(&self, src: u32, dst: u32) -> u32 {
        let mut t = self.smp.cfs_tasks.tail(src);
        while t != NIL {
            let task = &self.tasks[t as usize];
            if task.state == TState::Runnable && task.may_run_on(dst) {
                return t;
            }
            t = self.smp.cfs_tasks.prev(t);
        }
        NIL
    }

    /// `detach_task()` + `attach_task()`: move queued task `ti` to `dst`.
    /// `deactivate_task()` with DEQUEUE_MIGRATING (`TASK_ON_RQ_MIGRATING`: under v6.2 the
    /// vruntime becomes relative to the source's min_vruntime, and the load goes along);
    /// `set_task_cpu()` → `migrate_task_rq_fair()`, which for a migrating task leaves the
    /// vruntime alone and moves the entity to the destination's runqueue (of its group);
    /// `activate_task()` with ENQUEUE_MIGRATED (as v6.6's `activate_task()` sets it for a
    /// migrating task), which adds the destination's min_vruntime (v6.2) or places the task
    /// with its lag (EEVDF). The time a migration costs is not modelled; it is counted in
    /// `migrations`.
    fn move_queued_task(&mut self, ti: u32, dst: u32) {
        // A reschedule that update_curr() asks for on either runqueue is the move's doing.
        self.fair.ctx = ReschedCause::Migrate(ti);
        self.deactivate_task(ti, DEQUEUE_MIGRATING);
        self.fair.migrate_task_rq_fair(ti, dst);
        let t = &mut self.tasks[ti as usize];
        self.smp.rehome(t.cpu, dst);
        t.cpu = dst;
        t.stats.migrations += 1;
        t.migrated = true;
        self.activate_task(ti, dst, ENQUEUE_MIGRATED);
    }

    /// `newidle_balance()`, modelled: `cpu` found nothing to run. Walk its domains from the
    /// LLC up; in the first where some other CPU holds at least two runnable tasks with one
    /// it may take, pull one from the busiest such CPU (lowest id on ties) and return the
    /// task to run, or NIL to go idle. No `avg_idle` / migration-cost cut-off.
    pub(crate) fn newidle_balance(&mut self, cpu: u32) -> u32 {
        for l in 0..self.smp.levels.len() {
            let span = self.smp.levels[l].span;
            let first = cpu / span * span;
            let mut best = NIL;
            let mut best_task = NIL;
            let mut best_nr = 1;
            let mut from = first;
            while let Some(src) = self.next_overloaded(from, first + span) {
                from = src + 1;
                let nr = self.rq_nr_running(src);
                if nr < 2 {
                    self.smp.overloaded[src as usize / 64] &= !(1 << (src % 64));
                    continue;
                }
                if src == cpu || nr <= best_nr {
                    continue;
                }
                let t = self.detachable(src, cpu);
                if t != NIL {
                    best = src;
                    best_task = t;
                    best_nr = nr;
                }
            }
            if best != NIL {
                self.move_queued_task(best_task, cpu);
                return self.fair.pick_next_task_fair(cpu, NIL);
            }
        }
        NIL
    }

    /// The first CPU in `[from, end)` whose overloaded bit is set.
    fn next_overloaded(&self, from: u32, end: u32) -> Option<u32> {
        next_bit(&self.smp.overloaded, from, end)
    }

    /// `rebalance_domains()` at a tick, modelled: each level whose interval divides the tick
    /// number evens out every one of its domains (see `balance_span`). It runs at the end of
    /// the tick's instant, once the CPUs the tick preempted have rescheduled. The LLC level also
    /// refreshes `nr_idle_scan` (`update_idle_cpu_scan()` runs in the LLC domain's balance).
    /// Counts one event per level balanced.
    pub(crate) fn rebalance_domains(&mut self) {
        let tick = self.now / self.fair.cfg.tick_ns;
        for l in 0..self.smp.levels.len() {
            let Level { span, interval_ticks } = self.smp.levels[l];
            if !tick.is_multiple_of(interval_ticks) {
                continue;
            }
            self.events += 1;
            if span == self.smp.llc_size {
                self.update_idle_cpu_scan();
            }
            let mut first = 0;
            while first < self.cpus.len() as u32 {
                self.balance_span(first, span);
                first += span;
            }
        }
    }

    /// `update_idle_cpu_scan()` (SIS_UTIL) at the LLC level's periodic balance: every LLC's
    /// `nr_idle_scan` from the sum of its CPUs' `cpu_util_cfs()`, as `update_sd_lb_stats()`
    /// sums them over the LLC domain's groups.
    fn update_idle_cpu_scan(&mut self) {
        let llc = self.smp.llc_size;
        let mut sum = 0u64;
        for cpu in 0..self.cpus.len() as u32 {
            sum += self.fair.cpu_util_cfs(cpu);
            if (cpu + 1).is_multiple_of(llc) {
                self.smp.nr_idle_scan[(cpu / llc) as usize] = nr_idle_scan(sum, llc.into());
                sum = 0;
            }
        }
    }

    /// Even out the domain `[first, first + span)`: while some CPU holds at least two more
    /// runnable tasks than another and has a queued task the other may take, move the least
    /// recently run such task from the busiest (lowest id on ties) to the least loaded it can
    /// go to (lowest id on ties). Each move lowers the sum of squared loads, so this ends.
    /// The destination gets `check_preempt_curr()`, as after `attach_task()`.
    fn balance_span(&mut self, first: u32, span: u32) {
        let mut desc = std::mem::take(&mut self.smp.by_load_desc);
        let mut asc = std::mem::take(&mut self.smp.by_load_asc);
        'moves: loop {
            desc.clear();
            desc.extend(first..first + span);
            desc.sort_by_key(|&c| (std::cmp::Reverse(self.rq_nr_running(c)), c));
            asc.clear();
            asc.extend(first..first + span);
            asc.sort_by_key(|&c| (self.rq_nr_running(c), c));
            for &src in &desc {
                let ns = self.rq_nr_running(src);
                if ns < 2 {
                    break;
                }
                for &dst in &asc {
                    if ns < self.rq_nr_running(dst) + 2 {
                        break;
                    }
                    let t = self.detachable(src, dst);
                    if t != NIL {
                        self.move_queued_task(t, dst);
                        self.check_preempt_curr(dst, t, ReschedCause::Migrate(t));
                        continue 'moves;
                    }
                }
            }
            break;
        }
        self.smp.by_load_desc = desc;
        self.smp.by_load_asc = asc;
    }
}

/// The first set bit in `[from, end)` of a bit map over CPUs.
fn next_bit(map: &[u64], from: u32, end: u32) -> Option<u32> {
    let mut c = from;
    while c < end {
        let word = map[c as usize / 64] >> (c % 64);
        if word == 0 {
            c = (c / 64 + 1) * 64;
            continue;
        }
        let found = c + word.trailing_zeros();
        return (found < end).then_some(found);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levels(cpus: u32, llc: u32, hz: u32) -> Vec<(u32, u64)> {
        Smp::new(&Topology::flat(cpus, llc), hz, 0).levels.iter().map(|l| (l.span, l.interval_ticks)).collect()
    }

    /// A domain of `span` CPUs balances every `span` ms, rounded up to whole ticks (at least
    /// one): 8 ms at 250 Hz is 2 ticks, 64 ms is 16; 1 024 ms at 1000 Hz is 1 024 ticks;
    /// 4 ms at 100 Hz rounds up to 1 tick, 2 ms at 300 Hz to 1 (0.6), 8 ms at 300 Hz to 3 (2.4).
    #[test]
    fn next_bit_finds_the_first_set_bit_in_range() {
        let map = [1u64 << 63, 0b101];
        assert_eq!(next_bit(&map, 0, 128), Some(63));
        assert_eq!(next_bit(&map, 0, 63), None);
        assert_eq!(next_bit(&map, 64, 128), Some(64));
        assert_eq!(next_bit(&map, 65, 128), Some(66));
        assert_eq!(next_bit(&map, 65, 66), None);
        assert_eq!(next_bit(&map, 67, 128), None);
    }

    #[test]
    fn domain_levels_and_intervals() {
        assert_eq!(levels(64, 8, 250), vec![(8, 2), (64, 16)]);
        assert_eq!(levels(1024, 1024, 1000), vec![(1024, 1024)]);
        assert_eq!(levels(4, 1, 100), vec![(4, 1)], "LLCs of one CPU: only the machine level");
        assert_eq!(levels(2, 2, 300), vec![(2, 1)]);
        assert_eq!(levels(16, 8, 300), vec![(8, 3), (16, 5)]);
        assert_eq!(levels(1, 1, 250), vec![], "one CPU: nothing to balance");
        assert_eq!(Smp::new(&Topology::flat(64, 8), 250, 0).max_interval_ticks(), 16);
    }
}
