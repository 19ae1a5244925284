//! `huarong solve`: an optimal solution, from distance tables or a search, printed as a path,
//! JSON, boards or an SVG. Also [`What`], the position `solve` and `render` are about.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use huarong_core::ErrorKind;
use huarong_core::driver::{Instance, SolveRequest};

use super::{emit, table_roots};
use crate::report::warn;

/// Which position `solve` and `render` are about.
#[derive(Debug, clap::Args)]
pub struct What {
    /// A Huarong Dao layout, e.g. VCCV/VCCV/VHHV/VSSV/S..S (labeled layouts give labeled
    /// paths); with --puzzle, a position of that puzzle instead of its board.
    layout: Option<String>,
    /// A sliding-block puzzle file (puzzles/*.toml).
    #[arg(long, value_name = "FILE")]
    puzzle: Option<PathBuf>,
    /// Another goal, in the family's notation: for a layout, move Cao Cao's top-left cell to
    /// ROW,COL (0-based) instead of the exit at 3,1.
    #[arg(long, value_name = "ROW,COL")]
    goal: Option<String>,
}

impl What {
    /// The instance the request names; `Err(exit status 2)` after saying why it is invalid.
    pub fn instance(&self) -> anyhow::Result<Result<Box<dyn Instance>, ExitCode>> {
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
            goal: self.goal.as_deref(),
        };
        Ok(
            pipeline::solve::instance(registry::families(), &request).map_err(|e| {
                warn(&format!("error: {e}"));
                crate::exit_code(Some(e.kind()))
            }),
        )
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    what: What,
    /// Move metric, one of the position's family (Huarong Dao and puzzle files: step, straight,
    /// piece). Default: piece where the family has it, else its first.
    #[arg(long, value_name = "METRIC")]
    metric: Option<String>,
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
    /// Solve every position of this file (one per line, rows joined by '/'; '#' starts a
    /// comment) of the --puzzle, several at once: a line per position, in file order; with
    /// --json one object per line: {"position", "moves", "path", "nodes" (expanded),
    /// "generated", "seconds", "source"}.
    #[arg(long, value_name = "FILE", requires = "puzzle", conflicts_with_all = ["layout", "svg"])]
    positions: Option<PathBuf>,
    /// Also draw the solution into this SVG file (a grid of numbered frames).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Print the boards (numbered strips, the moved piece highlighted) even when stdout is
    /// not a terminal; on a terminal they are the default, in colour.
    #[arg(long)]
    boards: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let roots = if args.cold {
        Vec::new()
    } else {
        table_roots(args.tables.clone())?
    };
    if let Some(file) = &args.positions {
        return positions(&args, file, roots);
    }
    let instance = match args.what.instance()? {
        Ok(i) => i,
        Err(code) => return Ok(code),
    };
    let atlas = pipeline::play::Atlas::searching(registry::families(), roots, args.max_states);
    let solution = match atlas.solve_instance(instance.as_ref(), args.metric.as_deref()) {
        Ok(s) => s,
        Err(e) if e.kind() == ErrorKind::GaveUp => {
            warn(&format!("{}: {e} (raise --max-states)", instance.start()));
            return Ok(crate::exit_code(Some(e.kind())));
        }
        Err(e) => return Err(e.into()),
    };
    let metric = solution.metric.as_str();
    let Some(path) = &solution.path else {
        warn(&format!(
            "unsolvable: {} cannot reach the goal in the {metric} metric",
            instance.start()
        ));
        return Ok(ExitCode::from(1));
    };
    let moves = path.layouts.len() - 1;
    let frames = render::frames(&path.pictures);
    if let Some(file) = &args.svg {
        let title = format!("{} — {moves} moves ({metric} metric)", instance.start());
        let doc = render::svg::solution(&frames, 12, &title);
        std::fs::write(file, doc).with_context(|| format!("writing {}", file.display()))?;
    }
    let text = if args.json {
        json(instance.as_ref(), metric, &solution)
    } else {
        text(
            metric,
            path,
            &frames,
            args.boards,
            &super::other_names(instance.as_ref()),
        )
    };
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `{"layout" or "puzzle", "metric", "moves", "path", "source"}` on one line.
fn json(instance: &dyn Instance, metric: &str, solution: &pipeline::solve::Solution) -> String {
    let path = solution.path.as_ref().expect("solved");
    let (key, name) = instance.describe();
    let mut v = serde_json::Map::new();
    v.insert(key.into(), name.into());
    for (code, value) in instance.codes() {
        v.insert(code.into(), value.into());
    }
    v.insert("metric".into(), metric.into());
    v.insert("moves".into(), (path.layouts.len() - 1).into());
    let source = match solution.source {
        pipeline::solve::Source::Tables(_) => "tables",
        pipeline::solve::Source::Explored(_) | pipeline::solve::Source::Searched => "search",
        pipeline::solve::Source::Patterns { .. } => "patterns",
    };
    v.insert("source".into(), source.into());
    v.insert("path".into(), path.layouts.clone().into());
    format!("{}\n", serde_json::Value::Object(v))
}

/// The boards on a terminal (or with `--boards`), else the move count and the path.
fn text(
    metric: &str,
    path: &huarong_core::driver::SolvedPath,
    frames: &[render::Frame],
    boards: bool,
    names: &str,
) -> String {
    use std::io::IsTerminal;
    let moves = path.layouts.len() - 1;
    let tty = std::io::stdout().is_terminal();
    if !tty && !boards {
        return format!("{moves}\n{}\n", path.layouts.join("\n"));
    }
    let style = render::text::Style {
        colour: tty && std::env::var_os("NO_COLOR").is_none(),
    };
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(100);
    format!(
        "{moves} moves ({metric} metric{names})\n\n{}",
        render::text::strips(frames, style, width)
    )
}

/// `--positions FILE`: every position of the file solved (as many at once as there are cores),
/// one line each in file order. Exit status 0 when all are solved, 1 when one is unsolvable or
/// its search gave up, 2 when a line is not a position of the puzzle (nothing is solved then).
fn positions(args: &Args, file: &std::path::Path, roots: Vec<PathBuf>) -> anyhow::Result<ExitCode> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading the positions file {}", file.display()))?;
    let puzzle = args.what.puzzle.as_ref().expect("clap requires --puzzle");
    let puzzle_text = std::fs::read_to_string(puzzle)
        .with_context(|| format!("reading the puzzle file {}", puzzle.display()))?;
    let puzzle_path = puzzle.to_string_lossy().into_owned();
    let request = |position: &str| {
        pipeline::solve::instance(
            registry::families(),
            &SolveRequest {
                position: Some(position),
                puzzle: Some((&puzzle_path, &puzzle_text)),
                goal: args.what.goal.as_deref(),
            },
        )
    };
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    // Every line is read before anything is solved.
    for (line, position) in &lines {
        if let Err(e) = request(position) {
            warn(&format!("error: {}:{line}: {e}", file.display()));
            return Ok(crate::exit_code(Some(e.kind())));
        }
    }
    let atlas = pipeline::play::Atlas::searching(registry::families(), roots, args.max_states);
    let next = AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<(String, bool)>>> =
        lines.iter().map(|_| Default::default()).collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(lines.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, position)) = lines.get(k) else {
                        break;
                    };
                    let instance = request(position).expect("every line was read above");
                    let t = std::time::Instant::now();
                    let solved = atlas.solve_instance(instance.as_ref(), args.metric.as_deref());
                    let seconds = t.elapsed().as_secs_f64();
                    let out = position_line(args.json, position, solved, seconds);
                    *results[k].lock().expect("no worker panics holding it") = Some(out);
                }
            });
        }
    });
    let mut out = String::new();
    let mut all = true;
    for r in results {
        let (line, ok) = r
            .into_inner()
            .expect("no worker panicked")
            .expect("every position was solved");
        out += &line;
        all &= ok;
    }
    emit(&out)?;
    Ok(if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One position's line of `--positions`, and whether it was solved.
fn position_line(
    json: bool,
    position: &str,
    solved: Result<pipeline::solve::Solution, pipeline::solve::Error>,
    seconds: f64,
) -> (String, bool) {
    let (path, nodes, source, error) = match &solved {
        Ok(s) => {
            let (nodes, source) = match &s.source {
                pipeline::solve::Source::Patterns { nodes, .. } => (Some(*nodes), "patterns"),
                pipeline::solve::Source::Tables(_) => (None, "tables"),
                _ => (None, "search"),
            };
            (s.path.as_ref(), nodes, source, None)
        }
        Err(e) => (None, None, "search", Some(e.to_string())),
    };
    let moves = path.map(|p| p.layouts.len() - 1);
    let ok = moves.is_some();
    if json {
        let mut v = serde_json::Map::new();
        v.insert("position".into(), position.into());
        v.insert("moves".into(), moves.into());
        v.insert(
            "path".into(),
            path.map(|p| p.layouts.clone()).unwrap_or_default().into(),
        );
        v.insert("nodes".into(), nodes.map(|n| n.expanded).into());
        v.insert("generated".into(), nodes.map(|n| n.generated).into());
        v.insert("seconds".into(), seconds.into());
        v.insert("source".into(), source.into());
        if let Some(e) = error {
            v.insert("error".into(), e.into());
        }
        return (format!("{}\n", serde_json::Value::Object(v)), ok);
    }
    let what = match (moves, error) {
        (Some(m), _) => format!("{m} moves"),
        (None, Some(e)) => e,
        (None, None) => "unsolvable".into(),
    };
    let nodes = nodes.map_or(String::new(), |n| {
        format!(
            "  {} nodes ({} generated, {:.1} M/s)",
            n.expanded,
            n.generated,
            n.generated as f64 / seconds.max(1e-9) / 1e6
        )
    });
    (format!("{position}  {what}{nodes}  {seconds:.3} s\n"), ok)
}
