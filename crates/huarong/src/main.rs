//! `huarong`: a thin command line over the pipeline crates.

mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, LazyLock};

use anyhow::Context;
use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};
use huarong_core::Reporter;
use huarong_core::driver::{Driver, SolveRequest};
use pipeline::{Pipeline, RunOptions, RunReport};

/// Which position `solve` and `render` are about.
#[derive(Debug, clap::Args)]
struct What {
    /// A Huarong Dao layout, e.g. VCCV/VCCV/VHHV/VSSV/S..S (labeled layouts give labeled
    /// paths); with --puzzle, a position of that puzzle instead of its board.
    layout: Option<String>,
    /// A sliding-block puzzle file (puzzles/*.toml).
    #[arg(long, value_name = "FILE")]
    puzzle: Option<PathBuf>,
    /// Move Cao Cao's top-left cell to ROW,COL (0-based) instead of the exit at 3,1.
    #[arg(long, value_name = "ROW,COL", value_parser = parse_goal)]
    goal: Option<(usize, usize)>,
}

fn parse_goal(text: &str) -> Result<(usize, usize), String> {
    let (r, c) = text
        .split_once(',')
        .ok_or_else(|| format!("{text:?}: expected ROW,COL, e.g. 3,1"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("{t:?} is not a row or column number"))
    };
    Ok((num(r)?, num(c)?))
}

impl What {
    /// Reads the puzzle file, if any, and calls `f` with the request.
    fn with_request<T>(
        &self,
        f: impl FnOnce(&SolveRequest<'_>) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let text = match &self.puzzle {
            Some(file) => Some(
                std::fs::read_to_string(file)
                    .with_context(|| format!("reading the puzzle file {}", file.display()))?,
            ),
            None => None,
        };
        let path = self
            .puzzle
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned());
        let request = SolveRequest {
            position: self.layout.as_deref(),
            puzzle: path.as_deref().zip(text.as_deref()),
            goal: self.goal,
        };
        f(&request)
    }
}

/// A move metric on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MetricArg {
    /// One piece slides one cell.
    Step,
    /// One piece slides any number of cells in one direction.
    Straight,
    /// One piece moves anywhere it can reach by unit slides (the 81-move record's metric).
    Piece,
}

impl MetricArg {
    fn name(self) -> &'static str {
        match self {
            MetricArg::Step => "step",
            MetricArg::Straight => "straight",
            MetricArg::Piece => "piece",
        }
    }
}

/// Where components and distances run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EngineArg {
    /// Rayon threads in this process.
    Local,
    /// timely-dataflow workers, in this process or several.
    Timely,
}

/// A registered family with a contest judge (the choices come from the registry).
#[derive(Clone, Copy)]
struct JudgeArg(&'static dyn Driver);

impl std::fmt::Debug for JudgeArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}

static JUDGES: LazyLock<Vec<JudgeArg>> = LazyLock::new(|| {
    registry::drivers()
        .iter()
        .filter(|d| d.judge().is_some())
        .map(|&d| JudgeArg(d))
        .collect()
});

