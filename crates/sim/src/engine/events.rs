//! The event queue: integer nanoseconds, and a fixed order for events at the same instant.
//!
//! At one instant events run in this order, each class in ascending id:
//! 1. burst completions (by CPU) — a burst ending at the same ns as a timer finishes first;
//! 2. `timeline` changes (file order);
//! 3. forks (task order);
//! 4. timer expiries and sleep ends (task order);
//! 5. wakeups arriving at their runqueue after `machine.costs.wakeup_ns` (task order);
//! 6. idle CPUs done leaving idle after `machine.costs.idle_exit_ns` (CPU order);
//! 7. the tick (all busy CPUs, in CPU order).
//!
//! Then every CPU asked to reschedule during that instant runs `schedule()`, in CPU order, as
//! it would on the return from the interrupt. After a tick the periodic load balance runs,
//! and the CPUs it asks to reschedule do so in turn. A task that finishes its burst calls
//! `schedule()` at once (it sleeps voluntarily).

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Completion = 0,
    Timeline = 1,
    Fork = 2,
    Timer = 3,
    /// A wakeup reaches its target runqueue (`wakeup_ns` after `try_to_wake_up()`).
    Wake = 4,
    /// An idle CPU has left its idle state (`idle_exit_ns` after it was asked to run).
    IdleExit = 5,
    Tick = 6,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ev {
    pub time: u64,
    pub class: Class,
    pub id: u32,
    /// Completions carry the CPU's switch generation, so a stale one is dropped.
    pub gen: u32,
}

/// One queued event in 16 bytes, ordered by (time, class, id) and then by the completion's
/// generation: `order` is class << 61 | id << 32 | gen. Two entries that differ only in
/// generation (a stale and a live completion of one CPU at one instant) pop in generation
/// order, but at most one of them is live, so the outcome is the same as in any order. A slot
/// of two words keeps a 4-ary node's children in one cache line, which is most of what a
/// pop reads.
#[derive(Clone, Copy, Debug)]
struct Slot {
    time: u64,
    order: u64,
}

/// Ids (tasks, CPUs, timeline entries) fit below this, far above the scenario limits.
const ID_LIMIT: u32 = 1 << 29;

impl Slot {
    #[inline(always)]
    fn before(&self, o: &Slot) -> bool {
        // One 128-bit comparison (compare and subtract-with-borrow, no branch between the
        // two words): the sift loops are most of what a pop costs.
        (u128::from(self.time) << 64 | u128::from(self.order)) < (u128::from(o.time) << 64 | u128::from(o.order))
    }
}

/// Children per node of the heap: a 4-ary heap is half as deep as a binary one and reads
/// the children from adjacent memory, which is what a pop mostly costs with thousands of
/// pending timers.
const D: usize = 4;

/// A min-heap of events (4-ary, implicit in a Vec; no allocation once grown).
#[derive(Clone, Debug, Default)]
pub struct Queue {
    heap: Vec<Slot>,
}

impl Queue {
    pub fn with_capacity(n: usize) -> Queue {
        Queue { heap: Vec::with_capacity(n) }
    }

    #[inline]
    pub fn push(&mut self, time: u64, class: Class, id: u32, gen: u32) {
        debug_assert!(id < ID_LIMIT, "event id {id} out of range");
        let s = Slot { time, order: (class as u64) << 61 | u64::from(id & (ID_LIMIT - 1)) << 32 | u64::from(gen) };
        let h = &mut self.heap;
        let mut i = h.len();
        h.push(s);
        while i > 0 {
            let p = (i - 1) / D;
            if !s.before(&h[p]) {
                break;
            }
            h[i] = h[p];
            i = p;
        }
        h[i] = s;
    }

    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.first().map(|s| s.time)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Ev> {
        let h = &mut self.heap;
        let top = *h.first()?;
        let last = h.pop()?;
        let n = h.len();
        if n > 0 {
            // Sift the last element down from the root.
            let mut i = 0;
            loop {
                let c = i * D + 1;
                if c >= n {
                    break;
                }
                let mut m = c;
                for k in c + 1..(c + D).min(n) {
                    if h[k].before(&h[m]) {
                        m = k;
                    }
                }
                if !h[m].before(&last) {
                    break;
                }
                h[i] = h[m];
                i = m;
            }
            h[i] = last;
        }
        let class = match top.order >> 61 {
            0 => Class::Completion,
            1 => Class::Timeline,
            2 => Class::Fork,
            3 => Class::Timer,
            4 => Class::Wake,
            5 => Class::IdleExit,
            _ => Class::Tick,
        };
        Some(Ev { time: top.time, class, id: (top.order >> 32) as u32 & (ID_LIMIT - 1), gen: top.order as u32 })
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pops come in (time, class, id) order whatever the push order.
    #[test]
    fn pops_in_time_class_id_order() {
        let mut q = Queue::default();
        let mut want = Vec::new();
        let mut x = 12345u64;
        for i in 0..500u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = (x >> 33) % 50;
            let class = [Class::Completion, Class::Timeline, Class::Fork, Class::Timer, Class::Tick][(x >> 20) as usize % 5];
            q.push(t, class, i, u32::MAX - i);
            want.push((t, class, i, u32::MAX - i));
        }
        want.sort();
        let got: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.time, e.class, e.id, e.gen)).collect();
        assert_eq!(got, want);
        assert!(q.is_empty());
    }
}
