//! A recorded trace's own run, measured as the model measures its runs, so that the two can be
//! set side by side: each task's CPU time, its wakeup latencies (from the wakeup, `sched_waking`
//! or else `sched_wakeup`, to the `sched_switch` that puts it on a CPU, as the model counts from
//! `try_to_wake_up()` to the switch in; a fork's first run is not a wakeup, a preempted task's
//! return is not either) and what ran on each CPU when.
//!
//! The importer's reader (`ftrace_import::Reader`) calls the recorder as it reads the events, so
//! every format (ftrace text, trace.dat, Perfetto) is measured by the same code: it says where a
//! stint ran and when a wakeup it counted happened. Asked for with `ImportOptions::real_run`.

use std::collections::BTreeMap;

/// What ran on one CPU from `start_ns` to `end_ns` (from the trace's first event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RealSlice {
    pub cpu: u32,
    /// Index into `RealRun::tasks`.
    pub task: u32,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// One task of the trace as it really ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealTask {
    /// The scenario's name for it when the scenario replays it, else `comm-pid`.
    pub name: String,
    pub pid: i64,
    /// Whether the imported scenario replays it.
    pub in_scenario: bool,
    pub cpu_ns: u64,
    /// Every wakeup latency, in the order they happened (ns).
    pub wakeup_latency_ns: Vec<u64>,
}

/// The trace's own run: the tasks the scenario replays first, in its order, then the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RealRun {
    /// From the first event to the end of what was read.
    pub span_ns: u64,
    pub cpus: u32,
    pub tasks: Vec<RealTask>,
    /// In the order they ended.
    pub slices: Vec<RealSlice>,
}

#[derive(Default)]
struct Rec {
    comm: String,
    woke_at: Option<u64>,
    lat: Vec<u64>,
}

/// What the reader tells as it reads (times absolute, as in the trace). What ran where is kept
/// per CPU from the switches themselves rather than from the reader's idea of each task: a
/// recorded trace can miss a switch (a task switched in and never out), and whatever a switch
/// puts on a CPU ends what ran there before.
#[derive(Default)]
pub(crate) struct Recorder {
    pids: BTreeMap<i64, Rec>,
    /// (cpu, pid, start, end).
    stints: Vec<(u32, i64, u64, u64)>,
    /// Per CPU: what runs there since when (None: idle or not known), and its last switch.
    on: Vec<(Option<(i64, u64)>, u64)>,
}

impl Recorder {
    /// A wakeup the reader counted (the task had been asleep), at `t`.
    pub fn woke(&mut self, pid: i64, comm: &str, t: u64) {
        self.rec(pid, comm).woke_at = Some(t);
    }

    /// A `sched_switch` on `cpu` at `t` (pid 0 is idle). A task first seen leaving a CPU ran
    /// there since that CPU's previous switch (or since `t0`, the trace's first event).
    pub fn switch(&mut self, cpu: u32, t: u64, t0: u64, prev: (i64, &str), next: (i64, &str)) {
        let c = cpu as usize;
        if self.on.len() <= c {
            self.on.resize(c + 1, (None, t0));
        }
        let (cur, last) = self.on[c];
        match cur {
            Some((pid, since)) => self.stints.push((cpu, pid, since, t)),
            None if prev.0 != 0 && last < t => self.stints.push((cpu, prev.0, last, t)),
            None => {}
        }
        if prev.0 != 0 {
            self.rec(prev.0, prev.1);
        }
        self.on[c] = (None, t);
        if next.0 != 0 {
            // A task runs on one CPU at a time: switched in here, it left wherever it was.
            for (cpu2, slot) in self.on.iter_mut().enumerate() {
                if let Some((pid, since)) = slot.0.filter(|o| o.0 == next.0) {
                    self.stints.push((cpu2 as u32, pid, since, t));
                    slot.0 = None;
                }
            }
            self.on[c].0 = Some((next.0, t));
            let r = self.rec(next.0, next.1);
            if let Some(w) = r.woke_at.take() {
                r.lat.push(t.saturating_sub(w));
            }
        }
    }

    /// Events of `cpu` were lost after `t`: what ran there is not known from then on.
    pub fn lost(&mut self, cpu: u32, t: u64) {
        if let Some(slot) = self.on.get_mut(cpu as usize) {
            if let Some((pid, since)) = slot.0.take() {
                self.stints.push((cpu, pid, since, t.max(since)));
            }
            slot.1 = t;
        }
    }

    fn rec(&mut self, pid: i64, comm: &str) -> &mut Rec {
        let r = self.pids.entry(pid).or_default();
        if r.comm != comm {
            r.comm = comm.to_string();
        }
        r
    }

    /// The run, times from `t0`, the tasks named as the scenario names them (`names`, in the
    /// scenario's order).
    pub fn finish(self, t0: u64, t_end: u64, cpus: u32, names: &[(i64, String)]) -> RealRun {
        let Recorder { mut pids, mut stints, on } = self;
        for (cpu, (cur, _)) in on.into_iter().enumerate() {
            if let Some((pid, since)) = cur {
                stints.push((cpu as u32, pid, since, t_end));
            }
        }
        let mut index = BTreeMap::new();
        let mut tasks = Vec::with_capacity(pids.len());
        let mut add = |pid: i64, name: String, in_scenario: bool, r: Rec, tasks: &mut Vec<RealTask>| {
            index.insert(pid, tasks.len() as u32);
            tasks.push(RealTask { name, pid, in_scenario, cpu_ns: 0, wakeup_latency_ns: r.lat });
        };
        for (pid, name) in names {
            let r = pids.remove(pid).unwrap_or_default();
            add(*pid, name.clone(), true, r, &mut tasks);
        }
        let ran: std::collections::BTreeSet<i64> = stints.iter().map(|s| s.1).collect();
        for (pid, r) in std::mem::take(&mut pids) {
            if ran.contains(&pid) {
                let name = format!("{}-{pid}", r.comm);
                add(pid, name, false, r, &mut tasks);
            }
        }
        let mut slices = Vec::with_capacity(stints.len());
        for (cpu, pid, from, to) in stints {
            let Some(&task) = index.get(&pid) else { continue };
            let (from, to) = (from.clamp(t0, t_end), to.clamp(t0, t_end));
            if to > from {
                tasks[task as usize].cpu_ns += to - from;
                slices.push(RealSlice { cpu, task, start_ns: from - t0, end_ns: to - t0 });
            }
        }
        RealRun { span_ns: t_end - t0, cpus, tasks, slices }
    }
}
