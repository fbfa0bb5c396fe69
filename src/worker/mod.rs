//! The worker's side: the host that drives the core for the timeline, the measuring of
//! whole runs (exports, A/B, histograms, sweeps), and the importing of other programs' files
//! (`import`, a worker and a bundle of its own). Pure Rust but for the endpoints (the Web
//! Workers themselves, wasm32 only); it speaks `wire` and never imports `page` or `draw`.

pub mod host;
pub mod import;
pub mod measure;

#[cfg(target_arch = "wasm32")]
pub mod endpoint;

/// After a panic a worker's wasm instance traps ("unreachable") on any later message. Each
/// worker's panic hook has told the page, which drops or replaces the worker, so the trap is
/// not left to surface as an uncaught error. A plain JS handler: nothing here calls back into
/// wasm.
#[cfg(target_arch = "wasm32")]
pub fn swallow_traps() {
    use wasm_bindgen::JsCast;
    let swallow = js_sys::Function::new_with_args("e", "e.preventDefault()");
    if let Ok(target) = js_sys::global().dyn_into::<web_sys::EventTarget>() {
        let _ = target.add_event_listener_with_callback("error", &swallow);
    }
}
