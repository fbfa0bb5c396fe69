//! Scheduling domains as 6.18.44's `build_sched_domains()` builds them, on machines worked by
//! hand from the kernel source (kernel/sched/topology.c: `sd_init()`, `build_sched_groups()`,
//! `build_overlap_sched_groups()`, the `imb_numa_nr` loop, `cpu_attach_domain()`,
//! `update_top_cache_domain()`; ../shared/reference/kernel-smp.md, V1).

use fairground_sim::entity::NIL;
use fairground_sim::smp::domains::{Domains, SchedDomain};
use fairground_sim::smp::sd_flags::*;
use fairground_sim::smp::Topology;

fn shape(t: u32, c: u32, l: u32, n: u32, distance: Vec<u32>) -> Topology {
    let mut topo = Topology::flat(1, 1);
    topo.threads_per_core = t;
    topo.cores_per_llc = c;
    topo.llcs_per_node = l;
    topo.nodes = n;
    topo.distance = distance;
    topo
}

fn levels(d: &Domains, cpu: u32) -> Vec<(&'static str, String)> {
    d.of(cpu).map(|s| (d.name(s), d.sds[s as usize].span.cpulist())).collect()
}

fn groups(d: &Domains, sd: &SchedDomain) -> Vec<String> {
    sd.groups.iter().map(|&g| d.groups[g as usize].span.cpulist()).collect()
}

/// (imbalance_pct, cache_nice_tries, min_interval, max_interval, busy_factor, imb_numa_nr)
fn params(sd: &SchedDomain) -> (u32, u32, u64, u64, u32, u32) {
    (sd.imbalance_pct, sd.cache_nice_tries, sd.min_interval, sd.max_interval, sd.busy_factor, sd.imb_numa_nr)
}

const BASE: u32 = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE;

/// V1: 16 CPUs, 2 threads a core, 4 cores an LLC, one LLC a node, 2 nodes at distance 20.
/// - built for CPU 0: SMT {0,1}, CLS {0,1}, MC {0-7}, PKG {0-7}, NODE {0-7}, NUMA {0-15}, the
///   last spanning the machine;
/// - CLS goes (same span as SMT, one group, so only SD_WAKE_AFFINE counts, which SMT has), so
///   do PKG and NODE (same span as MC, one group): SMT → MC → NUMA on every CPU;
/// - sd_init(): SMT 110/0, MC 117/1, NUMA 117/2 with SD_SERIALIZE and without
///   SD_PREFER_SIBLING; 20 ≤ RECLAIM_DISTANCE (30) keeps fork, exec and wake-affine;
///   intervals w..2w ms, busy_factor 16;
/// - imb_numa_nr over the chain as built: PKG, the first level above the LLC, has one LLC
///   (8 / 8), so imb = 8 >> 3 = 1 with imb_span the NUMA span 16; NODE and NUMA multiply by
///   max(1, span / 16) = 1: NUMA's is 1, and the levels sharing the LLC keep 0;
/// - sd_llc = MC (8 CPUs, id 0 or 8), sd_numa = NUMA, sd_share_id = sd_llc_id (no cluster
///   domain survives).
#[test]
fn v1_two_nodes_of_smt2_cores() {
    let d = Domains::build(&shape(2, 4, 1, 2, Vec::new()));
    for cpu in 0..16 {
        let names: Vec<&str> = levels(&d, cpu).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["SMT", "MC", "NUMA"], "CPU {cpu}");
    }
    assert_eq!(levels(&d, 9), [("SMT", "8-9".to_string()), ("MC", "8-15".to_string()), ("NUMA", "0-15".to_string())]);

    let smt = d.at(0, "SMT").unwrap();
    assert_eq!(smt.flags, BASE | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC | SD_PREFER_SIBLING);
    assert_eq!(params(smt), (110, 0, 2, 4, 16, 0));
    assert_eq!(groups(&d, smt), ["0", "1"]);
    assert_eq!(groups(&d, d.at(1, "SMT").unwrap()), ["1", "0"], "the CPU's own group first");

    let mc = d.at(0, "MC").unwrap();
    assert_eq!(mc.flags, BASE | SD_SHARE_LLC | SD_PREFER_SIBLING);
    assert_eq!(params(mc), (117, 1, 8, 16, 16, 0));
    assert_eq!(groups(&d, mc), ["0-1", "2-3", "4-5", "6-7"]);
    assert_eq!(groups(&d, d.at(5, "MC").unwrap()), ["4-5", "6-7", "0-1", "2-3"], "wrapping from CPU 5");

    let numa = d.at(0, "NUMA").unwrap();
    assert_eq!(numa.flags, BASE | SD_SERIALIZE | SD_NUMA);
    assert_eq!(params(numa), (117, 2, 16, 32, 16, 1));
    assert_eq!(groups(&d, numa), ["0-7", "8-15"]);
    assert_eq!(groups(&d, d.at(9, "NUMA").unwrap()), ["8-15", "0-7"]);

    for cpu in [0, 7, 8, 15] {
        let c = cpu as usize;
        let first = cpu / 8 * 8;
        assert_eq!((d.sd_llc_size[c], d.sd_llc_id[c], d.sd_share_id[c]), (8, first, first));
        assert_eq!(d.name(d.sd_llc[c]), "MC");
        assert_eq!(d.name(d.sd_numa[c]), "NUMA");
        let shared = &d.shared[d.sd_llc_shared[c] as usize];
        assert_eq!((shared.nr_busy_cpus, shared.has_idle_cores, shared.nr_idle_scan), (8, false, 0));
    }
}

