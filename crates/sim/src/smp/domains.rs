//! Scheduling domains and groups as 6.18.44's `build_sched_domains()` builds them
//! (kernel/sched/topology.c): the topology table (SMT, CLS, MC, PKG, then `sched_init_numa()`'s
//! NODE and NUMA levels), `sd_init()`'s flags and parameters per level, each domain's groups
//! (`build_sched_groups()`, and `build_overlap_sched_groups()` on NUMA levels), `imb_numa_nr`,
//! the removal of degenerate levels (`cpu_attach_domain()`) and the per-CPU shortcuts of
//! `update_top_cache_domain()` (`sd_llc`, `sd_llc_size`, `sd_llc_id`, `sd_share_id`,
//! `sd_llc_shared`, `sd_numa`).
//!
//! As in the kernel, every CPU has its own domain at each level (each keeps its own balance
//! interval and failure count), the groups of the levels below NUMA are shared between the CPUs
//! whose domains list them, and a NUMA level's groups are each CPU's own, sharing their
//! `sched_group_capacity` (here: `Sgc`).

use super::mask::Mask;
use super::sd_flags::*;
use super::topology::Topology;
use crate::entity::NIL;

/// `SCHED_CAPACITY_SCALE`: every CPU's original capacity (no asymmetry is modelled).
pub const SCHED_CAPACITY_SCALE: u64 = 1024;

/// Which CPUs a topology level spans around a CPU (`tl->mask()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlMask {
    /// `cpu_smt_mask()`.
    Smt,
    /// `cpu_clustergroup_mask()`: the core's threads, as no modelled machine has clusters.
    Cls,
    /// `cpu_coregroup_mask()`: the LLC.
    Mc,
    /// `cpu_node_mask()` (6.18's `tl_pkg_mask()`).
    Pkg,
    /// `sd_numa_mask()`: the nodes within `sched_domains_numa_distance[level]`.
    Numa(usize),
}

/// `struct sched_domain_topology_level`.
#[derive(Clone, Debug)]
pub struct Tl {
    pub name: &'static str,
    pub mask: TlMask,
    /// What the level's flags function returns (`cpu_smt_flags()`, …).
    pub sd_flags: u32,
}

/// `struct sched_domain`: one CPU's domain at one level.
#[derive(Clone, Debug)]
pub struct SchedDomain {
    pub cpu: u32,
    /// Index into `Domains::tls`.
    pub tl: u32,
    /// `sd->level`: the depth in the chain as built (degenerate levels removed later keep
    /// their numbers, as in the kernel).
    pub level: u32,
    pub flags: u32,
    pub span: Mask,
    pub span_weight: u32,
    /// `cpumask_first()` of the span (`sd_id`).
    pub first: u32,
    /// `sd->groups`, as indices into `Domains::groups`: the CPU's own group first, then the
    /// others in the order of `for_each_cpu_wrap()` from the CPU.
    pub groups: Vec<u32>,
    pub parent: u32,
    pub child: u32,
    /// ms.
    pub min_interval: u64,
    pub max_interval: u64,
    pub busy_factor: u32,
    pub imbalance_pct: u32,
    pub cache_nice_tries: u32,
    pub imb_numa_nr: u32,
    /// ms: starts at `min_interval`.
    pub balance_interval: u64,
    pub nr_balance_failed: u32,
    /// Jiffies.
    pub last_balance: u64,
    /// `sd->shared`, an index into `Domains::shared`, on the levels that share the LLC.
    pub shared: u32,
}

/// `struct sched_group`.
#[derive(Clone, Debug)]
pub struct SchedGroup {
    pub span: Mask,
    /// The span's first CPU, and whether the span is the run of `weight` CPUs from it (every
    /// group below NUMA).
    pub first: u32,
    pub run: bool,
    /// `group_weight`.
    pub weight: u32,
    /// `sg->cores`: the SMT cores it holds.
    pub cores: u32,
    /// `sg->flags`: the flags of the child domain it was built from; the balancer reads
    /// SD_SHARE_CPUCAPACITY and SD_CLUSTER there.
    pub flags: u32,
    /// `sg->sgc`, an index into `Domains::sgcs`.
    pub sgc: u32,
}

