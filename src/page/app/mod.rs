//! The page (wasm32 only): opens the fragment's scenario, drives the simulation worker with
//! the transport, keeps the slices for the timeline, and records edits in the scenario. It
//! holds no scheduling logic: every figure comes from the worker. Views are in `page/view.rs`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use gloo::worker::{Spawnable, WorkerBridge};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, KeyboardEvent};
use yew::prelude::*;

use crate::draw::format;
use crate::draw::lod::Store;
use crate::draw::timeline::StoreRef;
use crate::page::logic::{self, IndexEntry, Route, DEFAULT_STEM};
use crate::page::open::{self, Opened};
use crate::page::storage;
use crate::page::worker_pool::{RemoteSim, WORKER_JS};
use crate::wire::proto::{Input, Output, Progress, RunInfo};

mod actions;
mod run;
mod saving;
mod slides;
pub(crate) mod teach;

/// A request unanswered for this long means the worker is gone (answers take ~40 ms).
const WATCHDOG_MS: f64 = 15_000.0;
/// Simulated time per second of wall time; the last entry runs as fast as the worker can.
pub const SPEEDS: [(&str, f64); 8] = [
    ("10 µs/s", 1e4),
    ("100 µs/s", 1e5),
    ("1 ms/s", 1e6),
    ("10 ms/s", 1e7),
    ("100 ms/s", 1e8),
    ("1 s/s (real time)", 1e9),
    ("10 s/s", 1e10),
    ("as fast as possible", f64::INFINITY),
];
const DEFAULT_SPEED: usize = 3;

pub fn start() {
    install_panic_hook();
    yew::Renderer::<App>::new().render();
}

/// A panic cannot be caught in wasm (it aborts), so at least say so on the page instead of
/// leaving it silently frozen.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let text = format!("Internal error: {info}. Reload the page to continue.");
        web_sys::console::error_1(&JsValue::from_str(&text));
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let el = match doc.get_element_by_id("error") {
            Some(el) => Some(el),
            None => doc.create_element("div").ok().and_then(|el| {
                el.set_id("error");
                el.set_attribute("role", "alert").ok();
                doc.body()?.prepend_with_node_1(&el).ok()?;
                Some(el)
            }),
        };
        if let Some(el) = el {
            el.set_text_content(Some(&text));
        }
    }));
}

/// Where a scenario text being loaded came from: a refusal of a fragment's scenario falls back
/// to the default one; a refusal after a change in the scheduler panel keeps the user's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Origin {
    Fragment,
    Panel,
    Restart,
}

pub enum Msg {
    IndexLoaded(Result<Vec<IndexEntry>, String>),
    HashChanged,
    Opened(u32, Opened),
    Pick(String),
    Worker(u32, Output),
    Frame,
    Key(KeyboardEvent),
    // Transport.
    PlayPause,
    StepTick,
    StepBackTick,
    StepEvent,
    StepBackEvent,
    ToStart,
    ToEnd,
    Scrub(u64),
    Speed(usize),
    // Timeline.
    Window((f64, f64)),
    Select(Option<u32>),
    // Edits.
    EditTask(String, &'static str, String),
    Policy(String),
    Setting(&'static str, &'static str, Option<serde_json::Value>),
    Share,
    DiscardEdits,
    Help(bool),
    CrashWorker,
    /// Testing: have the worker stop the run as the core stops a runaway, at 50 ms.
    TestRunaway,
    Dismiss,
    /// Another tab changed a saved experiment (`storage` event): the key and its new value.
    StorageChanged(String, Option<String>),
    /// Saved edits that no longer open: download them, or discard them.
    DownloadSaved,
    DiscardSaved,
    // Inside the scheduler: the trees, decision log and key chart panels.
    Ask(crate::wire::insight::Ask),
    PickSlice(Option<(u32, u64)>),
    /// Lessons, exercises, presenter mode, group weights (`app/teach.rs`).
    Teach(teach::TeachMsg),
}

/// Callbacks made once, so that the components given them see equal props between renders.
pub(crate) struct Callbacks {
    pub select: Callback<Option<u32>>,
    pub window: Callback<(f64, f64)>,
    pub edit: Callback<(String, &'static str, String)>,
    pub policy: Callback<String>,
    pub setting: Callback<(&'static str, &'static str, Option<serde_json::Value>)>,
    pub ask: Callback<crate::wire::insight::Ask>,
    pub seek: Callback<u64>,
    pub pick: Callback<(u32, u64)>,
    pub unpick: Callback<()>,
}

pub struct App {
    pub(crate) cb: Callbacks,
    pub(crate) index: Option<Result<Vec<IndexEntry>, String>>,
    /// Bumped at each open, so that a slow earlier open cannot overwrite a newer one.
    generation: u32,
    pub(crate) loading: bool,
    pub(crate) opened: Opened,
    pub(crate) picker: NodeRef,
    /// The scenario being run, as plain JSON after the worker's first answer (edits included).
    pub(crate) text: Option<String>,
    origin: Origin,
    /// Scheduler-panel or load refusal, shown beside the panel.
    pub(crate) sched_error: Option<String>,
    pub(crate) notice: Option<String>,
    pub(crate) restored: bool,
    /// The scenario as opened (plain JSON), before any edit; None when it was restored.
    pristine: Option<String>,
    pub(crate) edit_error: Option<String>,
    /// This tab's id, written with each save so another tab's writes can be told apart.
    tab: String,
    /// Saved edits that could not be opened (the core refused them, or they cannot be read):
    /// the reason, and the text to offer for download.
    pub(crate) saved_error: Option<(String, String)>,
    /// The fragment's own scenario, before saved edits replaced it (opened instead of saved
    /// edits that no longer open).
    fragment_text: Option<String>,
    /// The core stopped the run and cannot go further: what to say.
    pub(crate) run_stopped: Option<String>,
    _storage: Option<EventListener>,

