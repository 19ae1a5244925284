//! Square Destroyer in the pipeline: the `[square-destroyer]` section (exhaustive spaces for
//! small grids, IDA*-answered samples for larger ones), answers read off the artifacts,
//! `answers.parquet`, and the judge.

use huarong_core::driver::SectionError;
use huarong_core::driver::{Driver, Judge, Plan, Section, SectionInput, SpaceSpec, SpaceView};
use huarong_core::table::Table;
use rayon::prelude::*;
use serde::Deserialize;

use crate::{Grid, MAX_N, SplitMix, SquareDestroyer, random_removal, search};

/// Largest grid whose every removal set gets a state (n = 4 would have 2^40).
pub const MAX_EXHAUSTIVE_N: usize = 3;

/// The registry entry.
#[derive(Debug)]
pub struct SquareDestroyerDriver;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    exhaustive: Vec<usize>,
    #[serde(default = "yes")]
    symmetric: bool,
    #[serde(default)]
    sampled: Vec<usize>,
    #[serde(default)]
    samples: usize,
    #[serde(default)]
    seed: u64,
}

fn yes() -> bool {
    true
}

/// A validated `[square-destroyer]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SquareSection {
    pub exhaustive: Vec<usize>,
    pub symmetric: bool,
    pub sampled: Vec<usize>,
    pub samples: usize,
    pub seed: u64,
}

impl Driver for SquareDestroyerDriver {
    fn name(&self) -> &'static str {
        "square-destroyer"
    }

    fn about(&self) -> &'static str {
        "Square Destroyer (UVa 1603): remove the fewest matches so that no square is left"
    }

    fn notation(&self) -> &'static str {
        "the judge's case line `k m1 … mk`: k removed matches, numbered as in UVa 1603"
    }

    fn example(&self) -> &'static str {
        "[square-destroyer]\n\
         exhaustive = [1, 2, 3]  # grids whose every removal set gets a state (n <= 3)\n\
         symmetric = true        # one state per orbit of the square's 8 symmetries\n\
         sampled = [4, 5]        # grids answered by IDA* for the empty grid and samples\n\
         samples = 20            # random removal sets per sampled grid\n\
         seed = 1603\n"
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let q: Config = section.deserialize()?;
        for &n in &q.exhaustive {
            if !(1..=MAX_EXHAUSTIVE_N).contains(&n) {
                return Err(format!(
                    "[square-destroyer] exhaustive: grid size {n} is outside 1..={MAX_EXHAUSTIVE_N} \
                     (n = 4 has 2^40 removal sets; list it under `sampled`)"
                ).into());
            }
        }
        for &n in &q.sampled {
            if !(1..=MAX_N).contains(&n) {
                return Err(format!(
                    "[square-destroyer] sampled: grid size {n} is outside 1..={MAX_N}"
                )
                .into());
            }
        }
        huarong_core::driver::no_repeats("[square-destroyer] exhaustive", &q.exhaustive)?;
        huarong_core::driver::no_repeats("[square-destroyer] sampled", &q.sampled)?;
        if q.exhaustive.is_empty() && q.sampled.is_empty() {
            return Err(
                "[square-destroyer] needs at least one grid (exhaustive or sampled)".into(),
            );
        }
        Ok(Box::new(SquareSection {
            exhaustive: q.exhaustive,
            symmetric: q.symmetric,
            sampled: q.sampled,
            samples: q.samples,
            seed: q.seed,
        }))
    }

    fn judge(&self) -> Option<Judge> {
        Some(|input| crate::judge::run(input).map_err(|e| e.to_string().into()))
    }
}

impl Section for SquareSection {
    fn spaces(&self) -> Plan {
        let spaces = self
            .exhaustive
            .iter()
            .map(|&n| {
                let puzzle = SquareDestroyer::new(n, self.symmetric);
                let full = puzzle.state_of(puzzle.grid().full());
                let mut s = SpaceSpec::new(Box::new(puzzle), vec![0]);
                s.named = vec![("full-grid".into(), full)];
                // Acyclic: every state is its own strongly connected component.
                s.components_table = false;
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

    /// Removals needed for the full grid.
    fn answer(&self, space: &SpaceView<'_>, metric: usize) -> Option<u64> {
        let n = self.exhaustive[space.index];
        let puzzle = SquareDestroyer::new(n, self.symmetric);
        let i = space.index_of(puzzle.state_of(puzzle.grid().full()))?;
        space.metrics[metric].distance(i).map(u64::from)
    }

    /// `answers.parquet`: the searched cases, with the exhaustive tables' answer where a table
    /// covers the grid.
    fn tables(&self, spaces: &[SpaceView<'_>]) -> Vec<(String, Table)> {
        let answers = self.answers();
        let from_table: Vec<Option<u32>> = answers
            .iter()
            .map(|a| {
                let k = self.exhaustive.iter().position(|&n| n == a.n)?;
                let view = &spaces[k];
                let puzzle = SquareDestroyer::new(a.n, self.symmetric);
                let i = view.index_of(puzzle.state_of(a.present))?;
                view.metrics[0].distance(i)
            })
            .collect();
        let table = Table::new()
            .u32("n", answers.iter().map(|a| a.n as u32).collect())
            .str(
                "case",
                answers
                    .iter()
                    .map(|a| Grid::new(a.n).render(a.present))
                    .collect(),
            )
            .u32("answer", answers.iter().map(|a| a.answer).collect())
            .str("method", vec!["ida*".to_owned(); answers.len()])
            .u64("search_nodes", answers.iter().map(|a| a.nodes).collect())
            .opt_u32("table_answer", from_table);
        vec![("answers.parquet".to_owned(), table)]
    }
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

impl SquareSection {
    /// The empty grid and `samples` seeded random removal sets per sampled grid, answered by
    /// IDA*.
    pub fn answers(&self) -> Vec<SquareAnswer> {
        let mut rng = SplitMix(self.seed);
        let mut cases = Vec::new();
        for &n in &self.sampled {
            let grid = Grid::new(n);
            cases.push((n, grid.full()));
            for _ in 0..self.samples {
                let percent = 1 + rng.next_u64() % 40;
                cases.push((n, random_removal(&grid, &mut rng, percent)));
            }
        }
        cases
            .into_par_iter()
            .map(|(n, present)| {
                let grid = Grid::new(n);
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
}
