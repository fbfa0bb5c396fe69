//! The simulation side of the worker: one run of the core, moved forward and backward on
//! request, with checkpoints for rewinding and the scenario kept up to date with live edits.
//! Pure Rust (no browser): the worker (`endpoint.rs`) only passes messages in and out, so this is
//! tested natively.
//!
//! Time: after a request, every instant up to `view_ns` has been processed. Going back restores
//! the latest checkpoint at or before the target and replays; the run is deterministic, so the
//! replay closes the same slices again, and those the page already has are not sent twice.

use fairground_sim::engine::trace::{Slice, TraceMark};
use fairground_sim::engine::{GroupLive, Sim, TaskLive};
use fairground_sim::scenario::{self, Behavior, Dist, Limits, Origin, Scenario, SetAttrs, Target, TimelineEntry, WorkloadKind};
use fairground_sim::parse_scenario;

use crate::wire::proto::*;

/// First checkpoint spacing, in processed events; doubled whenever the list is thinned, so that
/// there are never more than `MAX_CHECKPOINTS` (a replay is at most one spacing long).
const CHECKPOINT_EVENTS: u64 = 100_000;
const MAX_CHECKPOINTS: usize = 48;

struct Checkpoint {
    /// Instants before `upto` had been processed (0 = none).
    upto: u64,
    sim: Sim,
    mark: TraceMark,
    /// Timeline entries the checkpoint's run knows of; later ones are added on restore.
    n_timeline: usize,
}

pub struct Host {
    scenario: Scenario,
    sim: Sim,
    view_ns: u64,
    checkpoints: Vec<Checkpoint>,
    cp_every: u64,
    last_cp_events: u64,
    /// Slices the page has.
    sent: usize,
    truncate: Option<u64>,
    scratch: Vec<u64>,
    live: Vec<TaskLive>,
    live_groups: Vec<GroupLive>,
    /// The trees / decision log / key chart panels ("inside the scheduler").
    insight: insight::Insight,
    /// A runaway to stage at this time (`Input::TestRunaway`), for testing the page.
    fault_at: Option<u64>,
    groups: groups::GroupSampler,
}

/// Wall-clock budget of one answer, so the worker keeps answering while it plays.
pub struct Budget<'a> {
    pub clock_ms: &'a dyn Fn() -> f64,
    pub max_ms: f64,
}

