//! The recorded trace last opened, kept with the address it opened as (wasm32 only): its own
//! run (`wire::real::RealTrace`), which "real beside simulated" sets against the model's replay
//! as long as the page shows that scenario. Kept here, page-wide, like the stored edits: the
//! file is opened in one component (`open_file`) and compared in another (the measure panel),
//! and going Back to the trace's address shows the comparison again.

use std::cell::RefCell;
use std::rc::Rc;

use crate::wire::real::RealTrace;

thread_local! {
    static KEPT: RefCell<Option<(String, Rc<RealTrace>)>> = const { RefCell::new(None) };
}

fn hash_now() -> Option<String> {
    web_sys::window().and_then(|w| w.location().hash().ok())
}

/// Keep `real` as the run of the scenario at `hash` ("#s=…"); the previous trace is dropped.
pub fn keep(hash: String, real: RealTrace) {
    KEPT.with(|k| *k.borrow_mut() = Some((hash, Rc::new(real))));
}

/// The real run of the scenario the address shows now, if it came from a trace.
pub fn for_current() -> Option<Rc<RealTrace>> {
    let now = hash_now()?;
    KEPT.with(|k| k.borrow().as_ref().filter(|(h, _)| *h == now).map(|(_, r)| r.clone()))
}
