//! The page's side of teaching (lessons, exercises, presenter mode) and of the group panel:
//! lesson steps move the time cursor and select what they name, choices go to the worker to be
//! checked against the simulation, exercises are made by the worker and opened as shared
//! scenarios, presenter mode and the step links (the timeline's PNGs are in `slides.rs`). No answer is ever
//! known here before the worker gives it. Views are in `panels/lesson.rs` and `panels/groups.rs`.

use std::rc::Rc;

use web_sys::KeyboardEvent;
use yew::prelude::*;

use super::slides::Recording;
use super::{current_hash, now_ms, App, Msg, Origin};
use crate::page::links::{self, LinkOptions};
use crate::page::logic;
use crate::page::open::Opened;
use crate::wire::proto::EXERCISE_KINDS;
use crate::wire::proto::{GroupsInfo, Input, LessonInfo, Output, Verdict};

/// Group weights are asked for at most this often while the view moves.
const GROUPS_EVERY_MS: f64 = 400.0;
pub enum TeachMsg {
    Go(usize),
    Next,
    Back,
    Choose(String),
    Retry,
    ExerciseKind(String),
    ExerciseSeed(String),
    NewExercise,
    Present(bool),
    StepLink,
    Png,
    Record,
    SelectTask(String),
    /// A chip of the step: open and scroll to what it names.
    Show(String, String),
    /// The step's "Try it" action `k`: make the change and run again from 0.
    Try(usize),
    /// Back to the scenario as it was before the last "Try it".
    Untry,
    /// Show or hide the step's hint.
    Hint(bool),
    /// The last seed of the answer key (the first is the seed field's).
    KeyTo(String),
    /// Download the answer key of the exercise kind for seeds from..=to.
    AnswerKey,
}

/// Which edge of an element a scroll brings into view: its top (a panel the step names, below
/// the sticky bar), or its bottom (what was just added at the end of the lesson column).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ScrollBy {
    Start,
    End,
}

/// A "Try it" made at a step: the figures the step showed before it, and the scenario to go
/// back to.
pub struct Tried {
    pub step: usize,
    pub label: String,
    pub before: Vec<(String, String)>,
    undo: String,
    /// The worker has made the changed scenario, and it is being run again.
    made: bool,
    /// The run again has sent its lesson figures: until then the step's figures are still
    /// the ones from before, and "after" shows as pending, not as a copy of "before".
    pub after: bool,
}

pub struct Teach {
    pub lesson: Option<Rc<LessonInfo>>,
    pub lesson_error: Option<String>,
    pub step: usize,
    pub verdicts: Vec<Option<Verdict>>,
    pub checking: bool,
    /// A step a link asked for, applied when the lesson arrives.
    pending_step: Option<usize>,
    /// The view a link asked for (time, task, panels), applied after the step.
    pending_view: Option<LinkOptions>,
    /// The scenario was just opened from the fragment: its lesson starts at step 1.
    fresh: bool,
    pub link_errors: Vec<String>,
    pub present: bool,
    /// What the current step opened, for the panels (`panels::Stage`).
    pub stage: Option<Rc<crate::page::panels::Stage>>,
    /// The last stage's number: it only grows, so a panel never mistakes a new stage for one
    /// it acted on (a step without highlights clears `stage`).
    stage_seq: u32,
    /// An element to scroll to once the page has drawn it (a staged switch).
    pub scroll_to: Option<(String, ScrollBy)>,
    pub ex_kind: String,
    pub ex_seed: String,
    pub ex_error: Option<String>,
    /// An `#exercise=` link being opened: (kind, seed).
    ex_link: Option<(String, u64)>,
    pub rec: Option<Recording>,
    pub groups: Option<Rc<GroupsInfo>>,
    pub has_groups: bool,
    groups_asked: f64,
    groups_view: Option<u64>,
    pub tried: Option<Tried>,
    /// The step's hint is shown.
    pub hint: bool,
    pub key_to: String,
    /// The link asked for the diagnostics in the help (`&debug=1`).
    pub diagnostics: bool,
}

