//! Cost estimate (placeholder: being written).
use super::{Scenario, ScenarioError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_events: u64,
    pub max_memory_bytes: u64,
}

impl Limits {
    pub const NATIVE: Limits = Limits { max_events: 4_000_000_000, max_memory_bytes: 8 << 30 };
    pub const BROWSER: Limits = Limits { max_events: 400_000_000, max_memory_bytes: 1 << 30 };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostEstimate {
    pub events: u64,
    pub memory_bytes: u64,
}

pub fn estimate(_s: &Scenario) -> CostEstimate {
    CostEstimate { events: 0, memory_bytes: 0 }
}

pub fn check_cost(_s: &Scenario, _l: &Limits) -> Result<CostEstimate, ScenarioError> {
    Ok(estimate(_s))
}
