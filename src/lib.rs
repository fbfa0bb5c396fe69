//! Fairground web app. The page (`app`, `timeline`) draws and asks; the simulation runs in a
//! Web Worker (`worker` wraps `host`, which drives the core). The pure parts (`logic`, `proto`,
//! `host`, `lod`, `palette`) build natively, so `cargo test --workspace` tests them.

// Natively only the tests use parts of the logic; the UI that calls them is wasm32-only.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

pub mod apng;
pub mod host;
pub mod insight;
pub mod links;
pub mod lod;
pub mod logic;
pub mod measure_host;
pub mod proto;
pub mod raster;
pub mod settings;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
mod groups;
#[cfg(target_arch = "wasm32")]
mod lesson_panel;
#[cfg(target_arch = "wasm32")]
mod ab_view;
#[cfg(target_arch = "wasm32")]
mod export_web;
#[cfg(target_arch = "wasm32")]
mod charts;
#[cfg(target_arch = "wasm32")]
mod open_file;
#[cfg(target_arch = "wasm32")]
mod sweep_panel;
#[cfg(target_arch = "wasm32")]
mod worker_pool;
#[cfg(target_arch = "wasm32")]
mod ab_charts;
#[cfg(target_arch = "wasm32")]
mod measure_panel;
#[cfg(target_arch = "wasm32")]
mod open;
#[cfg(target_arch = "wasm32")]
mod inside;
#[cfg(target_arch = "wasm32")]
mod keychart;
#[cfg(target_arch = "wasm32")]
mod trees;
#[cfg(target_arch = "wasm32")]
mod panels;
#[cfg(target_arch = "wasm32")]
mod storage;
#[cfg(target_arch = "wasm32")]
pub mod timeline;
#[cfg(target_arch = "wasm32")]
mod view;
#[cfg(target_arch = "wasm32")]
pub mod worker;
