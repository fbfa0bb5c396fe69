//! The threads that `sweep --jobs` and `ablate --jobs` spread their runs over.

use fairground_sim::report::Report;
use fairground_sim::{run_text, Limits, ScenarioError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The value after `--jobs`: a whole number from 1 to 256.
pub fn parse_jobs(v: Option<&String>) -> Result<usize, String> {
    v.and_then(|j| j.parse::<usize>().ok()).filter(|j| (1..=256).contains(j)).ok_or_else(|| "--jobs takes a whole number from 1 to 256".to_string())
}

/// Threads when `--jobs` is not given: one per CPU.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Run the scenario texts on `jobs` threads; each result lands at its text's index, so the
/// output does not depend on which thread ran what. `progress(done, n)` follows each run.
pub fn run_parallel<T: AsRef<str> + Sync>(texts: &[T], jobs: usize, progress: impl Fn(usize, usize) + Sync) -> Vec<Result<Report, ScenarioError>> {
    let n = texts.len();
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let out: Mutex<Vec<Option<Result<Report, ScenarioError>>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, n.max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(t) = texts.get(i) else { break };
                let r = run_text(t.as_ref(), &Limits::NATIVE);
                if let Ok(mut o) = out.lock() {
                    o[i] = Some(r);
                }
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, n);
            });
        }
    });
    let out = out.into_inner().unwrap_or_default();
    out.into_iter().map(|r| r.unwrap_or_else(|| Err(ScenarioError::at("", "a run did not finish")))).collect()
}