impl Host {
    /// Build a run at time 0 (nothing processed yet), or the core's refusal.
    pub fn load(text: &str) -> Result<(Host, RunInfo), String> {
        let v = parse_scenario(text).map_err(|e| e.to_string())?;
        scenario::check_cost(&v.scenario, &Limits::BROWSER).map_err(|e| e.to_string())?;
        let mut sim = Sim::new(&v).map_err(|e| e.to_string())?;
        let report = Sim::new(&v).map_err(|e| e.to_string())?.report();
        sim.enable_trace();
        let expanded = scenario::expand(&v.scenario);
        let info = RunInfo {
            text: serde_json::to_string(&scenario::to_json(&v.scenario)).map_err(|e| e.to_string())?,
            name: v.scenario.name.clone(),
            policy: report.policy.to_string(),
            seed: report.seed,
            duration_ns: report.duration_ns,
            tick_ns: report.effective.tick_ns,
            cpus: sim.cpus.len() as u32,
            tasks: expanded
                .iter()
                .map(|t| TaskInfo {
                    name: t.name.clone(),
                    slice_us: t.attrs.slice_us,
                    cgroup: t.attrs.cgroup.clone(),
                    affinity: match &t.attrs.cpus {
                        None => "all".into(),
                        Some(c) => c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","),
                    },
                    behaviour: match (&t.behavior, &t.origin) {
                        (Some(b), _) => describe(b),
                        (None, Origin::Workload { spec, role, .. }) => {
                            let kind = match v.scenario.workloads.get(*spec).map(|w| &w.kind) {
                                Some(WorkloadKind::Hackbench { .. }) => "hackbench",
                                Some(WorkloadKind::Schbench { .. }) => "schbench",
                                None => "workload",
                            };
                            format!("{kind} {role}")
                        }
                        (None, _) => "workload".into(),
                    },
                })
                .collect(),
            warnings: report.warnings.clone(),
            effective: match serde_json::to_value(&report.effective) {
                Ok(serde_json::Value::Object(m)) => m.into_iter().filter_map(|(k, v)| Some((k, v.as_u64()?))).collect(),
                _ => Vec::new(),
            },
        };
        let cp = Checkpoint {
            upto: 0,
            sim: sim.clone(),
            mark: sim.trace.as_ref().map(|t| t.mark()).expect("trace enabled above"),
            n_timeline: v.scenario.timeline.len(),
        };
        let groups = groups::GroupSampler::new(&sim, report.effective.tick_ns);
        let host = Host {
            groups,
            scenario: v.scenario,
            sim,
            view_ns: 0,
            checkpoints: vec![cp],
            cp_every: CHECKPOINT_EVENTS,
            last_cp_events: 0,
            sent: 0,
            truncate: None,
            scratch: Vec::new(),
            live_groups: Vec::new(),
            live: Vec::new(),
            insight: insight::Insight::default(),
            fault_at: None,
        };
        Ok((host, info))
    }

    pub fn duration_ns(&self) -> u64 {
        self.sim.duration_ns
    }

    pub fn view_ns(&self) -> u64 {
        self.view_ns
    }

    /// Run scratch copies of the run forward for `budget` and throw them away; the events
    /// they processed and the wall time they took, both counted from the first third of the
    /// budget on (the worker's speed, `Output::Warmed`). A browser first runs WebAssembly
    /// through its baseline compiler and optimizes a function only once it has run hot, and
    /// the call running when that happens stays baseline code (V8's dynamic tiering, without
    /// on-stack replacement): the first jump to the end of a run paid that at the user's
    /// expense, at half the optimized speed or less. The copies take the run's own policy and
    /// workloads through their hot paths while nobody is waiting; the run itself is
    /// untouched. The first copy starts where the run stands (the user plays on from there);
    /// when it ends within the budget, copies from the run's start follow, so that a lesson's
    /// few thousand events are measured over as long as hackbench's, and a run reopened at its
    /// end is measured too. The first third is left out of the figures because part of it ran
    /// as baseline code.
    pub fn warm_up(&mut self, budget: &Budget) -> (u64, f64) {
        let start = (budget.clock_ms)();
        let mut done = 0u64;
        let mut mark: Option<(u64, f64)> = None;
        let mut first = true;
        let last = loop {
            let copy = if first { Some(self.scratch_copy()) } else { self.copy_from_start() };
            let Some(mut sim) = copy else { break (budget.clock_ms)() };
            let base = sim.events;
            let mut n = 0u32;
            let (now, out_of_time) = loop {
                let more = sim.step_instant();
                n += 1;
                if more && n % 256 != 0 {
                    continue;
                }
                let now = (budget.clock_ms)();
                if mark.is_none() && now - start >= budget.max_ms / 3.0 {
                    mark = Some((done + (sim.events - base), now));
                }
                let out_of_time = now - start > budget.max_ms;
                if !more || out_of_time {
                    break (now, out_of_time);
                }
            };
            let did = sim.events - base;
            done += did;
            // An unbounded budget (tests) runs one copy; a run with no events from its start
            // (nothing to measure), no more.
            if out_of_time || !budget.max_ms.is_finite() || (did == 0 && !first) {
                break now;
            }
            first = false;
        };
        let (events_at, ms_at) = mark.unwrap_or((0, start));
        (done - events_at, last - ms_at)
    }

    /// A copy of the run to throw away: without the slices recorded so far (a run restored
    /// after a restart may hold many), but recording its own, as the run does.
    fn scratch_copy(&mut self) -> Sim {
        let trace = self.sim.trace.take();
        let sim = self.sim.clone();
        self.sim.trace = trace;
        self.recording_as_the_run(sim)
    }

    /// A scratch copy records slices when the run does, so that it goes through the same paths.
    fn recording_as_the_run(&self, mut sim: Sim) -> Sim {
        if self.sim.trace.is_some() {
            sim.enable_trace();
        }
        sim
    }

    /// A copy of the run as it was at time 0 (the first checkpoint, always kept), with the
    /// scenario's edits, to throw away.
    fn copy_from_start(&self) -> Option<Sim> {
        Some(self.recording_as_the_run(self.replayed(self.checkpoints.first()?)))
    }

    /// The run as it was at checkpoint `cp`, with the scenario's edits made since.
    fn replayed(&self, cp: &Checkpoint) -> Sim {
        let mut sim = cp.sim.clone();
        for e in self.scenario.timeline.get(cp.n_timeline..).unwrap_or_default() {
            // Entries are recorded ahead of the time they were made at, and later checkpoints
            // are dropped at each edit, so every one is ahead of this checkpoint.
            let _ = sim.add_timeline_entry(&self.scenario, e);
        }
        sim
    }

    /// Whether a seek to `to_ns` is answered in full: the view is there (or at the end), or the
    /// core stopped the run, which goes no further.
    pub fn arrived(&self, to_ns: u64) -> bool {
        self.view_ns >= to_ns.min(self.sim.duration_ns) || self.sim.runaway.is_some()
    }

    /// Whether instants up to `t` inclusive have all been processed in the current state.
    fn processed_upto(&self) -> u64 {
        // Instants before this are processed.
        if self.sim.is_finished() {
            return u64::MAX;
        }
        match self.sim.next_instant() {
            Some(n) => n,
            None => self.sim.duration_ns,
        }
    }

    /// Move to `to_ns` (clamped to the run's end): back through a checkpoint, then forward
    /// within the budget. Returns the work done (events, ms).
    pub fn seek(&mut self, to_ns: u64, budget: &Budget) -> (u64, f64) {
        let to = to_ns.min(self.sim.duration_ns);
        let t0 = (budget.clock_ms)();
        let e0 = self.sim.events;
        if to < self.view_ns || (self.sim.is_finished() && to < self.sim.duration_ns) {
            self.restore_before(to);
        }
        self.forward(to, budget);
        let events = self.sim.events.saturating_sub(e0);
        (events, (budget.clock_ms)() - t0)
    }

    /// Restore the latest checkpoint from which instant `to` is still ahead or is the last
    /// processed one.
    fn restore_before(&mut self, to: u64) {
        let i = self.checkpoints.iter().rposition(|c| c.upto <= to.saturating_add(1)).unwrap_or(0);
        let cp = &self.checkpoints[i];
        let mut trace = self.sim.trace.take();
        let mut sim = self.replayed(cp);
        if let Some(tr) = trace.as_mut() {
            tr.rewind(&cp.mark);
        }
        sim.trace = trace;
        self.last_cp_events = sim.events;
        self.insight.restored(&mut sim, cp.upto);
        self.groups.rewind(cp.upto);
        self.sim = sim;
        self.view_ns = cp.upto.saturating_sub(1);
    }

    /// Stop the run as the core stops a runaway once it reaches `at_ns` (testing the page).
    pub fn stage_runaway(&mut self, at_ns: u64) {
        self.fault_at = Some(at_ns);
    }

    fn forward(&mut self, to: u64, budget: &Budget) {
        let start = (budget.clock_ms)();
        let mut n = 0u32;
        loop {
            if self.sim.runaway.is_some() {
                // The core stopped the run: it goes no further, and is not finished.
                self.view_ns = self.sim.now;
                return;
            }
            match self.sim.next_instant() {
                Some(t) if t <= to => {}
                Some(_) => {
                    self.view_ns = to;
                    return;
                }
                None => {
                    if to >= self.sim.duration_ns {
                        self.sim.finish();
                        self.view_ns = self.sim.duration_ns;
                    } else {
                        self.view_ns = to;
                    }
                    return;
                }
            }
            if self.fault_at.is_some_and(|t| self.sim.next_instant().is_some_and(|n| n >= t)) {
                self.sim.runaway = Some(format!("the run stopped at {} ns: a runaway staged for testing", self.sim.now));
                continue;
            }
            self.sim.step_instant();
            self.insight.after_instant(&mut self.sim);
            self.groups.after_instant(&self.sim);
            self.view_ns = self.sim.now;
            if self.sim.events - self.last_cp_events >= self.cp_every {
                self.checkpoint();
            }
            n += 1;
            if n % 256 == 0 && (budget.clock_ms)() - start > budget.max_ms {
                return;
            }
        }
    }

    fn checkpoint(&mut self) {
        self.last_cp_events = self.sim.events;
        let upto = self.processed_upto();
        if self.checkpoints.last().is_some_and(|c| c.upto >= upto) {
            return;
        }
        let trace = self.sim.trace.take();
        let cp = Checkpoint {
            upto,
            sim: self.sim.clone(),
            mark: trace.as_ref().map(|t| t.mark()).unwrap_or_else(|| fairground_sim::engine::trace::Trace::new(0).mark()),
            n_timeline: self.scenario.timeline.len(),
        };
        self.sim.trace = trace;
        self.checkpoints.push(cp);
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            // Keep the first and every other one after it.
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.cp_every *= 2;
        }
    }

    /// Process the next instant with events.
    pub fn step_instant(&mut self) {
        if let Some(t) = self.sim.next_instant() {
            let never = || 0.0;
            self.forward(t, &Budget { clock_ms: &never, max_ms: f64::INFINITY });
        } else {
            let end = self.sim.duration_ns;
            let never = || 0.0;
            self.forward(end, &Budget { clock_ms: &never, max_ms: f64::INFINITY });
        }
    }

    /// Back to the last instant with events before the current one (or time 0).
    pub fn step_back_instant(&mut self) {
        if self.view_ns == 0 {
            return;
        }
        let target = self.view_ns - 1;
        self.restore_before(target);
        let never = || 0.0;
        self.forward(target, &Budget { clock_ms: &never, max_ms: f64::INFINITY });
        // Land on the last instant processed, not on the time asked for.
        self.view_ns = self.sim.now.min(target);
    }

    /// Apply `set` to `task` from the current time on (the next whole µs after it), recording
    /// it in the scenario's timeline with `at_us`. Returns the scenario JSON and the time.
    pub fn edit(&mut self, task: &str, set: &EditSet) -> Result<(String, u64), String> {
        if self.sim.is_finished() {
            return Err("the run is over: go back in time to change a task".into());
        }
        if !scenario::expand(&self.scenario).iter().any(|t| t.name == task) {
            return Err(format!("there is no task named \"{task}\""));
        }
        let check = |v: Option<i32>, what: &str| match v {
            Some(x) if !(-20..=19).contains(&x) => Err(format!("{what} must be in -20..=19, not {x}")),
            _ => Ok(()),
        };
        check(set.nice, "nice")?;
        check(set.latency_nice, "latency nice")?;
        let at_ns = (self.view_ns / 1000 + 1) * 1000;
        if at_ns >= self.sim.duration_ns {
            return Err("the run is about to end: there is no time left to apply a change".into());
        }
        let entry = TimelineEntry {
            at_ns,
            at_in_us: true,
            target: Target::Task(task.to_string()),
            set: SetAttrs { nice: set.nice, latency_nice: set.latency_nice, slice_us: set.slice_us, shares: None, policy: None },
        };
        // Validate the edited scenario as a whole, as a share link of it will be.
        let mut edited = self.scenario.clone();
        edited.timeline.push(entry.clone());
        let text = serde_json::to_string(&scenario::to_json(&edited)).map_err(|e| e.to_string())?;
        parse_scenario(&text).map_err(|e| e.to_string())?;
        self.sim.add_timeline_entry(&edited, &entry).map_err(|e| e.to_string())?;
        self.scenario = edited;
        // The future computed so far is no longer this run's.
        let upto = self.processed_upto();
        self.checkpoints.retain(|c| c.upto <= upto);
        let len = self.sim.trace.as_ref().map_or(0, |t| t.slices.len());
        if self.sent > len {
            self.truncate = Some(len as u64);
            self.sent = len;
        }
        Ok((text, at_ns))
    }

    /// What the "inside the scheduler" panels look at changed. Opening the log or a chart
    /// replays the run from the start with recording on, back to the current time within
    /// `budget` (the page's seek goal covers the rest).
    pub fn set_insight(&mut self, ask: crate::wire::insight::Ask, budget: &Budget) -> (u64, f64) {
        let upto = self.processed_upto().min(self.sim.duration_ns);
        if self.insight.set_ask(ask, &mut self.sim, upto) && upto > 0 {
            let (view, finished) = (self.view_ns, self.sim.is_finished());
            self.restore_before(0);
            // Back to where the page is, in this one answer: a replay cut by the time budget
            // would leave the run behind the page's time with no seek of the page's to finish
            // it (the page had already arrived), which is what made the log test flaky. The
            // replay is bounded by the current time; the shipped scenarios take well under a
            // second.
            let whole = Budget { clock_ms: budget.clock_ms, max_ms: f64::INFINITY };
            return self.seek(if finished { u64::MAX } else { view }, &whole);
        }
        (0, 0.0)
    }

    /// The task groups now, and their weights sampled so far.
    pub fn groups_info(&self) -> GroupsInfo {
        self.groups.info(&self.sim)
    }

    /// The answer to a request: figures now, and the slices the page does not have yet.
    pub fn progress(&mut self, work: (u64, f64)) -> Progress {
        self.progress_with(work, true)
    }

    /// As `progress`, leaving the task figures out (`live` empty: the page keeps the last ones)
    /// unless `with_live`; they cost a selection per task, too much for every answer of a long
    /// seek.
    pub fn progress_with(&mut self, work: (u64, f64), with_live: bool) -> Progress {
        let view = self.view_ns;
        if with_live {
            self.sim.live_tasks(view.min(self.sim.duration_ns), &mut self.scratch, &mut self.live);
            self.sim.live_groups(&self.live, &mut self.scratch, &mut self.live_groups);
        } else {
            self.live.clear();
            self.live_groups.clear();
        }
        let live = self
            .live
            .iter()
            .map(|l| Live {
                cpu_ns: l.cpu_ns,
                wakeups: l.wakeups,
                switches: l.switches,
                involuntary: l.involuntary,
                wakeup_preemptions: l.wakeup_preemptions,
                lat_count: l.wakeup_latency_count,
                lat_p50: l.wakeup_latency_p50,
                lat_p99: l.wakeup_latency_p99,
                lat_max: l.wakeup_latency_max,
                nice: l.nice,
                latency_nice: l.latency_nice,
                slice_us: l.custom_slice_ns.map(|ns| ns / 1000),
                state: l.state,
            })
            .collect();
        let (running, slices) = match self.sim.trace.as_ref() {
            Some(tr) => {
                let running = tr
                    .open
                    .iter()
                    .map(|o| match o {
                        Some(o) => (o.task, o.start_ns, o.start_why as u8),
                        None => (NONE, 0, 0),
                    })
                    .collect();
                let new: Vec<WireSlice> = tr.slices.get(self.sent..).unwrap_or(&[]).iter().map(wire).collect();
                self.sent = self.sent.max(tr.slices.len());
                (running, new)
            }
            None => (Vec::new(), Vec::new()),
        };
        Progress {
            view_ns: view,
            events: self.sim.events,
            finished: self.sim.is_finished(),
            running,
            live,
            groups: self
                .live_groups
                .iter()
                .map(|g| LiveGroup {
                    name: g.name.clone(),
                    cpu_ns: g.cpu_ns,
                    lat_count: g.wakeup_latency_count,
                    lat_p50: g.wakeup_latency_p50,
                    lat_p99: g.wakeup_latency_p99,
                    completion_ns: g.completion_ns,
                })
                .collect(),
            truncate: self.truncate.take(),
            slices,
            work_events: work.0,
            work_ms: work.1,
            insight: if with_live { self.insight.answer(&mut self.sim, view) } else { None },
            stopped: self.sim.runaway.clone(),
        }
    }
}

