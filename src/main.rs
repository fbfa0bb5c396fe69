//! Fairground web app: pick a scenario, run it in the browser, show the report.
//!
//! Built for the browser with `trunk build --release` (see README.md). The UI (`app`) only
//! exists for wasm32; natively this binary just explains how to build it, so that
//! `cargo test --workspace` can test the pure logic without a browser.

// Natively only the tests use the logic; the UI that calls it is wasm32-only.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

mod logic;
mod runner;

#[cfg(target_arch = "wasm32")]
mod app;

#[cfg(target_arch = "wasm32")]
fn main() {
    app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fairground-app is a web app: build it with `trunk build --release` or run `bash scripts/serve.sh`.");
    std::process::exit(2);
}
