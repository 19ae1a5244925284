//! The Klotski universe: every piece set with one 2×2 block and at least two empty cells. The
//! number of unlabeled positions of each set is checked against an independent count (a
//! broken-profile dynamic programme over the cells, nothing shared with the space's own
//! depth-first tiling), and the total against the published 29,334,498.

use std::collections::HashMap;

use klotski::{PieceSet, Unlabeled};

const ROWS: usize = 5;
const COLS: usize = 4;

/// Ways to tile the board with one 2×2, `h` 2×1, `v` 1×2 and `s` 1×1 pieces and `e` empty
/// cells, scanning cells row by row; `profile` marks the cells ahead already covered.
fn count(set: PieceSet) -> u64 {
    type Key = (usize, u8, u8, u8, u8, u8, u8);
    fn go(key: Key, memo: &mut HashMap<Key, u64>) -> u64 {
        let (cell, profile, c, h, v, s, e) = key;
        if cell == ROWS * COLS {
            return (c + h + v + s + e == 0) as u64;
        }
        if let Some(&n) = memo.get(&key) {
            return n;
        }
        let (r, col) = (cell / COLS, cell % COLS);
        let next = |p: u8| p >> 1;
        let total = if profile & 1 != 0 {
            go((cell + 1, next(profile), c, h, v, s, e), memo)
        } else {
            let right_free = col + 1 < COLS && profile & 0b10 == 0;
            let below = r + 1 < ROWS;
            let mut n = 0;
            if e > 0 {
                n += go((cell + 1, next(profile), c, h, v, s, e - 1), memo);
            }
            if s > 0 {
                n += go((cell + 1, next(profile), c, h, v, s - 1, e), memo);
            }
            if h > 0 && right_free {
                n += go((cell + 1, next(profile | 0b10), c, h - 1, v, s, e), memo);
            }
            if v > 0 && below {
                n += go(
                    (cell + 1, next(profile | 1 << COLS), c, h, v - 1, s, e),
                    memo,
                );
            }
            if c > 0 && right_free && below {
                let covered = profile | 0b10 | 1 << COLS | 1 << (COLS + 1);
                n += go((cell + 1, next(covered), c - 1, h, v, s, e), memo);
            }
            n
        };
        memo.insert(key, total);
        total
    }
    go(
        (0, 0, 1, set.h, set.v, set.s, set.empty_cells()),
        &mut HashMap::new(),
    )
}

#[test]
fn every_piece_set_matches_an_independent_count() {
    let mut total = 0u64;
    let mut nonempty = 0;
    for set in PieceSet::all() {
        let expected = count(set);
        let space = Unlabeled::new(set);
        assert_eq!(space.len() as u64, expected, "{set}");
        total += expected;
        nonempty += (expected > 0) as usize;
    }
    assert_eq!(total, 29_334_498, "dnomd343/klotski's published count");
    assert_eq!(nonempty, 203, "piece sets with at least one position");
}

/// dnomd343/klotski's codes over the whole universe: every position's CommonCode decodes back
/// to it, the CommonCodes of all 29,334,498 positions sorted are exactly the ShortCodes
/// 0, 1, 2, … in order (the ShortCode's definition), and each ShortCode decodes back.
#[test]
fn short_codes_rank_every_common_code() {
    use klotski::codes;
    use rayon::prelude::*;
    let mut common: Vec<u64> = PieceSet::all()
        .into_par_iter()
        .flat_map_iter(|set| {
            let space = Unlabeled::new(set);
            space
                .codes()
                .iter()
                .map(|&ours| {
                    let c = codes::from_compact(ours);
                    let board = codes::board_of_common(c).expect("a position's code is valid");
                    assert_eq!(board.code(), ours, "{c:09X}");
                    c
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(common.len(), codes::POSITIONS as usize);
    common.par_sort_unstable();
    common.par_iter().enumerate().for_each(|(i, &c)| {
        assert_eq!(codes::short_code(c), Ok(i as u32), "{c:09X}");
        assert_eq!(codes::common_of_short(i as u32), Ok(c), "{i}");
    });
    let text = codes::format_short(codes::POSITIONS - 1);
    assert_eq!(codes::parse_short(&text), Ok(codes::POSITIONS - 1));
}
