//! "Which change did it?" (wasm32 only): the A/B panel's B, or a preset that mirrors a seed,
//! taken apart change by change by a worker of its own (`worker::measure`), ranked by the
//! share of the change in a figure each accounts for, with interacting pairs. Each row opens
//! the A/B of that change alone. Nothing here computes: the table is the worker's.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::page::app::now_ms;
use crate::page::worker_pool::{Answered, Pool};
use crate::wire::ab::AblationTable;
use crate::wire::measure::{Answer, Request};
use crate::wire::proto::{Input, Output};

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario as it runs now (plain JSON, edits included).
    pub text: Option<String>,
    /// B's changes in the A/B panel (`path=value` lines).
    pub b: String,
    /// The figure offered first (a task of the scenario, p99).
    pub figure: String,
    /// Open the A/B of one change (a `path=value` line).
    pub on_ab: Callback<String>,
}

pub enum Msg {
    Preset(String),
    Figure(String),
    Run,
    Cancel,
    Answer(Answered),
    OpenAb(String),
    Tick,
}

pub struct Ablate {
    pool: Pool,
    on: Callback<Answered>,
    /// "" = the A/B panel's B; else a preset's name.
    preset: String,
    figure: Option<String>,
    started: Option<f64>,
    result: Option<(Rc<AblationTable>, f64)>,
    error: Option<String>,
    _ticker: Option<Interval>,
}

const PRESETS: [(&str, &str); 3] = [
    ("", "the changes of B above"),
    ("clamps", "the three get_latency_max() clamp sites (seed 000)"),
    ("complete-eevdf", "complete EEVDF's switches (seed 003)"),
];

fn num(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.3}", v + 0.0))
}

