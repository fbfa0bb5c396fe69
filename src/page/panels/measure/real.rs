//! Real beside simulated (wasm32 only): when the scenario on screen was made from a recorded
//! trace (`page::real_trace`), its own run (A) beside the model's replay of its tasks (B) under
//! the scenario as it is now (its policy, edits included): the model's assumptions first, then
//! both latency histograms overlaid and both timelines on one time axis, then each task's table
//! (the largest differences first), drawn by the A/B panel's own views. The model runs in a worker
//! of this part's own, as soon as the scenario is there and again when it changes.

use std::rc::Rc;

use yew::prelude::*;

use super::{ab_charts, ab_view};
use crate::page::app::now_ms;
use crate::page::export_web::save_text;
use crate::page::worker_pool::{Answered, Pool};
use crate::wire::ab::AbTable;
use crate::wire::measure::{Answer, Request};
use crate::wire::proto::{Input, Output};
use crate::wire::real::RealTrace;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario as it runs now (plain JSON, edits included).
    pub text: Option<String>,
}

pub enum Msg {
    Answer(Answered),
    Csv,
}

pub struct RealPanel {
    pool: Pool,
    on: Callback<Answered>,
    /// The real run of the scenario on screen, if it came from a trace.
    real: Option<Rc<RealTrace>>,
    /// The scenario text the model ran (or runs) for, and when it was sent.
    sent: Option<(String, f64)>,
    running: bool,
    table: Option<(Rc<AbTable>, f64)>,
    error: Option<String>,
    _url: Option<gloo::file::ObjectUrl>,
}

impl RealPanel {
    /// Run the model for the scenario as it is now, unless that is done or under way.
    fn refresh(&mut self, ctx: &Context<Self>) {
        self.real = crate::page::real_trace::for_current();
        let (Some(real), Some(text)) = (self.real.clone(), ctx.props().text.clone()) else {
            self.table = None;
            return;
        };
        if self.sent.as_ref().is_some_and(|(t, _)| *t == text) {
            return;
        }
        // A table of another scenario would be shown as if it were of this one.
        self.table = None;
        self.error = None;
        if self.running {
            // A run cannot be interrupted: the next request goes to a fresh worker.
            self.pool.cancel();
        }
        self.pool.send(0, Input::Measure(Request::CompareReal { text: text.clone(), real: real.figures.clone() }), &self.on);
        self.sent = Some((text, now_ms()));
        self.running = true;
    }
}

impl Component for RealPanel {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let mut p = RealPanel { pool: Pool::default(), on: ctx.link().callback(Msg::Answer), real: None, sent: None, running: false, table: None, error: None, _url: None };
        p.refresh(ctx);
        p
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Props) -> bool {
        self.refresh(ctx);
        true
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Answer((gen, _, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                self.running = false;
                let ms = self.sent.as_ref().map_or(0.0, |s| now_ms() - s.1);
                match out {
                    Output::Measured { answer: Answer::Compared(mut t), .. } => {
                        // The real slices are the page's already: they join the model's here.
                        match (t.traces.as_mut(), self.real.as_ref().and_then(|r| r.slices.as_ref())) {
                            (Some(tr), Some(slices)) => tr.a = slices.clone(),
                            _ => t.traces = None,
                        }
                        self.table = Some((Rc::new(t), ms));
                    }
                    Output::Measured { answer: Answer::Failed { message }, .. } => self.error = Some(message),
                    Output::Crashed { message } => {
                        self.pool.drop_slot(0);
                        self.error = Some(format!("The worker crashed running the model's replay ({message})."));
                    }
                    Output::Refused { message } => self.error = Some(message),
                    _ => self.error = Some("The worker gave an unexpected answer.".into()),
                }
            }
            Msg::Csv => {
                if let Some((t, _)) = &self.table {
                    match save_text(&t.csv_name, "text/csv", &t.csv) {
                        Ok(url) => self._url = Some(url),
                        Err(m) => self.error = Some(m),
                    }
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let Some(real) = &self.real else { return html! {} };
        let f = &real.figures;
        html! {
            <div id="real-vs-model" data-running={self.running.to_string()}>
                <h4>{ "Real run beside the model" }</h4>
                <p class="hint">{ format!(
                    "The real run is {} ({}) as it was recorded: {} tasks on {} CPU{} over {}. The model is its replay: each task's bursts and sleeps as the trace shows them, scheduled by the simulator under the scenario as it is now (change the policy or a task, and the replay runs again).",
                    f.file, f.format, f.tasks.len(), f.cpus, if f.cpus == 1 { "" } else { "s" }, crate::draw::format::fmt_time(f.span_ns)) }</p>
                if self.running {
                    <p class="status">{ "Running the model's replay…" }</p>
                }
                if let Some(e) = &self.error {
                    <p id="real-error" class="error" role="alert">{ e }</p>
                }
                if let Some((t, ms)) = &self.table {
                    if let Some(h) = &t.real {
                        <div id="real-assumptions" class="assumptions">
                            <h5>{ "What the model assumes" }</h5>
                            <ul>{ for h.assumptions.iter().map(|a| html! { <li>{ a }</li> }) }</ul>
                        </div>
                    }
                    <ab_charts::AbCharts ab={t.clone()} />
                    <h5>{ "Each task, real beside model" }</h5>
                    { ab_view::view_ab(t, *ms, &Callback::noop()) }
                    <p><button id="btn-real-csv" onclick={ctx.link().callback(|_| Msg::Csv)}>{ "Download the table (CSV)" }</button></p>
                    <details><summary>{ "As text" }</summary><pre id="real-text">{ &t.text }</pre></details>
                }
            </div>
        }
    }
}
