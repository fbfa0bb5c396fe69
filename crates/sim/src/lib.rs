//! Fairground's simulation core: the Linux fair scheduler, tick by tick and event by event.
//!
//! The crate knows nothing of any user interface. It takes a scenario (contract §1), runs it
//! under one of four policies (`cfs-v6.2`, `latency-nice-v12`, `eevdf-v6.6`, `eevdf-v6.12`) and
//! produces the report of contract §2. Functions that model kernel code carry the kernel's
//! names and say which version they follow, so that they can be read next to `fair.c`.

pub mod rbtree;
pub mod report;
pub mod scenario;

pub use report::Report;
pub use scenario::{parse_scenario, Limits, Scenario, ScenarioError};
