//! What every stage shares: reuse-or-build of its artifact, and its errors.

use std::path::Path;

use crate::artifact::{Artifact, ArtifactError, Expect, Header};

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

/// Why a stage failed.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error("{0}")]
    Invalid(String),
    /// A universe's census could not be computed, merged or read.
    #[error("{id}: {source}")]
    Census {
        id: String,
        #[source]
        source: crate::universe::CensusError,
    },
}

impl StageError {
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            StageError::Artifact(e) => e.kind(),
            StageError::Invalid(_) => crate::ErrorKind::Invalid,
            StageError::Census { source, .. } => source.kind(),
        }
    }
}

/// Opens the artifact at `path` if it verifies against `expect` (and `force` is off); otherwise
/// runs `build`, which must write it atomically and return the header it wrote, and opens the
/// result.
pub fn reuse_or_build(
    path: &Path,
    expect: Expect<'_>,
    force: bool,
    build: impl FnOnce(&Path) -> Result<Header, StageError>,
) -> Result<(Artifact, Outcome), StageError> {
    match try_reuse(path, expect, force) {
        Ok(a) => Ok((a, Outcome::Reused)),
        Err(outcome) => {
            let written = build(path)?;
            Ok((Artifact::open_written(path, &written)?, outcome))
        }
    }
}

/// The first half of [`reuse_or_build`]: the artifact at `path` if it verifies against `expect`
/// (and `force` is off), or else the outcome building it will have ([`Outcome::Built`] or
/// [`Outcome::Rebuilt`] with the reason).
pub fn try_reuse(path: &Path, expect: Expect<'_>, force: bool) -> Result<Artifact, Outcome> {
    if force {
        return Err(Outcome::Built);
    }
    match Artifact::open(path, expect) {
        Ok(a) => Ok(a),
        Err(ArtifactError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Err(Outcome::Built)
        }
        Err(e) => Err(Outcome::Rebuilt(e.to_string())),
    }
}
