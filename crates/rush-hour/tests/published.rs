//! Published figures of Fogleman's database ("Solving Rush Hour, the Puzzle", 2018, and his
//! database file rush.txt), found again in the classes that hold them.

use std::collections::HashSet;

use rush_hour::{Board, class_census};

/// Every layout reachable from `board` (the plain reference's search over boards).
fn cluster(board: &Board) -> HashSet<String> {
    let (members, _) = rush_hour::reference::cluster(board);
    members.iter().map(Board::to_string).collect()
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

/// The counts table of docs/RUSH-HOUR.md, for the boards the test command can afford (the 6 × 6
/// rows are asserted by the benchmarks `-- rush-hour-6` and `-- rush-hour-db`): every figure of
/// each row is the census's.
#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn the_documented_counts_are_the_census() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/RUSH-HOUR.md"
    ))
    .unwrap();
    let mut checked = 0;
    let table = doc
        .lines()
        .skip_while(|l| !l.starts_with("| universe | classes |"))
        .skip(2)
        .take_while(|l| l.starts_with("| "));
    for line in table {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let n: usize = cells[0][..1].parse().unwrap();
        if n == 6 {
            continue;
        }
        let walls = if cells[0].contains("no walls") {
            0
        } else {
            cells[0].split("≤ ").nth(1).unwrap()[..1].parse().unwrap()
        };
        let number = |s: &str| -> u64 { s.replace(',', "").parse().unwrap() };
        let census = rush_hour::Universe::new(n, walls)
            .unwrap()
            .census(0, 1, &|| {})
            .unwrap();
        let got = [
            census.classes,
            census.layouts,
            census.clusters,
            census.solvable_clusters,
            census.puzzles.len() as u64,
            census.puzzles[0].moves as u64,
        ];
        let documented: Vec<u64> = cells[1..7].iter().map(|s| number(s)).collect();
        assert_eq!(documented, got, "docs/RUSH-HOUR.md: {line}");
        checked += 1;
    }
    assert_eq!(checked, 4, "the 4 x 4 and three 5 x 5 rows");
}
