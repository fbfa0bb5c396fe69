//! hackbench (`perf bench sched messaging`, pipe mode), contract §1.4.
//!
//! Each group has `fds` senders and `fds` receivers; receiver `r` owns one pipe. Sender `s`
//! of group `g` writes `loops` rounds, each round one message to every receiver of `g` in
//! order (`for loops: for j in fds: write(out_fds[j])`, as perf's sender does).
//!
//! Pipe rules of the model:
//! - A write first takes a slot in the pipe: it blocks (sleeps, FIFO among writers) while the
//!   pipe's unread messages plus the writes already under way reach `pipe_msgs`. Its message
//!   becomes readable when the write's cost has been paid.
//! - A read takes the oldest message; the message leaves the pipe, freeing its slot, when the
//!   read's cost has been paid. The slot then goes straight to the first blocked writer,
//!   which is woken (so a writer woken for space always has it).
//! - A receiver sleeps while its pipe is empty; a message arriving in an empty pipe wakes it.
//!   After `fds × loops` reads it is done, and sleeps for good; so does a sender after its
//!   last write.

use std::collections::VecDeque;

use super::{Next, WlKind};
use crate::engine::Sim;

#[derive(Clone, Debug)]
struct Pipe {
    unread: u32,
    /// Writes that hold a slot and have not paid their cost yet.
    writing: u32,
    /// Senders (hackbench-local index) blocked on a full pipe, first blocked first.
    waiters: VecDeque<u32>,
}

/// Where a sender is in its round over its group's receivers.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    to: u32,
    /// Writes left in the round, `to` included.
    left: u32,
}

#[derive(Clone, Debug)]
pub struct Hackbench {
    pub fds: u32,
    /// Senders (= receivers) in all: groups × fds.
    pub n: u32,
    pub loops: u64,
    pub msg: u64,
    pub pipe_msgs: u32,
    pipes: Vec<Pipe>,
    /// Per sender: messages written (whose cost has been paid).
    sent: Vec<u64>,
    /// Per sender: the receiver it writes to next, `s / fds * fds + sent % fds`, advanced with
    /// `sent` (two divisions per message were a visible part of a hackbench run's profile).
    next_to: Vec<Cursor>,
    /// Per receiver: messages read.
    read: Vec<u64>,
    receivers_done: u32,
    /// Messages written in all and read in all (for the exactly-once check).
    pub total_written: u64,
    pub total_read: u64,
}

impl Hackbench {
    pub fn new(groups: u32, fds: u32, loops: u64, msg: u64, pipe_msgs: u32) -> Hackbench {
        let n = groups * fds;
        let pipe = Pipe { unread: 0, writing: 0, waiters: VecDeque::with_capacity(fds as usize) };
        Hackbench {
            fds,
            n,
            loops,
            msg,
            pipe_msgs,
            pipes: vec![pipe; n as usize],
            sent: vec![0; n as usize],
            next_to: (0..n).map(|s| Cursor { to: s / fds * fds, left: fds }).collect(),
            read: vec![0; n as usize],
            receivers_done: 0,
            total_written: 0,
            total_read: 0,
        }
    }

    /// The receiver sender `s` writes to next: round-robin over its group's receivers.
    fn target(&self, s: u32) -> u32 {
        self.next_to[s as usize].to
    }

    /// Sender `s` has written a message: the next goes to the following receiver of its group.
    fn advance(&mut self, s: u32) {
        let s = s as usize;
        self.sent[s] += 1;
        let c = &mut self.next_to[s];
        c.to += 1;
        c.left -= 1;
        if c.left == 0 {
            // Past the group's last receiver: the next round starts at its first.
            c.to -= self.fds;
            c.left = self.fds;
        }
    }

    /// Messages each receiver reads (and each sender writes): fds × loops.
    pub fn per_task(&self) -> u64 {
        u64::from(self.fds) * self.loops
    }

    /// Slots of receiver `r`'s pipe in use: unread messages plus writes under way.
    pub fn pipe_fill(&self, r: u32) -> u32 {
        let p = &self.pipes[r as usize];
        p.unread + p.writing
    }

