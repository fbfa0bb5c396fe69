//! Expansion of `count` and workloads into tasks (placeholder: being written).
use super::{Attrs, Behavior, Scenario};

#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Index into `Scenario::tasks`, and the instance number.
    Task { spec: usize, instance: u32 },
    /// Index into `Scenario::workloads`; role name such as "sender", "receiver", "messenger", "worker"; global index.
    Workload { spec: usize, role: &'static str, index: u32 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExpandedTask {
    pub name: String,
    pub attrs: Attrs,
    pub start_ns: u64,
    /// `None` for workload tasks (their behaviour comes from the workload).
    pub behavior: Option<Behavior>,
    pub origin: Origin,
}

/// Expand tasks in file order, then workloads (contract §1.1, §1.4).
pub fn expand(_s: &Scenario) -> Vec<ExpandedTask> {
    Vec::new()
}
