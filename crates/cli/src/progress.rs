//! The progress bar of the commands that make many runs (`sweep`, `ablate`), on stderr and
//! only when stderr is a terminal: a pipe, a file or a CI log gets nothing from it.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

const WIDTH: usize = 30;

/// Drawn at most every 100 ms: runs finish faster than a terminal is worth redrawing.
const REDRAW_MS: u128 = 100;

pub struct Bar {
    what: &'static str,
    start: Instant,
    /// When the bar was last drawn; `None` off a terminal (then nothing is ever drawn).
    last: Option<Mutex<Option<Instant>>>,
}

impl Bar {
    pub fn new(what: &'static str) -> Bar {
        Bar { what, start: Instant::now(), last: std::io::stderr().is_terminal().then(|| Mutex::new(None)) }
    }

    /// `done` of `n` runs finished (callable from any thread).
    pub fn set(&self, done: usize, n: usize) {
        let Some(last) = &self.last else { return };
        let Ok(mut last) = last.lock() else { return };
        let now = Instant::now();
        if done < n && last.is_some_and(|t| now.duration_since(t).as_millis() < REDRAW_MS) {
            return;
        }
        *last = Some(now);
        let line = line(self.what, done, n, self.start.elapsed().as_secs_f64());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }

    /// Take the bar off the terminal (the line is cleared for what the command prints next).
    pub fn finish(&self) {
        if self.last.is_some() {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// `sweep [##########··········] 12/40 runs  0.6 s, about 1.4 s left`: the time left is the
/// mean time per run so far times the runs left (parallel runs included in the mean).
fn line(what: &str, done: usize, n: usize, secs: f64) -> String {
    let n = n.max(1);
    let done = done.min(n);
    let filled = done * WIDTH / n;
    let bar: String = "#".repeat(filled) + &"·".repeat(WIDTH - filled);
    let left = if done == 0 { String::new() } else { format!(", about {:.1} s left", secs / done as f64 * (n - done) as f64) };
    format!("{what} [{bar}] {done}/{n} runs  {secs:.1} s{left}")
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn the_bar_fills_with_the_runs_and_the_time_left_follows_the_mean() {
        assert_eq!(line("sweep", 0, 40, 0.0), format!("sweep [{}] 0/40 runs  0.0 s", "·".repeat(30)));
        // 10 of 40 in 1 s: 0.1 s a run, 30 left.
        assert_eq!(line("sweep", 10, 40, 1.0), format!("sweep [{}{}] 10/40 runs  1.0 s, about 3.0 s left", "#".repeat(7), "·".repeat(23)));
        assert_eq!(line("ablate", 3, 3, 2.5), format!("ablate [{}] 3/3 runs  2.5 s, about 0.0 s left", "#".repeat(30)));
        // Never more than full, and no division by zero.
        assert_eq!(line("x", 5, 0, 1.0), format!("x [{}] 1/1 runs  1.0 s, about 0.0 s left", "#".repeat(30)));
    }
}
