//! How library crates tell a person what is happening without printing anything themselves:
//! they talk to a [`Reporter`], a handle to whatever the binary implements ([`Report`]) —
//! progress bars drawn on a terminal, a line per finished stage, a note — or to nothing at all.
//!
//! Bars are updated per chunk or BFS level, never per item.

use std::sync::Arc;

/// What a front end does with a run's progress (the `huarong` binary draws indicatif bars and
/// writes stage lines to stderr).
pub trait Report: Send + Sync {
    /// A new progress bar of `len` units (0: length unknown yet) labelled `label`.
    fn bar(&self, len: u64, label: &str) -> Arc<dyn Bar>;
    /// A bar of a long job: `len` units of work, shown as a share with the time left.
    fn bar_eta(&self, len: u64, label: &str) -> Arc<dyn Bar> {
        self.bar(len, label)
    }
    /// A stage of `space` finished after `seconds` with `outcome`.
    fn stage(&self, space: &str, stage: &str, seconds: f64, outcome: &Outcome);
    /// Anything else worth a line (a removed leftover, a skipped space).
    fn note(&self, message: &str);
}

/// One progress bar of a [`Report`].
pub trait Bar: Send + Sync {
    fn inc(&self, n: u64);
    fn set_length(&self, len: u64);
    fn set_position(&self, pos: u64);
    fn set_message(&self, message: &str);
    fn finish(&self);
}

/// A cheap, cloneable handle to a [`Report`], or to nothing ([`Reporter::quiet`]).
#[derive(Clone, Default)]
pub struct Reporter {
    sink: Option<Arc<dyn Report>>,
    /// Whether bars are drawn (off while many spaces run at once: one overall bar instead).
    bars: bool,
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporter")
            .field("sink", &self.sink.is_some())
            .field("bars", &self.bars)
            .finish()
    }
}

impl Reporter {
    /// Reports to `sink`.
    pub fn new(sink: Arc<dyn Report>) -> Self {
        Reporter {
            sink: Some(sink),
            bars: true,
        }
    }

    /// Reports nothing.
    pub fn quiet() -> Self {
        Reporter::default()
    }

    /// The same sink without bars (stage lines and notes still go through).
    pub fn without_bars(&self) -> Self {
        Reporter {
            sink: self.sink.clone(),
            bars: false,
        }
    }

    /// A bar of `len` units labelled `msg` (a silent one without a sink or bars).
    pub fn bar(&self, len: u64, msg: impl Into<String>) -> Progress {
        match &self.sink {
            Some(sink) if self.bars => Progress(Some(sink.bar(len, &msg.into()))),
            _ => Progress(None),
        }
    }

    /// A bar of a long job ([`Report::bar_eta`]): its share done and the time left.
    pub fn bar_eta(&self, len: u64, msg: impl Into<String>) -> Progress {
        match &self.sink {
            Some(sink) if self.bars => Progress(Some(sink.bar_eta(len, &msg.into()))),
            _ => Progress(None),
        }
    }

    pub fn stage(&self, space: &str, stage: &str, seconds: f64, outcome: &Outcome) {
        if let Some(sink) = &self.sink {
            sink.stage(space, stage, seconds, outcome);
        }
    }

    pub fn note(&self, message: &str) {
        if let Some(sink) = &self.sink {
            sink.note(message);
        }
    }
}

/// One progress bar; cheap to clone and share across threads. A silent one does nothing.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Bar>>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress"
        } else {
            "Progress(silent)"
        })
    }
}

impl Progress {
    pub fn inc(&self, n: u64) {
        if let Some(b) = &self.0 {
            b.inc(n);
        }
    }

    pub fn set_length(&self, len: u64) {
        if let Some(b) = &self.0 {
            b.set_length(len);
        }
    }

    pub fn set_position(&self, pos: u64) {
        if let Some(b) = &self.0 {
            b.set_position(pos);
        }
    }

    pub fn set_message(&self, msg: impl Into<String>) {
        if let Some(b) = &self.0 {
            b.set_message(&msg.into());
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish();
        }
    }
}

/// How a stage's artifact came to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A verified artifact with the expected fingerprint was already there.
    Reused,
    /// Built from scratch (nothing there, or `--force`).
    Built,
    /// An artifact was there but unusable (the reason), so it was rebuilt.
    Rebuilt(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Reused => write!(f, "verified, reused"),
            Outcome::Built => write!(f, "built"),
            Outcome::Rebuilt(why) => write!(f, "rebuilt ({why})"),
        }
    }
}
