//! The one random generator of a run (contract §1.6): SplitMix64.
//!
//! Each task has its own stream, seeded from the scenario's `seed` and the task's index, so
//! that adding a task or changing one task's behaviour does not reshuffle every other task's
//! draws. Distributions use only IEEE basic arithmetic and `libm` (software `log`, `sqrt`,
//! `cos`), so native and WebAssembly runs are bit-identical.

use crate::scenario::Dist;

#[derive(Clone, Debug)]
pub struct Rng(u64);

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03));
        // Decorrelate nearby seeds before the first draw.
        r.next_u64();
        r
    }

    /// SplitMix64 (Steele, Lea, Flood 2014).
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A value of `d` in µs, as whole ns (rounded to nearest, never negative).
    pub fn draw_ns(&mut self, d: &Dist) -> u64 {
        let us = match *d {
            Dist::Fixed(v) => v,
            // Inverse CDF; 1 - u is in (0, 1] so the log is finite.
            Dist::Exp(mean) => return exp_ns(mean, 1.0 - self.next_f64()),
            Dist::Uniform(lo, hi) => lo + (hi - lo) * self.next_f64(),
            Dist::Normal(mean, sd) => {
                // Box–Muller, one value per draw.
                let u1 = 1.0 - self.next_f64();
                let u2 = self.next_f64();
                mean + sd * libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
            }
        };
        round_ns(us * 1000.0)
    }
}

/// `round_ns(-mean · ln(v) · 1000)` with `libm::log` as the logarithm, bit for bit, by a
/// quicker road where there is one.
///
/// `libm::log` is the software log that keeps native and WebAssembly runs identical, and it
/// was the largest single cost of a draw. Natively the platform's `ln` is several times
/// quicker but may differ from it in the last bits. Both are within 1 ulp of the true log, so
/// the two products differ by at most 2⁻⁵⁰ of their size (2 ulps of the log, and each product
/// rounded twice): when no half ns lies within `LN_TOLERANCE` of the quick product, both round
/// to the same whole ns. Only a product within about 10⁻¹² of its size from a half ns falls
/// back to `libm::log`. In WebAssembly `ln` is `libm::log` itself, so it is called directly.
#[inline]
fn exp_ns(mean: f64, v: f64) -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let x = -mean * v.ln() * 1000.0;
        // Positive (ln(1) = 0 takes the slow road), not NaN, and small enough that its
        // fraction is exact and the clamp of round_ns is far.
        if x > 0.0 && x < 1.0e15 {
            let t = x as u64;
            let frac = x - t as f64;
            if (frac - 0.5).abs() > x * LN_TOLERANCE {
                return t + u64::from(frac >= 0.5);
            }
        }
    }
    round_ns(-mean * libm::log(v) * 1000.0)
}

/// How far, relative to its size, the quick product may lie from `libm::log`'s: 2⁻⁵⁰ would
/// do; 2⁻⁴⁰ leaves room for a platform `ln` a thousand ulps out.
#[cfg(not(target_arch = "wasm32"))]
const LN_TOLERANCE: f64 = 1.0 / (1u64 << 40) as f64;

