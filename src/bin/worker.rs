//! Fairground web app, the simulation worker: see `worker/endpoint.rs` in the library.

#[cfg(target_arch = "wasm32")]
fn main() {
    fairground_app::worker::endpoint::register();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("fairground-worker is the web app's Web Worker: build the app with `trunk build --release`.");
    std::process::exit(2);
}
