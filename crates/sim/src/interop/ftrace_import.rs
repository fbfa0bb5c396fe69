//! Real ftrace text (`/sys/kernel/tracing/trace` or `trace-cmd report` output) read back as
//! a scenario: each task's observed bursts and sleeps become a `replay` behaviour, so the
//! same life can be re-run under any policy ("what would my workload have seen under EEVDF,
//! or at latency nice −20?").
//!
//! Per pid, from `sched_switch`, `sched_waking`/`sched_wakeup` and `sched_wakeup_new`:
//! a burst is the CPU time between a wakeup and the switch-out that leaves it asleep
//! (`prev_state` other than `R`/`R+`), preempted stretches included; the sleep before it runs
//! from that switch-out to the wakeup. A task forked in the trace (`sched_wakeup_new`) starts
//! there; one first seen switching in starts then, runnable; one first seen switching out has
//! been running since its CPU's previous switch (the trace's start, if none); one first seen
//! waking has been asleep since then (that wakeup counts). At the end, a task still runnable
//! keeps the CPU time it got as its last burst. A switch ends what ran on its CPU even when the
//! trace does not show it leave (events lost without a mark): that task is read as going to
//! sleep there, with a warning that counts such switches.
//!
//! Real-time and deadline tasks (prio 0–99 and -1) are replayed as load above the fair class
//! (`"policy": "fifo"` or `"deadline"`; FIFO and RR print the same prio), pinned to the CPU
//! where they ran most, with a warning: their own scheduling is not modelled.
//! Left to the user, with a warning: idle (pid 0), events lost by the ring buffer (the stints they cut are closed at the loss), unknown lines. The
//! replay is pinned to the CPUs where each task did at least a tenth of its running, since
//! affinity is not in the trace.
//!
//! What a scenario cannot hold is cut, with a warning that says where: a trace is read up to
//! 600 s after its first event (`duration_ms` ≤ 600000), and a task keeps its first 10^6
//! bursts (a replay's most steps), then sleeps. A CPU id of 1024 or more (a scenario has at
//! most 1024 CPUs) is an error naming the line. Task names are unique whatever the comms and
//! pids.

use super::ftrace_line::{parse, Event, Line, Other, WakeKind};
use super::real_run::{RealRun, Recorder};
use crate::scenario::MAX_TASKS;

/// The most CPUs a scenario's machine has (`machine.cpus` is 1 to 1024).
pub const MAX_CPUS: u32 = 1024;
/// The most steps a replay has (the scenario format's `MAX_REPLAY_STEPS`).
pub const MAX_STEPS: usize = 1_000_000;
/// The longest a scenario lasts (`duration_ms` ≤ 600000).
pub const MAX_SPAN_NS: u64 = 600_000_000_000;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Choices for the scenario built from a trace.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub policy: String,
    pub hz: u32,
    /// Keep only tasks whose comm starts with one of these (all when empty).
    pub comms: Vec<String>,
    /// Pin each task to the CPUs it was seen on.
    pub pin_observed: bool,
    /// At most this many warnings are listed one by one; the rest are counted.
    pub max_warnings: usize,
    /// Bursts kept per task (at most `MAX_STEPS`, what a replay holds).
    pub max_steps: usize,
    /// Trace read after its first event, in ns (at most `MAX_SPAN_NS`, what a scenario lasts).
    pub max_span_ns: u64,
    /// Measure the trace's own run too (`Imported::real`): every stint and wakeup latency is
    /// kept, which costs memory in proportion to the trace.
    pub real_run: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            policy: "eevdf-v6.12".into(),
            hz: 250,
            comms: Vec::new(),
            pin_observed: true,
            max_warnings: 50,
            max_steps: MAX_STEPS,
            max_span_ns: MAX_SPAN_NS,
            real_run: false,
        }
    }
}

/// What the trace showed of one task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedTask {
    pub name: String,
    pub comm: String,
    pub pid: i64,
    pub nice: i32,
    pub cpu_ns: u64,
    pub wakeups: u64,
    pub cpus: Vec<u32>,
    /// `"fifo"` (prio 0–99: SCHED_FIFO or SCHED_RR, which a trace does not tell apart) or
    /// `"deadline"` (prio -1) for a task of a class above the fair class; None for a fair task.
    pub policy: Option<&'static str>,
    /// When it appeared, from the start of the trace.
    pub start_ns: u64,
    /// `[sleep, run]` in ns, the first sleep counted from `start_ns`.
    pub steps: Vec<(u64, u64)>,
}

