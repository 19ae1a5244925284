//! The terminal side of a run's progress: indicatif bars on stderr (only on a terminal), one
//! line per finished stage, and notes.

use std::io::IsTerminal;
use std::sync::Arc;

use huarong_core::{Bar, Outcome, Report};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Writes one line to stderr. A closed or failing stderr (`2>&1 | head -1`) loses the line and
/// nothing else: the run goes on and finishes its outputs (`eprintln!` would panic).
pub fn warn(line: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// Prints to stderr; bars only when stderr is a terminal.
#[derive(Debug)]
pub struct Terminal {
    bars: bool,
}

impl Terminal {
    pub fn new() -> Self {
        Terminal {
            bars: std::io::stderr().is_terminal(),
        }
    }
}

struct IndicatifBar(ProgressBar);

impl Bar for IndicatifBar {
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    fn set_length(&self, len: u64) {
        self.0.set_length(len);
    }

    fn set_position(&self, pos: u64) {
        self.0.set_position(pos);
    }

    fn set_message(&self, message: &str) {
        self.0.set_message(message.to_owned());
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl Report for Terminal {
    fn bar(&self, len: u64, label: &str) -> Arc<dyn Bar> {
        let bar = if self.bars && len == 0 {
            // Work of unknown size (exploring a space): the states found so far.
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg:>28} {spinner} {human_pos} states so far ({elapsed_precise})",
                )
                .expect("valid template"),
            );
            b.enable_steady_tick(std::time::Duration::from_millis(200));
            b
        } else if self.bars {
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
        bar.set_message(label.to_owned());
        Arc::new(IndicatifBar(bar))
    }

    fn bar_eta(&self, len: u64, label: &str) -> Arc<dyn Bar> {
        let bar = if self.bars {
            let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg:>28} [{bar:30.cyan/blue}] {percent:>3}% ({elapsed_precise}, \
                     {eta_precise} left)",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            b.enable_steady_tick(std::time::Duration::from_millis(500));
            b
        } else {
            ProgressBar::hidden()
        };
        bar.set_message(label.to_owned());
        Arc::new(IndicatifBar(bar))
    }

    fn stage(&self, space: &str, stage: &str, seconds: f64, outcome: &Outcome) {
        warn(&format!(
            "  {space:<22} {stage:<15} {seconds:>8.3} s  {outcome}"
        ));
    }

    fn note(&self, message: &str) {
        warn(&format!("  {message}"));
    }
}
