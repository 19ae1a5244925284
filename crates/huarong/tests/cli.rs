//! The `huarong` binary as a user runs it: `run`, `solve`, exit codes and `--json`.

use klotski::solve::is_move;
use klotski::{Metric, parse};

mod common;
use common::{huarong, stderr, stdout};

fn pipeline_file() -> String {
    common::pipeline("huarong-canonical.toml")
}

/// Checks a printed path: starts at `start`, legal move by move, ends at a goal.
fn check_path(start: &str, path: &[String], metric: Metric) {
    let boards: Vec<_> = path.iter().map(|l| parse(l).unwrap().board).collect();
    assert_eq!(boards[0], parse(start).unwrap().board);
    assert!(boards.last().unwrap().is_goal());
    for w in boards.windows(2) {
        assert!(is_move(&w[0], &w[1], metric), "{:?} -> {:?}", w[0], w[1]);
    }
}

#[test]
fn run_then_solve_from_tables_agrees_with_the_stages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = huarong(&["run", &pipeline_file(), "--quiet", "--output", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("h1v4s4-unlabeled"), "{text}");
    assert!(text.contains("65880"), "{text}");
    assert!(text.contains("summary.parquet"), "{text}");
    for table in [
        "summary",
        "records",
        "states-h1v4s4-unlabeled",
        "distance_histogram",
    ] {
        assert!(
            dir.path().join(format!("{table}.parquet")).exists(),
            "{table}"
        );
    }

    // A rerun verifies and reuses everything.
    let o = huarong(&["run", &pipeline_file(), "--output", out]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("verified, reused"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("built"), "{}", stderr(&o));

    // Every named layout of the classic set, in every metric: the solution from tables and the
    // cold one have the distance the stages computed, and both paths are legal.
    let space = dir.path().join("h1v4s4-unlabeled");
    let u = klotski::Unlabeled::new(klotski::PieceSet::CLASSIC);
    let states = enumerate::StateTable::open(&space.join("states.bin"), &u).unwrap();
    for (name, layout) in klotski::named::LAYOUTS.iter().take(12) {
        let i = states
            .lookup(&u, parse(layout).unwrap().board.code())
            .unwrap() as usize;
        for metric in Metric::ALL {
            let m = metric as usize;
            let csr = graph::Csr::open(
                &space.join(format!("graph-{}.csr", metric.name())),
                &u,
                m,
                &states,
            )
            .unwrap();
            let d = distances::Distances::open(
                &space.join(format!("distances-{}.bin", metric.name())),
                &u,
                &states,
                &csr,
            )
            .unwrap()
            .values()[i];
            // Plain and JSON from the tables, JSON from a cold search: "source" says which.
            let ways: [&[&str]; 3] = [
                &["--tables", out],
                &["--tables", out, "--json"],
                &["--cold", "--json"],
            ];
            for extra in ways {
                let mut args = vec!["solve", layout, "--metric", metric.name()];
                args.extend(extra);
                let o = huarong(&args);
                assert!(o.status.success(), "{name} {}", stderr(&o));
                let text = stdout(&o);
                let (moves, path): (usize, Vec<String>) = if extra.contains(&"--json") {
                    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(v["layout"], *layout);
                    assert_eq!(v["metric"], metric.name());
                    let source = if extra[0] == "--cold" {
                        "search"
                    } else {
                        "tables"
                    };
                    assert_eq!(v["source"], source, "{name}");
                    let path = v["path"].as_array().unwrap();
                    (
                        v["moves"].as_u64().unwrap() as usize,
                        path.iter()
                            .map(|x| x.as_str().unwrap().to_owned())
                            .collect(),
                    )
                } else {
                    let mut lines = text.lines();
                    let moves = lines.next().unwrap().parse().unwrap();
                    (moves, lines.map(str::to_owned).collect())
                };
                assert_eq!(moves, d as usize, "{name} {}", metric.name());
                assert_eq!(path.len(), moves + 1);
                check_path(layout, &path, metric);
            }
        }
    }
}

#[test]
fn hengdao_lima_is_81_moves_and_labeled_paths_keep_labels() {
    let o = huarong(&["solve", "VCCV/VCCV/VHHV/VSSV/S..S", "--cold"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().next(), Some("81"));
    let o = huarong(&["solve", "1CC2/1CC2/3HH4/3ab4/c..d", "--cold", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["moves"], 81);
    let path: Vec<String> = v["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_owned())
        .collect();
    assert!(path.iter().all(|l| parse(l).unwrap().labeled));
    check_path("1CC2/1CC2/3HH4/3ab4/c..d", &path, Metric::Piece);
}

/// dnomd343/klotski's codes name 横刀立马 as well as its layout does (its published
/// CommonCode 1A9BF0C00 and ShortCode 4WVE1, src/core_test/codec/sample.h), and every answer
/// shows both.
#[test]
fn common_and_short_codes_are_layouts_too() {
    for text in ["1A9BF0C00", "1a9bf0c", "4WVE1"] {
        let o = huarong(&["solve", text, "--cold", "--json"]);
        assert!(o.status.success(), "{text}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["layout"], "VCCV/VCCV/VHHV/VSSV/S..S", "{text}");
        assert_eq!(v["moves"], 81);
        assert_eq!(v["common_code"], "1A9BF0C00");
        assert_eq!(v["short_code"], "4WVE1");
    }
    // A labeled layout's codes are its unlabeled shape's.
    let o = huarong(&["solve", "1CC2/1CC2/3HH4/3ab4/c..d", "--cold", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["short_code"], "4WVE1");
    for (bad, says) in [
        ("3A9BF0C00", "row 1, column 4"),
        ("1A9BFFC00", "CommonCode 1A9BFFC00"),
        ("ZZZZZ", "out of range"),
    ] {
        let o = huarong(&["solve", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
}

#[test]
fn exit_codes_name_the_problem() {
    let o = huarong(&["solve", "CC.S/CCHH/VVVV/VVVV/.SSS", "--cold"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot reach the goal"),
        "{}",
        stderr(&o)
    );

    let o = huarong(&["solve", "VCCV/VCCV/VHHV/VSSV/S..X"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("row 5, column 4"), "{}", stderr(&o));

    let o = huarong(&["solve", "VCCV/VCCV/VHHV/VSSV"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected 5 rows"), "{}", stderr(&o));

    // In no family's notation: each family says what it reads.
    let o = huarong(&["solve", "xyz"]);
    assert_eq!(o.status.code(), Some(2));
    for says in [
        "no puzzle family reads this request",
        "[huarong] reads a Huarong Dao layout",
        "[rush-hour] reads a Rush Hour board",
        "[sliding] reads a puzzle file",
    ] {
        assert!(stderr(&o).contains(says), "{says}: {}", stderr(&o));
    }

    let o = huarong(&["run", "/nonexistent/pipeline.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("/nonexistent/pipeline.toml"),
        "{}",
        stderr(&o)
    );

    // An output folder that cannot be created: a clear message, exit 2, nothing written.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let o = huarong(&["run", &pipeline_file(), "-q", "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("a-file: File exists"), "{err}");
    assert_eq!(
        err.matches("File exists").count(),
        1,
        "each cause once: {err}"
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\noutput = \"o\"\n[huarong]\npiece_sets = [\"h1v4s4\"]\nspaces = [\"unlabeled\"]\nmetrics = [\"jump\"]\n").unwrap();
    let o = huarong(&["run", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown metric \"jump\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn verify_names_corrupt_files_and_run_rebuilds_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert!(
        huarong(&["run", &pipeline_file(), "-q", "-o", out])
            .status
            .success()
    );
    let o = huarong(&["verify", out]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).contains(", 0 bad"), "{}", stdout(&o));

    // Flip one byte of an artifact's payload and cut a Parquet file short.
    let artifact = dir.path().join("h1v4s4-unlabeled/distances-piece.bin");
    let mut bytes = std::fs::read(&artifact).unwrap();
    bytes[1000] ^= 1;
    std::fs::write(&artifact, bytes).unwrap();
    let records = dir.path().join("records.parquet");
    let bytes = std::fs::read(&records).unwrap();
    std::fs::write(&records, &bytes[..bytes.len() / 2]).unwrap();

    let o = huarong(&["verify", out]);
    assert_eq!(o.status.code(), Some(2));
    let text = stdout(&o);
    assert!(
        text.contains("BAD  h1v4s4-unlabeled/distances-piece.bin"),
        "{text}"
    );
    assert!(text.contains("checksum mismatch"), "{text}");
    assert!(text.contains("BAD  records.parquet"), "{text}");
    assert!(text.contains(", 2 bad"), "{text}");

    // A rerun rebuilds exactly what is broken, and everything verifies again.
    let o = huarong(&["run", &pipeline_file(), "-o", out]);
    assert!(o.status.success());
    let log = stderr(&o);
    assert!(
        log.contains("dist piece") && log.contains("rebuilt"),
        "{log}"
    );
    assert!(log.contains("checksum mismatch"), "{log}");
    assert_eq!(log.matches("rebuilt").count(), 2, "{log}"); // the distances and the export
    let o = huarong(&["verify", out]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// The case the stale-outputs issue was found with: Solitaire's goal changed to its start. The
/// rerun rebuilds only the export, the answer is 0, and `verify --pipeline` calls the old
/// tables stale (not ok) until then.
#[test]
fn a_changed_goal_rebuilds_the_export_and_verify_calls_old_tables_stale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let file = dir.path().join("solitaire.toml");
    let write = |goal: &str| {
        let text = std::fs::read_to_string(common::pipeline("solitaire.toml"))
            .unwrap()
            .replace("2 4 3 3 3 6 4 6", goal);
        std::fs::write(&file, text).unwrap();
    };
    let file_arg = file.to_str().unwrap();
    write("2 4 3 3 3 6 4 6");
    common::ok(&["run", file_arg, "-q", "-o", out]);
    let o = huarong(&["verify", out, "--pipeline", file_arg]);
    assert!(o.status.success(), "{}", stdout(&o));

    write("4 4 4 5 5 4 6 5");
    let o = huarong(&["verify", out, "--pipeline", file_arg]);
    assert_eq!(o.status.code(), Some(2));
    let text = stdout(&o);
    assert!(text.contains("BAD  summary.parquet: stale"), "{text}");
    assert!(text.contains("ok   8x8-4/distances-move.bin"), "{text}");
    // Without the pipeline, verify checks integrity only: everything is intact.
    assert!(huarong(&["verify", out]).status.success());

    let log = common::ok(&["run", file_arg, "-o", out]);
    let rebuilt: Vec<_> = common::stage_log(&log)
        .into_iter()
        .filter(|l| !l.reused())
        .map(|l| format!("{} {}", l.space, l.stage))
        .collect();
    assert_eq!(rebuilt, vec!["parquet export"], "{log}");
    let o = huarong(&["inspect", out]);
    let summary = stdout(&o);
    let row = summary
        .lines()
        .find(|l| l.starts_with("solitaire"))
        .unwrap();
    assert!(row.trim_end().ends_with(" 0"), "answer 0: {summary}");
    let o = huarong(&["verify", out, "--pipeline", file_arg]);
    assert!(o.status.success(), "{}", stdout(&o));
}

/// A stale artifact (built for another board) and a missing one are named by `verify
/// --pipeline`; a left-over space of an older pipeline is too, and the next run removes it.
#[test]
fn verify_with_the_pipeline_names_stale_missing_and_left_over_artifacts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_arg = out.to_str().unwrap();
    let file = dir.path().join("og.toml");
    let original = std::fs::read_to_string(common::pipeline("omnigravity.toml")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let file_arg = file.to_str().unwrap();
    common::ok(&["run", file_arg, "-q", "-o", out_arg]);

    // Another obstacle on sample-2's board, sample-1 renamed, one graph removed.
    let changed = original
        .replace("AABBCCDD/AABBCCDD/......../", "AABBCCDD/AABBCCDD/...#..../")
        .replace("name = \"sample-1\"", "name = \"first\"");
    std::fs::write(&file, changed).unwrap();
    std::fs::remove_file(out.join("sample-2/graph-gravity.csr")).unwrap();
    let o = huarong(&["verify", out_arg, "--pipeline", file_arg]);
    assert_eq!(o.status.code(), Some(2));
    let text = stdout(&o);
    assert!(text.contains("BAD  sample-2/states.bin: stale"), "{text}");
    assert!(
        text.contains("BAD  sample-1/states.bin: left over"),
        "{text}"
    );
    assert!(text.contains("BAD  first/states.bin: missing"), "{text}");
    assert!(
        text.contains("BAD  sample-2/components-gravity.bin: stale"),
        "{text}"
    );

    let log = common::ok(&["run", file_arg, "-o", out_arg]);
    assert!(log.contains("removed sample-1/states.bin"), "{log}");
    assert!(!out.join("sample-1").exists());
    let o = huarong(&["verify", out_arg, "--pipeline", file_arg]);
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn repeated_list_items_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (section, says) in [
        (
            "[huarong]\npiece_sets = [\"h1v4s4\"]\nspaces = [\"unlabeled\"]\n\
             metrics = [\"step\", \"step\"]\n",
            "[huarong] metrics: \"step\" is listed twice",
        ),
        (
            "[huarong]\npiece_sets = [\"h1v4s4\", \"h1v4s4\"]\nspaces = [\"unlabeled\"]\n\
             metrics = [\"step\"]\n",
            "[huarong] piece_sets: \"h1v4s4\" is listed twice",
        ),
        (
            "[square-destroyer]\nexhaustive = [1, 2, 1]\n",
            "[square-destroyer] exhaustive: 1 is listed twice",
        ),
    ] {
        let file = dir.path().join("p.toml");
        std::fs::write(&file, format!("name = \"p\"\noutput = \"o\"\n{section}")).unwrap();
        let o = huarong(&[
            "run",
            file.to_str().unwrap(),
            "-o",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{section}");
        assert!(stderr(&o).contains(says), "{section}: {}", stderr(&o));
    }
    // A --tables folder that is not there is an error, not a silent search.
    for command in [
        &[
            "solve",
            "VCCV/VCCV/VHHV/VSSV/S..S",
            "--tables",
            "/no/such/dir",
        ][..],
        &["serve", "--port", "0", "--tables", "/no/such/dir"][..],
    ] {
        let o = huarong(command);
        assert_eq!(o.status.code(), Some(2), "{command:?}");
        assert!(
            stderr(&o).contains("--tables /no/such/dir: no such folder"),
            "{}",
            stderr(&o)
        );
    }
    // --max-states bounds a layout's search too.
    let o = huarong(&[
        "solve",
        "VCCV/VCCV/VHHV/VSSV/S..S",
        "--cold",
        "--max-states",
        "500",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("gave up after 500 states"),
        "{}",
        stderr(&o)
    );
}

/// A space that cannot fit is refused before any work (docs/RELIABILITY.md): the fifteen
/// puzzle's 16!/2 positions are known from its file, beyond a 32-bit index; an explored space
/// stops at the bound on states (`max_states`, or `--max-states` over it).
#[test]
fn spaces_that_cannot_fit_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles = common::root().join("puzzles");
    let pipeline = |name: &str, head: &str, puzzle: &str| {
        let file = dir.path().join(format!("{name}.toml"));
        let text = format!(
            "name = \"{name}\"\noutput = \"unused\"\n{head}[sliding]\npuzzles = [{:?}]\n\
             metrics = [\"step\"]\n",
            puzzles.join(puzzle).to_str().unwrap()
        );
        std::fs::write(&file, text).unwrap();
        file.to_str().unwrap().to_owned()
    };
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let fifteen = pipeline("fifteen", "", "fifteen-korf-1.toml");
    let o = huarong(&["run", &fifteen, "-o", out]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("fifteen-korf-1: 10,461,394,944,000 positions, more than the 4,294,967,295")
            && e.contains("refused before any work"),
        "{e}"
    );
    assert!(!std::path::Path::new(out).exists(), "nothing is written");

    let century = pipeline("century", "max_states = 1000\n", "century.toml");
    let o = huarong(&["run", &century, "-o", out]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("sliding century states: stopped exploring at")
            && e.contains("over the run's bound of 1000 (max_states)"),
        "{e}"
    );
    // The command line's bound over the pipeline's: 81,340 positions fit 100,000.
    let o = huarong(&["run", &century, "-o", out, "-q", "--max-states", "100000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A known size over the bound: the 8-puzzle's 181,440 over 100,000, before any work.
    let eight = pipeline("eight", "", "eight.toml");
    let o = huarong(&["run", &eight, "-o", out, "--max-states", "100000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("eight: 181,440 positions, over this run's bound of 100,000"),
        "{}",
        stderr(&o)
    );
}

/// A pipeline whose piece sets are closed under removing a piece writes the Klotski database;
/// `inspect` shows its head, and every row — by layout, CommonCode or ShortCode, as written —
/// solves in its `moves` in its metric, from the run's tables.
#[test]
fn the_klotski_database_is_inspected_and_every_row_solves_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("slice.toml");
    std::fs::write(
        &file,
        "name = \"slice\"\noutput = \"unused\"\n[huarong]\npiece_sets = [\"h0v0s0\", \
         \"h0v0s1\", \"h0v0s2\", \"h0v1s0\", \"h0v1s1\", \"h0v1s2\"]\nspaces = [\"unlabeled\"]\n\
         metrics = [\"step\", \"piece\"]\nstate_tables = false\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    common::ok(&["run", file.to_str().unwrap(), "-o", out, "--quiet"]);
    let inspect = |rows: &str| {
        let o = huarong(&["inspect", out, "--rows", rows]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let text = inspect("3");
    let head = text
        .split("klotski_puzzles.parquet (3 of ")
        .nth(1)
        .unwrap_or_else(|| panic!("no database head: {text}"));
    let mut lines = head.lines().skip(1);
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "metric",
            "piece_set",
            "moves",
            "layout",
            "common_code",
            "short_code",
            "cluster_size",
            "goals_in_cluster"
        ]
    );
    // Every row, read back through `inspect`.
    let all = inspect("100000");
    let (_, table) = all.split_once("klotski_puzzles.parquet (").unwrap();
    let (shown, total) = table.split_once(" of ").unwrap();
    assert_eq!(shown, total.split(' ').next().unwrap(), "every row shown");
    let rows: Vec<Vec<String>> = table
        .lines()
        .skip(3) // "N of M puzzles)", the header, its rule
        .take_while(|l| l.split_whitespace().count() == 8)
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect();
    assert_eq!(rows.len().to_string(), shown);
    assert!(rows.len() >= 6, "{rows:?}");
    let moves: Vec<u64> = rows.iter().map(|r| r[2].parse().unwrap()).collect();
    assert!(moves.windows(2).all(|w| w[0] >= w[1]), "most moves first");
    for row in &rows {
        for text in &row[3..6] {
            let o = huarong(&[
                "solve", text, "--metric", &row[0], "--tables", out, "--json",
            ]);
            assert!(o.status.success(), "{text}: {}", stderr(&o));
            let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert_eq!(v["moves"].to_string(), row[2], "{row:?}");
            assert_eq!(v["layout"], row[3]);
            assert_eq!(v["source"], "tables");
        }
    }
}