impl Default for Teach {
    fn default() -> Self {
        Teach {
            lesson: None,
            lesson_error: None,
            step: 0,
            verdicts: Vec::new(),
            checking: false,
            pending_step: None,
            pending_view: None,
            fresh: false,
            link_errors: Vec::new(),
            present: false,
            stage: None,
            stage_seq: 0,
            scroll_to: None,
            ex_kind: EXERCISE_KINDS[0].0.to_string(),
            ex_seed: "1".to_string(),
            ex_error: None,
            ex_link: None,
            rec: None,
            groups: None,
            has_groups: false,
            groups_asked: 0.0,
            groups_view: None,
            tried: None,
            hint: false,
            key_to: "30".to_string(),
            diagnostics: false,
        }
    }
}

impl App {
    /// A run was built: ask for its lesson, and read the link's options if it was opened
    /// from the fragment.
    pub(super) fn teach_loaded(&mut self, ctx: &Context<Self>) {
        let t = &mut self.teach;
        if self.origin == Origin::Fragment {
            let (o, errors) = links::link_options(&current_hash());
            t.pending_step = o.step;
            t.pending_view = (o.t.is_some() || o.task.is_some() || !o.panels.is_empty() || o.ab.is_some() || o.win.is_some()).then(|| o.clone());
            t.diagnostics = o.debug;
            t.link_errors = errors;
            t.step = 0;
            t.fresh = true;
            if o.present {
                set_present(t, true);
            }
        }
        if self.origin == Origin::Fragment {
            t.tried = None;
        }
        t.lesson = None;
        t.lesson_error = None;
        t.verdicts.clear();
        t.checking = false;
        t.groups = None;
        t.groups_view = None;
        t.has_groups = self.info.as_ref().is_some_and(|i| i.tasks.iter().any(|x| x.cgroup.is_some()));
        self.request(ctx, Input::Lesson);
    }

