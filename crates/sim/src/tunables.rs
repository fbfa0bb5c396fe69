//! Tunables, their CPU-count scaling, and the per-policy feature switches (contract §1.2).
//!
//! The kernel stores *normalized* (1-CPU) values and multiplies them by
//! `get_update_sysctl_factor()` in `update_sysctl()` at boot. `sched_nr_latency` is not
//! rescaled there (only a debugfs write recomputes it), so it stays 8 unless given.

use crate::scenario::{ClampOffset, Features, Policy, Preemption, Scaling, Scenario, Tunables, WakeupPreemptVariant};

pub const NSEC_PER_SEC: u64 = 1_000_000_000;

/// `TICK_NSEC` = (NSEC_PER_SEC + HZ/2) / HZ.
pub const fn tick_nsec(hz: u32) -> u64 {
    (NSEC_PER_SEC + hz as u64 / 2) / hz as u64
}

/// `ilog2()` of a non-zero value.
const fn ilog2(x: u32) -> u32 {
    31 - x.leading_zeros()
}

/// `get_update_sysctl_factor()` (v6.2; the same function scales `base_slice` in v6.6+).
pub fn sysctl_factor(cpus: u32, scaling: Scaling) -> u64 {
    let c = cpus.clamp(1, 8);
    match scaling {
        Scaling::None => 1,
        Scaling::Linear => c as u64,
        Scaling::Log => 1 + ilog2(c) as u64,
    }
}

/// Effective (scaled) tunables and resolved features of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub policy: Policy,
    pub cpus: u32,
    pub hz: u32,
    pub tick_ns: u64,
    pub factor: u64,
    /// `sysctl_sched_latency`.
    pub latency_ns: u64,
    /// `sysctl_sched_min_granularity`.
    pub min_granularity_ns: u64,
    /// `sysctl_sched_idle_min_granularity`: not a contract tunable; v6.2 leaves it unscaled.
    pub idle_min_granularity_ns: u64,
    /// `sysctl_sched_wakeup_granularity`.
    pub wakeup_granularity_ns: u64,
    pub sched_nr_latency: u64,
    /// `sysctl_sched_base_slice` (EEVDF).
    pub base_slice_ns: u64,
    /// `normalized_sysctl_sched_base_slice`: the unscaled base slice, which v6.18's
    /// `set_protect_slice()` reads when RUN_TO_PARITY is off.
    pub normalized_base_slice_ns: u64,
    /// `machine.preemption`.
    pub preemption: Preemption,
    pub feat: Feat,
}

/// Resolved feature switches: every one has a value, whatever the policy (those that do not
/// apply are at a value that makes them inert).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feat {
    pub gentle_fair_sleepers: bool,
    pub start_debit: bool,
    pub last_buddy: bool,
    pub next_buddy: bool,
    pub wakeup_preemption: bool,
    pub ideal_runtime_cap: bool,
    pub latency_list: bool,
    pub latency_max_clamp_tick: bool,
    pub latency_max_clamp_offset: ClampOffset,
    pub latency_max_clamp_wakeup: bool,
    pub wakeup_preempt_variant: WakeupPreemptVariant,
    pub update_cfs_group_enqueue: bool,
    pub update_cfs_group_dequeue: bool,
    pub place_lag: bool,
    pub place_deadline_initial: bool,
    pub place_rel_deadline: bool,
    pub run_to_parity: bool,
    pub preempt_short: bool,
    pub delay_dequeue: bool,
    pub delay_zero: bool,
    /// The April 2024 RFC's RESPECT_SLICE (never merged): see `pick_curr()`.
    pub respect_slice: bool,
    /// Prateek Nayak's March 2024 RFC (never merged): see `pick_eevdf()` (v6.12).
    pub run_to_parity_wakeup: bool,
    /// PICK_BUDDY (v6.13+): `pick_next_entity()` takes an eligible `cfs_rq->next`. Before,
    /// NEXT_BUDDY gated both the setting and the picking.
    pub pick_buddy: bool,
}

impl Feat {
    /// The defaults of each policy (the contract's §1.2 table). Features that do not exist in
    /// a policy are off, so code shared between policies can test them unconditionally.
    pub fn defaults(policy: Policy) -> Feat {
        let cfs = policy.is_cfs();
        let v12 = policy == Policy::LatencyNiceV12;
        let eevdf = !cfs;
        let v612 = policy.is_v612_or_later();
        let v618 = policy == Policy::EevdfV618;
        Feat {
            gentle_fair_sleepers: cfs,
            start_debit: cfs,
            last_buddy: cfs,
            next_buddy: false,
            wakeup_preemption: true,
            ideal_runtime_cap: false,
            latency_list: v12,
            latency_max_clamp_tick: v12,
            latency_max_clamp_offset: if v12 { ClampOffset::Always } else { ClampOffset::Off },
            latency_max_clamp_wakeup: v12,
            wakeup_preempt_variant: WakeupPreemptVariant::V12,
            update_cfs_group_enqueue: true,
            update_cfs_group_dequeue: true,
            place_lag: eevdf,
            place_deadline_initial: eevdf,
            place_rel_deadline: v612,
            run_to_parity: eevdf,
            preempt_short: v612,
            delay_dequeue: v612,
            delay_zero: v612,
            respect_slice: false,
            run_to_parity_wakeup: false,
            pick_buddy: v618,
        }
    }

