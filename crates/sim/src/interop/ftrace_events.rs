//! The lines of an ftrace export, made from stints as they are seen and written in one order
//! whether the run is read whole or instant by instant: by time, wakeups before switches at
//! one instant (a wakeup precedes the switch it causes), then by CPU, then by the stint's
//! start (the order of the stints on that CPU).
//!
//! A stint gives its fork (`sched_wakeup_new`) or its wakeup (`sched_waking` +
//! `sched_wakeup`), the switch in from idle unless a stint ended on that CPU at that very
//! instant (then one `sched_switch` hands the CPU over), and the switch out once it ends.
//! Events wait in `pending` until no stint still to come can give an earlier one.

use super::ftrace_line::{write_switch, write_wake, WakeKind, Who};
use crate::engine::trace::Slice;
use crate::engine::trace::{StartWhy, StopWhy};
use crate::engine::Sim;
use crate::entity::NIL;
use std::io::{self, Write};

/// The pid a task is given in the export.
pub const PID_BASE: i64 = 10_000;

#[derive(Clone, Copy)]
enum Kind {
    /// A wakeup of `task` targeting the CPU (sched_waking + sched_wakeup), or its fork.
    Wake { task: u32, new: bool },
    /// `prev` (NIL = idle) leaves the CPU, `next` (NIL = idle) comes in.
    Switch { prev: u32, prev_state: &'static str, next: u32 },
}

#[derive(Clone, Copy)]
struct Ev {
    t: u64,
    cpu: u32,
    /// The start of the stint the event belongs to.
    stint: u64,
    kind: Kind,
}

impl Ev {
    /// Wakeups first at one instant (a wakeup precedes the switch it causes), then the
    /// switches of tasks going to sleep (a task that sleeps on one CPU and is woken onto
    /// another at the same instant leaves the first before it runs on the second, as
    /// try_to_wake_up() waits for `p->on_cpu`), then the others; by CPU within each.
    fn key(&self) -> (u64, bool, bool, u32, u64) {
        let (switch, not_sleeping) = match self.kind {
            Kind::Switch { prev_state, .. } => (true, prev_state != "S"),
            Kind::Wake { .. } => (false, false),
        };
        (self.t, switch, not_sleeping, self.cpu, self.stint)
    }

    fn lines(&self) -> u64 {
        match self.kind {
            Kind::Wake { new: false, .. } => 2,
            _ => 1,
        }
    }
}

/// `TASK_COMM_LEN - 1` characters, no spaces (a space would split the task column).
pub(super) fn comm_of(name: &str) -> String {
    name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).take(15).collect()
}

pub(super) struct Events {
    /// Count the lines without keeping the events (the pass that sizes the header).
    count_only: bool,
    /// Lines made so far.
    pub lines: u64,
    /// Per CPU, when its last stint ended (u64::MAX: none yet).
    last_end: Vec<u64>,
    /// Per CPU, the task running as of the last written event (NIL: idle).
    curr: Vec<u32>,
    pending: Vec<Ev>,
    comms: Vec<String>,
    idle: Vec<String>,
    /// Per task, 120 + nice as the run ended (the export gives each task one prio).
    prio: Vec<i64>,
    /// Task start times (a fork is shown at the task's start).
    start_ns: Vec<u64>,
}

/// Where the events go, in order: ftrace text lines or Perfetto packets.
pub(super) trait Sink {
    /// A `sched_waking`, `sched_wakeup` or `sched_wakeup_new` of `who` on `cpu`, while
    /// `running` (comm, pid) runs there.
    fn wake(&mut self, running: (&str, i64), cpu: u32, ts: u64, kind: WakeKind, who: Who, target_cpu: u32) -> io::Result<()>;
    /// A `sched_switch` on `cpu` from `prev` (left in `prev_state`) to `next`.
    fn switch(&mut self, running: (&str, i64), cpu: u32, ts: u64, prev: Who, prev_state: &str, next: Who) -> io::Result<()>;
    /// The end of a batch of events (every event before some time has been given).
    fn batch_done(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// After each instant of the run, before its slices are dropped: `closed` are the slices
    /// that ended at it. For what a sink shows beside the sched events.
    fn instant(&mut self, _sim: &mut Sim, _closed: &[Slice]) -> io::Result<()> {
        Ok(())
    }
}

/// ftrace text lines, written in blocks of 64 KiB.
pub(super) struct TextSink<'a, W: Write> {
    pub out: &'a mut W,
    pub buf: String,
}

