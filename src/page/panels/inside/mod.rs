//! "Inside the scheduler": the decision log with its filters, "why did this run?",
//! the trees (`trees.rs`) and the key chart (`keychart.rs`). This component holds which panels
//! are open and their choices, and tells the app what to ask of the worker (`insight::Ask`):
//! the worker records the log, tree operations and key samples only while a panel needs them.

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

mod clamps;
mod keychart;
mod trees;

use crate::wire::insight::*;
use keychart::KeyChart;
use crate::draw::format;
use crate::wire::proto::{RunInfo, NONE};
use trees::TreesView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub info: Rc<RunInfo>,
    /// The scenario as it runs now (plain JSON, edits included), for the whole-run clamp counts.
    pub text: Option<String>,
    /// The worker's last answer for the panels.
    pub data: Rc<Option<Box<Insight>>>,
    pub view_ns: u64,
    pub playing: bool,
    pub selected: Option<u32>,
    /// The timeline point clicked last (CPU, ns), for "why did this run?".
    pub picked: Option<(u32, u64)>,
    pub on_ask: Callback<Ask>,
    pub on_seek: Callback<u64>,
    pub on_unpick: Callback<()>,
    pub on_select: Callback<Option<u32>>,
    /// What the lesson step asks to show (`panels::Stage`): trees of a CPU, the log.
    #[prop_or_default]
    pub stage: Option<Rc<super::Stage>>,
}

pub enum Msg {
    Toggle(&'static str),
    Cpu(String),
    Task(String),
    Kind(u8, bool),
    ClampOnly(bool),
    TreeCpu(String),
    ChartTask(String),
}

pub struct Inside {
    log: bool,
    trees: bool,
    chart: bool,
    filter: LogFilter,
    tree_cpu: u32,
    chart_task: Option<u32>,
    sent: Ask,
    /// The last stage acted on, and the panel to scroll to once drawn.
    staged: u32,
    scroll: Option<&'static str>,
}

impl Inside {
    fn ask(&self, p: &Props) -> Ask {
        Ask {
            trees: self.trees.then_some(self.tree_cpu.min(p.info.cpus.saturating_sub(1))),
            log: self.log.then(|| self.filter.clone()),
            why: p.picked,
            chart: if self.chart { self.chart_task.or(p.selected).or((!p.info.tasks.is_empty()).then_some(0)) } else { None },
        }
    }

    fn emit(&mut self, p: &Props) {
        let a = self.ask(p);
        if a != self.sent {
            self.sent = a.clone();
            p.on_ask.emit(a);
        }
    }
}

/// A number from a select's value; anything else (bad input) is "all".
fn parse_opt(v: &str) -> Option<u32> {
    v.trim().parse::<u32>().ok()
}

impl Inside {
    /// Open what a lesson step names: the trees of a CPU, the log showing a kind of decision.
    fn stage(&mut self, s: &super::Stage, cpus: u32) {
        let mut first = None;
        for (kind, what) in &s.items {
            match kind.as_str() {
                "tree" => {
                    self.trees = true;
                    self.tree_cpu = parse_opt(what).filter(|&c| c < cpus).unwrap_or(0);
                    first = first.or(Some("trees-panel"));
                }
                "decision" => {
                    self.log = true;
                    self.filter.kinds |= match what.as_str() {
                        "pick" => KIND_PICK,
                        "wakeup" => KIND_WAKEUP,
                        "tick" => KIND_TICK,
                        _ => 0,
                    };
                    first = first.or(Some("decision-log"));
                }
                "chart" => self.chart = true,
                _ => {}
            }
        }
        if s.scroll {
            self.scroll = first;
        }
    }
}

impl Component for Inside {
    type Message = Msg;
    type Properties = Props;

