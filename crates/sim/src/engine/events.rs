//! The event queue: integer nanoseconds, and a fixed order for events at the same instant.
//!
//! At one instant events run in this order, each class in ascending id:
//! 1. burst completions (by CPU) — a burst ending at the same ns as a timer finishes first;
//! 2. `timeline` changes (file order);
//! 3. forks (task order);
//! 4. timer expiries and sleep ends (task order);
//! 5. the tick (all busy CPUs, in CPU order).
//!
//! Then every CPU asked to reschedule during that instant runs `schedule()`, in CPU order, as
//! it would on the return from the interrupt. A task that finishes its burst calls
//! `schedule()` at once (it sleeps voluntarily).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Completion = 0,
    Timeline = 1,
    Fork = 2,
    Timer = 3,
    Tick = 4,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ev {
    pub time: u64,
    pub class: Class,
    pub id: u32,
    /// Completions carry the CPU's switch generation, so a stale one is dropped.
    pub gen: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Queue {
    heap: BinaryHeap<Reverse<Ev>>,
}

impl Queue {
    pub fn with_capacity(n: usize) -> Queue {
        Queue { heap: BinaryHeap::with_capacity(n) }
    }
    #[inline]
    pub fn push(&mut self, time: u64, class: Class, id: u32, gen: u32) {
        self.heap.push(Reverse(Ev { time, class, id, gen }));
    }
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|r| r.0.time)
    }
    #[inline]
    pub fn pop(&mut self) -> Option<Ev> {
        self.heap.pop().map(|r| r.0)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}
