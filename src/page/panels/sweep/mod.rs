//! The sweep panel (wasm32 only): run the scenario once per value of one parameter
//! (a task's or workload's latency nice or nice, the number of CPUs, a tunable, any path),
//! one point per request over a pool of workers, with a progress bar and Cancel, and plot the
//! chosen entity's figures against the value. The worker computes every figure.

use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::page::app::now_ms;
use crate::page::export_web::{save_canvas_png, save_text};
use crate::page::logic::{doc_of, entry_names};
use crate::page::worker_pool::{Answered, Pool};
use crate::wire::measure::{Answer, Request};
use crate::wire::proto::{Input, Output};
use crate::wire::settings::TUNABLES;
use crate::wire::sweep::{by_series, default_values, series, sweep_csv, value_label, SweepFigures, FIGURES, FIGURE_SETS, MAX_SWEEP_POINTS};

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario as it runs now (plain JSON, edits included).
    pub text: Option<String>,
}

pub enum Msg {
    Kind(String),
    Target(String),
    Path(String),
    Values(String),
    Run,
    Cancel,
    Answer(Answered),
    Entity(String),
    Figures(usize),
    Figure(usize),
    ByOn(bool),
    ByPath(String),
    ByValues(String),
    Csv,
    Png,
    CopyText,
    Tick,
}

/// A sweep running or done: the points in the order of the values.
struct Sweep {
    path: String,
    values: Vec<String>,
    /// A two-way sweep's second parameter and its values: the points are stored row by row,
    /// `values.len()` per value of it.
    by: Option<(String, Vec<String>)>,
    points: Vec<Option<SweepFigures>>,
    /// Per worker, the point it is running.
    running: Vec<Option<usize>>,
    next: usize,
    done: usize,
    t0: f64,
    ms: Option<f64>,
    workers: usize,
    cancelled: bool,
    text: String,
    /// The scenario's name, for the LKML text's heading.
    name: String,
}

impl Sweep {
    /// "path = value" of point `k`, with the second parameter's in a two-way sweep.
    fn point_label(&self, k: usize) -> String {
        let n = self.values.len().max(1);
        let first = format!("{} = {}", self.path, self.values.get(k % n).map(|v| value_label(v)).unwrap_or_default());
        match &self.by {
            Some((p, vs)) => format!("{p} = {}, {first}", vs.get(k / n).map(|v| value_label(v)).unwrap_or_default()),
            None => first,
        }
    }
}

pub struct SweepPanel {
    pool: Pool,
    on: Callback<Answered>,
    kind: String,
    target: String,
    custom: String,
    values: Option<String>,
    sweep: Option<Sweep>,
    entity: Option<String>,
    figures: usize,
    /// The figure a two-way sweep draws (index in FIGURES).
    figure: usize,
    by_on: bool,
    by_path: String,
    by_values: String,
    error: Option<String>,
    canvas: NodeRef,
    drawn: bool,
    _ticker: Option<gloo::timers::callback::Interval>,
    _url: Option<gloo::file::ObjectUrl>,
}

/// (value, label) choices of what to sweep, by kind: task and workload entries, or tunables.
fn targets(kind: &str, doc: &Value) -> Vec<(String, String)> {
    let entries = |key: &str, short: &str| -> Vec<(String, String)> {
        entry_names(doc, key).into_iter().enumerate().map(|(i, n)| (format!("{key}[{i}]"), format!("{short} {n}"))).collect()
    };
    match kind {
        "latency_nice" | "nice" => {
            let mut v = entries("tasks", "task");
            v.extend(entries("workloads", "workload"));
            v
        }
        "tunable" => TUNABLES.iter().map(|t| (format!("scheduler.tunables.{}", t.key), t.key.to_string())).collect(),
        _ => Vec::new(),
    }
}

impl SweepPanel {
    fn target_now(&self, doc: &Value) -> String {
        let ts = targets(&self.kind, doc);
        if ts.iter().any(|t| t.0 == self.target) {
            self.target.clone()
        } else {
            ts.first().map(|t| t.0.clone()).unwrap_or_default()
        }
    }

    fn path(&self, doc: &Value) -> String {
        let t = self.target_now(doc);
        match self.kind.as_str() {
            "latency_nice" | "nice" if !t.is_empty() => format!("{t}.{}", self.kind),
            "tunable" => t,
            "cpus" => "machine.cpus".into(),
            "policy" => "scheduler.policy".into(),
            "custom" => self.custom.trim().to_string(),
            _ => String::new(),
        }
    }

