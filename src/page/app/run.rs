//! The run in the worker, from the page's side: spawning and restarting the worker, the
//! requests (at most one in flight; later seeks replace queued ones), the seek towards a goal
//! in answers of bounded work, and taking each answer in (slices into the store, figures,
//! the worker's speed). docs/app.md, "Time", says how the two sides share the work.

use super::*;

/// Warm-up rounds of 60 ms (`Input::WarmUp`) after a load, asked one after another until the
/// user plays or seeks. Chromium optimizes a run's hot paths on background threads, once each
/// has run hot; on the 2-core development machine the rounds measured, in M events/s,
/// 0.35, 0.42, 1.0, 1.5, 2.1, 5.0 for four-policies, 1.2, 2.6, 4.9 for lesson-1-vruntime and
/// 2.7, 4.2, 2.7, 3.3, 3.9, 5.8 for hackbench-8cpu: one round would leave the user's first
/// plays, and the speed shown, at a fraction of the optimized speed. Any other request waits
/// for at most the round under way.
const WARM_UP_ROUNDS: u32 = 6;

impl App {
    /// Nothing asked of the worker is outstanding: no answer awaited, none queued, no seek on its
    /// way (after a restart, the run is back where it was). For tests to wait on.
    pub(crate) fn settled(&self) -> bool {
        self.in_flight.is_none() && self.queue.is_empty() && self.goal.is_none()
    }

    pub(super) fn spawn_worker(&mut self, ctx: &Context<Self>) {
        self.worker_gen = self.worker_gen.wrapping_add(1);
        let gen = self.worker_gen;
        let link = ctx.link().clone();
        let bridge = RemoteSim::spawner().callback(move |o| link.send_message(Msg::Worker(gen, o))).spawn(WORKER_JS);
        self.bridge = Some(bridge);
        self.in_flight = None;
        self.queue.clear();
    }

    /// The worker died (a panic, or no answer): start a new one with the scenario as it is,
    /// edits included, and go back to where the user was.
    pub(super) fn restart_worker(&mut self, ctx: &Context<Self>, why: String) {
        self.restarts += 1;
        self.playing = false;
        let loading = self.sent_load;
        let view = self.progress.view_ns;
        // The run is deterministic: a crash at or before the time of the last one will happen
        // again, so do not replay into it (that would loop).
        let again = self.last_crash_ns.is_some_and(|t| view <= t);
        self.last_crash_ns = Some(view);
        self.spawn_worker(ctx);
        if loading {
            self.info = None;
            self.loading = false;
            self.sched_error = Some(format!("The simulator crashed while building this run ({why}). Change the scenario or pick another."));
            return;
        }
        if again {
            return self.give_up_on_run(ctx, view, &why);
        }
        self.notice = Some(format!("The simulation worker stopped ({why}). A new one was started with your scenario and edits."));
        if let Some(text) = self.text.clone() {
            self.resume_ns = Some(view);
            self.load(ctx, text, Origin::Restart);
        }
    }

    /// A second death at or before the same time: the run would die there again, so stop
    /// retrying. Keep the user's scenario (edits included) on offer for download, and show
    /// the default scenario with the cause.
    pub(super) fn give_up_on_run(&mut self, ctx: &Context<Self>, view: u64, why: &str) {
        let at = format::fmt_time(view);
        self.saved_error = Some((
            format!(
                "The simulation worker stopped twice at {at} ({why}): this scenario crashes the simulator there, so it is not run again. Your scenario, with its edits, is kept for download."
            ),
            self.text.clone().unwrap_or_default(),
        ));
        self.info = None;
        self.notice = None;
        if self.opened.stem.as_deref() == Some(DEFAULT_STEM) {
            self.loading = false;
            return;
        }
        let index = self.index_loaded();
        self.generation = self.generation.wrapping_add(1);
        self.loading = true;
        let generation = self.generation;
        let cause = format!("The simulator crashed twice at {at} on this scenario ({why}).");
        ctx.link().send_future(async move { Msg::Opened(generation, open::fallback(cause, open::index_entry(&index, DEFAULT_STEM)).await) });
    }

    pub(super) fn load(&mut self, ctx: &Context<Self>, text: String, origin: Origin) {
        if origin != Origin::Restart {
            self.last_crash_ns = None;
        }
        self.origin = origin;
        if origin == Origin::Fragment {
            self.run_hash = current_hash();
        }
        self.loading = origin != Origin::Restart;
        self.playing = false;
        self.goal = None;
        self.queue.clear();
        self.request(ctx, Input::Load { text });
    }

    pub(super) fn request(&mut self, ctx: &Context<Self>, input: Input) {
        if self.in_flight.is_some() {
            // Only the latest seek matters, and it goes before any warm-up round still to come.
            if matches!(input, Input::Seek { .. }) {
                self.queue.retain(|q| !matches!(q, Input::Seek { .. } | Input::WarmUp));
            }
            self.queue.push_back(input);
            return;
        }
        if self.bridge.is_none() {
            self.spawn_worker(ctx);
        }
        if let Some(b) = &self.bridge {
            self.sent_load = matches!(input, Input::Load { .. });
            b.send(input);
            self.in_flight = Some(now_ms());
        }
    }

