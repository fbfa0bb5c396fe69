//! Fairground web app, the import worker: see `worker/import/endpoint.rs` in the library. A
//! bundle of its own, spawned only when "Open file…" is given an rt-app file or a trace.

#[cfg(target_arch = "wasm32")]
fn main() {
    fairground_app::worker::import::endpoint::register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fairground-import is the web app's import worker: build the app with `trunk build --release`.");
    std::process::exit(2);
}
