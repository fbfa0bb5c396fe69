//! The Yew UI (wasm32 only): a scenario picker, the URL fragment of contract §3, and the report.

use std::rc::Rc;

use fairground_sim::Report;
use gloo::events::EventListener;
use gloo::net::http::Request;
use wasm_bindgen::JsValue;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use crate::logic::{self, IndexEntry, Route, DEFAULT_STEM};
use crate::runner;

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

/// What is shown below the picker: the result of opening one fragment.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Opened {
    /// The shipped scenario shown (for the picker), if it is one.
    stem: Option<String>,
    title: Option<String>,
    description: Option<String>,
    /// Readable problems: with the fragment, the fetch, or the scenario itself.
    errors: Vec<String>,
    report: Option<Rc<Report>>,
}

pub enum Msg {
    IndexLoaded(Result<Vec<IndexEntry>, String>),
    HashChanged,
    Opened(u32, Opened),
    Pick(String),
}

pub struct App {
    /// `static/scenarios/index.json`; `None` until it has been fetched (or has failed).
    index: Option<Result<Vec<IndexEntry>, String>>,
    /// Bumped at each load, so that a slow earlier load cannot overwrite a newer one.
    generation: u32,
    loading: bool,
    opened: Opened,
    picker: NodeRef,
    _hashchange: Option<EventListener>,
}

impl Component for App {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        let hashchange = web_sys::window().map(|w| {
            let link = ctx.link().clone();
            EventListener::new(&w, "hashchange", move |_| link.send_message(Msg::HashChanged))
        });
        ctx.link().send_future(async {
            let index = fetch_text(&format!("{}/index.json", logic::SCENARIO_DIR))
                .await
                .and_then(|t| logic::parse_index(&t));
            Msg::IndexLoaded(index)
        });
        App {
            index: None,
            generation: 0,
            loading: true,
            opened: Opened::default(),
            picker: NodeRef::default(),
            _hashchange: hashchange,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::IndexLoaded(index) => {
                self.index = Some(index);
                self.open_current(ctx);
                true
            }
            Msg::HashChanged => {
                if self.index.is_some() {
                    self.open_current(ctx);
                }
                true
            }
            Msg::Opened(generation, opened) => {
                if generation != self.generation {
                    return false;
                }
                self.loading = false;
                self.opened = opened;
                true
            }
            Msg::Pick(stem) => {
                // Changing the fragment fires `hashchange`, which opens the scenario: one path
                // for the picker, typed URLs and the back button alike.
                if let Some(w) = web_sys::window() {
                    let _ = w.location().set_hash(&format!("scenario={stem}"));
                }
                false
            }
        }
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        // Keep the picker showing the scenario on screen, whatever the user did with it.
        if let Some(sel) = self.picker.cast::<HtmlSelectElement>() {
            sel.set_value(self.opened.stem.as_deref().unwrap_or(""));
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let onchange = ctx.link().callback(|e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            Msg::Pick(sel.value())
        });
        let entries: Vec<IndexEntry> = match &self.index {
            Some(Ok(ix)) => ix.clone(),
            _ => vec![IndexEntry { stem: DEFAULT_STEM.into(), name: None, description: None }],
        };
        let in_list = |s: &str| entries.iter().any(|e| e.stem == s);
        let mut errors: Vec<String> = Vec::new();
        if let Some(Err(e)) = &self.index {
            errors.push(e.clone());
        }
        errors.extend(self.opened.errors.iter().cloned());
        let o = &self.opened;
        html! {
            <>
            <header class="top">
                <h1>{ "Fairground" }</h1>
                <p class="tagline">{ "The Linux fair scheduler (CFS, latency nice, EEVDF), simulated in your browser." }</p>
            </header>
            <main>
                <section class="controls">
                    <label for="scenario-picker">{ "Scenario" }</label>
                    <select id="scenario-picker" ref={self.picker.clone()} {onchange}>
                        if o.stem.as_deref().map_or(true, |s| !in_list(s)) {
                            <option value="" disabled=true>{ "— shared or custom scenario —" }</option>
                        }
                        { for entries.iter().map(|e| html! {
                            <option value={e.stem.clone()}>{ e.label() }</option>
                        }) }
                    </select>
                    if self.loading {
                        <span id="status" class="status">{ "Loading…" }</span>
                    }
                </section>
                if !errors.is_empty() {
                    <div id="error" class="error" role="alert">
                        { for errors.iter().map(|e| html! { <p>{ e }</p> }) }
                    </div>
                }
                <section id="scenario" data-stem={o.stem.clone().unwrap_or_default()}>
                    if let Some(t) = &o.title {
                        <h2 id="scenario-title">{ t }</h2>
                    }
                    if let Some(d) = &o.description {
                        <div class="description">{ view_markdown(d) }</div>
                    }
                </section>
                if let Some(r) = &o.report {
                    { view_report(r) }
                }
            </main>
            <footer>
                <p>{ "Fairground · Licence: GPL-2.0 · Runs entirely in your browser." }</p>
            </footer>
            </>
        }
    }
}

