//! "Open file…" (wasm32 only): a scenario file (JSON or JSONC) or a Linux ftrace text from the
//! user's disk becomes the scenario on screen. Opening goes through the page's own navigation:
//! the scenario is put in the fragment as a share link (`#s=`, contract §3), so Back, reload
//! and "Copy share link" work as for any shared experiment, and the experiment that was on
//! screen (and its stored edits) stays where it was. A measuring worker checks a scenario with
//! the core (`worker::measure::check_scenario`) and turns a trace into one
//! (`worker::measure::import_trace`, the CLI's `import-ftrace`), so the core stays out of the
//! page; a file that is neither, or a scenario the core refuses, is named in an error and
//! nothing changes.

use gloo::file::callbacks::{read_as_text, FileReader};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::page::worker_pool::{Answered, Pool};
use crate::wire::measure::{Answer, Request};
use crate::wire::proto::{Input, Output};

/// Largest file read: a trace of this size is already minutes of a busy machine.
const MAX_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

pub enum Msg {
    Chosen(Option<web_sys::File>),
    Read(String, Result<String, String>),
    Answer(Answered),
}

pub struct OpenFile {
    input: NodeRef,
    reader: Option<FileReader>,
    pool: Pool,
    on: Callback<Answered>,
    busy: Option<String>,
    error: Option<String>,
    /// What an import that worked wants said (the importer's warnings).
    note: Option<String>,
    /// The file being checked or turned into a scenario, for the messages.
    file_name: String,
    /// Whether that file is a scenario (else a trace).
    is_scenario: bool,
}

/// Put `json` (plain JSON) in the fragment; the page's hashchange handler opens it.
fn navigate(json: &str) -> Result<(), String> {
    let w = web_sys::window().ok_or("no window")?;
    w.location().set_hash(&format!("s={}", crate::page::logic::encode_share(json))).map_err(|_| "the browser refused the new address".to_string())
}

/// Whether a file's text is a scenario (a JSON object, maybe after `//` comments) rather than
/// a trace.
fn looks_like_scenario(text: &str) -> bool {
    let mut t = text.trim_start_matches('\u{feff}').trim_start();
    while let Some(rest) = t.strip_prefix("//") {
        t = rest.split_once('\n').map_or("", |x| x.1).trim_start();
    }
    t.starts_with('{')
}

impl Component for OpenFile {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        OpenFile { input: NodeRef::default(), reader: None, pool: Pool::default(), on: ctx.link().callback(Msg::Answer), busy: None, error: None, note: None, file_name: String::new(), is_scenario: false }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Chosen(None) => return false,
            Msg::Chosen(Some(f)) => {
                let name = f.name();
                if f.size() > MAX_BYTES {
                    self.error = Some(format!("{name}: {:.0} MB, more than the {:.0} MB this page reads.", f.size() / 1048576.0, MAX_BYTES / 1048576.0));
                    return true;
                }
                self.error = None;
                self.note = None;
                self.busy = Some(format!("Reading {name}…"));
                let link = ctx.link().clone();
                let file = gloo::file::File::from(f);
                self.reader = Some(read_as_text(&file, move |r| link.send_message(Msg::Read(name, r.map_err(|e| e.to_string())))));
            }
            Msg::Read(name, Err(e)) => {
                self.busy = None;
                self.error = Some(format!("{name} could not be read: {e}"));
            }
            Msg::Read(name, Ok(text)) => {
                self.reader = None;
                self.is_scenario = looks_like_scenario(&text);
                let req = if self.is_scenario {
                    self.busy = Some(format!("Checking the scenario {name}…"));
                    Request::CheckScenario { text }
                } else {
                    self.busy = Some(format!("Turning the trace {name} into a scenario…"));
                    Request::ImportFtrace { text, policy: "eevdf-v6.12".into() }
                };
                self.file_name = name;
                self.pool.cancel();
                self.pool.send(0, Input::Measure(req), &self.on);
            }
            Msg::Answer((gen, _, out)) => {
                if gen != self.pool.gen() {
                    return false;
                }
                self.busy = None;
                self.pool.cancel();
                match out {
                    Output::Measured { answer: Answer::Checked(json), .. } => {
                        if let Err(e) = navigate(&json) {
                            self.error = Some(format!("{}: {e}", self.file_name));
                        }
                    }
                    Output::Measured { answer: Answer::Failed { message }, .. } if self.is_scenario => {
                        self.error = Some(format!("{}: {message}", self.file_name));
                    }
                    Output::Measured { answer: Answer::Imported(imp), .. } => {
                        if let Err(e) = navigate(&imp.scenario) {
                            self.error = Some(e);
                        } else if !imp.warnings.is_empty() {
                            self.note = Some(format!("{} imported ({} tasks), with warnings: {}", self.file_name, imp.tasks, imp.warnings.join("; ")));
                        }
                    }
                    Output::Measured { answer: Answer::Failed { message }, .. } => {
                        self.error = Some(format!("{} is not a scenario, and not an ftrace text Fairground can read: {message}", self.file_name));
                    }
                    Output::Crashed { message } if self.is_scenario => self.error = Some(format!("The worker crashed checking the scenario ({message}).")),
                    Output::Crashed { message } => self.error = Some(format!("The worker crashed reading the trace ({message}).")),
                    _ => self.error = Some("The worker gave an unexpected answer.".into()),
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let input = self.input.clone();
        let open = Callback::from(move |_: MouseEvent| {
            if let Some(i) = input.cast::<HtmlInputElement>() {
                i.click();
            }
        });
        let chosen = link.callback(|e: Event| {
            let i: HtmlInputElement = e.target_unchecked_into();
            let f = i.files().and_then(|l| l.get(0));
            // Choosing the same file again must fire change again.
            i.set_value("");
            Msg::Chosen(f)
        });
        html! {
            <span class="open-file">
                <button id="btn-open-file" class="ghost" onclick={open} disabled={self.busy.is_some()}
                    title="Open a scenario file (JSON) or a Linux ftrace text (sched_switch/sched_wakeup), which becomes a scenario that replays it">{ "Open file…" }</button>
                <input id="open-file" ref={self.input.clone()} type="file" hidden=true accept=".json,.jsonc,.txt,.trace,.dat,text/plain,application/json" onchange={chosen} />
                if let Some(b) = &self.busy {
                    <span class="status">{ b }</span>
                }
                if let Some(e) = &self.error {
                    <span id="open-error" class="error" role="alert">{ e }</span>
                }
                if let Some(n) = &self.note {
                    <span id="open-note" class="hint" role="status">{ n }</span>
                }
            </span>
        }
    }
}