    pub(super) fn teach_output(&mut self, ctx: &Context<Self>, out: Output) {
        match out {
            Output::Lesson(Ok(Some(l))) => {
                let n = l.steps.len();
                self.teach.verdicts = vec![None; n];
                self.teach.lesson = Some(Rc::new(l));
                let fresh = std::mem::take(&mut self.teach.fresh);
                match self.teach.pending_step.take() {
                    Some(p) => match links::step_problem(p, Some(n)) {
                        Some(why) => {
                            self.teach.link_errors.push(why);
                            self.go_step(ctx, 0);
                        }
                        None => self.go_step(ctx, p),
                    },
                    None if fresh && !self.restored => self.go_step(ctx, 0),
                    None => self.teach.step = self.teach.step.min(n.saturating_sub(1)),
                }
                if let Some(t) = &mut self.teach.tried {
                    // The lesson of the scenario run again: its figures are the "after".
                    t.after |= t.made;
                }
                if self.teach.tried.as_ref().is_some_and(|t| t.step == self.teach.step) {
                    self.teach.scroll_to = Some(("lesson-try".into(), ScrollBy::End));
                }
                self.apply_link_view(ctx);
            }
            Output::Lesson(Ok(None)) => {
                self.teach.fresh = false;
                if let Some(why) = self.teach.pending_step.take().and_then(|p| links::step_problem(p, None)) {
                    self.teach.link_errors.push(why);
                }
                self.apply_link_view(ctx);
            }
            Output::Lesson(Err(e)) => self.teach.lesson_error = Some(format!("The lesson could not be prepared: {e}")),
            Output::AnswerKey(Ok(csv)) => {
                let name = format!("answer-key-{}-{}-{}.csv", self.teach.ex_kind, self.teach.ex_seed.trim(), self.teach.key_to.trim());
                match crate::page::export_web::save_text(&name, "text/csv", &csv) {
                    // The object URL must outlive the download the browser queued.
                    Ok(url) => std::mem::forget(url),
                    Err(e) => self.teach.ex_error = Some(format!("The download failed: {e}")),
                }
            }
            Output::AnswerKey(Err(e)) => self.teach.ex_error = Some(format!("The answer key could not be made: {e}")),
            Output::Tried(Ok(text)) => {
                if let Some(t) = &mut self.teach.tried {
                    t.made = true;
                }
                self.run_again(ctx, text);
            }
            Output::Tried(Err(e)) => {
                let label = self.teach.tried.take().map(|t| t.label).unwrap_or_default();
                self.teach.lesson_error = Some(format!("\"{label}\" could not be made: {e}"));
            }
            Output::Checked(r) => {
                self.teach.checking = false;
                match r {
                    Ok(v) => {
                        if let Some(slot) = self.teach.verdicts.get_mut(v.step as usize) {
                            *slot = Some(v);
                        }
                    }
                    Err(e) => self.teach.lesson_error = Some(format!("The answer could not be checked: {e}")),
                }
            }
            Output::Exercise(r) => {
                let Some((kind, seed)) = self.teach.ex_link.take() else { return };
                // The exercise form follows the open exercise, so its answer key starts there.
                self.teach.ex_kind = kind.clone();
                self.teach.ex_seed = seed.to_string();
                let label = EXERCISE_KINDS.iter().find(|k| k.0 == kind).map_or(kind.as_str(), |k| k.1);
                match r {
                    Ok(text) => {
                        self.opened = Opened {
                            stem: None,
                            title: Some(format!("Exercise {seed}: {label}")),
                            description: Some(format!("A generated exercise (kind {kind}, seed {seed}): the same kind and seed always give the same exercise, and the simulation checks the answer.")),
                            errors: Vec::new(),
                            text: Some(text.clone()),
                        };
                        self.restored = false;
                        self.notice = None;
                        self.share_link = None;
                        self.load(ctx, text, Origin::Fragment);
                    }
                    Err(e) => {
                        self.loading = false;
                        self.opened = Opened { errors: vec![format!("{}.", crate::page::open::capitalize(&e))], ..Opened::default() };
                    }
                }
            }
            Output::Groups(g) => {
                self.teach.groups = (!g.names.is_empty()).then(|| Rc::new(g));
            }
            _ => {}
        }
    }

    /// What a link carried of the sender's view: the panels, the selected task, the time (after
    /// the lesson step, which it overrides). A task the scenario lacks is named, not fatal.
    fn apply_link_view(&mut self, ctx: &Context<Self>) {
        let Some(o) = self.teach.pending_view.take() else { return };
        let mut items: Vec<(String, String)> = o
            .panels
            .iter()
            .map(|p| match p.as_str() {
                "log" => ("decision".to_string(), String::new()),
                "trees" => ("tree".to_string(), "0".to_string()),
                _ => ("chart".to_string(), String::new()),
            })
            .collect();
        if let Some(ab) = &o.ab {
            items.push(("ab".to_string(), ab.clone()));
        }
        self.stage(items, false);
        if let Some((a, b)) = o.win {
            let d = self.info.as_ref().map_or(b, |i| i.duration_ns);
            self.win = crate::draw::format::clamp_window(a as f64, (b - a) as f64, d);
        }
        if let Some(name) = &o.task {
            match self.task_index(name) {
                Some(i) => self.selected = Some(i),
                None => self.teach.link_errors.push(format!("The link selects the task \"{name}\", which this scenario does not have.")),
            }
        }
        if let Some(t) = o.t {
            let end = self.info.as_ref().map_or(t, |i| i.duration_ns);
            if t > end {
                self.teach.link_errors.push(format!("The link's time {} is past the end of the run; it opens at the end.", crate::draw::format::fmt_time(t)));
            }
            self.seek(ctx, t.min(end));
        }
    }

