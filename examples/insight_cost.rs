//! What the "inside the scheduler" panels cost the worker (issue 8), natively: events/s of a
//! seek through a shipped run with every panel closed and with the decision log, trees (CPU 0)
//! and key chart open, and the time to build one answer's panel data.
//!   cargo run --release --example insight_cost [scenario-stem]
use fairground_app::worker::host::{Budget, Host};
use fairground_app::wire::insight::{Ask, LogFilter, KIND_ALL};
use std::time::Instant;

fn main() {
    let stem = std::env::args().nth(1).unwrap_or_else(|| "hackbench-8cpu".into());
    let path = format!("{}/static/scenarios/{stem}.json", env!("CARGO_MANIFEST_DIR"));
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => return eprintln!("{path}: {e}"),
    };
    let clock = || 0.0;
    let budget = Budget { clock_ms: &clock, max_ms: f64::INFINITY };
    let all = Ask { trees: Some(0), log: Some(LogFilter { cpu: None, task: None, kinds: KIND_ALL, clamp_only: false }), why: Some((0, 0)), chart: Some(0) };
    for (label, ask) in [("panels closed", Ask::default()), ("log + trees + why + chart", all)] {
        let (mut h, _) = match Host::load(&text) {
            Ok(x) => x,
            Err(e) => return eprintln!("{stem}: {e}"),
        };
        h.set_insight(ask, &budget);
        let t = Instant::now();
        let (events, _) = h.seek(u64::MAX, &budget);
        let secs = t.elapsed().as_secs_f64();
        // Answers at 20 points of the run (a rewind each time), timing only the answer itself.
        let d = h.duration_ns();
        let mut worst = 0f64;
        let mut total = 0f64;
        for i in 1..=20u64 {
            h.seek(d / 20 * i - 1, &budget);
            let a = Instant::now();
            let p = h.progress((0, 0.0));
            let ms = a.elapsed().as_secs_f64() * 1e3;
            std::hint::black_box(p);
            worst = worst.max(ms);
            total += ms;
        }
        println!(
            "{stem}, {label}: {events} events in {:.0} ms = {:.2} M events/s; answer {:.2} ms mean, {:.2} ms worst",
            secs * 1e3,
            events as f64 / secs / 1e6,
            total / 20.0,
            worst
        );
    }
}
