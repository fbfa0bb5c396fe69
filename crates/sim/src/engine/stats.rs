//! Latency samples and their summaries (contract §1.5).

use crate::report::LatencyStats;

/// Nearest-rank percentile on sorted samples: the value at 1-based rank ceil(p·N), with p
/// given as the exact fraction `num/den` so no float rounding can move the rank.
pub fn nearest_rank(sorted: &[u64], num: u64, den: u64) -> Option<u64> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let rank = (num * n).div_ceil(den).max(1);
    Some(sorted[(rank - 1) as usize])
}

/// Summarise samples (sorted in place).
pub fn summarize(samples: &mut [u64]) -> LatencyStats {
    if samples.is_empty() {
        return LatencyStats::default();
    }
    samples.sort_unstable();
    let sum: u128 = samples.iter().map(|&x| x as u128).sum();
    let n = samples.len() as u64;
    let p = |num, den| nearest_rank(samples, num, den);
    LatencyStats {
        count: n,
        min: samples.first().copied(),
        mean: Some((sum / n as u128) as u64),
        p50: p(50, 100),
        p75: p(75, 100),
        p90: p(90, 100),
        p95: p(95, 100),
        p99: p(99, 100),
        p995: p(995, 1000),
        p999: p(999, 1000),
        max: samples.last().copied(),
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

    #[test]
    fn mean_rounds_down() {
        let st = summarize(&mut [1, 2]);
        assert_eq!(st.mean, Some(1));
        assert_eq!(st.min, Some(1));
        assert_eq!(st.max, Some(2));
    }
}