    /// Send what is waiting: queued requests first, then the rest of a seek. A seek that has
    /// arrived ends (and the view is saved) at once, not once the queue is empty: the warm-up
    /// rounds after a load keep it busy for some 400 ms, and a save that late could overwrite
    /// what another tab saved meanwhile.
    pub(super) fn pump(&mut self, ctx: &Context<Self>) {
        if self.in_flight.is_some() {
            return;
        }
        if self.goal.is_some() && !self.seek_unfinished() {
            self.goal = None;
            self.save_view();
        }
        if let Some(next) = self.queue.pop_front() {
            self.request(ctx, next);
            return;
        }
        if let Some(g) = self.goal {
            self.request(ctx, Input::Seek { to_ns: g });
        }
    }

    /// Whether the run is short of the goal of a seek, and can go further.
    fn seek_unfinished(&self) -> bool {
        let end = self.info.as_ref().map_or(0, |i| i.duration_ns);
        self.goal.is_some_and(|g| self.progress.view_ns < g.min(end) && !self.progress.finished && self.info.is_some())
    }

    pub(super) fn seek(&mut self, ctx: &Context<Self>, to: u64) {
        self.playing = false;
        self.goal = Some(to);
        self.request(ctx, Input::Seek { to_ns: to });
    }

    pub(super) fn frame(&mut self, ctx: &Context<Self>) -> bool {
        let now = now_ms();
        if let Some(sent) = self.in_flight {
            if now - sent > WATCHDOG_MS {
                self.restart_worker(ctx, format!("no answer for {} s", (WATCHDOG_MS / 1000.0) as u32));
                return true;
            }
            return false;
        }
        if !self.playing || self.info.is_none() {
            self.last_frame = now;
            return false;
        }
        let dt = (now - self.last_frame).clamp(0.0, 100.0);
        self.last_frame = now;
        let speed = SPEEDS[self.speed].1;
        let view = self.progress.view_ns;
        let target = if speed.is_infinite() { u64::MAX } else { view.saturating_add((speed * dt / 1000.0).max(1.0) as u64) };
        self.request(ctx, Input::Seek { to_ns: target });
        false
    }

    pub(super) fn on_output(&mut self, ctx: &Context<Self>, out: Output) {
        match out {
            Output::Loaded(info) => {
                self.run_stopped = None;
                let cpus = info.cpus as usize;
                *self.store.0.borrow_mut() = Store::new(cpus);
                self.store_version += 1;
                self.win = format::clamp_window(0.0, info.duration_ns as f64, info.duration_ns);
                self.text = Some(info.text.clone());
                if self.origin == Origin::Fragment {
                    self.pristine = (!self.restored).then(|| info.text.clone());
                }
                self.sched_error = None;
                self.selected = None;
                self.progress = Rc::new(Progress::default());
                self.running = Rc::new(Vec::new());
                self.info = Some(Rc::new(info));
                self.picked = None;
                self.insight = Rc::new(None);
                // A new worker run starts with nothing asked; the panels ask again.
                self.ask = Default::default();
                let to = self.resume_ns.take().unwrap_or(0);
                self.goal = Some(to);
                self.request(ctx, Input::Seek { to_ns: to });
                self.teach_loaded(ctx);
                // Queued behind the first drawing and the lesson: what the user waits for.
                self.request(ctx, Input::WarmUp);
                self.warm_rounds = WARM_UP_ROUNDS - 1;
            }
            out @ (Output::Lesson(_) | Output::Checked(_) | Output::Tried(_) | Output::AnswerKey(_) | Output::Exercise(_) | Output::Groups(_)) => self.teach_output(ctx, out),
            Output::Refused { message } => self.refused(ctx, message),
            Output::Progress(p) => self.take_progress(p),
            Output::Edited { text, at_ns, progress } => {
                self.edit_error = None;
                self.text = Some(text);
                self.notice = Some(format!("Change recorded in the scenario's timeline at {}.", format::fmt_time(at_ns)));
                self.take_progress(progress);
                self.save_view();
                // A lesson's figures come from the whole run as it is now: the edit changes them.
                if self.teach.lesson.is_some() {
                    self.request(ctx, Input::Lesson);
                }
            }
            Output::EditRefused { message } => self.edit_error = Some(message),
            Output::Crashed { message } => self.restart_worker(ctx, format!("it crashed: {message}")),
            // The speed measured on the run just loaded, until work the user asks for says more.
            Output::Warmed { events, ms } => {
                // Read off a millisecond clock: a shorter warm-up (a worker busy elsewhere)
                // would be mostly rounding.
                if events > 0 && ms >= 10.0 {
                    self.rate = Some(events as f64 * 1000.0 / ms);
                    self.rate_acc = (0, 0.0);
                }
                // Another round, behind what the panels and the user asked meanwhile, unless
                // the user plays or seeks: then their work warms the worker up, and measures it.
                if self.warm_rounds > 0 && events > 0 && !self.playing && !self.seek_unfinished() {
                    self.warm_rounds -= 1;
                    self.queue.push_back(Input::WarmUp);
                } else {
                    self.warm_rounds = 0;
                }
            }
            // Measurements go to the export panel's own worker, never to this one.
            Output::Measured { .. } => {}
        }
    }

