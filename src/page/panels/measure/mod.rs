//! The Export and A/B panel (wasm32 only). Whole runs of the scenario as it
//! is now (edits included) are computed by a worker of this panel's own (`worker::measure`), so
//! the timeline's worker keeps answering: exports to download or to open in Perfetto, an A/B
//! comparison against a variant chosen here, and a runqlat-style histogram of the selected
//! task. The panel only chooses what to ask and shows the answers.

use gloo::file::ObjectUrl;
use gloo::timers::callback::Interval;
use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

mod ab_charts;
mod ab_view;
mod ablate;
mod choices;
mod hist;
mod real;

use crate::page::app::now_ms;
use crate::page::export_web::{save_bytes, save_canvas_png, save_text, Handoff, Ping};
use crate::page::logic::doc_of;
use choices::{first_task_figure, targets, values};
use std::rc::Rc;

use crate::page::worker_pool::{Answered, Pool};
use crate::wire::ab::AbTable;
use crate::wire::measure::{Answer, ExportKind, LogHist, Request};
use crate::wire::proto::{Input, Output};

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario as it runs now (plain JSON, edits included).
    pub text: Option<String>,
    /// The task selected in the timeline or the tasks table.
    pub selected: Option<String>,
    /// Move the time cursor (a diverging decision of the A/B: A is the scenario as it runs).
    #[prop_or_default]
    pub on_seek: Callback<u64>,
    /// What the lesson step asks to show (`panels::Stage`): a task's latency histogram.
    #[prop_or_default]
    pub stage: Option<std::rc::Rc<super::Stage>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Job {
    Save(ExportKind),
    Perfetto,
    Compare,
    Histogram,
}

pub enum Msg {
    Export(ExportKind),
    Perfetto,
    PerfettoPing,
    PerfettoPong,
    /// Save the Perfetto trace that the UI never took.
    PerfettoSave,
    Answer(Answered),
    /// What B changes: the kind, the target, the value; or the changes typed in.
    Kind(String),
    Target(String),
    Value(String),
    Typed(String),
    Compare,
    Cancel,
    AbCsv,
    AbCopy,
    Histogram,
    HistOf(String),
    HistWidth(String),
    HistLog(bool),
    HistKind(String),
    HistPng,
    /// Once a second while a request runs: show how long it has been running.
    Tick,
    /// "Which change did it?" asked for the A/B of one change: B is that line alone.
    AbOf(String),
}

pub struct MeasurePanel {
    /// This panel's measuring worker (one request at a time).
    pool: Pool,
    on: Callback<Answered>,
    job: Option<(Job, f64)>,
    error: Option<String>,
    status: Option<String>,
    kind: String,
    target: String,
    value: String,
    /// B's changes as typed; None = as the choices above say.
    typed: Option<String>,
    ab: Option<(Rc<AbTable>, f64)>,
    hist: Option<LogHist>,
    /// Whose histogram: None = the selected task; else "all tasks", "workload X", "cgroup X".
    hist_of: Option<String>,
    /// Linear buckets of this many µs; empty = runqlat's log2 buckets.
    hist_width: String,
    hist_log: bool,
    /// Preempt delays instead of wakeup latencies.
    hist_preempt: bool,
    hist_drawn: bool,
    /// The last lesson stage acted on; scroll to the histogram once it is drawn.
    staged: u32,
    scroll_hist: bool,
    perfetto: Option<Handoff>,
    /// A Perfetto trace made for a tab that never answered: (file name, bytes), offered to save.
    perfetto_file: Option<(String, Vec<u8>)>,
    /// The tab gave up before the trace was made: save it when it comes.
    perfetto_late: bool,
    _url: Option<ObjectUrl>,
    canvas: NodeRef,
    /// Re-renders the elapsed time while a request runs (a run near the browser's limits can
    /// take a minute; there is no watchdog here, the user sees the time and can cancel).
    ticker: Option<Interval>,
    /// The scenario text the request in flight was made for.
    sent_text: Option<String>,
}

impl MeasurePanel {
    fn target_now(&self, doc: &Value) -> String {
        let ts = targets(&self.kind, doc);
        if ts.iter().any(|(v, _)| *v == self.target) {
            self.target.clone()
        } else {
            ts.first().map(|t| t.0.clone()).unwrap_or_default()
        }
    }

