//! Task groups (the cpu controller's cgroup tree; kernel/sched/fair.c v6.2 with
//! CONFIG_FAIR_GROUP_SCHED): on every CPU each group has a group entity, queued on its
//! parent's runqueue there, and a runqueue of its own for its tasks and child groups. The
//! hierarchy walks (`for_each_sched_entity`, `find_matching_se`) are in the policy code;
//! this module builds the tree, places tasks in it, and changes a group's shares and latency
//! nice at run time. `shares.rs` holds the weights themselves, from the load tracking of
//! `crate::pelt`.

pub mod shares;

use crate::cfs::{CfsRq, Fair};
use crate::entity::{Entity, NIL};
use crate::scenario::Cgroup;
use crate::weights::{scale_load, LoadWeight, NICE_0_LOAD};
use crate::pelt::UPDATE_TG;

/// `MAX_SHARES` (1 << 18), unscaled.
pub const MAX_SHARES: u64 = 1 << 18;

/// `struct task_group` (the parts this model uses).
#[derive(Clone, Debug)]
pub struct TaskGroup {
    pub name: String,
    /// Parent group index, NIL for a child of the root group.
    pub parent: u32,
    /// `tg->shares`, scaled (<< 10).
    pub shares: u64,
    /// `tg->load_avg`: the sum of the per-CPU contributions folded in by `update_tg_load_avg`.
    pub load_avg: i64,
    /// v12: `tg->latency_prio` as a latency nice value.
    pub latency_nice: i32,
    /// Per CPU: the group entity and the group's runqueue.
    pub se: Vec<u32>,
    pub cfs_rq: Vec<u32>,
}

impl Fair {
    /// `sched_create_group()` + `online_fair_sched_group()` for every cgroup of the scenario,
    /// parents first, after the task entities (task `i` stays entity `i`).
    pub fn build_task_groups(&mut self, cgroups: &[Cgroup]) {
        if cgroups.is_empty() {
            return;
        }
        let cpus = self.cfg.cpus;
        for (g, c) in cgroups.iter().enumerate() {
            let parent = c.parent.as_ref().and_then(|p| cgroups.iter().position(|x| &x.name == p)).map_or(NIL, |p| p as u32);
            let mut tg = TaskGroup {
                name: c.name.clone(),
                parent,
                shares: scale_load(u64::from(c.shares).clamp(2, MAX_SHARES)),
                load_avg: 0,
                latency_nice: c.latency_nice,
                se: Vec::with_capacity(cpus as usize),
                cfs_rq: Vec::with_capacity(cpus as usize),
            };
            for cpu in 0..cpus {
                let rq = self.cfs_rqs.len() as u32;
                let se = self.ents.len() as u32;
                let mut q = CfsRq::new(cpu, se);
                q.tg = g as u32;
                self.cfs_rqs.push(q);
                // init_tg_cfs_entry(): group entities always have weight.
                let (parent_rq, parent_se, depth) = self.place_in(parent, cpu);
                let mut e = Entity::new(LoadWeight { weight: NICE_0_LOAD, inv_weight: 0 }, parent_rq);
                e.parent = parent_se;
                e.my_q = rq;
                e.depth = depth;
                e.slice = self.cfg.base_slice_ns;
                if self.v12 {
                    e.latency_offset = self.calc_latency_offset(c.latency_nice);
                }
                self.ents.push(e);
                tg.se.push(se);
                tg.cfs_rq.push(rq);
            }
            self.tgs.push(tg);
        }
    }

    /// The runqueue a task of group `tg` (NIL = root) uses on `cpu`.
    #[inline]
    pub fn tg_cfs_rq(&self, tg: u32, cpu: u32) -> u32 {
        self.place_in(tg, cpu).0
    }

    /// Where an entity of group `tg` (NIL = root) sits on `cpu`: the runqueue, the parent
    /// entity (NIL at the root) and the depth.
    fn place_in(&self, tg: u32, cpu: u32) -> (u32, u32, u32) {
        if tg == NIL {
            (self.root_rq(cpu), NIL, 0)
        } else {
            let g = &self.tgs[tg as usize];
            let pse = g.se[cpu as usize];
            (g.cfs_rq[cpu as usize], pse, self.ents[pse as usize].depth + 1)
        }
    }

    /// `set_task_rq()`: a task of group `tg` is now on `cpu`: its runqueue, parent entity
    /// and depth there.
    pub fn set_task_rq(&mut self, se: u32, tg: u32, cpu: u32) {
        let (rq, parent, depth) = self.place_in(tg, cpu);
        let e = &mut self.ents[se as usize];
        e.cfs_rq = rq;
        e.parent = parent;
        e.depth = depth;
    }

    /// `sched_group_set_shares()` (v6.2): set `cpu.shares` and recompute the group entities'
    /// weights up the hierarchy on every CPU.
    pub fn sched_group_set_shares(&mut self, tg: u32, shares: u32) {
        let shares = scale_load(u64::from(shares).clamp(2, MAX_SHARES));
        if self.tgs[tg as usize].shares == shares {
            return;
        }
        self.tgs[tg as usize].shares = shares;
        for cpu in 0..self.cfg.cpus as usize {
            let mut se = self.tgs[tg as usize].se[cpu];
            while se != NIL {
                let rq = self.ents[se as usize].cfs_rq;
                self.update_load_avg(rq, se, UPDATE_TG);
                self.update_cfs_group(se);
                se = self.ents[se as usize].parent;
            }
        }
    }

    /// `sched_group_set_latency()` (v12 6/8, 8/8): a new latency offset for the group's
    /// entities, re-keying those queued in the latency tree. A no-op for the other policies
    /// (the parser warns that the knob is ignored there).
    pub fn sched_group_set_latency(&mut self, tg: u32, latency_nice: i32) {
        if self.tgs[tg as usize].latency_nice == latency_nice {
            return;
        }
        self.tgs[tg as usize].latency_nice = latency_nice;
        if !self.v12 {
            return;
        }
        let offset = self.calc_latency_offset(latency_nice);
        for cpu in 0..self.cfg.cpus as usize {
            let se = self.tgs[tg as usize].se[cpu];
            let rq = self.ents[se as usize].cfs_rq;
            let queued = self.dequeue_latency(rq, se);
            self.ents[se as usize].latency_offset = offset;
            if queued {
                self.enqueue_latency(rq, se, crate::cfs::flags::ENQUEUE_WAKEUP);
            }
        }
    }
}

/// A group's entity on one CPU, for the app's views: its weight (unscaled, as
/// `/proc/sched_debug` prints `se->load.weight`), its load average, and its runqueue's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupCpuState {
    pub weight: u64,
    pub on_rq: bool,
    pub se_load_avg: u64,
    pub rq_load_avg: u64,
    pub h_nr_running: u32,
}

impl Fair {
    /// The state of group `tg` on every CPU.
    pub fn group_state(&self, tg: u32) -> Vec<GroupCpuState> {
        let g = &self.tgs[tg as usize];
        g.se.iter()
            .zip(&g.cfs_rq)
            .map(|(&se, &rq)| {
                let e = &self.ents[se as usize];
                let q = &self.cfs_rqs[rq as usize];
                GroupCpuState {
                    weight: crate::weights::scale_load_down(e.load.weight),
                    on_rq: e.on_rq,
                    se_load_avg: e.avg.load_avg,
                    rq_load_avg: q.avg.load_avg,
                    h_nr_running: q.h_nr_running,
                }
            })
            .collect()
    }
}