    pub(super) fn take_progress(&mut self, mut p: Progress) {
        if self.loading && self.info.is_some() {
            self.loading = false;
        }
        let slices = std::mem::take(&mut p.slices);
        if p.truncate.is_some() || !slices.is_empty() {
            let mut st = self.store.0.borrow_mut();
            if let Some(n) = p.truncate {
                st.truncate(n);
            }
            for s in &slices {
                st.push(s);
            }
            self.store_version += 1;
        }
        // Answers are short (a few ms of work while playing slowly), so the rate is taken over
        // the work of several: at least 50 ms of the worker's time.
        self.rate_acc.0 += p.work_events;
        self.rate_acc.1 += p.work_ms;
        // A short run (a lesson's) never does 50 ms of work: at its end, say what it did.
        let whole_run = p.finished && self.rate.is_none() && self.rate_acc.1 > 0.0;
        if (self.rate_acc.1 >= 50.0 || whole_run) && self.rate_acc.0 > 0 {
            self.rate = Some(self.rate_acc.0 as f64 * 1000.0 / self.rate_acc.1);
            self.rate_acc = (0, 0.0);
        }
        if p.finished {
            self.playing = false;
        }
        if let Some(why) = p.stopped.as_deref() {
            // The core stopped the run: no answer will go further, so stop asking.
            if self.run_stopped.is_none() {
                self.run_stopped = Some(self.stop_report(p.view_ns, why));
            }
            self.playing = false;
            self.goal = None;
        }
        // While playing, keep the current time in view.
        if self.playing {
            let (t0, span) = self.win;
            let v = p.view_ns as f64;
            if v > t0 + span * 0.95 {
                let d = self.info.as_ref().map_or(1, |i| i.duration_ns);
                // Follow the cursor, but never past the end of the run: the last window ends there.
                self.win = format::clamp_window((v - span * 0.5).min(d as f64 - span), span, d);
            }
        }
        if p.live.is_empty() {
            // Left out of this answer: the last figures stand.
            p.live = self.progress.live.clone();
            p.groups = self.progress.groups.clone();
        }
        if let Some(i) = p.insight.take() {
            self.insight = Rc::new(Some(i));
        }
        self.running = Rc::new(std::mem::take(&mut p.running));
        self.progress = Rc::new(p);
    }

    pub(super) fn refused(&mut self, ctx: &Context<Self>, message: String) {
        self.info = None;
        self.loading = false;
        if self.origin == Origin::Fragment && self.restored {
            // The saved edits no longer open: say so, offer them, and open the fragment's own.
            return self.saved_refused(ctx, message);
        }
        match self.origin {
            Origin::Fragment => {
                let why = open::refusal(&self.opened, &message);
                if self.opened.stem.as_deref() == Some(DEFAULT_STEM) {
                    self.opened.errors.push(why);
                    return;
                }
                let index = self.index_loaded();
                self.generation = self.generation.wrapping_add(1);
                self.loading = true;
                let generation = self.generation;
                ctx.link().send_future(async move {
                    Msg::Opened(generation, open::fallback(why, open::index_entry(&index, DEFAULT_STEM)).await)
                });
            }
            Origin::Panel | Origin::Restart => self.sched_error = Some(message),
        }
    }

    /// The scenario index, if it has loaded (opening a fragment can do without it).
    pub(super) fn index_loaded(&self) -> Option<Vec<IndexEntry>> {
        self.index.as_ref().and_then(|r| r.as_ref().ok()).cloned()
    }

    pub(super) fn open_current(&mut self, ctx: &Context<Self>) {
        let hash = current_hash();
        let mut route = logic::parse_fragment(&hash);
        match crate::page::links::exercise_link(&hash, &teach::exercise_kinds()) {
            Some(Ok((kind, seed))) => return self.open_exercise(ctx, kind, seed),
            Some(Err(why)) => route = Route::Invalid(why),
            None => {}
        }
        // An empty fragment is a first visit (or "Start here"): the start page shows above the
        // default scenario until another is opened.
        self.start = route == Route::Default;
        if route == Route::Default {
            // Make the URL say what is shown, without adding a history entry.
            if let Some(w) = web_sys::window() {
                if let Ok(h) = w.history() {
                    let own = format!("#scenario={DEFAULT_STEM}");
                    if h.replace_state_with_url(&JsValue::NULL, "", Some(&own)).is_ok() {
                        self.own_hash = Some(own);
                    }
                }
            }
            route = Route::Scenario(DEFAULT_STEM.into());
        }
        let index = self.index_loaded();
        self.generation = self.generation.wrapping_add(1);
        self.loading = true;
        self.playing = false;
        let generation = self.generation;
        ctx.link().send_future(async move { Msg::Opened(generation, open::open(route, index).await) });
    }
}
