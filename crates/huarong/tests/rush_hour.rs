//! Rush Hour from the command line: a database row opens in `solve` (its board in Fogleman's
//! notation is read as the sliding-block puzzle it is) and needs the moves the census says.

use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_huarong")
}

fn solve(board: &str) -> serde_json::Value {
    let o = Command::new(bin())
        .args(["solve", board, "--json"])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{board}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn every_row_of_a_small_database_solves_in_its_moves() {
    let universe = rush_hour::Universe::new(4, 2).unwrap();
    let census = universe.census(0, 1, &|| {}).unwrap();
    assert_eq!(census.puzzles.len(), 32);
    for row in &census.puzzles {
        let answer = solve(&row.board);
        assert_eq!(answer["moves"], row.moves, "{}", row.board);
        // The path starts at the board and ends with the red car at the exit.
        let path = answer["path"].as_array().unwrap();
        assert_eq!(path.len() as u32, row.moves + 1);
    }
}

#[test]
fn the_hardest_published_puzzle_solves_in_60_moves() {
    // rush.txt's first line, in his letters, with `o` for empty cells.
    let answer = solve("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM");
    assert_eq!(answer["moves"], 60);
}

#[test]
fn a_bad_board_is_named() {
    let o = Command::new(bin())
        .args(["solve", "BBBB..........AA......CC..........x."])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("piece B: its cells are not a straight line"),
        "{err}"
    );
}

/// A universe with a class over the run's bound is refused before any class is searched, no
/// census written; at exactly its largest class the run goes through.
#[test]
fn a_universe_over_the_bound_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |size: usize, bound: u64| {
        let pipeline = dir.path().join(format!("rush-{size}.toml"));
        std::fs::write(
            &pipeline,
            format!(
                "name = \"rush\"\noutput = \"unused\"\n[rush-hour]\nsize = {size}\nmax_walls = 2\n"
            ),
        )
        .unwrap();
        Command::new(bin())
            .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
            .arg(&out)
            .args(["--max-states", &bound.to_string()])
            .output()
            .unwrap()
    };
    let largest = |size: usize| {
        let u = rush_hour::Universe::new(size, 2).unwrap();
        (0..u.units()).map(|k| u.unit_layouts(k)).max().unwrap()
    };
    let five = largest(5);
    assert_eq!(five, 213_528);
    let o = run(5, five - 1);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "rush-hour-5x5-w2: a class of {five} states, over the run's bound of {} states",
            five - 1
        )) && err.contains("refused before any class is searched"),
        "{err}"
    );
    assert!(!out.join("rush-hour-5x5-w2/universe.bin").exists());
    let o = run(4, largest(4));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("rush-hour-4x4-w2/universe.bin").exists());
}

#[test]
fn a_census_is_projected_and_sampled_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let pipeline = dir.path().join("rush-5.toml");
    std::fs::write(
        &pipeline,
        "name = \"rush\"\noutput = \"unused\"\n[rush-hour]\nsize = 5\nmax_walls = 0\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        Command::new(bin())
            .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--estimate"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    // 6,795,364 layouts in 256 classes, 3,725,122 of them in the 136 classes searched (the
    // others are empty or mirror them).
    assert!(
        text.starts_with("rush-hour-5x5-w0: projected ")
            && text.contains(" for 136 classes and 3,725,122 layouts (a sample of "),
        "{text}"
    );
    // Every 4th class from the 1st: 64 classes, the census of those alone.
    let o = run(&["--sample", "4:1"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let universe = rush_hour::Universe::new(5, 0).unwrap();
    let census = universe.census(1, 4, &|| {}).unwrap();
    assert!(
        text.starts_with("rush-hour-5x5-w0: sample 4:1 (64 classes, "),
        "{text}"
    );
    for (name, value) in [
        ("layouts", census.layouts),
        ("minimal_puzzles", census.puzzles.len() as u64),
    ] {
        assert!(
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [name, &value.to_string()]),
            "{name} {value}: {text}"
        );
    }
    assert!(!out.exists(), "nothing is written");
    // Refused: a sample of nothing, and a pipeline without a census.
    let o = run(&["--sample", "4:4"]);
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(bin())
        .args(["run", "../../pipelines/solitaire.toml", "--estimate"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--estimate: pipeline solitaire has no census"),
        "{err}"
    );
}