impl ValueEnum for JudgeArg {
    fn value_variants<'a>() -> &'a [Self] {
        &JUDGES
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.about()))
    }
}

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
    Run {
        /// Print help.
        #[arg(long, action = clap::ArgAction::Help)]
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
    },
    /// An optimal solution for a Huarong Dao layout of any piece set, or any sliding-block
    /// puzzle from a puzzle file.
    ///
    /// Prints the number of moves, then the path (one position per line, start first). Uses a
    /// pipeline's distance tables when they hold the position's space (under --tables, default
    /// every folder of outputs/), otherwise searches. Exit status: 0 solved, 1 unsolvable or
    /// the search gave up (--max-states), 2 invalid input or unreadable tables.
    #[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["layout", "puzzle"]))]
    Solve {
        #[command(flatten)]
        what: What,
        /// Move metric.
        #[arg(long, value_enum, default_value_t = MetricArg::Piece)]
        metric: MetricArg,
        /// Print {"layout" or "puzzle", "metric", "moves", "path", "source"} as JSON ("source":
        /// "tables" or "search", where the answer came from).
        #[arg(long)]
        json: bool,
        /// Where to look for distance tables (<DIR>/<space>/); repeatable, first match wins.
        /// Default: every folder under outputs/.
        #[arg(long, value_name = "DIR")]
        tables: Vec<PathBuf>,
        /// Never use tables: always search.
        #[arg(long)]
        cold: bool,
        /// Most states a search may keep before it gives up (exit status 1).
        #[arg(long, value_name = "N", default_value_t = 50_000_000)]
        max_states: u64,
        /// Also draw the solution into this SVG file (a grid of numbered frames).
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Print the boards (numbered strips, the moved piece highlighted) even when stdout is
        /// not a terminal; on a terminal they are the default, in colour.
        #[arg(long)]
        boards: bool,
    },
    /// Draw a Huarong Dao layout or a puzzle file's board as an SVG picture.
    #[command(group = clap::ArgGroup::new("what").required(true).multiple(true).args(["layout", "puzzle"]))]
    Render {
        #[command(flatten)]
        what: What,
        /// The SVG file to write.
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
    },
    /// Print what a pipeline's output folder holds: the summary, the records and the size of
    /// every Parquet table, as aligned tables (any puzzle).
    Inspect {
        /// The output folder, e.g. outputs/huarong.
        dir: PathBuf,
        /// Most records to print.
        #[arg(long, default_value_t = 30)]
        rows: usize,
    },
    /// Answer a contest judge's input (stdin) with exactly the judge's output (stdout).
    ///
    /// Exit status 2 with a message naming the case and line if the input is malformed.
    Judge {
        /// Which judge.
        #[arg(value_enum)]
        puzzle: JudgeArg,
    },
    /// Check every artifact (header, size, checksum) and Parquet file (export manifest) of a
    /// pipeline's output folder; with --pipeline also that each is current: built from that
    /// pipeline's inputs, present, and still part of it. Exit status 2 if any is bad.
    Verify {
        /// The output folder (default: the pipeline's `output`).
        #[arg(required_unless_present = "pipeline")]
        dir: Option<PathBuf>,
        /// The pipeline that writes the folder: stale, missing and left-over files are bad.
        #[arg(long, short)]
        pipeline: Option<PathBuf>,
    },
    /// List the puzzle families this build knows: section name, judge, notation.
    Puzzles {
        /// Also print each family's complete pipeline section (every key).
        #[arg(long)]
        examples: bool,
    },
    /// Play any position in the browser: every legal move shown with the distance it leads to,
    /// hints and animated optimal solutions (from the distance tables, else a search).
    Serve {
        /// Port to listen on (0: any free port; the address is printed).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Address to bind; only this machine can connect unless you say otherwise.
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Where to look for distance tables (<DIR>/<space>/); repeatable, first match wins.
        /// Default: every folder under outputs/.
        #[arg(long, value_name = "DIR")]
        tables: Vec<PathBuf>,
        /// The puzzle files the page offers.
        #[arg(long, value_name = "DIR", default_value = "puzzles")]
        puzzles: PathBuf,
        /// Most states explored for a position whose space has no tables.
        #[arg(long, value_name = "N", default_value_t = 5_000_000)]
        max_states: u64,
        /// Worker threads (default: one per core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            report::warn(&format!("error: {}", describe(&e)));
            ExitCode::from(2)
        }
    }
}

