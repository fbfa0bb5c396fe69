//! The decision log's header under latency-nice-v12: how often each `get_latency_max()` clamp
//! bound and changed an outcome over the whole run, and "previous / next" through the checks
//! a clamp decided. A measuring worker runs the whole run once (`Request::ClampFlips`); the
//! page only moves the time cursor to the times it sent.

use yew::prelude::*;

use crate::draw::format;
use crate::page::worker_pool::{Answered, Pool};
use crate::wire::measure::{Answer, ClampFlips, Request};
use crate::wire::proto::{Input, Output};

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The scenario as it runs now (plain JSON, edits included).
    pub text: Option<String>,
    pub view_ns: u64,
    pub on_seek: Callback<u64>,
}

pub enum Msg {
    Answer(Answered),
}

pub struct ClampNav {
    pool: Pool,
    on: Callback<Answered>,
    asked: Option<String>,
    flips: Option<ClampFlips>,
    error: Option<String>,
}

const SITES: [&str; 3] = ["the wakeup clamp", "the offset clamp", "the tick clamp"];

impl ClampNav {
    fn ask(&mut self, ctx: &Context<Self>) {
        let Some(text) = ctx.props().text.clone() else { return };
        if self.asked.as_ref() == Some(&text) {
            return;
        }
        self.asked = Some(text.clone());
        self.flips = None;
        self.error = None;
        self.pool.send(0, Input::Measure(Request::ClampFlips { text }), &self.on);
    }
}

impl Component for ClampNav {
    type Message = Msg;
    type Properties = Props;

    fn create(ctx: &Context<Self>) -> Self {
        let mut c =
            ClampNav { pool: Pool::default(), on: ctx.link().callback(Msg::Answer), asked: None, flips: None, error: None };
        c.ask(ctx);
        c
    }

    fn changed(&mut self, ctx: &Context<Self>, _old: &Props) -> bool {
        self.ask(ctx);
        true
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Answer((gen, slot, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                match out {
                    Output::Measured { answer: Answer::ClampFlips(f), .. } => self.flips = Some(f),
                    Output::Measured { answer: Answer::Failed { message }, .. } => self.error = Some(message),
                    Output::Crashed { message } => {
                        self.pool.drop_slot(slot);
                        self.error = Some(format!("The worker crashed ({message})."));
                    }
                    _ => self.error = Some("The worker answered a question this panel did not ask.".into()),
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let p = ctx.props();
        let Some(f) = &self.flips else {
            return html! {
                <p class="hint" id="log-clamps">{ self.error.clone().unwrap_or_else(|| "counting where the clamps decided over the whole run…".into()) }</p>
            };
        };
        let counts = SITES
            .iter()
            .zip(f.sites)
            .map(|(site, (bound, flipped))| format!("{site} bound {} times and changed the outcome {}", format::fmt_int(bound), format::fmt_int(flipped)))
            .collect::<Vec<_>>()
            .join("; ");
        // The flips strictly before and after the time cursor.
        let i = f.times.partition_point(|&t| t < p.view_ns);
        let prev = i.checked_sub(1).and_then(|k| f.times.get(k)).copied();
        let j = f.times.partition_point(|&t| t <= p.view_ns);
        let next = f.times.get(j).copied();
        let here = f.times.binary_search(&p.view_ns).is_ok();
        let seek = |t: Option<u64>| {
            let cb = p.on_seek.clone();
            Callback::from(move |_: MouseEvent| {
                if let Some(t) = t {
                    cb.emit(t);
                }
            })
        };
        let total = f.times.len();
        html! {
            <div class="clamp-nav" id="log-clamps" data-flips={total.to_string()} data-sites={format!("{:?}", f.sites)}>
                <p class="hint">{ format!("Over the whole run, {counts}.") }
                    if f.truncated { { format!(" (the first {} are listed)", format::fmt_int(total as u64)) } }
                </p>
                <div class="row">
                    <button class="small" id="btn-clamp-prev" disabled={prev.is_none()} onclick={seek(prev)}
                        title="Move the time cursor to the previous check a clamp decided">{ "◀ previous" }</button>
                    <span class="muted" id="clamp-pos">{ if total == 0 {
                        "no check went the other way because of a clamp".to_string()
                    } else if here {
                        format!("at flip {} of {}", i + 1, total)
                    } else {
                        format!("{} before, {} after the cursor", i, total - j)
                    } }</span>
                    <button class="small" id="btn-clamp-next" disabled={next.is_none()} onclick={seek(next)}
                        title="Move the time cursor to the next check a clamp decided">{ "next ▶" }</button>
                </div>
            </div>
        }
    }
}
