//! `huarong verify`: every artifact and table of an output folder, `ok` or `BAD` with why.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use pipeline::Pipeline;

use super::emit;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output folder (default: the pipeline's `output`).
    #[arg(required_unless_present = "pipeline")]
    dir: Option<PathBuf>,
    /// The pipeline that writes the folder: stale, missing and left-over files are bad.
    #[arg(long, short)]
    pipeline: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let p = match &args.pipeline {
        Some(file) => Some(Pipeline::load(registry::families(), file)?),
        None => None,
    };
    let dir = match (args.dir, &p) {
        (Some(d), _) => d,
        (None, Some(p)) => p.output.clone(),
        (None, None) => unreachable!("clap requires a folder or a pipeline"),
    };
    let checks = pipeline::verify::verify(&dir, p.as_ref())
        .with_context(|| format!("reading {}", dir.display()))?;
    if checks.is_empty() {
        anyhow::bail!("{}: no artifacts or Parquet files found", dir.display());
    }
    let mut text = String::new();
    for c in &checks {
        match &c.problem {
            None => text += &format!("ok   {}\n", c.file),
            Some(p) => text += &format!("BAD  {}: {p}\n", c.file),
        }
    }
    let bad = checks.iter().filter(|c| c.problem.is_some()).count();
    text += &format!("{} files checked, {bad} bad\n", checks.len());
    emit(&text)?;
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}
