//! What must hold between any two instants of any run, whatever the policy: the checks the
//! invariant fuzzer makes after every instant. Not a kernel function: it plays the part of
//! the kernel's SCHED_WARN_ONs and of lib/rbtree_test.c's `check()`, all at once.

use crate::cfs::timeline::entity_before as cfs_before;
use crate::cfs::latency::latency_before;
use crate::cfs::Fair;
use crate::eevdf::{avg, tree, Version};
use crate::engine::task::TState;
use crate::engine::Sim;
use crate::entity::{Entity, NIL};
use crate::rbtree::{self, RbAccess, RbNode};
use crate::weights::scale_load_down;

/// The arena through one of its two tree nodes, read only.
struct View<'a> {
    ents: &'a [Entity],
    latency: bool,
}

impl RbAccess for View<'_> {
    fn node(&self, id: u32) -> &RbNode {
        let e = &self.ents[id as usize];
        if self.latency {
            &e.latency_node
        } else {
            &e.run_node
        }
    }
    fn node_mut(&mut self, _: u32) -> &mut RbNode {
        unreachable!("the invariant checks only read the trees")
    }
}

fn in_order(ents: &[Entity], root: &rbtree::RbRootCached, latency: bool) -> Vec<u32> {
    let acc = View { ents, latency };
    let mut out = Vec::new();
    let mut n = rbtree::rb_first(&acc, root);
    while n != NIL && out.len() <= ents.len() {
        out.push(n);
        n = rbtree::rb_next(&acc, n);
    }
    out
}

/// Every invariant of a settled instant; the first broken one, described.
pub fn check(s: &Sim) -> Result<(), String> {
    let f = &s.fair;
    let n_ents = f.ents.len();
    // Which runqueue's tree holds each entity.
    let mut tree_of = vec![NIL; n_ents];
    for rq in 0..f.cfs_rqs.len() as u32 {
        let q = &f.cfs_rqs[rq as usize];
        let acc = View { ents: &f.ents, latency: false };
        match f.eevdf {
            Some(ver) => rbtree::check_invariants(&q.tasks_timeline, &acc, |a: &View, x, y| {
                tree::entity_before(ver, &a.ents[x as usize], &a.ents[y as usize])
            }),
            None => rbtree::check_invariants(&q.tasks_timeline, &acc, |a: &View, x, y| {
                cfs_before(&a.ents[x as usize], &a.ents[y as usize])
            }),
        }
        .map_err(|e| format!("cfs_rq {rq}: tasks_timeline: {e}"))?;
        let nodes = in_order(&f.ents, &q.tasks_timeline, false);
        for &se in &nodes {
            if tree_of[se as usize] != NIL {
                return Err(format!("entity {se} is in the trees of cfs_rq {} and {rq}", tree_of[se as usize]));
            }
            tree_of[se as usize] = rq;
            if f.ents[se as usize].cfs_rq != rq {
                return Err(format!("entity {se} of cfs_rq {} is in the tree of cfs_rq {rq}", f.ents[se as usize].cfs_rq));
            }
            if se == q.curr {
                return Err(format!("cfs_rq {rq}: curr {se} is also in the tree"));
            }
        }
        let curr_queued = q.curr != NIL && f.ents[q.curr as usize].on_rq;
        if q.curr != NIL && !curr_queued {
            return Err(format!("cfs_rq {rq}: curr {} is not queued between instants", q.curr));
        }
        let queued = nodes.len() as u32 + u32::from(curr_queued);
        if queued != q.nr_running {
            return Err(format!("cfs_rq {rq}: nr_running {} but {queued} queued", q.nr_running));
        }
        if f.v12 {
            let lacc = View { ents: &f.ents, latency: true };
            rbtree::check_invariants(&q.latency_timeline, &lacc, |a: &View, x, y| {
                latency_before(&a.ents[x as usize], &a.ents[y as usize])
            })
            .map_err(|e| format!("cfs_rq {rq}: latency_timeline: {e}"))?;
            for se in in_order(&f.ents, &q.latency_timeline, true) {
                let e = &f.ents[se as usize];
                if tree_of[se as usize] != rq || e.latency_offset >= 0 {
                    return Err(format!("cfs_rq {rq}: entity {se} in latency_timeline but not waiting in tasks_timeline with a negative offset"));
                }
            }
        }
        if let Some(ver) = f.eevdf {
            check_eevdf(f, ver, rq, &nodes)?;
        }
    }
    for (se, e) in f.ents.iter().enumerate() {
        let q = e.cfs_rq as usize;
        let placed = tree_of[se] != NIL || f.cfs_rqs[q].curr == se as u32;
        if e.on_rq != placed {
            return Err(format!("entity {se}: on_rq {} but {} the tree or curr", e.on_rq, if placed { "in" } else { "not in" }));
        }
        if e.sched_delayed && !e.on_rq {
            return Err(format!("entity {se}: delayed but not queued"));
        }
    }
    check_tasks(s)?;
    check_pelt(s)?;
    check_cpus(s)
}

