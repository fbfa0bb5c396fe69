//! The page's views: header and picker, transport, timeline, tasks table, scheduler panel and
//! the help overlay. Everything shown comes from the worker's answers.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::draw::format;
use crate::draw::timeline::Timeline;
use crate::page::app::{App, Msg, SPEEDS};
use crate::page::logic::{self, IndexEntry, DEFAULT_STEM};
use crate::page::panels::scheduler::SchedPanel;
use crate::page::panels::tasks::TasksTable;
use crate::wire::proto::RunInfo;

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
    ("PageDown / PageUp  (N / B)", "lesson: next / previous step"),
    ("1 – 9", "lesson: choose an answer"),
    ("P", "presenter mode on / off"),
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
                <nav class="top-links">
                    <a id="link-start" href="#" title="Lessons, a first experiment, and every scenario">{ "Start here" }</a>
                    <button id="btn-help" class="ghost" title="Keyboard shortcuts (?)" onclick={link.callback(|_| Msg::Help(true))}>{ "? Shortcuts" }</button>
                </nav>
            </header>
            <main>
                <section class="controls">
                    <label for="scenario-picker">{ "Scenario" }</label>
                    <select id="scenario-picker" ref={self.picker.clone()} {onchange}>
                        if o.stem.as_deref().map_or(true, |s| !in_list(s)) {
                            <option value="" disabled=true>{ "— shared or custom scenario —" }</option>
                        }
                        { for logic::GROUPS.iter().enumerate().map(|(g, label)| html! {
                            <optgroup label={*label}>
                                { for entries.iter().filter(|e| logic::group_of(&e.stem) == g).map(|e| html! {
                                    <option value={e.stem.clone()}>{ e.label() }</option>
                                }) }
                            </optgroup>
                        }) }
                    </select>
                    if self.loading {
                        <span id="status" class="status">{ "Loading…" }</span>
                    }
                    <crate::page::open_file::OpenFile />
                    if self.text.is_some() {
                        <button id="btn-share" onclick={link.callback(|_| Msg::Share)} title="Copy a link to this experiment, edits included (L)">{ "Copy share link" }</button>
                    }
                    if self.edited() {
                        <span class="edited">{ if self.restored { "Edited experiment restored from your last visit." } else { "Edited." } }</span>
                        <button id="btn-discard" class="ghost" onclick={link.callback(|_| Msg::DiscardEdits)}>{ "Discard edits" }</button>
                    }
                </section>
                if let Some(l) = &self.share_link {
                    <div class="share-box">
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
                if let Some((why, _)) = &self.saved_error {
                    <div id="saved-error" class="error" role="alert">
                        <p>{ why }</p>
                        <p>
                            <button id="btn-download-saved" onclick={link.callback(|_| Msg::DownloadSaved)}>{ "Download my scenario" }</button>
                            { " " }
                            <button id="btn-discard-saved" class="ghost" onclick={link.callback(|_| Msg::DiscardSaved)}>{ "Discard its saved edits" }</button>
                        </p>
                    </div>
                }
                if let Some(stopped) = &self.run_stopped {
                    <div id="run-stopped" class="error" role="alert"><p>{ stopped }</p></div>
                }
                if let Some(n) = &self.notice {
                    <div id="notice" class="notice" role="status">
                        <span>{ n }</span>
                        <button class="ghost" onclick={link.callback(|_| Msg::Dismiss)} aria-label="Dismiss">{ "×" }</button>
                    </div>
                }
                if self.start {
                    <crate::page::panels::start::StartPage entries={entries.clone()} />
                }
                <section id="scenario" data-stem={o.stem.clone().unwrap_or_default()}>
                    if let Some(t) = &o.title {
                        <h2 id="scenario-title">{ t }</h2>
                    }
                    if let Some(d) = &o.description {
                        // Shown whole, never in a scroll box of its own; a long one (the threads'
                        // tables) or one beside a lesson, which says it step by step, starts folded.
                        <details class="description" open={d.len() <= 700 && !self.lesson_on()}>
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
                        { self.sched_panel() }
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
        let p = &self.progress;
        html! {
            <section id="run" data-view-ns={p.view_ns.to_string()} data-finished={p.finished.to_string()}
                data-events={p.events.to_string()} data-restarts={self.restarts.to_string()} data-settled={self.settled().to_string()}>
                <dl class="summary">
                    <div><dt>{ "Scenario" }</dt><dd id="report-scenario">{ &info.name }</dd></div>
                    <div><dt>{ "Policy" }</dt><dd id="policy">{ &info.policy }</dd></div>
                    <div><dt>{ "Duration" }</dt><dd id="duration">{ format::fmt_ms(info.duration_ns) }</dd></div>
                    <div><dt>{ "CPUs" }</dt><dd id="cpus">{ info.cpus }</dd></div>
                    <div><dt>{ "Events" }</dt><dd id="events">{ format::fmt_int(p.events) }</dd></div>
                    <div><dt>{ "Seed" }</dt><dd id="seed">{ info.seed }</dd></div>
                    <div><dt>{ "Worker speed" }</dt><dd id="meter">{ self.rate.map_or_else(|| "–".to_string(), |r| format!("{:.2} M events/s", r / 1e6)) }</dd></div>
                </dl>
                // A lesson needs its text, the timeline and what the step names on one screen:
                // with a lesson on, the lesson takes a column of its own beside them.
                { self.view_teach_tools(ctx) }
                <div class={classes!("stage", self.lesson_on().then_some("with-lesson"))}>
                    <div class="stage-lesson">{ self.view_lesson(ctx) }</div>
                    <div class="stage-main">
                        { self.view_transport(ctx, info) }
                        { self.view_zoom(ctx, info) }
                        <Timeline store={self.store.clone()} version={self.store_version} info={info.clone()} lane_mark={self.lane_mark()} big={self.teach.present}
                            view_ns={p.view_ns} running={self.running.clone()} selected={self.selected}
                            win={self.win} on_window={self.cb.window.clone()} on_select={self.cb.select.clone()} on_pick={self.cb.pick.clone()} />
                        <crate::page::panels::inside::Inside stage={self.teach.stage.clone()} info={info.clone()} text={self.text.clone()} data={self.insight.clone()} view_ns={p.view_ns} playing={self.playing} selected={self.selected}
                            picked={self.picked} on_ask={self.cb.ask.clone()} on_seek={self.cb.seek.clone()} on_unpick={self.cb.unpick.clone()} on_select={self.cb.select.clone()} />
                        // The rest of the run shares the column too, so the lesson stays beside
                        // whatever a step takes the class to (a histogram far down the page).
                        <div class="layout">
                            <TasksTable info={info.clone()} progress={self.progress.clone()} selected={self.selected}
                                edit_error={self.edit_error.clone()} on_select={self.cb.select.clone()} on_edit={self.cb.edit.clone()} />
                            { self.sched_panel() }
                        </div>
                        { self.view_groups() }
                        <crate::page::panels::measure::MeasurePanel text={self.text.clone()} on_seek={self.cb.seek.clone()} stage={self.teach.stage.clone()}
                            selected={self.selected.and_then(|i| info.tasks.get(i as usize)).map(|t| t.name.clone())} />
                    </div>
                </div>
            </section>
        }
    }

    /// Zoom buttons for the timeline (the same as W, S and 0), and the visible span.
    fn view_zoom(&self, ctx: &Context<Self>, info: &RunInfo) -> Html {
        let link = ctx.link();
        let d = info.duration_ns as f64;
        let (zin, zout) = (self.zoomed(0.5), self.zoomed(2.0));
        html! {
            <div class="zoom" role="group" aria-label="Timeline zoom" data-win={format!("{:.0}-{:.0}", self.win.0.max(0.0), (self.win.0 + self.win.1).min(d))}>
                <span class="hint">{ "Timeline (wheel: zoom, drag: pan)" }</span>
                <button id="btn-zoom-in" class="small" title="Zoom in (W)" onclick={link.callback(move |_| Msg::Window(zin))}>{ "+" }</button>
                <button id="btn-zoom-out" class="small" title="Zoom out (S)" onclick={link.callback(move |_| Msg::Window(zout))}>{ "−" }</button>
                <button id="btn-zoom-fit" class="small" title="Fit the whole run (0)" onclick={link.callback(move |_| Msg::Window((0.0, d)))}>{ "fit" }</button>
            </div>
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
                <button id="btn-start" title="Start (Home)" onclick={link.callback(|_| Msg::ToStart)}><span class="glyph">{ "|◀" }</span><span class="lbl">{ " start" }</span></button>
                <button id="btn-back-tick" title="Back one tick (←)" onclick={link.callback(|_| Msg::StepBackTick)}><span class="glyph">{ "◀◀" }</span><span class="lbl">{ " tick" }</span></button>
                <button id="btn-back-event" title="Back one event (,)" onclick={link.callback(|_| Msg::StepBackEvent)}><span class="glyph">{ "◀" }</span><span class="lbl">{ " event" }</span></button>
                <button id="btn-play" class="primary" title="Play / pause (Space)" disabled={p.finished}
                    onclick={link.callback(|_| Msg::PlayPause)}>{ if self.playing { "⏸ Pause" } else { "▶ Play" } }</button>
                <button id="btn-step-event" title="Step one event (.)" onclick={link.callback(|_| Msg::StepEvent)}><span class="lbl">{ "event " }</span><span class="glyph">{ "▶" }</span></button>
                <button id="btn-step-tick" title="Step one tick (→)" onclick={link.callback(|_| Msg::StepTick)}><span class="lbl">{ "tick " }</span><span class="glyph">{ "▶▶" }</span></button>
                <button id="btn-end" title="Run to the end (End)" onclick={link.callback(|_| Msg::ToEnd)}><span class="lbl">{ "end " }</span><span class="glyph">{ "▶|" }</span></button>
                // The thumb shows where the user asked to go while the run catches up, so that an
                // answer landing mid-drag does not pull it back from under the pointer.
                <input id="scrubber" type="range" min="0" max={d_us.to_string()} step="1"
                    value={(self.goal.unwrap_or(p.view_ns).min(info.duration_ns) / 1000).to_string()} oninput={on_scrub} aria-label="Simulated time" />
                <span id="time" class="time">{ format!("{} / {}", format::fmt_time(p.view_ns), format::fmt_time(info.duration_ns)) }</span>
                <label for="speed" class="lbl">{ "Speed" }</label>
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

    fn sched_panel(&self) -> Html {
        html! {
            <SchedPanel text={self.text.clone()} error={self.sched_error.clone()}
                warnings={self.info.as_ref().map(|i| i.warnings.clone()).unwrap_or_default()}
                on_policy={self.cb.policy.clone()} on_setting={self.cb.setting.clone()}
                staged={self.teach.stage.as_ref().and_then(|s| s.items.iter().find(|(k, _)| k == "switch")).map(|(_, f)| f.clone())} />
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
                    </p>
                    // Test-only controls, for links that ask for them (`&debug=1`).
                    if self.teach.diagnostics {
                    <p class="diagnostics">
                        <button id="btn-crash" class="ghost small" title="Testing: make the worker panic to see the recovery"
                            onclick={link.callback(|_| Msg::CrashWorker)}>{ "Crash the worker (test recovery)" }</button>
                        { " " }
                        <button id="btn-test-runaway" class="ghost small" title="Testing: stop the run at 50 ms as the core stops a runaway"
                            onclick={link.callback(|_| Msg::TestRunaway)}>{ "Stop the run at 50 ms (test)" }</button>
                    </p>
                    }
                </div>
            </div>
        }
    }
}

pub(crate) fn view_markdown(text: &str) -> Html {
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