impl<W: Write> TextSink<'_, W> {
    fn spill(&mut self) -> io::Result<()> {
        if self.buf.len() >= 1 << 16 {
            self.out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl<W: Write> Sink for TextSink<'_, W> {
    fn wake(&mut self, running: (&str, i64), cpu: u32, ts: u64, kind: WakeKind, who: Who, target_cpu: u32) -> io::Result<()> {
        write_wake(&mut self.buf, running, cpu, ts, kind, who, target_cpu);
        self.spill()
    }
    fn switch(&mut self, running: (&str, i64), cpu: u32, ts: u64, prev: Who, prev_state: &str, next: Who) -> io::Result<()> {
        write_switch(&mut self.buf, running, cpu, ts, prev, prev_state, next);
        self.spill()
    }
    fn batch_done(&mut self) -> io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.buf.clear();
        Ok(())
    }
}

impl Events {
    /// For the run `sim`, whose tasks end with nice values `nice`.
    pub fn new(sim: &Sim, nice: &[i32], count_only: bool) -> Events {
        let ncpu = sim.cpus.len();
        Events {
            count_only,
            lines: 0,
            last_end: vec![u64::MAX; ncpu],
            curr: vec![NIL; ncpu],
            pending: Vec::new(),
            comms: if count_only { Vec::new() } else { sim.tasks.iter().map(|t| comm_of(&t.name)).collect() },
            idle: if count_only { Vec::new() } else { (0..ncpu).map(|c| format!("swapper/{c}")).collect() },
            prio: nice.iter().map(|&n| 120 + i64::from(n)).collect(),
            start_ns: sim.tasks.iter().map(|t| t.start_ns).collect(),
        }
    }

    fn push(&mut self, ev: Ev) {
        self.lines += ev.lines();
        if !self.count_only {
            self.pending.push(ev);
        }
    }

    /// Events not written yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// A stint of `task` began on `cpu` at `start`, after its fork or a wakeup at `woke`.
    pub fn begin(&mut self, cpu: u32, task: u32, start: u64, why: StartWhy, woke: u64) {
        match why {
            StartWhy::Fork => {
                let fork = self.start_ns[task as usize].min(start);
                self.push(Ev { t: fork, cpu, stint: start, kind: Kind::Wake { task, new: true } });
            }
            StartWhy::Wakeup => self.push(Ev { t: woke, cpu, stint: start, kind: Kind::Wake { task, new: false } }),
            StartWhy::Resume => {}
        }
        if self.last_end[cpu as usize] != start {
            self.push(Ev { t: start, cpu, stint: start, kind: Kind::Switch { prev: NIL, prev_state: "R", next: task } });
        }
    }

    /// The stint of `task` that began at `start` on `cpu` ended at `end`, handing the CPU to
    /// `next` (NIL: idle).
    pub fn end(&mut self, cpu: u32, task: u32, start: u64, end: u64, why: StopWhy, next: u32) {
        let prev_state = if why == StopWhy::Slept { "S" } else { "R+" };
        self.push(Ev { t: end, cpu, stint: start, kind: Kind::Switch { prev: task, prev_state, next } });
        self.last_end[cpu as usize] = end;
    }

    fn who(&self, t: u32, cpu: u32) -> Who<'_> {
        if t == NIL {
            Who { comm: &self.idle[cpu as usize], pid: 0, prio: 120 }
        } else {
            Who { comm: &self.comms[t as usize], pid: PID_BASE + i64::from(t), prio: self.prio[t as usize] }
        }
    }

    fn running(&self, t: u32) -> (&str, i64) {
        if t == NIL {
            ("<idle>", 0)
        } else {
            (&self.comms[t as usize], PID_BASE + i64::from(t))
        }
    }

    /// Give `sink`, in order, every pending event before time `below`.
    pub fn flush(&mut self, below: u64, sink: &mut dyn Sink) -> io::Result<()> {
        if self.count_only {
            return Ok(());
        }
        // Keys are unique: one fork or wakeup per stint, and a switch in is left out where a
        // switch out at the same instant hands the CPU over.
        self.pending.sort_unstable_by_key(Ev::key);
        let n = self.pending.partition_point(|e| e.t < below);
        for i in 0..n {
            let Ev { t: ts, cpu, kind, .. } = self.pending[i];
            match kind {
                Kind::Wake { task, new } => {
                    let who = self.who(task, cpu);
                    let running = self.running(self.curr[cpu as usize]);
                    let kinds: &[WakeKind] = if new { &[WakeKind::WakeupNew] } else { &[WakeKind::Waking, WakeKind::Wakeup] };
                    for &k in kinds {
                        sink.wake(running, cpu, ts, k, who, cpu)?;
                    }
                }
                Kind::Switch { prev, prev_state, next } => {
                    sink.switch(self.running(prev), cpu, ts, self.who(prev, cpu), prev_state, self.who(next, cpu))?;
                    self.curr[cpu as usize] = next;
                }
            }
        }
        sink.batch_done()?;
        self.pending.drain(..n);
        Ok(())
    }
}