/// The scenario (JSON, contract §1) and what was read to build it.
#[derive(Clone, Debug)]
pub struct Imported {
    pub scenario: Value,
    pub tasks: Vec<ObservedTask>,
    pub warnings: Vec<String>,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The trace's own run, when `ImportOptions::real_run` asked for it.
    pub real: Option<RealRun>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Unknown,
    /// Created by `sched_wakeup_new` and not run yet.
    Forked,
    Running { cpu: u32, since: u64 },
    Runnable,
    Sleeping { since: u64 },
}

struct Track {
    comm: String,
    prio: i64,
    st: St,
    /// When the task came into the trace (its fork, or its first sign of life).
    start: Option<u64>,
    /// CPU time per CPU, to pin the replay where the task mostly ran.
    per_cpu: BTreeMap<u32, u64>,
    /// It was seen on a CPU at least once.
    ran: bool,
    sleep: u64,
    run: u64,
    steps: Vec<(u64, u64)>,
    wakeups: u64,
    cpus: u64,
    cpus_big: Vec<u32>,
}

impl Track {
    fn new(comm: &str, prio: i64) -> Track {
        Track {
            comm: comm.to_string(),
            prio,
            st: St::Unknown,
            start: None,
            per_cpu: BTreeMap::new(),
            ran: false,
            sleep: 0,
            run: 0,
            steps: Vec::new(),
            wakeups: 0,
            cpus: 0,
            cpus_big: Vec::new(),
        }
    }
    /// The comm changes at exec, the prio at a nice change: the task is named and weighted as
    /// it was last seen.
    fn renamed(&mut self, comm: &str, prio: i64) {
        if self.comm != comm {
            self.comm = comm.to_string();
        }
        self.prio = prio;
    }

    fn seen_on(&mut self, cpu: u32) {
        if cpu < 64 {
            self.cpus |= 1 << cpu;
        } else if !self.cpus_big.contains(&cpu) {
            self.cpus_big.push(cpu);
        }
    }
}

struct Warn {
    list: Vec<String>,
    more: usize,
    max: usize,
}

impl Warn {
    fn push(&mut self, w: String) {
        if self.list.len() < self.max {
            self.list.push(w);
        } else {
            self.more += 1;
        }
    }
}

/// Read a trace. Errors only when nothing usable is in it; every skipped line is a warning.
pub fn import_ftrace(text: &str, opts: &ImportOptions) -> Result<Imported, String> {
    let mut r = Reader::new(opts);
    for (no, raw) in text.lines().enumerate() {
        if let Some(v) = raw.trim_start_matches(['#', ' ']).strip_prefix(super::ftrace_export::END_MARK) {
            r.end_mark = v.trim().parse::<u64>().ok();
            continue;
        }
        if !r.feed(parse(raw), &|| format!("line {}", no + 1))? {
            break;
        }
    }
    r.finish("ftrace")
}

/// The events of a trace, whatever its format, read in time order into each task's bursts and
/// sleeps.
pub(crate) struct Reader<'o> {
    opts: &'o ImportOptions,
    warn: Warn,
    /// What was cut to fit a scenario: listed first, whatever the number of other warnings.
    cuts: Vec<String>,
    cut_by_line: bool,
    max_steps: usize,
    max_span: u64,
    tracks: BTreeMap<i64, Track>,
    t0: Option<u64>,
    t_end: u64,
    ncpu: u32,
    last_ts: u64,
    /// Per CPU, the task the last switch put there (0: idle or not known) and when.
    on_cpu: Vec<(i64, u64)>,
    /// Switches out the trace did not show (another task switched in over a running one).
    missed_out: u64,
    /// Where a Fairground export says its run ended.
    pub end_mark: Option<u64>,
    /// The trace's own run, measured as it is read (`ImportOptions::real_run`).
    real: Option<Recorder>,
}