    fn values_text(&self, doc: &Value) -> String {
        self.values.clone().unwrap_or_else(|| default_values(&self.path(doc)).to_string())
    }

    /// The entity plotted: the user's choice, else the swept task or workload, else the first.
    /// The sweep of `entity` as fixed-width text ("Copy as LKML text").
    fn lkml_text(&self, s: &Sweep, entity: &str) -> String {
        crate::wire::sweep::sweep_text(&s.name, &s.path, s.by.as_ref().map(|b| b.0.as_str()), &s.points, &s.values, entity)
    }

    fn entity_now(&self, s: &Sweep) -> Option<String> {
        let names: Vec<&String> = s.points.iter().flatten().next().map(|p| p.entities.iter().map(|e| &e.name).collect()).unwrap_or_default();
        if let Some(e) = self.entity.as_ref().filter(|e| names.contains(e)) {
            return Some(e.clone());
        }
        let doc: Value = serde_json::from_str(&s.text).unwrap_or(Value::Null);
        let swept = s.path.split('.').next().and_then(|head| {
            let (key, i) = head.split_once('[')?;
            let i: usize = i.trim_end_matches(']').parse().ok()?;
            let name = doc.get(key)?.get(i)?.get("name")?.as_str()?.to_string();
            Some(if key == "workloads" { format!("workload {name}") } else { name })
        });
        let pick = swept.and_then(|n| names.iter().find(|x| ***x == n || x.starts_with(&format!("{n}/"))).map(|x| x.to_string()));
        pick.or_else(|| names.first().map(|x| x.to_string()))
    }

    fn start(&mut self, ctx: &Context<Self>) {
        let Some(text) = ctx.props().text.clone() else {
            self.error = Some("No scenario is loaded.".into());
            return;
        };
        let doc = doc_of(&ctx.props().text);
        let path = self.path(&doc);
        if path.is_empty() {
            self.error = Some("Choose what to sweep: a task and its latency nice, a tunable, or a path such as machine.cpus.".into());
            return;
        }
        let values = match fairground_sim::measure::parse_values(&self.values_text(&doc)) {
            Ok(v) if v.len() > MAX_SWEEP_POINTS => {
                self.error = Some(format!("{} points: at most {MAX_SWEEP_POINTS} in the browser (each is a whole run); use a STEP, or the CLI (fairground sweep).", v.len()));
                return;
            }
            Ok(v) => v.iter().map(Value::to_string).collect::<Vec<_>>(),
            Err(e) => {
                self.error = Some(format!("Values: {e}"));
                return;
            }
        };
        let by = if self.by_on {
            let bp = self.by_path.trim().to_string();
            if bp.is_empty() {
                self.error = Some("\"For each of\" needs a path, e.g. workloads[1].latency_nice.".into());
                return;
            }
            match fairground_sim::measure::parse_values(&self.by_values) {
                Ok(v) => Some((bp, v.iter().map(Value::to_string).collect::<Vec<_>>())),
                Err(e) => {
                    self.error = Some(format!("Values of {bp}: {e}"));
                    return;
                }
            }
        } else {
            None
        };
        let n = values.len() * by.as_ref().map_or(1, |b| b.1.len());
        if n > MAX_SWEEP_POINTS {
            self.error = Some(format!("{n} points: at most {MAX_SWEEP_POINTS} in the browser (each is a whole run); use a STEP, or the CLI (fairground sweep --by)."));
            return;
        }
        self.pool.cancel();
        let workers = Pool::width().min(n);
        self.error = None;
        self.drawn = false;
        let name = serde_json::from_str::<serde_json::Value>(&text).ok().and_then(|v| v["name"].as_str().map(str::to_string)).unwrap_or_default();
        self.sweep = Some(Sweep { path, values, by, points: vec![None; n], running: vec![None; workers], next: 0, done: 0, t0: now_ms(), ms: None, workers, cancelled: false, text, name });
        for slot in 0..workers {
            self.feed(slot);
        }
        let link = ctx.link().clone();
        self._ticker = Some(gloo::timers::callback::Interval::new(1000, move || link.send_message(Msg::Tick)));
    }

    /// Give worker `slot` the next point, if any is left.
    fn feed(&mut self, slot: usize) {
        let Some(s) = &mut self.sweep else { return };
        if s.next >= s.points.len() || s.cancelled {
            s.running[slot] = None;
            return;
        }
        let i = s.next;
        s.next += 1;
        s.running[slot] = Some(i);
        let n = s.values.len().max(1);
        let by = s.by.as_ref().and_then(|(p, vs)| Some((p.clone(), vs.get(i / n)?.clone())));
        let req = Request::SweepPoint { text: s.text.clone(), path: s.path.clone(), value: s.values[i % n].clone(), by };
        self.pool.send(slot, Input::Measure(req), &self.on);
    }

