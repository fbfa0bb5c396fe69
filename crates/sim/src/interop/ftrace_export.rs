//! A run as Linux ftrace text: `sched_wakeup_new` at a fork, `sched_waking` and `sched_wakeup`
//! at each wakeup, `sched_switch` at each switch, with idle as `swapper/N` (pid 0), in the
//! layout of `/sys/kernel/tracing/trace`. Perfetto and trace-cmd read it as a real trace: one
//! scheduling track per CPU, and each thread's running, runnable and sleeping states.
//!
//! Tasks get pid 10000 + their index and their name (spaces replaced, cut to the kernel's 15
//! characters) as comm; prio is 120 + nice, the nice the task ends the run with. Timestamps
//! are printed in µs, as the kernel does. A wakeup's time is the start of the stint it led to
//! minus the wakeup latency recorded when that stint began, and its target CPU is the CPU of
//! that stint.
//!
//! `write_ftrace` streams: the run goes instant by instant, the recorded slices are drained
//! as they are turned into lines, and lines are written as soon as no stint still to come can
//! give an earlier one, so memory does not grow with the run's length. The header counts the
//! lines, as tracefs does, before the first of them: a first run of the (deterministic)
//! simulation counts them, a second writes them.

use super::ftrace_events::{Events, Sink, TextSink};
use crate::engine::trace::{Slice, StartWhy};
use crate::engine::task::TState;
use crate::engine::Sim;
use crate::entity::NIL;
use crate::scenario::{ScenarioError, Validated};
use std::fmt;
use std::io::{self, Write};

pub use super::ftrace_events::PID_BASE;

/// The comment that carries the end of the run.
pub const END_MARK: &str = "fairground: run ends at ns ";

/// Slices read before the recording is drained, and events held before they are sorted and
/// written (doubled while a long wait holds them back).
const CHUNK: usize = 1 << 16;

/// Why an export stopped.
#[derive(Debug)]
pub enum ExportError {
    /// The scenario cannot be run.
    Scenario(ScenarioError),
    /// The output could not be written (a closed pipe, a full disk).
    Io(io::Error),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Scenario(e) => e.fmt(f),
            ExportError::Io(e) => write!(f, "cannot write the trace: {e}"),
        }
    }
}

impl std::error::Error for ExportError {}

impl From<ScenarioError> for ExportError {
    fn from(e: ScenarioError) -> Self {
        ExportError::Scenario(e)
    }
}

impl From<io::Error> for ExportError {
    fn from(e: io::Error) -> Self {
        ExportError::Io(e)
    }
}

/// Run `v` and return it as ftrace text (the streaming export, into memory).
pub fn run_to_ftrace(v: &Validated) -> Result<String, ScenarioError> {
    let mut out = Vec::new();
    match write_ftrace(v, &mut out) {
        Ok(()) => String::from_utf8(out).map_err(|e| ScenarioError::at("", format!("internal error: the trace is not UTF-8: {e}"))),
        Err(ExportError::Scenario(e)) => Err(e),
        Err(ExportError::Io(e)) => Err(ScenarioError::at("", format!("internal error: {e}"))),
    }
}

/// Run `v` and write it as ftrace text to `out`, as it runs. A write error stops the run.
pub fn write_ftrace<W: Write>(v: &Validated, out: W) -> Result<(), ExportError> {
    let (lines, nice) = counting_pass(v)?;
    let mut sim = Sim::new(v)?;
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut head = String::new();
    header(&mut head, lines, sim.cpus.len(), sim.duration_ns);
    out.write_all(head.as_bytes())?;
    let mut sink = TextSink { out: &mut out, buf: String::new() };
    Stream::new(&sim, Some(&nice)).run(&mut sim, &mut sink)?;
    out.flush()?;
    Ok(())
}

