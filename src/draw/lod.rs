//! The page's copy of the run's slices, per CPU, and the timeline's level of detail: what one
//! pixel column of a CPU lane shows, however many slices fall in it.
//!
//! A column covers [a, b) of simulated time. It shows
//! - `busy`: the exact fraction of [a, b) the CPU ran a task, from a prefix sum of slice
//!   lengths (two galloping searches, whatever the number of slices inside);
//! - `task`: the task that ran longest in the column, among at most `SAMPLE` slices from its
//!   left edge (a column where more than one task ran is `mixed`, and drawn as such).
//!
//! So the cost of a frame is O(columns × log slices), not O(slices): 64 lanes of a million
//! slices pan as fast as two.

use crate::wire::proto::{WireSlice, NONE};

/// Slices examined per column to choose its task.
pub const SAMPLE: usize = 8;

/// One CPU's slices, in time order, as columns of plain arrays.
#[derive(Clone, Debug, Default)]
pub struct Lane {
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub task: Vec<u32>,
    pub why: Vec<u8>,
    pub other: Vec<u32>,
    /// Global number of each slice (its order of arrival), for truncation.
    pub seq: Vec<u64>,
    /// `cum[i]` = busy time of slices 0..i (one more entry than slices).
    pub cum: Vec<u64>,
}

impl Lane {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Store {
    pub lanes: Vec<Lane>,
    /// Slices received (the next one's global number).
    pub len: u64,
}

/// What one pixel column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Col {
    /// The task that ran longest in the column (NONE: idle throughout).
    pub task: u32,
    /// Busy fraction of the column, 0..=255.
    pub busy: u8,
    /// More than one task ran in the column.
    pub mixed: bool,
}

pub const IDLE: Col = Col { task: NONE, busy: 0, mixed: false };

impl Store {
    pub fn new(cpus: usize) -> Store {
        let lane = Lane { cum: vec![0], ..Lane::default() };
        Store { lanes: vec![lane; cpus], len: 0 }
    }

    /// Append a slice; each CPU's slices arrive in time order.
    pub fn push(&mut self, s: &WireSlice) {
        let seq = self.len;
        self.len += 1;
        let Some(l) = self.lanes.get_mut(s.cpu as usize) else { return };
        if l.end.last().is_some_and(|&e| s.start_ns < e) || s.end_ns <= s.start_ns {
            return; // not in order: ignore rather than break the searches
        }
        l.start.push(s.start_ns);
        l.end.push(s.end_ns);
        l.task.push(s.task);
        l.why.push(s.why);
        l.other.push(s.other);
        l.seq.push(seq);
        let c = l.cum.last().copied().unwrap_or(0) + (s.end_ns - s.start_ns);
        l.cum.push(c);
    }

    /// Keep the first `n` slices received.
    pub fn truncate(&mut self, n: u64) {
        if n >= self.len {
            return;
        }
        self.len = n;
        for l in &mut self.lanes {
            let keep = l.seq.partition_point(|&q| q < n);
            l.start.truncate(keep);
            l.end.truncate(keep);
            l.task.truncate(keep);
            l.why.truncate(keep);
            l.other.truncate(keep);
            l.seq.truncate(keep);
            l.cum.truncate(keep + 1);
        }
    }

    pub fn total(&self) -> usize {
        self.lanes.iter().map(|l| l.len()).sum()
    }

    /// The slice of `lane` running at time `t`, if any.
    pub fn slice_at(&self, lane: usize, t: u64) -> Option<usize> {
        let l = self.lanes.get(lane)?;
        let i = l.end.partition_point(|&e| e <= t);
        (i < l.len() && l.start[i] <= t).then_some(i)
    }