impl<'o> Reader<'o> {
    pub fn new(opts: &'o ImportOptions) -> Self {
        Reader {
            opts,
            warn: Warn { list: Vec::new(), more: 0, max: opts.max_warnings },
            cuts: Vec::new(),
            cut_by_line: false,
            max_steps: opts.max_steps.clamp(1, MAX_STEPS),
            max_span: opts.max_span_ns.min(MAX_SPAN_NS),
            tracks: BTreeMap::new(),
            t0: None,
            t_end: 0,
            ncpu: 0,
            on_cpu: Vec::new(),
            missed_out: 0,
            last_ts: 0,
            end_mark: None,
            real: opts.real_run.then(Recorder::default),
        }
    }

    /// A warning about the event at `at`.
    pub fn warn(&mut self, w: String) {
        self.warn.push(w);
    }

    /// Read one event (or what stood in its place), found at `at` ("line 12", "packet 3 at
    /// byte 4096"). Ok(false): the trace is cut here, read no further.
    pub fn feed(&mut self, parsed: Result<Line, Other>, at: &dyn Fn() -> String) -> Result<bool, String> {
        let (max_span, last_ts) = (self.max_span, self.last_ts);
        let warn = &mut self.warn;
        let tracks = &mut self.tracks;
        let real = &mut self.real;
        let line = match parsed {
            Ok(l) => l,
            Err(Other::Ignorable) => return Ok(true),
            Err(Other::Lost { cpu }) => {
                warn.push(format!("{}: events of CPU {cpu} were lost here; stints running there are closed at this point", at()));
                if let Some(rec) = real.as_mut() {
                    rec.lost(cpu, last_ts);
                }
                if let Some(p) = self.on_cpu.get_mut(cpu as usize) {
                    *p = (0, last_ts);
                }
                for tr in tracks.values_mut() {
                    if let St::Running { cpu: c, since } = tr.st {
                        if c == cpu {
                            tr.run += last_ts.saturating_sub(since);
                            tr.st = St::Runnable;
                        }
                    }
                }
                return Ok(true);
            }
            Err(Other::Skipped(why)) => {
                warn.push(format!("{}: skipped ({why})", at()));
                return Ok(true);
            }
        };
        let Line { ts_ns: t, cpu, event } = line;
        let target = if let Event::Wake { target_cpu, .. } = &event { *target_cpu } else { 0 };
        if let Some(c) = [cpu, target].into_iter().find(|&c| c >= MAX_CPUS) {
            return Err(format!("{}: CPU {c}: a scenario has at most {MAX_CPUS} CPUs (0 to {})", at(), MAX_CPUS - 1));
        }
        if self.t0.is_some_and(|t0| t.max(last_ts) - t0 > max_span) {
            self.cuts.push(format!(
                "{}: the trace goes on past {} s from its first event, as long as a scenario lasts: the rest is left out",
                at(),
                max_span as f64 / 1e9
            ));
            self.cut_by_line = true;
            return Ok(false);
        }
        if t < last_ts {
            warn.push(format!("{}: time goes backwards ({t} ns after {last_ts} ns); read as {last_ts} ns", at()));
        }
        let t = t.max(last_ts);
        self.last_ts = t;
        let start = *self.t0.get_or_insert(t);
        self.t_end = t;
        self.ncpu = self.ncpu.max(cpu + 1);
        match event {
            Event::Wake { kind, comm, pid, prio, target_cpu } => {
                if pid == 0 {
                    return Ok(true);
                }
                self.ncpu = self.ncpu.max(target_cpu + 1);
                let tr = tracks.entry(pid).or_insert_with(|| Track::new(&comm, prio));
                tr.renamed(&comm, prio);
                let counted = tr.wakeups;
                match (tr.st, kind) {
                    (St::Unknown, WakeKind::WakeupNew) => {
                        tr.start = Some(t);
                        tr.st = St::Forked;
                    }
                    (St::Sleeping { since }, _) => {
                        tr.sleep = t - since;
                        tr.wakeups += 1;
                        tr.st = St::Runnable;
                    }
                    (St::Unknown, _) => {
                        // Asleep since before the trace: it sleeps from the trace's start.
                        tr.start = Some(start);
                        tr.sleep = t - start;
                        tr.wakeups += 1;
                        tr.st = St::Runnable;
                    }
                    (St::Forked, _) => {
                        // Forked asleep: this is its first wakeup.
                        tr.sleep = t - tr.start.unwrap_or(start);
                        tr.wakeups += 1;
                        tr.st = St::Runnable;
                    }
                    _ => {} // sched_wakeup after its sched_waking, or a spurious wakeup
                }
                if let Some(rec) = real.as_mut().filter(|_| tr.wakeups > counted) {
                    rec.woke(pid, &tr.comm, t);
                }
            }
            Event::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio } => {
                if let Some(rec) = real.as_mut() {
                    rec.switch(cpu, t, start, (prev_pid, &prev_comm), (next_pid, &next_comm));
                }
                if self.on_cpu.len() <= cpu as usize {
                    self.on_cpu.resize(cpu as usize + 1, (0, start));
                }
                // A switch ends whatever ran on its CPU, whether or not the trace shows it leave:
                // a recorded trace can miss a switch out (events lost without a mark), and a task
                // left running would be replayed with a burst to the end of the trace that it
                // never had. It is read as going to sleep there (its next wakeup then counts).
                let (stale, last_switch) = std::mem::replace(&mut self.on_cpu[cpu as usize], (next_pid, t));
                if stale != 0 && stale != prev_pid {
                    if let Some(tr) = tracks.get_mut(&stale) {
                        if let St::Running { cpu: c, since } = tr.st {
                            if c == cpu {
                                tr.run += t - since;
                                *tr.per_cpu.entry(cpu).or_default() += t - since;
                                tr.steps.push((tr.sleep, tr.run.max(1)));
                                tr.sleep = 0;
                                tr.run = 0;
                                tr.st = St::Sleeping { since: t };
                                self.missed_out += 1;
                            }
                        }
                    }
                }
                if prev_pid != 0 {
                    let tr = tracks.entry(prev_pid).or_insert_with(|| Track::new(&prev_comm, prev_prio));
                    tr.renamed(&prev_comm, prev_prio);
                    tr.seen_on(cpu);
                    match tr.st {
                        St::Running { since, .. } => {
                            tr.run += t - since;
                            *tr.per_cpu.entry(cpu).or_default() += t - since;
                        }
                        St::Unknown => {
                            // Running since the CPU's previous switch: the trace's start, if
                            // this is the CPU's first (else that switch's own task was left out).
                            let from = last_switch.clamp(start, t);
                            tr.start = Some(from);
                            tr.sleep = 0;
                            tr.run = t - from;
                            *tr.per_cpu.entry(cpu).or_default() += t - from;
                        }
                        _ => {}
                    }
                    if prev_state.starts_with('R') {
                        tr.st = St::Runnable;
                    } else {
                        tr.steps.push((tr.sleep, tr.run.max(1)));
                        tr.sleep = 0;
                        tr.run = 0;
                        tr.st = St::Sleeping { since: t };
                    }
                }
                if next_pid != 0 {
                    let tr = tracks.entry(next_pid).or_insert_with(|| Track::new(&next_comm, next_prio));
                    tr.renamed(&next_comm, next_prio);
                    tr.seen_on(cpu);
                    if matches!(tr.st, St::Unknown | St::Forked) {
                        // Runnable since its fork, or first seen here: no sleep before it.
                        tr.start = Some(tr.start.unwrap_or(t));
                        tr.sleep = 0;
                    } else if let St::Sleeping { since } = tr.st {
                        // A wakeup that the trace does not show (lost, or before tracing).
                        tr.sleep = t - since;
                        tr.wakeups += 1;
                    } else if let St::Running { cpu: c, since } = tr.st {
                        // Switched in here while still running elsewhere: its switch out there was
                        // not in the trace. Its time there counts, its burst goes on here.
                        tr.run += t - since;
                        *tr.per_cpu.entry(c).or_default() += t - since;
                        if let Some(p) = self.on_cpu.get_mut(c as usize).filter(|p| p.0 == next_pid) {
                            p.0 = 0;
                        }
                    }
                    tr.st = St::Running { cpu, since: t };
                    tr.ran = true;
                }
            }
        }
        Ok(true)
    }

    /// The scenario from what was read (`format` names the trace's kind in its description).
    pub fn finish(self, format: &str) -> Result<Imported, String> {
        let Reader { opts, mut warn, mut cuts, cut_by_line, max_steps, max_span, tracks, t0, mut t_end, ncpu, end_mark, real, missed_out, .. } = self;
        if missed_out > 0 {
            warn.push(format!(
                "{missed_out} switches out were not in the trace (a task was switched in on a CPU where another was still running): each such task is read as going to sleep there"
            ));
        }
        let Some(t0) = t0 else {
            return Err("no sched_switch, sched_waking, sched_wakeup or sched_wakeup_new events in the trace".into());
        };
        // A Fairground export says where its run ended; a real trace ends at its last event.
        if let Some(e) = end_mark.filter(|&e| e >= t_end) {
            t_end = e;
        }
        if cut_by_line || t_end - t0 > max_span {
            // Read to the cut (or marked as ending after it): what runs there runs to the cut.
            if !cut_by_line {
                cuts.push(format!("the trace ends {} s after its first event; it is cut at {} s, as long as a scenario lasts", (t_end - t0) as f64 / 1e9, max_span as f64 / 1e9));
            }
            t_end = t0 + max_span;
        }
        let mut tasks = Vec::new();
        let mut used = std::collections::BTreeSet::new();
        for (pid, mut tr) in tracks {
            match tr.st {
                St::Running { cpu, since } => {
                    tr.run += t_end - since;
                    *tr.per_cpu.entry(cpu).or_default() += t_end - since;
                    tr.steps.push((tr.sleep, tr.run.max(1)));
                }
                St::Runnable if tr.run > 0 || tr.ran => tr.steps.push((tr.sleep, tr.run.max(1))),
                _ => {}
            }
            if !opts.comms.is_empty() && !opts.comms.iter().any(|c| tr.comm.starts_with(c.as_str())) {
                continue;
            }
            // sched_switch's prio is the kernel's p->prio: 100–139 the fair class, 0–99 the RT
            // class (FIFO and RR alike), -1 deadline.
            let policy = match tr.prio {
                100..=139 => None,
                0..=99 => Some("fifo"),
                -1 => Some("deadline"),
                _ => {
                    warn.push(format!("pid {pid} ({}) has prio {}: not a fair-class task, left out", tr.comm, tr.prio));
                    continue;
                }
            };
            if tr.steps.is_empty() {
                continue; // never ran
            }
            // Pinned where it did at least a tenth of its running (affinity is not traced, and a
            // task pinned after it started shows a few early stints elsewhere).
            let total: u64 = tr.per_cpu.values().sum();
            let mut cpus: Vec<u32> = tr.per_cpu.iter().filter(|&(_, &ns)| ns * 10 >= total).map(|(&c, _)| c).collect();
            if cpus.is_empty() {
                cpus = (0..64).filter(|c| tr.cpus & (1 << c) != 0).collect();
                cpus.extend(&tr.cpus_big);
                cpus.sort_unstable();
            }
            if policy.is_some() {
                // The model runs such a task on one CPU: the one where it ran most (lowest id on ties).
                let most = tr.per_cpu.iter().max_by_key(|&(&c, &ns)| (ns, std::cmp::Reverse(c))).map_or(0, |(&c, _)| c);
                let also = if tr.per_cpu.len() > 1 { format!(", where it did most of its running (it also ran on {} other CPUs)", tr.per_cpu.len() - 1) } else { String::new() };
                let class = if policy == Some("deadline") { "SCHED_DEADLINE" } else { "SCHED_FIFO or SCHED_RR (a trace does not tell them apart)" };
                warn.push(format!(
                    "pid {pid} ({}) has prio {}: not a fair-class task; replayed as {class} load above the fair class on CPU {most}{also}; its own scheduling is not modelled",
                    tr.comm, tr.prio
                ));
                cpus = vec![most];
            }
            let name = unique_name(&tr.comm, pid, &mut used);
            if tr.steps.len() > max_steps {
                let kept: u64 = tr.steps[..max_steps].iter().map(|&(s, r)| s + r).sum();
                cuts.push(format!(
                    "task {name} (pid {pid}): {} bursts; a replay holds {max_steps}: the first {max_steps} are kept, and it sleeps after them ({:.6} s after it appeared)",
                    tr.steps.len(),
                    kept as f64 / 1e9
                ));
                tr.steps.truncate(max_steps);
            }
            let cpu_ns = tr.steps.iter().map(|s| s.1).sum();
            let start_ns = tr.start.unwrap_or(t0) - t0;
            let nice = if policy.is_some() { 0 } else { (tr.prio - 120) as i32 };
            tasks.push(ObservedTask { name, comm: tr.comm, pid, nice, cpu_ns, wakeups: tr.wakeups, cpus, policy, start_ns, steps: tr.steps });
        }
        if tasks.is_empty() {
            return Err("the trace shows no fair-class task that ran".into());
        }
        if tasks.len() > MAX_TASKS as usize {
            return Err(format!("the trace shows {} tasks; a scenario holds at most {MAX_TASKS}", tasks.len()));
        }
        if warn.more > 0 {
            warn.list.push(format!("… and {} more warnings", warn.more));
        }
        cuts.append(&mut warn.list);
        warn.list = cuts;
        let duration_ms = (t_end - t0).div_ceil(1_000_000).max(1);
        let scenario = json!({
            "format": "fairground-scenario/1",
            "name": "imported trace",
            "description": format!("Imported from {format}: {} tasks over {:.3} s on {ncpu} CPUs; each replays the bursts and sleeps it was seen to have.", tasks.len(), (t_end - t0) as f64 / 1e9),
            "duration_ms": duration_ms,
            "machine": { "cpus": ncpu.max(1), "hz": opts.hz },
            "scheduler": { "policy": opts.policy },
            "tasks": tasks.iter().map(|t| task_json(t, opts.pin_observed)).collect::<Vec<_>>(),
        });
        let names: Vec<(i64, String)> = tasks.iter().map(|t| (t.pid, t.name.clone())).collect();
        let real = real.map(|rec| rec.finish(t0, t_end, ncpu.max(1), &names));
        Ok(Imported { scenario, tasks, warnings: warn.list, start_ns: t0, end_ns: t_end, real })
    }
}

