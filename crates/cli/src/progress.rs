//! The progress bar of the commands that make many runs (`sweep`, `ablate`), on stderr and
//! only when stderr is a terminal (indicatif hides it otherwise): a pipe, a file or a CI log
//! gets nothing from it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Bar(ProgressBar);

impl Bar {
    pub fn new(what: &'static str) -> Bar {
        // Ten redraws a second: runs finish faster than a terminal is worth redrawing.
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(10));
        let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} runs  {elapsed}, about {eta} left").map_or_else(|_| ProgressStyle::default_bar(), |s| s.progress_chars("#>·"));
        bar.set_style(style);
        bar.set_prefix(what);
        Bar(bar)
    }

    /// `done` of `n` runs finished (callable from any thread).
    pub fn set(&self, done: usize, n: usize) {
        self.0.set_length(n as u64);
        self.0.set_position(done as u64);
    }

    /// Take the bar off the terminal (the line is cleared for what the command prints next).
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
