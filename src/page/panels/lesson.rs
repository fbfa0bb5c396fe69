//! The lesson panel: the step's text with the run's figures, next and back, what
//! the step points at, and predict-then-reveal: the student chooses, the worker checks the
//! choice against the simulation, and the panel shows the decision that explains the answer.
//! Also the exercise generator, the presenter toggle and the PNG export. State and actions
//! are in `page/app/teach.rs`.

use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::draw::format;
use crate::page::app::App;
use crate::page::app::teach::{msg, TeachMsg};
use crate::page::view::view_markdown;
use crate::wire::proto::EXERCISE_KINDS;
use crate::wire::proto::StepInfo;

impl App {
    /// Presenter mode, the PNG and animation exports and the exercises: one row above the
    /// lesson and the timeline.
    pub(crate) fn view_teach_tools(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let t = &self.teach;
        let present = t.present;
        html! {
            <div class="teach-tools" role="toolbar" aria-label="Teaching">
                <button id="btn-present" aria-pressed={present.to_string()} title="Large type, high contrast, fewer panels; keys only (P)"
                    onclick={link.callback(move |_| msg(TeachMsg::Present(!present)))}>
                    { if present { "Leave presenter mode" } else { "Presenter mode" } }
                </button>
                <button id="btn-png" title="Download the timeline as it is drawn now, as a PNG (for slides)"
                    onclick={link.callback(|_| msg(TeachMsg::Png))}>{ "Export PNG" }</button>
                <button id="btn-record" aria-pressed={t.rec.is_some().to_string()}
                    data-frames={t.rec.as_ref().map_or(0, |r| r.frames.len()).to_string()}
                    title="Record the timeline as it moves (play or step), then save it as an animated PNG"
                    onclick={link.callback(|_| msg(TeachMsg::Record))}>
                    { match &t.rec {
                        None => "● Record animation".to_string(),
                        Some(r) => format!("■ Stop and save ({} frames)", r.frames.len()),
                    } }
                </button>
                { self.view_exercises(ctx) }
            </div>
        }
    }

    /// The lesson's step (and what went wrong opening a link or a lesson).
    pub(crate) fn view_lesson(&self, ctx: &Context<Self>) -> Html {
        let t = &self.teach;
        html! {
            <>
            if !t.link_errors.is_empty() {
                <div id="link-error" class="error" role="alert">
                    { for t.link_errors.iter().map(|e| html! { <p>{ e }</p> }) }
                </div>
            }
            if let Some(e) = &t.lesson_error {
                <div id="lesson-error" class="error" role="alert"><p>{ e }</p></div>
            }
            if let Some(l) = &t.lesson {
                if let Some(s) = l.steps.get(t.step) {
                    { self.view_step(ctx, l.title.as_deref(), s, l.steps.len()) }
                }
            }
            </>
        }
    }

    fn view_step(&self, ctx: &Context<Self>, title: Option<&str>, s: &StepInfo, n: usize) -> Html {
        let link = ctx.link();
        let t = &self.teach;
        let i = t.step;
        html! {
            <section id="lesson" class="lesson-panel" data-step={(i + 1).to_string()} data-steps={n.to_string()} aria-label="Lesson">
                <div class="lesson-head">
                    <h3>{ format!("Lesson{}", title.map(|x| format!(": {x}")).unwrap_or_default()) }</h3>
                    <span id="lesson-pos" class="lesson-pos">{ format!("Step {} of {n}", i + 1) }</span>
                    <span class="lesson-at">{ format!("at {}", format::fmt_time(s.at_ns)) }</span>
                    <button id="btn-lesson-back" title="Previous step (PageUp, B)" disabled={i == 0}
                        onclick={link.callback(|_| msg(TeachMsg::Back))}>{ "◀ Back" }</button>
                    <button id="btn-lesson-next" class="primary" title="Next step (PageDown, N)" disabled={i + 1 >= n}
                        onclick={link.callback(|_| msg(TeachMsg::Next))}>{ "Next ▶" }</button>
                    <button id="btn-step-link" class="ghost small" title="Copy a link that opens this step"
                        onclick={link.callback(|_| msg(TeachMsg::StepLink))}>{ "link to this step" }</button>
                </div>
                <div id="lesson-text" class="lesson-text">{ view_markdown(&s.text) }</div>
                if !s.highlight.is_empty() {
                    <p class="highlights">
                        <span class="hint">{ "Look at: " }</span>
                        { for s.highlight.iter().map(|(k, v)| self.view_highlight(ctx, k, v)) }
                    </p>
                }
                if let Some(h) = &s.hint {
                    if t.hint {
                        <div id="lesson-hint" class="hint-box"><strong>{ "Hint: " }</strong>{ view_markdown(h) }</div>
                    } else {
                        <button id="btn-hint" class="ghost small" onclick={link.callback(|_| msg(TeachMsg::Hint(true)))}>{ "Show a hint" }</button>
                    }
                }
                if let Some(ask) = &s.ask {
                    { self.view_question(ctx, ask, s) }
                }
                if !s.tries.is_empty() {
                    { self.view_tries(ctx, s) }
                }
            </section>
        }
    }

