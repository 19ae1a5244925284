//! Sliding-block puzzles on the command line: `solve --puzzle` (plain, JSON, tables, the state
//! budget), `solve LAYOUT --goal`, `render --puzzle`, and bad puzzle files.

use std::path::{Path, PathBuf};

mod common;
use common::{huarong, ok, stderr, stdout};

fn puzzle(name: &str) -> String {
    common::root()
        .join("puzzles")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs a `[sliding]` pipeline of one puzzle file in `dir`; returns the pipeline file and the
/// output folder.
fn run_one_puzzle(dir: &Path, file: &str) -> (PathBuf, PathBuf) {
    let toml = dir.join("p.toml");
    let text = format!("name = \"p\"\noutput = \"o\"\n[sliding]\npuzzles = [\"{file}\"]\n");
    std::fs::write(&toml, text).unwrap();
    let out = dir.join("out");
    ok(&[
        "run",
        toml.to_str().unwrap(),
        "-q",
        "-o",
        out.to_str().unwrap(),
    ]);
    (toml, out)
}

#[test]
fn solve_a_puzzle_file_plain_json_and_from_tables() {
    let o = huarong(&["solve", "--puzzle", &puzzle("pennant.toml"), "--cold"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("59"));
    assert_eq!(lines.next(), Some("AABB/AACC/DE../FGHH/FGII"));
    assert_eq!(lines.count(), 59);

    let o = huarong(&[
        "solve",
        "--puzzle",
        &puzzle("rush-hour-60.toml"),
        "--metric",
        "straight",
        "--json",
        "--cold",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["puzzle"], "Rush Hour 60");
    assert_eq!(v["metric"], "straight");
    assert_eq!(v["moves"], 60);
    let path = v["path"].as_array().unwrap();
    assert_eq!(path.len(), 61);
    // The board as the puzzle writes it: look-alike vehicles take their letters in reading
    // order (the file's J, K, L are the same shape).
    assert_eq!(path[0], "IBB#../I..JDD/KAAJ../K.LEEM/FFL..M/GGHHHM");
    assert!(
        path[60]
            .as_str()
            .unwrap()
            .split('/')
            .nth(2)
            .unwrap()
            .ends_with("AA")
    );

    // From a pipeline's tables: the same number of moves, descending the distances.
    let dir = tempfile::tempdir().unwrap();
    let (toml, out) = run_one_puzzle(dir.path(), &puzzle("quzzle.toml"));
    // `inspect` and `verify` read sliding outputs like any other.
    let o = huarong(&["inspect", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("sliding") && text.contains("quzzle"),
        "{text}"
    );
    let o = huarong(&[
        "verify",
        out.to_str().unwrap(),
        "--pipeline",
        toml.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("ok   quzzle/distances-piece.bin"),
        "{}",
        stdout(&o)
    );
    for (metric, moves) in [("piece", "84"), ("straight", "93")] {
        let o = huarong(&[
            "solve",
            "--puzzle",
            &puzzle("quzzle.toml"),
            "--metric",
            metric,
            "--tables",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stdout(&o).lines().next(), Some(moves));
    }
}

#[test]
fn a_layout_with_another_goal_and_a_position_of_a_puzzle() {
    // The exit as an explicit goal gives the classic answer; another goal another path.
    let o = huarong(&[
        "solve",
        "VCCV/VCCV/VHHV/VSSV/S..S",
        "--goal",
        "3,1",
        "--cold",
    ]);
    assert_eq!(stdout(&o).lines().next(), Some("81"));
    let o = huarong(&[
        "solve",
        "1CC2/1CC2/3HH4/3ab4/c..d",
        "--goal",
        "0,0",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let last = v["path"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .as_str()
        .unwrap();
    assert!(
        last.starts_with("CC") && last[5..].starts_with("CC"),
        "{last}"
    );
    assert!(klotski::parse(last).unwrap().labeled);
    // A position of a puzzle file instead of its board.
    let o = huarong(&[
        "solve",
        "ABBC/ABBC/DEEF/DGHF/I..J",
        "--puzzle",
        &puzzle("hengdao-lima.toml"),
        "--cold",
    ]);
    assert_eq!(stdout(&o).lines().next(), Some("81"));
}

#[test]
fn the_state_budget_stops_a_search_with_a_message() {
    let o = huarong(&[
        "solve",
        "--puzzle",
        &puzzle("century.toml"),
        "--cold",
        "--max-states",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("gave up after 1000 states"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn render_a_puzzle_file() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("rush.svg");
    ok(&[
        "render",
        "--puzzle",
        &puzzle("rush-hour-51.toml"),
        "-o",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let count = |class: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    };
    // 12 vehicles and two walls.
    assert_eq!(count("piece"), 12);
    assert_eq!(count("wall"), 2);
    // The red car (the goal's piece) gets the first colour.
    assert!(text.contains(render::svg::fill(0)));
}

#[test]
fn bad_puzzle_files_exit_2_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    let good = std::fs::read_to_string(puzzle("pennant.toml")).unwrap();
    for (broken, needle) in [
        (
            good.replace("DE..\n", "DE.\n"),
            "board row 3, column 4 (line 10): 3 cells",
        ),
        (
            good.replace("moves = \"free\"", "moves = \"diagonal\""),
            "`moves` = \"diagonal\"",
        ),
        (
            good.replace("AA..\nAA..", "AA..\nAZ.."),
            "goal row 5, column 2",
        ),
        (good.replace("FGII", "FGIA"), "piece 'A' is not connected"),
    ] {
        std::fs::write(&file, broken).unwrap();
        let o = huarong(&["solve", "--puzzle", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{needle}");
        assert!(stderr(&o).contains(needle), "{needle}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
    let o = huarong(&["solve", "--puzzle", "/nonexistent.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent.toml"), "{}", stderr(&o));
    let o = huarong(&["solve", "VCCV/VCCV/VHHV/VSSV/S..S", "--goal", "4,1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("rows 0-3"), "{}", stderr(&o));
}

/// Tables built from an older version of a puzzle file are never used: `solve` searches cold.
#[test]
fn tables_of_an_edited_puzzle_file_are_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q.toml");
    std::fs::write(
        &file,
        std::fs::read_to_string(puzzle("quzzle.toml")).unwrap(),
    )
    .unwrap();
    let (_, out) = run_one_puzzle(dir.path(), &file.to_string_lossy());
    let solve = || {
        let o = huarong(&[
            "solve",
            "--puzzle",
            file.to_str().unwrap(),
            "--tables",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().next().unwrap().to_owned()
    };
    assert_eq!(solve(), "84");
    // The goal becomes the 2x2 block's own place: 0 moves, not the old tables' 84.
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("..AA\n..AA\n....", "AA..\nAA..\n....");
    std::fs::write(&file, edited).unwrap();
    assert_eq!(solve(), "0");
}

/// Unsolvable means unsolvable: two tiles of Korf's instance 1 swapped cannot reach Korf's goal
/// (the tiles' parity), and `solve` says so at once — exit 1, no search, no budget spent —
/// where a search of the 10^13 positions could only give up.
#[test]
fn an_unsolvable_fifteen_puzzle_is_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(puzzle("fifteen-korf-1.toml"))
        .unwrap()
        .replace("EDF7\nBC95", "DEF7\nBC95");
    let file = dir.path().join("swapped.toml");
    std::fs::write(&file, text).unwrap();
    let o = huarong(&[
        "solve",
        "--puzzle",
        file.to_str().unwrap(),
        "--metric",
        "step",
        "--max-states",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o).trim(),
        "unsolvable: DEF7/BC95/6.21/48A3 cannot reach the goal in the step metric"
    );
    // The solvable original is searched by IDA* (no pattern databases under the empty table
    // root: the Manhattan distance), and gives up at the budget of expanded nodes.
    let o = huarong(&[
        "solve",
        "--puzzle",
        &puzzle("fifteen-korf-1.toml"),
        "--metric",
        "step",
        "--max-states",
        "1000",
        "--tables",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        stderr(&o).contains("gave up after expanding 1000 nodes"),
        "{}",
        stderr(&o)
    );
}