    /// Messages receiver `r` has read.
    pub fn read_by(&self, r: u32) -> u64 {
        self.read[r as usize]
    }
}

impl Sim {
    fn hb(&mut self, wl: u32) -> &mut Hackbench {
        match &mut self.wl[wl as usize].kind {
            WlKind::Hackbench(h) => h,
            WlKind::Schbench(_) => unreachable!("a hackbench role in a schbench workload"),
        }
    }

    /// Sender `s` starts its next write: the cost of the write, or None if it is done or
    /// blocks on a full pipe.
    pub(super) fn hb_sender_next(&mut self, wl: u32, s: u32) -> Next {
        let h = self.hb(wl);
        if h.sent[s as usize] == h.per_task() {
            return None;
        }
        let r = h.target(s) as usize;
        let pipe_msgs = h.pipe_msgs;
        let p = &mut h.pipes[r];
        if p.unread + p.writing >= pipe_msgs {
            p.waiters.push_back(s);
            return None;
        }
        p.writing += 1;
        Some(h.msg)
    }

    /// Sender `s` has paid for a write: its message becomes readable (waking the receiver if
    /// the pipe was empty), then the next write.
    pub(super) fn hb_sender_done(&mut self, wl: u32, s: u32) -> Next {
        let first = self.wl[wl as usize].first;
        let h = self.hb(wl);
        let r = h.target(s);
        let msg = h.msg;
        let n = h.n;
        let p = &mut h.pipes[r as usize];
        p.writing -= 1;
        p.unread += 1;
        let was_empty = p.unread == 1;
        h.advance(s);
        h.total_written += 1;
        if was_empty {
            // A reader is asleep exactly when its pipe is empty (it holds the message it
            // reads until the read is paid for).
            self.wake_workload_task(first + n + r, msg);
        }
        self.hb_sender_next(wl, s)
    }

    /// A receiver at fork: it reads at once if messages are already there, else sleeps.
    pub(super) fn hb_receiver_first(&mut self, wl: u32, r: u32) -> Next {
        let h = self.hb(wl);
        (h.pipes[r as usize].unread > 0).then_some(h.msg)
    }

    /// Receiver `r` has paid for a read: the message leaves the pipe, its slot goes to the
    /// first blocked writer (woken), then the next read, or sleep while the pipe is empty.
    pub(super) fn hb_receiver_done(&mut self, wl: u32, r: u32) -> Next {
        let (first, now) = (self.wl[wl as usize].first, self.now);
        let h = self.hb(wl);
        let msg = h.msg;
        let per_task = h.per_task();
        let p = &mut h.pipes[r as usize];
        p.unread -= 1;
        let woken = p.waiters.pop_front();
        if woken.is_some() {
            p.writing += 1;
        }
        let more = p.unread > 0;
        h.read[r as usize] += 1;
        h.total_read += 1;
        let done = h.read[r as usize] == per_task;
        if done {
            h.receivers_done += 1;
        }
        let all_done = h.receivers_done == h.n;
        if let Some(s) = woken {
            self.wake_workload_task(first + s, msg);
        }
        if all_done {
            self.wl[wl as usize].done_at = Some(now);
        }
        (more && !done).then_some(msg)
    }
}

#[cfg(test)]
mod tests {
    use super::Hackbench;

    /// The cursor is perf's sender loop: the k-th write of sender s goes to receiver
    /// `s / fds * fds + k % fds` of its own group, for every group and past many rounds.
    #[test]
    fn senders_write_round_robin_over_their_group() {
        for fds in [1u32, 2, 3, 20] {
            let mut h = Hackbench::new(3, fds, 10, 1000, 8);
            for k in 0..5 * u64::from(fds) + 3 {
                for s in 0..h.n {
                    assert_eq!(h.target(s), s / fds * fds + (k % u64::from(fds)) as u32, "fds {fds}, sender {s}, write {k}");
                    h.advance(s);
                }
            }
        }
    }
}