impl Component for Ablate {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        Ablate {
            pool: Pool::default(),
            on: ctx.link().callback(Msg::Answer),
            preset: String::new(),
            figure: None,
            started: None,
            result: None,
            error: None,
            _ticker: None,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Preset(p) => self.preset = p,
            Msg::Figure(f) => self.figure = Some(f),
            Msg::Run => {
                let Some(text) = ctx.props().text.clone() else { return false };
                if self.started.is_some() {
                    return false;
                }
                let figure = self.figure.clone().unwrap_or_else(|| ctx.props().figure.clone());
                let preset = (!self.preset.is_empty()).then(|| self.preset.clone());
                self.error = None;
                self.pool.send(0, Input::Measure(Request::Ablate { text, b: ctx.props().b.clone(), preset, figure }), &self.on);
                self.started = Some(now_ms());
                let link = ctx.link().clone();
                self._ticker = Some(Interval::new(500, move || link.send_message(Msg::Tick)));
            }
            Msg::Cancel => {
                self.pool.cancel();
                self.started = None;
                self._ticker = None;
                self.error = Some("Cancelled.".into());
            }
            Msg::Answer((gen, slot, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                let ms = self.started.map_or(0.0, |t| now_ms() - t);
                self.started = None;
                self._ticker = None;
                match out {
                    Output::Measured { answer: Answer::Ablated(t), .. } => self.result = Some((Rc::new(t), ms)),
                    Output::Measured { answer: Answer::Failed { message }, .. } => self.error = Some(message),
                    Output::Crashed { message } => {
                        self.pool.drop_slot(slot);
                        self.error = Some(format!("The worker crashed ({message})."));
                    }
                    _ => self.error = Some("The worker answered a question this panel did not ask.".into()),
                }
            }
            Msg::OpenAb(line) => ctx.props().on_ab.emit(line),
            Msg::Tick => return self.started.is_some(),
        }
        true
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        if old.text != ctx.props().text {
            self.result = None;
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let figure = self.figure.clone().unwrap_or_else(|| ctx.props().figure.clone());
        let busy = self.started.is_some();
        html! {
            <div id="ablate" class="ablate" data-busy={busy.to_string()}>
                <h4>{ "Which change did it?" }</h4>
                <p class="hint">{ "Runs every single change from A towards B and back (every combination, up to 8 changes) and ranks the changes by how much of the difference in the figure each accounts for." }</p>
                <div class="ab-choose">
                    <label for="ablate-preset">{ "Take apart" }</label>
                    <select id="ablate-preset" onchange={link.callback(|e: Event| Msg::Preset(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                        { for PRESETS.iter().map(|(v, l)| html! { <option value={*v} selected={self.preset == *v}>{ *l }</option> }) }
                    </select>
                    <label for="ablate-figure">{ "figure" }</label>
                    <input id="ablate-figure" type="text" value={figure} title="task|workload|cgroup:NAME:p50|p90|p95|p99|max|mean, workload:NAME:completion, task:NAME:preemptions, task|cgroup:NAME:share"
                        onchange={link.callback(|e: Event| Msg::Figure(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    <button id="btn-ablate" class="primary" disabled={busy || ctx.props().text.is_none()} onclick={link.callback(|_| Msg::Run)}>
                        { if busy { format!("Running… {:.0} s", self.started.map_or(0.0, |t| (now_ms() - t) / 1000.0)) } else { "Which change did it?".into() } }
                    </button>
                    if busy {
                        <button id="btn-ablate-cancel" onclick={link.callback(|_| Msg::Cancel)}>{ "Cancel" }</button>
                    }
                </div>
                if let Some(e) = &self.error {
                    <p id="ablate-error" class="error" role="alert">{ e }</p>
                }
                if let Some((t, ms)) = &self.result {
                    { self.view_table(ctx, t, *ms) }
                }
            </div>
        }
    }
}

impl Ablate {
    fn view_table(&self, ctx: &Context<Self>, t: &AblationTable, ms: f64) -> Html {
        let link = ctx.link();
        // Bars on one scale: the largest share (or 100 %) is the full width.
        let scale = t.rows.iter().filter_map(|r| r.share_pct.map(f64::abs)).fold(100.0f64, f64::max);
        html! {
            <>
                <p class="hint">{ format!("{}: A {} → B {} ({} runs in {:.0} ms).", t.figure, num(t.a), num(t.b), t.runs, ms) }</p>
                <div class="table-wrap"><table id="ablate-table" class="kv">
                    <thead><tr><th>{ "change" }</th><th>{ "A" }</th><th>{ "B" }</th><th>{ "A + this − A" }</th><th>{ "B − (B − this)" }</th><th>{ "share of A→B" }</th><th></th></tr></thead>
                    <tbody>
                        { for t.rows.iter().map(|r| {
                            let line = format!("{}={}", r.path, r.b);
                            let pct = r.share_pct.unwrap_or(0.0);
                            let width = format!("width: {:.1}%", (pct.abs() / scale * 100.0).min(100.0));
                            html! {
                                <tr data-path={r.path.clone()}>
                                    <td><code>{ &r.path }</code></td>
                                    <td>{ &r.a }</td>
                                    <td>{ &r.b }</td>
                                    <td>{ num(r.forward) }</td>
                                    <td>{ num(r.backward) }</td>
                                    <td class="share">
                                        <span class={classes!("bar", (pct < 0.0).then_some("negative"))} style={width}></span>
                                        { r.share_pct.map_or("–".into(), |p| format!(" {:.1} %", p + 0.0)) }
                                    </td>
                                    <td><button class="ablate-ab small" disabled={r.b == "(default)"} onclick={link.callback(move |_| Msg::OpenAb(line.clone()))}>{ "A/B of this alone" }</button></td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table></div>
                if t.interactions.is_empty() {
                    <p id="ablate-interactions" class="hint">{ if t.runs.is_power_of_two() { "No pair interacts: each change's effect adds up (every combination was run)." } else { "Too many changes to run every combination: interactions were not checked." } }</p>
                } else {
                    <ul id="ablate-interactions">
                        { for t.interactions.iter().map(|(a, b, joint, sum)| html! {
                            <li>{ format!("{a} + {b}: together {:.3}, alone they add up to {:.3}", joint + 0.0, sum + 0.0) }</li>
                        }) }
                    </ul>
                }
            </>
        }
    }
}
