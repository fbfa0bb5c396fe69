//! What a recorded decision would have been with one thing changed, computed from the
//! numbers the decision used and the run's tunables with the kernel's own arithmetic, so it
//! holds at that decision from that state:
//! - a CFS / v12 wakeup check (`wakeup.rs`): the wakee's nice or latency nice, or one of v12's
//!   `get_latency_max()` clamps;
//! - a CFS / v12 tick check and an EEVDF tick (`tick.rs`): curr's nice, v12's tick clamp,
//!   the slice curr's request was made with;
//! - an EEVDF wakeup (`eevdf.rs`): the slice of the wakee's request, RUN_TO_PARITY (not
//!   v6.18, where it sized curr's protection at its pick), PREEMPT_SHORT.
//!
//! An eevdf-v6.18 tick has none: its protection (`vprot`) was sized from the queue's slices
//! at the pick.
//!
//! A pick carries its own counterfactual: the entity the tree alone would have given
//! (`Why::Pick::instead`). None is returned wherever the recorded numbers cannot say.

mod eevdf;
mod tick;
mod wakeup;

pub use wakeup::wakeup_verdict;

use crate::cfs::Fair;
use crate::explain::{Decision, Why};
use crate::scenario::ClampOffset;
use crate::weights::{
    LoadWeight, SCHED_PRIO_TO_WEIGHT, SCHED_PRIO_TO_WMULT, WEIGHT_IDLEPRIO, WMULT_IDLEPRIO,
};
use serde::Serialize;

/// One change to try at a decision. "The task" is the one decided about: the wakee at a
/// wakeup, curr at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "change", content = "value", rename_all = "snake_case")]
pub enum Change {
    /// The task at this nice.
    Nice(i32),
    /// The task at this latency nice (latency-nice-v12).
    LatencyNice(i32),
    /// `latency_max_clamp_wakeup` set so.
    WakeupClamp(bool),
    /// `latency_max_clamp_offset` set so.
    OffsetClamp(ClampOffset),
    /// `latency_max_clamp_tick` set so.
    TickClamp(bool),
    /// The task's current request made with this slice, in ns (EEVDF).
    Slice(u64),
    /// The RUN_TO_PARITY feature set so (EEVDF).
    RunToParity(bool),
    /// The PREEMPT_SHORT feature set so (eevdf-v6.12).
    PreemptShort(bool),
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

impl Change {
    /// In the scenario's words; `who` names the task decided about ("wakee", "curr").
    pub fn label_for(&self, who: &str) -> String {
        match self {
            Change::Nice(n) => format!("{who} at nice {n}"),
            Change::LatencyNice(n) => format!("{who} at latency nice {n}"),
            Change::WakeupClamp(on) => format!("latency_max_clamp_wakeup {}", on_off(*on)),
            Change::OffsetClamp(m) => format!("latency_max_clamp_offset {m:?}").to_lowercase(),
            Change::TickClamp(on) => format!("latency_max_clamp_tick {}", on_off(*on)),
            Change::Slice(ns) => format!("{who} with a {:.3} ms slice", *ns as f64 / 1e6),
            Change::RunToParity(on) => format!("RUN_TO_PARITY {}", on_off(*on)),
            Change::PreemptShort(on) => format!("PREEMPT_SHORT {}", on_off(*on)),
        }
    }

    /// The label at a wakeup check.
    pub fn label(&self) -> String {
        self.label_for("wakee")
    }
}

/// The decision's outcome (preempts / reschedules) had `change` been made; None when the
/// decision cannot be recomputed from its numbers with that change.
pub fn outcome(f: &Fair, d: &Decision, change: Change) -> Option<bool> {
    match d.why {
        Why::CfsWakeup { .. } => wakeup_verdict(f, d, change).map(|v| v == 1),
        Why::CfsTick { .. } => tick::cfs_tick(f, d, change),
        Why::EevdfTick { .. } => tick::eevdf_tick(f, d, change),
        Why::EevdfWakeup { .. } => eevdf::wakeup(f, d, change),
        Why::Pick { .. } => None,
    }
}

/// Slices offered at EEVDF decisions: the base slice's quarter and four times it (in whole
/// µs, as `sched_attr::sched_runtime` is usually written), and the shortest (0.1 ms) and
/// longest (100 ms) v6.12 accepts.
fn slices(f: &Fair) -> [u64; 4] {
    let base = f.cfg.base_slice_ns;
    [
        100_000,
        (base / 4 / 1000 * 1000).max(100_000),
        base * 4,
        100_000_000,
    ]
}

/// The changes the decision log offers under a decision.
pub fn standard_changes(f: &Fair, d: &Decision) -> Vec<Change> {
    let feat = f.cfg.feat;
    let mut v = Vec::new();
    match d.why {
        Why::CfsWakeup { .. } | Why::CfsTick { .. } => {
            v.extend([Change::Nice(-20), Change::Nice(0), Change::Nice(19)]);
            if f.v12 && matches!(d.why, Why::CfsWakeup { .. }) {
                v.extend([
                    Change::LatencyNice(-20),
                    Change::LatencyNice(0),
                    Change::LatencyNice(19),
                ]);
                v.push(Change::WakeupClamp(!feat.latency_max_clamp_wakeup));
                let other = if feat.latency_max_clamp_offset == ClampOffset::Off {
                    ClampOffset::Always
                } else {
                    ClampOffset::Off
                };
                v.push(Change::OffsetClamp(other));
            } else if f.v12 {
                v.push(Change::TickClamp(!feat.latency_max_clamp_tick));
            }
        }
        Why::EevdfTick { .. } => v.extend(slices(f).map(Change::Slice)),
        Why::EevdfWakeup { .. } => {
            if f.eevdf >= Some(crate::eevdf::Version::V612) {
                v.extend(slices(f).map(Change::Slice));
                v.push(Change::PreemptShort(!feat.preempt_short));
            }
            if f.eevdf != Some(crate::eevdf::Version::V618) {
                v.push(Change::RunToParity(!feat.run_to_parity));
            }
        }
        Why::Pick { .. } => {}
    }
    v
}

/// A task's `load_weight` from its weight alone: tasks carry the table's inverse
/// (`set_load_weight()`, `reweight_task()`), SCHED_IDLE ones WMULT_IDLEPRIO.
pub(crate) fn task_load(weight: u64) -> LoadWeight {
    let down = crate::weights::scale_load_down(weight);
    if down == WEIGHT_IDLEPRIO {
        return LoadWeight {
            weight,
            inv_weight: WMULT_IDLEPRIO,
        };
    }
    match SCHED_PRIO_TO_WEIGHT.iter().position(|&w| w == down) {
        Some(i) => LoadWeight {
            weight,
            inv_weight: SCHED_PRIO_TO_WMULT[i],
        },
        None => LoadWeight {
            weight,
            inv_weight: 0,
        },
    }
}
