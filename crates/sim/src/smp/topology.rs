//! The machine's shape (`machine.topology`, `machine.distance`): hardware threads per core,
//! cores per last-level cache, LLCs per NUMA node, nodes, and the node distance table, as the
//! arch code reports them to the scheduler (`cpu_smt_mask()`, `cpu_clustergroup_mask()`,
//! `cpu_coregroup_mask()`, `cpu_node_mask()`, `node_distance()`).
//!
//! CPUs are numbered with SMT siblings adjacent, then cores, LLCs and nodes in order:
//! CPU = ((node · L + llc) · C + core) · T + thread, as POWER numbers its threads, so that a
//! core, an LLC and a node are each a run of consecutive CPUs. (x86 EPYCs number a core's
//! second thread `cpus / 2` higher; the scheduler's decisions depend on the masks, not on the
//! numbers, except where a scan starts from a CPU id: docs/model.md, "Many CPUs".)

/// `LOCAL_DISTANCE` and `REMOTE_DISTANCE` (include/linux/topology.h).
pub const LOCAL_DISTANCE: u32 = 10;
pub const REMOTE_DISTANCE: u32 = 20;
/// `RECLAIM_DISTANCE`, the default `node_reclaim_distance`: NUMA levels farther than it
/// neither balance at fork and exec nor wake affine (`sd_init()`).
pub const RECLAIM_DISTANCE: u32 = 30;
/// `NR_DISTANCE_VALUES`: `sched_init_numa()` refuses a distance at or above it.
pub const NR_DISTANCE_VALUES: u32 = 1 << 8;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Topology {
    pub threads_per_core: u32,
    pub cores_per_llc: u32,
    pub llcs_per_node: u32,
    pub nodes: u32,
    /// `node_distance(a, b)`, row-major, nodes × nodes; empty: 10 on the diagonal, 20 elsewhere.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub distance: Vec<u32>,
    /// `node_reclaim_distance`: RECLAIM_DISTANCE, or 32 on AMD Zen (`init_amd_zen_common()`
    /// raises it, so that EPYC's 32 between sockets still wakes affine).
    pub node_reclaim_distance: u32,
    /// The preset this shape was named by, if any (a scenario writes the name back).
    pub preset: Option<&'static str>,
}

/// A named machine shape. `what` says where the shape comes from.
pub struct Preset {
    pub name: &'static str,
    pub topology: Topology,
    pub what: &'static str,
}

/// The named shapes (`"topology": "NAME"`; docs/model.md, "Many CPUs", says which parts of
/// each are stated by their source and which inferred).
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            name: "host-2",
            topology: Topology::shape(1, 2, 1, 1, "host-2"),
            what: "the development machine: 2 CPUs (KVM guest of an AMD EPYC, family 25), one thread per \
                   core, one shared L3, one node (lscpu)",
        },
        Preset {
            name: "power-96",
            topology: Topology::shape(8, 1, 12, 1, "power-96"),
            what: "seed 000's box: \"Power system with 12 cores with SMT=8. Total of 96 CPU\" (stated); one \
                   LLC per core of 8 threads (inferred: POWER9/POWER10 big cores share L2 and L3, and \
                   powerpc's shared-cache mask makes sd_llc 8 CPUs); one node (inferred)",
        },
        Preset {
            name: "epyc-256",
            topology: Topology {
                distance: vec![10, 32, 32, 10],
                node_reclaim_distance: 32,
                ..Topology::shape(2, 8, 8, 2, "epyc-256")
            },
            what: "seed 003's box: \"3rd Generation EPYC System, 2 x 64C/128T, NPS1 mode\" (stated: 256 CPUs, \
                   one node per socket); 8 cores per L3, a Zen 3 CCX (inferred from the part); distance 32 \
                   between the sockets (inferred: what two-socket EPYCs report in their SLIT); \
                   node_reclaim_distance 32 (the kernel's own on AMD Zen)",
        },
    ]
}

