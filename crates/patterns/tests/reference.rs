//! The patterns stage against a deliberately plain reference: a 0/1 breadth-first search (a
//! deque, a hash map) over the full abstract states — the group's tile cells and the blank's
//! cell, every other cell a forgotten tile — where moving a forgotten tile costs 0 and a group
//! tile 1; a placement's value is its least cost over the blank's cells. Nothing of the
//! stage's regions, codes or ranks is used but the ranking of placements, checked by its own
//! proptest in the sliding crate.

use std::collections::{HashMap, VecDeque};

use huarong_core::{Abstraction, Reporter};
use sliding::pattern::{Pattern, TileBoard};

fn board(text: &str) -> TileBoard {
    let puzzle = sliding::parse(text, "t").unwrap();
    TileBoard::new(&puzzle).unwrap()
}

/// The reference values of the group `letters` of `b`, by placement rank.
fn reference(b: &TileBoard, letters: &str) -> Vec<u8> {
    let p = Pattern::new(b, letters).unwrap();
    let tiles = b.group(letters).unwrap();
    let (rows, cols) = (b.rows, b.cols);
    // State: the group's cells, then the blank's.
    let start: Vec<u8> = tiles
        .iter()
        .map(|&t| b.goal[t as usize])
        .chain([b.goal_blank])
        .collect();
    let mut cost: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut queue = VecDeque::new();
    cost.insert(start.clone(), 0);
    queue.push_back(start);
    while let Some(s) = queue.pop_front() {
        let c = cost[&s];
        let blank = *s.last().unwrap() as usize;
        let (r, col) = (blank / cols, blank % cols);
        let mut next = Vec::new();
        if r > 0 {
            next.push(blank - cols);
        }
        if r + 1 < rows {
            next.push(blank + cols);
        }
        if col > 0 {
            next.push(blank - 1);
        }
        if col + 1 < cols {
            next.push(blank + 1);
        }
        for to in next {
            let mut t = s.clone();
            let k = tiles.len();
            let moved = t[..k].iter().position(|&x| x as usize == to);
            if let Some(i) = moved {
                t[i] = blank as u8;
            }
            t[k] = to as u8;
            let w = c + moved.is_some() as u32;
            if cost.get(&t).is_none_or(|&old| w < old) {
                cost.insert(t.clone(), w);
                if moved.is_some() {
                    queue.push_back(t);
                } else {
                    queue.push_front(t);
                }
            }
        }
    }
    let mut out = vec![patterns::UNREACHED; p.len() as usize];
    for (s, c) in cost {
        let r = p.rank(&s[..tiles.len()]) as usize;
        out[r] = out[r].min(c as u8);
    }
    out
}

fn check(text: &str, groups: &[&str]) {
    check_board(&board(text), groups);
}

fn check_board(b: &TileBoard, groups: &[&str]) {
    let b = b.clone();
    for letters in groups {
        let p = Pattern::new(&b, letters).unwrap();
        let built = patterns::build(&p, &Reporter::quiet()).unwrap();
        assert_eq!(built, reference(&b, letters), "group {letters}");
    }
}

/// The eight puzzle's groups of 1 to 8 tiles (the 8-tile group is the whole puzzle: only half
/// its placements are reached, the other parity).
#[test]
fn eight_puzzle_groups_match_the_reference() {
    check(
        "name = \"e\"\nlabeled = true\nboard = \"123\\n456\\n78.\"\ngoal = \"123\\n456\\n78.\"\n",
        &["1", "1234", "5678", "2468", "12345678"],
    );
}

/// Groups of the fifteen puzzle with Korf's goal, and of the 4 × 3 eleven puzzle.
#[test]
fn fifteen_and_eleven_puzzle_groups_match_the_reference() {
    check(
        "name = \"f\"\nlabeled = true\nboard = \".123\\n4567\\n89AB\\nCDEF\"\n\
         goal = \".123\\n4567\\n89AB\\nCDEF\"\n",
        &["123", "4567", "9CF"],
    );
    check(
        "name = \"l\"\nlabeled = true\nboard = \"123\\n456\\n789\\nAB.\"\ngoal = \"123\\n456\\n789\\nAB.\"\n",
        &["1234", "789AB"],
    );
}

