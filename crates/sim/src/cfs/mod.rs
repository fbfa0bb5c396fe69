//! The CFS policies: `cfs-v6.2` and `latency-nice-v12` (v6.2 + the v12 series).
//!
//! One implementation serves both, because v12 is a patch series on the v6.2 code: where the
//! series changed a function, the v12 behaviour is taken when `Fair::v12` is set, and each such
//! place says so. With latency nice 0 everywhere and the three `get_latency_max()` clamps off,
//! the v12 paths reduce to v6.2 decision for decision (tested in `tests/cfs_v12_noop.rs`).
//!
//! Files follow fair.c's sections: `timeline.rs` (the rb-tree and min_vruntime), `slice.rs`
//! (period and slice arithmetic), `entity_ops.rs` (enqueue/dequeue/pick/put/tick at entity
//! level), `wakeup.rs` (wakeup preemption and buddies), `latency.rs` (the v12 additions).

pub mod entity_ops;
pub mod latency;
pub mod task_ops;
pub mod slice;
pub mod timeline;
pub mod wakeup;

use crate::entity::{Entity, NIL};
use crate::rbtree::RbRootCached;
use crate::tunables::Config;
use crate::weights::LoadWeight;

/// `DEQUEUE_SLEEP`, `ENQUEUE_WAKEUP` and friends (kernel/sched/sched.h).
pub mod flags {
    pub const DEQUEUE_SLEEP: u32 = 0x01;
    pub const DEQUEUE_SAVE: u32 = 0x02;
    pub const DEQUEUE_MOVE: u32 = 0x04;
    /// The task is being moved to another CPU by the load balancer (`TASK_ON_RQ_MIGRATING`;
    /// v6.12 spells it DEQUEUE_MIGRATING).
    pub const DEQUEUE_MIGRATING: u32 = 0x100;
    pub const ENQUEUE_WAKEUP: u32 = 0x01;
    pub const ENQUEUE_RESTORE: u32 = 0x02;
    pub const ENQUEUE_MOVE: u32 = 0x04;
    pub const ENQUEUE_MIGRATED: u32 = 0x40;
    /// EEVDF: the first placement of a new task (v6.6 task_fork_fair, v6.12 wake_up_new_task).
    pub const ENQUEUE_INITIAL: u32 = 0x80;
    /// v6.12: `ttwu_runnable()` of a delayed task.
    pub const ENQUEUE_DELAYED: u32 = 0x200;
    /// v6.12: the pick of a delayed entity completes its dequeue.
    pub const DEQUEUE_DELAYED: u32 = 0x200;
    pub const WF_FORK: u32 = 0x08;
}

/// `struct cfs_rq` (the fields this model uses).
#[derive(Clone, Debug)]
pub struct CfsRq {
    pub load: LoadWeight,
    pub nr_running: u32,
    pub h_nr_running: u32,
    /// Tasks queued at or below this runqueue and not delayed (`h_nr_runnable`, 6.14+): under
    /// the policies without delayed dequeue, and under v6.12, it is kept but only 6.18's PELT
    /// reads it.
    pub h_nr_runnable: u32,
    /// Queued SCHED_IDLE entities (`account_entity_enqueue()`, v6.2): CFS's `sched_slice()`
    /// reads it through `sched_idle_cfs_rq()`.
    pub idle_nr_running: u32,
    /// SCHED_IDLE tasks queued at or below this runqueue (`idle_h_nr_running`, v6.2–v6.12;
    /// delayed ones included, as in h_nr_running): `sched_idle_cpu()` compares it at the root.
    pub idle_h_nr_running: u32,
    pub min_vruntime: u64,
    pub tasks_timeline: RbRootCached,
    /// v12 8/8: entities with a negative latency offset, keyed by vruntime + latency_offset.
    pub latency_timeline: RbRootCached,
    pub curr: u32,
    pub next: u32,
    pub last: u32,
    pub skip: u32,
    /// The CPU whose runqueue this is.
    pub cpu: u32,
    /// The group entity that owns this cfs_rq (NIL for a CPU's root cfs_rq).
    pub owner: u32,
    /// EEVDF: Σ (v_i - min_vruntime) · w_i over the queued entities except curr.
    pub avg_vruntime: i64,
    /// EEVDF: Σ w_i (scale_load_down'ed) over the same entities.
    pub avg_load: i64,
    /// Task groups: the group this runqueue belongs to (NIL for a CPU's root runqueue),
    /// its load average, and the part of it last folded into the group's sum.
    pub tg: u32,
    pub avg: crate::pelt::SchedAvg,
    pub tg_load_avg_contrib: i64,
    /// v6.12's ratelimit of `update_tg_load_avg()`.
    pub last_update_tg_load_avg: u64,
    /// What tasks that left by a wakeup migration leave to be removed at the next update
    /// (`cfs_rq->removed`).
    pub removed_nr: u32,
    pub removed_load_avg: u64,
    pub removed_util_avg: u64,
    pub removed_runnable_avg: u64,
}

