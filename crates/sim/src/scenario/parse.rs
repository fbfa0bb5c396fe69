//! Parsing and validation (placeholder: being written).
use super::{Scenario, ScenarioError};

/// A scenario that passed validation, with the report's `warnings` (knobs ignored under the
/// chosen policy).
#[derive(Clone, Debug)]
pub struct Validated {
    pub scenario: Scenario,
    pub warnings: Vec<String>,
}

/// Parse and validate a scenario file (JSON or JSONC) as contract §1 says.
pub fn parse_scenario(_text: &str) -> Result<Validated, ScenarioError> {
    Err(ScenarioError::at("", "not implemented yet"))
}
