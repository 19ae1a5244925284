//! The terminal side of a run's progress: indicatif bars on stderr (only on a terminal; a
//! long job's progress as a line a minute elsewhere), one line per finished stage, and notes.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
            // A log (`nohup`, a redirect): a line a minute, so that a job of hours is followed
            // there too.
            return Arc::new(LogBar::new(len, label, LOG_EVERY_MS, Box::new(warn)));
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

/// How often a [`LogBar`] writes a line.
const LOG_EVERY_MS: u64 = 60_000;

/// A progress bar where stderr is no terminal: a line at most once every `every_ms` (at the
/// first progress after it), with the latest message, the share done, the time so far and the
/// time left at the rate so far. Nothing for work done within the first interval.
struct LogBar {
    len: AtomicU64,
    pos: AtomicU64,
    message: Mutex<String>,
    start: Instant,
    every_ms: u64,
    /// Milliseconds after `start` when the next line is due.
    due: AtomicU64,
    out: Box<dyn Fn(&str) + Send + Sync>,
}

impl LogBar {
    fn new(len: u64, label: &str, every_ms: u64, out: Box<dyn Fn(&str) + Send + Sync>) -> Self {
        LogBar {
            len: AtomicU64::new(len),
            pos: AtomicU64::new(0),
            message: Mutex::new(label.to_owned()),
            start: Instant::now(),
            every_ms,
            due: AtomicU64::new(every_ms),
            out,
        }
    }

    /// Writes a line if one is due (one thread writes it; the others go on).
    fn tick(&self) {
        let now = self.start.elapsed().as_millis() as u64;
        let due = self.due.load(Relaxed);
        if now < due
            || self
                .due
                .compare_exchange(due, now + self.every_ms, Relaxed, Relaxed)
                .is_err()
        {
            return;
        }
        let message = self
            .message
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        (self.out)(&progress_line(
            &message,
            self.pos.load(Relaxed),
            self.len.load(Relaxed),
            now as f64 / 1000.0,
        ));
    }
}

/// `  <message>: 12.5 % done, 37.5 min so far, about 4.4 h left` (the time left at the rate so
/// far; unknown before any progress).
fn progress_line(message: &str, pos: u64, len: u64, seconds: f64) -> String {
    use pipeline::census::duration;
    let share = pos as f64 / len.max(1) as f64;
    let left = if pos == 0 {
        "time left unknown".to_owned()
    } else {
        format!(
            "about {} left",
            duration(seconds * len.saturating_sub(pos) as f64 / pos as f64)
        )
    };
    format!(
        "  {message}: {:.1} % done, {} so far, {left}",
        100.0 * share,
        duration(seconds)
    )
}

impl Bar for LogBar {
    fn inc(&self, n: u64) {
        self.pos.fetch_add(n, Relaxed);
        self.tick();
    }

    fn set_length(&self, len: u64) {
        self.len.store(len, Relaxed);
    }

    fn set_position(&self, pos: u64) {
        self.pos.store(pos, Relaxed);
        self.tick();
    }

    fn set_message(&self, message: &str) {
        *self.message.lock().unwrap_or_else(|e| e.into_inner()) = message.to_owned();
    }

    fn finish(&self) {}
}

#[cfg(test)]
mod tests {
    use super::{LogBar, progress_line};
    use huarong_core::Bar;
    use std::sync::{Arc, Mutex};

    #[test]
    fn a_progress_line_gives_the_share_done_and_the_time_left_at_the_rate_so_far() {
        assert_eq!(
            progress_line("rush-hour-6x6-w2: 100/800 classes", 250, 1000, 600.0),
            "  rush-hour-6x6-w2: 100/800 classes: 25.0 % done, 10.0 min so far, about 30.0 min left"
        );
        assert_eq!(
            progress_line("census", 0, 1000, 60.0),
            "  census: 0.0 % done, 60 s so far, time left unknown"
        );
    }

    #[test]
    fn a_log_bar_writes_no_line_before_its_interval_and_one_when_due() {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = lines.clone();
        let out = Box::new(move |l: &str| sink.lock().unwrap().push(l.to_owned()));
        let quiet = LogBar::new(100, "census", 3_600_000, out);
        quiet.inc(50);
        assert!(
            lines.lock().unwrap().is_empty(),
            "nothing within the first hour"
        );
        let sink = lines.clone();
        let out = Box::new(move |l: &str| sink.lock().unwrap().push(l.to_owned()));
        let bar = LogBar::new(100, "census", 0, out);
        bar.set_message("census: 1/4 classes");
        bar.inc(25);
        let lines = lines.lock().unwrap();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("  census: 1/4 classes: 25.0 % done, "),
            "{}",
            lines[0]
        );
    }
}
