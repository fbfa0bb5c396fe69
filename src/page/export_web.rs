//! Browser side of the exports (wasm32 only): saving a file the worker produced, and handing a
//! trace to the Perfetto UI through its documented postMessage protocol ("Deep linking to the
//! Perfetto UI": open ui.perfetto.dev, post 'PING' until it answers 'PONG', then post
//! `{ perfetto: { buffer, title, fileName } }`). Nothing here computes anything.

use gloo::events::EventListener;
use gloo::file::{Blob, ObjectUrl};
use gloo::timers::callback::Interval;
use js_sys::{Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

pub const PERFETTO_ORIGIN: &str = "https://ui.perfetto.dev";

/// Save `href` (an object URL or a data URL) as a file called `name`, through a hidden link.
pub fn save_href(href: &str, name: &str) -> Result<(), String> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document to download from")?;
    let body = doc.body().ok_or("no page body to download from")?;
    let a = doc.create_element("a").map_err(|_| "the browser refused to create a link")?;
    a.set_attribute("href", href).map_err(|_| "the download link could not be set")?;
    a.set_attribute("download", name).map_err(|_| "the download name could not be set")?;
    a.set_attribute("hidden", "").ok();
    body.append_child(&a).map_err(|_| "the download link could not be added")?;
    if let Some(el) = a.dyn_ref::<web_sys::HtmlElement>() {
        el.click();
    }
    a.remove();
    Ok(())
}

/// Save what a canvas shows as a PNG file.
pub fn save_canvas_png(canvas: &yew::NodeRef, name: &str) -> Result<(), String> {
    let url = canvas.cast::<web_sys::HtmlCanvasElement>().and_then(|c| c.to_data_url().ok());
    save_href(&url.ok_or("the chart could not be read")?, name)
}

/// Save `body` as a file. The object URL is returned so that the caller keeps it alive until
/// the next download (revoking it at once could cancel a download the browser queued).
pub fn save_text(name: &str, mime: &str, body: &str) -> Result<ObjectUrl, String> {
    let url = ObjectUrl::from(Blob::new_with_options(body, Some(mime)));
    save_href(&url, name)?;
    Ok(url)
}

/// Save `bytes` as a file (a binary trace).
pub fn save_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<ObjectUrl, String> {
    let url = ObjectUrl::from(Blob::new_with_options(bytes, Some(mime)));
    save_href(&url, name)?;
    Ok(url)
}

/// A Perfetto tab being handed a trace: pings it until it answers, then posts the trace once
/// both the answer and the trace are there. Dropping it stops the pings and the listener.
pub struct Handoff {
    win: web_sys::Window,
    ready: bool,
    trace: Option<(String, String, Vec<u8>)>,
    pings: u32,
    _timer: Interval,
    _listener: EventListener,
}

/// What a ping found.
pub enum Ping {
    Waiting,
    Closed,
    GaveUp,
}

impl Handoff {
    pub const PING_MS: u32 = 250;
    /// 15 s: the UI, a few MB, loads in seconds on a working line; offline, the tab shows an
    /// error page that never answers, and the user is better told and offered the file.
    pub const MAX_PINGS: u32 = 60;

    /// Open the Perfetto UI in a new tab (call from a click, or the pop-up blocker stops it).
    /// `on_ping` is called every PING_MS, `on_pong` when the UI answers.
    pub fn open(on_ping: impl Fn() + 'static, on_pong: impl Fn() + 'static) -> Result<Handoff, String> {
        let w = web_sys::window().ok_or("no browser window")?;
        let win = match w.open_with_url_and_target(PERFETTO_ORIGIN, "_blank") {
            Ok(Some(win)) => win,
            _ => return Err("The browser did not open the Perfetto tab (a pop-up blocker?). Download the Perfetto trace instead and open it at ui.perfetto.dev.".into()),
        };
        let timer = Interval::new(Self::PING_MS, on_ping);
        let listener = EventListener::new(&w, "message", move |e| {
            let field = |k: &str| Reflect::get(e, &JsValue::from_str(k)).ok().and_then(|v| v.as_string());
            if field("origin").as_deref() == Some(PERFETTO_ORIGIN) && field("data").as_deref() == Some("PONG") {
                on_pong();
            }
        });
        Ok(Handoff { win, ready: false, trace: None, pings: 0, _timer: timer, _listener: listener })
    }

    pub fn ping(&mut self) -> Ping {
        if self.win.closed().unwrap_or(true) {
            return Ping::Closed;
        }
        self.pings += 1;
        if self.pings > Self::MAX_PINGS {
            return Ping::GaveUp;
        }
        if !self.ready {
            // Dropped while the tab still shows another origin (about:blank): that is the
            // point of pinging until it answers.
            let _ = self.win.post_message(&JsValue::from_str("PING"), PERFETTO_ORIGIN);
        }
        Ping::Waiting
    }

    pub fn pong(&mut self) {
        self.ready = true;
    }

    pub fn set_trace(&mut self, title: String, file_name: String, bytes: Vec<u8>) {
        self.trace = Some((title, file_name, bytes));
    }

    /// The trace, once the worker made it (to offer as a download when the UI never answers).
    pub fn take_trace(&mut self) -> Option<(String, Vec<u8>)> {
        self.trace.take().map(|(_, name, bytes)| (name, bytes))
    }

    /// Post the trace if the UI is ready and the trace is there; true once posted.
    pub fn try_post(&mut self) -> Result<bool, String> {
        let (true, Some((title, file_name, bytes))) = (self.ready, &self.trace) else { return Ok(false) };
        let buffer = Uint8Array::from(bytes.as_slice()).buffer();
        let inner = Object::new();
        let set = |o: &Object, k: &str, v: &JsValue| Reflect::set(o, &JsValue::from_str(k), v).map(|_| ());
        let msg = Object::new();
        set(&inner, "buffer", &buffer)
            .and_then(|_| set(&inner, "title", &JsValue::from_str(title)))
            .and_then(|_| set(&inner, "fileName", &JsValue::from_str(file_name)))
            .and_then(|_| set(&msg, "perfetto", &inner))
            .and_then(|_| self.win.post_message(&msg, PERFETTO_ORIGIN))
            .map_err(|_| "the trace could not be posted to the Perfetto tab".to_string())?;
        let _ = self.win.focus();
        Ok(true)
    }
}