/// The folders `--tables` names, each of which must be there (a typo must not turn a table
/// lookup into a silent search); without any, every folder under outputs/.
fn table_roots(tables: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
    if tables.is_empty() {
        return Ok(pipeline::solve::default_roots());
    }
    for dir in &tables {
        anyhow::ensure!(
            dir.is_dir(),
            "--tables {}: no such folder (it must hold pipeline outputs, e.g. outputs/huarong)",
            dir.display()
        );
    }
    Ok(tables)
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

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run {
            pipeline,
            force,
            quiet,
            output,
            fsync,
            engine,
            workers,
            processes,
            process,
            hostfile,
            help: _,
        } => {
            huarong_core::atomic::set_durable(fsync);
            let p = Pipeline::load(&pipeline)?;
            let engine = engine_of(&p, engine, workers, processes, process, hostfile)?;
            let opts = RunOptions {
                force,
                reporter: if quiet {
                    Reporter::quiet()
                } else {
                    Reporter::new(Arc::new(report::Terminal::new()))
                },
                engine,
            };
            let report = pipeline::run_pipeline(&p, output.as_deref(), &opts)
                .with_context(|| format!("running pipeline {}", pipeline.display()))?;
            if opts.engine.is_follower() {
                emit(&format!(
                    "pipeline {}: process {process} of {processes} took part in every dataflow; \
                     process 0 writes the outputs\n",
                    report.name
                ))?;
            } else {
                emit(&format_report(&report))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Solve {
            what,
            metric,
            json,
            tables,
            cold,
            max_states,
            svg,
            boards,
        } => {
            let roots = if cold {
                Vec::new()
            } else {
                table_roots(tables)?
            };
            let output = SolveOutput { json, svg, boards };
            what.with_request(|request| solve(request, metric.name(), output, &roots, max_states))
        }
        Command::Render { what, output } => what.with_request(|request| {
            let instance = match pipeline::solve::instance(request) {
                Ok(i) => i,
                Err(e) => {
                    report::warn(&format!("error: {e}"));
                    return Ok(ExitCode::from(2));
                }
            };
            let doc = render::svg::board(&instance.picture());
            std::fs::write(&output, doc)
                .with_context(|| format!("writing {}", output.display()))?;
            Ok(ExitCode::SUCCESS)
        }),
        Command::Inspect { dir, rows } => {
            let seen = pipeline::inspect::inspect(&dir, rows)?;
            emit(&format_inspection(&dir, &seen))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Judge { puzzle } => {
            use std::io::Read;
            let judge = puzzle
                .0
                .judge()
                .expect("the choices are the families with a judge");
            let mut input = String::new();
            std::io::stdin()
                .read_to_string(&mut input)
                .context("reading the judge input from stdin (it must be text)")?;
            match judge(&input) {
                Ok(text) => {
                    emit(&text)?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    report::warn(&format!("error: {} judge input: {e}", puzzle.0.name()));
                    Ok(ExitCode::from(2))
                }
            }
        }
        Command::Puzzles { examples } => {
            emit(&format_puzzles(examples))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve {
            port,
            bind,
            tables,
            puzzles,
            max_states,
            threads,
        } => {
            let roots = table_roots(tables)?;
            let catalog = serve::Catalog::load(puzzles.exists().then_some(puzzles.as_path()))
                .context("loading the puzzle files")?;
            for (file, why) in &catalog.skipped {
                report::warn(&format!("skipping {file}: {why}"));
            }
            let roots_shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
            let app = serve::App {
                atlas: pipeline::play::Atlas::new(roots, max_states),
                catalog,
            };
            serve::run(
                std::net::SocketAddr::new(bind, port),
                app,
                threads,
                |addr| {
                    let roots = if roots_shown.is_empty() {
                        "none".to_owned()
                    } else {
                        roots_shown.join(", ")
                    };
                    // A closed stdout must not stop the server.
                    let _ = emit(&format!(
                        "serving on http://{addr}/ (tables under: {roots})\n"
                    ));
                },
            )
            .with_context(|| format!("serving on {bind}:{port}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { dir, pipeline } => {
            let p = match &pipeline {
                Some(file) => Some(Pipeline::load(file)?),
                None => None,
            };
            let dir = match (dir, &p) {
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
    }
}

/// The engine of a run: the command line over the pipeline's choice.
fn engine_of(
    p: &Pipeline,
    engine: Option<EngineArg>,
    workers: Option<usize>,
    processes: usize,
    process: usize,
    hostfile: Option<PathBuf>,
) -> anyhow::Result<pipeline::Engine> {
    use pipeline::config::EngineChoice;
    let from_file = match p.engine {
        EngineChoice::Local => None,
        EngineChoice::Timely { workers } => Some(workers),
    };
    let timely = match engine {
        Some(EngineArg::Timely) => true,
        Some(EngineArg::Local) => false,
        None => from_file.is_some() || processes > 1,
    };
    if !timely {
        if processes > 1 || hostfile.is_some() {
            anyhow::bail!("-n/-p/--hostfile need --engine timely");
        }
        return Ok(pipeline::Engine::Local);
    }
    let workers = workers.or(from_file).unwrap_or(2);
    anyhow::ensure!(workers >= 1, "--workers must be at least 1");
    let hosts: Vec<String> = match &hostfile {
        None => Vec::new(),
        Some(f) => std::fs::read_to_string(f)
            .with_context(|| format!("reading the host file {}", f.display()))?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect(),
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

/// What `solve` prints or writes besides the move count.
struct SolveOutput {
    json: bool,
    svg: Option<PathBuf>,
    boards: bool,
}

fn solve(
    request: &SolveRequest<'_>,
    metric: &str,
    output: SolveOutput,
    roots: &[PathBuf],
    max_states: u64,
) -> anyhow::Result<ExitCode> {
    use std::io::IsTerminal;
    let instance = match pipeline::solve::instance(request) {
        Ok(i) => i,
        Err(e) => {
            report::warn(&format!("error: {e}"));
            return Ok(ExitCode::from(2));
        }
    };
    let solution = match pipeline::solve::solve(instance.as_ref(), metric, roots, max_states) {
        Ok(s) => s,
        Err(pipeline::solve::Error::Search(e)) => {
            report::warn(&format!("{}: {e}", instance.start()));
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e.into()),
    };
    let Some(path) = solution.path else {
        report::warn(&format!(
            "{} cannot reach the goal in the {metric} metric",
            instance.start()
        ));
        return Ok(ExitCode::from(1));
    };
    let moves = path.layouts.len() - 1;
    let frames = render::frames(&path.pictures);
    if let Some(file) = &output.svg {
        let title = format!("{} — {moves} moves ({metric} metric)", instance.start());
        let doc = render::svg::solution(&frames, 12, &title);
        std::fs::write(file, doc).with_context(|| format!("writing {}", file.display()))?;
    }
    let tty = std::io::stdout().is_terminal();
    let text = if output.json {
        let (key, name) = instance.describe();
        let mut v = serde_json::Map::new();
        v.insert(key.into(), name.into());
        v.insert("metric".into(), metric.into());
        v.insert("moves".into(), moves.into());
        let source = match solution.method {
            pipeline::solve::Method::Tables(_) => "tables",
            pipeline::solve::Method::Cold => "search",
        };
        v.insert("source".into(), source.into());
        v.insert("path".into(), path.layouts.clone().into());
        format!("{}\n", serde_json::Value::Object(v))
    } else if tty || output.boards {
        let style = render::text::Style {
            colour: tty && std::env::var_os("NO_COLOR").is_none(),
        };
        let width = std::env::var("COLUMNS")
            .ok()
            .and_then(|w| w.parse().ok())
            .unwrap_or(100);
        format!(
            "{moves} moves ({metric} metric)\n\n{}",
            render::text::strips(&frames, style, width)
        )
    } else {
        format!("{moves}\n{}\n", path.layouts.join("\n"))
    };
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error.
fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn format_inspection(dir: &Path, seen: &pipeline::inspect::Inspection) -> String {
    let strip_types = |cols: &[String]| -> Vec<String> {
        cols.iter()
            .map(|c| c.split(" (").next().unwrap_or(c).to_owned())
            .collect()
    };
    let mut out = format!("{}\n\nsummary\n", dir.display());
    out += &render::table(&strip_types(&seen.summary.columns), &seen.summary.rows);
    out += &format!(
        "\nrecords ({} of {} rows)\n",
        seen.records.rows.len(),
        seen.records.total_rows
    );
    out += &render::table(&strip_types(&seen.records.columns), &seen.records.rows);
    out += "\ntables\n";
    let rows: Vec<Vec<String>> = seen
        .tables
        .iter()
        .map(|t| {
            vec![
                t.file.clone(),
                t.rows.to_string(),
                t.columns.to_string(),
                t.bytes.to_string(),
            ]
        })
        .collect();
    let headers = ["file", "rows", "columns", "bytes"].map(String::from);
    out += &render::table(&headers, &rows);
    out
}

/// `huarong puzzles`: every registered family.
fn format_puzzles(examples: bool) -> String {
    let mut out = String::new();
    for d in registry::drivers() {
        out += &format!(
            "{}\n  {}\n  positions: {}\n",
            d.name(),
            d.about(),
            d.notation()
        );
        if d.judge().is_some() {
            out += &format!("  judge: huarong judge {} < input\n", d.name());
        }
        if examples {
            out += "\n";
            for line in d.example().lines() {
                out += &format!("    {line}\n");
            }
        }
        out += "\n";
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
    out += &row([
        "space", "metric", "states", "goals", "edges", "comps", "goalc", "solvable", "maxd",
        "at maxd",
    ]);
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
    out += &format!(
        "parquet tables ({}, {:.2} s):\n",
        report.export_outcome, report.export_seconds
    );
    for (name, size) in &report.tables {
        out += &format!("  {name:<40} {size:>12} bytes\n");
    }
    out
}
