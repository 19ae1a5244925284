//! `huarong run`: every stage of a pipeline, then the report table.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::ValueEnum;
use huarong_core::Reporter;
use pipeline::{Pipeline, RunOptions, RunReport};

use super::emit;
use crate::report;

/// Where components and distances run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// Rayon threads in this process.
    Local,
    /// timely-dataflow workers, in this process or several.
    Timely,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print help (`-h` is the host file, so only `--help`).
    #[arg(long, action = clap::ArgAction::Help)]
    #[allow(
        dead_code,
        reason = "clap prints the help and exits; the value is never set"
    )]
    help: Option<bool>,
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
    /// Where components and distances run (default: the pipeline's `engine`, else local).
    #[arg(long, value_enum)]
    engine: Option<EngineArg>,
    /// timely worker threads per process (default: the pipeline's `workers`, else 2).
    #[arg(long, short = 'w')]
    workers: Option<usize>,
    /// timely processes (needs --hostfile).
    #[arg(long, short = 'n', default_value_t = 1)]
    processes: usize,
    /// This process's index among the timely processes.
    #[arg(long, short = 'p', default_value_t = 0)]
    process: usize,
    /// File with one host:port per timely process.
    #[arg(long = "hostfile", short = 'h')]
    hostfile: Option<PathBuf>,
    /// Most states a space may have: a larger one is refused before any work, an explored one
    /// stops when it passes the bound (default: the pipeline's `max_states`, else what fits
    /// three quarters of the memory available when the run starts).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_states: Option<u64>,
    /// When another run is writing the output folder, wait at most this many seconds for it
    /// (0: refuse at once).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    wait_for_folder: u64,
    /// Print each census's projected time on this machine (from a timed sample of its
    /// classes) and exit; nothing is written.
    #[arg(long, conflicts_with = "sample")]
    estimate: bool,
    /// Run each census over every N-th class only, from the K-th (`N` or `N:K`, K < N), print
    /// what it found, its time and the whole census projected at its rate, and exit; nothing
    /// is written.
    #[arg(long, value_name = "N[:K]", value_parser = parse_sample)]
    sample: Option<(usize, usize)>,
}