/// Group flags follow the child domain that stays: each MC group was built from CLS (with
/// SD_CLUSTER), and when CLS goes, `cpu_attach_domain()` writes SMT's flags into the first
/// group of MC, the CPU's own; as every MC group is some CPU's own, all of them end with
/// SD_SHARE_CPUCAPACITY and without SD_CLUSTER. A NUMA level's groups are each CPU's own
/// objects: only the first takes MC's flags (through the removed PKG and NODE); the remote
/// node's group keeps the flags of the NODE domain it was built from.
#[test]
fn group_flags_follow_the_surviving_child() {
    let d = Domains::build(&shape(2, 4, 1, 2, Vec::new()));
    let mc = d.at(0, "MC").unwrap();
    for &g in &mc.groups {
        let f = d.groups[g as usize].flags;
        assert_ne!(f & SD_SHARE_CPUCAPACITY, 0);
        assert_eq!(f & SD_CLUSTER, 0);
    }
    let numa = d.at(0, "NUMA").unwrap();
    let own = d.groups[numa.groups[0] as usize].flags;
    let remote = d.groups[numa.groups[1] as usize].flags;
    assert_eq!(own, BASE | SD_SHARE_LLC | SD_PREFER_SIBLING);
    assert_eq!(remote, BASE | SD_PREFER_SIBLING);
    assert_eq!(d.groups[d.at(0, "SMT").unwrap().groups[1] as usize].flags, 0, "the lowest level's groups are single CPUs");
    // Capacity: 1024 a CPU; the NUMA groups' balance masks are their whole nodes.
    let cap: Vec<u64> = numa.groups.iter().map(|&g| d.sgcs[d.groups[g as usize].sgc as usize].capacity).collect();
    assert_eq!(cap, [8192, 8192]);
    assert_eq!(d.group_balance_cpu(numa.groups[1]), 8);
    assert_eq!(d.groups[mc.groups[2] as usize].cores, 1);
}

/// The EPYC preset: 2 sockets of 8 LLCs of 8 SMT2 cores, distance 32, and the Zen
/// node_reclaim_distance of 32:
/// - SMT 2, CLS 2 (goes), MC 16, PKG 128 (the node: 8 groups of 16), NODE 128 (goes, same span
///   as PKG and one group), NUMA 256 (2 groups);
/// - 32 > 32 is false: the NUMA level keeps fork, exec and wake-affine balancing;
/// - imb_numa_nr: PKG has 128 / 16 = 8 LLCs, so imb = 8, with imb_span 256 (the NUMA level);
///   NUMA: 8 × max(1, 256 / 256) = 8.
#[test]
fn epyc_preset() {
    let t = Topology::preset("epyc-256").unwrap();
    assert_eq!(t.cpus(), 256);
    let d = Domains::build(&t);
    assert_eq!(
        levels(&d, 130),
        [("SMT", "130-131".to_string()), ("MC", "128-143".to_string()), ("PKG", "128-255".to_string()), ("NUMA", "0-255".to_string())]
    );
    let pkg = d.at(0, "PKG").unwrap();
    assert_eq!(pkg.flags, BASE | SD_PREFER_SIBLING);
    assert_eq!(params(pkg), (117, 1, 128, 256, 16, 8));
    assert_eq!(pkg.groups.len(), 8);
    assert_eq!(groups(&d, pkg)[1], "16-31");
    let numa = d.at(0, "NUMA").unwrap();
    assert_eq!(numa.flags, BASE | SD_SERIALIZE | SD_NUMA);
    assert_eq!(params(numa), (117, 2, 256, 512, 16, 8));
    assert_eq!(groups(&d, numa), ["0-127", "128-255"]);
    assert_eq!((d.sd_llc_size[200], d.sd_llc_id[200]), (16, 192));

    // The same shape on a machine with the generic RECLAIM_DISTANCE (30): 32 is beyond it,
    // and the NUMA level stops balancing at fork and exec and waking affine.
    let mut generic = t.clone();
    generic.node_reclaim_distance = 30;
    let d = Domains::build(&generic);
    assert_eq!(d.at(0, "NUMA").unwrap().flags, SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_NUMA);
}

/// Two CPUs of one thread each, one LLC (this machine): SMT and CLS are one CPU each and go,
/// PKG spans the same two CPUs with one group and goes: a single MC level, groups of one CPU.
#[test]
fn two_single_thread_cpus_have_one_mc_level() {
    let d = Domains::build(&Topology::preset("host-2").unwrap());
    assert_eq!(levels(&d, 0), [("MC", "0-1".to_string())]);
    let mc = d.at(1, "MC").unwrap();
    assert_eq!(mc.flags, BASE | SD_SHARE_LLC | SD_PREFER_SIBLING);
    assert_eq!(params(mc), (117, 1, 2, 4, 16, 0));
    assert_eq!(groups(&d, mc), ["1", "0"]);
    assert_eq!(mc.child, NIL);
    assert_eq!((d.sd_llc_size[1], d.sd_llc_id[1]), (2, 0));
    assert_eq!(d.sd_numa[1], NIL);
}