    /// The view to put in a link: the time cursor, the selected task, the open panels.
    pub(crate) fn view_options(&self) -> LinkOptions {
        let mut panels = Vec::new();
        if self.ask.log.is_some() {
            panels.push("log".to_string());
        }
        if self.ask.trees.is_some() {
            panels.push("trees".to_string());
        }
        if self.ask.chart.is_some() {
            panels.push("chart".to_string());
        }
        let task = self.selected.and_then(|i| self.info.as_ref()?.tasks.get(i as usize)).map(|t| t.name.clone());
        // The zoom travels when it is not the whole run.
        let d = self.info.as_ref().map_or(0, |i| i.duration_ns);
        let (t0, span) = self.win;
        let (a, b) = (t0.max(0.0) as u64, (t0 + span).max(0.0) as u64);
        let win = (d > 0 && (a > 0 || b < d) && a < b).then_some((a, b.min(d.max(a + 1))));
        LinkOptions { t: (self.progress.view_ns > 0).then_some(self.progress.view_ns), task, panels, win, ..Default::default() }
    }

    /// Move to lesson step `i`: the time cursor to its time, the task it names selected.
    fn go_step(&mut self, ctx: &Context<Self>, i: usize) {
        let Some(l) = self.teach.lesson.clone() else { return };
        let Some(s) = l.steps.get(i) else { return };
        if self.teach.step != i {
            self.teach.hint = false;
        }
        self.teach.step = i;
        let task = s.highlight.iter().find(|(k, _)| k == "task").map(|(_, n)| n.clone());
        self.selected = task.and_then(|n| self.task_index(&n));
        // The step opens the panels it names (the trees, the log, a histogram), so that what
        // the text asks the class to look at is on the page; its chips scroll to each.
        let items: Vec<_> = s.highlight.iter().filter(|(k, _)| k != "task" && k != "cpu").cloned().collect();
        if items.is_empty() {
            self.teach.stage = None;
        }
        // A histogram is drawn far below the timeline: a step that names one takes the class
        // there (the lesson column stays beside it). Any other step's panels are at the top,
        // where a projector's page goes back to.
        let to_hist = items.iter().any(|(k, _)| k == "histogram");
        if !to_hist && self.teach.present {
            if let Some(w) = web_sys::window() {
                if w.scroll_y().unwrap_or(0.0) > 0.0 {
                    w.scroll_to_with_x_and_y(0.0, 0.0);
                }
            }
        }
        self.stage(items, to_hist);
        self.seek(ctx, s.at_ns);
    }

    fn stage(&mut self, items: Vec<(String, String)>, scroll: bool) {
        if items.is_empty() {
            return;
        }
        self.teach.stage_seq += 1;
        self.teach.stage = Some(Rc::new(crate::page::panels::Stage { seq: self.teach.stage_seq, items, scroll }));
    }

    /// Ask the worker for the scenario a step's "Try it" makes (the change the text asks for,
    /// on the scenario as it is now); it is then run again from 0 to where the class is, and
    /// the step shows its figures before and after.
    fn try_it(&mut self, ctx: &Context<Self>, k: usize) {
        let Some(l) = self.teach.lesson.clone() else { return };
        let Some(s) = l.steps.get(self.teach.step) else { return };
        let (Some((label, _)), Some(undo)) = (s.tries.get(k), self.text.clone()) else { return };
        self.teach.tried = Some(Tried { step: self.teach.step, label: label.clone(), before: s.figures.clone(), undo, made: false, after: false });
        self.request(ctx, Input::TryIt { step: self.teach.step as u32, action: k as u32 });
    }

    /// Whether a lesson step is on screen (the page then gives the lesson a column of its own).
    pub(crate) fn lesson_on(&self) -> bool {
        self.teach.lesson.as_ref().is_some_and(|l| self.teach.step < l.steps.len())
    }

    /// The CPU lane the current lesson step points at, if any.
    pub(crate) fn lane_mark(&self) -> Option<u32> {
        let l = self.teach.lesson.as_ref()?;
        let s = l.steps.get(self.teach.step)?;
        s.highlight.iter().find(|(k, _)| k == "cpu").and_then(|(_, c)| c.parse().ok())
    }