/// `struct sched_group_capacity`, shared by every group of the same CPUs at the same level.
#[derive(Clone, Debug)]
pub struct Sgc {
    pub capacity: u64,
    pub min_capacity: u64,
    pub max_capacity: u64,
    /// `sgc->imbalance`: balancing below this group failed because of affinity.
    pub imbalance: bool,
    /// Jiffies.
    pub next_update: u64,
    /// `group_balance_mask()`: the CPUs that reach this group through their own domains
    /// (all of its CPUs below NUMA). `group_balance_cpu()` is its first.
    pub balance_mask: Mask,
}

/// `struct sched_domain_shared`, one per LLC-sharing span.
#[derive(Clone, Debug, Default)]
pub struct SdShared {
    pub nr_busy_cpus: u32,
    pub has_idle_cores: bool,
    /// 0 until the first periodic balance of the LLC domain writes it (`kzalloc`).
    pub nr_idle_scan: u32,
}

/// The machine's domains and groups, and the per-CPU shortcuts.
#[derive(Clone, Debug, Default)]
pub struct Domains {
    pub tls: Vec<Tl>,
    /// `sched_domains_numa_distance[]`: the distinct node distances, ascending.
    pub numa_distance: Vec<u32>,
    pub sds: Vec<SchedDomain>,
    pub groups: Vec<SchedGroup>,
    pub sgcs: Vec<Sgc>,
    pub shared: Vec<SdShared>,
    /// Per CPU: `rq->sd`, the lowest domain kept, or NIL (a machine of one CPU).
    pub base: Vec<u32>,
    /// Per CPU: `sd_llc` (NIL: none), `sd_llc_size`, `sd_llc_id`, `sd_share_id`,
    /// `sd_llc_shared` (NIL: none), `sd_numa` (NIL: none).
    pub sd_llc: Vec<u32>,
    pub sd_llc_size: Vec<u32>,
    pub sd_llc_id: Vec<u32>,
    pub sd_share_id: Vec<u32>,
    pub sd_llc_shared: Vec<u32>,
    pub sd_numa: Vec<u32>,
}

/// The topology table: `default_topology[]` (SMT, CLS, MC, PKG), then what
/// `sched_init_numa()` appends: NODE (`numa_level` 0, no flags) and one NUMA level per larger
/// distinct distance. Returns the table and the distinct distances.
pub fn topology_levels(t: &Topology) -> (Vec<Tl>, Vec<u32>) {
    let mut tls = vec![
        Tl { name: "SMT", mask: TlMask::Smt, sd_flags: SD_SHARE_CPUCAPACITY | SD_SHARE_LLC },
        Tl { name: "CLS", mask: TlMask::Cls, sd_flags: SD_CLUSTER | SD_SHARE_LLC },
        Tl { name: "MC", mask: TlMask::Mc, sd_flags: SD_SHARE_LLC },
        Tl { name: "PKG", mask: TlMask::Pkg, sd_flags: 0 },
    ];
    let mut d: Vec<u32> = (0..t.nodes).flat_map(|a| (0..t.nodes).map(move |b| (a, b))).map(|(a, b)| t.distance(a, b)).collect();
    d.sort_unstable();
    d.dedup();
    tls.push(Tl { name: "NODE", mask: TlMask::Numa(0), sd_flags: 0 });
    for j in 1..d.len() {
        tls.push(Tl { name: "NUMA", mask: TlMask::Numa(j), sd_flags: SD_NUMA });
    }
    (tls, d)
}

