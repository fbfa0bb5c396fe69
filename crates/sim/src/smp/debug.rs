//! The domains as a kernel developer reads them (kernel/sched/debug.c's
//! `/sys/kernel/debug/sched/domains/cpuN/domainM/`, and `sched_domain_debug()`'s boot log):
//! `fairground domains` prints these (contract §4).

use super::domains::{Domains, SCHED_CAPACITY_SCALE};
use super::sd_flags;
use serde::Serialize;

/// One CPU's domains, lowest level first.
#[derive(Clone, Debug, Serialize)]
pub struct CpuDomains {
    pub cpu: u32,
    pub domains: Vec<DomainInfo>,
    /// `sd_llc_size` and `sd_llc_id`: the CPUs sharing its last-level cache, and the first.
    pub sd_llc_size: u32,
    pub sd_llc_id: u32,
}

/// One domain: the files of `domainM/`, with its groups as `sched_domain_debug()` lists them.
#[derive(Clone, Debug, Serialize)]
pub struct DomainInfo {
    pub level: &'static str,
    pub span: String,
    pub flags: Vec<&'static str>,
    pub imbalance_pct: u32,
    pub min_interval: u64,
    pub max_interval: u64,
    pub busy_factor: u32,
    pub cache_nice_tries: u32,
    pub imb_numa_nr: u32,
    /// The groups' spans, the CPU's own first.
    pub groups: Vec<String>,
    /// Each group's `sgc->capacity`.
    pub group_capacity: Vec<u64>,
    /// Each group's `group_balance_cpu()`.
    pub group_balance_cpu: Vec<u32>,
}

/// The machine's domains, per CPU.
#[derive(Clone, Debug, Serialize)]
pub struct DomainsTable {
    pub cpus: Vec<CpuDomains>,
}

impl Domains {
    pub fn table(&self) -> DomainsTable {
        let cpus = (0..self.base.len() as u32)
            .map(|cpu| {
                let domains = self
                    .of(cpu)
                    .map(|s| {
                        let sd = &self.sds[s as usize];
                        DomainInfo {
                            level: self.name(s),
                            span: sd.span.cpulist(),
                            flags: sd_flags::names(sd.flags),
                            imbalance_pct: sd.imbalance_pct,
                            min_interval: sd.min_interval,
                            max_interval: sd.max_interval,
                            busy_factor: sd.busy_factor,
                            cache_nice_tries: sd.cache_nice_tries,
                            imb_numa_nr: sd.imb_numa_nr,
                            groups: sd.groups.iter().map(|&g| self.groups[g as usize].span.cpulist()).collect(),
                            group_capacity: sd.groups.iter().map(|&g| self.sgcs[self.groups[g as usize].sgc as usize].capacity).collect(),
                            group_balance_cpu: sd.groups.iter().map(|&g| self.group_balance_cpu(g)).collect(),
                        }
                    })
                    .collect();
                CpuDomains { cpu, domains, sd_llc_size: self.sd_llc_size[cpu as usize], sd_llc_id: self.sd_llc_id[cpu as usize] }
            })
            .collect();
        DomainsTable { cpus }
    }
}

impl DomainsTable {
    /// As `sched_domain_debug()` logs them at boot ("CPU0 attaching sched-domain(s):"), with
    /// each domain's flags and parameters under it.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for c in &self.cpus {
            if c.domains.is_empty() {
                out.push_str(&format!("CPU{} attaching NULL sched-domain.\n", c.cpu));
                continue;
            }
            out.push_str(&format!("CPU{} attaching sched-domain(s):   (sd_llc_size {}, sd_llc_id {})\n", c.cpu, c.sd_llc_size, c.sd_llc_id));
            for (i, d) in c.domains.iter().enumerate() {
                let pad = " ".repeat(i + 1);
                out.push_str(&format!("{pad}domain-{i}: span={} level={}\n", d.span, d.level));
                let groups: Vec<String> = d
                    .groups
                    .iter()
                    .zip(&d.group_capacity)
                    .zip(&d.group_balance_cpu)
                    .map(|((g, &cap), b)| {
                        // As the kernel prints it: the capacity where it is not one CPU's.
                        if cap == SCHED_CAPACITY_SCALE {
                            format!("{b}:{{ span={g} }}")
                        } else {
                            format!("{b}:{{ span={g} cap={cap} }}")
                        }
                    })
                    .collect();
                out.push_str(&format!("{pad}  groups: {}\n", groups.join(", ")));
                out.push_str(&format!("{pad}  flags: {}\n", d.flags.join(" ")));
                out.push_str(&format!(
                    "{pad}  imbalance_pct={} cache_nice_tries={} min_interval={} max_interval={} busy_factor={} imb_numa_nr={}\n",
                    d.imbalance_pct, d.cache_nice_tries, d.min_interval, d.max_interval, d.busy_factor, d.imb_numa_nr
                ));
            }
        }
        out
    }
}

