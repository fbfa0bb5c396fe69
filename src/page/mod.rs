//! The page's side (main thread): the shell (`app`, `view`), opening fragments, links and
//! files, keeping edits, the transport to the workers, and the panels. Speaks `wire` to the
//! worker and draws with `draw`; never imports `worker`. Only `logic`, `links`, `rows`, `saved`
//! and `file_kind` are pure and build natively; the rest is wasm32-only.

pub mod file_kind;
pub mod links;
pub mod logic;
pub mod rows;
pub mod saved;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
mod export_web;
#[cfg(target_arch = "wasm32")]
mod open;
#[cfg(target_arch = "wasm32")]
mod open_file;
#[cfg(target_arch = "wasm32")]
mod panels;
#[cfg(target_arch = "wasm32")]
mod real_trace;
#[cfg(target_arch = "wasm32")]
mod storage;
#[cfg(target_arch = "wasm32")]
mod view;
#[cfg(target_arch = "wasm32")]
mod worker_pool;
