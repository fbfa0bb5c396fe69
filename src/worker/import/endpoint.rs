//! The import worker (gloo-worker, bundle `fairground-import`): receives a file's text, has
//! `import` make it a scenario, and answers. A panic cannot be caught (wasm aborts), so the
//! panic hook first tells the page, which drops this worker and keeps what it had on screen.

use std::cell::RefCell;

use gloo::worker::{HandlerId, Registrable, Worker, WorkerScope};

use crate::wire::import::{ImportInput, ImportOutput};

thread_local! {
    /// Where to report a panic: the scope and the last requester.
    static REPORT_TO: RefCell<Option<(WorkerScope<ImportWorker>, HandlerId)>> = const { RefCell::new(None) };
}

pub fn register() {
    crate::worker::swallow_traps();
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("fairground import worker: {message}").into());
        REPORT_TO.with(|r| {
            if let Ok(r) = r.try_borrow() {
                if let Some((scope, id)) = r.as_ref() {
                    scope.respond(*id, ImportOutput::Crashed { message });
                }
            }
        });
    }));
    ImportWorker::registrar().register();
}

pub struct ImportWorker;

impl Worker for ImportWorker {
    type Message = ();
    type Input = ImportInput;
    type Output = ImportOutput;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        ImportWorker
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn received(&mut self, scope: &WorkerScope<Self>, msg: ImportInput, id: HandlerId) {
        REPORT_TO.with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                *r = Some((scope.clone(), id));
            }
        });
        scope.respond(id, super::answer(msg, &js_sys::Date::now));
    }
}
