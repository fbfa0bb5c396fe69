//! The tasks table and the scheduler panel: components of their own with stable callbacks, so
//! that they re-render only when what they show changes (not at every pan of the timeline).

use std::rc::Rc;

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::draw::format;
use crate::draw::raster;
use crate::wire::proto::{Progress, RunInfo};
use crate::wire::settings::{self, Kind, FEATURES, POLICIES, SCALINGS, TUNABLES};

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
                            // Only eevdf-v6.12 has custom slices (live); elsewhere the file's value
                            // is shown, ignored with a warning.
                            let slice = if info.policy == "eevdf-v6.12" { l.slice_us } else { t.slice_us };
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

#[derive(Properties, PartialEq)]
pub struct SchedProps {
    /// The scenario as JSON.
    pub text: Option<String>,
    pub error: Option<String>,
    pub warnings: Vec<String>,
    pub on_policy: Callback<String>,
    /// (section, key, value; None = back to the default)
    pub on_setting: Callback<(&'static str, &'static str, Option<serde_json::Value>)>,
}

/// Policy, tunables and every feature of contract §1.2 with a one-line explanation. Changes go
/// into the scenario, which is then run again up to the current time.
#[function_component(SchedPanel)]
pub fn sched_panel(props: &SchedProps) -> Html {
        let Some(doc) = props.text.as_deref().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()) else {
            return html! {};
        };
        let policy = settings::policy(&doc);
        let pi = settings::policy_index(&policy);
        let on_policy = props.on_policy.reform(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            s.value()
        });
        let scaling = settings::get(&doc, "tunables", "tunable_scaling").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| "log".into());
        html! {
            <aside id="sched-panel" class="sched-panel">
                <h3>{ "Scheduler" }</h3>
                <label for="policy-select">{ "Policy" }</label>
                <select id="policy-select" onchange={on_policy}>
                    { for POLICIES.iter().map(|p| html! { <option value={*p} selected={*p == policy}>{ *p }</option> }) }
                </select>
                if let Some(e) = &props.error {
                    <p id="sched-error" class="error" role="alert">{ e }</p>
                }
                if !props.warnings.is_empty() {
                    <ul class="warnings">{ for props.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                }
                <h4>{ "Tunables (normalized, 1-CPU values)" }</h4>
                { for TUNABLES.iter().map(|t| {
                    let cur = settings::get(&doc, "tunables", t.key).and_then(|v| v.as_u64());
                    let used = t.defaults[pi].is_some();
                    let key = t.key;
                    let onchange = props.on_setting.reform(move |e: Event| {
                        let i: HtmlInputElement = e.target_unchecked_into();
                        let v = i.value();
                        ("tunables", key, if v.trim().is_empty() { None } else { Some(v.trim().parse::<u64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::String(v))) })
                    });
                    html! {
                        <div class={classes!("knob", (!used).then_some("unused"))}>
                            <label for={format!("tun-{key}")}><code>{ key }</code></label>
                            <input id={format!("tun-{key}")} type="number" min="0" placeholder={t.defaults[pi].map(|d| d.to_string()).unwrap_or_else(|| "not used".into())}
                                value={cur.map(|c| c.to_string()).unwrap_or_default()} {onchange} />
                            <p class="what">{ t.what }</p>
                        </div>
                    }
                }) }
                <div class="knob">
                    <label for="tun-tunable_scaling"><code>{ "tunable_scaling" }</code></label>
                    <select id="tun-tunable_scaling" onchange={props.on_setting.reform(|e: Event| {
                        let s: HtmlSelectElement = e.target_unchecked_into();
                        ("tunables", "tunable_scaling", Some(serde_json::Value::String(s.value())))
                    })}>
                        { for SCALINGS.iter().map(|s| html! { <option value={*s} selected={*s == scaling}>{ *s }</option> }) }
                    </select>
                    <p class="what">{ "How tunables grow with the CPU count: ×1, ×min(cpus, 8) or ×(1 + ilog2(min(cpus, 8)))." }</p>
                </div>
                <h4>{ "Features" }</h4>
                { for FEATURES.iter().map(|f| {
                    let key = f.key;
                    let default = f.defaults[pi];
                    let cur = settings::get(&doc, "features", key);
                    let shown = cur.as_ref().map(|v| match v { serde_json::Value::String(s) => s.clone(), v => v.to_string() })
                        .or(default.map(str::to_string)).unwrap_or_else(|| "false".into());
                    let control = match f.kind {
                        Kind::Bool => html! {
                            <input id={format!("feat-{key}")} type="checkbox" checked={shown == "true"}
                                onchange={props.on_setting.reform(move |e: Event| {
                                    let i: HtmlInputElement = e.target_unchecked_into();
                                    ("features", key, Some(serde_json::Value::Bool(i.checked())))
                                })} />
                        },
                        Kind::Choice(opts) => html! {
                            <select id={format!("feat-{key}")} onchange={props.on_setting.reform(move |e: Event| {
                                let s: HtmlSelectElement = e.target_unchecked_into();
                                ("features", key, Some(serde_json::Value::String(s.value())))
                            })}>
                                { for opts.iter().map(|o| html! { <option value={*o} selected={*o == shown}>{ *o }</option> }) }
                            </select>
                        },
                    };
                    let explicit = cur.is_some();
                    html! {
                        <div class={classes!("knob", default.is_none().then_some("unused"))} data-feature={key}>
                            { control }
                            <label for={format!("feat-{key}")}><code>{ key }</code></label>
                            if default.is_none() {
                                <span class="tag">{ format!("not in {policy}") }</span>
                            }
                            if explicit {
                                <button class="ghost small" title="Back to the policy's default"
                                    onclick={props.on_setting.reform(move |_: MouseEvent| ("features", key, None))}>{ "default" }</button>
                            }
                            <p class="what">{ f.what }</p>
                        </div>
                    }
                }) }
            </aside>
        }
    }