impl CfsRq {
    /// `init_cfs_rq()`: min_vruntime starts at -(1 << 20) so that wrap-around is exercised
    /// within the first millisecond of virtual time, as in the kernel.
    pub fn new(cpu: u32, owner: u32) -> CfsRq {
        CfsRq {
            load: LoadWeight::default(),
            nr_running: 0,
            h_nr_running: 0,
            h_nr_runnable: 0,
            idle_nr_running: 0,
            idle_h_nr_running: 0,
            min_vruntime: (-(1i64 << 20)) as u64,
            tasks_timeline: RbRootCached::new(),
            latency_timeline: RbRootCached::new(),
            curr: NIL,
            next: NIL,
            last: NIL,
            skip: NIL,
            cpu,
            owner,
            avg_vruntime: 0,
            avg_load: 0,
            tg: NIL,
            avg: crate::pelt::SchedAvg::default(),
            tg_load_avg_contrib: 0,
            last_update_tg_load_avg: 0,
            removed_nr: 0,
            removed_load_avg: 0,
            removed_util_avg: 0,
            removed_runnable_avg: 0,
        }
    }
}

/// Why `resched_curr()` was called: kept so the engine can attribute the switch that follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReschedCause {
    Tick,
    /// The wakeup of this task.
    Wakeup(u32),
    /// The fork of this task (`wake_up_new_task`): not a wakeup in the report's sense.
    Fork(u32),
    /// A `sched_setattr`-like change.
    Attr,
    /// The load balancer moved this task: `attach_task()`'s check_preempt_curr on the
    /// destination, or an update_curr() on either runqueue during the move.
    Migrate(u32),
}

/// The fair class: entities, runqueues and the effective configuration.
#[derive(Clone, Debug)]
pub struct Fair {
    pub cfg: Config,
    /// The v12 code paths (policy `latency-nice-v12`).
    pub v12: bool,
    /// The EEVDF code paths (`crate::eevdf`), and which version.
    pub eevdf: Option<crate::eevdf::Version>,
    /// The task groups (`crate::group`), parents before children.
    pub tgs: Vec<crate::group::TaskGroup>,
    /// The decision log, when recording (`crate::explain`).
    pub log: Option<Vec<crate::explain::Decision>>,
    /// What the last pick chose between, while the log records.
    pub pick_note: crate::explain::PickNote,
    /// What an EEVDF `update_curr()` that reschedules is attributed to: set by the entry
    /// point that called it (tick, wakeup, fork, setattr).
    pub ctx: ReschedCause,
    pub ents: Vec<Entity>,
    pub cfs_rqs: Vec<CfsRq>,
    /// Per CPU: resched requested since the last schedule(), and why (first cause wins, as a
    /// second wakeup sees TIF_NEED_RESCHED already set and returns early).
    pub resched: Vec<Option<ReschedCause>>,
    /// CPUs whose `resched` went from none to some since the engine last looked: every
    /// request is honoured by the end of its instant (the return to user mode, or the
    /// reschedule IPI), wherever it was raised.
    pub resched_pending: Vec<u32>,
    /// Per CPU: TIF_NEED_RESCHED_LAZY (`machine.preemption: lazy`, v6.18), set by a remote
    /// `resched_curr_lazy()` and acted on only at that CPU's next tick or return to user
    /// mode (`Fair::return_to_user`); a local one is acted on at the end of its instant.
    pub lazy: Vec<Option<ReschedCause>>,
    /// `smp_processor_id()` of the code running now, when it is not the CPU being
    /// rescheduled's own (a remote wakeup); NIL when the request is local.
    pub this_cpu: u32,
    /// A state the kernel would WARN on or never reach (a pick loop that cannot end, a
    /// requeue of an entity not in its tree), found by a guard instead of corrupting the run.
    /// The engine stops the run and reports it.
    pub fault: Option<String>,
    /// `rq_clock_task()`: the engine sets it before every call (one clock for all CPUs).
    pub now: u64,
}

