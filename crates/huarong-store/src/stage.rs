//! What every stage shares: reuse-or-build of its artifact, and its errors.

use std::path::Path;

use huarong_core::Outcome;

use crate::artifact::{Artifact, ArtifactError, Expect, Header};

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
        source: huarong_core::universe::CensusError,
    },
}

impl StageError {
    pub fn kind(&self) -> huarong_core::ErrorKind {
        match self {
            StageError::Artifact(e) => e.kind(),
            StageError::Invalid(_) => huarong_core::ErrorKind::Invalid,
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
