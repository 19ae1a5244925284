//! The query side of huarong: what a finished output folder holds, opened for reading and
//! answered from. [`space`] is the folder layout and the opener of a space's artifacts;
//! [`manifest`] the export manifest that vouches for a folder's tables; [`fingerprint`] what it
//! must carry; [`outputs`] a folder read from outside a run (the Python package's `Outputs`);
//! [`solve`] and [`play`] (the [`play::Atlas`]) answer positions from the tables, pattern
//! databases or a component explored on the spot.
//!
//! The batch side (`pipeline`: run, export) writes what this crate reads; nothing here writes
//! Parquet or runs a dataflow, so the CLI's queries, `serve` and the Python package build
//! without them.

/// The pipeline descriptions (the `pipeline-config` crate).
pub use pipeline_config as config;

pub mod farthest;
pub mod fingerprint;
pub mod folder;
pub mod manifest;
pub mod outputs;
pub mod play;
pub mod solve;
pub mod space;

use std::path::PathBuf;

/// A file of an output folder that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct IoError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}
