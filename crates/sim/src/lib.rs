//! Fairground's simulation core: the Linux fair scheduler, tick by tick and event by event.
//!
//! The crate knows nothing of any user interface. It takes a scenario (contract §1), runs it
//! under one of five policies (`cfs-v6.2`, `latency-nice-v12`, `eevdf-v6.6`, `eevdf-v6.12`,
//! `eevdf-v6.18`) and produces the report of contract §2. Functions that model kernel code carry the kernel's
//! names and say which version they follow, so that they can be read next to `fair.c`.
//!
//! # Scripting experiments
//!
//! One call runs a scenario and returns the report:
//!
//! ```
//! use fairground_sim::{run_text, Limits};
//!
//! let scenario = r#"{ "format": "fairground-scenario/1", "name": "two hogs", "duration_ms": 100,
//!     "scheduler": { "policy": "cfs-v6.2" },
//!     "tasks": [ { "name": "hog", "count": 2, "behavior": { "kind": "hog" } } ] }"#;
//! let report = run_text(scenario, &Limits::NATIVE).expect("a valid scenario");
//! let total: u64 = report.tasks.iter().map(|t| t.cpu_ns).sum();
//! assert_eq!(total, 100_000_000); // one CPU, always busy
//! ```
//!
//! The same scenario under each policy, compared (the policy is just a field of the file):
//!
//! ```
//! use fairground_sim::{run_text, Limits};
//!
//! let with = |policy: &str| format!(r#"{{ "format": "fairground-scenario/1", "name": "cmp", "duration_ms": 500,
//!     "scheduler": {{ "policy": "{policy}" }},
//!     "tasks": [ {{ "name": "hog", "count": 3, "behavior": {{ "kind": "hog" }} }},
//!                {{ "name": "cyc", "slice_us": 100, "behavior": {{ "kind": "periodic", "period_us": 5000, "run_us": 100 }} }} ] }}"#);
//! for policy in ["cfs-v6.2", "latency-nice-v12", "eevdf-v6.6", "eevdf-v6.12"] {
//!     let r = run_text(&with(policy), &Limits::NATIVE).expect("valid");
//!     let cyc = r.tasks.iter().find(|t| t.name == "cyc").expect("cyc");
//!     assert_eq!(cyc.wakeups + cyc.overruns, 99); // a firing every 5 ms from 5 ms to 495 ms
//!     println!("{policy}: p99 wakeup latency {:?} ns", cyc.wakeup_latency_ns.p99);
//! }
//! ```
//!
//! Step a run and look inside at any instant — here the EEVDF state of each task:
//!
//! ```
//! use fairground_sim::{engine::Sim, parse_scenario, eevdf::view};
//!
//! let v = parse_scenario(r#"{ "format": "fairground-scenario/1", "name": "look", "duration_ms": 10,
//!     "scheduler": { "policy": "eevdf-v6.12" },
//!     "tasks": [ { "name": "a", "behavior": { "kind": "hog" } }, { "name": "b", "nice": 5, "behavior": { "kind": "hog" } } ] }"#)
//!     .expect("valid");
//! let mut sim = Sim::new(&v).expect("simulated");
//! sim.run_until(5_000_000);
//! let rq = view::rq_state(&sim.fair, 0);
//! for i in 0..2 {
//!     let e = view::entity_state(&sim.fair, i);
//!     println!("{}: lag {} ns, deadline {}, eligible {}", sim.tasks[i as usize].name, e.lag, e.deadline, e.eligible);
//! }
//! assert_eq!(rq.nr_running, 2);
//! ```
//!
//! A run as ftrace text for Perfetto, and a trace read back as a scenario that replays it:
//!
//! ```
//! use fairground_sim::{interop, parse_scenario};
//!
//! let v = parse_scenario(r#"{ "format": "fairground-scenario/1", "name": "t", "duration_ms": 20,
//!     "scheduler": { "policy": "cfs-v6.2" },
//!     "tasks": [ { "name": "w", "behavior": { "kind": "periodic", "period_us": 2000, "run_us": 300 } },
//!                { "name": "h", "behavior": { "kind": "hog" } } ] }"#).expect("valid");
//! let trace = interop::run_to_ftrace(&v).expect("runs");
//! assert!(trace.lines().any(|l| l.contains("sched_switch: prev_comm=")));
//! let imported = interop::import_ftrace(&trace, &interop::ImportOptions::default()).expect("reads");
//! assert_eq!(imported.tasks.len(), 2);
//! ```

pub mod cfs;
pub mod eevdf;
pub mod engine;
pub mod entity;
pub mod explain;
#[cfg(not(target_arch = "wasm32"))]
pub mod fuzz;
pub mod group;
pub mod interop;
pub mod lesson;
pub mod measure;
pub mod pelt;
pub mod rbtree;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod smp;
pub mod tunables;
pub mod view;
pub mod weights;

pub use report::Report;
pub use scenario::{parse_scenario, Limits, Scenario, ScenarioError};

/// Parse, validate, cost-check and run a scenario given as JSON(C) text; the one call the CLI
/// and the app make. Every refusal is a `ScenarioError` naming the problem.
pub fn run_text(text: &str, limits: &Limits) -> Result<Report, ScenarioError> {
    let mut sim = run_to_end(text, limits, false)?;
    if let Some(why) = &sim.runaway {
        // A defect of the model, not of the input; still an error, never a hang or a report
        // that looks complete.
        return Err(ScenarioError::at("", format!("internal error: {why}")));
    }
    Ok(sim.report())
}

/// As `run_text`, but the finished run itself, for callers that read more than its report
/// (the samples, the delay table, the app's exports); `trace` records the slices from the start.
pub fn run_to_end(text: &str, limits: &Limits, trace: bool) -> Result<engine::Sim, ScenarioError> {
    let v = parse_scenario(text)?;
    scenario::check_cost(&v.scenario, limits)?;
    let mut sim = engine::Sim::new(&v)?;
    if trace {
        sim.enable_trace();
    }
    sim.run();
    Ok(sim)
}
