//! The worker's side: the host that drives the core for the timeline, and the measuring of
//! whole runs (exports, A/B, histograms, sweeps). Pure Rust but for `endpoint` (the Web
//! Worker itself, wasm32 only); it speaks `wire` and never imports `page` or `draw`.

pub mod host;
pub mod measure;

#[cfg(target_arch = "wasm32")]
pub mod endpoint;