    /// Apply the file's features. Keys that do not apply to the policy were already turned
    /// into warnings by the validator and are skipped here.
    pub fn resolve(policy: Policy, f: &Features) -> Feat {
        let mut r = Feat::defaults(policy);
        let cfs = policy.is_cfs();
        let v12 = policy == Policy::LatencyNiceV12;
        let eevdf = !cfs;
        let v612 = policy.is_v612_or_later();
        let rfc = policy == Policy::EevdfV612;
        let v618 = policy == Policy::EevdfV618;
        macro_rules! take {
            ($field:ident, $applies:expr) => {
                if $applies {
                    if let Some(v) = f.$field {
                        r.$field = v;
                    }
                }
            };
        }
        take!(gentle_fair_sleepers, cfs);
        take!(start_debit, cfs);
        take!(last_buddy, cfs);
        take!(next_buddy, true);
        take!(wakeup_preemption, true);
        take!(ideal_runtime_cap, cfs);
        take!(latency_list, v12);
        take!(latency_max_clamp_tick, v12);
        take!(latency_max_clamp_offset, v12);
        take!(latency_max_clamp_wakeup, v12);
        take!(wakeup_preempt_variant, v12);
        take!(update_cfs_group_enqueue, true);
        take!(update_cfs_group_dequeue, true);
        take!(place_lag, eevdf);
        take!(place_deadline_initial, eevdf);
        take!(place_rel_deadline, v612);
        take!(run_to_parity, eevdf);
        take!(preempt_short, v612);
        take!(delay_dequeue, v612);
        take!(delay_zero, v612);
        take!(respect_slice, rfc);
        take!(run_to_parity_wakeup, rfc);
        take!(pick_buddy, v618);
        // Both follow-up variants replace the wakeup clamp (contract §1.2).
        if r.wakeup_preempt_variant != WakeupPreemptVariant::V12 {
            r.latency_max_clamp_wakeup = false;
        }
        r
    }
}

/// `normalized_sysctl_sched_base_slice`'s default: 0.75 ms until v6.14, 0.70 ms from v6.15
/// (2ae891b82695, "sched: Reduce the default slice to avoid tasks getting an extra
/// tick": 0.75 ms × 4 at HZ=250 was just over three ticks).
pub fn default_base_slice(policy: Policy) -> u64 {
    if policy == Policy::EevdfV618 {
        700_000
    } else {
        750_000
    }
}

impl Config {
    pub fn from_scenario(s: &Scenario) -> Config {
        let mut c = Config::new(s.scheduler.policy, s.machine.cpus, s.machine.hz, &s.scheduler.tunables, &s.scheduler.features);
        c.preemption = s.machine.preemption;
        c
    }

    /// The effective configuration of `policy` on `cpus` CPUs at `hz`.
    pub fn new(policy: Policy, cpus: u32, hz: u32, t: &Tunables, features: &Features) -> Config {
        let scaling = t.tunable_scaling.unwrap_or(Scaling::Log);
        let factor = sysctl_factor(cpus, scaling);
        let cfs = policy.is_cfs();
        // Tunables that do not apply to the policy keep their kernel defaults (and are unused).
        let pick = |v: Option<u64>, applies: bool, default: u64| if applies { v.unwrap_or(default) } else { default };
        Config {
            policy,
            cpus,
            hz,
            tick_ns: tick_nsec(hz),
            factor,
            latency_ns: factor * pick(t.latency_ns, cfs, 6_000_000),
            min_granularity_ns: factor * pick(t.min_granularity_ns, cfs, 750_000),
            idle_min_granularity_ns: 750_000,
            wakeup_granularity_ns: factor * pick(t.wakeup_granularity_ns, cfs, 1_000_000),
            sched_nr_latency: pick(t.sched_nr_latency, cfs, 8),
            base_slice_ns: factor * pick(t.base_slice_ns, !cfs, default_base_slice(policy)),
            normalized_base_slice_ns: pick(t.base_slice_ns, !cfs, default_base_slice(policy)),
            preemption: Preemption::Full,
            feat: Feat::resolve(policy, features),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kernel-source.md part E: factor and scaled tunables by CPU count.
    #[test]
    fn log_factor_matches_part_e() {
        for (cpus, f) in [(1, 1), (2, 2), (3, 2), (4, 3), (6, 3), (8, 4), (16, 4), (64, 4), (1024, 4)] {
            assert_eq!(sysctl_factor(cpus, Scaling::Log), f, "{cpus} cpus");
        }
        assert_eq!(sysctl_factor(64, Scaling::Linear), 8);
        assert_eq!(sysctl_factor(3, Scaling::Linear), 3);
        assert_eq!(sysctl_factor(64, Scaling::None), 1);
    }

    #[test]
    fn tick_nsec_rounds() {
        assert_eq!(tick_nsec(100), 10_000_000);
        assert_eq!(tick_nsec(250), 4_000_000);
        assert_eq!(tick_nsec(300), 3_333_333);
        assert_eq!(tick_nsec(1000), 1_000_000);
    }
}