impl App {
    fn open_current(&mut self, ctx: &Context<Self>) {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        let mut route = logic::parse_fragment(&hash);
        if route == Route::Default {
            // Make the URL say what is shown, without adding a history entry.
            if let Some(w) = web_sys::window() {
                if let Ok(h) = w.history() {
                    let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#scenario={DEFAULT_STEM}")));
                }
            }
            route = Route::Scenario(DEFAULT_STEM.into());
        }
        let index = match &self.index {
            Some(Ok(ix)) => Some(ix.clone()),
            _ => None,
        };
        self.generation = self.generation.wrapping_add(1);
        self.loading = true;
        let generation = self.generation;
        ctx.link().send_future(async move { Msg::Opened(generation, open(route, index).await) });
    }
}

/// Open what a fragment asks for. A fragment that cannot be used leaves an error and opens the
/// default scenario instead (contract §3: the app stays usable with its default scenario).
async fn open(route: Route, index: Option<Vec<IndexEntry>>) -> Opened {
    let default_entry = index_entry(&index, DEFAULT_STEM);
    match route {
        Route::Default => open_stem(DEFAULT_STEM, default_entry).await,
        Route::Invalid(why) => fallback(format!("{}.", capitalize(&why)), default_entry).await,
        Route::Scenario(stem) => {
            let known = index.as_ref().map_or(true, |ix| ix.iter().any(|e| e.stem == stem));
            if !known {
                let why = format!("There is no shipped scenario named \"{stem}\".");
                return fallback(why, default_entry).await;
            }
            let o = open_stem(&stem, index_entry(&index, &stem)).await;
            if o.report.is_none() && stem != DEFAULT_STEM {
                // Not fetched, or refused: name the problem and show the default instead.
                return fallback(o.errors.join(" "), default_entry).await;
            }
            o
        }
        Route::Shared(data) => match logic::decode_share(&data) {
            Err(why) => fallback(format!("{}.", capitalize(&why)), default_entry).await,
            Ok(text) => {
                let (title, description) = logic::scenario_heading(&text);
                let title = title.unwrap_or_else(|| "Shared scenario".into());
                match runner::run(&text) {
                    Ok(r) => Opened {
                        stem: None,
                        title: Some(title),
                        description,
                        errors: vec![],
                        report: Some(Rc::new(r)),
                    },
                    Err(e) => {
                        let why = format!("The shared scenario \"{title}\" was not run: {}.", e.trim_end_matches('.'));
                        fallback(why, default_entry).await
                    }
                }
            }
        },
    }
}

/// Show the default scenario, after `why` (which names the problem).
async fn fallback(why: String, default_entry: Option<IndexEntry>) -> Opened {
    let mut errors = vec![format!("{why} Showing the default scenario \"{DEFAULT_STEM}\" instead.")];
    let mut o = open_stem(DEFAULT_STEM, default_entry).await;
    errors.append(&mut o.errors);
    o.errors = errors;
    o
}

fn index_entry(index: &Option<Vec<IndexEntry>>, stem: &str) -> Option<IndexEntry> {
    index.as_ref().and_then(|ix| ix.iter().find(|e| e.stem == stem).cloned())
}

async fn open_stem(stem: &str, entry: Option<IndexEntry>) -> Opened {
    let mut o = Opened { stem: Some(stem.to_string()), ..Opened::default() };
    let url = logic::scenario_url(stem);
    let text = match fetch_text(&url).await {
        Ok(t) => t,
        Err(e) => {
            o.errors.push(format!("Could not load the scenario \"{stem}\" ({url}): {e}."));
            return o;
        }
    };
    let (title, description) = logic::scenario_heading(&text);
    let entry_name = entry.as_ref().and_then(|e| e.name.clone());
    let entry_desc = entry.as_ref().and_then(|e| e.description.clone());
    o.title = Some(title.or(entry_name).unwrap_or_else(|| stem.to_string()));
    o.description = description.or(entry_desc);
    match runner::run(&text) {
        Ok(r) => o.report = Some(Rc::new(r)),
        Err(e) => {
            let name = o.title.as_deref().unwrap_or(stem);
            o.errors.push(format!("The scenario \"{name}\" ({stem}) was not run: {}.", e.trim_end_matches('.')));
        }
    }
    o
}