/// Four nodes of two CPUs in two pairs: 20 within a pair, 40 across. The distinct distances
/// 10, 20, 40 give NODE and two NUMA levels; for CPU 0: MC {0,1} (NODE and PKG go), NUMA
/// {0-3} at 20 with groups {0,1},{2,3}, NUMA {0-7} at 40 with groups {0-3},{4-7}.
/// - 40 > RECLAIM_DISTANCE: the top level neither balances at fork and exec nor wakes affine;
/// - imb_numa_nr: PKG has one LLC of 2 CPUs, imb = max(1, 2 >> 3) = 1, imb_span the first
///   NUMA span, 4; so 1 at distance 20 and 1 × 8 / 4 = 2 at distance 40;
/// - the lowest NUMA level is sd_numa.
#[test]
fn four_nodes_at_two_distances_give_two_numa_levels() {
    #[rustfmt::skip]
    let dist = vec![
        10, 20, 40, 40,
        20, 10, 40, 40,
        40, 40, 10, 20,
        40, 40, 20, 10,
    ];
    let d = Domains::build(&shape(1, 2, 1, 4, dist));
    assert_eq!(d.numa_distance, [10, 20, 40]);
    assert_eq!(levels(&d, 0), [("MC", "0-1".to_string()), ("NUMA", "0-3".to_string()), ("NUMA", "0-7".to_string())]);
    assert_eq!(levels(&d, 5), [("MC", "4-5".to_string()), ("NUMA", "4-7".to_string()), ("NUMA", "0-7".to_string())]);
    let chain: Vec<&SchedDomain> = d.of(0).map(|s| &d.sds[s as usize]).collect();
    assert_eq!(groups(&d, chain[1]), ["0-1", "2-3"]);
    assert_eq!(groups(&d, chain[2]), ["0-3", "4-7"]);
    assert_eq!(chain[1].flags, BASE | SD_SERIALIZE | SD_NUMA);
    assert_eq!(chain[2].flags, SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_NUMA);
    assert_eq!(params(chain[1]), (117, 2, 4, 8, 16, 1));
    assert_eq!(params(chain[2]), (117, 2, 8, 16, 16, 2));
    assert_eq!(d.sd_numa[0], d.sds[d.base[0] as usize].parent);
}

/// Seed 000's POWER box: 12 cores of 8 threads, one LLC a core. MC spans the core as SMT
/// does and goes; PKG (the node, 96 CPUs) has 12 groups of 8, each carrying SMT's flags once
/// MC is gone. sd_llc is the SMT level (8 CPUs). imb_numa_nr of PKG: 96 / 8 = 12 LLCs, so 12.
#[test]
fn power_preset() {
    let t = Topology::preset("power-96").unwrap();
    let d = Domains::build(&t);
    assert_eq!(levels(&d, 17), [("SMT", "16-23".to_string()), ("PKG", "0-95".to_string())]);
    let smt = d.at(17, "SMT").unwrap();
    assert_eq!(params(smt), (110, 0, 8, 16, 16, 0));
    let pkg = d.at(17, "PKG").unwrap();
    assert_eq!(params(pkg), (117, 1, 96, 192, 16, 12));
    assert_eq!(pkg.groups.len(), 12);
    assert_eq!(groups(&d, pkg)[0], "16-23");
    assert!(pkg.groups.iter().all(|&g| d.groups[g as usize].flags & SD_SHARE_CPUCAPACITY != 0));
    assert_eq!((d.sd_llc_size[17], d.sd_llc_id[17]), (8, 16));
    assert_eq!(d.name(d.sd_llc[17]), "SMT");
}

/// One CPU has no domain at all (`on_null_domain()`).
#[test]
fn one_cpu_has_no_domain() {
    let d = Domains::build(&Topology::flat(1, 1));
    assert_eq!(d.base, [NIL]);
    assert_eq!((d.sd_llc[0], d.sd_llc_size[0], d.sd_llc_id[0]), (NIL, 1, 0));
}

/// On every level below NUMA the groups partition the domain's span, every span holds its
/// child's, and the CPU's own group comes first: the fuzzer's checks of the domains
/// (`invariants::check_domains`), on a set of shapes.
#[test]
fn groups_partition_spans_below_numa() {
    for t in [shape(2, 4, 2, 2, Vec::new()), shape(4, 2, 3, 1, Vec::new()), shape(1, 8, 2, 3, Vec::new()), Topology::preset("epyc-256").unwrap()] {
        let d = Domains::build(&t);
        if let Err(e) = fairground_sim::fuzz::invariants::check_domains(&d) {
            panic!("{t:?}: {e}");
        }
    }
}