/// A first run of `v` that only counts: the lines of its ftrace text, and each task's nice at
/// the end (the export gives each task one prio).
pub(super) fn counting_pass(v: &Validated) -> Result<(u64, Vec<i32>), ScenarioError> {
    let mut counting = Sim::new(v)?;
    let mut s = Stream::new(&counting, None);
    let mut sink = TextSink { out: &mut io::sink(), buf: String::new() };
    // Writing to io::sink() cannot fail.
    let _ = s.run(&mut counting, &mut sink);
    Ok((s.ev.lines, counting.tasks.iter().map(|t| t.nice).collect()))
}

/// (start, end — u64::MAX while still running, task, why it started, the slice if closed).
/// (start, end, task, why it began, the closed slice, the overhead it began with).
type Stint<'a> = (u64, u64, u32, StartWhy, Option<&'a Slice>, u32);

/// When the task of a stint that began at `start` was woken: its wakeup latency `lat` runs to
/// the first useful instruction, after the stint's `overhead` (`machine.costs`).
fn woken_at(start: u64, lat: u64, overhead: u32) -> u64 {
    let lat = lat.saturating_sub(u64::from(overhead));
    start - lat.min(start)
}

/// Export a run made with `Sim::enable_trace()` (from its start) and kept whole. Stints still
/// running at the end are switched in and left open. A stint begun and preempted within one
/// instant leaves no slice but used a wakeup latency: the wakeups of its task that follow may
/// then be shown with their neighbour's latency, which `write_ftrace`, watching each instant,
/// never does.
pub fn to_ftrace(sim: &Sim) -> String {
    let ncpu = sim.cpus.len();
    let nice: Vec<i32> = sim.tasks.iter().map(|t| t.nice).collect();
    let mut ev = Events::new(sim, &nice, false);
    let empty = Vec::new();
    let slices: &Vec<Slice> = sim.trace.as_ref().map_or(&empty, |t| &t.slices);
    let mut per_cpu: Vec<Vec<Stint>> = vec![Vec::new(); ncpu];
    for s in slices {
        per_cpu[s.cpu as usize].push((s.start_ns, s.end_ns, s.task, s.start_why, Some(s), s.overhead_ns));
    }
    if let Some(tr) = &sim.trace {
        for (c, o) in tr.open.iter().enumerate() {
            if let Some(o) = o {
                per_cpu[c].push((o.start_ns, u64::MAX, o.task, o.start_why, None, o.overhead_ns));
            }
        }
    }
    for list in &mut per_cpu {
        list.sort_by_key(|x| x.0);
    }
    // A task's wakeup latencies were recorded in time order, wherever it ran.
    let mut wakes: Vec<(u32, u64, usize, usize)> = Vec::new();
    for (c, list) in per_cpu.iter().enumerate() {
        wakes.extend(list.iter().enumerate().filter(|(_, x)| x.3 == StartWhy::Wakeup).map(|(i, x)| (x.2, x.0, c, i)));
    }
    wakes.sort_unstable();
    let mut woke: Vec<Vec<u64>> = per_cpu.iter().map(|l| vec![0; l.len()]).collect();
    let mut k = 0;
    for (j, &(task, start, c, i)) in wakes.iter().enumerate() {
        if j > 0 && wakes[j - 1].0 != task {
            k = 0;
        }
        let lat = sim.tasks[task as usize].stats.wakeup_latency.get(k).copied().unwrap_or(0);
        woke[c][i] = woken_at(start, lat, per_cpu[c][i].5);
        k += 1;
    }
    for (c, list) in per_cpu.iter().enumerate() {
        let cpu = c as u32;
        for (i, &(start, end, task, why, slice, _)) in list.iter().enumerate() {
            ev.begin(cpu, task, start, why, woke[c][i]);
            if let Some(s) = slice {
                let next = list.get(i + 1).filter(|n| n.0 == end).map_or(NIL, |n| n.2);
                ev.end(cpu, task, start, end, s.stop_why, next);
            }
        }
    }
    let mut out = String::new();
    header(&mut out, ev.lines, ncpu, sim.duration_ns);
    let mut bytes = Vec::new();
    let mut sink = TextSink { out: &mut bytes, buf: out };
    // Writing to a Vec cannot fail, and the lines are UTF-8 (comms are Rust strings).
    let _ = ev.flush(u64::MAX, &mut sink);
    String::from_utf8(bytes).unwrap_or_default()
}

