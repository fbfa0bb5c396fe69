//! Fairground's simulation core: the Linux fair scheduler, tick by tick and event by event.
//!
//! The crate knows nothing of any user interface. It takes a scenario (contract §1), runs it
//! under one of four policies (`cfs-v6.2`, `latency-nice-v12`, `eevdf-v6.6`, `eevdf-v6.12`) and
//! produces the report of contract §2. Functions that model kernel code carry the kernel's
//! names and say which version they follow, so that they can be read next to `fair.c`.

pub mod cfs;
pub mod eevdf;
pub mod engine;
pub mod entity;
pub mod group;
pub mod rbtree;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod tunables;
pub mod weights;

pub use report::Report;
pub use scenario::{parse_scenario, Limits, Scenario, ScenarioError};

/// Parse, validate, cost-check and run a scenario given as JSON(C) text; the one call the CLI
/// and the app make. Every refusal is a `ScenarioError` naming the problem.
pub fn run_text(text: &str, limits: &Limits) -> Result<Report, ScenarioError> {
    let v = parse_scenario(text)?;
    scenario::check_cost(&v.scenario, limits)?;
    let mut sim = engine::Sim::new(&v)?;
    sim.run();
    Ok(sim.report())
}
