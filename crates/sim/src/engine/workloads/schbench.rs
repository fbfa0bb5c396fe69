//! schbench, contract §1.4: each messenger, in a loop, wakes each of its workers in turn
//! (each wakeup costs `msg_us`, paid before the wakeup), then sleeps `sleep_us`. A woken
//! worker runs `cputime_us` and sleeps until its messenger wakes it again; a worker still
//! busy when its wakeup comes skips that round, counted in its `overruns`. Workers are forked
//! asleep; messengers start with their first wakeup.

use super::{Next, WlKind};
use crate::engine::events::Class;
use crate::engine::Sim;

#[derive(Clone, Debug)]
pub struct Schbench {
    pub messengers: u32,
    pub workers: u32,
    pub sleep: u64,
    pub cputime: u64,
    pub msg: u64,
    /// Per messenger: the worker (0..workers) its current wakeup is for.
    next_worker: Vec<u32>,
}

impl Schbench {
    pub fn new(messengers: u32, workers: u32, sleep: u64, cputime: u64, msg: u64) -> Schbench {
        Schbench { messengers, workers, sleep, cputime, msg, next_worker: vec![0; messengers as usize] }
    }
}

impl Sim {
    fn sb(&mut self, wl: u32) -> &mut Schbench {
        match &mut self.wl[wl as usize].kind {
            WlKind::Schbench(s) => s,
            WlKind::Hackbench(_) => unreachable!("a schbench role in a hackbench workload"),
        }
    }

    /// A messenger at fork: it starts with the wakeup of its first worker.
    pub(super) fn sb_messenger_first(&mut self, wl: u32) -> Next {
        Some(self.sb(wl).msg)
    }

    /// Messenger `m` (task `ti`) has paid for a wakeup: wake the worker (or count its
    /// overrun), then the next wakeup, or, after the last worker, sleep `sleep_us`.
    pub(super) fn sb_messenger_done(&mut self, wl: u32, m: u32, ti: u32) -> Next {
        let first = self.wl[wl as usize].first;
        let now = self.now;
        let s = self.sb(wl);
        let (msg, cputime, sleep, workers, messengers) = (s.msg, s.cputime, s.sleep, s.workers, s.messengers);
        let w = s.next_worker[m as usize];
        s.next_worker[m as usize] = (w + 1) % workers;
        let worker = first + messengers + m * workers + w;
        if !self.wake_workload_task(worker, cputime) {
            self.tasks[worker as usize].stats.overruns += 1;
        }
        if w + 1 < workers {
            return Some(msg);
        }
        if sleep == 0 {
            // No sleep: the next round starts at once (msg_us > 0 here, as validated).
            return Some(msg);
        }
        self.queue.push(now + sleep, Class::Timer, ti, 0);
        None
    }
}
