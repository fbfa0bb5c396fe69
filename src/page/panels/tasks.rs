//! The tasks table: every task with its attributes and live figures, nice, latency nice and
//! slice editable. A component of its own with stable callbacks, so that it re-renders only
//! when what it shows changes (not at every pan of the timeline).

use std::rc::Rc;

use gloo::events::EventListener;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::draw::format;
use crate::draw::raster;
use crate::page::rows::{self, Part};
use crate::wire::proto::{Progress, RunInfo};

/// A row's pitch in CSS px until one has been measured (37.1 in Chromium at the default font:
/// a row with a number input).
const ROW_PX_GUESS: f64 = 37.0;

#[derive(Properties, PartialEq)]
pub struct TasksProps {
    pub info: Rc<RunInfo>,
    pub progress: Rc<Progress>,
    pub selected: Option<u32>,
    pub edit_error: Option<String>,
    pub on_select: Callback<Option<u32>>,
    /// (task, field, value typed)
    pub on_edit: Callback<(String, &'static str, String)>,
}

/// Where the table's body stands in the viewport, and the rows to draw for it
/// (`rows::window`), with the rows' pitch as measured (else `pitch`).
fn rows_in_view(table: &NodeRef, n: usize, pitch: f64) -> Option<((usize, usize), f64)> {
    let table = table.cast::<web_sys::Element>()?;
    let view_h = web_sys::window()?.inner_height().ok()?.as_f64()?;
    let body = table.query_selector("tbody").ok()??;
    // The pitch of two adjacent rows, collapsed borders included, is what a spacer must match;
    // not the first row after a spacer, which their collapsed border makes half a px shorter.
    let measured = table
        .query_selector("tbody tr[data-task] + tr[data-task] + tr[data-task]")
        .ok()
        .flatten()
        .and_then(|row| Some(row.get_bounding_client_rect().top() - row.previous_element_sibling()?.get_bounding_client_rect().top()));
    let pitch = measured.filter(|h| *h >= 1.0).unwrap_or(pitch);
    Some((rows::window(n, body.get_bounding_client_rect().top(), view_h, pitch), pitch))
}

/// A collapsed row (`visibility: collapse`: no height, but its cells count for the columns'
/// widths) holding each column's longest text among all the tasks, so that a windowed table's
/// columns are as wide as the whole table's and stay so while scrolling moves the rows drawn.
/// Without it the rows drawn alone set them: on hackbench-8cpu the latency columns went from
/// 52 to 80 px and the names from 133 to 151 px between the top and the bottom of the table.
/// Longest by characters, which is widest for the figures' digits and near enough for names.
fn sizer(info: &RunInfo, p: &Progress, view: u64) -> Html {
    // Only the winner becomes a String: the tasks' own texts are compared borrowed.
    fn longest<S: AsRef<str>>(texts: impl Iterator<Item = S>) -> String {
        let len = |s: &S| s.as_ref().chars().count();
        texts.fold(None, |a: Option<S>, b| if a.as_ref().is_some_and(|a| len(a) >= len(&b)) { a } else { Some(b) }).map_or_else(String::new, |s| s.as_ref().to_string())
    }
    let live = || p.live.iter();
    let tasks = || info.tasks.iter();
    html! {
        <tfoot class="sizer" aria-hidden="true">
            <tr>
                <td class="name"><span class="swatch"></span>{ longest(tasks().map(|t| t.name.as_str())) }</td>
                <td class="num share"><span class="val">{ longest(live().map(|l| format::fmt_pct(l.cpu_ns as f64 / view as f64))) }</span></td>
                <td class="num">{ longest(live().map(|l| format::fmt_int(l.wakeups))) }</td>
                <td class="num">{ longest(live().map(|l| format::fmt_us(l.lat_p50))) }</td>
                <td class="num">{ longest(live().map(|l| format::fmt_us(l.lat_p99))) }</td>
                <td class="num">{ longest(live().map(|l| format::fmt_int(l.switches))) }</td>
                <td></td><td></td><td></td>
                <td>{ longest(tasks().map(|t| t.cgroup.as_deref().unwrap_or("/"))) }</td>
                <td>{ longest(tasks().map(|t| t.affinity.as_str())) }</td>
                <td class="beh">{ longest(tasks().map(|t| t.behaviour.as_str())) }</td>
            </tr>
        </tfoot>
    }
}

/// Every task with its attributes and live figures; nice, latency nice and slice are editable.
/// A component of its own, so that panning the timeline does not re-render it. A long table
/// draws only the rows near the viewport (`page::rows`), following the page's scroll.
#[function_component(TasksTable)]
pub fn tasks_table(props: &TasksProps) -> Html {
        let info = &props.info;
        let p = &props.progress;
        let view = p.view_ns.max(1);
        let n = info.tasks.len();
        let table_ref = use_node_ref();
        let windowed = n > rows::WHOLE_UP_TO;
        // A long table can be narrowed to the tasks whose name contains what is typed.
        let query = use_state(String::new);
        let mut shown = if windowed { rows::matching(info.tasks.iter().map(|t| t.name.as_str()), &query) } else { (0..n).collect() };
        let found = shown.len();
        // The selected task (picked on the timeline, say) is shown whatever was typed.
        if let Some(s) = props.selected.map(|s| s as usize).filter(|&s| s < n) {
            if let Err(at) = shown.binary_search(&s) {
                shown.insert(at, s);
            }
        }
        let m = shown.len();
        // The rows drawn (positions in `shown`) and the rows' pitch: a new pitch re-renders the
        // spacers too.
        let range = use_state_eq(|| (rows::window(m, 0.0, 768.0, ROW_PX_GUESS), ROW_PX_GUESS));
        let follow = {
            let (table_ref, range) = (table_ref.clone(), range.clone());
            Rc::new(move || {
                if let Some(r) = rows_in_view(&table_ref, m, range.1) {
                    range.set(r);
                }
            })
        };
        {
            // A windowed table follows the page's scroll and the window's size...
            let follow = follow.clone();
            use_effect_with((m, windowed), move |&(_, windowed)| {
                let listeners = windowed.then(web_sys::window).flatten().map(|w| {
                    let again = follow.clone();
                    [EventListener::new(&w, "scroll", move |_| follow()), EventListener::new(&w, "resize", move |_| again())]
                });
                move || drop(listeners)
            });
        }
        // ...and what moved it at a render (a panel above opened, the run's figures grew): a
        // layout read after each render, which a window of rows keeps to a few ms.
        use_effect(move || {
            if windowed {
                follow();
            }
        });
        // The selected task's position among the rows shown (where it was put above).
        let selected = props.selected.and_then(|s| shown.binary_search(&(s as usize)).ok());
        // Few enough rows shown are all drawn at once, not after the next layout read.
        let parts = rows::parts(m, if m > rows::WHOLE_UP_TO { range.0 } else { (0, m) }, selected);
        let drawn: usize = parts.iter().map(|x| if let Part::Rows(a, b) = *x { b - a } else { 0 }).sum();
        let gap_px = range.1;
        let row = |at: usize| -> Html {
            let i = shown[at];
            let t = &info.tasks[i];
            let l = p.live.get(i).cloned().unwrap_or_default();
            let share = l.cpu_ns as f64 / view as f64;
            let width = format!("width: {}%", (share * 100.0).clamp(0.0, 100.0));
            let sel = props.selected == Some(i as u32);
            let swatch = format!("background: {}", raster::css(raster::task_rgb(i as u32)));
            let ti = i as u32;
            // Only eevdf-v6.12 and v6.18 have custom slices (live); elsewhere the file's value
            // is shown, ignored with a warning.
            let slice = if matches!(info.policy.as_str(), "eevdf-v6.12" | "eevdf-v6.18") { l.slice_us } else { t.slice_us };
            let edit = |field: &'static str| {
                let name = t.name.clone();
                props.on_edit.reform(move |e: Event| {
                    let inp: HtmlInputElement = e.target_unchecked_into();
                    (name.clone(), field, inp.value())
                })
            };
            html! {
                // Keyed, so that a row keeps its elements (an input being typed in) while
                // scrolling moves the window, instead of taking another task's.
                <tr key={i} class={classes!(sel.then_some("selected"))} data-task={t.name.clone()}
                    onclick={props.on_select.reform(move |_: MouseEvent| Some(ti))}>
                    <td class="name"><span class="swatch" style={swatch}></span>{ &t.name }</td>
                    <td class="num share"><span class="bar" style={width}></span><span class="val">{ format::fmt_pct(share) }</span></td>
                    <td class="num">{ format::fmt_int(l.wakeups) }</td>
                    <td class="num lat-p50">{ format::fmt_us(l.lat_p50) }</td>
                    <td class="num lat-p99">{ format::fmt_us(l.lat_p99) }</td>
                    <td class="num">{ format::fmt_int(l.switches) }</td>
                    <td><input type="number" class="edit edit-nice" min="-20" max="19" aria-label={format!("nice of {}", t.name)}
                        value={l.nice.to_string()} onchange={edit("nice")} /></td>
                    <td><input type="number" class="edit edit-latency-nice" min="-20" max="19" aria-label={format!("latency nice of {}", t.name)}
                        value={l.latency_nice.to_string()} onchange={edit("latency_nice")} /></td>
                    <td><input type="number" class="edit edit-slice" min="0" max="100000" placeholder="default" aria-label={format!("slice of {}", t.name)}
                        value={slice.map(|s| s.to_string()).unwrap_or_default()} onchange={edit("slice_us")} /></td>
                    <td>{ t.cgroup.clone().unwrap_or_else(|| "/".into()) }</td>
                    <td>{ &t.affinity }</td>
                    <td class="beh">{ &t.behaviour }</td>
                </tr>
            }
        };
        let mut body: Vec<Html> = Vec::with_capacity(drawn + 2);
        for part in &parts {
            match *part {
                Part::Rows(a, b) => body.extend((a..b).map(&row)),
                Part::Gap(g) => body.push(html! {
                    <tr key={format!("gap{}", body.len())} class="gap" aria-hidden="true" style={format!("height: {}px", g as f64 * gap_px)}><td colspan="12"></td></tr>
                }),
            }
        }
        if found == 0 {
            body.push(html! { <tr key="none" class="none"><td colspan="12">{ format!("No task's name contains \u{201c}{}\u{201d}.", query.trim()) }</td></tr> });
        }
        let on_query = {
            let query = query.clone();
            Callback::from(move |e: InputEvent| query.set(e.target_unchecked_into::<HtmlInputElement>().value()))
        };
        html! {
            <section class="tasks-panel">
                <h3>{ "Tasks" }</h3>
                if let Some(e) = &props.edit_error {
                    <p id="edit-error" class="error" role="alert">{ e }</p>
                }
                <p class="hint">{ "Edit nice, latency nice or slice: the change applies from the current time, like sched_setattr, and is recorded in the scenario's timeline." }</p>
                if windowed {
                    <p class="task-filter">
                        <label>{ "Find a task " }<input id="task-filter" type="search" placeholder="a part of its name"
                            value={(*query).clone()} oninput={on_query} /></label>
                        <span id="task-filter-count" class="hint">{ if found == n { format!("{n} tasks") } else { format!("{found} of {n} tasks") } }</span>
                    </p>
                }
                <div class="table-wrap">
                <table id="tasks-table" ref={table_ref} class={classes!(windowed.then_some("windowed"))}
                    data-tasks={drawn.to_string()} data-shown-tasks={m.to_string()} data-all-tasks={n.to_string()}>
                    <thead>
                        <tr>
                            <th>{ "Task" }</th>
                            <th class="num">{ "CPU share (%)" }</th>
                            <th class="num">{ "Wakeups" }</th>
                            <th class="num">{ "Lat. p50 (µs)" }</th>
                            <th class="num">{ "Lat. p99 (µs)" }</th>
                            <th class="num">{ "Switches" }</th>
                            <th>{ "nice" }</th>
                            <th>{ "latency nice" }</th>
                            <th>{ "slice (µs)" }</th>
                            <th>{ "cgroup" }</th>
                            <th>{ "CPUs" }</th>
                            <th>{ "behaviour" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for body }
                    </tbody>
                    if windowed {
                        { sizer(info, p, view) }
                    }
                </table>
                </div>
                if !p.groups.is_empty() {
                    <table id="live-groups" class="groups-live">
                        <caption>{ "Workloads and cgroups so far (a schbench's latencies are its workers'; a cgroup's include its children's)" }</caption>
                        <thead><tr>
                            <th>{ "" }</th><th class="num">{ "CPU (% of one CPU)" }</th><th class="num">{ "Wakeups" }</th>
                            <th class="num">{ "Lat. p50 (µs)" }</th><th class="num">{ "Lat. p99 (µs)" }</th><th class="num">{ "Completed in" }</th>
                        </tr></thead>
                        <tbody>
                            { for p.groups.iter().map(|g| html! {
                                <tr data-group={g.name.clone()}>
                                    <td class="name">{ &g.name }</td>
                                    <td class="num">{ format::fmt_pct(g.cpu_ns as f64 / view as f64) }</td>
                                    <td class="num">{ format::fmt_int(g.lat_count) }</td>
                                    <td class="num">{ format::fmt_us(g.lat_p50) }</td>
                                    <td class="num">{ format::fmt_us(g.lat_p99) }</td>
                                    <td class="num completion">{ g.completion_ns.map_or_else(|| "–".to_string(), format::fmt_time) }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                }
                <details class="run-details">
                    <summary>{ "Effective tunables and warnings" }</summary>
                    <table id="effective" class="kv">
                        <tbody>
                            { for info.effective.iter().map(|(k, v)| {
                                let shown = if k.ends_with("_ns") { format!("{} ({} ns)", format::fmt_ms(*v), format::fmt_int(*v)) } else { v.to_string() };
                                html! { <tr><th scope="row"><code>{ k }</code></th><td>{ shown }</td></tr> }
                            }) }
                        </tbody>
                    </table>
                    if info.warnings.is_empty() {
                        <p id="warnings" class="none">{ "No warnings." }</p>
                    } else {
                        <ul id="warnings">{ for info.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                    }
                </details>
            </section>
        }
    }
