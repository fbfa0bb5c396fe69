//! Measuring workers for the panels (wasm32 only): second instances of the simulation worker,
//! spawned on first use, so a whole run of several seconds never holds up the timeline's
//! worker. A worker cannot be interrupted mid-run: `cancel` stops listening (answers of an
//! older generation are dropped) and the next request spawns fresh ones. Also the page's name
//! for the import worker, a bundle of its own.

use gloo::worker::{HandlerId, Spawnable, Worker, WorkerBridge, WorkerScope};
use yew::Callback;

use crate::wire::import::{ImportInput, ImportOutput};
use crate::wire::proto::{Input, Output};

/// Path of the simulation worker's script in the built site (trunk `data-type="worker"`);
/// the timeline's worker and the measuring ones are instances of it.
pub(crate) const WORKER_JS: &str = "./fairground-worker.js";

/// The page's name for the simulation worker. gloo-worker types a bridge by a `Worker` whose
/// `Input` and `Output` are the messages sent; the worker that answers them is
/// `worker::endpoint::RemoteSim`, in the other binary (`WORKER_JS`). This type only names the
/// messages: it has no values, so nothing of the worker's side is built into the page.
pub enum RemoteSim {}

impl Worker for RemoteSim {
    type Message = ();
    type Input = Input;
    type Output = Output;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        unreachable!("the simulation worker runs in {WORKER_JS}, never on the page")
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {
        match *self {}
    }

    fn received(&mut self, _scope: &WorkerScope<Self>, _msg: Input, _id: HandlerId) {
        match *self {}
    }
}

/// Path of the import worker's script (trunk `data-type="worker"`, bundle `fairground-import`):
/// fetched only when "Open file…" is given a file in another program's format.
pub(crate) const IMPORT_JS: &str = "./fairground-import.js";

/// The page's name for the import worker, as `RemoteSim` is for the simulation worker: the
/// messages of `wire::import`, no values; `worker::import::endpoint::ImportWorker` answers.
pub enum RemoteImport {}

impl Worker for RemoteImport {
    type Message = ();
    type Input = ImportInput;
    type Output = ImportOutput;

    fn create(_scope: &WorkerScope<Self>) -> Self {
        unreachable!("the import worker runs in {IMPORT_JS}, never on the page")
    }

    fn update(&mut self, _scope: &WorkerScope<Self>, _msg: ()) {
        match *self {}
    }

    fn received(&mut self, _scope: &WorkerScope<Self>, _msg: ImportInput, _id: HandlerId) {
        match *self {}
    }
}

/// An answer: the generation it belongs to, the slot that answered, what it said.
pub type Answered = (u32, usize, Output);

#[derive(Default)]
pub struct Pool {
    slots: Vec<Option<WorkerBridge<RemoteSim>>>,
    gen: u32,
}

impl Pool {
    /// How many workers a pool of the page may use: the machine's cores, at most 4 (the
    /// timeline's worker is idle while the user waits for a sweep).
    pub fn width() -> usize {
        let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
        (cores as usize).clamp(1, 4)
    }

    pub fn gen(&self) -> u32 {
        self.gen
    }

    /// Send `input` to worker `slot`, spawning it if needed; its answer comes to `on`.
    pub fn send(&mut self, slot: usize, input: Input, on: &Callback<Answered>) {
        if self.slots.len() <= slot {
            self.slots.resize_with(slot + 1, || None);
        }
        let gen = self.gen;
        let bridge = self.slots[slot].get_or_insert_with(|| {
            let on = on.clone();
            RemoteSim::spawner().callback(move |o| on.emit((gen, slot, o))).spawn(WORKER_JS)
        });
        bridge.send(input);
    }

    /// Forget worker `slot` (it crashed): the next request to it spawns a new one.
    pub fn drop_slot(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = None;
        }
    }

    /// Stop listening to every worker; their answers, when they come, are of an old generation.
    pub fn cancel(&mut self) {
        self.slots.clear();
        self.gen = self.gen.wrapping_add(1);
    }
}