    fn answered(&mut self, slot: usize, out: Output) {
        let Some(s) = &mut self.sweep else { return };
        let Some(i) = s.running.get(slot).copied().flatten() else { return };
        let fail = match out {
            Output::Measured { answer: Answer::Swept(p), .. } => {
                s.points[i] = Some(p);
                s.done += 1;
                None
            }
            Output::Measured { answer: Answer::Failed { message }, .. } => Some(format!("{}: {message}", s.point_label(i))),
            Output::Crashed { message } => Some(format!("The worker crashed at {} ({message}). The run on screen is not affected.", s.point_label(i))),
            _ => Some("The worker gave an unexpected answer.".into()),
        };
        self.drawn = false;
        if let Some(m) = fail {
            self.error = Some(m);
            self.stop(true);
            return;
        }
        self.feed(slot);
        if let Some(s) = &mut self.sweep {
            if s.done == s.points.len() {
                s.ms = Some(now_ms() - s.t0);
                self._ticker = None;
            }
        }
    }

    /// Stop between points: what is done stays, on the chart and in the CSV.
    fn stop(&mut self, failed: bool) {
        self.pool.cancel();
        self._ticker = None;
        if let Some(s) = &mut self.sweep {
            s.cancelled = !failed || s.done < s.points.len();
            s.running.iter_mut().for_each(|r| *r = None);
            s.ms = Some(now_ms() - s.t0);
        }
    }

    fn draw(&mut self) {
        let (Some(s), Some(c)) = (&self.sweep, self.canvas.cast::<web_sys::HtmlCanvasElement>()) else { return };
        let Some(entity) = self.entity_now(s) else { return };
        let xs: Vec<String> = s.values.iter().map(|v| value_label(v)).collect();
        let (label, lines) = match &s.by {
            Some((bp, bvs)) => {
                let (fig, label) = FIGURES[self.figure.min(FIGURES.len() - 1)];
                let labels: Vec<String> = bvs.iter().map(|v| format!("{bp}={}", value_label(v))).collect();
                (label, by_series(&s.points, s.values.len(), &labels, &entity, fig))
            }
            None => {
                let (label, figs) = FIGURE_SETS[self.figures.min(FIGURE_SETS.len() - 1)];
                let mut lines = series(&s.points, &entity, figs);
                for l in &mut lines {
                    l.0 = l.0.trim_end_matches("_us").to_string();
                }
                (label, lines)
            }
        };
        crate::draw::charts::draw_lines(&c, &format!("{entity}: {label}"), &s.path, label, &xs, &lines);
        self.drawn = true;
    }
}

