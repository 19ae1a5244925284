//! The fifteen puzzle solved optimally as a user does it: `huarong run` builds pattern
//! databases (a small 6-6-3 partition, built in about 4 s), then `huarong solve --positions`
//! solves all of Korf's 100 instances by IDA* over them (about 2 s). Each length must be Korf's published optimum (puzzles/korf-100.txt, from Korf
//! 1985), and each path is replayed here move by move on the rows as text: one tile slides into
//! the adjacent blank per step, from the position to Korf's goal.

mod common;

use std::path::Path;

use common::{huarong, ok, root, stderr};

const GOAL: &str = ".123/4567/89AB/CDEF";

/// `huarong solve --puzzle puzzles/fifteen.toml --positions LIST --tables TABLES --json`: its
/// exit status and its lines.
fn solve_positions(list: &Path, tables: &Path) -> (Option<i32>, Vec<serde_json::Value>) {
    let puzzle = root().join("puzzles/fifteen.toml");
    let o = huarong(&[
        "solve",
        "--puzzle",
        puzzle.to_str().unwrap(),
        "--positions",
        list.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
        "--json",
    ]);
    let lines = common::stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (o.status.code(), lines)
}

#[test]
fn korfs_100_instances_are_solved_optimally_over_databases_the_pipeline_built() {
    let dir = tempfile::tempdir().unwrap();
    let (pipeline, out) = common::pattern_pipeline(
        dir.path(),
        "puzzles/fifteen.toml",
        "[\"123456\", \"789ABC\", \"DEF\"]",
    );
    // Beyond the run's memory bound (1,000 states at 32 bytes: 32 kB), refused before any work.
    let o = huarong(&["run", pipeline.to_str().unwrap(), "--max-states", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("pattern database pattern-4x4-123456: 5,765,760 placements need"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists(), "nothing was written");
    let log = ok(&["run", pipeline.to_str().unwrap()]);
    assert!(log.contains("pattern-4x4-789ABC"), "{log}");
    let all = common::published_optima("puzzles/korf-100.txt");
    assert_eq!(all.len(), 100);
    let list = dir.path().join("positions.txt");
    let text: String = all.iter().map(|(p, m)| format!("{p}  # {m}\n")).collect();
    std::fs::write(&list, format!("# Korf's 100\n\n{text}")).unwrap();
    let began = std::time::Instant::now();
    let (status, lines) = solve_positions(&list, &out);
    let wall = began.elapsed().as_secs_f64();
    assert_eq!(status, Some(0));
    assert_eq!(lines.len(), all.len());
    // Each instance's own time was measured, and all of them fit in the command's on this
    // machine's cores (instances are solved side by side).
    let seconds: Vec<f64> = lines
        .iter()
        .map(|v| v["seconds"].as_f64().unwrap())
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    assert!(seconds.iter().all(|&s| s > 0.0 && s <= wall), "{seconds:?}");
    assert!(
        seconds.iter().sum::<f64>() <= wall * cores,
        "{seconds:?} in {wall} s"
    );
    for (v, (position, optimum)) in lines.iter().zip(&all) {
        assert_eq!(v["position"], position.as_str());
        assert_eq!(v["moves"], *optimum, "{position}");
        assert_eq!(v["source"], "patterns");
        assert!(v["nodes"].as_u64().unwrap() > 0);
        assert!(v["generated"].as_u64().unwrap() >= v["nodes"].as_u64().unwrap());
        let path: Vec<&str> = v["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(path.len() as u64, optimum + 1);
        assert_eq!(path[0], position);
        assert_eq!(*path.last().unwrap(), GOAL);
        assert!(
            path.windows(2).all(|w| common::one_move(w[0], w[1], 4)),
            "{position}"
        );
    }
}

/// A bad line is named before anything is solved; an unsolvable position (two tiles swapped,
/// the other parity) is answered at once, `moves` null, exit status 1.
#[test]
fn positions_files_name_bad_lines_and_answer_unsolvable_ones() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = root().join("puzzles/fifteen.toml");
    let list = dir.path().join("bad.txt");
    std::fs::write(
        &list,
        "# two positions\n.123/4567/89AB/CDEF\n.123/4567/89AB/CDE\n",
    )
    .unwrap();
    let o = huarong(&[
        "solve",
        "--puzzle",
        puzzle.to_str().unwrap(),
        "--positions",
        list.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.txt:3:"), "{}", stderr(&o));
    std::fs::write(&list, "1.23/4567/89AB/CDEF\n.213/4567/89AB/CDEF\n").unwrap();
    let (status, lines) = solve_positions(&list, dir.path());
    assert_eq!(status, Some(1));
    assert_eq!(lines[0]["moves"], 1);
    assert_eq!(lines[1]["moves"], serde_json::Value::Null);
}
