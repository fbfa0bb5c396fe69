//! The import worker (gloo-worker, bundle `fairground-import`): receives an rt-app file's text,
//! or a trace file's object URL whose bytes it fetches itself, has `import` make it a
//! scenario, and answers. A panic cannot be caught (wasm aborts), so the
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
        match msg {
            ImportInput::RtApp { text, policy } => scope.respond(id, super::answer_rtapp(&text, &policy, &js_sys::Date::now)),
            ImportInput::TraceFile { url, name, policy } => {
                let scope = scope.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let out = match fetch_bytes(&url).await {
                        Ok(data) => super::answer_trace(&data, &name, &policy, &js_sys::Date::now),
                        Err(message) => ImportOutput::Failed { message: format!("the file could not be read: {message}") },
                    };
                    scope.respond(id, out);
                });
            }
        }
    }
}

/// The bytes behind an object URL the page made of the chosen file: one copy, from the
/// browser's file into this worker's memory.
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let describe = |e: wasm_bindgen::JsValue| e.as_string().or_else(|| js_sys::Error::from(e).message().as_string()).unwrap_or_else(|| "the browser refused".into());
    let global: web_sys::WorkerGlobalScope = js_sys::global().dyn_into().map_err(|_| "not in a worker".to_string())?;
    let resp = JsFuture::from(global.fetch_with_str(url)).await.map_err(describe)?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "no response".to_string())?;
    let buf = JsFuture::from(resp.array_buffer().map_err(describe)?).await.map_err(describe)?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}