/// `x` rounded to the nearest whole ns, halves away from zero (`libm::round`), then clamped to
/// [0, 1e18], NaN giving 0. Truncation and the fraction it leaves decide the rounding, in
/// integer arithmetic: x − trunc(x) is exact, so this is `libm::round` bit for bit (tested
/// against it below) without its software trunc, which was a visible part of every draw.
#[inline]
fn round_ns(x: f64) -> u64 {
    // 1e18 is a double, and none lies in (1e18 - 0.5, 1e18): round(x) >= 1e18 iff x >= 1e18.
    if x >= 1.0e18 {
        return 1_000_000_000_000_000_000;
    }
    if !(x > 0.0) {
        return 0; // NaN, or not positive: round(x) <= 0
    }
    let t = x as u64; // trunc(x): exact below 1e18
    t + u64::from(x - t as f64 >= 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_deterministic_and_distinct() {
        let mut a = Rng::new(1, 0);
        let mut b = Rng::new(1, 0);
        let mut c = Rng::new(1, 1);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    /// The sample mean of 20 000 exponential draws with mean 1000 µs is within 3% of 1 ms
    /// (standard error 0.7%).
    #[test]
    fn exp_mean_is_close() {
        let mut r = Rng::new(7, 3);
        let n = 20_000u64;
        let sum: u64 = (0..n).map(|_| r.draw_ns(&Dist::Exp(1000.0))).sum();
        let mean = sum / n;
        assert!((970_000..=1_030_000).contains(&mean), "mean {mean}");
    }

    /// What `draw_ns` did before `round_ns`: `libm::round`, then the clamp.
    fn round_ns_libm(x: f64) -> u64 {
        let ns = libm::round(x);
        if ns.is_nan() || ns <= 0.0 {
            0
        } else if ns >= 1.0e18 {
            1_000_000_000_000_000_000
        } else {
            ns as u64
        }
    }

    /// `round_ns` agrees with `libm::round` and the clamp everywhere a draw can land: halves
    /// and their neighbours, integers, where the spacing of doubles reaches 0.5 and 1, the
    /// clamp's edges, the specials, and a million values drawn across every magnitude.
    #[test]
    fn round_ns_is_libm_round() {
        let mut xs = vec![0.0, -0.0, -1.0, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
        xs.extend([f64::MIN_POSITIVE, 1e-300, 1e18, 1e18 - 64.0, 1e18 - 128.0, 1e18 + 128.0, 9.9e17, 2f64.powi(52), 2f64.powi(53), 2f64.powi(51) + 0.5]);
        for k in 0..200_000u64 {
            for base in [k as f64, k as f64 + 0.5, (k << 30) as f64 + 0.5, (1u64 << 51) as f64 + k as f64 * 0.5] {
                xs.extend([base, f64::from_bits(base.to_bits() + 1), f64::from_bits(base.to_bits().saturating_sub(1))]);
            }
        }
        let mut r = Rng::new(11, 0);
        for _ in 0..1_000_000 {
            let e = (r.next_u64() % 70) as i32 - 10;
            xs.push(r.next_f64() * 2f64.powi(e));
            xs.push(-r.next_f64() * 2f64.powi(e));
        }
        for x in xs {
            assert_eq!(round_ns(x), round_ns_libm(x), "x = {x:e} ({:#x})", x.to_bits());
        }
    }

    /// The quick road of `exp_ns` gives what `libm::log` gives, over a million uniform draws at
    /// the means scenarios use and on products placed on a half ns, where the quick road has
    /// to fall back (without the fallback this test fails there).
    #[test]
    fn exp_ns_is_libm_log() {
        let reference = |mean: f64, v: f64| round_ns(-mean * libm::log(v) * 1000.0);
        let mut r = Rng::new(5, 0);
        for mean in [0.0, 0.001, 1.0, 150.0, 900.0, 1000.0, 12_345.678, 1e9, 1e15, f64::INFINITY] {
            for _ in 0..100_000 {
                let v = 1.0 - r.next_f64();
                assert_eq!(exp_ns(mean, v), reference(mean, v), "mean {mean}, v {v:e}");
            }
        }
        for v in [1.0, 1.0 - f64::EPSILON / 2.0, f64::MIN_POSITIVE, 2f64.powi(-53), 0.5, 0.999_999_999] {
            assert_eq!(exp_ns(150.0, v), reference(150.0, v), "v {v:e}");
        }
        // Means that put -mean·ln(v)·1000 on x.5 for a v: the two logs may round to different
        // sides of it, and the result is libm's side.
        let mut straddled = 0;
        for k in 1..2000u64 {
            let v = 1.0 / (1.0 + k as f64 / 997.0);
            let target = 1000.0 * k as f64 + 0.5;
            let mean = target / (-libm::log(v) * 1000.0);
            for m in [mean, f64::from_bits(mean.to_bits() + 1), f64::from_bits(mean.to_bits() - 1)] {
                // Within a fortieth of the tolerance of the edge: it falls back.
                let x = -m * v.ln() * 1000.0;
                if (x - x.floor() - 0.5).abs() < x * 2e-14 {
                    straddled += 1;
                }
                assert_eq!(exp_ns(m, v), reference(m, v), "mean {m:e}, v {v:e}");
            }
        }
        assert!(straddled > 1000, "only {straddled} draws landed on an edge");
    }

    #[test]
    fn normal_is_clamped_at_zero_and_uniform_in_range() {
        let mut r = Rng::new(3, 0);
        for _ in 0..1000 {
            let _ = r.draw_ns(&Dist::Normal(0.0, 100.0)); // never negative (u64)
            let u = r.draw_ns(&Dist::Uniform(10.0, 20.0));
            assert!((10_000..=20_000).contains(&u));
        }
        assert_eq!(r.draw_ns(&Dist::Fixed(2.5)), 2500);
    }
}