    fn view_highlight(&self, ctx: &Context<Self>, kind: &str, what: &str) -> Html {
        let label = match kind {
            "task" => format!("task {what}"),
            "cpu" => format!("CPU {what}'s lane"),
            "tree" => format!("the runqueue tree of CPU {what}"),
            "decision" => format!("{what} decisions in the decision log"),
            "histogram" => format!("{what}'s latency histogram"),
            "switch" => format!("the {what} switch"),
            _ => format!("{kind} {what}"),
        };
        if kind == "task" {
            let name = what.to_string();
            html! {
                <button class="chip" data-kind={kind.to_string()} title="Select this task in the table and the timeline"
                    onclick={ctx.link().callback(move |_| msg(TeachMsg::SelectTask(name.clone())))}>{ label }</button>
            }
        } else {
            let (k, w) = (kind.to_string(), what.to_string());
            html! {
                <button class="chip" data-kind={kind.to_string()} title="Open it and scroll to it"
                    onclick={ctx.link().callback(move |_| msg(TeachMsg::Show(k.clone(), w.clone())))}>{ label }</button>
            }
        }
    }

    /// "Try it": each action the step offers, and after one, the step's figures before and
    /// after it (the run remade from 0 with the change), with the way back.
    fn view_tries(&self, ctx: &Context<Self>, s: &StepInfo) -> Html {
        let link = ctx.link();
        let tried = self.teach.tried.as_ref().filter(|t| t.step == self.teach.step);
        html! {
            <div id="lesson-try" class="try">
                <p class="try-actions">
                    <span class="hint">{ "Try it: " }</span>
                    { for s.tries.iter().enumerate().map(|(k, (label, set))| html! {
                        <button class="try-btn" data-try={k.to_string()} title={format!("Change the scenario ({}) and run it again from 0", set.join(", "))}
                            disabled={tried.is_some()} onclick={link.callback(move |_| msg(TeachMsg::Try(k)))}>{ label }</button>
                    }) }
                </p>
                if let Some(t) = tried {
                    <table id="try-figures" class="try-figures">
                        <caption>{ format!("{}: the whole run again from 0", t.label) }</caption>
                        <thead><tr><th>{ "figure" }</th><th class="num">{ "before" }</th><th class="num">{ "after" }</th></tr></thead>
                        <tbody>
                            { for t.before.iter().map(|(k, before)| {
                                let after = s.figures.iter().find(|(f, _)| f == k).filter(|_| t.after).map_or("…", |(_, v)| v.as_str());
                                html! {
                                    <tr data-figure={k.clone()} class={classes!((t.after && after != before.as_str()).then_some("changed"))}>
                                        <td class="fig">{ k.split_once(' ').map_or_else(|| k.clone(), |(f, task)| format!("{task}: {f}")) }</td><td class="num">{ before }</td><td class="num">{ after }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                    <button id="btn-untry" class="ghost small" onclick={link.callback(|_| msg(TeachMsg::Untry))}>{ "undo: back to the lesson's scenario" }</button>
                }
            </div>
        }
    }

    fn view_question(&self, ctx: &Context<Self>, ask: &str, s: &StepInfo) -> Html {
        let link = ctx.link();
        let t = &self.teach;
        let verdict = t.verdicts.get(t.step).and_then(|v| v.as_ref());
        html! {
            <div id="question" class="question">
                <p class="ask">{ ask }</p>
                if let Some(v) = verdict {
                    <div id="verdict" class={classes!("verdict", if v.correct { "right" } else { "wrong" })}
                        data-correct={v.correct.to_string()} role="status">
                        <p class="verdict-head">{
                            if v.correct {
                                format!("Right: the simulation says {}.", v.value)
                            } else {
                                format!("Not quite: you said {}, the simulation says {}.", v.choice, v.value)
                            }
                        }</p>
                        <p id="verdict-why">
                            <span class="hint">{ format!("Decision log, {}: ", format::fmt_time(v.at_ns)) }</span>
                            { &v.explanation }
                        </p>
                        <button id="btn-retry" class="ghost small" onclick={link.callback(|_| msg(TeachMsg::Retry))}>{ "answer again" }</button>
                    </div>
                } else {
                    <p class="hint"><span class="long">{ "Predict, then reveal: choose an answer; the simulation checks it." }</span>
                        if t.present { { format!(" Keys 1–{}.", s.choices.len().min(9)) } }</p>
                    <div class="choices" role="group" aria-label="Choices">
                        { for s.choices.iter().enumerate().map(|(k, c)| {
                            let choice = c.clone();
                            html! {
                                <button class="choice" data-choice={c.clone()} disabled={t.checking}
                                    onclick={link.callback(move |_| msg(TeachMsg::Choose(choice.clone())))}>
                                    if k < 9 { <kbd>{ k + 1 }</kbd>{ " " } }
                                    { c }
                                </button>
                            }
                        }) }
                    </div>
                    if t.checking {
                        <span class="status">{ "asking the simulation…" }</span>
                    }
                }
            </div>
        }
    }

    fn view_exercises(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let t = &self.teach;
        let on_kind = link.callback(|e: Event| {
            let s: HtmlSelectElement = e.target_unchecked_into();
            msg(TeachMsg::ExerciseKind(s.value()))
        });
        let on_seed = link.callback(|e: InputEvent| {
            let i: HtmlInputElement = e.target_unchecked_into();
            msg(TeachMsg::ExerciseSeed(i.value()))
        });
        html! {
            <details id="exercises" class="exercises">
                <summary>{ "Exercises" }</summary>
                <div class="exercise-form">
                    <label for="exercise-kind">{ "Kind" }</label>
                    <select id="exercise-kind" onchange={on_kind}>
                        { for EXERCISE_KINDS.iter().map(|(k, label)| html! {
                            <option value={*k} selected={*k == t.ex_kind}>{ *label }</option>
                        }) }
                    </select>
                    <label for="exercise-seed">{ "Seed" }</label>
                    <input id="exercise-seed" type="text" inputmode="numeric" size="8" value={t.ex_seed.clone()} oninput={on_seed} />
                    <button id="btn-exercise" onclick={link.callback(|_| msg(TeachMsg::NewExercise))}>{ "New exercise" }</button>
                    <span class="hint">{ "The same seed gives the same exercise: give each student their own." }</span>
                </div>
                <div class="exercise-form">
                    <label for="exercise-key-to">{ "Answer key for seeds from the seed above to" }</label>
                    <input id="exercise-key-to" type="text" inputmode="numeric" size="8" value={t.key_to.clone()}
                        oninput={link.callback(|e: InputEvent| msg(TeachMsg::KeyTo(e.target_unchecked_into::<HtmlInputElement>().value())))} />
                    <button id="btn-answer-key" title="A CSV with each student's link, question, answer and worked solution"
                        onclick={link.callback(|_| msg(TeachMsg::AnswerKey))}>{ "Download the answer key (CSV)" }</button>
                </div>
                if let Some(e) = &t.ex_error {
                    <p id="exercise-error" class="error" role="alert">{ e }</p>
                }
            </details>
        }
    }
}
