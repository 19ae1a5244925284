//! Rush Hour in the pipeline: the `[rush-hour]` section and its universe (one census over
//! every class of the board, [`crate::Universe`]), whose result the export writes as
//! `rush_puzzles.parquet` (the database) and `rush_moves.parquet` (per-move totals).

use std::sync::OnceLock;

use huarong_core::driver::SectionError;
use huarong_core::driver::{Driver, Instance, Plan, Section, SectionInput, SolveRequest, Solver};
use huarong_core::universe::CensusError;
use huarong_core::{Fingerprint, Table};
use serde::Deserialize;

use crate::{Census, Universe};

/// The census algorithm's version: bump it whenever the same board and walls give other bytes.
pub const VERSION: u32 = 3;

/// The registry entry.
#[derive(Debug)]
pub struct RushHourDriver;

/// `[rush-hour]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default = "default_size")]
    size: usize,
    #[serde(default)]
    max_walls: usize,
    #[serde(default = "default_chunk")]
    chunk_layouts: u64,
}

/// About a minute of this machine's census on two cores: a killed run loses at most that.
fn default_chunk() -> u64 {
    1 << 31
}

fn default_size() -> usize {
    6
}

/// A validated `[rush-hour]` section.
#[derive(Debug)]
struct RushHourSection {
    size: usize,
    max_walls: usize,
    chunk_layouts: u64,
}

impl Driver for RushHourDriver {
    fn name(&self) -> &'static str {
        "rush-hour"
    }

    fn about(&self) -> &'static str {
        "Rush Hour's universe (Fogleman): every N x N layout, every cluster, the database of \
         minimal puzzles"
    }

    fn notation(&self) -> &'static str {
        "N*N characters row-major: `.` empty, `x` a wall, `A` the red car (row 2, exit on the \
         right), `B`, `C`, ... the other cars and trucks in reading order of their first cells"
    }

    fn example(&self) -> &'static str {
        "[rush-hour]\n\
         size = 5       # the board's side: 4, 5 or 6 (default 6)\n\
         max_walls = 1  # at most this many fixed 1x1 walls: 0, 1 or 2 (default 0)\n\
         chunk_layouts = 2147483648  # layouts of classes per chunk of the census, kept as \
         done (default 2^31)\n"
    }

    fn solver(&self) -> Option<&dyn Solver> {
        Some(&BoardSolver)
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let c: Config = section.deserialize()?;
        if !crate::board::SIZES.contains(&c.size) {
            return Err(format!(
                "[rush-hour] size = {}: the universe takes boards of 4, 5 or 6 cells a side",
                c.size
            )
            .into());
        }
        if c.max_walls > crate::universe::MAX_WALLS {
            return Err(format!(
                "[rush-hour] max_walls = {}: at most {} walls",
                c.max_walls,
                crate::universe::MAX_WALLS
            )
            .into());
        }
        if c.chunk_layouts == 0 {
            return Err("[rush-hour] chunk_layouts = 0: a chunk holds at least one layout".into());
        }
        Ok(Box::new(RushHourSection {
            size: c.size,
            max_walls: c.max_walls,
            chunk_layouts: c.chunk_layouts,
        }))
    }
}

impl Section for RushHourSection {
    fn spaces(&self) -> Plan {
        Plan {
            universes: vec![Box::new(RushUniverse {
                size: self.size,
                max_walls: self.max_walls,
                chunk_layouts: self.chunk_layouts,
                classes: OnceLock::new(),
            })],
            ..Plan::default()
        }
    }
}

/// The universe of one board size and wall limit; its classes are laid out when first needed.
#[derive(Debug)]
struct RushUniverse {
    size: usize,
    max_walls: usize,
    chunk_layouts: u64,
    classes: OnceLock<Universe>,
}

impl RushUniverse {
    fn universe(&self) -> &Universe {
        self.classes.get_or_init(|| {
            Universe::new(self.size, self.max_walls).expect("size and walls checked on load")
        })
    }
}

fn decode(bytes: &[u8]) -> Result<Census, CensusError> {
    Census::decode(bytes).ok_or_else(|| CensusError::Corrupt("not a Rush Hour census".into()))
}

fn refused(e: crate::UniverseError) -> CensusError {
    match e {
        crate::UniverseError::Overlap(units) => CensusError::Overlap(units),
        e => CensusError::Refused(e.to_string()),
    }
}

impl huarong_core::Universe for RushUniverse {
    fn id(&self) -> String {
        let n = self.size;
        format!("rush-hour-{n}x{n}-w{}", self.max_walls)
    }

    fn parameters(&self, key: &mut Fingerprint) {
        key.add_u64(VERSION as u64)
            .add_u64(self.size as u64)
            .add_u64(self.max_walls as u64);
    }

