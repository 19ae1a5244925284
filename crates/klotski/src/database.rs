//! The Klotski database: for every solvable cluster (a connected component of a piece set's
//! move graph that holds a goal) its **puzzle** — its position farthest from the goals, ties
//! broken by the smallest CommonCode — kept when it is **minimal**: removing any one piece but
//! Cao Cao gives a position (of the piece set with that piece fewer) strictly closer to a goal.
//!
//! Read off the stages' own tables of every piece set at once: per cluster its largest distance
//! and the smallest CommonCode at it, then each piece of the puzzle removed, the smaller
//! position ranked in its piece set and its distance looked up. No search.

use std::collections::HashMap;

use huarong_core::UNREACHABLE;
use huarong_core::driver::SpaceView;

use crate::{Board, Kind, PieceSet};

/// One solvable cluster's puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Puzzle {
    /// The metric's index in the spaces' metrics.
    pub metric: usize,
    pub set: PieceSet,
    /// Fewest moves from the puzzle to a goal (its cluster's largest distance).
    pub moves: u32,
    /// The puzzle's compact code ([`Board::code`]).
    pub code: u64,
    pub cluster_size: u64,
    pub goals_in_cluster: u64,
    /// Every piece matters: each removal brings it strictly closer to a goal.
    pub minimal: bool,
}

/// Every piece set's unlabeled space, with the sets one piece fewer that removals reach.
#[derive(Debug)]
pub struct Spaces<'s, 'a> {
    by_set: HashMap<PieceSet, &'s SpaceView<'a>>,
}

/// The piece sets of `sets` that removing one piece from another of them leads to, missing
/// from `sets` (empty: the database can be read off them).
pub fn missing_below(sets: &[PieceSet]) -> Vec<PieceSet> {
    let mut missing = Vec::new();
    for s in sets {
        for smaller in [
            s.h.checked_sub(1).map(|h| PieceSet { h, ..*s }),
            s.v.checked_sub(1).map(|v| PieceSet { v, ..*s }),
            s.s.checked_sub(1).map(|x| PieceSet { s: x, ..*s }),
        ]
        .into_iter()
        .flatten()
        {
            if !sets.contains(&smaller) && !missing.contains(&smaller) {
                missing.push(smaller);
            }
        }
    }
    missing.sort();
    missing
}

impl<'s, 'a> Spaces<'s, 'a> {
    /// The unlabeled spaces, keyed by piece set; `set_of` names a space's piece set.
    pub fn new(spaces: impl IntoIterator<Item = (&'s SpaceView<'a>, PieceSet)>) -> Spaces<'s, 'a> {
        Spaces {
            by_set: spaces.into_iter().map(|(v, s)| (s, v)).collect(),
        }
    }

    /// The distance of `board` (of its piece set) in metric `metric`, if its space is here.
    fn distance(&self, board: &Board, metric: usize) -> Option<u32> {
        let space = self.by_set.get(&board.piece_set())?;
        let index = space.index_of(board.code())?;
        space.metrics[metric].distance(index)
    }

    /// The puzzles of `set`'s solvable clusters in metric `metric`, most moves first, then by
    /// CommonCode.
    pub fn puzzles(&self, set: PieceSet, metric: usize) -> Vec<Puzzle> {
        let space = self.by_set[&set];
        let m = &space.metrics[metric];
        let clusters = m.component_sizes.len();
        // Per cluster: the largest distance (u32::MAX: unsolvable) and the goals.
        let mut farthest = vec![u32::MAX; clusters];
        let mut goals = vec![0u64; clusters];
        for (&c, &d) in m.components.iter().zip(m.distances) {
            if d == UNREACHABLE {
                continue;
            }
            let f = &mut farthest[c as usize];
            if *f == u32::MAX || d as u32 > *f {
                *f = d as u32;
            }
            goals[c as usize] += (d == 0) as u64;
        }
        // The smallest CommonCode at that distance (the position's compact code with it).
        let mut best = vec![(u64::MAX, 0u64); clusters];
        for (i, (&c, &d)) in m.components.iter().zip(m.distances).enumerate() {
            if d != UNREACHABLE && d as u32 == farthest[c as usize] {
                let code = space.codes.get(i);
                let common = crate::codes::from_compact(code);
                let b = &mut best[c as usize];
                if common < b.0 {
                    *b = (common, code);
                }
            }
        }
        let mut out: Vec<(u64, Puzzle)> = (0..clusters)
            .filter(|&c| farthest[c] != u32::MAX)
            .map(|c| {
                let (common, code) = best[c];
                let moves = farthest[c];
                let board = Board::from_code(code, set).expect("a code of the space");
                (
                    common,
                    Puzzle {
                        metric,
                        set,
                        moves,
                        code,
                        cluster_size: m.component_sizes[c],
                        goals_in_cluster: goals[c],
                        minimal: self.minimal(&board, moves, metric),
                    },
                )
            })
            .collect();
        out.sort_by_key(|(common, p)| (std::cmp::Reverse(p.moves), *common));
        out.into_iter().map(|(_, p)| p).collect()
    }

    /// Whether removing each piece but Cao Cao from `board` (`moves` from a goal) brings it
    /// strictly closer to a goal. The smaller positions' sets must be here.
    fn minimal(&self, board: &Board, moves: u32, metric: usize) -> bool {
        let pieces: Vec<_> = board.pieces().collect();
        pieces
            .iter()
            .filter(|p| p.kind != Kind::Cao)
            .all(|removed| {
                let rest: Vec<_> = pieces.iter().filter(|p| *p != removed).copied().collect();
                let smaller = Board::from_pieces(&rest);
                let d = self
                    .distance(&smaller, metric)
                    .expect("a solvable position stays solvable without a piece");
                d < moves
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sets_below_are_one_piece_fewer() {
        let set = |h, v, s| PieceSet { h, v, s };
        assert_eq!(missing_below(&[set(1, 0, 2)]), [set(0, 0, 2), set(1, 0, 1)]);
        assert!(
            missing_below(&[set(0, 0, 0), set(0, 0, 1), set(1, 0, 0), set(1, 0, 1)]).is_empty()
        );
        assert!(missing_below(&PieceSet::all()).is_empty());
    }
}
