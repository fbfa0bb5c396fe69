//! What changed, and why, between two runs: where the `get_latency_max()` clamps of latency
//! nice v12 bound and where they flipped an outcome over a whole run, and the first decision
//! at which two runs of one scenario part ways. Both read the decision log
//! (`crate::explain`), whose entries carry the numbers each check used.

use super::patch::Assignment;
use crate::engine::Sim;
use crate::entity::NIL;
use crate::explain::{Decision, Why};
use crate::{Limits, ScenarioError};
use serde::Serialize;

/// One clamp site's impact: how often it bound (the clamped value differed from the raw one)
/// and how often it flipped the outcome (the check would have gone the other way without it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SiteCount {
    pub bound: u64,
    pub flipped: u64,
}

/// The three sites, for one task, one CPU, or the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClampCount {
    /// `wakeup_preempt_entity()`: `gran = min(gran, get_latency_max())`.
    pub wakeup: SiteCount,
    /// `wakeup_latency_gran()`: `min(offset, get_latency_max())`.
    pub offset: SiteCount,
    /// `check_preempt_tick()`: resched if `delta > get_latency_max()`.
    pub tick: SiteCount,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClampImpact {
    pub total: ClampCount,
    /// By the task decided about (the wakee at a wakeup, curr at a tick), in task order.
    pub tasks: Vec<ClampCount>,
    pub cpus: Vec<ClampCount>,
}

/// The verdict of a recorded v12 wakeup check with each clamp site taken away in turn:
/// (without the wakeup clamp, without the offset clamp). `wakeup_clamp_on` says whether the
/// run applied the wakeup clamp (the log records the granularity, not the switch).
pub fn verdicts_without(why: &Why, wakeup_clamp_on: bool) -> Option<(i32, i32)> {
    let Why::CfsWakeup { vdiff, wakeup_gran, offset, offset_unclamped, latency_max, .. } = *why else { return None };
    // wakeup_preempt_entity() as v12 writes it, from the recorded inputs.
    let verdict = |off: i64, clamp: bool| crate::cfs::latency::v12_wakeup_verdict(vdiff, off, wakeup_gran, clamp, latency_max);
    Some((verdict(offset, false), verdict(offset_unclamped, wakeup_clamp_on)))
}

/// Count each site's bindings and flips in `log` (a latency-nice-v12 run's decision log).
pub fn clamp_impact(log: &[Decision], tasks: usize, cpus: usize, wakeup_clamp_on: bool) -> ClampImpact {
    let mut out = ClampImpact { total: ClampCount::default(), tasks: vec![ClampCount::default(); tasks], cpus: vec![ClampCount::default(); cpus] };
    for d in log {
        let mut c = ClampCount::default();
        match d.why {
            Why::CfsWakeup { offset, offset_unclamped, gran, gran_unclamped, verdict, .. } => {
                let Some((no_wakeup, no_offset)) = verdicts_without(&d.why, wakeup_clamp_on) else { continue };
                if gran != gran_unclamped && wakeup_clamp_on {
                    c.wakeup.bound = 1;
                    c.wakeup.flipped = u64::from((verdict == 1) != (no_wakeup == 1));
                }
                if offset != offset_unclamped {
                    c.offset.bound = 1;
                    c.offset.flipped = u64::from((verdict == 1) != (no_offset == 1));
                }
            }
            Why::CfsTick { by_latency_max, .. } if by_latency_max => {
                c.tick = SiteCount { bound: 1, flipped: 1 };
            }
            _ => continue,
        }
        let add = |t: &mut ClampCount| {
            for (x, y) in [(&mut t.wakeup, c.wakeup), (&mut t.offset, c.offset), (&mut t.tick, c.tick)] {
                x.bound += y.bound;
                x.flipped += y.flipped;
            }
        };
        add(&mut out.total);
        if let Some(t) = out.tasks.get_mut(d.task as usize) {
            add(t);
        }
        if let Some(t) = out.cpus.get_mut(d.cpu as usize) {
            add(t);
        }
    }
    out
}

/// Whether a recorded decision was flipped by one of the clamps.
pub fn flipped_by_clamp(d: &Decision, wakeup_clamp_on: bool) -> bool {
    match d.why {
        Why::CfsWakeup { verdict, .. } => {
            let Some((a, b)) = verdicts_without(&d.why, wakeup_clamp_on) else { return false };
            (verdict == 1) != (a == 1) || (verdict == 1) != (b == 1)
        }
        Why::CfsTick { by_latency_max, .. } => by_latency_max,
        _ => false,
    }
}

/// The part of a decision two runs can be compared on: when, where, about whom, and how it went.
fn key(d: &Decision) -> (u64, u32, u32, u32, bool, std::mem::Discriminant<Why>) {
    (d.at_ns, d.cpu, d.task, d.other, d.outcome, std::mem::discriminant(&d.why))
}

/// Where two runs' decision logs part: the index of the first pair that differs (a decision
/// made at another time, CPU, about another task, with another outcome, of another kind, or
/// present in one log only), and the two decisions there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    pub index: usize,
    #[serde(skip)]
    pub a: Option<Decision>,
    #[serde(skip)]
    pub b: Option<Decision>,
    pub at_ns: u64,
    /// Each side in words.
    pub a_text: String,
    pub b_text: String,
}

/// The first `n` indices at which the logs differ (aligned by position).
pub fn divergences(a: &[Decision], b: &[Decision], n: usize, name: &dyn Fn(u32) -> String) -> Vec<Divergence> {
    let len = a.len().max(b.len());
    let mut out = Vec::new();
    for i in 0..len {
        let (da, db) = (a.get(i), b.get(i));
        if da.map(key) == db.map(key) {
            continue;
        }
        let at_ns = match (da, db) {
            (Some(x), Some(y)) => x.at_ns.min(y.at_ns),
            (Some(x), None) | (None, Some(x)) => x.at_ns,
            (None, None) => 0,
        };
        let text = |d: Option<&Decision>| d.map_or("(no more decisions)".to_string(), |d| d.describe(name));
        out.push(Divergence { index: i, a: da.copied(), b: db.copied(), at_ns, a_text: text(da), b_text: text(db) });
        if out.len() >= n {
            break;
        }
    }
    out
}

/// A finished run of `base` under `set`, with its decision log.
pub fn run_logged(base: &str, set: &[Assignment], limits: &Limits) -> Result<Sim, ScenarioError> {
    super::compare::run_variant_logged(base, set, limits, false)
}

/// The decision log of a finished run (empty if it was not recorded).
pub fn log_of(sim: &Sim) -> &[Decision] {
    sim.fair.log.as_deref().unwrap_or(&[])
}

/// Name a task of `sim` for the texts (NIL is idle).
pub fn namer(sim: &Sim) -> impl Fn(u32) -> String + '_ {
    move |t| if t == NIL { "idle".into() } else { sim.tasks.get(t as usize).map_or_else(|| format!("task {t}"), |x| x.name.clone()) }
}
