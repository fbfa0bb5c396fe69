//! Scenario files (contract §1): JSONC syntax, strict validation with JSON paths, expansion.
//!
//! The choices the contract leaves open (error shapes, bounds, expansion order, cost formula)
//! are listed in `CHOICES.md` next to this file.

pub mod model;
mod fields;
mod jsonc;
mod parse;
mod refs;
mod tasks;
mod expand;
mod cost;
mod write;
mod lesson;
mod machine;

pub use cost::{check_cost, estimate, CostEstimate, Limits};
pub(crate) use cost::sci;
pub use expand::{expand, expanded_len, target_tasks, workload_roles, ExpandedTask, Origin};
pub use model::*;
pub use parse::{parse_scenario, parse_value, Validated, MAX_TASKS};
pub use write::to_json;
pub use lesson::{check_tries, try_it};
/// The JSONC syntax of scenario files (line comments, trailing commas), read into JSON.
pub use jsonc::parse as parse_jsonc;

use std::fmt;

/// A refusal of a scenario: the first problem in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// JSON path such as `tasks[2].behavior.period_us`; empty for the whole document.
    pub path: String,
    /// What was expected, what was found.
    pub message: String,
    /// 1-based line and column of a syntax error.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl ScenarioError {
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into(), line: None, column: None }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "syntax error at line {l}, column {c}: {}", self.message),
            _ if self.path.is_empty() => write!(f, "{}", self.message),
            _ => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}