    /// Fill `out` with `width` columns of `lane`, column x covering
    /// [t0 + x·ns_per_px, t0 + (x+1)·ns_per_px). `open` is a stint still running, (task,
    /// start, end), drawn as if it were a slice.
    pub fn columns(&self, lane: usize, t0: f64, ns_per_px: f64, width: usize, open: Option<(u32, u64, u64)>, out: &mut Vec<Col>) {
        out.clear();
        out.resize(width, IDLE);
        let Some(l) = self.lanes.get(lane) else { return };
        let n = l.len();
        let edge = |x: usize| -> u64 {
            let t = t0 + x as f64 * ns_per_px;
            if t <= 0.0 {
                0
            } else {
                t as u64
            }
        };
        let mut i = 0usize;
        for (x, col) in out.iter_mut().enumerate() {
            let a = edge(x);
            let b = edge(x + 1).max(a + 1);
            if i < n && l.end[i] <= a {
                i += gallop(&l.end[i..], |&e| e <= a);
            }
            let mut best = NONE;
            let mut best_ov = 0u64;
            let mut busy = 0u64;
            let mut mixed = false;
            if i < n && l.start[i] < b {
                let k = i + gallop(&l.start[i..], |&s| s < b);
                busy = l.cum[k] - l.cum[i];
                busy -= a.saturating_sub(l.start[i]);
                busy -= l.end[k - 1].saturating_sub(b);
                for j in i..k.min(i + SAMPLE) {
                    let ov = l.end[j].min(b) - l.start[j].max(a);
                    if best != NONE && l.task[j] != best {
                        mixed = true;
                    }
                    if ov > best_ov {
                        best_ov = ov;
                        best = l.task[j];
                    }
                }
                if k - i > SAMPLE {
                    mixed = true;
                }
                // The last slice may go on into the next column.
                i = k - 1;
            }
            if let Some((task, s, e)) = open {
                if s < b && e > a {
                    let ov = e.min(b) - s.max(a);
                    busy += ov;
                    if best != NONE && best != task {
                        mixed = true;
                    }
                    if ov > best_ov {
                        best = task;
                    }
                }
            }
            let span = b - a;
            let frac = ((busy.min(span) as u128 * 255 + span as u128 / 2) / span as u128) as u8;
            *col = Col { task: best, busy: if best != NONE { frac.max(1) } else { 0 }, mixed };
        }
    }
}

