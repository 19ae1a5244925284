//! Optimal solutions without precomputed tables: a breadth-first search from the start.
//!
//! The search runs over unlabeled positions (labels never change which moves exist) while
//! carrying the labeled boards along, so a labeled start gets a labeled path.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::bits::Bits;
use crate::board::{Board, Metric};

/// A multiplicative hasher for the `u64` codes (they are already well spread).
#[derive(Default)]
struct CodeHasher(u64);

impl Hasher for CodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type CodeMap<V> = HashMap<u64, V, BuildHasherDefault<CodeHasher>>;

/// A shortest path from `start` to a goal position in `metric` (start first), or `None` if no
/// goal is reachable.
///
/// The search runs on bitboards keyed by [`Bits::key`]; the path is then replayed on the
/// (possibly labeled) boards, one move per step.
pub fn solve(start: &Board, metric: Metric) -> Option<Vec<Board>> {
    // No limit: the search cannot give up.
    solve_within(start, metric, u64::MAX).ok().flatten()
}

/// The search kept more than this many positions without reaching a goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("gave up after {0} positions without reaching a goal")]
pub struct GaveUp(pub u64);

/// [`solve`], keeping at most `limit` positions: `Err` if the goal is farther than that.
pub fn solve_within(
    start: &Board,
    metric: Metric,
    limit: u64,
) -> Result<Option<Vec<Board>>, GaveUp> {
    const ROOT: u64 = u64::MAX;
    let first = Bits::from_board(start);
    let mut parent: CodeMap<u64> = CodeMap::default();
    parent.insert(first.key(), ROOT);
    let mut frontier = vec![first];
    let mut next = Vec::new();
    let mut succ = Vec::new();
    let mut goal = first.is_goal().then_some(first.key());
    'search: while goal.is_none() && !frontier.is_empty() {
        next.clear();
        for b in &frontier {
            succ.clear();
            b.successors(metric, &mut succ);
            let from = b.key();
            for s in &succ {
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(s.key()) {
                    e.insert(from);
                    if parent.len() as u64 > limit {
                        return Err(GaveUp(limit));
                    }
                    if s.is_goal() {
                        goal = Some(s.key());
                        break 'search;
                    }
                    next.push(*s);
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
    }
    let Some(mut at) = goal else {
        return Ok(None);
    };
    let mut keys = Vec::new();
    while at != ROOT {
        keys.push(at);
        at = parent[&at];
    }
    keys.reverse();
    // Replay on the real boards so labels ride along.
    let mut path = vec![*start];
    for &key in &keys[1..] {
        let here = path.last().expect("non-empty");
        let step = here
            .successor_where(metric, |b| Bits::from_board(b).key() == key)
            .expect("every searched step is a board move");
        path.push(step);
    }
    Ok(Some(path))
}

/// Whether `b` is one move away from `a` in `metric` (labels included).
pub fn is_move(a: &Board, b: &Board, metric: Metric) -> bool {
    a.successor_where(metric, |x| x == b).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn hengdao_lima() {
        let start = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let expected = [
            (Metric::Step, 116),
            (Metric::Straight, 90),
            (Metric::Piece, 81),
        ];
        for (metric, moves) in expected {
            let path = solve(&start, metric).unwrap();
            assert_eq!(path.len(), moves + 1, "{metric:?}");
            assert_eq!(path[0], start);
            assert!(path.last().unwrap().is_goal());
            assert!(path.windows(2).all(|w| is_move(&w[0], &w[1], metric)));
        }
    }

    #[test]
    fn labeled_paths_keep_labels() {
        let start = parse("1CC2/1CC2/3HH4/3ab4/c..d").unwrap().board;
        let path = solve(&start, Metric::Piece).unwrap();
        assert_eq!(path.len(), 82);
        assert!(
            path.windows(2)
                .all(|w| is_move(&w[0], &w[1], Metric::Piece))
        );
    }

    #[test]
    fn goal_start_and_unsolvable() {
        let goal = parse("VSSV/VHHV/S..S/VCCV/VCCV").unwrap().board;
        assert_eq!(solve(&goal, Metric::Step).unwrap().len(), 1);
        // Two full rows of vertical generals wall Cao Cao in at the top.
        let stuck = parse("CC.S/CCHH/VVVV/VVVV/.SSS").unwrap().board;
        assert!(solve(&stuck, Metric::Piece).is_none());
    }
}