    fn task_index(&self, name: &str) -> Option<u32> {
        self.info.as_ref()?.tasks.iter().position(|t| t.name == name).map(|i| i as u32)
    }

    pub(super) fn teach_update(&mut self, ctx: &Context<Self>, m: TeachMsg) -> bool {
        let n = self.teach.lesson.as_ref().map_or(0, |l| l.steps.len());
        match m {
            TeachMsg::Go(i) => self.go_step(ctx, i),
            TeachMsg::Next if self.teach.step + 1 < n => self.go_step(ctx, self.teach.step + 1),
            TeachMsg::Back if self.teach.step > 0 && n > 0 => self.go_step(ctx, self.teach.step - 1),
            TeachMsg::Next | TeachMsg::Back => return false,
            TeachMsg::Choose(choice) => {
                if self.teach.checking || n == 0 {
                    return false;
                }
                self.teach.checking = true;
                self.teach.lesson_error = None;
                self.request(ctx, Input::Check { step: self.teach.step as u32, choice });
            }
            TeachMsg::Retry => {
                if let Some(v) = self.teach.verdicts.get_mut(self.teach.step) {
                    *v = None;
                }
            }
            TeachMsg::ExerciseKind(k) => self.teach.ex_kind = k,
            TeachMsg::ExerciseSeed(s) => self.teach.ex_seed = s,
            TeachMsg::NewExercise => match self.teach.ex_seed.trim().parse::<u64>() {
                Ok(seed) => {
                    // A short link a teacher can hand out; it opens through `hashchange`.
                    self.teach.ex_error = None;
                    let o = LinkOptions { seed: Some(seed), present: self.teach.present, ..Default::default() };
                    if let Some(w) = web_sys::window() {
                        let _ = w.location().set_hash(&links::with_options(&format!("exercise={}", self.teach.ex_kind), &o));
                    }
                }
                Err(_) => {
                    self.teach.ex_error =
                        Some(format!("The seed \"{}\" is not a whole number from 0 to {}.", self.teach.ex_seed.trim(), u64::MAX));
                }
            },
            TeachMsg::Present(on) => set_present(&mut self.teach, on),
            TeachMsg::StepLink => self.step_link(),
            TeachMsg::Png => self.export_timeline_png(),
            TeachMsg::Record => match self.teach.rec.take() {
                None => {
                    self.teach.rec = Some(Recording::default());
                    self.capture();
                }
                Some(r) => self.save_recording(r),
            },
            TeachMsg::SelectTask(name) => self.selected = self.task_index(&name),
            TeachMsg::Try(k) => self.try_it(ctx, k),
            TeachMsg::Hint(on) => self.teach.hint = on,
            TeachMsg::KeyTo(s) => self.teach.key_to = s,
            TeachMsg::AnswerKey => {
                let (from, to) = (self.teach.ex_seed.trim().parse::<u64>(), self.teach.key_to.trim().parse::<u64>());
                match (from, to) {
                    (Ok(from), Ok(to)) => {
                        self.teach.ex_error = None;
                        self.request(ctx, Input::AnswerKey { kind: self.teach.ex_kind.clone(), from, to });
                    }
                    _ => self.teach.ex_error = Some(format!("The seeds \"{}\" to \"{}\" are not whole numbers.", self.teach.ex_seed.trim(), self.teach.key_to.trim())),
                }
            }
            TeachMsg::Untry => {
                if let Some(undo) = self.teach.tried.take().map(|t| t.undo) {
                    self.run_again(ctx, undo);
                }
            }
            TeachMsg::Show(kind, what) => match kind.as_str() {
                "cpu" => crate::page::panels::scroll_to("timeline"),
                "switch" => {
                    self.teach.scroll_to = Some((format!("feat-{what}"), ScrollBy::Start));
                    self.stage(vec![(kind, what)], true);
                }
                _ => self.stage(vec![(kind, what)], true),
            },
        }
        true
    }