/// `partition_point` for an answer expected near the front: probe 1, 2, 4, … ahead, then
/// binary-search the last gap. Columns advance a few slices at a time, so this touches a few
/// cache lines where a binary search over the whole lane would touch many.
fn gallop<T>(v: &[T], pred: impl Fn(&T) -> bool) -> usize {
    let mut hi = 1;
    while hi < v.len() && pred(&v[hi - 1]) {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(v.len());
    lo + v[lo..hi].partition_point(pred)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_is_partition_point() {
        let v: Vec<u32> = (0..1000).map(|x| x * 3).collect();
        for t in [0, 1, 2, 3, 4, 100, 2996, 2997, 2998, 5000] {
            assert_eq!(gallop(&v, |&x| x < t), v.partition_point(|&x| x < t), "{t}");
        }
        assert_eq!(gallop(&[] as &[u32], |&x| x < 5), 0);
    }

    fn s(cpu: u32, task: u32, a: u64, b: u64) -> WireSlice {
        WireSlice { cpu, task, start_ns: a, end_ns: b, why: 0, other: NONE }
    }

    fn cols(st: &Store, lane: usize, t0: f64, npp: f64, w: usize) -> Vec<Col> {
        let mut out = Vec::new();
        st.columns(lane, t0, npp, w, None, &mut out);
        out
    }

    #[test]
    fn one_slice_per_column_when_zoomed_in() {
        let mut st = Store::new(1);
        st.push(&s(0, 3, 0, 10));
        st.push(&s(0, 4, 10, 20));
        // 10 ns per pixel: column 0 is task 3, column 1 task 4, column 2 idle.
        let c = cols(&st, 0, 0.0, 10.0, 3);
        assert_eq!(c[0], Col { task: 3, busy: 255, mixed: false });
        assert_eq!(c[1], Col { task: 4, busy: 255, mixed: false });
        assert_eq!(c[2], IDLE);
    }

    #[test]
    fn busy_fraction_is_exact_and_the_longest_task_wins() {
        let mut st = Store::new(1);
        // In [0, 100): task 1 for 10 ns, idle 20, task 2 for 40, idle 30.
        st.push(&s(0, 1, 0, 10));
        st.push(&s(0, 2, 30, 70));
        let c = cols(&st, 0, 0.0, 100.0, 1);
        assert_eq!(c[0].task, 2);
        assert!(c[0].mixed);
        // 50 of 100 ns busy: 127.5 rounds to 128.
        assert_eq!(c[0].busy, 128);
    }

    #[test]
    fn slices_crossing_column_edges_are_clipped() {
        let mut st = Store::new(1);
        st.push(&s(0, 7, 5, 25));
        // Columns [0,10) [10,20) [20,30): 5, 10 and 5 ns busy.
        let c = cols(&st, 0, 0.0, 10.0, 3);
        assert_eq!(c.iter().map(|c| c.busy).collect::<Vec<_>>(), [128, 255, 128]);
        assert!(c.iter().all(|c| c.task == 7 && !c.mixed));
    }

    #[test]
    fn a_million_slices_in_few_columns_keeps_exact_busy_time() {
        let mut st = Store::new(2);
        // Lane 0: 1 ns on, 1 ns off, a million times; lane 1 untouched.
        for k in 0..1_000_000u64 {
            st.push(&s(0, (k % 5) as u32, 2 * k, 2 * k + 1));
        }
        let c = cols(&st, 0, 0.0, 500_000.0, 4);
        for col in &c {
            assert_eq!(col.busy, 128, "half busy");
            assert!(col.mixed);
            assert!(col.task < 5);
        }
        assert!(cols(&st, 1, 0.0, 500_000.0, 4).iter().all(|c| *c == IDLE));
        // Panned so that the view starts mid-run and ends past it.
        let c = cols(&st, 0, 1_500_000.0, 250_000.0, 4);
        assert_eq!(c.iter().map(|c| c.busy).collect::<Vec<_>>(), [128, 128, 0, 0]);
    }

    #[test]
    fn the_running_stint_is_drawn_up_to_now() {
        let mut st = Store::new(1);
        st.push(&s(0, 1, 0, 10));
        let mut out = Vec::new();
        st.columns(0, 0.0, 10.0, 4, Some((2, 10, 25)), &mut out);
        assert_eq!(out[1], Col { task: 2, busy: 255, mixed: false });
        assert_eq!(out[2], Col { task: 2, busy: 128, mixed: false });
        assert_eq!(out[3], IDLE);
    }

    #[test]
    fn zoomed_in_below_a_nanosecond_per_pixel() {
        let mut st = Store::new(1);
        st.push(&s(0, 9, 100, 101));
        let c = cols(&st, 0, 99.5, 0.25, 8);
        // Columns start at 99, 99, 100, 100, 100, 100, 101, 101 (ns, floored): a column
        // shorter than 1 ns covers 1 ns.
        assert_eq!(c.iter().map(|c| c.task == 9).collect::<Vec<_>>(), [false, false, true, true, true, true, false, false]);
    }

    #[test]
    fn truncation_and_lookup() {
        let mut st = Store::new(2);
        st.push(&s(0, 1, 0, 10));
        st.push(&s(1, 2, 0, 5));
        st.push(&s(0, 3, 10, 20));
        assert_eq!(st.slice_at(0, 15), Some(1));
        assert_eq!(st.slice_at(0, 20), None);
        assert_eq!(st.slice_at(1, 4), Some(0));
        st.truncate(2);
        assert_eq!(st.total(), 2);
        assert_eq!(st.slice_at(0, 15), None);
        assert_eq!(st.lanes[0].cum, vec![0, 10]);
        // Out-of-order or empty slices are ignored rather than corrupting the lane.
        st.push(&s(0, 4, 5, 8));
        st.push(&s(0, 4, 30, 30));
        assert_eq!(st.lanes[0].len(), 1);
    }
}
