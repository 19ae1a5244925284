//! The universe's census against the deliberately plain reference ([`rush_hour::reference`]):
//! every layout generated cell by cell, every cluster explored from scratch over a hash map of
//! layouts, every piece of every puzzle removed and the rest looked up among the distances of
//! all layouts (no classes, no ranking, no shortcut, no search bounded by a limit).

use rush_hour::reference::{self, all_layouts, key};
use rush_hour::{Census, Universe};
use std::collections::HashMap;

/// The universe's census of `N × N` with at most `max_walls` walls against the reference's;
/// returns it and the reference's distances.
fn check(n: usize, max_walls: usize) -> (Census, HashMap<u128, u32>) {
    let (expected, distance) = reference::census(n, max_walls);
    let universe = Universe::new(n, max_walls).unwrap();
    let got = universe.census(0, 1, &|| {}).unwrap();
    // The reference does not count classes; the census counts every unit once.
    assert_eq!(got.units, vec![0..universe.units() as u64]);
    assert_eq!(
        Census {
            classes: got.classes,
            units: got.units.clone(),
            ..expected.clone()
        },
        got,
        "{n}x{n}, walls <= {max_walls}"
    );
    // Any split of the classes sums to the same census.
    let thirds = universe
        .census(0, 3, &|| {})
        .unwrap()
        .merge(universe.census(1, 3, &|| {}).unwrap())
        .unwrap()
        .merge(universe.census(2, 3, &|| {}).unwrap())
        .unwrap();
    assert_eq!(thirds, got);
    // A class counted twice is an error, never a census.
    let twice = universe
        .census(0, 3, &|| {})
        .unwrap()
        .merge(universe.census_of(&[3, 4], &|_, _| {}).unwrap());
    assert_eq!(twice, Err(rush_hour::UniverseError::Overlap(3..4)));
    assert_eq!(
        universe.census_of(&[2, 5, 2], &|_, _| {}),
        Err(rush_hour::UniverseError::Twice)
    );
    assert_eq!(Census::decode(&got.encode()), Some(got.clone()));
    (got, distance)
}

/// [`rush_hour::Board::moves_within`] (a search that drops layouts whose lower bound passes the limit)
/// against the plain distances, on every `step`-th layout of `n × n` with up to `max_walls`
/// walls: exact at the distance and above it, nothing below it.
fn bounded_solver_agrees(n: usize, max_walls: usize, step: usize, distance: &HashMap<u128, u32>) {
    for board in all_layouts(n, max_walls).iter().step_by(step) {
        match distance.get(&key(board)) {
            Some(&d) => {
                assert_eq!(board.moves_within(d), Some(d), "{board}");
                assert_eq!(board.moves_within(d + 3), Some(d), "{board}");
                if d > 0 {
                    assert_eq!(board.moves_within(d - 1), None, "{board}");
                }
            }
            None => assert_eq!(board.moves_within(40), None, "{board}"),
        }
    }
}

#[test]
fn four_by_four_with_up_to_two_walls_matches_the_plain_reference() {
    for walls in 0..=2 {
        let (c, _) = check(4, walls);
        assert!(c.puzzles.iter().all(|p| p.moves > 0));
    }
}

#[test]
fn five_by_five_without_walls_matches_the_plain_reference() {
    let (c, distance) = check(5, 0);
    assert_eq!(c.layouts, 6_795_364);
    // On 5 x 5 a car leaves the exit row downwards too (the bound's held pieces, both ways).
    bounded_solver_agrees(5, 0, 211, &distance);
}

#[test]
fn the_bounded_solver_agrees_with_every_distance() {
    // Every 4 x 4 layout with up to two walls.
    let (_, distance) = reference::census(4, 2);
    bounded_solver_agrees(4, 2, 1, &distance);
}
