//! `huarong`: a thin command line over the pipeline crates.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use huarong_core::Reporter;
use pipeline::{Pipeline, RunOptions, RunReport};

/// Graph analysis of sliding-block and search puzzles: enumerate every position, build the move
/// graph, compute components and distances, export statistics.
#[derive(Debug, Parser)]
#[command(name = "huarong", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run every stage of a pipeline (stages whose verified artifacts match are skipped).
    Run {
        /// The pipeline description, e.g. pipelines/huarong.toml.
        pipeline: PathBuf,
        /// Rebuild every artifact even if a verified one is there.
        #[arg(long)]
        force: bool,
        /// No progress bars and no per-stage log.
        #[arg(long, short)]
        quiet: bool,
        /// Write outputs here instead of the pipeline's `output`.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// fsync every artifact before renaming it into place (durable across power loss;
        /// without it a torn artifact is still detected by its checksum and rebuilt).
        #[arg(long)]
        fsync: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run {
            pipeline,
            force,
            quiet,
            output,
            fsync,
        } => {
            huarong_core::artifact::set_durable(fsync);
            let p = Pipeline::load(&pipeline)?;
            let opts = RunOptions {
                force,
                reporter: Reporter { quiet },
                log: !quiet,
            };
            let report = pipeline::run_pipeline(&p, output.as_deref(), opts)
                .with_context(|| format!("running pipeline {}", pipeline.display()))?;
            print_report(&report);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_report(report: &RunReport) {
    println!("pipeline {} -> {}", report.name, report.output.display());
    println!(
        "{:<22} {:>10} {:>6} {:>11} {:>11} {:>9} {:>6} {:>11} {:>6} {:>9}",
        "space", "metric", "", "states", "edges", "comps", "goalc", "solvable", "maxd", "at maxd"
    );
    for s in &report.spaces {
        println!(
            "{:<22} {:>10} {:>6} {:>11} {:>11}   goal states: {}",
            s.space_id, "", "", s.states, "", s.goal_states
        );
        for m in &s.metrics {
            println!(
                "{:<22} {:>10} {:>6} {:>11} {:>11} {:>9} {:>6} {:>11} {:>6} {:>9}",
                "",
                m.metric,
                "",
                "",
                m.edges,
                m.components,
                m.goal_components,
                m.solvable_states,
                m.max_distance,
                m.max_distance_states
            );
        }
    }
}