/// `tl->mask(tl, cpu)` on the machine (`cpu_map` is every CPU).
fn tl_span(t: &Topology, dist: &[u32], mask: TlMask, cpu: u32) -> Mask {
    let n = t.cpus();
    let (first, len) = match mask {
        TlMask::Smt | TlMask::Cls => t.core_span(cpu),
        TlMask::Mc => t.llc_span(cpu),
        TlMask::Pkg => t.node_span(cpu),
        TlMask::Numa(level) => {
            let me = t.node_of(cpu);
            let mut m = Mask::empty(n);
            for node in 0..t.nodes {
                if t.distance(me, node) <= dist[level] {
                    m.or_with(&Mask::range(n, node * t.node_size(), t.node_size()));
                }
            }
            return m;
        }
    };
    Mask::range(n, first, len)
}

/// `sd_init()` (6.18.44): a domain's flags and parameters from its level and span.
fn sd_init(t: &Topology, tls: &[Tl], dist: &[u32], l: usize, cpu: u32, child: u32) -> SchedDomain {
    let tl = &tls[l];
    let span = tl_span(t, dist, tl.mask, cpu);
    let w = span.weight();
    let mut sd = SchedDomain {
        cpu,
        tl: l as u32,
        level: 0,
        flags: SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING | tl.sd_flags,
        first: span.first().unwrap_or(cpu),
        span,
        span_weight: 0,
        groups: Vec::new(),
        parent: NIL,
        child,
        min_interval: w.into(),
        max_interval: 2 * u64::from(w),
        busy_factor: 16,
        imbalance_pct: 117,
        cache_nice_tries: 0,
        imb_numa_nr: 0,
        balance_interval: w.into(),
        nr_balance_failed: 0,
        last_balance: 0,
        shared: NIL,
    };
    if sd.flags & SD_SHARE_CPUCAPACITY != 0 {
        sd.imbalance_pct = 110;
    } else if sd.flags & SD_SHARE_LLC != 0 {
        sd.imbalance_pct = 117;
        sd.cache_nice_tries = 1;
    } else if sd.flags & SD_NUMA != 0 {
        sd.cache_nice_tries = 2;
        sd.flags &= !SD_PREFER_SIBLING;
        sd.flags |= SD_SERIALIZE;
        if let TlMask::Numa(level) = tl.mask {
            if dist[level] > t.node_reclaim_distance {
                sd.flags &= !(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
            }
        }
    } else {
        sd.cache_nice_tries = 1;
    }
    sd
}

/// `sd_degenerate()`.
fn sd_degenerate(sd: &SchedDomain) -> bool {
    if sd.span.weight() == 1 {
        return true;
    }
    if sd.flags & SD_DEGENERATE_GROUPS_MASK != 0 && sd.groups.len() > 1 {
        return false;
    }
    sd.flags & SD_WAKE_AFFINE == 0
}

/// `sd_parent_degenerate()`.
fn sd_parent_degenerate(sd: &SchedDomain, parent: &SchedDomain) -> bool {
    if sd_degenerate(parent) {
        return true;
    }
    if sd.span != parent.span {
        return false;
    }
    let mut pflags = parent.flags;
    if parent.groups.len() == 1 {
        pflags &= !SD_DEGENERATE_GROUPS_MASK;
    }
    !sd.flags & pflags == 0
}

/// Counts the SMT cores among `span`'s CPUs (`init_sched_groups_capacity()`).
fn cores(t: &Topology, span: &Mask) -> u32 {
    let mut n = 0;
    let mut last = u32::MAX;
    for c in span.iter() {
        let core = c / t.threads_per_core;
        if core != last {
            n += 1;
            last = core;
        }
    }
    n
}

impl Sgc {
    /// A group's capacity as the builders set it: 1024 a CPU (no asymmetry, no pressure yet).
    fn new(weight: u32, balance_mask: Mask) -> Sgc {
        Sgc {
            capacity: SCHED_CAPACITY_SCALE * u64::from(weight),
            min_capacity: SCHED_CAPACITY_SCALE,
            max_capacity: SCHED_CAPACITY_SCALE,
            imbalance: false,
            next_update: 0,
            balance_mask,
        }
    }
}

impl SchedGroup {
    fn new(t: &Topology, span: Mask, flags: u32, sgc: u32) -> SchedGroup {
        let weight = span.weight();
        let first = span.first().unwrap_or(0);
        let run = span.last().is_some_and(|l| l - first + 1 == weight);
        SchedGroup { weight, cores: cores(t, &span), first, run, span, flags, sgc }
    }
}

/// The build's scratch: `sdd->sd`, `sdd->sg`, `sdd->sgc` and `sdd->sds` of each level, per CPU.
struct Sdd {
    ntl: usize,
    sd: Vec<u32>,
    sg: Vec<u32>,
    sgc: Vec<u32>,
    sds: Vec<u32>,
    /// The overlap groups' capacities already found: the sibling's level, the span, the
    /// `Sgc`. A few per NUMA level and node, so a list.
    overlap: Vec<(usize, Mask, u32)>,
}

impl Sdd {
    fn at(&self, l: usize, cpu: u32) -> usize {
        cpu as usize * self.ntl + l
    }
}

impl Domains {
    /// `build_sched_domains()` over every CPU of the machine, then `cpu_attach_domain()` for
    /// each.
    pub fn build(t: &Topology) -> Domains {
        let n = t.cpus();
        let (tls, dist) = topology_levels(t);
        let ntl = tls.len();
        let all = Mask::range(n, 0, n);
        let cells = n as usize * ntl;
        let mut sdd = Sdd { ntl, sd: vec![NIL; cells], sg: vec![NIL; cells], sgc: vec![NIL; cells], sds: vec![NIL; cells], overlap: Vec::new() };
        let mut d = Domains { base: vec![NIL; n as usize], ..Default::default() };

        // Set up domains for CPUs specified by the cpu_map.
        for cpu in 0..n {
            let mut child = NIL;
            for l in 0..ntl {
                let mut sd = sd_init(t, &tls, &dist, l, cpu, child);
                if child != NIL {
                    let c = &d.sds[child as usize];
                    sd.level = c.level + 1;
                    if !c.span.subset_of(&sd.span) {
                        // "BUG: arch topology borken": ensure the domain holds its child.
                        let cs = c.span.clone();
                        sd.span.or_with(&cs);
                        sd.first = sd.span.first().unwrap_or(cpu);
                    }
                }
                if sd.flags & SD_SHARE_LLC != 0 {
                    let k = sdd.at(l, sd.first);
                    if sdd.sds[k] == NIL {
                        sdd.sds[k] = d.shared.len() as u32;
                        d.shared.push(SdShared { nr_busy_cpus: sd.span.weight(), ..Default::default() });
                    }
                    sd.shared = sdd.sds[k];
                }
                let whole = sd.span == all;
                let id = d.sds.len() as u32;
                d.sds.push(sd);
                if child != NIL {
                    d.sds[child as usize].parent = id;
                }
                let k = sdd.at(l, cpu);
                sdd.sd[k] = id;
                if l == 0 {
                    d.base[cpu as usize] = id;
                }
                if whole {
                    break;
                }
                child = id;
            }
        }

        // Build the groups for the domains.
        for cpu in 0..n {
            let mut s = d.base[cpu as usize];
            while s != NIL {
                let sd = &mut d.sds[s as usize];
                sd.span_weight = sd.span.weight();
                let groups = if sd.flags & SD_NUMA != 0 { d.build_overlap_sched_groups(t, &mut sdd, s, cpu) } else { d.build_sched_groups(t, &mut sdd, s, cpu) };
                d.sds[s as usize].groups = groups;
                s = d.sds[s as usize].parent;
            }
        }

        d.set_imb_numa_nr();

        // Attach the domains.
        let n = n as usize;
        d.sd_llc = vec![NIL; n];
        d.sd_llc_size = vec![1; n];
        d.sd_llc_id = (0..n as u32).collect();
        d.sd_share_id = (0..n as u32).collect();
        d.sd_llc_shared = vec![NIL; n];
        d.sd_numa = vec![NIL; n];
        for cpu in 0..n as u32 {
            d.cpu_attach_domain(cpu);
            d.update_top_cache_domain(cpu);
        }
        d.tls = tls;
        d.numa_distance = dist;
        d
    }

    /// `build_sched_groups()` with `get_group()`: the child domains' spans covering this
    /// domain, from the CPU's own, wrapping; single CPUs at the lowest level.
    fn build_sched_groups(&mut self, t: &Topology, sdd: &mut Sdd, s: u32, cpu: u32) -> Vec<u32> {
        let n = t.cpus();
        let l = self.sds[s as usize].tl as usize;
        let span = self.sds[s as usize].span.clone();
        let mut covered = Mask::empty(n);
        let mut groups = Vec::new();
        for i in span.iter_wrap(cpu) {
            if covered.test(i) {
                continue;
            }
            // get_group(i, sdd)
            let sd_i = sdd.sd[sdd.at(l, i)];
            if sd_i == NIL {
                continue;
            }
            let child = self.sds[sd_i as usize].child;
            let key = if child != NIL { self.sds[child as usize].first } else { i };
            let k = sdd.at(l, key);
            if sdd.sg[k] == NIL {
                let (gspan, flags) = if child != NIL {
                    let c = &self.sds[child as usize];
                    (c.span.clone(), c.flags)
                } else {
                    (Mask::range(n, i, 1), 0)
                };
                sdd.sgc[k] = self.sgcs.len() as u32;
                self.sgcs.push(Sgc::new(gspan.weight(), gspan.clone()));
                sdd.sg[k] = self.groups.len() as u32;
                self.groups.push(SchedGroup::new(t, gspan, flags, sdd.sgc[k]));
            }
            let g = sdd.sg[k];
            let grp = &self.groups[g as usize];
            if grp.run {
                // Below NUMA a group is a run of CPUs: mark it a word at a time.
                covered.set_range(grp.first, grp.weight);
            } else {
                covered.or_with(&grp.span);
            }
            groups.push(g);
        }
        groups
    }

    /// `build_overlap_sched_groups()`: on a NUMA level, the group of each uncovered CPU is
    /// its own domain's child span at this level (or a lower descendant's, where that child
    /// spans out of this domain: `find_descended_sibling()`). The groups are this CPU's own;
    /// their capacity (`Sgc`) is shared through the first CPU of the balance mask.
    fn build_overlap_sched_groups(&mut self, t: &Topology, sdd: &mut Sdd, s: u32, cpu: u32) -> Vec<u32> {
        let n = t.cpus();
        let l = self.sds[s as usize].tl as usize;
        let span = self.sds[s as usize].span.clone();
        let mut covered = Mask::empty(n);
        let mut groups = Vec::new();
        for i in span.iter_wrap(cpu) {
            if covered.test(i) {
                continue;
            }
            let mut sibling = sdd.sd[sdd.at(l, i)];
            // A CPU whose build stopped below this level has no domain here.
            if sibling == NIL || !self.sds[sibling as usize].span.test(i) {
                continue;
            }
            let c = self.sds[sibling as usize].child;
            if c != NIL && !self.sds[c as usize].span.subset_of(&span) {
                sibling = self.find_descended_sibling(&span, sibling);
            }
            // build_group_from_child_sched_domain()
            let sib = &self.sds[sibling as usize];
            let (gspan, flags) = if sib.child != NIL {
                let c = &self.sds[sib.child as usize];
                (c.span.clone(), c.flags)
            } else {
                (sib.span.clone(), 0)
            };
            covered.or_with(&gspan);
            // init_overlap_sched_group() with build_balance_mask(): the mask depends on the
            // sibling's level and the span only, so each pair is worked out once.
            let sl = sib.tl as usize;
            let w = gspan.weight();
            let sgc = match sdd.overlap.iter().find(|(l, m, _)| *l == sl && *m == gspan) {
                Some(&(_, _, sgc)) => sgc,
                None => {
                    let mut mask = Mask::empty(n);
                    for j in gspan.iter() {
                        let sj = sdd.sd[sdd.at(sl, j)];
                        if sj == NIL {
                            continue;
                        }
                        let cj = self.sds[sj as usize].child;
                        if cj != NIL && self.sds[cj as usize].span == gspan {
                            mask.set(j);
                        }
                    }
                    let k = sdd.at(sl, mask.first().unwrap_or(i));
                    if sdd.sgc[k] == NIL {
                        sdd.sgc[k] = self.sgcs.len() as u32;
                        self.sgcs.push(Sgc::new(w, mask));
                    }
                    sdd.overlap.push((sl, gspan.clone(), sdd.sgc[k]));
                    sdd.sgc[k]
                }
            };
            // "Initialize sgc->capacity such that even if we mess up the domains ...".
            self.sgcs[sgc as usize].capacity = SCHED_CAPACITY_SCALE * u64::from(w);
            groups.push(self.groups.len() as u32);
            self.groups.push(SchedGroup::new(t, gspan, flags, sgc));
        }
        groups
    }

    /// `find_descended_sibling()`: the descendant whose child stays inside `span`, below any
    /// level that only repeats its child's span.
    fn find_descended_sibling(&self, span: &Mask, mut sibling: u32) -> u32 {
        loop {
            let c = self.sds[sibling as usize].child;
            if c == NIL || self.sds[c as usize].span.subset_of(span) {
                break;
            }
            sibling = c;
        }
        loop {
            let c = self.sds[sibling as usize].child;
            if c == NIL || self.sds[c as usize].span != self.sds[sibling as usize].span {
                break;
            }
            sibling = c;
        }
        sibling
    }

    /// `imb_numa_nr`, from `build_sched_domains()`: over each CPU's whole chain as built,
    /// before the degenerate levels go.
    fn set_imb_numa_nr(&mut self) {
        for cpu in 0..self.base.len() {
            let (mut imb, mut imb_span) = (0u32, 1u32);
            let mut s = self.base[cpu];
            while s != NIL {
                let sd = &self.sds[s as usize];
                let child = sd.child;
                if sd.flags & SD_SHARE_LLC == 0 && child != NIL && self.sds[child as usize].flags & SD_SHARE_LLC != 0 {
                    let nr_llcs = sd.span_weight / self.sds[child as usize].span_weight;
                    imb = if nr_llcs == 1 { sd.span_weight >> 3 } else { nr_llcs }.max(1);
                    let mut top = sd.parent;
                    while top != NIL && self.sds[top as usize].flags & SD_NUMA == 0 {
                        top = self.sds[top as usize].parent;
                    }
                    imb_span = if top != NIL { self.sds[top as usize].span_weight } else { sd.span_weight };
                    self.sds[s as usize].imb_numa_nr = imb;
                } else {
                    let factor = (sd.span_weight / imb_span).max(1);
                    self.sds[s as usize].imb_numa_nr = imb * factor;
                }
                s = self.sds[s as usize].parent;
            }
        }
    }

    /// `cpu_attach_domain()`: remove the domains that do not contribute to scheduling.
    fn cpu_attach_domain(&mut self, cpu: u32) {
        let mut sd = self.base[cpu as usize];
        let mut tmp = sd;
        while tmp != NIL {
            let parent = self.sds[tmp as usize].parent;
            if parent == NIL {
                break;
            }
            if sd_parent_degenerate(&self.sds[tmp as usize], &self.sds[parent as usize]) {
                let pp = self.sds[parent as usize].parent;
                self.sds[tmp as usize].parent = pp;
                if pp != NIL {
                    self.sds[pp as usize].child = tmp;
                    // The kernel writes the first group's flags only: this CPU's own.
                    let g = self.sds[pp as usize].groups[0];
                    self.groups[g as usize].flags = self.sds[tmp as usize].flags;
                }
                // Transfer SD_PREFER_SIBLING down: the spans match.
                if self.sds[parent as usize].flags & SD_PREFER_SIBLING != 0 {
                    self.sds[tmp as usize].flags |= SD_PREFER_SIBLING;
                }
            } else {
                tmp = parent;
            }
        }
        if sd != NIL && sd_degenerate(&self.sds[sd as usize]) {
            sd = self.sds[sd as usize].parent;
            if sd != NIL {
                // The groups held the destroyed child's flags (the kernel's loop clears the
                // first group only).
                let g = self.sds[sd as usize].groups[0];
                self.groups[g as usize].flags = 0;
                self.sds[sd as usize].child = NIL;
            }
        }
        self.base[cpu as usize] = sd;
    }

    /// `highest_flag_domain()`: the highest domain with `flag`, stopping at the first
    /// without it when it is a SDF_SHARED_CHILD flag.
    fn highest_flag_domain(&self, cpu: u32, flag: u32) -> u32 {
        let mut hsd = NIL;
        for s in self.of(cpu) {
            if self.sds[s as usize].flags & flag != 0 {
                hsd = s;
                continue;
            }
            if flag & SD_SHARED_CHILD_MASK != 0 {
                break;
            }
        }
        hsd
    }

    /// `lowest_flag_domain()`.
    fn lowest_flag_domain(&self, cpu: u32, flag: u32) -> u32 {
        self.of(cpu).find(|&s| self.sds[s as usize].flags & flag != 0).unwrap_or(NIL)
    }

    /// `update_top_cache_domain()`.
    fn update_top_cache_domain(&mut self, cpu: u32) {
        let c = cpu as usize;
        let mut id = cpu;
        let sd = self.highest_flag_domain(cpu, SD_SHARE_LLC);
        self.sd_llc[c] = sd;
        if sd != NIL {
            let s = &self.sds[sd as usize];
            id = s.span.first().unwrap_or(cpu);
            self.sd_llc_size[c] = s.span_weight;
            self.sd_llc_shared[c] = s.shared;
        }
        self.sd_llc_id[c] = id;
        let cls = self.lowest_flag_domain(cpu, SD_CLUSTER);
        if cls != NIL {
            id = self.sds[cls as usize].span.first().unwrap_or(cpu);
        }
        self.sd_share_id[c] = id;
        self.sd_numa[c] = self.lowest_flag_domain(cpu, SD_NUMA);
    }

    /// The domains of `cpu`, bottom up (`for_each_domain()`).
    pub fn of(&self, cpu: u32) -> impl Iterator<Item = u32> + '_ {
        let mut sd = self.base.get(cpu as usize).copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            if sd == NIL {
                return None;
            }
            let s = sd;
            sd = self.sds[s as usize].parent;
            Some(s)
        })
    }

    /// The name of a domain's level ("SMT", "MC", "NUMA", …).
    pub fn name(&self, s: u32) -> &'static str {
        self.tls[self.sds[s as usize].tl as usize].name
    }

    /// `cpu`'s kept domain of the level named `name` (the lowest, for NUMA).
    pub fn at(&self, cpu: u32, name: &str) -> Option<&SchedDomain> {
        self.of(cpu).find(|&s| self.name(s) == name).map(|s| &self.sds[s as usize])
    }

    /// `group_balance_cpu()`.
    pub fn group_balance_cpu(&self, g: u32) -> u32 {
        let sgc = &self.sgcs[self.groups[g as usize].sgc as usize];
        sgc.balance_mask.first().unwrap_or(0)
    }
}
