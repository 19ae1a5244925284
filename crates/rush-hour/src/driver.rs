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

/// A census of one universe's classes, with the board it counts (for its summary row).
#[derive(Debug)]
struct BoardCensus {
    size: usize,
    max_walls: usize,
    census: Census,
}

impl RushUniverse {
    fn census(&self, census: Census) -> Box<dyn huarong_core::universe::Census> {
        Box::new(BoardCensus {
            size: self.size,
            max_walls: self.max_walls,
            census,
        })
    }
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

    fn paces(&self, work: &[u64]) -> Vec<u64> {
        self.universe().paces(work)
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
        progress: &(dyn Fn(usize, u64) + Sync),
    ) -> Result<Box<dyn huarong_core::universe::Census>, CensusError> {
        let census = self
            .universe()
            .census_of(units, progress)
            .map_err(refused)?;
        Ok(self.census(census))
    }

    fn empty(&self) -> Box<dyn huarong_core::universe::Census> {
        self.census(Census::default())
    }

    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn huarong_core::universe::Census>, CensusError> {
        let census = Census::decode(bytes)
            .ok_or_else(|| CensusError::Corrupt("not a Rush Hour census".into()))?;
        Ok(self.census(census))
    }
}

impl huarong_core::universe::Census for BoardCensus {
    fn encode(&self) -> Vec<u8> {
        self.census.encode()
    }

    fn units(&self) -> Vec<std::ops::Range<u64>> {
        self.census.units.clone()
    }

    fn merge(&mut self, other: Box<dyn huarong_core::universe::Census>) -> Result<(), CensusError> {
        let other = other
            .into_any()
            .downcast::<BoardCensus>()
            .ok()
            .filter(|o| (o.size, o.max_walls) == (self.size, self.max_walls))
            .ok_or_else(|| CensusError::Corrupt("another universe's census".into()))?;
        let mine = std::mem::take(&mut self.census);
        self.census = mine.merge(other.census).map_err(refused)?;
        Ok(())
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }

    fn summary(&self) -> Vec<(&'static str, u64)> {
        let c = &self.census;
        vec![
            ("size", self.size as u64),
            ("max_walls", self.max_walls as u64),
            ("classes", c.classes),
            ("layouts", c.layouts),
            ("clusters", c.clusters),
            ("solvable_clusters", c.solvable_clusters),
            ("minimal_puzzles", c.puzzles.len() as u64),
            ("max_moves", c.puzzles.first().map_or(0, |p| p.moves as u64)),
        ]
    }

    fn tables(&self) -> Vec<(String, Table)> {
        let c = &self.census;
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
        vec![
            ("rush_puzzles.parquet".into(), puzzles),
            ("rush_moves.parquet".into(), moves),
        ]
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

    fn instance(
        &self,
        request: &SolveRequest<'_>,
    ) -> Result<Box<dyn Instance>, huarong_core::InputError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::Universe as _;

    fn universe(max_walls: usize) -> RushUniverse {
        RushUniverse {
            size: 4,
            max_walls,
            chunk_layouts: 1 << 20,
            classes: OnceLock::new(),
        }
    }

    /// The census behind the seam: its bytes read back are itself, parts merge into the
    /// whole, a class counted twice or another universe's census is an error.
    #[test]
    fn censuses_merge_and_read_back_through_the_seam() {
        let u = universe(1);
        let units: Vec<usize> = (0..u.units()).collect();
        let whole = u.run(&units, &|_, _| {}).unwrap();
        let (even, odd): (Vec<usize>, Vec<usize>) = units.iter().partition(|&&k| k % 2 == 0);
        let parts = vec![
            u.run(&odd, &|_, _| {}).unwrap(),
            u.decode(&u.run(&even, &|_, _| {}).unwrap().encode())
                .unwrap(),
        ];
        let merged = u.merge(parts).unwrap();
        assert_eq!(merged.encode(), whole.encode());
        let all = 0..u.units() as u64;
        assert_eq!(merged.units(), vec![all.clone()]);
        assert_eq!(merged.summary(), whole.summary());
        // Every unit alone, in a scrambled order (merged in pairs, level by level): the whole.
        let mut order = units.clone();
        order.sort_by_key(|&k| (k * 7919) % units.len());
        let singles = order
            .iter()
            .map(|&k| u.run(&[k], &|_, _| {}).unwrap())
            .collect();
        let merged = u.merge(singles).unwrap();
        assert_eq!(merged.encode(), whole.encode());
        assert_eq!(merged.units(), vec![all]);
        // A unit in two parts is an error, wherever they are in the list.
        let parts = vec![
            u.run(&[0], &|_, _| {}).unwrap(),
            u.run(&[1, 2], &|_, _| {}).unwrap(),
            u.run(&[3], &|_, _| {}).unwrap(),
            u.run(&[2], &|_, _| {}).unwrap(),
        ];
        assert!(matches!(u.merge(parts), Err(CensusError::Overlap(r)) if r == (2..3)));
        let mut twice = u.run(&[0, 1], &|_, _| {}).unwrap();
        assert!(matches!(
            twice.merge(u.run(&[1], &|_, _| {}).unwrap()),
            Err(CensusError::Overlap(r)) if r == (1..2)
        ));
        let mut mine = u.empty();
        assert!(matches!(
            mine.merge(universe(0).empty()),
            Err(CensusError::Corrupt(_))
        ));
        assert!(matches!(
            u.decode(b"no census"),
            Err(CensusError::Corrupt(_))
        ));
    }
}
