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
    fn ev(&self) -> Ev {
        let class = match self.order >> 61 {
            0 => Class::Completion,
            1 => Class::Timeline,
            2 => Class::Fork,
            3 => Class::Timer,
            4 => Class::Wake,
            5 => Class::IdleExit,
            _ => Class::Tick,
        };
        Ev { time: self.time, class, id: (self.order >> 32) as u32 & (ID_LIMIT - 1), gen: self.order as u32 }
    }

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

/// What fills the slots past the last event: later than any event (an event's class is at
/// most 6, so its order is below `u64::MAX`), so it is never the smallest child that moves up.
const PAD: Slot = Slot { time: u64::MAX, order: u64::MAX };

/// A min-heap of events (4-ary, implicit in a Vec; no allocation once grown).
///
/// The events are `heap[..len]`, and every slot after them is `PAD`, at least `D - 1` of
/// them: every node that has a child has all `D` of them readable, so a pop picks the
/// smallest of four without asking how many there are. The Vec never shrinks, so a push or a
/// pop of the grown queue does not touch its length.
#[derive(Clone, Debug)]
pub struct Queue {
    heap: Vec<Slot>,
    len: usize,
}

impl Default for Queue {
    fn default() -> Queue {
        Queue::with_capacity(0)
    }
}

/// The smaller of two slots and its index, chosen without a branch: which child is the
/// smallest is as good as random, and a mispredicted branch per comparison was most of
/// what a pop cost.
#[inline(always)]
fn min_of(a: (usize, Slot), b: (usize, Slot)) -> (usize, Slot) {
    let lt = b.1.before(&a.1);
    (if lt { b.0 } else { a.0 }, if lt { b.1 } else { a.1 })
}

impl Queue {
    pub fn with_capacity(n: usize) -> Queue {
        let mut heap = Vec::with_capacity(n + D - 1);
        heap.resize(D - 1, PAD);
        Queue { heap, len: 0 }
    }

    #[inline]
    pub fn push(&mut self, time: u64, class: Class, id: u32, gen: u32) {
        debug_assert!(id < ID_LIMIT, "event id {id} out of range");
        let s = Slot { time, order: (class as u64) << 61 | u64::from(id & (ID_LIMIT - 1)) << 32 | u64::from(gen) };
        let h = &mut self.heap;
        // The slot at `len` is padding: it becomes the new event's, and one more must pad the end.
        if h.len() < self.len + D {
            h.push(PAD);
        }
        let mut i = self.len;
        self.len += 1;
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
        if self.len == 0 {
            None
        } else {
            Some(self.heap[0].time)
        }
    }

    // Inlined into every caller: once it had two, the compiler made it a call, which cost 2 %
    // of a run's instructions (the call, and bounds checks step_instant had already made).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Ev> {
        if self.len == 0 {
            return None;
        }
        let n = self.len - 1;
        self.len = n;
        let h = &mut self.heap;
        let top = h[0];
        let last = h[n];
        h[n] = PAD;
        if n > 0 {
            // Sift the last element down from the root.
            let mut i = 0;
            loop {
                let c = i * D + 1;
                if c >= n {
                    break;
                }
                // c + D - 1 < n + D - 1 = h.len(): all D children are there (some may be PAD);
                // the tournament below is written for D = 4.
                let q = &h[c..c + D];
                let m = min_of(min_of((c, q[0]), (c + 1, q[1])), min_of((c + 2, q[2]), (c + 3, q[3])));
                if !m.1.before(&last) {
                    break;
                }
                h[i] = m.1;
                i = m.0;
            }
            h[i] = last;
        }
        Some(top.ev())
    }

    /// The CPU and switch generation of the next event if it is a burst's completion. Slot 0
    /// is always there (`PAD`, of no class, when the queue is empty), so this is one load and
    /// one comparison when the next event is something else.
    #[inline]
    pub fn front_completion(&self) -> Option<(u32, u32)> {
        let o = self.heap[0].order;
        if o >> 61 == Class::Completion as u64 {
            Some(((o >> 32) as u32 & (ID_LIMIT - 1), o as u32))
        } else {
            None
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
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

    /// Pushes and pops interleaved, the queue growing and shrinking through every depth,
    /// come out as a sorted list of the pending events would give them.
    #[test]
    fn interleaved_pushes_and_pops_match_a_sorted_list() {
        let mut q = Queue::with_capacity(2);
        let mut model: Vec<(u64, Class, u32, u32)> = Vec::new();
        let mut x = 99u64;
        let classes = [Class::Completion, Class::Timeline, Class::Fork, Class::Timer, Class::Wake, Class::IdleExit, Class::Tick];
        let mut now = 0u64;
        for round in 0..20_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Grow for a while, then drain, so that every size from 0 to a few hundred is seen.
            let grow = (round / 700) % 2 == 0;
            if grow || (x >> 60) < 3 {
                let t = now + (x >> 33) % 40;
                let e = (t, classes[(x >> 20) as usize % 7], (x >> 8) as u32 % 64, (x >> 40) as u32 % 3);
                q.push(e.0, e.1, e.2, e.3);
                model.push(e);
            } else {
                model.sort();
                let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                let got = q.pop().map(|e| (e.time, e.class, e.id, e.gen));
                assert_eq!(got, want, "round {round}");
                if let Some(w) = want {
                    now = w.0;
                }
            }
            assert_eq!(q.len(), model.len());
            assert_eq!(q.peek_time(), model.iter().map(|e| e.0).min());
            let front = model.iter().min().filter(|e| e.1 == Class::Completion).map(|e| (e.2, e.3));
            assert_eq!(q.front_completion(), front);
        }
    }
}
