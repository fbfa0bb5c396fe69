//! Latency samples and their summaries (contract §1.5).

use crate::report::LatencyStats;

/// Nearest-rank percentile on sorted samples: the value at 1-based rank ceil(p·N), with p
/// given as the exact fraction `num/den` so no float rounding can move the rank.
pub fn nearest_rank(sorted: &[u64], num: u64, den: u64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[rank_index(sorted.len(), num, den)])
}

/// The 0-based index of the nearest-rank `num/den` percentile among `n > 0` sorted samples.
pub fn rank_index(n: usize, num: u64, den: u64) -> usize {
    ((num * n as u64).div_ceil(den).max(1) - 1) as usize
}

/// The reported percentiles, as exact fractions, in ascending order.
const PERCENTILES: [(u64, u64); 7] = [(50, 100), (75, 100), (90, 100), (95, 100), (99, 100), (995, 1000), (999, 1000)];

/// Summarise samples (reordered in place). The percentiles are nearest-rank, as
/// [`nearest_rank`] gives them on the sorted samples, found by selection in ascending rank:
/// each one among the samples right of the last, so all seven cost about two passes where a
/// sort of every task's samples cost 4 % of a one-CPU run's instructions.
pub fn summarize(samples: &mut [u64]) -> LatencyStats {
    if samples.is_empty() {
        return LatencyStats::default();
    }
    let n = samples.len() as u64;
    let sum: u128 = samples.iter().map(|&x| x as u128).sum();
    let (mut min, mut max) = (u64::MAX, 0);
    for &x in samples.iter() {
        min = min.min(x);
        max = max.max(x);
    }
    let mut p = [0u64; PERCENTILES.len()];
    // Samples left of `from` are at most the last percentile found, those from it on at least.
    let mut from = 0usize;
    for (k, &(num, den)) in PERCENTILES.iter().enumerate() {
        let i = rank_index(samples.len(), num, den);
        if i < from {
            // The same rank as the last one (few samples).
            p[k] = p[k - 1];
            continue;
        }
        p[k] = *samples[from..].select_nth_unstable(i - from).1;
        from = i + 1;
    }
    LatencyStats {
        count: n,
        min: Some(min),
        mean: Some((sum / n as u128) as u64),
        p50: Some(p[0]),
        p75: Some(p[1]),
        p90: Some(p[2]),
        p95: Some(p[3]),
        p99: Some(p[4]),
        p995: Some(p[5]),
        p999: Some(p[6]),
        max: Some(max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_small_cases() {
        let s = [10, 20, 30, 40];
        // ceil(0.5*4)=2 -> 20; ceil(0.75*4)=3 -> 30; ceil(0.9*4)=4 -> 40
        assert_eq!(nearest_rank(&s, 50, 100), Some(20));
        assert_eq!(nearest_rank(&s, 75, 100), Some(30));
        assert_eq!(nearest_rank(&s, 90, 100), Some(40));
        assert_eq!(nearest_rank(&[5], 999, 1000), Some(5));
        assert_eq!(nearest_rank(&[], 50, 100), None);
    }

    #[test]
    fn empty_summary_is_null() {
        let st = summarize(&mut []);
        assert_eq!(st.count, 0);
        assert_eq!(st.p50, None);
        assert_eq!(st.mean, None);
    }

    /// The selections give what nearest_rank gives on the sorted samples, for every size
    /// from one sample (all percentiles the same rank) to many, with ties.
    #[test]
    fn selections_match_nearest_rank_on_sorted_samples() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for n in (1..=300).chain([999, 1000, 1001, 4096]) {
            let mut v: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x % (n as u64 / 3 + 1)
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            let st = summarize(&mut v);
            let want: Vec<_> = PERCENTILES.iter().map(|&(a, b)| nearest_rank(&sorted, a, b)).collect();
            assert_eq!(vec![st.p50, st.p75, st.p90, st.p95, st.p99, st.p995, st.p999], want, "n = {n}");
            assert_eq!((st.min, st.max, st.count), (sorted.first().copied(), sorted.last().copied(), n as u64));
        }
    }

    #[test]
    fn mean_rounds_down() {
        let st = summarize(&mut [1, 2]);
        assert_eq!(st.mean, Some(1));
        assert_eq!(st.min, Some(1));
        assert_eq!(st.max, Some(2));
    }
}
