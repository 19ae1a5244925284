//! A deliberately plain census, the reference the universe's census is checked against (its
//! tests and the commands benchmark): every layout generated cell by cell, every cluster
//! explored from scratch over a hash map of layouts, every piece of every puzzle removed and
//! the rest looked up among the distances of all layouts. No classes, no ranking, no bound,
//! no shortcut: slow (seconds for the 5 × 5 board without walls) and obviously right.

use std::collections::{HashMap, VecDeque};

use crate::board::{EXIT_ROW, Kind, Piece};
use crate::{Board, Census, Puzzle};

/// Every layout of the rules, generated cell by cell in reading order.
pub fn all_layouts(n: usize, max_walls: usize) -> Vec<Board> {
    #[allow(clippy::too_many_arguments)]
    fn rec(
        n: usize,
        cell: usize,
        used: u64,
        walls: usize,
        max_walls: usize,
        pieces: &mut Vec<Piece>,
        out: &mut Vec<Board>,
    ) {
        if cell == n * n {
            let reds: Vec<usize> = (0..pieces.len())
                .filter(|&i| {
                    let p = pieces[i];
                    p.kind == Kind::Horizontal && p.cell as usize / n == EXIT_ROW
                })
                .collect();
            if reds.len() != 1 || pieces[reds[0]].len != 2 {
                return;
            }
            let mut list = vec![pieces[reds[0]]];
            list.extend(
                pieces
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != reds[0])
                    .map(|(_, p)| *p),
            );
            if let Ok(board) = Board::new(n, list) {
                out.push(board);
            }
            return;
        }
        if used >> cell & 1 == 1 {
            return rec(n, cell + 1, used, walls, max_walls, pieces, out);
        }
        rec(n, cell + 1, used, walls, max_walls, pieces, out);
        let mut options = Vec::new();
        if walls < max_walls {
            options.push(Piece {
                kind: Kind::Wall,
                cell: cell as u8,
                len: 1,
            });
        }
        for len in 2..=3u8 {
            options.push(Piece {
                kind: Kind::Horizontal,
                cell: cell as u8,
                len,
            });
            options.push(Piece {
                kind: Kind::Vertical,
                cell: cell as u8,
                len,
            });
        }
        for p in options {
            let (r, c) = (cell / n, cell % n);
            let fits = match p.kind {
                Kind::Horizontal => c + p.len as usize <= n,
                Kind::Vertical => r + p.len as usize <= n,
                Kind::Wall => true,
            };
            if !fits || p.mask(n) & used != 0 {
                continue;
            }
            pieces.push(p);
            let w = walls + (p.kind == Kind::Wall) as usize;
            rec(n, cell + 1, used | p.mask(n), w, max_walls, pieces, out);
            pieces.pop();
        }
    }
    let mut out = Vec::new();
    rec(n, 0, 0, 0, max_walls, &mut Vec::new(), &mut out);
    out
}

/// A key naming one layout among all (boards up to 5 × 5: four 32-bit masks).
pub fn key(b: &Board) -> u128 {
    let n = b.n();
    let starts = b.pieces().iter().fold(0u64, |m, p| m | 1 << p.cell);
    assert!(n * n <= 32);
    b.horizontal_mask() as u128
        | (b.vertical_mask() as u128) << 32
        | (b.wall_mask() as u128) << 64
        | (starts as u128) << 96
}

/// The cluster of `board` explored from scratch (`board` first, then the others in the order a
/// breadth-first search over [`Board::moves`] meets them), with each layout's distance to the
/// nearest goal of the cluster (a second breadth-first search, from all its goals); `None` for
/// every layout of a cluster without a goal. Any board size.
pub fn cluster(board: &Board) -> (Vec<Board>, Vec<Option<u32>>) {
    // A layout among those of one cluster (whose walls are all the same): its cells and its
    // pieces' first cells (a column's car and truck in either order cover the same cells).
    let key = |b: &Board| {
        let starts = b.pieces().iter().fold(0u64, |m, p| m | 1 << p.cell);
        (b.horizontal_mask(), b.vertical_mask(), starts)
    };
    let mut index = HashMap::from([(key(board), 0usize)]);
    let mut members = vec![board.clone()];
    let mut head = 0;
    while head < members.len() {
        for (_, next) in members[head].moves() {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(key(&next)) {
                e.insert(members.len());
                members.push(next);
            }
        }
        head += 1;
    }
    let mut dist = vec![None; members.len()];
    let mut queue: VecDeque<usize> = (0..members.len())
        .filter(|&i| members[i].is_goal())
        .collect();
    for &i in &queue {
        dist[i] = Some(0);
    }
    while let Some(i) = queue.pop_front() {
        let d = dist[i].map(|d| d + 1);
        for (_, next) in members[i].moves() {
            let j = index[&key(&next)];
            if dist[j].is_none() {
                dist[j] = d;
                queue.push_back(j);
            }
        }
    }
    (members, dist)
}

pub fn census(n: usize, max_walls: usize) -> (Census, HashMap<u128, u32>) {
    let layouts = all_layouts(n, max_walls);
    let mut cluster_of: HashMap<u128, u32> = HashMap::new();
    // Every layout's distance to a goal (absent: unsolvable), and each solvable cluster's
    // puzzle with its moves and size, for the minimality test once all are known.
    let mut distance: HashMap<u128, u32> = HashMap::new();
    let mut puzzles: Vec<(Board, u32, u64)> = Vec::new();
    let mut census = Census::default();
    for start in &layouts {
        if cluster_of.contains_key(&key(start)) {
            continue;
        }
        let id = census.clusters as u32;
        census.clusters += 1;
        let (members, dist) = cluster(start);
        for b in &members {
            cluster_of.insert(key(b), id);
        }
        census.layouts += members.len() as u64;
        if dist.iter().all(Option::is_none) {
            continue;
        }
        census.solvable_clusters += 1;
        let dist: Vec<u32> = dist
            .into_iter()
            .map(|d| d.expect("a solvable cluster's layouts reach a goal"))
            .collect();
        let far = *dist.iter().max().unwrap();
        for &d in &dist {
            let d = d as usize;
            if census.layouts_by_distance.len() <= d {
                census.layouts_by_distance.resize(d + 1, 0);
            }
            census.layouts_by_distance[d] += 1;
        }
        if census.clusters_by_moves.len() <= far as usize {
            census.clusters_by_moves.resize(far as usize + 1, 0);
        }
        census.clusters_by_moves[far as usize] += 1;
        let puzzle = members
            .iter()
            .zip(&dist)
            .filter(|&(_, &d)| d == far)
            .map(|(b, _)| b)
            .min_by_key(|b| (b.horizontal_mask(), b.vertical_mask()))
            .unwrap();
        puzzles.push((puzzle.clone(), far, members.len() as u64));
        distance.extend(members.iter().map(key).zip(dist));
    }
    // Minimal: every removal (the red car stays) needs fewer moves. The layout without a piece
    // follows the rules too, so its distance is known (none: unsolvable).
    for (puzzle, far, size) in puzzles {
        let minimal = (1..puzzle.pieces().len()).all(|i| {
            let without = puzzle.without(i);
            distance.get(&key(&without)).is_some_and(|&d| d < far)
        });
        if far > 0 && minimal {
            census.puzzles.push(Puzzle {
                moves: far,
                board: puzzle.to_string(),
                cluster_size: size,
            });
        }
    }
    census
        .puzzles
        .sort_by(|a, b| b.moves.cmp(&a.moves).then_with(|| a.board.cmp(&b.board)));
    (census, distance)
}