    fn units(&self) -> usize {
        self.universe().units()
    }

    fn work(&self) -> Vec<u64> {
        self.universe().work()
    }

    fn chunk_work(&self) -> u64 {
        self.chunk_layouts
    }

    fn unit_name(&self) -> &'static str {
        "class"
    }

    fn work_name(&self) -> &'static str {
        "layouts"
    }

    fn run(
        &self,
        units: &[usize],
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Vec<u8>, CensusError> {
        let census = self
            .universe()
            .census_of(units, progress)
            .map_err(refused)?;
        Ok(census.encode())
    }

    fn merge(&self, parts: Vec<Vec<u8>>) -> Result<Vec<u8>, CensusError> {
        let mut all = Census::default();
        for p in parts {
            all = all.merge(decode(&p)?).map_err(refused)?;
        }
        Ok(all.encode())
    }

    fn coverage(&self, result: &[u8]) -> Result<Vec<std::ops::Range<u64>>, CensusError> {
        Ok(decode(result)?.units)
    }

    fn summary(&self, result: &[u8]) -> Result<Vec<(&'static str, u64)>, CensusError> {
        let c = decode(result)?;
        Ok(vec![
            ("size", self.size as u64),
            ("max_walls", self.max_walls as u64),
            ("classes", c.classes),
            ("layouts", c.layouts),
            ("clusters", c.clusters),
            ("solvable_clusters", c.solvable_clusters),
            ("minimal_puzzles", c.puzzles.len() as u64),
            ("max_moves", c.puzzles.first().map_or(0, |p| p.moves as u64)),
        ])
    }

    fn tables(&self, result: &[u8]) -> Result<Vec<(String, Table)>, CensusError> {
        let c = decode(result)?;
        let puzzles = Table::new()
            .u32("moves", c.puzzles.iter().map(|p| p.moves).collect())
            .str("board", c.puzzles.iter().map(|p| p.board.clone()).collect())
            .u64(
                "cluster_size",
                c.puzzles.iter().map(|p| p.cluster_size).collect(),
            );
        let minimal = c.puzzles_by_moves();
        let rows = c.clusters_by_moves.len().max(c.layouts_by_distance.len());
        let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        let moves = Table::new()
            .u32("moves", (0..rows as u32).collect())
            .u64(
                "solvable_clusters",
                (0..rows).map(|i| at(&c.clusters_by_moves, i)).collect(),
            )
            .u64(
                "minimal_puzzles",
                (0..rows).map(|i| at(&minimal, i)).collect(),
            )
            .u64(
                "layouts",
                (0..rows).map(|i| at(&c.layouts_by_distance, i)).collect(),
            );
        Ok(vec![
            ("rush_puzzles.parquet".into(), puzzles),
            ("rush_moves.parquet".into(), moves),
        ])
    }
}

/// Reads a Rush Hour board in Fogleman's notation (`N·N` characters of `.`, `o`, `x` and
/// letters, with the red car `A`) and solves it as the sliding-block puzzle it is
/// ([`crate::Board::puzzle_file`]): a database row opens in `solve` and `serve`.
#[derive(Debug)]
pub struct BoardSolver;

/// Whether `text` is written in Fogleman's notation (it may still break a rule).
fn looks_like_a_board(text: &str) -> bool {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    crate::board::SIZES.clone().any(|n| n * n == chars.len())
        && chars.contains(&crate::board::RED)
        && chars
            .iter()
            .all(|&c| matches!(c, '.' | 'o' | 'x') || c.is_ascii_uppercase())
}

impl Solver for BoardSolver {
    fn accepts(&self, request: &SolveRequest<'_>) -> bool {
        request.puzzle.is_none() && request.position.is_some_and(looks_like_a_board)
    }

    fn reads(&self) -> &'static str {
        "a Rush Hour board in Fogleman's notation (4 × 4 to 6 × 6 cells in one line, '.' or 'o' \
         empty, 'x' a wall, A the red car, e.g. IBBx..I..LDDJAAL..J.KEEMFFK..MGGHHHM)"
    }

    fn instance(&self, request: &SolveRequest<'_>) -> Result<Box<dyn Instance>, String> {
        let text = request.position.unwrap_or_default();
        let board =
            crate::Board::parse(text).map_err(|e| format!("Rush Hour board {text:?}: {e}"))?;
        let file = board.puzzle_file(&format!("Rush Hour {board}"));
        // The file's name names its space: the board with `o` for empty cells.
        let path = format!("rush-hour-{}.toml", board.to_string().replace('.', "o"));
        sliding::driver::PuzzleFileSolver.instance(&SolveRequest {
            position: None,
            puzzle: Some((&path, &file)),
            goal: request.goal,
        })
    }
}
