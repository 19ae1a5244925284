//! Shared foundation of the huarong pipeline: the [`Puzzle`] trait every stage is generic over,
//! the checksummed, memory-mapped [`artifact`] format, and progress reporting.

pub mod artifact;
pub mod progress;
pub mod puzzle;
pub mod stage;

pub use artifact::{Artifact, ArtifactError, ArtifactWriter, Expect, Fingerprint, Header, Section};
pub use progress::{Progress, Reporter};
pub use puzzle::{DistanceSources, Puzzle, metric_index};
pub use stage::{Outcome, StageError, reuse_or_build};

/// Marks "no distance" (unreachable from the sources) in distance arrays.
pub const UNREACHABLE: u16 = u16::MAX;