/// A stint seen running at the end of the instant it began, not yet known to outlast it
/// (one begun and preempted within an instant leaves no slice, and no line).
#[derive(Clone, Copy)]
struct Cand {
    task: u32,
    start: u64,
    why: StartWhy,
    /// When it woke (a wakeup) or forked (a fork); its start otherwise.
    woke: u64,
}

/// The export of a run read instant by instant.
pub(super) struct Stream {
    ev: Events,
    cand: Vec<Option<Cand>>,
    /// Per CPU, the stint whose beginning is in `ev`, while it runs.
    live: Vec<Option<(u32, u64)>>,
    /// Per CPU, a stint that ended, while the one that takes the CPU at that instant, if any,
    /// is not known yet.
    closing: Vec<Option<Slice>>,
    /// Slices of the recording already read.
    seen: usize,
    /// Pending events that trigger the next write.
    flush_at: usize,
}

impl Stream {
    /// `nice`: the tasks' nice values at the end of the run; None to count lines only.
    pub(super) fn new(sim: &Sim, nice: Option<&[i32]>) -> Stream {
        let ncpu = sim.cpus.len();
        let zero = vec![0; sim.tasks.len()];
        Stream {
            ev: Events::new(sim, nice.unwrap_or(&zero), nice.is_none()),
            cand: vec![None; ncpu],
            live: vec![None; ncpu],
            closing: vec![None; ncpu],
            seen: 0,
            flush_at: CHUNK,
        }
    }

    /// Run `sim` to its end, giving `sink` the events in order and a look at every instant.
    pub(super) fn run(&mut self, sim: &mut Sim, sink: &mut dyn Sink) -> io::Result<()> {
        sim.enable_trace();
        while sim.step_instant() {
            let from = self.seen;
            self.observe(sim);
            let closed = sim.trace.as_mut().map(|t| std::mem::take(&mut t.slices)).unwrap_or_default();
            sink.instant(sim, &closed[from..])?;
            if let Some(t) = sim.trace.as_mut() {
                t.slices = closed;
            }
            if self.ev.pending() >= self.flush_at {
                self.ev.flush(low_water(sim, &self.cand), sink)?;
                self.flush_at = CHUNK.max(2 * self.ev.pending());
            }
            if sim.trace.as_ref().is_some_and(|t| t.slices.len() >= CHUNK) {
                drain(sim);
                self.seen = 0;
            }
        }
        // A run stopped as a runaway ends within an instant; read what it did.
        self.observe(sim);
        sim.finish();
        // What runs at the end is exported as running (its switch out never comes).
        let open = sim.trace.as_ref().map(|t| t.open.clone()).unwrap_or_default();
        for (c, o) in open.iter().enumerate() {
            if let Some(k) = self.cand[c].take() {
                if o.is_some_and(|o| (o.task, o.start_ns) == (k.task, k.start)) {
                    self.settle(c, k);
                }
            }
            self.resolve(c, NIL);
        }
        self.ev.flush(u64::MAX, sink)
    }

