//! "Open file…" (wasm32 only): a scenario file (JSON or JSONC), an rt-app workload file or a
//! recorded trace (ftrace text, trace-cmd's trace.dat, a Perfetto protobuf trace) from the
//! user's disk becomes the scenario on screen. Opening goes through
//! the page's own navigation: the scenario is put in the fragment as a share link (`#s=`,
//! contract §3), so Back, reload and "Copy share link" work as for any shared experiment, and
//! the experiment that was on screen (and its stored edits) stays where it was. Which file it
//! is, is told from its first bytes (`file_kind::reads_as_text`) and a JSON file's shape
//! (`file_kind`). A measuring worker checks a scenario with the core
//! (`worker::measure::check_scenario`); the import worker, a bundle fetched only then, turns an
//! rt-app file or a trace into one (`worker::import`, the CLI's `import-rtapp` and `import`).
//! A trace is never read on the page: the worker is given an object URL of the file and
//! fetches its bytes itself, and the trace's own run it measured is kept (`real_trace`) for
//! the measure panel's "real beside simulated". So the core stays out of the page, and the importers out of the first load. A file that is none of these, or
//! that its importer or the core refuses, is named in an error and nothing changes.

use gloo::file::callbacks::{read_as_bytes, read_as_text, FileReader};
use gloo::file::ObjectUrl;
use gloo::worker::{Spawnable, WorkerBridge};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::page::file_kind::{file_kind, reads_as_text, FileKind};
use crate::page::worker_pool::{Answered, Pool, RemoteImport, IMPORT_JS};
use crate::wire::import::{ImportInput, ImportOutput};
use crate::wire::measure::{Answer, ImportedTrace, Request};

/// What a file of this kind is called in the messages.
fn kind_label(kind: FileKind) -> &'static str {
    if kind == FileKind::RtApp {
        "an rt-app file"
    } else {
        "a trace"
    }
}
use crate::wire::proto::{Input, Output};

/// Largest file read: a trace of this size is already minutes of a busy machine.
const MAX_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// What is looked at to tell JSON from a trace.
const HEAD_BYTES: u64 = 1 << 16;

pub enum Msg {
    Chosen(Option<web_sys::File>),
    Head(gloo::file::File, Result<Vec<u8>, String>),
    Read(String, Result<String, String>),
    Answer(Answered),
    Imported(ImportOutput),
}

/// What an import that worked has to say: a line, the importer's warnings, and its times (the
/// whole of it on the page's clock, the worker's part) for the tests and benchmarks.
struct Note {
    line: String,
    warnings: Vec<String>,
    ms: Option<(f64, f64)>,
    /// A trace: its own run is beside the model's replay in the measure panel.
    real: bool,
}

pub struct OpenFile {
    input: NodeRef,
    reader: Option<FileReader>,
    pool: Pool,
    on: Callback<Answered>,
    busy: Option<String>,
    error: Option<String>,
    /// What an import that worked wants said (the importer's warnings).
    note: Option<Note>,
    /// The file being checked or turned into a scenario, for the messages.
    file_name: String,
    /// What that file is.
    kind: FileKind,
    /// The import worker, spawned at the first rt-app file and kept for the next.
    importer: Option<WorkerBridge<RemoteImport>>,
    /// When the file's text was read (ms, the page's clock), to time its import.
    read_at: f64,
    /// The object URL of the trace being imported (revoked when dropped).
    url: Option<ObjectUrl>,
}

/// Put `json` (plain JSON) in the fragment; the page's hashchange handler opens it. The
/// address as the browser now has it.
fn navigate(json: &str) -> Result<String, String> {
    let w = web_sys::window().ok_or("no window")?;
    w.location().set_hash(&format!("s={}", crate::page::logic::encode_share(json))).map_err(|_| "the browser refused the new address".to_string())?;
    w.location().hash().map_err(|_| "the browser hid the new address".to_string())
}

/// The note of an import that worked.
fn imported_note(file: &str, what: &str, imp: &ImportedTrace, ms: Option<(f64, f64)>) -> Note {
    let tasks = if imp.tasks == 1 { "1 task".to_string() } else { format!("{} tasks", imp.tasks) };
    let line = match imp.warnings.len() {
        0 => format!("{file} imported as {what} ({tasks})."),
        1 => format!("{file} imported as {what} ({tasks}), with a warning:"),
        n => format!("{file} imported as {what} ({tasks}), with {n} warnings:"),
    };
    Note { line, warnings: imp.warnings.clone(), ms, real: false }
}

impl Component for OpenFile {
    type Message = Msg;
    type Properties = ();