    bridge: Option<WorkerBridge<RemoteSim>>,
    worker_gen: u32,
    in_flight: Option<f64>,
    /// Whether the request in flight is a Load (a crash there is not retried).
    sent_load: bool,
    /// The time the worker last crashed at.
    last_crash_ns: Option<u64>,
    queue: VecDeque<Input>,
    pub(crate) restarts: u32,

    pub(crate) info: Option<Rc<RunInfo>>,
    pub(crate) progress: Rc<Progress>,
    pub(crate) running: Rc<Vec<(u32, u64, u8)>>,
    pub(crate) store: StoreRef,
    pub(crate) store_version: u64,
    /// Where to go once loaded (a restored view), and where a seek is heading.
    resume_ns: Option<u64>,
    /// The start page is shown (the page was opened without a fragment).
    pub(crate) start: bool,
    pub(crate) goal: Option<u64>,
    pub(crate) playing: bool,
    last_frame: f64,
    pub(crate) speed: usize,
    pub(crate) win: (f64, f64),
    pub(crate) selected: Option<u32>,
    pub(crate) help: bool,
    pub(crate) share_link: Option<String>,
    /// Events per second the worker runs at, over at least 50 ms of its work (or the last
    /// warm-up's).
    pub(crate) rate: Option<f64>,
    rate_acc: (u64, f64),
    /// Warm-up rounds still to ask for, unless the user plays or seeks (`WARM_UP_ROUNDS`).
    warm_rounds: u32,
    /// Inside the scheduler (trees, decision log, key chart): what the panels ask, the worker's
    /// last answer for them, and the timeline point clicked for "why did this run?".
    pub(crate) ask: crate::wire::insight::Ask,
    pub(crate) insight: Rc<Option<Box<crate::wire::insight::Insight>>>,
    pub(crate) picked: Option<(u32, u64)>,
    pub(crate) teach: teach::Teach,
    _hashchange: Option<EventListener>,
    /// The fragment the page itself put in the URL (an empty one becomes the default
    /// scenario's), so that a hashchange event still queued from before does not open it
    /// again as if the user had (that cleared the start page when the index arrived between
    /// a navigation to `#` and its event).
    own_hash: Option<String>,
    /// The address the run shown was opened from: work is saved under it, never under an
    /// address the page is still opening (its scenario is fetched meanwhile).
    pub(crate) run_hash: String,
    _keydown: Option<EventListener>,
    _frames: Interval,
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let window = web_sys::window();
        let hashchange = window.as_ref().map(|w| {
            let link = ctx.link().clone();
            EventListener::new(w, "hashchange", move |_| link.send_message(Msg::HashChanged))
        });
        let keydown = window.as_ref().and_then(|w| w.document()).map(|d| {
            let link = ctx.link().clone();
            // Not passive: a key the page handles must not also do the browser's default
            // (PageDown from a clicker scrolling the projector away, Space clicking a button).
            let opts = gloo::events::EventListenerOptions::enable_prevent_default();
            EventListener::new_with_options(&d, "keydown", opts, move |e| {
                if let Some(k) = e.dyn_ref::<KeyboardEvent>() {
                    if wants_key(k) {
                        e.prevent_default();
                        link.send_message(Msg::Key(k.clone()));
                    } else if k.key() == "Escape" {
                        // Escape leaves a field, so the shortcuts work again.
                        if let Some(el) = k.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
                            let _ = el.blur();
                        }
                    }
                }
            })
        });
        let frames = {
            let link = ctx.link().clone();
            Interval::new(33, move || link.send_message(Msg::Frame))
        };
        let storage_listener = window.as_ref().map(|w| {
            let link = ctx.link().clone();
            EventListener::new(w, "storage", move |e| {
                if let Some(e) = e.dyn_ref::<web_sys::StorageEvent>() {
                    if let Some(key) = e.key() {
                        link.send_message(Msg::StorageChanged(key, e.new_value()));
                    }
                }
            })
        });
        ctx.link().send_future(async {
            let index = open::fetch_text(&format!("{}/index.json", logic::SCENARIO_DIR))
                .await
                .and_then(|t| logic::parse_index(&t));
            Msg::IndexLoaded(index)
        });
        let link = ctx.link();
        let cb = Callbacks {
            select: link.callback(Msg::Select),
            window: link.callback(Msg::Window),
            edit: link.callback(|(t, f, v)| Msg::EditTask(t, f, v)),
            policy: link.callback(Msg::Policy),
            setting: link.callback(|(s, k, v)| Msg::Setting(s, k, v)),
            ask: link.callback(Msg::Ask),
            seek: link.callback(Msg::Scrub),
            pick: link.callback(|p| Msg::PickSlice(Some(p))),
            unpick: link.callback(|_| Msg::PickSlice(None)),
        };
        let mut app = App {
            cb,
            index: None,
            generation: 0,
            loading: true,
            opened: Opened::default(),
            picker: NodeRef::default(),
            text: None,
            origin: Origin::Fragment,
            sched_error: None,
            notice: None,
            restored: false,
            pristine: None,
            edit_error: None,
            tab: storage::tab_id(),
            saved_error: None,
            fragment_text: None,
            run_stopped: None,
            _storage: storage_listener,
            bridge: None,
            worker_gen: 0,
            in_flight: None,
            sent_load: false,
            last_crash_ns: None,
            queue: VecDeque::new(),
            restarts: 0,
            info: None,
            progress: Rc::new(Progress::default()),
            running: Rc::new(Vec::new()),
            store: StoreRef(Rc::new(RefCell::new(Store::new(0)))),
            store_version: 0,
            resume_ns: None,
            start: false,
            goal: None,
            playing: false,
            last_frame: 0.0,
            speed: DEFAULT_SPEED,
            win: (0.0, 1e8),
            selected: None,
            help: false,
            share_link: None,
            rate: None,
            rate_acc: (0, 0.0),
            warm_rounds: 0,
            ask: Default::default(),
            insight: Rc::new(None),
            picked: None,
            teach: teach::Teach::default(),
            _hashchange: hashchange,
            own_hash: None,
            run_hash: String::new(),
            _keydown: keydown,
            _frames: frames,
        };
        app.spawn_worker(ctx);
        app
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::IndexLoaded(index) => {
                self.index = Some(index);
                self.open_current(ctx);
            }
            Msg::HashChanged => {
                if self.own_hash.take().is_some_and(|h| h == current_hash()) {
                    return false;
                }
                self.saved_error = None;
                if self.index.is_some() {
                    self.open_current(ctx);
                }
            }
            Msg::Opened(generation, mut opened) => {
                if generation != self.generation {
                    return false;
                }
                self.restored = false;
                self.notice = None;
                self.share_link = None;
                self.run_stopped = None;
                self.restore_saved(&mut opened);
                let text = opened.text.clone();
                self.opened = opened;
                match text {
                    Some(t) => self.load(ctx, t, Origin::Fragment),
                    None => self.loading = false,
                }
            }
            Msg::Pick(stem) => {
                // Changing the fragment fires `hashchange`, which opens the scenario: one path
                // for the picker, typed URLs and the back button alike.
                if let Some(w) = web_sys::window() {
                    let _ = w.location().set_hash(&format!("scenario={stem}"));
                }
                return false;
            }
            Msg::Worker(gen, out) => {
                if gen != self.worker_gen {
                    return false;
                }
                self.in_flight = None;
                self.on_output(ctx, out);
                self.pump(ctx);
            }
            Msg::Frame => {
                self.teach_frame(ctx);
                return self.frame(ctx);
            }
            Msg::Teach(m) => return self.teach_update(ctx, m),
            Msg::Key(k) => return self.key(ctx, k),
            Msg::PlayPause => {
                if self.progress.finished && !self.playing {
                    return false;
                }
                self.playing = !self.playing;
                self.goal = None;
                self.last_frame = now_ms();
                if !self.playing {
                    self.save_view();
                }
            }
            Msg::StepTick => {
                let tick = self.info.as_ref().map_or(4_000_000, |i| i.tick_ns);
                self.seek(ctx, format::next_tick(self.progress.view_ns, tick));
            }
            Msg::StepBackTick => {
                let tick = self.info.as_ref().map_or(4_000_000, |i| i.tick_ns);
                self.seek(ctx, format::prev_tick(self.progress.view_ns, tick));
            }
            Msg::StepEvent => {
                self.playing = false;
                self.request(ctx, Input::StepInstant);
            }
            Msg::StepBackEvent => {
                self.playing = false;
                self.request(ctx, Input::StepBackInstant);
            }
            Msg::ToStart => self.seek(ctx, 0),
            Msg::ToEnd => self.seek(ctx, u64::MAX),
            Msg::Scrub(t) => self.seek(ctx, t),
            Msg::Speed(i) => self.speed = i.min(SPEEDS.len() - 1),
            Msg::Window((t0, span)) => {
                let d = self.info.as_ref().map_or(1, |i| i.duration_ns);
                self.win = format::clamp_window(t0, span, d);
            }
            Msg::Select(t) => self.selected = t,
            Msg::EditTask(task, field, value) => self.edit_task(ctx, task, field, &value),
            Msg::Policy(p) => self.change_settings(ctx, |doc| crate::wire::settings::set_policy(doc, &p)),
            Msg::Setting(sect, key, v) => self.change_settings(ctx, |doc| crate::wire::settings::set(doc, sect, key, v)),
            Msg::Share => self.share(),
            Msg::DiscardEdits => {
                // The edits of the run shown, even while the address already names the next.
                storage::clear(&self.run_hash);
                self.restored = false;
                self.open_current(ctx);
            }
            Msg::StorageChanged(key, value) => return self.storage_changed(&key, value.as_deref()),
            Msg::DownloadSaved => self.download_saved(),
            Msg::DiscardSaved => {
                storage::clear(&current_hash());
                self.saved_error = None;
                self.open_current(ctx);
            }
            Msg::Help(on) => self.help = on,
            Msg::CrashWorker => {
                self.request(ctx, Input::Crash);
            }
            Msg::TestRunaway => {
                self.request(ctx, Input::TestRunaway { at_ns: 50_000_000 });
            }
            Msg::Dismiss => {
                self.notice = None;
                self.edit_error = None;
            }
            Msg::Ask(ask) => self.ask_insight(ctx, ask),
            Msg::PickSlice(p) => self.picked = p,
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        match self.teach.scroll_to.take() {
            Some((id, teach::ScrollBy::End)) => crate::page::panels::scroll_to_end(&id),
            Some((id, teach::ScrollBy::Start)) => crate::page::panels::scroll_to(&id),
            None => {}
        }
        // Keep the picker showing the scenario on screen, whatever the user did with it.
        if let Some(sel) = self.picker.cast::<HtmlSelectElement>() {
            sel.set_value(self.opened.stem.as_deref().unwrap_or(""));
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        self.view_page(ctx)
    }
}

/// Keys the page handles (not while typing in a field).
fn wants_key(k: &KeyboardEvent) -> bool {
    if k.ctrl_key() || k.meta_key() || k.alt_key() {
        return false;
    }
    let typing = k.target().is_some_and(|t| {
        t.dyn_ref::<HtmlInputElement>().is_some_and(|i| i.type_() != "range")
            || t.dyn_ref::<HtmlTextAreaElement>().is_some()
            || t.dyn_ref::<HtmlSelectElement>().is_some()
    });
    if typing {
        return false;
    }
    matches!(
        key_of(k).as_str(),
        " " | "ArrowLeft" | "ArrowRight" | "." | "," | "Home" | "End" | "[" | "]" | "w" | "s" | "a" | "d" | "0" | "?" | "Escape" | "l"
            // Lessons and presenting (app/teach.rs).
            | "PageDown" | "PageUp" | "n" | "b" | "p" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9"
    )
}

/// The key as the shortcuts name it: a letter in lower case whatever Shift or Caps Lock say
/// (Shift with the arrows keeps its own meaning: they are not letters).
pub(crate) fn key_of(k: &KeyboardEvent) -> String {
    let key = k.key();
    if key.chars().count() == 1 && key.chars().all(|c| c.is_ascii_alphabetic()) {
        key.to_ascii_lowercase()
    } else {
        key
    }
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or_else(js_sys::Date::now, |p| p.now())
}

pub fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}