async fn fetch_text(url: &str) -> Result<String, String> {
    let resp = Request::get(url).send().await.map_err(|e| format!("network error: {e}"))?;
    if !resp.ok() {
        return Err(format!("HTTP {} {}", resp.status(), resp.status_text()));
    }
    resp.text().await.map_err(|e| format!("could not read the response: {e}"))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn view_markdown(text: &str) -> Html {
    use logic::Inline;
    html! {
        { for logic::markdown_lite(text).into_iter().map(|p| html! {
            <p>{ for p.into_iter().map(|i| match i {
                Inline::Text(t) => html! { { t } },
                Inline::Strong(t) => html! { <strong>{ t }</strong> },
                Inline::Em(t) => html! { <em>{ t }</em> },
                Inline::Code(t) => html! { <code>{ t }</code> },
            }) }</p>
        }) }
    }
}

fn view_report(r: &Report) -> Html {
    let effective: Vec<(String, String)> = match serde_json::to_value(&r.effective) {
        Ok(serde_json::Value::Object(m)) => m
            .into_iter()
            .map(|(k, v)| {
                let shown = match v.as_u64() {
                    Some(ns) if k.ends_with("_ns") => format!("{} ({} ns)", logic::fmt_ms(ns), logic::fmt_int(ns)),
                    _ => v.to_string(),
                };
                (k, shown)
            })
            .collect(),
        _ => vec![],
    };
    html! {
        <section id="report">
            <dl class="summary">
                <div><dt>{ "Scenario" }</dt><dd id="report-scenario">{ &r.scenario }</dd></div>
                <div><dt>{ "Policy" }</dt><dd id="policy">{ r.policy }</dd></div>
                <div><dt>{ "Duration" }</dt><dd id="duration">{ logic::fmt_ms(r.duration_ns) }</dd></div>
                <div><dt>{ "Events" }</dt><dd id="events">{ logic::fmt_int(r.events) }</dd></div>
                <div><dt>{ "Seed" }</dt><dd id="seed">{ r.seed }</dd></div>
            </dl>
            <h3>{ "Effective tunables" }</h3>
            <table id="effective" class="kv">
                <tbody>
                    { for effective.iter().map(|(k, v)| html! { <tr><th scope="row"><code>{ k }</code></th><td>{ v }</td></tr> }) }
                </tbody>
            </table>
            <h3>{ "Warnings" }</h3>
            if r.warnings.is_empty() {
                <p id="warnings" class="none">{ "None." }</p>
            } else {
                <ul id="warnings">{ for r.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
            }
            <h3>{ "Tasks" }</h3>
            <div class="table-wrap">
            <table id="tasks-table" data-tasks={r.tasks.len().to_string()}>
                <thead>
                    <tr>
                        <th rowspan="2">{ "Task" }</th>
                        <th rowspan="2" class="num">{ "CPU share (%)" }</th>
                        <th rowspan="2" class="num">{ "Wakeups" }</th>
                        <th rowspan="2" class="num">{ "Switches" }</th>
                        <th rowspan="2" class="num">{ "Involuntary" }</th>
                        <th colspan="4" class="group">{ "Wakeup latency (µs)" }</th>
                    </tr>
                    <tr>
                        <th class="num">{ "p50" }</th><th class="num">{ "p90" }</th>
                        <th class="num">{ "p99" }</th><th class="num">{ "max" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for r.tasks.iter().map(|t| {
                        let pct = logic::fmt_pct(t.share);
                        let width = format!("width: {}%", if t.share.is_finite() { (t.share * 100.0).clamp(0.0, 100.0) } else { 0.0 });
                        let l = &t.wakeup_latency_ns;
                        html! {
                            <tr>
                                <td class="name">{ &t.name }</td>
                                <td class="num share"><span class="bar" style={width}></span><span class="val">{ pct }</span></td>
                                <td class="num">{ logic::fmt_int(t.wakeups) }</td>
                                <td class="num">{ logic::fmt_int(t.switches) }</td>
                                <td class="num">{ logic::fmt_int(t.involuntary) }</td>
                                <td class="num">{ logic::fmt_us(l.p50) }</td>
                                <td class="num">{ logic::fmt_us(l.p90) }</td>
                                <td class="num">{ logic::fmt_us(l.p99) }</td>
                                <td class="num">{ logic::fmt_us(l.max) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            </div>
        </section>
    }
}