    fn create(ctx: &Context<Self>) -> Self {
        OpenFile {
            input: NodeRef::default(),
            reader: None,
            pool: Pool::default(),
            on: ctx.link().callback(Msg::Answer),
            busy: None,
            error: None,
            note: None,
            file_name: String::new(),
            kind: FileKind::Scenario,
            importer: None,
            read_at: 0.0,
            url: None,
        }
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
                let head = file.slice(0, HEAD_BYTES.min(file.size()));
                self.reader = Some(read_as_bytes(&head, move |r| link.send_message(Msg::Head(file, r.map_err(|e| e.to_string())))));
            }
            Msg::Head(file, Err(e)) => {
                self.busy = None;
                self.error = Some(format!("{} could not be read: {e}", file.name()));
            }
            Msg::Head(file, Ok(head)) => {
                let name = file.name();
                if reads_as_text(&head) {
                    let link = ctx.link().clone();
                    self.reader = Some(read_as_text(&file, move |r| link.send_message(Msg::Read(name, r.map_err(|e| e.to_string())))));
                    return false;
                }
                // A trace: the import worker fetches the file itself through an object URL.
                self.reader = None;
                self.kind = FileKind::Trace;
                self.read_at = js_sys::Date::now();
                self.pool.cancel();
                self.busy = Some(format!("Turning the trace {name} into a scenario…"));
                self.file_name = name.clone();
                let url = ObjectUrl::from(file);
                let input = ImportInput::TraceFile { url: url.to_string(), name, policy: "eevdf-v6.12".to_string() };
                self.url = Some(url);
                self.import(ctx, input);
            }
            Msg::Read(name, Err(e)) => {
                self.busy = None;
                self.error = Some(format!("{name} could not be read: {e}"));
            }
            Msg::Read(name, Ok(text)) => {
                self.reader = None;
                self.kind = file_kind(&text);
                self.read_at = js_sys::Date::now();
                self.pool.cancel();
                if self.kind == FileKind::Scenario {
                    self.busy = Some(format!("Checking the scenario {name}…"));
                    self.file_name = name;
                    self.pool.send(0, Input::Measure(Request::CheckScenario { text }), &self.on);
                    return true;
                }
                // The policy the CLI's importers take when none is given.
                self.busy = Some(format!("Importing the rt-app file {name}…"));
                self.file_name = name;
                self.import(ctx, ImportInput::RtApp { text, policy: "eevdf-v6.12".to_string() });
            }
            Msg::Imported(out) => {
                // The button is disabled while a file is on its way, so an answer that comes
                // when none is awaited is a late one of a worker already given up.
                if self.kind == FileKind::Scenario || self.busy.is_none() {
                    return false;
                }
                self.busy = None;
                self.url = None;
                let name = self.file_name.clone();
                match out {
                    ImportOutput::Imported { imported, ms, real } => match navigate(&imported.scenario) {
                        Err(e) => self.error = Some(format!("{name}: {e}")),
                        Ok(hash) => {
                            let took = (js_sys::Date::now() - self.read_at, ms);
                            let what = match &real {
                                Some(r) => r.figures.format.clone(),
                                None => kind_label(self.kind).to_string(),
                            };
                            let mut note = imported_note(&name, &what, &imported, Some(took));
                            if let Some(r) = real {
                                note.real = true;
                                crate::page::real_trace::keep(hash, *r);
                            }
                            self.note = Some(note);
                        }
                    },
                    ImportOutput::Failed { message } if self.kind == FileKind::Trace => {
                        self.error = Some(format!("{name} is not a scenario, and not a trace Fairground can read: {message}"));
                    }
                    ImportOutput::Failed { message } => {
                        self.error = Some(format!("{name} (an rt-app file) could not be imported: {message}"));
                    }
                    ImportOutput::Crashed { message } => {
                        // A worker that panicked traps on every later message: the next file
                        // gets a new one.
                        self.importer = None;
                        self.error = Some(format!("The import worker crashed reading {name}, {} ({message}).", kind_label(self.kind)));
                    }
                }
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
                    Output::Measured { answer: Answer::Failed { message }, .. } => {
                        self.error = Some(format!("{}: {message}", self.file_name));
                    }
                    Output::Crashed { message } => self.error = Some(format!("The worker crashed checking the scenario ({message}).")),
                    _ => self.error = Some("The worker gave an unexpected answer.".into()),
                }
            }
        }
        true
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        self.view_button(ctx)
    }
}

impl OpenFile {
    /// Send `input` to the import worker, spawning it at the first file.
    fn import(&mut self, ctx: &Context<Self>, input: ImportInput) {
        let link = ctx.link().clone();
        let bridge = self.importer.get_or_insert_with(|| RemoteImport::spawner().callback(move |o| link.send_message(Msg::Imported(o))).spawn(IMPORT_JS));
        bridge.send(input);
    }

    fn view_button(&self, ctx: &Context<Self>) -> Html {
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
                    title="Open a scenario file (JSON), an rt-app workload file, or a recorded trace (ftrace text, trace-cmd's trace.dat, a Perfetto protobuf trace), which becomes a scenario that replays it beside the real run">{ "Open file…" }</button>
                <input id="open-file" ref={self.input.clone()} type="file" hidden=true accept=".json,.jsonc,.txt,.trace,.dat,.pftrace,.perfetto-trace,.pb,text/plain,application/json,application/octet-stream" onchange={chosen} />
                if let Some(b) = &self.busy {
                    <span class="status">{ b }</span>
                }
                if let Some(e) = &self.error {
                    <span id="open-error" class="error" role="alert">{ e }</span>
                }
                if let Some(n) = &self.note {
                    <div id="open-note" class="hint" role="status"
                        data-import-ms={n.ms.map(|m| format!("{:.0}", m.0))} data-worker-ms={n.ms.map(|m| format!("{:.1}", m.1))}>
                        if n.real {
                            <span class="real-note">{ "The trace's own run is beside the model's replay, under \"Export and compare\". " }
                                <button id="btn-open-real" class="ghost small" onclick={Callback::from(|_: MouseEvent| crate::page::panels::scroll_to("real-vs-model"))}>{ "Show it" }</button></span>
                            <br />
                        }
                        { &n.line }
                        if !n.warnings.is_empty() {
                            <ul class="import-warnings">{ for n.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                        }
                    </div>
                }
            </span>
        }
    }
}
