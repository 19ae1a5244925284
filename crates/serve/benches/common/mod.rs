//! Shared by the serve benchmarks: the classic tables they answer from.

use std::path::Path;

use pipeline::{Pipeline, RunOptions, run_pipeline};

/// Runs the unlabeled classic pipeline (`pipelines/huarong-canonical.toml`) into `dir`.
pub fn classic_tables(dir: &Path) {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines/huarong-canonical.toml"),
    )
    .unwrap();
    run_pipeline(
        &Pipeline::parse(registry::families(), &text).unwrap(),
        Some(dir),
        &RunOptions::default(),
    )
    .unwrap();
}