    /// A link to this step (and presenter mode, if on), shown in the share box.
    fn step_link(&mut self) {
        let Some(loc) = web_sys::window().map(|w| w.location()) else { return };
        let base = match (&self.opened.stem, self.edited()) {
            (Some(stem), false) => format!("scenario={stem}"),
            _ => match &self.text {
                Some(t) => format!("s={}", logic::encode_share(t)),
                None => return,
            },
        };
        let o = LinkOptions { step: self.teach.lesson.as_ref().map(|_| self.teach.step), present: self.teach.present, ..Default::default() };
        let page = format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default());
        let link = format!("{page}{}", links::with_options(&base, &o));
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&link);
        }
        self.share_link = Some(link);
    }

    /// Keys for lessons and presenting (the page's other keys are in `actions.rs`).
    pub(super) fn teach_key(&mut self, ctx: &Context<Self>, k: &KeyboardEvent) -> bool {
        let key = super::key_of(k);
        let m = match key.as_str() {
            "PageDown" | "n" => TeachMsg::Next,
            "PageUp" | "b" => TeachMsg::Back,
            "p" => TeachMsg::Present(!self.teach.present),
            d if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() => {
                let i = (d.as_bytes()[0] - b'0') as usize;
                let Some(l) = &self.teach.lesson else { return false };
                let Some(s) = l.steps.get(self.teach.step) else { return false };
                let answered = self.teach.verdicts.get(self.teach.step).is_some_and(Option::is_some);
                match s.choices.get(i.wrapping_sub(1)) {
                    Some(c) if !answered => TeachMsg::Choose(c.clone()),
                    _ => return false,
                }
            }
            _ => return false,
        };
        self.teach_update(ctx, m)
    }

    /// Open `#exercise=<kind>&seed=N`: the worker makes it, then it loads like any scenario.
    pub(super) fn open_exercise(&mut self, ctx: &Context<Self>, kind: String, seed: u64) {
        // A slower fragment open started before this one must not overwrite it.
        self.generation = self.generation.wrapping_add(1);
        self.loading = true;
        self.playing = false;
        self.teach.ex_kind = kind.clone();
        self.teach.ex_seed = seed.to_string();
        self.teach.ex_link = Some((kind.clone(), seed));
        self.request(ctx, Input::Exercise { kind, seed });
    }

    /// Every frame tick of the page: record, and ask for group weights.
    pub(super) fn teach_frame(&mut self, ctx: &Context<Self>) {
        if self.teach.rec.is_some() {
            self.capture();
        }
        self.poll_groups(ctx);
    }

    /// Ask for the group weights now and then while the view moves.
    fn poll_groups(&mut self, ctx: &Context<Self>) {
        let t = &self.teach;
        if !t.has_groups || self.info.is_none() || self.queue.iter().any(|q| matches!(q, Input::Groups)) {
            return;
        }
        let view = self.progress.view_ns;
        let now = now_ms();
        if t.groups_view == Some(view) || now - t.groups_asked < GROUPS_EVERY_MS {
            return;
        }
        self.teach.groups_asked = now;
        self.teach.groups_view = Some(view);
        self.request(ctx, Input::Groups);
    }
}

/// Presenter mode: a class on `<body>`, so the style sheet can enlarge and hide what it will.
fn set_present(t: &mut Teach, on: bool) {
    t.present = on;
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        body.set_class_name(if on { "present" } else { "" });
    }
}

/// Download the timeline canvas as it is drawn now, as a PNG.
/// For the views: the message a lesson control sends.
pub fn msg(m: TeachMsg) -> Msg {
    Msg::Teach(m)
}

/// The exercise kinds links may name.
pub fn exercise_kinds() -> Vec<&'static str> {
    EXERCISE_KINDS.iter().map(|k| k.0).collect()
}
