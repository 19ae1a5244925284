//! Progress bars for long stages: updated per chunk or BFS level, never per item, and hidden when
//! stderr is not a terminal or the user asked for quiet output.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How a run reports progress.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reporter {
    /// Suppress progress bars even on a terminal.
    pub quiet: bool,
}

impl Reporter {
    /// A reporter that never draws.
    pub fn quiet() -> Self {
        Reporter { quiet: true }
    }

    fn visible(&self) -> bool {
        !self.quiet && std::io::stderr().is_terminal()
    }

    /// A bar of `len` units labelled `msg` (hidden unless visible).
    pub fn bar(&self, len: u64, msg: impl Into<String>) -> Progress {
        let bar = if self.visible() {
            let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg:>28} [{bar:40.cyan/blue}] {pos}/{len} ({elapsed_precise})",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            b
        } else {
            ProgressBar::hidden()
        };
        bar.set_message(msg.into());
        Progress(bar)
    }
}

/// One progress bar; cheap to clone and share across threads.
#[derive(Debug, Clone)]
pub struct Progress(ProgressBar);

impl Progress {
    pub fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    pub fn set_length(&self, len: u64) {
        self.0.set_length(len);
    }

    pub fn set_position(&self, pos: u64) {
        self.0.set_position(pos);
    }

    pub fn set_message(&self, msg: impl Into<String>) {
        self.0.set_message(msg.into());
    }

    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