    fn create(_ctx: &Context<Self>) -> Self {
        Inside {
            log: false,
            trees: false,
            chart: false,
            filter: LogFilter { cpu: None, task: None, kinds: KIND_ALL, clamp_only: false },
            tree_cpu: 0,
            chart_task: None,
            sent: Ask::default(),
            staged: 0,
            scroll: None,
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &Props) -> bool {
        if !Rc::ptr_eq(&old.info, &ctx.props().info) {
            // A new run: the worker starts with nothing asked.
            self.sent = Ask::default();
            let n = ctx.props().info.tasks.len() as u32;
            self.chart_task = self.chart_task.filter(|&t| t < n);
            self.filter.task = self.filter.task.filter(|&t| t < n);
        }
        if let Some(s) = ctx.props().stage.clone() {
            if s.seq != self.staged {
                self.staged = s.seq;
                self.stage(&s, ctx.props().info.cpus);
            }
        }
        self.emit(ctx.props());
        true
    }

    fn rendered(&mut self, _ctx: &Context<Self>, _first: bool) {
        if let Some(id) = self.scroll.take() {
            super::scroll_to(id);
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        let p = ctx.props();
        match msg {
            Msg::Toggle(which) => match which {
                "log" => self.log = !self.log,
                "trees" => self.trees = !self.trees,
                _ => self.chart = !self.chart,
            },
            Msg::Cpu(v) => self.filter.cpu = parse_opt(&v).filter(|&c| c < p.info.cpus),
            Msg::Task(v) => self.filter.task = parse_opt(&v).filter(|&t| (t as usize) < p.info.tasks.len()),
            Msg::Kind(bit, on) => {
                if on {
                    self.filter.kinds |= bit;
                } else {
                    self.filter.kinds &= !bit;
                }
            }
            Msg::ClampOnly(on) => self.filter.clamp_only = on,
            Msg::TreeCpu(v) => self.tree_cpu = parse_opt(&v).filter(|&c| c < p.info.cpus).unwrap_or(0),
            Msg::ChartTask(v) => self.chart_task = parse_opt(&v).filter(|&t| (t as usize) < p.info.tasks.len()),
        }
        self.emit(p);
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let data = p.data.as_ref().as_ref();
        let toggle = |id: &'static str, which: &'static str, on: bool, label: &'static str| {
            html! {
                <button id={id} class={classes!("small", on.then_some("on"))} aria-pressed={on.to_string()}
                    onclick={link.callback(move |_| Msg::Toggle(which))}>{ label }</button>
            }
        };
        html! {
            <section id="inside" class="inside" aria-label="Inside the scheduler">
                <div class="inside-bar" role="toolbar">
                    <strong>{ "Inside the scheduler:" }</strong>
                    { toggle("btn-log", "log", self.log, "Decision log") }
                    { toggle("btn-trees", "trees", self.trees, "Trees") }
                    { toggle("btn-chart", "chart", self.chart, "Key chart") }
                    <span class="hint">{ "Click a slice on the timeline to see why it ran." }</span>
                </div>
                if let Some(pk) = p.picked {
                    { self.view_why(ctx, pk, data.and_then(|d| d.why.as_ref())) }
                }
                if self.trees {
                    <div class="inside-panel" id="trees-panel">
                        <label for="tree-cpu">{ "CPU " }</label>
                        <select id="tree-cpu" onchange={link.callback(|e: Event| Msg::TreeCpu(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                            { for (0..p.info.cpus).map(|c| html! { <option value={c.to_string()} selected={c == self.tree_cpu}>{ c }</option> }) }
                        </select>
                        if let Some(t) = data.and_then(|d| d.trees.as_ref()) {
                            <TreesView trees={Rc::new(t.clone())} info={p.info.clone()} playing={p.playing}
                                selected={p.selected} on_select={p.on_select.clone()} />
                        } else {
                            <p class="status">{ "waiting for the worker…" }</p>
                        }
                    </div>
                }
                if self.chart {
                    { self.view_chart(ctx, data.and_then(|d| d.chart.as_ref())) }
                }
                if self.log {
                    { self.view_log(ctx, data.and_then(|d| d.log.as_ref())) }
                }
            </section>
        }
    }
}

/// `path:line` as a link to the repository's source, when the page names a base URL
/// (`<meta name="fairground-source-base" content="https://…/blob/main/">` in index.html).
fn source_link(source: &str) -> Option<String> {
    let base = web_sys::window()?.document()?.query_selector("meta[name=fairground-source-base]").ok()??.get_attribute("content")?;
    if base.trim().is_empty() {
        return None;
    }
    let (path, line) = source.rsplit_once(':')?;
    Some(format!("{}{path}#L{line}", base.trim()))
}

/// "Copy a link to this decision": the scenario as it runs now, at the decision's time, the
/// log open and its task selected (`links::with_options`).
fn decision_link(p: &Props, e: &Entry) -> Callback<MouseEvent> {
    let text = p.text.clone();
    let task = (e.task != NONE).then(|| task_name(&p.info, e.task));
    let at = e.at_ns;
    Callback::from(move |_: MouseEvent| {
        let (Some(text), Some(w)) = (text.as_deref(), web_sys::window()) else { return };
        let loc = w.location();
        let o = crate::page::links::LinkOptions { t: Some(at), task: task.clone(), panels: vec!["log".into()], ..Default::default() };
        let base = format!("s={}", crate::page::links::encode_share(text));
        let link = format!("{}{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default(), crate::page::links::with_options(&base, &o));
        let _ = w.navigator().clipboard().write_text(&link);
    })
}

fn task_name(info: &RunInfo, t: u32) -> String {
    if t == NONE {
        return "idle".into();
    }
    info.tasks.get(t as usize).map_or_else(|| format!("entity {t}"), |x| x.name.clone())
}

const KINDS: [(u8, &str, &str); 3] =
    [(KIND_PICK, "kind-pick", "picks"), (KIND_WAKEUP, "kind-wakeup", "wakeup checks"), (KIND_TICK, "kind-tick", "tick checks")];

impl Inside {
    fn view_log(&self, ctx: &Context<Self>, page: Option<&LogPage>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let on_cpu = link.callback(|e: Event| Msg::Cpu(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let on_task = link.callback(|e: Event| Msg::Task(e.target_unchecked_into::<HtmlSelectElement>().value()));
        let v12 = p.info.policy == "latency-nice-v12";
        html! {
            <div class="inside-panel" id="decision-log">
                <div class="filters">
                    <label for="log-cpu">{ "CPU" }</label>
                    <select id="log-cpu" onchange={on_cpu}>
                        <option value="" selected={self.filter.cpu.is_none()}>{ "all" }</option>
                        { for (0..p.info.cpus).map(|c| html! { <option value={c.to_string()} selected={self.filter.cpu == Some(c)}>{ c }</option> }) }
                    </select>
                    <label for="log-task">{ "Task" }</label>
                    <select id="log-task" onchange={on_task}>
                        <option value="" selected={self.filter.task.is_none()}>{ "all" }</option>
                        { for p.info.tasks.iter().enumerate().map(|(i, t)| html! {
                            <option value={i.to_string()} selected={self.filter.task == Some(i as u32)}>{ &t.name }</option>
                        }) }
                    </select>
                    { for KINDS.iter().map(|&(bit, id, label)| {
                        let on = self.filter.kinds & bit != 0;
                        html! {
                            <label class="check">
                                <input type="checkbox" id={id} checked={on}
                                    onchange={link.callback(move |e: Event| Msg::Kind(bit, e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                                { label }
                            </label>
                        }
                    }) }
                    if v12 {
                        <label class="check" title="Only the checks that would have gone the other way without a get_latency_max() clamp">
                            <input type="checkbox" id="log-clamp-only" checked={self.filter.clamp_only}
                                onchange={link.callback(|e: Event| Msg::ClampOnly(e.target_unchecked_into::<HtmlInputElement>().checked()))} />
                            { "the clamp changed the outcome" }
                        </label>
                    }
                </div>
                if v12 {
                    <clamps::ClampNav text={p.text.clone()} view_ns={p.view_ns} on_seek={p.on_seek.clone()} />
                }
                { match page {
                    None => html! { <p class="status">{ "recording…" }</p> },
                    Some(pg) => html! {
                        <>
                        <p class="hint" id="log-meta" data-recorded={pg.recorded.to_string()}>
                            { format!("{} decisions recorded from {} to now; the newest {} that match, up to the current time. Click one to go there.",
                                format::fmt_int(pg.recorded), format::fmt_time(pg.from_ns), pg.entries.len()) }
                            if pg.truncated { { " (the search stopped early: narrow the filter or go back)" } }
                        </p>
                        <ol class="log" id="log-entries">
                            { for pg.entries.iter().rev().map(|e| self.view_entry(ctx, e)) }
                        </ol>
                        </>
                    },
                } }
            </div>
        }
    }

    fn view_entry(&self, ctx: &Context<Self>, e: &Entry) -> Html {
        let at = e.at_ns;
        let on_seek = ctx.props().on_seek.clone();
        let kind = match e.kind {
            KIND_PICK => "pick",
            KIND_WAKEUP => "wakeup",
            _ => "tick",
        };
        html! {
            <li class={classes!("entry", kind, e.outcome.then_some("yes"), e.clamp_decided.then_some("clamp"), (at == ctx.props().view_ns).then_some("now"))}
                data-at-ns={at.to_string()} data-cpu={e.cpu.to_string()} data-kind={kind}>
                <button class="seek" title="Move the time cursor here" onclick={Callback::from(move |_| on_seek.emit(at))}>
                    <span class="at">{ format::fmt_time(at) }</span>
                    <span class="cpu">{ format!("CPU {}", e.cpu) }</span>
                    <span class="text">{ &e.text }</span>
                </button>
                if !e.whatif.is_empty() {
                    <p class="whatif">{ format!("What if: {}.", e.whatif.join("; ")) }</p>
                }
                if !e.source.is_empty() {
                    <p class="source" title={e.models.clone()}>
                        { match source_link(&e.source) {
                            Some(href) => html! { <a href={href} target="_blank" rel="noopener">{ &e.source }</a> },
                            None => html! { <code>{ &e.source }</code> },
                        } }
                        <span class="muted">{ format!(" — {}", e.models) }</span>
                        { " " }
                        <button class="ghost small copy-link" title="Copy a link that opens this experiment at this decision, with the log open"
                            onclick={decision_link(ctx.props(), e)}>{ "copy a link to this decision" }</button>
                    </p>
                }
            </li>
        }
    }

    fn view_why(&self, ctx: &Context<Self>, (cpu, at): (u32, u64), why: Option<&WhyRan>) -> Html {
        let p = ctx.props();
        let close = p.on_unpick.reform(|_| ());
        let row = |label: &str, e: Option<&Entry>, none: &str| {
            let body = match e {
                Some(e) => {
                    let at = e.at_ns;
                    let seek = p.on_seek.clone();
                    html! {
                        <button class="seek" onclick={Callback::from(move |_| seek.emit(at))}>
                            <span class="at">{ format::fmt_time(at) }</span><span class="text">{ &e.text }</span>
                        </button>
                    }
                }
                None => html! { <span class="muted">{ none.to_string() }</span> },
            };
            html! { <tr><th scope="row">{ label.to_string() }</th><td>{ body }</td></tr> }
        };
        html! {
            <div class="inside-panel" id="why-ran" data-cpu={cpu.to_string()} data-at-ns={at.to_string()}>
                <button class="ghost small close" aria-label="Close" onclick={close}>{ "×" }</button>
                { match why.filter(|w| w.cpu == cpu) {
                    None => html! { <p class="status">{ "asking the worker…" }</p> },
                    Some(w) => html! {
                        <>
                        <h3>{ if w.task == NONE {
                            format!("CPU {cpu} at {}", format::fmt_time(at))
                        } else {
                            format!("Why did {} run on CPU {cpu} from {} to {}?", task_name(&p.info, w.task), format::fmt_time(w.start_ns),
                                w.end_ns.map_or_else(|| "now".to_string(), format::fmt_time))
                        } }</h3>
                        if w.task != NONE {
                            <table class="kv why"><tbody>
                                { row("Picked", w.pick.as_ref(), "no pick recorded") }
                                { row("Because", w.started_by.as_ref(), "the CPU was free (the previous task slept or was idle)") }
                                { row("Ended by", w.ended_by.as_ref(), if w.end_ns.is_some() { "no check: the task slept" } else { "still running" }) }
                            </tbody></table>
                        }
                        if let Some(n) = &w.note { <p class="hint">{ n }</p> }
                        </>
                    },
                } }
            </div>
        }
    }

    fn view_chart(&self, ctx: &Context<Self>, chart: Option<&Chart>) -> Html {
        let link = ctx.link();
        let p = ctx.props();
        let current = self.chart_task.or(p.selected).unwrap_or(0);
        html! {
            <div class="inside-panel" id="key-chart">
                <label for="chart-task">{ "Task " }</label>
                <select id="chart-task" onchange={link.callback(|e: Event| Msg::ChartTask(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                    <option value="" selected={self.chart_task.is_none()}>{ "the selected task" }</option>
                    { for p.info.tasks.iter().enumerate().map(|(i, t)| html! {
                        <option value={i.to_string()} selected={self.chart_task == Some(i as u32)}>{ &t.name }</option>
                    }) }
                </select>
                { match chart {
                    Some(c) if c.task == current => html! { <KeyChart chart={Rc::new(c.clone())} name={task_name(&p.info, c.task)} view_ns={p.view_ns} /> },
                    _ => html! { <p class="status">{ "recording…" }</p> },
                } }
            </div>
        }
    }
}
