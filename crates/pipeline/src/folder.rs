//! One writer per output folder. A run holds an exclusive OS lock on its output folder (`flock`
//! on the directory itself) for as long as it runs; the kernel releases it when the process
//! ends, however it ends, so no stale lock outlives a killed run. A second run into the same
//! folder waits for it — bounded — with a message naming the holder, or is refused at once.
//! Readers (`serve`, `inspect`, `verify`, Python) take no lock: every file is replaced
//! atomically, so they never see a half-written one. The processes of one multi-process run
//! share their folder under process 0's lock.
//!
//! A run writes through [`Writing`]: the folder made if missing, locked, the temporaries a
//! killed run left at its root swept, its layout ([`Folder`]) at hand; each artifact folder
//! under it is made and swept once, by [`prepare`], before its stage writes.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use atlas::folder::Folder;
use huarong_core::Reporter;
use huarong_store::StageError;

use crate::{PipelineError, RunOptions};

/// Who holds the lock, for the message of a run that finds it taken (informational: the lock
/// is the directory's, not this file's).
pub const HOLDER: &str = ".huarong-writer";

/// Why a run could not take its folder.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Another run writes the folder.
    #[error(
        "{}: another run is writing this folder ({holder}){}",
        path.display(),
        if waited.is_zero() {
            ": refused at once (--wait-for-folder 0)".to_owned()
        } else {
            format!(": gave up after waiting {} s (--wait-for-folder)", waited.as_secs())
        }
    )]
    Busy {
        path: PathBuf,
        holder: String,
        waited: Duration,
    },
}

impl LockError {
    pub fn kind(&self) -> huarong_core::ErrorKind {
        match self {
            LockError::Io { source, .. } => huarong_core::ErrorKind::of_io(source),
            LockError::Busy { .. } => huarong_core::ErrorKind::Refused,
        }
    }
}

/// The lock on one output folder, held until dropped.
#[derive(Debug)]
pub struct FolderLock {
    dir: File,
    holder: PathBuf,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // The note goes first, while the lock still keeps other runs out.
        let _ = std::fs::remove_file(&self.holder);
        let _ = self.dir.unlock();
    }
}

/// Who holds `folder`'s lock, as its note says.
fn holder(folder: &Path) -> String {
    std::fs::read_to_string(folder.join(HOLDER))
        .ok()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "its process left no note".to_owned())
}

/// Takes `folder`'s lock, waiting for another run's for at most `wait` (zero: refuse at once),
/// and says so through `reporter` when it waits.
pub fn lock(folder: &Path, wait: Duration, reporter: &Reporter) -> Result<FolderLock, LockError> {
    let io = |source| LockError::Io {
        path: folder.to_owned(),
        source,
    };
    let dir = File::open(folder).map_err(io)?;
    let started = Instant::now();
    let mut told = false;
    loop {
        match dir.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let waited = started.elapsed();
        if waited >= wait {
            return Err(LockError::Busy {
                path: folder.to_owned(),
                holder: holder(folder),
                waited: wait,
            });
        }
        if !told {
            reporter.note(&format!(
                "{}: another run is writing this folder ({}); waiting for it, at most {} s",
                folder.display(),
                holder(folder),
                wait.as_secs()
            ));
            told = true;
        }
        std::thread::sleep(Duration::from_millis(100).min(wait - waited));
    }
    let note = folder.join(HOLDER);
    let args: Vec<String> = std::env::args().collect();
    // Best effort: a folder whose note cannot be written is still locked.
    let _ = std::fs::write(
        &note,
        format!("process {}: {}\n", std::process::id(), args.join(" ")),
    );
    Ok(FolderLock { dir, holder: note })
}

/// An output folder a run writes: made, locked (by process 0 of a multi-process run; the
/// others share its lock), its temporaries swept. The lock is held until it is dropped.
#[derive(Debug)]
pub struct Writing {
    folder: Folder,
    _lock: Option<FolderLock>,
}

impl Writing {
    /// Makes `root` if missing and takes its lock ([`lock`], waiting as `opts` says), then
    /// removes the temporaries a killed run left there (the export's Parquet files).
    pub fn open(root: &Path, opts: &RunOptions) -> Result<Writing, PipelineError> {
        std::fs::create_dir_all(root).map_err(|source| PipelineError::Io {
            path: root.to_owned(),
            source,
        })?;
        let lock = match opts.engine.is_follower() {
            true => None,
            false => Some(lock(root, opts.wait_for_folder, &opts.reporter)?),
        };
        sweep(root, opts);
        Ok(Writing {
            folder: Folder::new(root),
            _lock: lock,
        })
    }

    /// Where everything lives.
    pub fn folder(&self) -> &Folder {
        &self.folder
    }
}

/// Makes an artifact folder under a [`Writing`] folder if missing and removes the temporaries
/// a killed run left in it: once per folder, before its stage writes.
pub(crate) fn prepare(dir: &Path, opts: &RunOptions) -> Result<(), StageError> {
    std::fs::create_dir_all(dir).map_err(|source| {
        StageError::Artifact(huarong_store::ArtifactError::Io {
            path: dir.to_owned(),
            source,
        })
    })?;
    sweep(dir, opts);
    Ok(())
}

/// Removes the temporaries a killed writer left in `dir`, saying so.
fn sweep(dir: &Path, opts: &RunOptions) {
    for name in huarong_store::atomic::remove_stale_temporaries(dir) {
        opts.reporter
            .note(&format!("removed {name}, left by an interrupted run"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_waits_or_is_refused_and_the_lock_ends_with_its_holder() {
        let dir = tempfile::tempdir().unwrap();
        let quiet = Reporter::quiet();
        let first = lock(dir.path(), Duration::ZERO, &quiet).unwrap();
        assert!(dir.path().join(HOLDER).exists());
        // Refused at once, naming the holder.
        let err = lock(dir.path(), Duration::ZERO, &quiet).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("another run is writing this folder"),
            "{text}"
        );
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        // A bounded wait gives up.
        let t = Instant::now();
        let err = lock(dir.path(), Duration::from_millis(300), &quiet).unwrap_err();
        assert!(t.elapsed() >= Duration::from_millis(300));
        assert!(matches!(err, LockError::Busy { .. }));
        // A waiting writer gets the folder once the first is done.
        let path = dir.path().to_owned();
        let waiter = std::thread::spawn(move || {
            lock(&path, Duration::from_secs(30), &Reporter::quiet()).map(|_| ())
        });
        std::thread::sleep(Duration::from_millis(200));
        drop(first);
        waiter.join().unwrap().unwrap();
        assert!(
            !dir.path().join(HOLDER).exists(),
            "the note goes with its lock"
        );
    }
}
