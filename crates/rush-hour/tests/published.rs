//! Published figures of Fogleman's database ("Solving Rush Hour, the Puzzle", 2018, and his
//! database file rush.txt), found again in the classes that hold them.

use std::collections::HashSet;

use rush_hour::{Board, class_census};

/// Every layout reachable from `board` (a plain search over boards).
fn cluster(board: &Board) -> HashSet<String> {
    let mut seen = HashSet::from([board.to_string()]);
    let mut todo = vec![board.clone()];
    while let Some(b) = todo.pop() {
        for (_, next) in b.moves() {
            if seen.insert(next.to_string()) {
                todo.push(next);
            }
        }
    }
    seen
}

/// `board` needs `moves` moves in a cluster of `size` layouts, and its class's census has that
/// cluster's puzzle as minimal with the same figures; returns that puzzle.
fn published(board: &str, moves: u32, size: u64) -> String {
    let board = Board::parse(board).unwrap();
    assert_eq!(board.moves_within(moves), Some(moves));
    assert_eq!(board.moves_within(moves - 1), None);
    let layouts = cluster(&board);
    assert_eq!(layouts.len() as u64, size);
    let census = class_census(&board).unwrap();
    let row = census
        .puzzles
        .iter()
        .find(|p| layouts.contains(&p.board))
        .unwrap_or_else(|| panic!("{board}: its cluster has no minimal puzzle"));
    assert_eq!((row.moves, row.cluster_size), (moves, size), "{board}");
    // Nothing in its class is harder.
    assert!(census.puzzles.iter().all(|p| p.moves <= moves));
    row.board.clone()
}

#[test]
fn the_hardest_puzzle_without_walls_needs_51_moves_in_a_cluster_of_4780() {
    // The article's figure (his letters; cpp/src/main.cpp of fogleman/rush names it too). Its
    // cluster has two farthest layouts; the puzzle is the one with the smaller mask of
    // horizontal cells (bit r·N + c), as the definition says: row 0's car on cells 1-2, not 2-3.
    let puzzle = published("BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.", 51, 4_780);
    assert_eq!(puzzle, "BCC.D.BEF.DGBEFAAGHHHI.G..JIKKLLJMM.");
}

#[test]
fn the_hardest_puzzle_with_walls_needs_60_moves_in_a_cluster_of_2332() {
    // rush.txt's first line: `60 IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM 2332`.
    let board = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM";
    let puzzle = published(board, 60, 2_332);
    assert_eq!(puzzle, Board::parse(board).unwrap().to_string());
}

#[test]
fn a_two_wall_puzzle_of_the_database() {
    // rush.txt: `51 xCCoLMooJoLMAAJoLNHIDDDNHIoKEExooKGG 9360` (puzzles/rush-hour-51.toml).
    let board = "xCCoLMooJoLMAAJoLNHIDDDNHIoKEExooKGG";
    let puzzle = published(board, 51, 9_360);
    assert_eq!(puzzle, Board::parse(board).unwrap().to_string());
}

#[test]
fn the_work_of_a_unit_is_its_class_searched_once() {
    // On the 5 x 5 board a class and its mirror image are searched once, by the smaller: the
    // other's work is 0, and the census still counts both.
    for (n, walls) in [(4, 2), (5, 1)] {
        let u = rush_hour::Universe::new(n, walls).unwrap();
        let work = u.work();
        let layouts: Vec<u64> = (0..u.units()).map(|k| u.unit_layouts(k)).collect();
        let census = u.census(0, 1, &|| {}).unwrap();
        assert_eq!(census.layouts, layouts.iter().sum::<u64>(), "{n} {walls}");
        for k in 0..u.units() {
            assert!(
                work[k] == layouts[k] || work[k] == 0,
                "{n} {walls} unit {k}"
            );
        }
        let skipped = work
            .iter()
            .zip(&layouts)
            .filter(|(w, l)| **w == 0 && **l > 0);
        assert_eq!(skipped.count() > 0, n == 5, "{n} {walls}");
    }
}
