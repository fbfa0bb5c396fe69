//! The page's views: header and picker, transport, timeline, tasks table, scheduler panel and
//! the help overlay. Everything shown comes from the worker's answers.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::app::{App, Msg, SPEEDS};
use crate::logic::{self, IndexEntry, DEFAULT_STEM};
use crate::proto::RunInfo;
use crate::raster;
use crate::settings::{self, Kind, FEATURES, POLICIES, SCALINGS, TUNABLES};
use crate::timeline::Timeline;

const SHORTCUTS: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    ("→ / ←", "step one tick forward / back"),
    (". / ,  (Shift+→ / Shift+←)", "step one scheduler event forward / back"),
    ("Home / End", "go to the start / the end of the run"),
    ("] / [", "faster / slower"),
    ("W / S", "zoom the timeline in / out"),
    ("A / D", "pan the timeline left / right"),
    ("0", "fit the whole run"),
    ("Mouse wheel · Shift+wheel · drag", "zoom at the pointer · pan · pan"),
    ("Click a slice or a row", "select that task everywhere"),
    ("L", "copy a share link"),
    ("?", "show / hide this help"),
    ("Esc", "close the help, clear the selection"),
];

impl App {
    pub(crate) fn view_page(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let onchange = link.callback(|e: Event| {
            let sel: HtmlSelectElement = e.target_unchecked_into();
            Msg::Pick(sel.value())
        });
        let entries: Vec<IndexEntry> = match &self.index {
            Some(Ok(ix)) => ix.clone(),
            _ => vec![IndexEntry { stem: DEFAULT_STEM.into(), name: None, description: None }],
        };
        let in_list = |s: &str| entries.iter().any(|e| e.stem == s);
        let mut errors: Vec<String> = Vec::new();
        if let Some(Err(e)) = &self.index {
            errors.push(e.clone());
        }
        errors.extend(self.opened.errors.iter().cloned());
        let o = &self.opened;
        html! {
            <>
            <header class="top">
                <div>
                    <h1>{ "Fairground" }</h1>
                    <p class="tagline">{ "The Linux fair scheduler (CFS, latency nice, EEVDF), simulated in your browser." }</p>
                </div>
                <button id="btn-help" class="ghost" title="Keyboard shortcuts (?)" onclick={link.callback(|_| Msg::Help(true))}>{ "? Shortcuts" }</button>
            </header>
            <main>
                <section class="controls">
                    <label for="scenario-picker">{ "Scenario" }</label>
                    <select id="scenario-picker" ref={self.picker.clone()} {onchange}>
                        if o.stem.as_deref().map_or(true, |s| !in_list(s)) {
                            <option value="" disabled=true>{ "— shared or custom scenario —" }</option>
                        }
                        { for entries.iter().map(|e| html! {
                            <option value={e.stem.clone()}>{ e.label() }</option>
                        }) }
                    </select>
                    if self.loading {
                        <span id="status" class="status">{ "Loading…" }</span>
                    }
                    if self.text.is_some() {
                        <button id="btn-share" onclick={link.callback(|_| Msg::Share)} title="Copy a link to this experiment, edits included (L)">{ "Copy share link" }</button>
                    }
                    if self.edited() {
                        <span class="edited">{ if self.restored { "Edited experiment restored from your last visit." } else { "Edited." } }</span>
                        <button id="btn-discard" class="ghost" onclick={link.callback(|_| Msg::DiscardEdits)}>{ "Discard edits" }</button>
                    }
                </section>
                if let Some(l) = &self.share_link {
                    <div class="share">
                        <label for="share-link">{ "Share link (copied to the clipboard when allowed):" }</label>
                        <input id="share-link" readonly=true value={l.clone()} onfocus={Callback::from(|e: FocusEvent| {
                            let i: HtmlInputElement = e.target_unchecked_into();
                            i.select();
                        })} />
                    </div>
                }
                if !errors.is_empty() {
                    <div id="error" class="error" role="alert">
                        { for errors.iter().map(|e| html! { <p>{ e }</p> }) }
                    </div>
                }
                if let Some(n) = &self.notice {
                    <div id="notice" class="notice" role="status">
                        <span>{ n }</span>
                        <button class="ghost" onclick={link.callback(|_| Msg::Dismiss)} aria-label="Dismiss">{ "×" }</button>
                    </div>
                }
                <section id="scenario" data-stem={o.stem.clone().unwrap_or_default()}>
                    if let Some(t) = &o.title {
                        <h2 id="scenario-title">{ t }</h2>
                    }
                    if let Some(d) = &o.description {
                        <details class="description" open=true>
                            <summary>{ "About this scenario" }</summary>
                            { view_markdown(d) }
                        </details>
                    }
                </section>
                if let Some(info) = &self.info {
                    { self.view_run(ctx, info) }
                } else if self.text.is_some() {
                    <div class="layout">
                        <div></div>
                        { self.view_sched(ctx) }
                    </div>
                }
            </main>
            if self.help {
                { self.view_help(ctx) }
            }
            <footer>
                <p>{ "Fairground · Licence: GPL-2.0 · Runs entirely in your browser: the simulation runs in a Web Worker." }</p>
            </footer>
            </>
        }
    }

