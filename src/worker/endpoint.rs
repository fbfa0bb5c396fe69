//! The Web Worker (gloo-worker): receives the page's requests, has `host` run the core, and
//! answers. A panic here cannot be caught (wasm aborts), so a panic hook first tells the page,
//! which then starts a fresh worker with the user's scenario and edits.

use std::cell::RefCell;

use gloo::worker::{HandlerId, Registrable, Worker, WorkerScope};

use crate::wire::proto::{Input, Output};
use crate::worker::host::{Budget, Host};

/// Wall time one answer may spend simulating; the page asks again for more.
const BUDGET_MS: f64 = 40.0;

thread_local! {
    /// Where to report a panic: the scope and the last requester.
    static REPORT_TO: RefCell<Option<(WorkerScope<SimWorker>, HandlerId)>> = const { RefCell::new(None) };
}

pub fn register() {
    crate::worker::swallow_traps();
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&format!("fairground worker: {message}").into());
        REPORT_TO.with(|r| {
            if let Ok(r) = r.try_borrow() {
                if let Some((scope, id)) = r.as_ref() {
                    scope.respond(*id, Output::Crashed { message });
                }
            }
        });
    }));
    SimWorker::registrar().register();
}

/// Wall time of the warm-up the page asks for after a load (`Host::warm_up`): enough for the
/// hot paths of a run to be optimized (measured with tests/bench/end.mjs) and for the speed it
/// measures to be read off a millisecond clock to a few per cent, short enough that a request
/// arriving meanwhile hardly waits.
const WARM_UP_MS: f64 = 60.0;

/// During a long seek, task figures go out at most this often (they cost a selection per task,
/// and the page a layout of the whole tasks table).
const LIVE_EVERY_MS: f64 = 250.0;

pub struct SimWorker {
    host: Option<Host>,
    last_live: f64,
    /// When the seek being answered in parts began (`None` once an answer arrived): its first
    /// partial answers leave the figures out, so a jump to the end costs the page one table
    /// update at the end instead of one at its first step as well.
    seeking_since: Option<f64>,
}

fn clock_ms() -> f64 {
    js_sys::Date::now()
}

impl Worker for SimWorker {
    type Message = ();
    type Input = Input;
    type Output = Output;

    fn create(scope: &WorkerScope<Self>) -> Self {
        let _ = scope;
        SimWorker { host: None, last_live: 0.0, seeking_since: None }
    }

    /// Nothing sends it messages: every piece of work is a request of the page's, answered.
    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {}

    fn received(&mut self, scope: &WorkerScope<Self>, msg: Input, id: HandlerId) {
        REPORT_TO.with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                *r = Some((scope.clone(), id));
            }
        });
        let out = self.answer(msg);
        scope.respond(id, out);
    }
}

impl SimWorker {
    fn answer(&mut self, msg: Input) -> Output {
        let budget = Budget { clock_ms: &clock_ms, max_ms: BUDGET_MS };
        match msg {
            Input::Load { text } => match Host::load(&text) {
                Ok((host, info)) => {
                    self.host = Some(host);
                    self.seeking_since = None;
                    Output::Loaded(info)
                }
                Err(message) => {
                    self.host = None;
                    Output::Refused { message }
                }
            },
            Input::Measure(req) => {
                let t0 = clock_ms();
                let answer = crate::worker::measure::answer(req);
                Output::Measured { answer, ms: clock_ms() - t0 }
            }
            Input::Crash => panic!("a crash asked for by the page (testing the worker's recovery)"),
            Input::TestRunaway { at_ns } => self.with_host(|h| {
                h.stage_runaway(at_ns);
                Output::Progress(h.progress((0, 0.0)))
            }),
            Input::Seek { to_ns } => {
                let since = self.last_live.max(*self.seeking_since.get_or_insert_with(clock_ms));
                let (mut sent_live, mut arrived) = (false, true);
                let out = self.with_host(|h| {
                    let w = h.seek(to_ns, &budget);
                    arrived = h.arrived(to_ns);
                    sent_live = arrived || clock_ms() - since > LIVE_EVERY_MS;
                    Output::Progress(h.progress_with(w, sent_live))
                });
                if sent_live {
                    self.last_live = clock_ms();
                }
                if arrived {
                    self.seeking_since = None;
                }
                out
            }
            Input::WarmUp => {
                let (events, ms) = self.host.as_mut().map_or((0, 0.0), |h| h.warm_up(&Budget { clock_ms: &clock_ms, max_ms: WARM_UP_MS }));
                Output::Warmed { events, ms }
            }
            Input::StepInstant => self.with_host(|h| {
                h.step_instant();
                Output::Progress(h.progress((0, 0.0)))
            }),
            Input::StepBackInstant => self.with_host(|h| {
                h.step_back_instant();
                Output::Progress(h.progress((0, 0.0)))
            }),
            Input::Insight(ask) => self.with_host(|h| {
                let w = h.set_insight(ask, &budget);
                Output::Progress(h.progress(w))
            }),
            Input::Edit { task, set } => self.with_host(|h| match h.edit(&task, &set) {
                Ok((text, at_ns)) => Output::Edited { text, at_ns, progress: h.progress((0, 0.0)) },
                Err(message) => Output::EditRefused { message },
            }),
            Input::Lesson => match self.host.as_ref() {
                Some(h) => Output::Lesson(h.lesson()),
                None => Output::Lesson(Err("no scenario is loaded".into())),
            },
            Input::Check { step, choice } => match self.host.as_ref() {
                Some(h) => Output::Checked(h.check(step, &choice)),
                None => Output::Checked(Err("no scenario is loaded".into())),
            },
            Input::TryIt { step, action } => match self.host.as_ref() {
                Some(h) => Output::Tried(h.try_it(step, action)),
                None => Output::Tried(Err("no scenario is loaded".into())),
            },
            Input::AnswerKey { kind, from, to } => Output::AnswerKey(crate::worker::host::teach::answer_key(&kind, from, to)),
            Input::Exercise { kind, seed } => Output::Exercise(crate::worker::host::teach::exercise(&kind, seed)),
            Input::Groups => Output::Groups(self.host.as_ref().map(|h| h.groups_info()).unwrap_or_default()),
        }
    }

    fn with_host(&mut self, f: impl FnOnce(&mut Host) -> Output) -> Output {
        match self.host.as_mut() {
            Some(h) => f(h),
            None => Output::Refused { message: "no scenario is loaded".into() },
        }
    }
}
