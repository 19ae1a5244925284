//! OmniGravity in the pipeline: the `[omnigravity]` section (named boards, one space each), the
//! judge's count read off the artifacts, and the judge.

use huarong_core::driver::SectionError;
use huarong_core::driver::{Driver, Judge, Plan, Section, SectionInput, SpaceSpec, SpaceView};
use rayon::prelude::*;
use serde::Deserialize;

use crate::{Board, OmniGravity};

/// The registry entry.
#[derive(Debug)]
pub struct OmniGravityDriver;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    boards: Vec<BoardConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardConfig {
    name: String,
    board: String,
}

/// A validated `[omnigravity]` section: named boards.
#[derive(Debug)]
struct OmniGravitySection {
    boards: Vec<(String, Board)>,
}

impl Driver for OmniGravityDriver {
    fn name(&self) -> &'static str {
        "omnigravity"
    }

    fn about(&self) -> &'static str {
        "OmniGravity (UVa 12282): four 2x2 blocks fall together in one of four directions"
    }

    fn notation(&self) -> &'static str {
        "8 rows of 8 characters joined by '/': A B C D the blocks, # an obstacle, . empty"
    }

    fn example(&self) -> &'static str {
        "[[omnigravity.boards]]  # one state space per board\n\
         name = \"sample-1\"      # folder name: letters, digits, '-' and '_'\n\
         board = \"....AA../....AA#./...#..../.CCBB.../.CCBB#../#...##../.#DD#.../..DD.##.\"\n"
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let c: Config = section.deserialize()?;
        if c.boards.is_empty() {
            return Err("[omnigravity] needs at least one board".into());
        }
        let mut boards: Vec<(String, Board)> = Vec::new();
        for (i, b) in c.boards.into_iter().enumerate() {
            let at = format!("[omnigravity] board {} ({:?})", i + 1, b.name);
            let ok_name = !b.name.is_empty()
                && b.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok_name {
                return Err(format!(
                    "{at}: a board name is a folder name: letters, digits, '-' and '_'"
                )
                .into());
            }
            if boards.iter().any(|(n, _)| *n == b.name) {
                return Err(format!("{at}: the name is used twice").into());
            }
            let board = Board::parse(&b.board).map_err(|e| format!("{at}: {e}"))?;
            boards.push((b.name, board));
        }
        Ok(Box::new(OmniGravitySection { boards }))
    }

    fn judge(&self) -> Option<Judge> {
        Some(|input| crate::judge::run(input).map_err(|e| e.to_string().into()))
    }
}

impl Section for OmniGravitySection {
    fn spaces(&self) -> Plan {
        let spaces = self
            .boards
            .iter()
            .map(|(name, board)| {
                let mut s =
                    SpaceSpec::new(Box::new(OmniGravity::new(name.clone(), *board)), vec![0]);
                s.named = vec![("start".into(), board.start())];
                s
            })
            .collect();
        Plan {
            spaces,
            notes: Vec::new(),
            patterns: Vec::new(),
            universes: Vec::new(),
        }
    }

    /// The judge's count: every explored state but the start was produced by a gravity; the
    /// start counts if an arc leads back to it or some gravity leaves it in place (the graph
    /// has no self-loops).
    fn answer(&self, space: &SpaceView<'_>, metric: usize) -> Option<u64> {
        let (name, board) = &self.boards[space.index];
        let start = space.index_of(board.start())?;
        // OmniGravity's graph is directed, so always stored.
        let entered = space.metrics[metric]
            .targets?
            .par_iter()
            .any(|&t| t == start);
        let counted =
            entered || OmniGravity::new(name.clone(), *board).is_fixed_point(board.start());
        Some(space.codes.len() as u64 - 1 + counted as u64)
    }
}
