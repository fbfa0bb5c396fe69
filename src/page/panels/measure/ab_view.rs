//! The A/B tables (wasm32 only): per task, A and B side by side with the change in percent, the
//! wakeup-latency percentiles as schbench prints them (50.0th … 99.9th, µs), as the tables of
//! the mailing-list threads.

use yew::prelude::*;

use crate::draw::format;
use crate::wire::ab::{AbLine, AbTable, AbTask, AbWhy};

/// Most task tables shown; the CSV has them all.
const MAX_TABLES: usize = 64;

/// Task tables shown at once beside a real run (the largest differences; a trace of a busy
/// machine has a hundred tasks and more), the rest up to `MAX_TABLES` one click away.
const REAL_FIRST: usize = 12;

/// How a figure is labelled, and how many decimals its values get.
fn label(figure: &str) -> (String, usize) {
    match figure {
        "cpu_ms" => ("CPU time (ms)".into(), 1),
        "wakeups" => ("wakeups".into(), 0),
        "wakeup_preemptions" => ("wakeup preemptions".into(), 0),
        "max_us" => ("max (µs)".into(), 1),
        "completion_ms" => ("completion (ms)".into(), 1),
        f => {
            let p = f.trim_start_matches('p').trim_end_matches("_us");
            let p: f64 = p.parse().unwrap_or(0.0);
            (format!("{p:.1}th (µs)"), 1)
        }
    }
}

fn num(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "–".into(), |v| format!("{v:.decimals$}"))
}

fn change(l: &AbLine) -> (String, &'static str) {
    match l.change_pct {
        Some(c) if c.abs() < 0.05 => ("0.0%".into(), "same"),
        Some(c) => (format!("{c:+.1}%"), if c > 0.0 { "up" } else { "down" }),
        None if l.a == Some(0.0) && l.b == Some(0.0) => ("0.0%".into(), "same"),
        None if l.a == Some(0.0) && l.b.is_some_and(|b| b != 0.0) => ("from 0".into(), "up"),
        None => (String::new(), "same"),
    }
}

pub fn view_ab(t: &AbTable, ms: f64, on_seek: &Callback<u64>) -> Html {
    let shown = t.tasks.len().min(MAX_TABLES);
    let first = if t.real.is_some() { shown.min(REAL_FIRST) } else { shown };
    html! {
        <div id={if t.real.is_some() { "real-result" } else { "ab-result" }} data-tasks={t.tasks.len().to_string()} data-ms={format!("{ms:.0}")} data-duration-ns={t.duration_ns.to_string()}>
            if let Some(r) = &t.real {
                <p class="hint">{ format!(
                    "real: {} ({}), as it ran. model: its replay under {}, {} ({:.0} ms in the worker). Largest differences first (CPU time as a share of the run, plus p99 wakeup latency as a share of the largest p99).",
                    r.file, r.format, t.policy_b, format::fmt_time(t.duration_ns), ms) }</p>
            } else {
                <p class="hint">
                    { format!("A: the scenario ({}). B: ", t.policy_a) }
                    { for t.b_changes.iter().map(|c| html! { <><code>{ c }</code>{ " " }</> }) }
                    { format!("({}). Seed {}, {} each, {:.0} ms for both runs.", t.policy_b, t.seed, format::fmt_ms(t.duration_ns), ms) }
                </p>
            }
            if shown < t.tasks.len() {
                <p class="hint">{ if shown > first {
                    format!("The {first} tasks that differ most, then the next {} behind a click: {shown} of {}; the CSV has them all.", shown - first, t.tasks.len())
                } else {
                    format!("Showing {shown} of {} tasks; the CSV has them all.", t.tasks.len())
                } }</p>
            }
            if let Some(w) = &t.why {
                { view_why(w, on_seek) }
            }
            <div class="ab-grid">{ for t.tasks[..first].iter().map(|task| view_task(t, task)) }</div>
            if shown > first {
                <details id="real-more">
                    <summary>{ format!("The next {} tasks", shown - first) }</summary>
                    <div class="ab-grid">{ for t.tasks[first..shown].iter().map(|task| view_task(t, task)) }</div>
                </details>
            }
        </div>
    }
}

/// One entity's table: each figure on both sides and the change.
fn view_task(t: &AbTable, task: &AbTask) -> Html {
    let (la, lb) = t.labels();
    html! {
        <table class="ab-task" data-task={task.name.clone()}>
            <caption>{ &task.name }</caption>
            <thead><tr><th></th><th class="num">{ la }</th><th class="num">{ lb }</th><th class="num">{ "change" }</th></tr></thead>
            <tbody>
                { for task.lines.iter().map(|l| {
                    let (name, d) = label(&l.figure);
                    let (c, class) = change(l);
                    html! {
                        <tr data-figure={l.figure.clone()}>
                            <th scope="row">{ name }</th>
                            <td class="num a">{ num(l.a, d) }</td>
                            <td class="num b">{ num(l.b, d) }</td>
                            <td class={classes!("num", "chg", class)}>{ c }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}

/// What changed, and why: the clamps' impact in each run, and where the two runs part.
fn view_why(w: &AbWhy, on_seek: &Callback<u64>) -> Html {
    const SITES: [&str; 3] = ["wakeup granularity", "latency offset", "tick"];
    html! {
        <div id="ab-why">
            if w.v12 {
                <table id="ab-clamps" class="kv">
                    <caption>{ "The get_latency_max() clamps over the whole run: bound / changed the outcome" }</caption>
                    <thead><tr><th>{ "site" }</th><th class="num">{ "A" }</th><th class="num">{ "B" }</th></tr></thead>
                    <tbody>
                        { for SITES.iter().enumerate().map(|(i, s)| html! {
                            <tr data-site={*s}>
                                <th scope="row">{ *s }</th>
                                <td class="num a">{ format!("{} / {}", w.clamp_a[i].0, w.clamp_a[i].1) }</td>
                                <td class="num b">{ format!("{} / {}", w.clamp_b[i].0, w.clamp_b[i].1) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
            if w.divergences.is_empty() {
                <p id="ab-divergence" class="hint">{ "A and B make the same decisions throughout the run." }</p>
            } else {
                <details id="ab-divergence" open=true>
                    <summary>{ format!("Where the runs part: first at {}", format::fmt_time(w.divergences[0].0)) }</summary>
                    <ol>
                        { for w.divergences.iter().map(|(at, a, b)| {
                            let (seek, at) = (on_seek.clone(), *at);
                            html! {
                            <li data-at-ns={at.to_string()}>
                                <button class="seek when" title="Move the time cursor here: the timeline, the trees and the decision log show run A at this decision"
                                    onclick={Callback::from(move |_| seek.emit(at))}>{ format::fmt_time(at) }</button>
                                <div class="a">{ "A: " }{ a }</div>
                                <div class="b">{ "B: " }{ b }</div>
                            </li>
                        }}) }
                    </ol>
                </details>
            }
        </div>
    }
}
