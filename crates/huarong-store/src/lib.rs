//! The artifact store: the checksummed, memory-mapped [`artifact`] format every stage writes and
//! reads, its [`atomic`] writes (and the disk's free space), a table kept as [`shards`] by the
//! processes of a multi-process run, and what every stage shares ([`stage`]: reuse-or-build of
//! its artifact, its errors). Fingerprints are the model's ([`huarong_core::Fingerprint`]); the
//! puzzle crates never depend on this one.

pub mod artifact;
pub mod atomic;
pub mod shards;
pub mod stage;

pub use artifact::{Artifact, ArtifactError, ArtifactWriter, Expect, Header, Section};
pub use stage::{StageError, reuse_or_build, try_reuse};
