//! The sibling puzzles — Solitaire, OmniGravity, Square Destroyer — through the same stages as
//! Huarong Dao: one state space each (per board, per grid), the puzzle's own answer read from
//! the stage artifacts, and the Parquet tables.

use std::path::Path;

use export::Table;
use huarong_core::{Fingerprint, Outcome, Puzzle, UNREACHABLE};
use omnigravity::OmniGravity;
use rayon::prelude::*;
use solitaire::Solitaire;
use square_destroyer::{SplitMix, SquareDestroyer, search};

use crate::config::{OmniGravityConfig, PuzzleConfig, SolitaireConfig, SquareDestroyerConfig};
use crate::run::{self, RunOptions, SpaceReport, run_space};
use crate::tables::{self, OpenSpace, Record, StateColumns};
use crate::{FARTHEST_CAP, PipelineError, manifest};

/// One space of a sibling puzzle after its stages ran.
struct Space {
    puzzle: Box<dyn Puzzle>,
    report: SpaceReport,
    /// Named positions for `records.parquet`.
    named: Vec<(String, u64)>,
    /// Whether `components-<space>.parquet` is worth writing (not for an acyclic graph, whose
    /// every state is its own strongly connected component).
    components_table: bool,
}

/// The spaces of a sibling puzzle's pipeline after their stages ran.
#[derive(Debug)]
pub(crate) struct Spaces {
    spaces: Vec<Space>,
    square: Option<SquareDestroyerConfig>,
}

impl std::fmt::Debug for Space {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Space")
            .field("space", &self.report.space_id)
            .finish_non_exhaustive()
    }
}

impl Spaces {
    pub(crate) fn reports(&self) -> Vec<SpaceReport> {
        self.spaces.iter().map(|s| s.report.clone()).collect()
    }
}