impl Fair {
    pub fn new(cfg: Config, nr_entities: usize) -> Fair {
        let cpus = cfg.cpus as usize;
        let v12 = cfg.policy == crate::scenario::Policy::LatencyNiceV12;
        let eevdf = crate::eevdf::Version::of(cfg.policy);
        Fair {
            cfg,
            v12,
            eevdf,
            ctx: ReschedCause::Tick,
            tgs: Vec::new(),
            log: None,
            pick_note: crate::explain::PickNote::default(),
            ents: Vec::with_capacity(nr_entities),
            cfs_rqs: (0..cpus as u32).map(|c| CfsRq::new(c, NIL)).collect(),
            resched: vec![None; cpus],
            resched_pending: Vec::with_capacity(cpus),
            lazy: vec![None; cpus],
            this_cpu: NIL,
            fault: None,
            now: 0,
        }
    }

    /// The root cfs_rq of a CPU (`&rq->cfs`).
    #[inline]
    pub fn root_rq(&self, cpu: u32) -> u32 {
        cpu
    }

    /// `resched_curr()`.
    #[inline]
    pub fn resched_curr(&mut self, cpu: u32, cause: ReschedCause) {
        let r = &mut self.resched[cpu as usize];
        if r.is_none() {
            *r = Some(cause);
            self.resched_pending.push(cpu);
        }
    }

    /// `resched_curr_lazy()` (core.c v6.18): under PREEMPT_LAZY the fair class asks with
    /// TIF_NEED_RESCHED_LAZY, which sends no IPI. Asked on the CPU itself (a tick, a wakeup from
    /// an interrupt or a syscall there), the return to user mode at the end of the instant acts
    /// on it, as on TIF_NEED_RESCHED; asked from another CPU of the same LLC (a remote wakeup
    /// done under the target's rq lock), it waits for the target's next tick or interrupt.
    /// Otherwise (full, voluntary, none) it is `resched_curr()`.
    pub fn resched_curr_lazy(&mut self, cpu: u32, cause: ReschedCause) {
        let lazy = self.cfg.preemption == crate::scenario::Preemption::Lazy;
        if !lazy || self.this_cpu == NIL || self.this_cpu == cpu {
            return self.resched_curr(cpu, cause);
        }
        // __resched_curr(): nothing to do when either flag is already set.
        if self.resched[cpu as usize].is_none() && self.lazy[cpu as usize].is_none() {
            self.lazy[cpu as usize] = Some(cause);
        }
    }

    /// The CPU returns to user mode from an interrupt (or `sched_tick()` promotes the flag):
    /// a pending TIF_NEED_RESCHED_LAZY becomes a reschedule at the end of the instant.
    pub fn return_to_user(&mut self, cpu: u32) {
        if let Some(cause) = self.lazy[cpu as usize].take() {
            self.resched_curr(cpu, cause);
        }
    }

    #[inline]
    pub fn need_resched(&self, cpu: u32) -> bool {
        self.resched[cpu as usize].is_some()
    }

    /// Record the first fault of the run (see `fault`).
    #[cold]
    pub fn set_fault(&mut self, what: String) {
        if self.fault.is_none() {
            self.fault = Some(what);
        }
    }
}
