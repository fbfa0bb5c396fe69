//! Fairground web app, laid out by side of the Web Worker boundary (see docs/architecture.md):
//! `wire` is what travels between page and worker, `worker` drives the core, `page` is the
//! shell and its panels, `draw` turns answers into pixels. The page never imports the worker,
//! nor the worker the page or the drawing (tests/layout.rs checks it). The pure parts of every
//! room build natively, so `cargo test --workspace` tests them; the browser parts are wasm32-only.

// Natively only the tests use parts of the logic; the UI that calls them is wasm32-only.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

pub mod draw;
pub mod page;
pub mod wire;
pub mod worker;