fn task_json(t: &ObservedTask, pin: bool) -> Value {
    // µs, as the scenario counts, rounding the times the steps reach rather than each step,
    // so that rounding errors do not add up over thousands of steps (a trace in ns); a burst
    // never rounds down to nothing.
    let us = |ns: u64| (ns + 500) / 1000;
    let (mut at, mut prev) = (t.start_ns, us(t.start_ns));
    let mut steps: Vec<Value> = Vec::with_capacity(t.steps.len());
    for &(s, r) in &t.steps {
        at += s;
        let woke = us(at);
        at += r;
        let slept = us(at);
        steps.push(json!([woke - prev, slept.saturating_sub(woke).max(1)]));
        prev = slept.max(woke);
    }
    let mut v = json!({ "name": t.name, "behavior": { "kind": "replay", "start_us": (t.start_ns + 500) / 1000, "steps_us": steps } });
    if t.nice != 0 {
        v["nice"] = json!(t.nice);
    }
    if let Some(p) = t.policy {
        // Pinned whatever `pin` says: the model runs such a task on one CPU only.
        v["policy"] = json!(p);
        v["cpus"] = json!(t.cpus);
    } else if pin && !t.cpus.is_empty() {
        v["cpus"] = json!(t.cpus);
    }
    v
}

/// A scenario name from a comm: [A-Za-z0-9_.-], at most 32 characters, unique whatever the
/// comms and pids: the comm (cut to 20 characters), else comm-pid, else comm-pid-2, -3, …
/// (tasks come in pid order, so the names are the same at every import).
fn unique_name(comm: &str, pid: i64, used: &mut std::collections::BTreeSet<String>) -> String {
    let mut base: String = comm.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' { c } else { '_' }).take(20).collect();
    if base.is_empty() {
        base = "task".into();
    }
    // The suffix (ASCII) is kept whole, up to 31 characters; the base gives way to it.
    let fit = |suffix: &str| -> String {
        let suffix = &suffix[suffix.len().saturating_sub(31)..];
        base.chars().take(32 - suffix.len()).chain(suffix.chars()).collect()
    };
    let mut name = fit("");
    let mut n = 1u64;
    while used.contains(&name) {
        name = if n == 1 { fit(&format!("-{pid}")) } else { fit(&format!("-{pid}-{n}")) };
        n += 1;
    }
    used.insert(name.clone());
    name
}
