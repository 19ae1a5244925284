//! A plain, independent implementation for tests and benchmarks: the board as a grid of
//! characters, gravity applied one cell at a time to whichever piece can move until none can,
//! and a breadth-first search over whole grids in a hash set.

use std::collections::{HashSet, VecDeque};

type Grid = [[u8; 8]; 8];

/// The judge's answer for a board given as 8 rows.
pub fn count_reachable(rows: &[&str]) -> u64 {
    let mut start: Grid = [[b'.'; 8]; 8];
    for (r, row) in rows.iter().enumerate() {
        start[r].copy_from_slice(row.as_bytes());
    }
    let mut seen: HashSet<Grid> = HashSet::new();
    let mut queue = VecDeque::from([start]);
    while let Some(g) = queue.pop_front() {
        for (dr, dc) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
            let t = fall(g, dr, dc);
            if seen.insert(t) {
                queue.push_back(t);
            }
        }
    }
    seen.len() as u64
}

fn fall(mut g: Grid, dr: i32, dc: i32) -> Grid {
    loop {
        let mut moved = false;
        for piece in *b"ABCD" {
            let cells: Vec<(i32, i32)> = (0..64)
                .map(|i| (i / 8, i % 8))
                .filter(|&(r, c)| g[r as usize][c as usize] == piece)
                .collect();
            let free = cells.iter().all(|&(r, c)| {
                let (nr, nc) = (r + dr, c + dc);
                (0..8).contains(&nr)
                    && (0..8).contains(&nc)
                    && matches!(g[nr as usize][nc as usize], b'.')
                        | (g[nr as usize][nc as usize] == piece)
            });
            if free {
                for &(r, c) in &cells {
                    g[r as usize][c as usize] = b'.';
                }
                for &(r, c) in &cells {
                    g[(r + dr) as usize][(c + dc) as usize] = piece;
                }
                moved = true;
            }
        }
        if !moved {
            return g;
        }
    }
}