/// Boards of more than 16 cells, whose searches keep a placement's cell codes in a 64-bit word:
/// groups of the twenty-four puzzle with Korf's goal (read cell by cell, its positions being
/// too many for a code) and of a 3 × 6 board with the blank's goal in a corner.
#[test]
fn twenty_four_and_three_by_six_groups_match_the_reference() {
    let twenty_four = sliding::parse_tiles(
        "name = \"t\"\nlabeled = true\nboard = \".1234\\n56789\\nABCDE\\nFGHIJ\\nKLMNO\"\n\
         goal = \".1234\\n56789\\nABCDE\\nFGHIJ\\nKLMNO\"\n",
        "t",
    )
    .unwrap();
    assert_eq!(twenty_four.board.cells(), 25);
    check_board(&twenty_four.board, &["12C", "3489", "O"]);
    let wide = sliding::parse_tiles(
        "name = \"s\"\nlabeled = true\nboard = \"12345.\\n6789AB\\nCDEFGH\"\n\
         goal = \"123456\\n789ABC\\nDEFGH.\"\n",
        "s",
    )
    .unwrap();
    check_board(&wide.board, &["1234", "9CH"]);
}

/// Boards of more than 32 cells, whose searches keep a placement's cell codes in two 64-bit
/// words: groups of the thirty-five puzzle (6 × 6, the blank's goal top-left) whose tiles sit
/// in the first word, across the two (cells 31–33) and in the second (cell 35).
#[test]
fn thirty_five_puzzle_groups_match_the_reference() {
    let thirty_five = sliding::parse_tiles(
        "name = \"t\"\nlabeled = true\n\
         board = \".12345\\n6789AB\\nCDEFGH\\nIJKLMN\\nOPQRST\\nUVWXYZ\"\n\
         goal = \".12345\\n6789AB\\nCDEFGH\\nIJKLMN\\nOPQRST\\nUVWXYZ\"\n",
        "t",
    )
    .unwrap();
    assert_eq!(thirty_five.board.cells(), 36);
    check_board(&thirty_five.board, &["123", "VWX", "Z"]);
}

/// The database written, reopened and verified: the same values, 4 bits each where they fit,
/// reused on a second run, refused under another group's fingerprint.
#[test]
fn a_database_is_written_verified_and_reused() {
    let b = board(
        "name = \"e\"\nlabeled = true\nboard = \"123\\n456\\n78.\"\ngoal = \"123\\n456\\n78.\"\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pattern.bin");
    let p = Pattern::new(&b, "1234").unwrap();
    let want = reference(&b, "1234");
    let (db, outcome) = patterns::run(&p, &path, false, &Reporter::quiet()).unwrap();
    assert_eq!(outcome, huarong_core::Outcome::Built);
    assert_eq!(db.bits(), 4);
    assert_eq!(db.len(), 3_024);
    for (i, &v) in want.iter().enumerate() {
        assert_eq!(db.values().get(i as u64), v);
    }
    assert_eq!(db.counts().iter().sum::<u64>(), 3_024);
    assert_eq!(db.counts()[0], 1);
    let (_, outcome) = patterns::run(&p, &path, false, &Reporter::quiet()).unwrap();
    assert_eq!(outcome, huarong_core::Outcome::Reused);
    let other = Pattern::new(&b, "1235").unwrap();
    assert!(patterns::Database::open(&path, &other).is_err());
    // The whole puzzle: half the placements unreached, so a byte each.
    let all = Pattern::new(&b, "12345678").unwrap();
    let (db, _) =
        patterns::run(&all, &dir.path().join("all.bin"), false, &Reporter::quiet()).unwrap();
    assert_eq!(db.bits(), 8);
    // 9!/2 positions reached; the farthest are 31 moves away (Reinefeld 1993).
    assert_eq!(db.counts().iter().sum::<u64>(), 181_440);
    assert_eq!(db.max(), 31);
}