    fn view_run(&self, ctx: &Context<Self>, info: &std::rc::Rc<RunInfo>) -> Html {
        let link = ctx.link();
        let p = &self.progress;
        html! {
            <section id="run" data-view-ns={p.view_ns.to_string()} data-finished={p.finished.to_string()}
                data-events={p.events.to_string()} data-restarts={self.restarts.to_string()}>
                <dl class="summary">
                    <div><dt>{ "Scenario" }</dt><dd id="report-scenario">{ &info.name }</dd></div>
                    <div><dt>{ "Policy" }</dt><dd id="policy">{ &info.policy }</dd></div>
                    <div><dt>{ "Duration" }</dt><dd id="duration">{ logic::fmt_ms(info.duration_ns) }</dd></div>
                    <div><dt>{ "CPUs" }</dt><dd id="cpus">{ info.cpus }</dd></div>
                    <div><dt>{ "Events" }</dt><dd id="events">{ logic::fmt_int(p.events) }</dd></div>
                    <div><dt>{ "Seed" }</dt><dd id="seed">{ info.seed }</dd></div>
                    <div><dt>{ "Worker speed" }</dt><dd id="meter">{ self.rate.map_or_else(|| "–".to_string(), |r| format!("{:.2} M events/s", r / 1e6)) }</dd></div>
                </dl>
                { self.view_transport(ctx, info) }
                <Timeline store={self.store.clone()} version={self.store_version} info={info.clone()}
                    view_ns={p.view_ns} running={self.running.clone()} selected={self.selected}
                    win={self.win} on_window={link.callback(Msg::Window)} on_select={link.callback(Msg::Select)} />
                <div class="layout">
                    { self.view_tasks(ctx, info) }
                    { self.view_sched(ctx) }
                </div>
            </section>
        }
    }