    /// Turn what the instant just run did into events.
    fn observe(&mut self, sim: &Sim) {
        let now = sim.now;
        let Some(tr) = sim.trace.as_ref() else { return };
        let new = &tr.slices[self.seen..];
        for c in 0..self.cand.len() {
            // A stint begun at an earlier instant and still running, or closed since, outlasted
            // its instant.
            if let Some(k) = self.cand[c].filter(|k| k.start < now) {
                self.cand[c] = None;
                let key = (k.task, k.start);
                let still_open = tr.open[c].is_some_and(|o| (o.task, o.start_ns) == key);
                let closed = new.iter().any(|s| s.cpu as usize == c && (s.task, s.start_ns) == key);
                if still_open || closed {
                    self.settle(c, k);
                }
            }
            if self.closing[c].is_some_and(|s| s.end_ns < now) {
                self.resolve(c, NIL);
            }
        }
        for s in new {
            let c = s.cpu as usize;
            debug_assert_eq!(self.live[c], Some((s.task, s.start_ns)), "a slice closes the stint running on its CPU");
            debug_assert!(self.closing[c].is_none(), "one stint ends per CPU and instant");
            self.live[c] = None;
            self.closing[c] = Some(*s);
        }
        self.seen = tr.slices.len();
        for (c, o) in tr.open.iter().enumerate() {
            let Some(o) = o else {
                // A stint begun here at this instant and gone already left no slice.
                self.cand[c] = None;
                continue;
            };
            let key = (o.task, o.start_ns);
            if self.live[c] == Some(key) || self.cand[c].is_some_and(|k| (k.task, k.start) == key) {
                continue;
            }
            let task = &sim.tasks[o.task as usize];
            let woke = match o.start_why {
                // Recorded by this very switch in, the last so far.
                StartWhy::Wakeup => woken_at(o.start_ns, task.stats.wakeup_latency.last().copied().unwrap_or(0), o.overhead_ns),
                StartWhy::Fork => task.start_ns.min(o.start_ns),
                StartWhy::Resume => o.start_ns,
            };
            self.cand[c] = Some(Cand { task: o.task, start: o.start_ns, why: o.start_why, woke });
        }
    }

    /// The candidate `k` on CPU `c` is a stint of the export.
    fn settle(&mut self, c: usize, k: Cand) {
        let next = if self.closing[c].is_some_and(|s| s.end_ns == k.start) { k.task } else { NIL };
        self.resolve(c, next);
        self.ev.begin(c as u32, k.task, k.start, k.why, k.woke);
        self.live[c] = Some((k.task, k.start));
    }

    /// The stint that ended on CPU `c` handed it to `next`.
    fn resolve(&mut self, c: usize, next: u32) {
        if let Some(s) = self.closing[c].take() {
            self.ev.end(c as u32, s.task, s.start_ns, s.end_ns, s.stop_why, next);
        }
    }
}

/// The earliest time an event not made yet can have: the current instant, a candidate's
/// fork or wakeup, the wakeup of a task waiting for a CPU, the fork of one never run.
fn low_water(sim: &Sim, cand: &[Option<Cand>]) -> u64 {
    let mut w = sim.now;
    for k in cand.iter().flatten() {
        w = w.min(k.woke);
    }
    for t in &sim.tasks {
        match (t.state, t.waking_since, t.preempted_since) {
            (TState::Running, ..) => {}
            (_, Some(woke), _) => w = w.min(woke),
            (TState::Runnable, None, None) => w = w.min(t.start_ns),
            _ => {}
        }
    }
    w
}

/// Drop what the export has read: the slices, and the latency samples it no longer needs
/// (the report is not made, and they would grow with the run).
fn drain(sim: &mut Sim) {
    if let Some(t) = sim.trace.as_mut() {
        t.slices.clear();
    }
    for t in &mut sim.tasks {
        t.stats.wakeup_latency.clear();
        t.stats.preempt_delay.clear();
    }
}

/// The tracefs header, plus one comment line with the run's end (tools skip comments; the
/// importer reads it, since a trace otherwise ends at its last event).
fn header(out: &mut String, n: u64, ncpu: usize, end_ns: u64) {
    use std::fmt::Write;
    let _ = write!(
        out,
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: {n}/{n}   #P:{ncpu}\n# {END_MARK}{end_ns}\n#\n\
#                                _-----=> irqs-off/BH-disabled\n\
#                               / _----=> need-resched\n\
#                              | / _---=> hardirq/softirq\n\
#                              || / _--=> preempt-depth\n\
#                              ||| / _-=> migrate-disable\n\
#                              |||| /     delay\n\
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n\
#              | |         |   |||||     |         |\n"
    );
}