/// `N` or `N:K` with `N ≥ 1` and `K < N`.
fn parse_sample(text: &str) -> Result<(usize, usize), String> {
    let (n, k) = text.split_once(':').unwrap_or((text, "0"));
    let n: usize = n
        .parse()
        .map_err(|_| format!("{n:?} is not a whole number (N in N:K)"))?;
    let k: usize = k
        .parse()
        .map_err(|_| format!("{k:?} is not a whole number (K in N:K)"))?;
    if n == 0 || k >= n {
        return Err(format!("{text}: N must be at least 1 and K below N"));
    }
    Ok((n, k))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    huarong_store::atomic::set_durable(args.fsync);
    let p = Pipeline::load(registry::families(), &args.pipeline)?;
    let opts = RunOptions {
        force: args.force,
        reporter: if args.quiet {
            Reporter::quiet()
        } else {
            Reporter::new(Arc::new(report::Terminal::new()))
        },
        engine: engine_of(&p, &args)?,
        max_states: args.max_states.or(p.max_states),
        wait_for_folder: std::time::Duration::from_secs(args.wait_for_folder),
    };
    if args.estimate {
        let estimates = pipeline::estimate(&p, &opts)
            .with_context(|| format!("estimating pipeline {}", args.pipeline.display()))?;
        emit(&format_estimates(&estimates))?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Some((every, from)) = args.sample {
        let samples = pipeline::sample(&p, every, from, &opts)
            .with_context(|| format!("sampling pipeline {}", args.pipeline.display()))?;
        emit(&format_samples(&samples, every, from))?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = pipeline::run_pipeline(&p, args.output.as_deref(), &opts)
        .with_context(|| format!("running pipeline {}", args.pipeline.display()))?;
    if opts.engine.is_follower() {
        emit(&format!(
            "pipeline {}: process {} of {} took part in every dataflow; \
             process 0 writes the outputs\n",
            report.name, args.process, args.processes
        ))?;
    } else {
        emit(&format_report(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The engine of a run: the command line over the pipeline's choice.
fn engine_of(p: &Pipeline, args: &Args) -> anyhow::Result<pipeline::Engine> {
    use pipeline::config::EngineChoice;
    let from_file = match p.engine {
        EngineChoice::Local => None,
        EngineChoice::Timely { workers } => Some(workers),
    };
    let (processes, process) = (args.processes, args.process);
    let timely = match args.engine {
        Some(EngineArg::Timely) => true,
        Some(EngineArg::Local) => false,
        None => from_file.is_some() || processes > 1,
    };
    if !timely {
        if processes > 1 || args.hostfile.is_some() {
            anyhow::bail!("-n/-p/--hostfile need --engine timely");
        }
        return Ok(pipeline::Engine::Local);
    }
    let workers = args.workers.or(from_file).unwrap_or(2);
    anyhow::ensure!(workers >= 1, "--workers must be at least 1");
    let hosts = match &args.hostfile {
        None => Vec::new(),
        Some(f) => read_hosts(f)?,
    };
    if processes > 1 || !hosts.is_empty() {
        anyhow::ensure!(
            hosts.len() == processes,
            "{} hosts in the host file for -n {processes} processes",
            hosts.len()
        );
        anyhow::ensure!(
            process < processes,
            "process index {process} is not below -n {processes}"
        );
    }
    let cluster = dataflow::Cluster {
        workers,
        process,
        hosts,
    };
    Ok(pipeline::Engine::Timely(Arc::new(cluster)))
}

/// One host:port per line; blank lines and `#` comments are skipped.
fn read_hosts(file: &std::path::Path) -> anyhow::Result<Vec<String>> {
    Ok(std::fs::read_to_string(file)
        .with_context(|| format!("reading the host file {}", file.display()))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

fn format_estimates(estimates: &[pipeline::census::Estimate]) -> String {
    let mut out = String::new();
    for e in estimates {
        out += &format!(
            "{}: {}; {} chunk(s)\n",
            e.id,
            e.projection.describe(e.unit, e.work),
            e.chunks
        );
    }
    out
}

fn format_samples(samples: &[pipeline::census::SampleReport], every: usize, from: usize) -> String {
    use pipeline::census::{duration, plural};
    let mut out = String::new();
    for s in samples {
        out += &format!(
            "{}: sample {every}:{from} ({} {}, {} of {} {}) took {:.2} s; the whole census \
             projected at its rate: {}\n",
            s.id,
            s.units,
            plural(s.unit),
            s.work,
            s.total_work,
            s.work_name,
            s.seconds,
            duration(s.projected_seconds)
        );
        for (name, value) in &s.summary {
            out += &format!("  {name:<20} {value:>16}\n");
        }
    }
    out
}

fn format_report(report: &RunReport) -> String {
    let mut out = format!("pipeline {} -> {}\n", report.name, report.output.display());
    let row = |cells: [&str; 10]| {
        format!(
            "{:<18} {:<8} {:>10} {:>9} {:>10} {:>7} {:>6} {:>10} {:>5} {:>7}\n",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            cells[5],
            cells[6],
            cells[7],
            cells[8],
            cells[9]
        )
    };
    if !report.spaces.is_empty() {
        out += &row([
            "space", "metric", "states", "goals", "edges", "comps", "goalc", "solvable", "maxd",
            "at maxd",
        ]);
    }
    for s in &report.spaces {
        for m in &s.metrics {
            out += &row([
                &s.space_id,
                &m.metric,
                &s.states.to_string(),
                &s.goal_states.to_string(),
                &m.edges.to_string(),
                &m.components.to_string(),
                &m.goal_components.to_string(),
                &m.solvable_states.to_string(),
                &m.max_distance.to_string(),
                &m.max_distance_states.to_string(),
            ]);
        }
    }
    if !report.patterns().is_empty() {
        out += "pattern databases:\n";
        for p in report.patterns() {
            out += &format!(
                "  {:<28} {:>12} placements  max {:>2}  mean {:.3}  {} bits  ({}, {:.2} s)\n",
                p.id, p.placements, p.max, p.mean, p.bits, p.log.outcome, p.log.seconds
            );
        }
    }
    for u in report.universes() {
        out += &format!(
            "universe {} ({}, {:.2} s):\n",
            u.id, u.log.outcome, u.log.seconds
        );
        if u.work_per_process.len() > 1 {
            let max = u.work_per_process.iter().copied().max().unwrap_or(0);
            let mean =
                u.work_per_process.iter().sum::<u64>() as f64 / u.work_per_process.len() as f64;
            out += &format!(
                "  work per process     {:?} (max / mean {:.3})\n",
                u.work_per_process,
                if mean > 0.0 { max as f64 / mean } else { 1.0 }
            );
        }
        for (name, value) in &u.summary {
            out += &format!("  {name:<20} {value:>16}\n");
        }
    }
    out += &format!(
        "parquet tables ({}, {:.2} s):\n",
        report.export_outcome, report.export_seconds
    );
    for (name, size) in &report.tables {
        out += &format!("  {name:<40} {size:>12} bytes\n");
    }
    out
}