    fn value_now(&self, doc: &Value) -> String {
        let target = self.target_now(doc);
        let vs = values(&self.kind, &target, doc);
        match self.kind.as_str() {
            "feature" if vs.contains(&self.value) => self.value.clone(),
            "feature" => vs.first().cloned().unwrap_or_default(),
            "latency_nice" | "nice" if !self.value.trim().is_empty() => self.value.trim().to_string(),
            "latency_nice" => "-20".into(),
            "nice" => "5".into(),
            _ => String::new(),
        }
    }

    /// B's changes as the choices say.
    fn preset(&self, doc: &Value) -> String {
        let (t, v) = (self.target_now(doc), self.value_now(doc));
        match self.kind.as_str() {
            "feature" if !t.is_empty() => format!("scheduler.features.{t}={v}"),
            "policy" if !t.is_empty() => format!("scheduler.policy={t}"),
            "latency_nice" | "nice" if !t.is_empty() => format!("tasks[{t}].{}={v}", self.kind),
            _ => String::new(),
        }
    }

    fn changes(&self, doc: &Value) -> String {
        self.typed.clone().unwrap_or_else(|| self.preset(doc))
    }

    fn send(&mut self, ctx: &Context<Self>, job: Job, req: impl FnOnce(String) -> Request) {
        if self.job.is_some() {
            return;
        }
        let Some(text) = ctx.props().text.clone() else {
            self.error = Some("No scenario is loaded.".into());
            return;
        };
        self.error = None;
        self.sent_text = Some(text.clone());
        self.pool.send(0, Input::Measure(req(text)), &self.on);
        self.job = Some((job, now_ms()));
        let link = ctx.link().clone();
        self.ticker = Some(Interval::new(1000, move || link.send_message(Msg::Tick)));
    }

    fn answered(&mut self, job: Job, answer: Answer, ms: f64) {
        match answer {
            Answer::ExportedBytes { title, file_name, bytes } if job == Job::Perfetto => {
                if self.perfetto_late {
                    // Perfetto never answered: the trace is kept for its download button.
                    self.perfetto_late = false;
                    self.status = Some(format!("{file_name}: {} computed in {:.0} ms.", size(bytes.len()), ms));
                    self.perfetto_file = Some((file_name, bytes));
                    return;
                }
                self.status = Some(format!("{file_name}: {} computed in {:.0} ms; handing it to Perfetto…", size(bytes.len()), ms));
                if let Some(h) = &mut self.perfetto {
                    h.set_trace(format!("Fairground: {title}"), file_name, bytes);
                }
                self.post_to_perfetto();
            }
            Answer::Exported(e) => match save_text(&e.file_name, &e.mime, &e.body) {
                Ok(url) => {
                    self._url = Some(url);
                    self.status = Some(format!("Saved {} ({}), computed in {:.0} ms.", e.file_name, size(e.body.len()), ms));
                }
                Err(m) => self.error = Some(m),
            },
            Answer::Compared(t) => {
                self.status = Some(format!("A and B ran in {:.0} ms (both runs, in the worker).", ms));
                self.ab = Some((Rc::new(t), ms));
            }
            Answer::Histogram(h) => {
                self.status = Some(format!("Histogram of {} computed in {:.0} ms.", h.task, ms));
                self.hist = Some(h);
                self.hist_drawn = false;
            }
            Answer::ExportedBytes { .. } | Answer::Swept(_) | Answer::Checked(_) | Answer::Ablated(_) | Answer::ClampFlips(_) => self.error = Some("The worker answered a question this panel did not ask.".into()),
            Answer::Failed { message } => {
                if job == Job::Perfetto {
                    self.perfetto = None;
                }
                self.error = Some(message);
            }
        }
    }

    fn post_to_perfetto(&mut self) {
        let Some(h) = &mut self.perfetto else { return };
        match h.try_post() {
            Ok(true) => {
                self.perfetto = None;
                self.status = Some("The trace was handed to the Perfetto tab.".into());
            }
            Ok(false) => {}
            Err(m) => {
                self.perfetto = None;
                self.error = Some(m);
            }
        }
    }
}

fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{:.1} MB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} kB", bytes as f64 / 1024.0)
    }
}

