//! Pipelines: a TOML description ([`config`]) turned into stage runs over each state space
//! ([`run`]). The stage crates stay generic over [`huarong_core::Puzzle`]; this crate is where
//! concrete puzzles meet them.

pub mod config;
pub mod run;

use std::path::{Path, PathBuf};

pub use config::{ConfigError, HuarongConfig, Pipeline, PuzzleConfig, SpaceKind};
use huarong_core::{Puzzle, StageError};
use klotski::{Labeled, Unlabeled};
pub use run::{MetricStats, RunOptions, SpaceReport, StageLog, run_space};

/// Why a pipeline run failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stage(#[from] StageError),
    #[error(transparent)]
    Space(#[from] klotski::SpaceError),
}

/// The result of a whole pipeline run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub name: String,
    pub output: PathBuf,
    pub spaces: Vec<SpaceReport>,
}

/// Runs every stage of `pipeline` into `output` (the pipeline's own output folder if `None`).
pub fn run_pipeline(
    pipeline: &Pipeline,
    output: Option<&Path>,
    opts: RunOptions,
) -> Result<RunReport, PipelineError> {
    let output = output.unwrap_or(&pipeline.output).to_owned();
    let spaces = match &pipeline.puzzle {
        PuzzleConfig::Huarong(h) => run_huarong(h, &output, opts)?,
    };
    Ok(RunReport {
        name: pipeline.name.clone(),
        output,
        spaces,
    })
}

fn run_huarong(
    config: &HuarongConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Vec<SpaceReport>, PipelineError> {
    let metrics: Vec<usize> = config.metrics.iter().map(|&m| m as usize).collect();
    let mut reports = Vec::new();
    for &set in &config.piece_sets {
        let unlabeled = Unlabeled::new(set);
        for &kind in &config.spaces {
            let report = match kind {
                SpaceKind::Unlabeled => run_one(&unlabeled, output, &metrics, opts)?,
                SpaceKind::Labeled => {
                    let labeled = Labeled::over(unlabeled.clone())?;
                    run_one(&labeled, output, &metrics, opts)?
                }
            };
            reports.push(SpaceReport {
                piece_set: set.to_string(),
                labeled: kind == SpaceKind::Labeled,
                ..report
            });
        }
    }
    Ok(reports)
}

fn run_one<P: Puzzle>(
    puzzle: &P,
    output: &Path,
    metrics: &[usize],
    opts: RunOptions,
) -> Result<SpaceReport, PipelineError> {
    let dir = output.join(puzzle.space_id());
    Ok(run_space(puzzle, &dir, metrics, opts)?)
}
