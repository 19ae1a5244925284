//! What kind of failure an error is. Library errors keep their own variants and messages; each
//! says its [`ErrorKind`], and the programs decide from the kind alone: the binary maps it once
//! to an exit status, `serve` once to an HTTP status, the Python module once to an exception.

use std::io;

/// The kinds of failure a user acts on differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is wrong — a position, a puzzle or pipeline file, a request, an option — and
    /// the message says where.
    Invalid,
    /// What was named is not there (a file, a folder, a table).
    NotFound,
    /// A file is there but damaged, or was made from other inputs or by another build: rebuild
    /// it.
    Corrupt,
    /// Refused before any work: more than the run's bounds allow (states, memory, disk), or the
    /// output folder is another run's.
    Refused,
    /// A search reached its bound without an answer.
    GaveUp,
    /// Too much work in flight to start this now; nothing was started.
    Busy,
    /// Nobody waits for the answer any more.
    Cancelled,
    /// The system failed (an IO error other than a missing file).
    System,
}

impl ErrorKind {
    /// The kind of an IO error: a missing file, or the system failing.
    pub fn of_io(e: &io::Error) -> ErrorKind {
        match e.kind() {
            io::ErrorKind::NotFound => ErrorKind::NotFound,
            _ => ErrorKind::System,
        }
    }
}

/// Input that is wrong — a position, a puzzle file, a solve request — with a message saying
/// where (line, cell, piece). Its kind is always [`ErrorKind::Invalid`]: what a family's
/// notation reader ([`crate::Puzzle::parse`], [`crate::driver::Solver::instance`]) returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

impl InputError {
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Invalid
    }
}

impl From<String> for InputError {
    fn from(message: String) -> Self {
        InputError(message)
    }
}

impl From<&str> for InputError {
    fn from(message: &str) -> Self {
        InputError(message.to_owned())
    }
}
