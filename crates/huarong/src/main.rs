//! `huarong`: a thin command line over the pipeline crates. This file only parses the command
//! line and dispatches; each command lives in its own module under `commands/`.

mod commands;
mod report;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use huarong_core::ErrorKind;

use commands as cmd;

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
    ///
    /// With --engine timely, components and distances run on timely-dataflow: -w worker threads
    /// per process; for several processes, -n processes, -p this process's index and -h a host
    /// file (one host:port per process). Process 0 writes the outputs.
    #[command(disable_help_flag = true)]
    Run(cmd::run::Args),
    /// An optimal solution for a Huarong Dao layout of any piece set, or any sliding-block
    /// puzzle from a puzzle file.
    ///
    /// Prints the number of moves, then the path (one position per line, start first). Uses a
    /// pipeline's distance tables when they hold the position's space (under --tables, default
    /// every folder of outputs/), otherwise searches. Exit status: 0 solved, 1 unsolvable or
    /// the search gave up (--max-states), 2 invalid input or unreadable tables.
    #[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["layout", "puzzle"]))]
    Solve(cmd::solve::Args),
    /// Draw a Huarong Dao layout or a puzzle file's board as an SVG picture.
    #[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["layout", "puzzle"]))]
    Render(cmd::render::Args),
    /// Print what a pipeline's output folder holds: the summary, the records and the size of
    /// every Parquet table, as aligned tables (any puzzle).
    Inspect(cmd::inspect::Args),
    /// Answer a contest judge's input (stdin) with exactly the judge's output (stdout).
    ///
    /// Exit status 2 with a message naming the case and line if the input is malformed.
    Judge(cmd::judge::Args),
    /// Check every artifact (header, size, checksum) and Parquet file (export manifest) of a
    /// pipeline's output folder; with --pipeline also that each is current: built from that
    /// pipeline's inputs, present, and still part of it. Exit status 2 if any is bad.
    Verify(cmd::verify::Args),
    /// List the puzzle families this build knows: section name, judge, notation.
    Puzzles(cmd::puzzles::Args),
    /// Play any position in the browser: every legal move shown with the distance it leads to,
    /// hints and animated optimal solutions (from the distance tables, else a search).
    Serve(cmd::serve::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let done = match cli.command {
        Command::Run(args) => cmd::run::run(args),
        Command::Solve(args) => cmd::solve::run(args),
        Command::Render(args) => cmd::render::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Judge(args) => cmd::judge::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Puzzles(args) => cmd::puzzles::run(args),
        Command::Serve(args) => cmd::serve::run(args),
    };
    done.unwrap_or_else(|e| {
        report::warn(&format!("error: {}", describe(&e)));
        exit_code(kind_of(&e))
    })
}

/// The one mapping of a failure's kind to an exit status: 1 for a search that gave up (an
/// answer may still exist: raise the bound), 2 for everything else that went wrong.
pub fn exit_code(kind: Option<ErrorKind>) -> ExitCode {
    match kind {
        Some(ErrorKind::GaveUp) => ExitCode::from(1),
        _ => ExitCode::from(2),
    }
}

/// The kind of the first library error in `e`'s chain.
fn kind_of(e: &anyhow::Error) -> Option<ErrorKind> {
    e.chain().find_map(|cause| {
        if let Some(e) = cause.downcast_ref::<pipeline::PipelineError>() {
            Some(e.kind())
        } else if let Some(e) = cause.downcast_ref::<pipeline::solve::Error>() {
            Some(e.kind())
        } else if let Some(e) = cause.downcast_ref::<pipeline::config::ConfigError>() {
            Some(e.kind())
        } else if let Some(e) = cause.downcast_ref::<huarong_store::StageError>() {
            Some(e.kind())
        } else if let Some(e) = cause.downcast_ref::<huarong_store::ArtifactError>() {
            Some(e.kind())
        } else {
            cause.downcast_ref::<std::io::Error>().map(ErrorKind::of_io)
        }
    })
}

/// The error and its causes on one line, each cause once (library errors often already name
/// their cause in their own message).
fn describe(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}