/// Runs the stages of every space of a sibling puzzle's pipeline and reads off the answers.
pub(crate) fn run_spaces(
    config: &PuzzleConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Spaces, PipelineError> {
    Ok(match config {
        PuzzleConfig::Solitaire(c) => Spaces {
            spaces: vec![solitaire_space(c, output, opts)?],
            square: None,
        },
        PuzzleConfig::OmniGravity(c) => Spaces {
            spaces: omnigravity_spaces(c, output, opts)?,
            square: None,
        },
        PuzzleConfig::SquareDestroyer(c) => Spaces {
            spaces: square_destroyer_spaces(c, output, opts)?,
            square: Some(c.clone()),
        },
        PuzzleConfig::Huarong(_) => unreachable!("Huarong Dao has its own pipeline"),
    })
}

/// Writes the Parquet tables (or reuses a verified export with the same inputs).
pub(crate) fn export(
    spaces: &Spaces,
    output: &Path,
    opts: RunOptions,
) -> Result<(Vec<(String, u64)>, Outcome), PipelineError> {
    let mut fp = Fingerprint::new("export-sibling", 1);
    for s in &spaces.spaces {
        fp.add_str(&s.report.space_id)
            .add_str(&s.puzzle.parameters())
            .add_u64(manifest::space_checksum(&s.report)?);
    }
    if let Some(c) = &spaces.square {
        fp.add_str(&format!(
            "{:?}",
            (&c.sampled, c.samples, c.seed, c.symmetric)
        ));
    }
    let fingerprint = fp.finish();
    let manifest_path = output.join(manifest::FILE);
    let outcome = if opts.force {
        Outcome::Built
    } else {
        match manifest::verify(&manifest_path, fingerprint) {
            Ok(tables) => return Ok((tables, Outcome::Reused)),
            Err(manifest::Unusable::Missing) => Outcome::Built,
            Err(manifest::Unusable::Invalid(why)) => Outcome::Rebuilt(why),
        }
    };
    let tables = write_tables(&spaces.spaces, spaces.square.as_ref(), output, fingerprint)?;
    Ok((tables, outcome))
}

/// A follower process of a multi-process timely run: the stages of the undirected spaces (the
/// directed ones stay on the leader), no answers, no export.
pub(crate) fn run_follower(
    config: &PuzzleConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Vec<SpaceReport>, PipelineError> {
    match config {
        PuzzleConfig::Solitaire(c) => {
            let puzzle = Solitaire::new(c.start, c.goal);
            Ok(vec![run_space(
                &puzzle,
                &output.join(puzzle.space_id()),
                &[0],
                opts,
            )?])
        }
        _ => Ok(Vec::new()),
    }
}

fn solitaire_space(
    c: &SolitaireConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Space, PipelineError> {
    let puzzle = Solitaire::new(c.start, c.goal);
    let mut report = run_space(&puzzle, &output.join(puzzle.space_id()), &[0], opts)?;
    // The answer: moves from the start to the goal.
    let open = OpenSpace::open(&puzzle, &report.dir, &[0])?;
    let goal = open
        .states
        .lookup(c.goal)
        .expect("every position is a state");
    let d = open.metrics[0].distances.values()[goal as usize];
    report.answer = (d != UNREACHABLE).then_some(d as u64);
    Ok(Space {
        named: vec![("start".into(), c.start), ("goal".into(), c.goal)],
        puzzle: Box::new(puzzle),
        report,
        components_table: true,
    })
}

fn omnigravity_spaces(
    c: &OmniGravityConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Vec<Space>, PipelineError> {
    let mut out = Vec::new();
    for (name, board) in &c.boards {
        let puzzle = OmniGravity::new(name.clone(), *board);
        let mut report = run_space(&puzzle, &output.join(name), &[0], opts)?;
        report.answer = Some(omnigravity_answer(&puzzle, &report)?);
        out.push(Space {
            named: vec![("start".into(), board.start())],
            puzzle: Box::new(puzzle),
            report,
            components_table: true,
        });
    }
    Ok(out)
}

/// The judge's count from the artifacts: every explored state but the start was produced by a
/// gravity; the start counts if an arc leads back to it or some gravity leaves it in place (the
/// graph has no self-loops).
pub fn omnigravity_answer(
    puzzle: &OmniGravity,
    report: &SpaceReport,
) -> Result<u64, PipelineError> {
    let open = OpenSpace::open(puzzle, &report.dir, &[0])?;
    let start = open
        .states
        .lookup(puzzle.board().start())
        .expect("the start is explored");
    let entered = open.metrics[0]
        .csr
        .targets()
        .par_iter()
        .any(|&t| t == start);
    let counted = entered || puzzle.is_fixed_point(puzzle.board().start());
    Ok(open.states.len() as u64 - 1 + counted as u64)
}

fn square_destroyer_spaces(
    c: &SquareDestroyerConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Vec<Space>, PipelineError> {
    let mut out = Vec::new();
    for &n in &c.exhaustive {
        let puzzle = SquareDestroyer::new(n, c.symmetric);
        let mut report = run_space(&puzzle, &output.join(puzzle.space_id()), &[0], opts)?;
        let full = puzzle.state_of(puzzle.grid().full());
        let open = OpenSpace::open(&puzzle, &report.dir, &[0])?;
        let i = open.states.lookup(full).expect("the full grid is a state");
        let d = open.metrics[0].distances.values()[i as usize];
        report.answer = (d != UNREACHABLE).then_some(d as u64);
        out.push(Space {
            named: vec![("full-grid".into(), full)],
            puzzle: Box::new(puzzle),
            report,
            components_table: false,
        });
    }
    Ok(out)
}

fn write_tables(
    spaces: &[Space],
    square: Option<&SquareDestroyerConfig>,
    output: &Path,
    fingerprint: u64,
) -> Result<Vec<(String, u64)>, PipelineError> {
    let mut tables = Vec::new();
    let mut records = Vec::new();
    let (mut dist_hist, mut deg_hist) = (Vec::new(), Vec::new());
    for s in spaces {
        let puzzle = s.puzzle.as_ref();
        let metrics: Vec<usize> = (0..puzzle.metrics().len()).collect();
        let open = OpenSpace::open(puzzle, &s.report.dir, &metrics)?;
        let goals = run::goal_mask(puzzle, &open.states);
        let name = format!("states-{}.parquet", s.report.space_id);
        let size = tables::write_states(
            puzzle,
            &open,
            &goals,
            StateColumns::Layout,
            &output.join(&name),
        )?;
        tables.push((name, size));
        if s.components_table {
            let name = format!("components-{}.parquet", s.report.space_id);
            let size = tables::write_components(puzzle, &open, &goals, &output.join(&name))?;
            tables.push((name, size));
        }
        let (d, g) = tables::histograms(&s.report);
        dist_hist.push(d);
        deg_hist.push(g);
        for m in &open.metrics {
            let record = |name: &str, i: u32| {
                let d = m.distances.values()[i as usize];
                Record {
                    name: name.to_owned(),
                    space: s.report.space_id.clone(),
                    layout: puzzle.render(open.states.codes()[i as usize]),
                    piece_set: String::new(),
                    metric: m.name.clone(),
                    moves: (d != UNREACHABLE).then_some(d as u32),
                    component_size: m.components.sizes()[m.components.ids()[i as usize] as usize],
                }
            };
            for (name, code) in &s.named {
                let i = open
                    .states
                    .lookup(*code)
                    .expect("named positions are states");
                records.push(record(name, i));
            }
            for i in run::farthest(m.distances.values())
                .into_iter()
                .take(FARTHEST_CAP)
            {
                records.push(record("farthest", i));
            }
        }
    }
    for (name, tabs) in [
        ("distance_histogram.parquet", dist_hist),
        ("degree_histogram.parquet", deg_hist),
    ] {
        let size = tables::write_tables(tabs, &output.join(name))?;
        tables.push((name.to_owned(), size));
    }
    let reports: Vec<SpaceReport> = spaces.iter().map(|s| s.report.clone()).collect();
    let size = tables::write_summary(&reports, &output.join("summary.parquet"))?;
    tables.push(("summary.parquet".to_owned(), size));
    let size = tables::write_records(&records, &output.join("records.parquet"))?;
    tables.push(("records.parquet".to_owned(), size));
    if let Some(c) = square {
        let table = answers_table(c, spaces)?;
        let size = tables::write_tables(vec![table], &output.join("answers.parquet"))?;
        tables.push(("answers.parquet".to_owned(), size));
    }
    manifest::write(&output.join(manifest::FILE), fingerprint, output, &tables)?;
    Ok(tables)
}

/// One searched Square Destroyer case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SquareAnswer {
    pub n: usize,
    /// Remaining matches.
    pub present: u64,
    pub answer: u32,
    pub nodes: u64,
}

/// The empty grid and `samples` seeded random removal sets per sampled grid, answered by IDA*.
pub fn square_answers(c: &SquareDestroyerConfig) -> Vec<SquareAnswer> {
    let mut rng = SplitMix(c.seed);
    let mut cases = Vec::new();
    for &n in &c.sampled {
        let grid = square_destroyer::Grid::new(n);
        cases.push((n, grid.full()));
        for _ in 0..c.samples {
            let percent = 1 + rng.next_u64() % 40;
            cases.push((
                n,
                square_destroyer::random_removal(&grid, &mut rng, percent),
            ));
        }
    }
    cases
        .into_par_iter()
        .map(|(n, present)| {
            let grid = square_destroyer::Grid::new(n);
            let (answer, stats) = search::solve_with_stats(&grid, present);
            SquareAnswer {
                n,
                present,
                answer,
                nodes: stats.nodes,
            }
        })
        .collect()
}

/// `answers.parquet`: the searched cases, with the exhaustive tables' answer where a table
/// covers the grid.
fn answers_table(c: &SquareDestroyerConfig, spaces: &[Space]) -> Result<Table, PipelineError> {
    let answers = square_answers(c);
    let mut opened = Vec::new();
    for s in spaces {
        let n = s.report.space_id[1..]
            .parse::<usize>()
            .expect("space ids are n<N>");
        let puzzle = SquareDestroyer::new(n, c.symmetric);
        let open = OpenSpace::open(&puzzle, &s.report.dir, &[0])?;
        opened.push((n, puzzle, open));
    }
    let from_table: Vec<Option<u32>> = answers
        .iter()
        .map(|a| {
            let (_, puzzle, open) = opened.iter().find(|(n, _, _)| *n == a.n)?;
            let i = open
                .states
                .lookup(puzzle.state_of(a.present))
                .expect("every removal set is a state");
            let d = open.metrics[0].distances.values()[i as usize];
            (d != UNREACHABLE).then_some(d as u32)
        })
        .collect();
    Ok(Table::new()
        .u32("n", answers.iter().map(|a| a.n as u32).collect())
        .str(
            "case",
            answers
                .iter()
                .map(|a| square_destroyer::Grid::new(a.n).render(a.present))
                .collect(),
        )
        .u32("answer", answers.iter().map(|a| a.answer).collect())
        .str("method", vec!["ida*".to_owned(); answers.len()])
        .u64("search_nodes", answers.iter().map(|a| a.nodes).collect())
        .opt_u32("table_answer", from_table))
}
