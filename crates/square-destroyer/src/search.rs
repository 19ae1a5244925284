//! The fewest further removals that leave no square: IDA* with an admissible heuristic.
//!
//! The heuristic packs match-disjoint intact squares greedily (smallest first): each needs its
//! own removal, so their number is a lower bound. The search branches on the matches of the
//! smallest intact square (some of them must go; destroying a small square before a large one
//! is never worse to consider first), trying the matches that break the most intact squares
//! first.

use crate::Grid;

/// Counters of one search, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub nodes: u64,
    pub iterations: u32,
}

/// The fewest removals from `present` that leave no square.
pub fn solve(grid: &Grid, present: u64) -> u32 {
    solve_with_stats(grid, present).0
}

/// [`solve`] with search counters.
pub fn solve_with_stats(grid: &Grid, present: u64) -> (u32, Stats) {
    let present = present & grid.full();
    // Only intact squares matter; the others are already destroyed for good.
    let intact: Vec<u64> = grid
        .squares()
        .iter()
        .copied()
        .filter(|&s| present & s == s)
        .collect();
    let mut stats = Stats::default();
    let mut bound = lower_bound(&intact, present);
    loop {
        stats.iterations += 1;
        if dfs(&intact, present, 0, bound, &mut stats) {
            return (bound, stats);
        }
        bound += 1;
    }
}

/// Greedy packing of match-disjoint intact squares.
fn lower_bound(intact: &[u64], present: u64) -> u32 {
    let mut p = present;
    let mut count = 0;
    for &s in intact {
        if p & s == s {
            count += 1;
            p &= !s;
        }
    }
    count
}

fn dfs(intact: &[u64], present: u64, depth: u32, bound: u32, stats: &mut Stats) -> bool {
    stats.nodes += 1;
    let Some(&first) = intact.iter().find(|&&s| present & s == s) else {
        return true;
    };
    if depth + lower_bound(intact, present) > bound {
        return false;
    }
    // Candidate matches of the first intact square, most intact squares broken first.
    let mut moves: Vec<(u32, u64)> = Vec::with_capacity(20);
    let mut rest = first;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest ^= bit;
        let hits = intact
            .iter()
            .filter(|&&s| s & bit != 0 && present & s == s)
            .count() as u32;
        moves.push((hits, bit));
    }
    moves.sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
    moves
        .into_iter()
        .any(|(_, bit)| dfs(intact, present ^ bit, depth + 1, bound, stats))
}

/// An independent exhaustive answer for small grids: tries every set of k remaining matches
/// for k = 0, 1, … (exponential; n ≤ 3 only).
pub fn exhaustive(grid: &Grid, present: u64) -> u32 {
    let present = present & grid.full();
    let matches: Vec<u64> = (0..grid.matches())
        .filter(|&m| present >> m & 1 != 0)
        .map(|m| 1u64 << m)
        .collect();
    fn choose(grid: &Grid, matches: &[u64], present: u64, k: usize) -> bool {
        if k == 0 {
            return grid.is_destroyed(present);
        }
        (0..matches.len()).any(|i| choose(grid, &matches[i + 1..], present ^ matches[i], k - 1))
    }
    (0..=matches.len())
        .find(|&k| choose(grid, &matches, present, k))
        .expect("removing everything destroys every square") as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SplitMix, random_removal};

    #[test]
    fn full_grids() {
        let expected = [1, 3, 6];
        for n in 1..=3 {
            let g = Grid::new(n);
            assert_eq!(exhaustive(&g, g.full()), expected[n - 1], "n = {n}");
            assert_eq!(solve(&g, g.full()), expected[n - 1], "n = {n}");
        }
    }

    #[test]
    fn ida_star_matches_exhaustive_search() {
        let mut rng = SplitMix(1603);
        for n in 1..=3 {
            let g = Grid::new(n);
            for k in 0..300 {
                let p = random_removal(&g, &mut rng, (k % 50) as u64);
                assert_eq!(solve(&g, p), exhaustive(&g, p), "n {n}: {}", g.render(p));
            }
        }
    }
}
