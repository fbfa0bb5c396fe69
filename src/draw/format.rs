//! How numbers and times read on screen (µs with one decimal, ms, percent, grouped integers,
//! times with their unit) and the time axis's ticks and visible window. Pure, so it is
//! unit-tested natively; the timeline and every panel use it.

/// Nanoseconds as microseconds with one decimal; "–" for no value.
pub fn fmt_us(ns: Option<u64>) -> String {
    match ns {
        None => "–".into(),
        Some(ns) => {
            let tenths = (ns + 50) / 100;
            format!("{}.{}", tenths / 10, tenths % 10)
        }
    }
}

/// Nanoseconds as milliseconds, without trailing zeros.
pub fn fmt_ms(ns: u64) -> String {
    let ms = ns / 1_000_000;
    let rest = ns % 1_000_000;
    if rest == 0 {
        format!("{ms} ms")
    } else {
        let frac = format!("{rest:06}");
        format!("{ms}.{} ms", frac.trim_end_matches('0'))
    }
}

/// A share (0..=1) as a percentage with one decimal.
pub fn fmt_pct(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}", share * 100.0)
    } else {
        "–".into()
    }
}

/// Integers with thin groupings for readability: 1234567 → "1 234 567".
pub fn fmt_int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// A time in ns, in the unit that reads best: "850 ns", "12.5 µs", "1.234 ms", "2.5 s".
pub fn fmt_time(ns: u64) -> String {
    let trim = |x: f64, d: usize| {
        let s = format!("{x:.d$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{} µs", trim(ns as f64 / 1e3, 3))
    } else if ns < 1_000_000_000 {
        format!("{} ms", trim(ns as f64 / 1e6, 3))
    } else {
        format!("{} s", trim(ns as f64 / 1e9, 4))
    }
}

/// The smallest 1-2-5 step (in ns, at least 1) not below `min_ns`: axis ticks.
pub fn nice_step(min_ns: f64) -> f64 {
    let mut step = 1.0;
    while step < min_ns && step < 1e13 {
        for m in [2.0, 2.5, 2.0] {
            step *= m;
            if step >= min_ns {
                return step;
            }
        }
    }
    step
}

/// The next tick boundary after `t` (the tick fires at every multiple of TICK_NSEC).
pub fn next_tick(t: u64, tick: u64) -> u64 {
    (t / tick.max(1) + 1) * tick.max(1)
}

/// The tick boundary before `t` (0 at the start).
pub fn prev_tick(t: u64, tick: u64) -> u64 {
    let tick = tick.max(1);
    if t == 0 {
        0
    } else if t % tick == 0 {
        t - tick
    } else {
        t / tick * tick
    }
}

/// Keep a visible window (first ns, span) within sensible bounds for a run of `duration`.
pub fn clamp_window(t0: f64, span: f64, duration: u64) -> (f64, f64) {
    let d = duration.max(1) as f64;
    let span = span.clamp(100.0, (d * 1.5).max(100.0));
    let t0 = t0.clamp(-span * 0.25, (d - span * 0.75).max(-span * 0.25));
    (t0, span)
}

/// The label of a tick on a histogram's count axis at `v` (on a log axis, v is log10 of the
/// count): counts are whole, so a tick between two gets none. Rounding such ticks (0.2, 0.4, …
/// on the axis of a histogram of one sample or none) wrote "0 0 0 1 1 1"; a log axis labels
/// only its powers of ten.
pub fn count_tick(v: f64, log_y: bool) -> String {
    if (v - v.round()).abs() >= 1e-6 || (log_y && v < 0.0) {
        String::new()
    } else if log_y {
        format!("{:.0}", 10f64.powf(v.round()))
    } else {
        format!("{v:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_ticks() {
        assert_eq!(fmt_time(850), "850 ns");
        assert_eq!(fmt_time(12_500), "12.5 µs");
        assert_eq!(fmt_time(1_234_000), "1.234 ms");
        assert_eq!(fmt_time(4_000_000), "4 ms");
        assert_eq!(fmt_time(2_500_000_000), "2.5 s");
        assert_eq!(nice_step(0.5), 1.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(11.0), 20.0);
        assert_eq!(nice_step(1_100_000.0), 2_000_000.0);
        assert_eq!(next_tick(0, 4_000_000), 4_000_000);
        assert_eq!(next_tick(4_000_000, 4_000_000), 8_000_000);
        assert_eq!(prev_tick(4_000_000, 4_000_000), 0);
        assert_eq!(prev_tick(5_000_000, 4_000_000), 4_000_000);
        assert_eq!(prev_tick(0, 4_000_000), 0);
        let (t0, span) = clamp_window(-1e12, 1e15, 100);
        assert_eq!(span, 150.0);
        assert_eq!(t0, -37.5);
    }

    #[test]
    fn formatting() {
        assert_eq!(fmt_us(None), "–");
        assert_eq!(fmt_us(Some(0)), "0.0");
        assert_eq!(fmt_us(Some(1_249)), "1.2");
        assert_eq!(fmt_us(Some(1_250)), "1.3");
        assert_eq!(fmt_us(Some(4_000_000)), "4000.0");
        assert_eq!(fmt_ms(100_000_000), "100 ms");
        assert_eq!(fmt_ms(1_500_000), "1.5 ms");
        assert_eq!(fmt_pct(0.753), "75.3");
        assert_eq!(fmt_pct(f64::NAN), "–");
        assert_eq!(fmt_int(1_234_567), "1\u{202f}234\u{202f}567");
        assert_eq!(fmt_int(12), "12");
    }

    /// The ticks plotters puts on an axis of 0 to 1.08 (a histogram of one sample or of none)
    /// are labelled 0 and 1 once each; whole ticks of larger axes keep their numbers; a log
    /// axis labels 1, 10, 100 and nothing between or below.
    #[test]
    fn count_ticks_are_whole_counts_only() {
        let small: Vec<String> = [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0].iter().map(|&v| count_tick(v, false)).collect();
        assert_eq!(small, ["0", "", "", "", "", "1"]);
        let big: Vec<String> = [0.0, 200.0, 400.0, 1000.0].iter().map(|&v| count_tick(v, false)).collect();
        assert_eq!(big, ["0", "200", "400", "1000"]);
        let log: Vec<String> = [-0.3, -0.25, 0.0, 0.5, 1.0, 2.0].iter().map(|&v| count_tick(v, true)).collect();
        assert_eq!(log, ["", "", "1", "", "10", "100"]);
    }
}