/// Brute-force (min deadline, min vruntime) of a subtree, checking the stored augments.
fn check_subtree(f: &Fair, ver: Version, n: u32, depth: usize) -> Result<Option<(u64, u64)>, String> {
    if n == NIL || depth > 80 {
        return Ok(None);
    }
    let e = &f.ents[n as usize];
    let (mut d, mut v) = (e.deadline, e.vruntime);
    let gt = |a: u64, b: u64| (a.wrapping_sub(b) as i64) > 0;
    for c in [e.run_node.left, e.run_node.right] {
        if let Some((cd, cv)) = check_subtree(f, ver, c, depth + 1)? {
            if gt(d, cd) {
                d = cd;
            }
            if gt(v, cv) {
                v = cv;
            }
        }
    }
    match ver {
        Version::V66 if e.min_deadline != d => Err(format!("node {n}: min_deadline {} but {d} below", e.min_deadline)),
        Version::V612 | Version::V618 if e.min_vruntime != v => Err(format!("node {n}: min_vruntime {} but {v} below", e.min_vruntime)),
        _ => Ok(Some((d, v))),
    }
}

/// EEVDF: the running sums equal Σ key·w and Σ w over the tree; Σ w·lag lies in (−W, 0]
/// (V is the weighted mean rounded down); some queued entity is eligible and so is the pick;
/// the augments are exact.
fn check_eevdf(f: &Fair, ver: Version, rq: u32, nodes: &[u32]) -> Result<(), String> {
    let q = &f.cfs_rqs[rq as usize];
    let w = |se: u32| scale_load_down(f.ents[se as usize].load.weight) as i64;
    let (mut sum, mut load) = (0i64, 0i64);
    for &se in nodes {
        sum = sum.wrapping_add(avg::entity_key(f, rq, se).wrapping_mul(w(se)));
        load += w(se);
    }
    if (sum, load) != (q.avg_vruntime, q.avg_load) {
        return Err(format!("cfs_rq {rq}: avg sums ({}, {}) but brute force ({sum}, {load})", q.avg_vruntime, q.avg_load));
    }
    let mut queued = nodes.to_vec();
    if q.curr != NIL && f.ents[q.curr as usize].on_rq {
        queued.push(q.curr);
    }
    if queued.is_empty() {
        return Ok(());
    }
    let v = avg::avg_vruntime(f, rq);
    let w_total: i64 = queued.iter().map(|&se| w(se)).sum();
    let lag_sum: i128 = queued.iter().map(|&se| i128::from(w(se)) * i128::from(v.wrapping_sub(f.ents[se as usize].vruntime) as i64)).sum();
    if !(lag_sum > -i128::from(w_total) && lag_sum <= 0) {
        return Err(format!("cfs_rq {rq}: Σ w·lag = {lag_sum} outside (−{w_total}, 0]"));
    }
    if !queued.iter().any(|&se| avg::entity_eligible(f, rq, se)) {
        return Err(format!("cfs_rq {rq}: no eligible entity among {queued:?}"));
    }
    let pick = tree::pick_eevdf(f, rq, NIL);
    // RESPECT_SLICE keeps curr through its first slice, eligible or not.
    let kept = f.cfg.feat.respect_slice && pick == q.curr;
    if pick == NIL || (!kept && !avg::entity_eligible(f, rq, pick)) {
        return Err(format!("cfs_rq {rq}: the pick {pick} is not eligible"));
    }
    check_subtree(f, ver, q.tasks_timeline.root, 0).map(|_| ()).map_err(|e| format!("cfs_rq {rq}: {e}"))
}