pub fn wire(s: &Slice) -> WireSlice {
    WireSlice {
        cpu: s.cpu,
        task: s.task,
        start_ns: s.start_ns,
        end_ns: s.end_ns,
        why: ((s.start_why as u8) << 4) | s.stop_why as u8,
        other: s.other,
    }
}

fn us(d: &Dist) -> String {
    match *d {
        Dist::Fixed(x) => format!("{x}"),
        Dist::Exp(m) => format!("exp({m})"),
        Dist::Uniform(a, b) => format!("uniform({a}..{b})"),
        Dist::Normal(m, sd) => format!("normal({m}±{sd})"),
    }
}

fn describe(b: &Behavior) -> String {
    match b {
        Behavior::Hog => "hog".into(),
        Behavior::Periodic { period_us, run_us } => format!("periodic {run_us} µs every {period_us} µs"),
        Behavior::Bursty { run_us, sleep_us } => format!("bursty run {} µs, sleep {} µs", us(run_us), us(sleep_us)),
        Behavior::Duty { percent, period_us } => format!("duty {percent}% of {period_us} µs"),
        Behavior::Replay { start_us, steps_us } => format!("replay of {} run/sleep steps from {start_us} µs", steps_us.len()),
    }
}

mod insight;
mod rbreplay;
mod groups;
pub mod teach;

#[cfg(test)]
mod tests;
