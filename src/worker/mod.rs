//! The worker's side: the host that drives the core for the timeline, the measuring of
//! whole runs (exports, A/B, histograms, sweeps), and the importing of other programs' files
//! (`import`, a worker and a bundle of its own). Pure Rust but for the endpoints (the Web
//! Workers themselves, wasm32 only); it speaks `wire` and never imports `page` or `draw`.

pub mod host;
pub mod import;
pub mod measure;

#[cfg(target_arch = "wasm32")]
pub mod endpoint;
