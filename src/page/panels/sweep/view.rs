//! The sweep panel's results: progress, the chart's choices, and the table (one row per value,
//! or the two-way matrix as the threads lay theirs out).

use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::{targets, Msg, Sweep, SweepPanel};
use crate::page::app::now_ms;
use crate::wire::sweep::{value_label, SweepFigures, FIGURES, FIGURE_SETS};
use serde_json::Value;

fn cell(p: Option<&SweepFigures>, entity: &str, fig: &str) -> String {
    let x = p.and_then(|p| p.entities.iter().find(|e| e.name == entity)).and_then(|e| e.figures.iter().find(|f| f.0 == fig)).and_then(|f| f.1);
    match (p, x) {
        (None, _) => String::new(),
        (Some(_), None) => "–".into(),
        (Some(_), Some(v)) if fig == "wakeups" => format!("{v:.0}"),
        (Some(_), Some(v)) => format!("{v:.1}"),
    }
}

const TABLE: [(&str, &str); 8] =
    [("wakeups", "wakeups"), ("p50_us", "50.0th"), ("p75_us", "75.0th"), ("p90_us", "90.0th"), ("p95_us", "95.0th"), ("p99_us", "99.0th"), ("p99.9_us", "99.9th"), ("max_us", "max")];

impl SweepPanel {
    pub(super) fn view_sweep(&self, ctx: &Context<Self>, s: &Sweep) -> Html {
        let link = ctx.link();
        let n = s.points.len();
        let elapsed = s.ms.unwrap_or_else(|| now_ms() - s.t0) / 1000.0;
        let state = match (s.ms, s.cancelled) {
            (None, _) => format!("{} of {n} points, {elapsed:.0} s, {} workers…", s.done, s.workers),
            (Some(_), true) => format!("Stopped after {} of {n} points ({elapsed:.1} s); the points done are kept.", s.done),
            (Some(_), false) => format!("{n} points in {elapsed:.1} s on {} workers.", s.workers),
        };
        let entity = self.entity_now(s);
        let names: Vec<String> = s.points.iter().flatten().next().map(|p| p.entities.iter().map(|e| e.name.clone()).collect()).unwrap_or_default();
        let stale = ctx.props().text.as_deref() != Some(s.text.as_str());
        html! {
            <div id="sweep-result" data-done={s.done.to_string()} data-points={n.to_string()} data-ms={s.ms.map(|m| format!("{m:.0}")).unwrap_or_default()} data-workers={s.workers.to_string()}>
                <p role="status"><progress id="sweep-progress" max={n.to_string()} value={s.done.to_string()} />{ " " }<span id="sweep-state">{ state }</span></p>
                if stale {
                    <p class="hint">{ "This sweep ran on the scenario as it was before your last change." }</p>
                }
                if s.done > 0 {
                    <div class="ab-choose">
                        <label for="sweep-entity">{ "Plot" }</label>
                        <select id="sweep-entity" onchange={link.callback(|e: Event| Msg::Entity(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                            { for names.iter().map(|x| html! { <option selected={Some(x) == entity.as_ref()} value={x.clone()}>{ x }</option> }) }
                        </select>
                        if s.by.is_some() {
                            <select id="sweep-figure" aria-label="Which figure" onchange={link.callback(|e: Event| Msg::Figure(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0)))}>
                                { for FIGURES.iter().enumerate().map(|(i, (_, l))| html! { <option selected={i == self.figure} value={i.to_string()}>{ *l }</option> }) }
                            </select>
                        } else {
                            <select id="sweep-figures" aria-label="Which figures" onchange={link.callback(|e: Event| Msg::Figures(e.target_unchecked_into::<HtmlSelectElement>().value().parse().unwrap_or(0)))}>
                                { for FIGURE_SETS.iter().enumerate().map(|(i, (l, _))| html! { <option selected={i == self.figures} value={i.to_string()}>{ *l }</option> }) }
                            </select>
                        }
                        <button id="btn-sweep-csv" onclick={link.callback(|_| Msg::Csv)}>{ "Download CSV" }</button>
                        <button id="btn-sweep-png" onclick={link.callback(|_| Msg::Png)}>{ "Download PNG" }</button>
                        <button id="btn-sweep-lkml" onclick={link.callback(|_| Msg::CopyText)} title="Fixed-width text in the threads' units, to paste into a mail">{ "Copy as LKML text" }</button>
                    </div>
                    <canvas id="sweep-canvas" ref={self.canvas.clone()} width="760" height="320" aria-label="The sweep's figures against the swept value" />
                    if let (Some(e), Some((bp, bvs))) = (&entity, &s.by) {
                        { self.view_matrix(s, e, bp, bvs) }
                    } else if let Some(e) = &entity {
                        <table id="sweep-table" class="ab-task" data-entity={e.clone()}>
                            <thead><tr><th>{ s.path.rsplit('.').next().unwrap_or("value") }</th>{ for TABLE.iter().map(|(_, h)| html! { <th class="num">{ *h }</th> }) }</tr></thead>
                            <tbody>
                                { for s.values.iter().zip(&s.points).map(|(v, p)| html! {
                                    <tr data-value={value_label(v)}>
                                        <th scope="row">{ value_label(v) }</th>
                                        { for TABLE.iter().map(|(f, _)| html! { <td class="num" data-figure={*f}>{ cell(p.as_ref(), e, f) }</td> }) }
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        <p class="hint">{ "Latencies in µs, schbench's percentiles; – where the point has no wakeup of it." }</p>
                    }
                    if let Some(e) = &entity {
                        <details id="sweep-lkml"><summary>{ "As LKML text" }</summary><pre>{ self.lkml_text(s, e) }</pre></details>
                    }
                }
            </div>
        }
    }
}

/// Paths a second parameter is often: every task's and workload's latency nice and nice, the
/// CPU count, the tunables.
pub(super) fn suggestions(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for kind in ["latency_nice", "nice"] {
        out.extend(targets(kind, doc).into_iter().map(|(t, _)| format!("{t}.{kind}")));
    }
    out.push("machine.cpus".into());
    out.extend(targets("tunable", doc).into_iter().map(|(t, _)| t));
    out
}

impl SweepPanel {
    /// A two-way sweep's table as the threads lay theirs out: the second parameter down, the
    /// first across, one figure in the cells.
    fn view_matrix(&self, s: &Sweep, entity: &str, by_path: &str, by_values: &[String]) -> Html {
        let (fig, label) = FIGURES[self.figure.min(FIGURES.len() - 1)];
        let n = s.values.len().max(1);
        html! {
            <>
                <table id="sweep-matrix" class="ab-task" data-entity={entity.to_string()} data-figure={fig}>
                    <caption>{ format!("{entity}: {label}; {by_path} down, {} across", s.path) }</caption>
                    <thead><tr><th>{ format!("{by_path} \\ {}", s.path) }</th>
                        { for s.values.iter().map(|v| html! { <th class="num">{ value_label(v) }</th> }) }</tr></thead>
                    <tbody>
                        { for by_values.iter().zip(s.points.chunks(n)).map(|(b, row)| html! {
                            <tr data-by={value_label(b)}>
                                <th scope="row">{ value_label(b) }</th>
                                { for s.values.iter().zip(row).map(|(v, p)| html! { <td class="num" data-value={value_label(v)}>{ cell(p.as_ref(), entity, fig) }</td> }) }
                            </tr>
                        }) }
                    </tbody>
                </table>
                <p class="hint">{ "– where the point has no such figure (no wakeup); the CSV has every figure of every point." }</p>
            </>
        }
    }
}
