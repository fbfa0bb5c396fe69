//! Fairground web app, the page: see `lib.rs`. Built for the browser with `trunk build
//! --release` (see README.md); natively this binary only explains how to build it.

#[cfg(target_arch = "wasm32")]
fn main() {
    fairground_app::page::app::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fairground-app is a web app: build it with `trunk build --release` or run `bash scripts/serve.sh`.");
    std::process::exit(2);
}