    fn view_transport(&self, ctx: &Context<Self>, info: &RunInfo) -> Html {
        let link = ctx.link();
        let p = &self.progress;
        let d_us = info.duration_ns / 1000;
        let on_scrub = link.callback(|e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            Msg::Scrub(i.value().parse::<u64>().unwrap_or(0).saturating_mul(1000))
        });
        let on_speed = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::Speed(s.value().parse().unwrap_or(0))
        });
        let busy = self.goal.is_some() && !p.finished;
        html! {
            <div id="transport" class="transport" role="toolbar" aria-label="Transport">
                <button id="btn-start" title="Start (Home)" onclick={link.callback(|_| Msg::ToStart)}>{ "|◀ start" }</button>
                <button id="btn-back-tick" title="Back one tick (←)" onclick={link.callback(|_| Msg::StepBackTick)}>{ "◀◀ tick" }</button>
                <button id="btn-back-event" title="Back one event (,)" onclick={link.callback(|_| Msg::StepBackEvent)}>{ "◀ event" }</button>
                <button id="btn-play" class="primary" title="Play / pause (Space)" disabled={p.finished}
                    onclick={link.callback(|_| Msg::PlayPause)}>{ if self.playing { "⏸ Pause" } else { "▶ Play" } }</button>
                <button id="btn-step-event" title="Step one event (.)" onclick={link.callback(|_| Msg::StepEvent)}>{ "event ▶" }</button>
                <button id="btn-step-tick" title="Step one tick (→)" onclick={link.callback(|_| Msg::StepTick)}>{ "tick ▶▶" }</button>
                <button id="btn-end" title="Run to the end (End)" onclick={link.callback(|_| Msg::ToEnd)}>{ "end ▶|" }</button>
                <input id="scrubber" type="range" min="0" max={d_us.to_string()} step="1"
                    value={(p.view_ns / 1000).to_string()} oninput={on_scrub} aria-label="Simulated time" />
                <span id="time" class="time">{ format!("{} / {}", logic::fmt_time(p.view_ns), logic::fmt_time(info.duration_ns)) }</span>
                <label for="speed">{ "Speed" }</label>
                <select id="speed" onchange={on_speed}>
                    { for SPEEDS.iter().enumerate().map(|(i, (l, _))| html! {
                        <option value={i.to_string()} selected={i == self.speed}>{ *l }</option>
                    }) }
                </select>
                if busy {
                    <span class="status">{ "computing…" }</span>
                }
            </div>
        }
    }

    fn view_tasks(&self, ctx: &Context<Self>, info: &RunInfo) -> Html {
        let link = ctx.link();
        let p = &self.progress;
        let view = p.view_ns.max(1);
        html! {
            <section class="tasks-panel">
                <h3>{ "Tasks" }</h3>
                if let Some(e) = &self.edit_error {
                    <p id="edit-error" class="error" role="alert">{ e }</p>
                }
                <p class="hint">{ "Edit nice, latency nice or slice: the change applies from the current time, like sched_setattr, and is recorded in the scenario's timeline." }</p>
                <div class="table-wrap">
                <table id="tasks-table" data-tasks={info.tasks.len().to_string()}>
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
                        { for info.tasks.iter().enumerate().map(|(i, t)| {
                            let l = p.live.get(i).cloned().unwrap_or_default();
                            let share = l.cpu_ns as f64 / view as f64;
                            let width = format!("width: {}%", (share * 100.0).clamp(0.0, 100.0));
                            let sel = self.selected == Some(i as u32);
                            let swatch = format!("background: {}", raster::css(raster::task_rgb(i as u32)));
                            let ti = i as u32;
                            let edit = |field: &'static str| {
                                let name = t.name.clone();
                                link.callback(move |e: Event| {
                                    let inp: HtmlInputElement = e.target_unchecked_into();
                                    Msg::EditTask(name.clone(), field, inp.value())
                                })
                            };
                            html! {
                                <tr class={classes!(sel.then_some("selected"))} data-task={t.name.clone()}
                                    onclick={link.callback(move |_| Msg::Select(Some(ti)))}>
                                    <td class="name"><span class="swatch" style={swatch}></span>{ &t.name }</td>
                                    <td class="num share"><span class="bar" style={width}></span><span class="val">{ logic::fmt_pct(share) }</span></td>
                                    <td class="num">{ logic::fmt_int(l.wakeups) }</td>
                                    <td class="num lat-p50">{ logic::fmt_us(l.lat_p50) }</td>
                                    <td class="num lat-p99">{ logic::fmt_us(l.lat_p99) }</td>
                                    <td class="num">{ logic::fmt_int(l.switches) }</td>
                                    <td><input type="number" class="edit edit-nice" min="-20" max="19" aria-label={format!("nice of {}", t.name)}
                                        value={l.nice.to_string()} onchange={edit("nice")} /></td>
                                    <td><input type="number" class="edit edit-latency-nice" min="-20" max="19" aria-label={format!("latency nice of {}", t.name)}
                                        value={l.latency_nice.to_string()} onchange={edit("latency_nice")} /></td>
                                    <td><input type="number" class="edit edit-slice" min="0" max="100000" placeholder="default" aria-label={format!("slice of {}", t.name)}
                                        value={t.slice_us.map(|s| s.to_string()).unwrap_or_default()} onchange={edit("slice_us")} /></td>
                                    <td>{ t.cgroup.clone().unwrap_or_else(|| "/".into()) }</td>
                                    <td>{ &t.affinity }</td>
                                    <td class="beh">{ &t.behaviour }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
                </div>
                <details class="run-details">
                    <summary>{ "Effective tunables and warnings" }</summary>
                    <table id="effective" class="kv">
                        <tbody>
                            { for info.effective.iter().map(|(k, v)| {
                                let shown = if k.ends_with("_ns") { format!("{} ({} ns)", logic::fmt_ms(*v), logic::fmt_int(*v)) } else { v.to_string() };
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

    pub(crate) fn view_sched(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let Some(doc) = self.text.as_deref().and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok()) else {
            return html! {};
        };
        let policy = settings::policy(&doc);
        let pi = settings::policy_index(&policy);
        let on_policy = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            Msg::Policy(s.value())
        });
        let scaling = settings::get(&doc, "tunables", "tunable_scaling").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_else(|| "log".into());
        html! {
            <aside id="sched-panel" class="sched-panel">
                <h3>{ "Scheduler" }</h3>
                <label for="policy-select">{ "Policy" }</label>
                <select id="policy-select" onchange={on_policy}>
                    { for POLICIES.iter().map(|p| html! { <option value={*p} selected={*p == policy}>{ *p }</option> }) }
                </select>
                if let Some(e) = &self.sched_error {
                    <p id="sched-error" class="error" role="alert">{ e }</p>
                }
                if let Some(info) = &self.info {
                    if !info.warnings.is_empty() {
                        <ul class="warnings">{ for info.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                    }
                }
                <h4>{ "Tunables (normalized, 1-CPU values)" }</h4>
                { for TUNABLES.iter().map(|t| {
                    let cur = settings::get(&doc, "tunables", t.key).and_then(|v| v.as_u64());
                    let used = t.defaults[pi].is_some();
                    let key = t.key;
                    let onchange = link.callback(move |e: Event| {
                        let i: HtmlInputElement = e.target_unchecked_into();
                        let v = i.value();
                        Msg::Setting("tunables", key, if v.trim().is_empty() { None } else { Some(v.trim().parse::<u64>().map(serde_json::Value::from).unwrap_or(serde_json::Value::String(v))) })
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
                    <select id="tun-tunable_scaling" onchange={link.callback(|e: Event| {
                        let s: HtmlSelectElement = e.target_unchecked_into();
                        Msg::Setting("tunables", "tunable_scaling", Some(serde_json::Value::String(s.value())))
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
                                onchange={link.callback(move |e: Event| {
                                    let i: HtmlInputElement = e.target_unchecked_into();
                                    Msg::Setting("features", key, Some(serde_json::Value::Bool(i.checked())))
                                })} />
                        },
                        Kind::Choice(opts) => html! {
                            <select id={format!("feat-{key}")} onchange={link.callback(move |e: Event| {
                                let s: HtmlSelectElement = e.target_unchecked_into();
                                Msg::Setting("features", key, Some(serde_json::Value::String(s.value())))
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
                                    onclick={link.callback(move |_| Msg::Setting("features", key, None))}>{ "default" }</button>
                            }
                            <p class="what">{ f.what }</p>
                        </div>
                    }
                }) }
            </aside>
        }
    }

    fn view_help(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        html! {
            <div id="help" class="overlay" role="dialog" aria-modal="true" aria-labelledby="help-title"
                onclick={link.callback(|_| Msg::Help(false))}>
                <div class="dialog" onclick={Callback::from(|e: MouseEvent| e.stop_propagation())}>
                    <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                    <table class="kv">
                        <tbody>
                            { for SHORTCUTS.iter().map(|(k, v)| html! { <tr><th scope="row"><kbd>{ *k }</kbd></th><td>{ *v }</td></tr> }) }
                        </tbody>
                    </table>
                    <p class="hint">{ "Timeline: one lane per CPU, one colour per task (colour-blind-safe palette; hatched grey is idle). A darker top edge marks a pixel column where several tasks ran. What lies right of the red line was computed before you went back in time, and is faded." }</p>
                    <p>
                        <button id="btn-close-help" onclick={link.callback(|_| Msg::Help(false))}>{ "Close" }</button>
                        { " " }
                        <button id="btn-crash" class="ghost small" title="Testing: make the worker panic to see the recovery"
                            onclick={link.callback(|_| Msg::CrashWorker)}>{ "Crash the worker (test recovery)" }</button>
                    </p>
                </div>
            </div>
        }
    }
}

fn view_markdown(text: &str) -> Html {
    use logic::Inline;
    html! {
        { for logic::markdown_lite(text).into_iter().map(|p| html! {
            <p>{ for p.into_iter().map(|i| match i {
                Inline::Text(t) => html! { { t } },
                Inline::Strong(t) => html! { <strong>{ t }</strong> },
                Inline::Em(t) => html! { <em>{ t }</em> },
                Inline::Code(t) => html! { <code>{ t }</code> },
            }) }</p>
        }) }
    }
}