fn check_tasks(s: &Sim) -> Result<(), String> {
    let f = &s.fair;
    for (i, t) in s.tasks.iter().enumerate() {
        let e = &f.ents[i];
        let name = &t.name;
        let running_here = (t.cpu as usize) < s.cpus.len() && s.cpus[t.cpu as usize].curr == i as u32;
        if (t.state == TState::Running) != running_here {
            return Err(format!("task {name}: state {:?} but CPU {} runs {}", t.state, t.cpu, s.cpus.get(t.cpu as usize).map_or(NIL, |c| c.curr)));
        }
        let ok = match t.state {
            TState::Unborn | TState::Waking => !e.on_rq,
            TState::Running | TState::Runnable => e.on_rq && !e.sched_delayed,
            TState::Sleeping => !e.on_rq || e.sched_delayed,
        };
        if !ok {
            return Err(format!("task {name}: state {:?} with on_rq {} and delayed {}", t.state, e.on_rq, e.sched_delayed));
        }
        if e.sched_delayed && !crate::eevdf::since_v612(f) {
            return Err(format!("task {name}: delayed under a policy without delayed dequeue"));
        }
        if t.state == TState::Running {
            // The hierarchy above a running task is current at every level.
            let mut se = i as u32;
            while se != NIL {
                let q = f.ents[se as usize].cfs_rq;
                if f.cfs_rqs[q as usize].curr != se {
                    return Err(format!("task {name} runs but entity {se} is not curr of cfs_rq {q}"));
                }
                se = f.ents[se as usize].parent;
            }
        }
        let st = &t.stats;
        if st.wakeup_preemptions > st.wakeups {
            return Err(format!("task {name}: {} wakeup preemptions for {} wakeups", st.wakeup_preemptions, st.wakeups));
        }
        if st.involuntary > st.switches {
            return Err(format!("task {name}: {} involuntary switches out of {} switches", st.involuntary, st.switches));
        }
        if st.involuntary_tick + st.involuntary_wakeup > st.involuntary {
            return Err(format!("task {name}: tick + wakeup preemptions exceed its involuntary switches"));
        }
    }
    Ok(())
}

/// Load tracking: every runqueue's `h_nr_running` and `h_nr_runnable` count the queued tasks
/// below it, the latter without the delayed ones; a task's util_avg and the CPUs'
/// `cpu_util_cfs()` are within 0..=1024; without task groups, a runqueue's runnable_avg is at
/// most 1024 per task it carries, running, queued or blocked, or left to be removed, within
/// PELT's rounding.
fn check_pelt(s: &Sim) -> Result<(), String> {
    let f = &s.fair;
    let n = f.cfs_rqs.len();
    let (mut queued, mut runnable, mut carried) = (vec![0u32; n], vec![0u32; n], vec![0u64; n]);
    for i in 0..s.tasks.len() {
        let e = &f.ents[i];
        if s.tasks[i].rt {
            continue;
        }
        if e.avg.util_avg > 1024 {
            return Err(format!("task {}: util_avg {}", s.tasks[i].name, e.avg.util_avg));
        }
        let mut se = i as u32;
        while se != NIL {
            let q = f.ents[se as usize].cfs_rq as usize;
            carried[q] += 1;
            if e.on_rq {
                queued[q] += 1;
                runnable[q] += u32::from(!e.sched_delayed);
            }
            se = f.ents[se as usize].parent;
        }
    }
    for (q, rq) in f.cfs_rqs.iter().enumerate() {
        if (rq.h_nr_running, rq.h_nr_runnable) != (queued[q], runnable[q]) {
            let (hq, hr) = (rq.h_nr_running, rq.h_nr_runnable);
            return Err(format!("cfs_rq {q}: h_nr_running {hq}, h_nr_runnable {hr}; queued tasks below it {}, not delayed {}", queued[q], runnable[q]));
        }
        // Detaching and removing subtract averages that were rounded apart from the
        // runqueue's, which can leave a few units behind until they decay: 8 of slack. With
        // task groups the bound does not hold: a group entity's runnable sum follows its
        // queue's count as last refreshed, and an attach or detach below it is not propagated
        // up (`propagate_entity_load_avg()` is left out, docs/model.md).
        let bound = 1024 * (carried[q] + u64::from(rq.removed_nr)) + 8;
        if f.tgs.is_empty() && rq.avg.runnable_avg > bound {
            return Err(format!("cfs_rq {q}: runnable_avg {} above {bound}", rq.avg.runnable_avg));
        }
    }
    // util_est: a CPU's sum is its queued tasks' estimates (a delayed task's left it at its
    // sleep and comes back with its wakeup).
    let mut est = vec![0u32; s.cpus.len()];
    for i in 0..s.tasks.len() {
        let e = &f.ents[i];
        if !s.tasks[i].rt && e.on_rq && !e.sched_delayed {
            let cpu = f.cfs_rqs[e.cfs_rq as usize].cpu as usize;
            est[cpu] = est[cpu].wrapping_add(f.task_util_est_raw(i as u32));
        }
    }
    for (cpu, &want) in est.iter().enumerate() {
        let got = f.cfs_rqs[f.root_rq(cpu as u32) as usize].avg.util_est.enqueued;
        if got != want {
            return Err(format!("cpu {cpu}: util_est sum {got}, its queued tasks' estimates {want}"));
        }
    }
    for cpu in 0..s.cpus.len() as u32 {
        if f.cpu_util_cfs(cpu) > 1024 {
            return Err(format!("cpu {cpu}: cpu_util_cfs {}", f.cpu_util_cfs(cpu)));
        }
    }
    Ok(())
}

