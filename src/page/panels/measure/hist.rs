//! The measure panel's latency histogram: of the selected task, all tasks, a workload or a
//! cgroup, over the whole run, in runqlat's log2 buckets or linear ones, with its percentiles.

use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::choices::hist_sets;
use super::{Job, MeasurePanel, Msg};
use crate::wire::measure::Request;

impl MeasurePanel {
    /// Ask the measuring worker for the histogram chosen; false if there is nothing to ask.
    pub(super) fn ask_hist(&mut self, ctx: &Context<Self>) -> bool {
        let Some(task) = self.hist_of.clone().or_else(|| ctx.props().selected.clone()) else { return false };
        let width_us = match self.hist_width.trim() {
            "" => None,
            w => match w.parse::<u64>() {
                Ok(w) if w > 0 => Some(w),
                _ => {
                    self.error = Some(format!("Bucket width \"{w}\": give whole µs (1 or more), or leave it empty for runqlat's log2 buckets."));
                    return true;
                }
            },
        };
        let preempt = self.hist_preempt;
        self.send(ctx, Job::Histogram, |text| Request::Histogram { text, task, width_us, preempt });
        true
    }

    /// Draw the histogram on its canvas once it is on the page (after an answer or a change
    /// of scale).
    pub(super) fn draw_hist(&mut self) {
        if self.hist_drawn {
            return;
        }
        if let (Some(h), Some(c)) = (&self.hist, self.canvas.cast::<web_sys::HtmlCanvasElement>()) {
            let n: u64 = h.counts.iter().sum();
            let kind = h.width_us.map_or_else(|| "log2 buckets".to_string(), |w| format!("buckets of {w} µs"));
            crate::draw::charts::draw_hist(&c, &format!("{}: {}, {n} samples, {kind}", h.task, h.kind), &h.labels, &[(h.task.as_str(), &h.counts)], self.hist_log);
            self.hist_drawn = true;
        }
    }

    /// The histogram's choices, and the histogram with its percentiles once answered; `doc`
    /// is the scenario the panel has already read, `disabled` whether a request can be made.
    pub(super) fn view_hist(&self, ctx: &Context<Self>, doc: &Value, disabled: bool) -> Html {
        let link = ctx.link();
        html! {
            <>
                <h4>{ "Latency histogram" }</h4>
                <div class="ab-choose">
                    <label for="hist-of">{ "Of" }</label>
                    <select id="hist-of" onchange={link.callback(|e: Event| Msg::HistOf(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                        <option value="" selected={self.hist_of.is_none()}>{ ctx.props().selected.as_ref().map_or_else(|| "the selected task (none yet)".to_string(), |t| format!("the selected task ({t})")) }</option>
                        { for hist_sets(doc).into_iter().map(|x| html! { <option selected={self.hist_of.as_ref() == Some(&x)} value={x.clone()}>{ x }</option> }) }
                    </select>
                    <select id="hist-kind" aria-label="Which samples" onchange={link.callback(|e: Event| Msg::HistKind(e.target_unchecked_into::<HtmlSelectElement>().value()))}>
                        <option value="wakeup" selected={!self.hist_preempt}>{ "wakeup latency" }</option>
                        <option value="preempt" selected={self.hist_preempt}>{ "preempt delay" }</option>
                    </select>
                    <label for="hist-width">{ "buckets" }</label>
                    <input id="hist-width" type="text" inputmode="numeric" placeholder="log2" title="Empty: runqlat's log2 buckets of µs. A number: linear buckets that many µs wide." value={self.hist_width.clone()}
                        onchange={link.callback(|e: Event| Msg::HistWidth(e.target_unchecked_into::<HtmlInputElement>().value()))} />
                    <span class="hint">{ "µs wide (empty: log2)" }</span>
                    <label><input id="hist-log" type="checkbox" checked={self.hist_log}
                        onchange={link.callback(|e: Event| Msg::HistLog(e.target_unchecked_into::<HtmlInputElement>().checked()))} />{ " log scale" }</label>
                    <button id="btn-hist" disabled={disabled || (self.hist_of.is_none() && ctx.props().selected.is_none())} onclick={link.callback(|_| Msg::Histogram)}>{ "Histogram" }</button>
                    if self.hist.is_some() {
                        <button id="btn-hist-png" onclick={link.callback(|_| Msg::HistPng)}>{ "Download PNG" }</button>
                    }
                </div>
                if self.hist_of.is_none() && ctx.props().selected.is_none() {
                    <p class="hint">{ "Select a task (click it in the timeline or the table), or choose all tasks, a workload or a cgroup, for its wakeup-latency histogram over the whole run." }</p>
                }
                if let Some(h) = &self.hist {
                    <div class="hist-row">
                        <canvas id="hist-canvas" ref={self.canvas.clone()} width="640" height="300" data-task={h.task.clone()}
                            data-counts={h.counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")}
                            data-kind={h.kind.clone()} aria-label={format!("Histogram of the {} of {}", h.kind, h.task)} />
                        <table id="hist-pct" class="ab-task">
                            <caption>{ format!("{} percentiles (µs)", h.kind) }</caption>
                            <tbody>
                                { for h.pct.iter().map(|(f, x)| html! {
                                    <tr data-figure={f.clone()}><th scope="row">{ pct_label(f) }</th><td class="num">{ x.map_or_else(|| "–".into(), |v| format!("{v:.1}")) }</td></tr>
                                }) }
                            </tbody>
                        </table>
                    </div>
                    <details><summary>{ "As text (runqlat)" }</summary><pre id="hist-text">{ &h.text }</pre></details>
                }
            </>
        }
    }
}

/// "p99.5_us" as schbench heads its line: "99.5th".
fn pct_label(f: &str) -> String {
    match f {
        "max_us" => "max".into(),
        f => format!("{:.1}th", f.trim_start_matches('p').trim_end_matches("_us").parse::<f64>().unwrap_or(0.0)),
    }
}
