//! Latency histograms: log2 buckets in µs, as `runqlat` and the scx tools print them, and
//! linear buckets of a chosen width.

/// Counts per bucket. Bucket `i` covers `[lo(i), hi(i))` ns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    pub kind: Buckets,
    pub counts: Vec<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buckets {
    /// Bucket 0 is [0, 1) µs; bucket k ≥ 1 is [2^(k-1), 2^k) µs.
    Log2Us,
    /// Buckets of `width_ns`, the last one open-ended at `width_ns × count`.
    Linear { width_ns: u64 },
}

impl Histogram {
    /// `runqlat`-style log2 buckets of µs.
    pub fn log2_us(samples: &[u64]) -> Histogram {
        let mut counts = Vec::new();
        for &s in samples {
            let us = s / 1000;
            let b = if us == 0 { 0 } else { 64 - us.leading_zeros() as usize };
            if counts.len() <= b {
                counts.resize(b + 1, 0);
            }
            counts[b] += 1;
        }
        Histogram { kind: Buckets::Log2Us, counts }
    }

    /// `n` buckets of `width_ns`; samples beyond go into the last one.
    pub fn linear(samples: &[u64], width_ns: u64, n: usize) -> Histogram {
        let (width_ns, n) = (width_ns.max(1), n.max(1));
        let mut counts = vec![0; n];
        for &s in samples {
            counts[((s / width_ns) as usize).min(n - 1)] += 1;
        }
        Histogram { kind: Buckets::Linear { width_ns }, counts }
    }

    /// Bounds of bucket `i` in ns; `None` for an open end.
    pub fn bounds(&self, i: usize) -> (u64, Option<u64>) {
        match self.kind {
            Buckets::Log2Us if i == 0 => (0, Some(1000)),
            Buckets::Log2Us => ((1u64 << (i - 1)) * 1000, Some((1u64 << i) * 1000)),
            Buckets::Linear { width_ns } => {
                let lo = width_ns * i as u64;
                (lo, (i + 1 < self.counts.len()).then_some(lo + width_ns))
            }
        }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The histogram as `runqlat` prints it: range, count and a bar of stars.
    pub fn to_text(&self) -> String {
        let max = self.counts.iter().copied().max().unwrap_or(0).max(1);
        let mut out = String::new();
        for (i, &c) in self.counts.iter().enumerate() {
            let (lo, hi) = self.bounds(i);
            let stars = (c * 40).div_ceil(max) as usize;
            let range = match (self.kind, hi) {
                (Buckets::Log2Us, Some(h)) => format!("{:>10} -> {:<10}", lo / 1000, h / 1000 - 1),
                (_, Some(h)) => format!("{:>10} -> {:<10}", lo, h),
                (_, None) => format!("{:>10} -> {:<10}", lo, "∞"),
            };
            out.push_str(&format!("{range} : {c:<8} |{:<40}|\n", "*".repeat(stars)));
        }
        out
    }
}
