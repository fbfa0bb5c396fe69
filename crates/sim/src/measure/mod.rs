//! Measuring like the mailing list (issue 9): latency histograms, A/B comparisons of one
//! scenario under two configurations, and sweeps of one parameter. The app and the CLI
//! (`fairground compare`, `fairground sweep`) both use these; nothing here draws.

pub mod ablate;
pub mod compare;
pub mod counterfactual;
pub mod csv;
pub mod diverge;
pub mod hist;
pub mod latency;
pub mod patch;
pub mod sweep;

pub use compare::{compare, compare_reports, run_variant, run_variant_logged, variants, Comparison, Row};
pub use sweep::{check_sweep_cost, parse_values, sweep, sweep_by, SweepPoint};
pub use hist::Histogram;
pub use patch::{apply, apply_at, parse_assignment, Assignment};
