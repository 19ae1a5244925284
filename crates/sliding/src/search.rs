//! Optimal solutions without tables: a breadth-first search from the board that stops at the
//! first goal, or gives up after a budget of states (so a hard 15-puzzle instance ends with a
//! message, never with the machine out of memory).

use std::collections::HashMap;

use huarong_core::Puzzle;

use crate::SlidingPuzzle;

/// How a bounded search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A shortest path, start first.
    Path(Vec<u64>),
    /// Every reachable state was seen and none is a goal.
    Unsolvable,
    /// The budget of states ran out first.
    Limit(u64),
}

/// Breadth-first search from `start` in `metric`, keeping at most `limit` states.
pub fn solve(puzzle: &SlidingPuzzle, start: u64, metric: usize, limit: u64) -> Outcome {
    if puzzle.is_goal(start) {
        return Outcome::Path(vec![start]);
    }
    let mut parent: HashMap<u64, u64> = HashMap::from([(start, start)]);
    let mut frontier = vec![start];
    let mut next = Vec::new();
    let mut succ = Vec::new();
    while !frontier.is_empty() {
        next.clear();
        for &s in &frontier {
            succ.clear();
            puzzle.successors(s, metric, &mut succ);
            for &t in &succ {
                if parent.contains_key(&t) {
                    continue;
                }
                if parent.len() as u64 >= limit {
                    return Outcome::Limit(limit);
                }
                parent.insert(t, s);
                if puzzle.is_goal(t) {
                    let mut path = vec![t];
                    let mut at = t;
                    while at != start {
                        at = parent[&at];
                        path.push(at);
                    }
                    path.reverse();
                    return Outcome::Path(path);
                }
                next.push(t);
            }
        }
        std::mem::swap(&mut frontier, &mut next);
    }
    Outcome::Unsolvable
}