impl Component for MeasurePanel {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        MeasurePanel {
            pool: Pool::default(),
            on: ctx.link().callback(Msg::Answer),
            job: None,
            error: None,
            status: None,
            kind: "feature".into(),
            target: String::new(),
            value: String::new(),
            typed: None,
            ab: None,
            hist: None,
            hist_of: None,
            hist_width: String::new(),
            hist_log: false,
            hist_preempt: false,
            hist_drawn: false,
            staged: 0,
            scroll_hist: false,
            perfetto: None,
            perfetto_file: None,
            perfetto_late: false,
            _url: None,
            canvas: NodeRef::default(),
            ticker: None,
            sent_text: None,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Export(kind) => self.send(ctx, Job::Save(kind), |text| Request::Export { text, kind }),
            Msg::Perfetto => {
                if self.job.is_some() {
                    return false;
                }
                let (ping, pong) = (ctx.link().callback(|_: ()| Msg::PerfettoPing), ctx.link().callback(|_: ()| Msg::PerfettoPong));
                match Handoff::open(move || ping.emit(()), move || pong.emit(())) {
                    Ok(h) => {
                        self.perfetto = Some(h);
                        self.perfetto_file = None;
                        self.perfetto_late = false;
                        self.send(ctx, Job::Perfetto, |text| Request::Perfetto { text });
                    }
                    Err(m) => self.error = Some(m),
                }
            }
            Msg::PerfettoPing => {
                let Some(h) = &mut self.perfetto else { return false };
                match h.ping() {
                    Ping::Waiting => return false,
                    Ping::Closed => self.status = Some("The Perfetto tab was closed before it took the trace.".into()),
                    Ping::GaveUp => {
                        self.error = Some(format!(
                            "ui.perfetto.dev did not answer within {} s (offline?), so the trace was not handed over. Download it instead and open it at ui.perfetto.dev when you are online.",
                            Handoff::MAX_PINGS * Handoff::PING_MS / 1000
                        ));
                        // Offered as a download, now if the worker made it, else when it does.
                        match h.take_trace() {
                            Some(t) => self.perfetto_file = Some(t),
                            None => self.perfetto_late = self.job.is_some_and(|j| j.0 == Job::Perfetto),
                        }
                    }
                }
                self.perfetto = None;
            }
            Msg::PerfettoSave => {
                if let Some((name, bytes)) = &self.perfetto_file {
                    match save_bytes(name, "application/octet-stream", bytes) {
                        Ok(url) => self._url = Some(url),
                        Err(m) => self.error = Some(m),
                    }
                }
            }
            Msg::PerfettoPong => {
                if let Some(h) = &mut self.perfetto {
                    h.pong();
                }
                self.post_to_perfetto();
            }
            Msg::Answer((gen, _, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                let job = self.job.take().map(|j| j.0);
                self.ticker = None;
                match (out, job) {
                    // A table or histogram of a scenario since edited would be shown as if it
                    // were of the one on screen: drop it (an export is a file of what was asked).
                    (Output::Measured { .. }, Some(Job::Compare | Job::Histogram)) if self.sent_text != ctx.props().text => {
                        self.status = Some("The scenario changed while this ran; run it again for the scenario as it is now.".into());
                    }
                    (Output::Measured { answer, ms }, Some(job)) => self.answered(job, answer, ms),
                    (Output::Crashed { message }, _) => {
                        self.pool.drop_slot(0);
                        self.perfetto = None;
                        self.error = Some(format!(
                            "The measuring worker crashed ({message}). The run on screen is not affected; the next request starts a new worker."
                        ));
                    }
                    (Output::Refused { message }, _) => self.error = Some(message),
                    _ => {}
                }
            }
            Msg::Kind(k) => {
                self.kind = k;
                self.target.clear();
                self.value.clear();
                self.typed = (self.kind == "custom").then(|| self.typed.clone().unwrap_or_default());
            }
            Msg::Target(t) => {
                self.target = t;
                self.value.clear();
                self.typed = None;
            }
            Msg::Value(v) => {
                self.value = v;
                self.typed = None;
            }
            Msg::Typed(t) => self.typed = Some(t),
            Msg::AbOf(line) => {
                self.typed = Some(line);
                let b = self.changes(&doc_of(&ctx.props().text));
                self.send(ctx, Job::Compare, |text| Request::Compare { text, b });
            }
            Msg::Compare => {
                let b = self.changes(&doc_of(&ctx.props().text));
                self.send(ctx, Job::Compare, |text| Request::Compare { text, b });
            }
            Msg::Cancel => {
                // The worker cannot be interrupted mid-run: stop listening to it (it closes
                // once its run is done) and start a fresh one for the next request.
                self.pool.cancel();
                self.job = None;
                self.ticker = None;
                self.perfetto = None;
                self.status = Some("Cancelled.".into());
            }
            Msg::AbCsv => {
                if let Some((t, _)) = &self.ab {
                    match save_text(&t.csv_name, "text/csv", &t.csv) {
                        Ok(url) => self._url = Some(url),
                        Err(m) => self.error = Some(m),
                    }
                }
            }
            Msg::AbCopy => {
                if let (Some((t, _)), Some(w)) = (&self.ab, web_sys::window()) {
                    // Resolves later or is refused (no permission): the text is on the page too.
                    let _ = w.navigator().clipboard().write_text(&t.text);
                    self.status = Some("The table was copied as text (also under \"As text\" below).".into());
                }
            }
            Msg::Histogram => return self.ask_hist(ctx),
            Msg::HistOf(w) => self.hist_of = (!w.is_empty()).then_some(w),
            Msg::HistWidth(w) => self.hist_width = w,
            Msg::HistKind(k) => self.hist_preempt = k == "preempt",
            Msg::HistLog(on) => {
                self.hist_log = on;
                self.hist_drawn = false;
            }
            Msg::Tick => return self.job.is_some(),
            Msg::HistPng => {
                let name = self.hist.as_ref().map_or("histogram".into(), |h| h.task.replace(['/', ' '], "-"));
                if let Err(m) = save_canvas_png(&self.canvas, &format!("{name}-runqlat.png")) {
                    self.error = Some(m);
                }
            }
        }
        true
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        // Results of an earlier scenario no longer describe the one on screen.
        if old.text != ctx.props().text {
            self.ab = None;
            self.hist = None;
        }
        // A lesson step names a task's histogram: draw it; its chip scrolls to it.
        if let Some(s) = ctx.props().stage.clone() {
            if s.seq != self.staged {
                self.staged = s.seq;
                // A link's `ab=`: B's change filled in and run at once, in view.
                if let Some((_, line)) = s.items.iter().find(|(k, _)| k == "ab") {
                    self.typed = Some(line.clone());
                    ctx.link().send_message(Msg::Compare);
                    super::scroll_to("btn-ab-run");
                }
                if let Some((_, task)) = s.items.iter().find(|(k, _)| k == "histogram") {
                    self.hist_of = Some(task.clone());
                    self.scroll_hist = s.scroll;
                    ctx.link().send_message(Msg::Histogram);
                }
            }
        }
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if self.scroll_hist && self.hist.is_some() {
            self.scroll_hist = false;
            super::scroll_to("hist-canvas");
        }
        self.draw_hist();
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let doc = doc_of(&ctx.props().text);
        let busy = self.job.map(|j| j.0);
        let disabled = busy.is_some() || ctx.props().text.is_none();
        let running = |j: Job| busy == Some(j);
        let sel = |f: fn(String) -> Msg| link.callback(move |e: Event| f(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let (target, value) = (self.target_now(&doc), self.value_now(&doc));
        html! {
            <section id="measure" class="measure-panel" data-busy={busy.map(|j| format!("{j:?}")).unwrap_or_default()}>
                <h3>{ "Export and compare" }</h3>
                <p class="hint">{ "Each of these runs the whole scenario as it is now (your edits included) in a worker of its own; the timeline keeps going meanwhile." }</p>
                <div class="export-row" role="group" aria-label="Export">
                    <button id="btn-export-report" {disabled} onclick={link.callback(|_| Msg::Export(ExportKind::Report))}
                        title="The report of contract §2, as the CLI prints it">{ if running(Job::Save(ExportKind::Report)) { "Report JSON…" } else { "Report JSON" } }</button>
                    <button id="btn-export-samples" {disabled} onclick={link.callback(|_| Msg::Export(ExportKind::Samples))}
                        title="Every wakeup-latency and preempt-delay sample: task,kind,ns">{ if running(Job::Save(ExportKind::Samples)) { "Latency samples CSV…" } else { "Latency samples CSV" } }</button>
                    <button id="btn-export-latency" {disabled} onclick={link.callback(|_| Msg::Export(ExportKind::Latency))}
                        title="Each task's runtime, switches, average and maximum delay and when, as perf sched latency prints it: fixed-width text for a mail">{ if running(Job::Save(ExportKind::Latency)) { "Delay table…" } else { "Delay table" } }</button>
                    <button id="btn-export-ftrace" {disabled} onclick={link.callback(|_| Msg::Export(ExportKind::Ftrace))}
                        title="The run as Linux ftrace text (trace-cmd, KernelShark, Perfetto)">{ if running(Job::Save(ExportKind::Ftrace)) { "ftrace text…" } else { "ftrace text" } }</button>
                    <button id="btn-perfetto" {disabled} onclick={link.callback(|_| Msg::Perfetto)}
                        title="Open ui.perfetto.dev in a new tab and hand it the run as a Perfetto protobuf trace, with the fair class's internals as counters and its decisions as events (needs the internet; the ftrace download works offline)">{ "Open in Perfetto ↗" }</button>
                    if let Some((name, _)) = &self.perfetto_file {
                        <button id="btn-perfetto-download" onclick={link.callback(|_| Msg::PerfettoSave)} title="The Perfetto protobuf trace that the tab did not take: open it at ui.perfetto.dev later">{ format!("Download {name}") }</button>
                    }
                    if let Some((_, t0)) = self.job {
                        <span class="status">{ format!("running… {:.0} s", (now_ms() - t0) / 1000.0) }</span>
                        <button id="btn-measure-cancel" class="ghost small" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                    }
                </div>
                if let Some(e) = &self.error {
                    <p id="measure-error" class="error" role="alert">{ e }</p>
                }
                if let Some(s) = &self.status {
                    <p id="measure-status" class="hint" role="status">{ s }</p>
                }
                <real::RealPanel text={ctx.props().text.clone()} />
                <h4>{ "A/B comparison" }</h4>
                <p class="hint">{ "A is the scenario as it is now; B is A with the change below. Both run with the same seed." }</p>
                <div class="ab-choose">
                    <label for="ab-kind">{ "B changes" }</label>
                    <select id="ab-kind" onchange={sel(Msg::Kind)}>
                        { for [("feature", "a feature"), ("policy", "the policy"), ("latency_nice", "a task's latency nice"), ("nice", "a task's nice"), ("custom", "anything (path=value)")]
                            .iter().map(|(v, l)| html! { <option value={*v} selected={self.kind == *v}>{ *l }</option> }) }
                    </select>
                    if self.kind != "custom" {
                        <select id="ab-target" aria-label="What B changes" onchange={sel(Msg::Target)}>
                            { for targets(&self.kind, &doc).into_iter().map(|(v, l)| html! { <option selected={v == target} value={v.clone()}>{ l }</option> }) }
                        </select>
                    }
                    if self.kind == "feature" {
                        <select id="ab-value" aria-label="B's value" onchange={sel(Msg::Value)}>
                            { for values("feature", &target, &doc).into_iter().map(|v| html! { <option selected={v == value} value={v.clone()}>{ v }</option> }) }
                        </select>
                    } else if self.kind == "latency_nice" || self.kind == "nice" {
                        <input id="ab-value" type="number" aria-label="B's value" value={value.clone()}
                            onchange={link.callback(|e: Event| Msg::Value(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    }
                </div>
                <label for="ab-changes" class="hint">{ "B's changes, one path=value per line (edit freely):" }</label>
                <textarea id="ab-changes" rows="2" spellcheck="false" value={self.changes(&doc)}
                    oninput={link.callback(|e: InputEvent| Msg::Typed(e.target_unchecked_into::<HtmlTextAreaElement>().value()))} />
                <p>
                    <button id="btn-ab-run" class="primary" {disabled} onclick={link.callback(|_| Msg::Compare)}>{ if running(Job::Compare) { "Running A and B…" } else { "Run A/B" } }</button>
                    if self.ab.is_some() {
                        { " " }
                        <button id="btn-ab-csv" onclick={link.callback(|_| Msg::AbCsv)}>{ "Download the table (CSV)" }</button>
                        { " " }
                        <button id="btn-ab-copy" onclick={link.callback(|_| Msg::AbCopy)} title="Fixed-width text in the threads' units, both runs' labels in the heading, to paste into a mail">{ "Copy as LKML text" }</button>
                    }
                </p>
                if let Some((t, ms)) = &self.ab {
                    { ab_view::view_ab(t, *ms, &ctx.props().on_seek) }
                    <ab_charts::AbCharts ab={t.clone()} />
                    <details><summary>{ "As text" }</summary><pre id="ab-text">{ &t.text }</pre></details>
                }
                <ablate::Ablate text={ctx.props().text.clone()} b={self.changes(&doc)}
                    figure={first_task_figure(&doc)}
                    on_ab={link.callback(Msg::AbOf)} />
                { self.view_hist(ctx, &doc, disabled) }
                <crate::page::panels::sweep::SweepPanel text={ctx.props().text.clone()} />
            </section>
        }
    }
}