impl Topology {
    fn shape(t: u32, c: u32, l: u32, n: u32, preset: &'static str) -> Topology {
        Topology {
            threads_per_core: t,
            cores_per_llc: c,
            llcs_per_node: l,
            nodes: n,
            distance: Vec::new(),
            node_reclaim_distance: RECLAIM_DISTANCE,
            preset: Some(preset),
        }
    }

    /// The shape of a scenario without `machine.topology`: single-thread cores, `llc` of them
    /// per LLC (`machine.llc_size`, default all CPUs), one node.
    pub fn flat(cpus: u32, llc: u32) -> Topology {
        let cpus = cpus.max(1);
        let llc = llc.clamp(1, cpus);
        Topology {
            threads_per_core: 1,
            cores_per_llc: llc,
            llcs_per_node: cpus / llc,
            nodes: 1,
            distance: Vec::new(),
            node_reclaim_distance: RECLAIM_DISTANCE,
            preset: None,
        }
    }

    pub fn preset(name: &str) -> Option<Topology> {
        presets().into_iter().find(|p| p.name == name).map(|p| p.topology)
    }

    pub fn cpus(&self) -> u32 {
        self.threads_per_core * self.cores_per_llc * self.llcs_per_node * self.nodes
    }

    pub fn llc_size(&self) -> u32 {
        self.threads_per_core * self.cores_per_llc
    }

    pub fn node_size(&self) -> u32 {
        self.llc_size() * self.llcs_per_node
    }

    /// `node_distance()`.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        if self.distance.is_empty() {
            return if a == b { LOCAL_DISTANCE } else { REMOTE_DISTANCE };
        }
        self.distance[(a * self.nodes + b) as usize]
    }

    /// `cpu_to_node()`.
    pub fn node_of(&self, cpu: u32) -> u32 {
        cpu / self.node_size()
    }

    /// `cpu_smt_mask()`, and `cpu_clustergroup_mask()` too: no modelled machine has a cluster
    /// level between the core and the LLC (x86's L2 is per core). First CPU and size.
    pub fn core_span(&self, cpu: u32) -> (u32, u32) {
        let t = self.threads_per_core;
        (cpu / t * t, t)
    }

    /// `cpu_coregroup_mask()`: the CPUs sharing `cpu`'s last-level cache.
    pub fn llc_span(&self, cpu: u32) -> (u32, u32) {
        let l = self.llc_size();
        (cpu / l * l, l)
    }

    /// `cpu_node_mask()` (`cpumask_of_node()`), which PKG spans since 6.18's `tl_pkg_mask()`.
    pub fn node_span(&self, cpu: u32) -> (u32, u32) {
        let n = self.node_size();
        (cpu / n * n, n)
    }

    /// Check the shape against `machine.cpus`: Err((path below `machine`, message)).
    pub fn check(&self, cpus: u32) -> Result<(), (String, String)> {
        let n = self.nodes;
        if !self.distance.is_empty() {
            for i in 0..n {
                for j in 0..n {
                    let x = self.distance(i, j);
                    let at = format!("distance[{i}][{j}]");
                    if i == j && x != LOCAL_DISTANCE {
                        return Err((at, format!("expected {LOCAL_DISTANCE} (a node's distance to itself), got {x}")));
                    }
                    if i != j && !(LOCAL_DISTANCE + 1..NR_DISTANCE_VALUES).contains(&x) {
                        let max = NR_DISTANCE_VALUES - 1;
                        return Err((at, format!("expected a distance between two nodes from 11 to {max}, got {x}")));
                    }
                    if self.distance(j, i) != x {
                        return Err((at, format!("expected the same distance both ways ({} at [{j}][{i}]), got {x}", self.distance(j, i))));
                    }
                }
            }
        }
        if self.cpus() != cpus {
            let msg = format!(
                "expected threads_per_core × cores_per_llc × llcs_per_node × nodes to equal machine.cpus ({cpus}), got {} × {} × {} × {} = {}",
                self.threads_per_core,
                self.cores_per_llc,
                self.llcs_per_node,
                self.nodes,
                self.cpus()
            );
            return Err(("topology".into(), msg));
        }
        Ok(())
    }
}
