//! The tasks table: every task with its attributes and live figures, nice, latency nice and
//! slice editable. A component of its own with stable callbacks, so that it re-renders only
//! when what it shows changes (not at every pan of the timeline).

use std::rc::Rc;

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::draw::format;
use crate::draw::raster;
use crate::wire::proto::{Progress, RunInfo};

/// Most rows the tasks table shows.
const ROWS: usize = 300;

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

/// Every task with its attributes and live figures; nice, latency nice and slice are editable.
/// A component of its own, so that panning the timeline does not re-render it.
#[function_component(TasksTable)]
pub fn tasks_table(props: &TasksProps) -> Html {
        let info = &props.info;
        let p = &props.progress;
        let view = p.view_ns.max(1);
        // A table of thousands of live rows would cost more to re-render than the run: show
        // the first ROWS and the selected task; the timeline's hover names any task.
        let shown: Vec<usize> = (0..info.tasks.len())
            .filter(|&i| i < ROWS || props.selected == Some(i as u32))
            .collect();
        html! {
            <section class="tasks-panel">
                <h3>{ "Tasks" }</h3>
                if let Some(e) = &props.edit_error {
                    <p id="edit-error" class="error" role="alert">{ e }</p>
                }
                <p class="hint">{ "Edit nice, latency nice or slice: the change applies from the current time, like sched_setattr, and is recorded in the scenario's timeline." }</p>
                <div class="table-wrap">
                if shown.len() < info.tasks.len() {
                    <p class="hint" id="rows-note">{ format!("Showing {} of {} tasks (the first {ROWS}, and the selected one).", shown.len(), info.tasks.len()) }</p>
                }
                <table id="tasks-table" data-tasks={shown.len().to_string()} data-all-tasks={info.tasks.len().to_string()}>
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
                        { for shown.iter().map(|&i| {
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
                                <tr class={classes!(sel.then_some("selected"))} data-task={t.name.clone()}
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
                        }) }
                    </tbody>
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
