//! What the user's actions do to the experiment: task edits, scheduler changes, share links,
//! keeping an edited experiment, and the keyboard shortcuts.

use web_sys::KeyboardEvent;
use yew::prelude::*;

use super::{App, Msg, Origin};
use crate::page::logic;
use crate::wire::proto::{EditSet, Input};

impl App {
    /// The timeline window zoomed by `f` around the current time when it is in view (else
    /// around the middle).
    pub(crate) fn zoomed(&self, f: f64) -> (f64, f64) {
        let (t0, span) = self.win;
        let now = self.progress.view_ns as f64;
        let anchor = if now >= t0 && now <= t0 + span { now } else { t0 + span / 2.0 };
        (anchor - (anchor - t0) * f, span * f)
    }

    pub(super) fn edit_task(&mut self, ctx: &Context<Self>, task: String, field: &'static str, value: &str) {
        let mut set = EditSet::default();
        let v = value.trim();
        let parsed: Result<i64, _> = v.parse();
        let Ok(n) = parsed else {
            self.edit_error = Some(format!("{field} of {task}: \"{v}\" is not an integer"));
            return;
        };
        match field {
            "nice" => set.nice = Some(n.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
            "latency_nice" => set.latency_nice = Some(n.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
            _ => {
                if n < 0 {
                    self.edit_error = Some(format!("slice of {task}: must be 0 (default) or a number of µs"));
                    return;
                }
                set.slice_us = Some(n as u64);
            }
        }
        self.playing = false;
        self.request(ctx, Input::Edit { task, set });
    }

    /// Change the scheduler section of the scenario and run it again from the start, back to
    /// the current time.
    pub(super) fn change_settings(&mut self, ctx: &Context<Self>, f: impl FnOnce(&mut serde_json::Value) -> Result<(), String>) {
        let Some(text) = self.text.clone() else { return };
        let mut doc: serde_json::Value = match serde_json::from_str(&text) {
            Ok(d) => d,
            Err(e) => {
                self.sched_error = Some(format!("the scenario is not plain JSON: {e}"));
                return;
            }
        };
        if let Err(e) = f(&mut doc) {
            self.sched_error = Some(e);
            return;
        }
        self.run_again(ctx, doc.to_string());
    }

    /// Make `text` the scenario (kept as the user's edit) and run it again from the start, back
    /// to the current time.
    pub(super) fn run_again(&mut self, ctx: &Context<Self>, text: String) {
        self.text = Some(text.clone());
        self.resume_ns = Some(self.progress.view_ns);
        self.save_view();
        self.load(ctx, text, Origin::Panel);
    }

    /// The "inside the scheduler" panels changed what they look at. Turning the decision log or
    /// the key chart on makes the worker replay from the start with recording on, so the log
    /// covers the whole run so far; the seek brings the view back to where it was.
    pub(super) fn ask_insight(&mut self, ctx: &Context<Self>, ask: crate::wire::insight::Ask) {
        let view = self.progress.view_ns;
        let records = |a: &crate::wire::insight::Ask| a.log.is_some() || a.why.is_some();
        let replays = (records(&ask) && !records(&self.ask)) || (ask.chart.is_some() && ask.chart != self.ask.chart);
        if replays {
            // Playing on would continue from where the replay starts, not from here.
            self.playing = false;
        }
        self.ask = ask.clone();
        self.request(ctx, Input::Insight(ask));
        if !self.playing {
            // A seek still on its way (a lesson step going back) is where the user asked to be:
            // the replay must end there, not where the view was before it.
            self.goal = Some(self.goal.unwrap_or(view));
        }
    }

    pub(super) fn share(&mut self) {
        let Some(text) = &self.text else { return };
        let Some(loc) = web_sys::window().map(|w| w.location()) else { return };
        let base = format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default());
        // The sender's view travels with the experiment: where they were, what they looked at.
        let link = format!("{base}{}", crate::page::links::with_options(&format!("s={}", logic::encode_share(text)), &self.view_options()));
        if let Some(w) = web_sys::window() {
            let clip = w.navigator().clipboard();
            let _ = clip.write_text(&link);
        }
        self.share_link = Some(link);
    }

    /// Whether the scenario differs from what the fragment opened.
    pub(crate) fn edited(&self) -> bool {
        self.text.is_some() && self.text != self.pristine
    }

    pub(super) fn key(&mut self, ctx: &Context<Self>, k: KeyboardEvent) -> bool {
        let (t0, span) = self.win;
        let msg = match super::key_of(&k).as_str() {
            " " => Msg::PlayPause,
            "ArrowRight" if k.shift_key() => Msg::StepEvent,
            "ArrowLeft" if k.shift_key() => Msg::StepBackEvent,
            "ArrowRight" => Msg::StepTick,
            "ArrowLeft" => Msg::StepBackTick,
            "." => Msg::StepEvent,
            "," => Msg::StepBackEvent,
            "Home" => Msg::ToStart,
            "End" => Msg::ToEnd,
            "[" => Msg::Speed(self.speed.saturating_sub(1)),
            "]" => Msg::Speed(self.speed + 1),
            "w" => Msg::Window(self.zoomed(0.5)),
            "s" => Msg::Window(self.zoomed(2.0)),
            "a" => Msg::Window((t0 - span * 0.2, span)),
            "d" => Msg::Window((t0 + span * 0.2, span)),
            "0" => {
                let d = self.info.as_ref().map_or(1e8, |i| i.duration_ns as f64);
                Msg::Window((0.0, d))
            }
            "?" => Msg::Help(!self.help),
            "Escape" => {
                if self.help {
                    Msg::Help(false)
                } else {
                    Msg::Select(None)
                }
            }
            "l" => Msg::Share,
            _ => return self.teach_key(ctx, &k),
        };
        <Self as Component>::update(self, ctx, msg)
    }
}