impl Component for SweepPanel {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        SweepPanel {
            pool: Pool::default(),
            on: ctx.link().callback(Msg::Answer),
            kind: "latency_nice".into(),
            target: String::new(),
            custom: String::new(),
            values: None,
            sweep: None,
            entity: None,
            figures: 0,
            figure: 3,
            by_on: false,
            by_path: String::new(),
            by_values: String::new(),
            error: None,
            canvas: NodeRef::default(),
            drawn: false,
            _ticker: None,
            _url: None,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Kind(k) => {
                self.kind = k;
                self.target.clear();
                self.values = None;
            }
            Msg::Target(t) => {
                self.target = t;
                self.values = None;
            }
            Msg::Path(p) => {
                self.custom = p;
                self.values = None;
            }
            Msg::Values(v) => self.values = Some(v),
            Msg::Run => self.start(ctx),
            Msg::Cancel => self.stop(false),
            Msg::Answer((gen, slot, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                if matches!(out, Output::Crashed { .. }) {
                    self.pool.drop_slot(slot);
                }
                self.answered(slot, out);
            }
            Msg::Entity(e) => {
                self.entity = Some(e);
                self.drawn = false;
            }
            Msg::Figures(i) => {
                self.figures = i;
                self.drawn = false;
            }
            Msg::Figure(i) => {
                self.figure = i.min(FIGURES.len() - 1);
                self.drawn = false;
            }
            Msg::ByOn(on) => self.by_on = on,
            Msg::ByPath(p) => {
                if self.by_values.trim().is_empty() || default_values(&self.by_path) == self.by_values {
                    self.by_values = default_values(&p).to_string();
                }
                self.by_path = p;
            }
            Msg::ByValues(v) => self.by_values = v,
            Msg::Csv => {
                if let Some(s) = &self.sweep {
                    let name = format!("sweep-{}.csv", s.path.replace(['[', ']', '.'], "-").trim_matches('-'));
                    match save_text(&name, "text/csv", &sweep_csv(&s.path, s.by.as_ref().map(|b| b.0.as_str()), &s.points)) {
                        Ok(u) => self._url = Some(u),
                        Err(m) => self.error = Some(m),
                    }
                }
            }
            Msg::CopyText => {
                if let (Some(s), Some(w)) = (&self.sweep, web_sys::window()) {
                    if let Some(e) = self.entity_now(s) {
                        // Resolves later or is refused (no permission): the text is on the page too.
                        let _ = w.navigator().clipboard().write_text(&self.lkml_text(s, &e));
                    }
                }
            }
            Msg::Png => {
                if let Err(m) = save_canvas_png(&self.canvas, "sweep.png") {
                    self.error = Some(m);
                }
            }
            Msg::Tick => return self.sweep.as_ref().is_some_and(|s| s.ms.is_none()),
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if !self.drawn {
            self.draw();
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let doc = doc_of(&ctx.props().text);
        let sel = |f: fn(String) -> Msg| link.callback(move |e: Event| f(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let running = self.sweep.as_ref().is_some_and(|s| s.ms.is_none());
        let target = self.target_now(&doc);
        let path = self.path(&doc);
        html! {
            <div id="sweep" class="sweep" data-running={running.to_string()}>
                <h4>{ "Sweep" }</h4>
                <p class="hint">{ "Run the scenario once per value of one parameter (same seed) and plot the figures against it, as the threads' tables by latency nice. The points run in parallel workers." }</p>
                <div class="ab-choose">
                    <label for="sweep-kind">{ "Vary" }</label>
                    <select id="sweep-kind" onchange={sel(Msg::Kind)} disabled={running}>
                        { for [("latency_nice", "a latency nice"), ("nice", "a nice"), ("cpus", "the number of CPUs"), ("policy", "the policy"), ("tunable", "a tunable"), ("custom", "any path")]
                            .iter().map(|(v, l)| html! { <option value={*v} selected={self.kind == *v}>{ *l }</option> }) }
                    </select>
                    if matches!(self.kind.as_str(), "latency_nice" | "nice" | "tunable") {
                        <select id="sweep-target" aria-label="Of what" onchange={sel(Msg::Target)} disabled={running}>
                            { for targets(&self.kind, &doc).into_iter().map(|(v, l)| html! { <option selected={v == target} value={v.clone()}>{ l }</option> }) }
                        </select>
                    }
                    if self.kind == "custom" {
                        <input id="sweep-path" type="text" placeholder="e.g. workloads[0].groups" value={self.custom.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::Path(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    }
                    <label for="sweep-values">{ "over" }</label>
                    <input id="sweep-values" type="text" title="LO..HI or LO..HI:STEP (HI below LO counts down), or a list: 19,0,-20" value={self.values_text(&doc)} disabled={running}
                        onchange={link.callback(|e: Event| Msg::Values(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    if running {
                        <button id="btn-sweep-cancel" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                    } else {
                        <button id="btn-sweep-run" class="primary" disabled={ctx.props().text.is_none()} onclick={link.callback(|_| Msg::Run)}>{ "Run sweep" }</button>
                    }
                </div>
                <div class="ab-choose">
                    <label title="A two-way sweep, as the threads' tables: one line per value of a second parameter">
                        <input id="sweep-by-on" type="checkbox" checked={self.by_on} disabled={running}
                            onchange={link.callback(|e: Event| Msg::ByOn(e.target_unchecked_into::<HtmlInputElement>().checked()))} />{ " for each of" }</label>
                    if self.by_on {
                        <input id="sweep-by-path" type="text" list="sweep-paths" placeholder="e.g. workloads[1].latency_nice" value={self.by_path.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::ByPath(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                        <datalist id="sweep-paths">{ for view::suggestions(&doc).into_iter().map(|p| html! { <option value={p} /> }) }</datalist>
                        <label for="sweep-by-values">{ "over" }</label>
                        <input id="sweep-by-values" type="text" value={self.by_values.clone()} disabled={running}
                            onchange={link.callback(|e: Event| Msg::ByValues(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    }
                </div>
                <p class="hint"><code id="sweep-path-now">{ if path.is_empty() { "(no parameter)".to_string() } else { path } }</code></p>
                if let Some(e) = &self.error {
                    <p id="sweep-error" class="error" role="alert">{ e }</p>
                }
                if let Some(s) = &self.sweep { { self.view_sweep(ctx, s) } }
            </div>
        }
    }
}

mod view;