fn check_cpus(s: &Sim) -> Result<(), String> {
    let mut waiting = vec![false; s.cpus.len()];
    for (i, t) in s.tasks.iter().enumerate() {
        if t.state == TState::Runnable && s.fair.ents[i].on_rq {
            if let Some(w) = waiting.get_mut(t.cpu as usize) {
                *w = true;
            }
        }
    }
    for (c, cpu) in s.cpus.iter().enumerate() {
        let running = if cpu.curr != NIL { s.now.saturating_sub(s.tasks[cpu.curr as usize].run_start) } else { 0 };
        if cpu.busy_ns + running > s.now {
            return Err(format!("cpu {c}: busy {} ns after {} ns", cpu.busy_ns + running, s.now));
        }
        // An idle CPU leaving idle (machine.costs.idle_exit_ns) schedules when it is out.
        let exiting = cpu.exiting_idle.is_some();
        if s.fair.resched[c].is_some() && !exiting {
            return Err(format!("cpu {c}: a reschedule is pending after the instant"));
        }
        if cpu.curr == NIL && waiting[c] && !exiting {
            // An idle CPU has nothing runnable queued (delayed entities are not runnable).
            return Err(format!("cpu {c}: idle with a runnable task queued"));
        }
    }
    Ok(())
}

/// The sched domains of the machine: every CPU's domains hold it, each span holds its child's
/// (spans nested); a domain's first group is the CPU's own; on the levels below NUMA the groups
/// partition the span; every group has capacity 1024 a CPU and a balance CPU inside it.
pub fn check_domains(d: &crate::smp::Domains) -> Result<(), String> {
    for cpu in 0..d.base.len() as u32 {
        let mut child = NIL;
        for s in d.of(cpu) {
            let sd = &d.sds[s as usize];
            let name = d.name(s);
            if !sd.span.test(cpu) {
                return Err(format!("CPU {cpu}'s {name} domain {} does not hold it", sd.span.cpulist()));
            }
            if sd.child != child {
                return Err(format!("CPU {cpu}'s {name} domain's child is not the domain below it"));
            }
            if child != NIL && !d.sds[child as usize].span.subset_of(&sd.span) {
                return Err(format!("CPU {cpu}'s {name} domain {} does not hold its child's span", sd.span.cpulist()));
            }
            let Some(&own) = sd.groups.first() else {
                return Err(format!("CPU {cpu}'s {name} domain has no group"));
            };
            if !d.groups[own as usize].span.test(cpu) {
                return Err(format!("CPU {cpu}'s {name} domain's first group {} is not its own", d.groups[own as usize].span.cpulist()));
            }
            let mut covered = crate::smp::Mask::empty(d.base.len() as u32);
            let mut total = 0;
            for &g in &sd.groups {
                let grp = &d.groups[g as usize];
                if !grp.span.subset_of(&sd.span) {
                    return Err(format!("CPU {cpu}'s {name} domain holds a group {} outside its span", grp.span.cpulist()));
                }
                let sgc = &d.sgcs[grp.sgc as usize];
                if sgc.capacity != crate::smp::domains::SCHED_CAPACITY_SCALE * u64::from(grp.weight) {
                    return Err(format!("group {} has capacity {}", grp.span.cpulist(), sgc.capacity));
                }
                if !grp.span.test(d.group_balance_cpu(g)) {
                    return Err(format!("group {}'s balance CPU is outside it", grp.span.cpulist()));
                }
                covered.or_with(&grp.span);
                total += grp.weight;
            }
            if covered != sd.span {
                return Err(format!("CPU {cpu}'s {name} domain's groups cover {}, not its span {}", covered.cpulist(), sd.span.cpulist()));
            }
            if sd.flags & crate::smp::sd_flags::SD_NUMA == 0 && total != sd.span_weight {
                return Err(format!("CPU {cpu}'s {name} domain's groups overlap"));
            }
            child = s;
        }
    }
    Ok(())
}
