//! Pattern databases built by a pipeline, checked two independent ways against the same
//! pipeline's breadth-first distances: IDA* over the databases finds, on thousands of sampled
//! positions of the eight puzzle and the 4 × 3 eleven puzzle, exactly the distance the
//! distances stage measured, along a path whose every step the tables confirm one move
//! closer. Then a database is verified and reused by a second run, and a stale one (another
//! goal) is not used.

use huarong_core::abstraction::Database;
use huarong_core::driver::Instance;
use huarong_core::{Outcome, SplitMix};
use pipeline::folder::Folder;
use pipeline::solve::DistanceTables;
use pipeline::{Pipeline, RunOptions, run_pipeline};
use sliding::driver::PuzzleInstance;
use sliding::pattern::{Pattern, TileBoard};
use sliding::tiles::Tiles;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs a one-puzzle `[sliding]` pipeline with these database groups into `out`.
fn run(puzzle: &str, groups: &str, out: &std::path::Path) -> pipeline::RunReport {
    let file = root().join("puzzles").join(puzzle);
    let text = format!(
        "name = \"p\"\noutput = \"unused\"\n[sliding]\npuzzles = [\"{}\"]\nmetrics = [\"step\"]\n\
         state_tables = false\npatterns = {groups}\n",
        file.display()
    );
    let read = |f: &str| std::fs::read_to_string(f);
    let pipeline = Pipeline::parse_with(registry::families(), &text, &read).unwrap();
    run_pipeline(&pipeline, Some(out), &RunOptions::default()).unwrap()
}

fn check(puzzle: &str, groups: &[&str], samples: usize) {
    let dir = tempfile::tempdir().unwrap();
    let list = format!(
        "[{}]",
        groups
            .iter()
            .map(|g| format!("\"{g}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let report = run(puzzle, &list, dir.path());
    assert_eq!(report.patterns().len(), groups.len());
    let text = std::fs::read_to_string(root().join("puzzles").join(puzzle)).unwrap();
    let p = sliding::driver::read_puzzle(puzzle, &text).unwrap();
    let tiles = Tiles::new(&p).unwrap();
    let tables = DistanceTables::open(&Folder::new(dir.path()), &tiles, "step")
        .unwrap()
        .unwrap();
    let board = TileBoard::new(&p).unwrap();
    let opened: Vec<(String, patterns::Database)> = groups
        .iter()
        .map(|g| {
            let a = Pattern::new(&board, g).unwrap();
            let path = dir.path().join(board.pattern_id(g)).join("pattern.bin");
            (
                board.pattern_id(g),
                patterns::Database::open(&path, &a).unwrap(),
            )
        })
        .collect();
    let dbs: Vec<Database<'_>> = opened
        .iter()
        .map(|(id, db)| Database {
            id,
            values: db.values(),
        })
        .collect();
    let n = huarong_core::Puzzle::ranked_len(&tiles).unwrap();
    let mut rng = SplitMix(7);
    for _ in 0..samples {
        let rank = rng.next_u64() % n;
        let code = tiles.to_sliding(rank);
        let want = tables.distance(&tiles, rank).expect("one component");
        let instance = PuzzleInstance::new(p.clone(), code);
        let got = instance.solve_informed("step", &dbs, u64::MAX).unwrap();
        let path = got.path.expect("every position reaches the goal");
        assert_eq!(
            path.layouts.len() - 1,
            want as usize,
            "{puzzle} rank {rank}"
        );
        // Each step one move closer by the tables.
        for (k, layout) in path.layouts.iter().enumerate() {
            let c = tiles.from_sliding(p.position(layout).unwrap()).unwrap();
            assert_eq!(tables.distance(&tiles, c), Some(want - k as u16));
        }
    }
}

#[test]
fn ida_star_over_the_eight_puzzles_databases_equals_its_bfs() {
    check("eight.toml", &["1234", "5678"], 3000);
    // Three groups, one a single tile.
    check("eight.toml", &["147", "2583", "6"], 1000);
}

#[test]
fn ida_star_over_the_eleven_puzzles_databases_equals_its_bfs() {
    check("eleven-4x3.toml", &["12345", "6789AB"], 2000);
}

#[test]
fn a_database_is_reused_and_a_stale_one_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let first = run("eight.toml", "true", dir.path());
    assert_eq!(first.patterns().len(), 1);
    assert_eq!(first.patterns()[0].id, "pattern-3x3-12345678");
    // The whole eight puzzle as one group: exact, 9!/2 placements reached, 31 moves at most
    // (the published farthest, puzzles/eight.toml).
    assert_eq!(first.patterns()[0].counts.iter().sum::<u64>(), 181_440);
    assert_eq!(first.patterns()[0].max, 31);
    let again = run("eight.toml", "true", dir.path());
    assert_eq!(again.patterns()[0].log.outcome, Outcome::Reused);
    // Another goal: the folder's database has other goal cells, so it is not this one's.
    let text = std::fs::read_to_string(root().join("puzzles/eight.toml"))
        .unwrap()
        .replace(
            "goal = \"\"\"\n123\n456\n78.",
            "goal = \"\"\"\n.12\n345\n678",
        );
    let p = sliding::parse(&text, "eight").unwrap();
    let a = Pattern::new(&TileBoard::new(&p).unwrap(), "12345678").unwrap();
    assert!(
        pipeline::space::open_pattern(&Folder::new(dir.path()), &a)
            .unwrap()
            .is_none()
    );
}

/// Before any work, a run counts the bytes of the files it has yet to write — at least each
/// distance table's 2 bytes a state and each database's 4 bits a placement — and is refused
/// when its file system has less free; a finished run has nothing left to write.
#[test]
fn a_run_that_cannot_fit_on_the_disk_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let file = root().join("puzzles/eight.toml");
    let text = format!(
        "name = \"p\"\noutput = \"unused\"\n[sliding]\npuzzles = [\"{}\"]\nmetrics = [\"step\"]\n\
         state_tables = false\npatterns = [\"1234\", \"5678\"]\n",
        file.display()
    );
    let read = |f: &str| std::fs::read_to_string(f);
    let pipeline = Pipeline::parse_with(registry::families(), &text, &read).unwrap();
    let plan = pipeline.section.spaces();
    let needed = pipeline::least_new_bytes(&plan, &Folder::new(dir.path()));
    let mut sizes: Vec<u64> = needed.iter().map(|(_, b)| *b).collect();
    sizes.sort_unstable();
    // Two databases of 9·8·7·6 placements, then 9!/2 positions' distances.
    assert_eq!(sizes, [1512, 1512, 362_880]);
    let total: u64 = sizes.iter().sum();
    assert!(pipeline::check_disk(&needed, total, dir.path()).is_ok());
    match pipeline::check_disk(&needed, total - 1, dir.path()) {
        Err(pipeline::PipelineError::NoDisk {
            message,
            needed,
            free,
        }) => {
            assert_eq!((needed, free), (total, total - 1));
            assert!(message.contains("distances-step.bin"), "{message}");
            assert!(message.contains("refused before any work"), "{message}");
            // Both figures, in the units a reader takes in at a glance.
            assert!(message.contains(&pipeline::bytes_text(total)), "{message}");
            assert!(
                message.contains(&pipeline::bytes_text(total - 1)),
                "{message}"
            );
            assert_eq!(pipeline::bytes_text(1512), "1.48 KiB");
            assert_eq!(pipeline::bytes_text(512), "512 B");
            assert_eq!(pipeline::bytes_text(total), "357.33 KiB");
            assert_eq!(pipeline::bytes_text(362_880), "354.38 KiB");
        }
        other => panic!("{other:?}"),
    }
    run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    assert_eq!(
        pipeline::least_new_bytes(&plan, &Folder::new(dir.path())),
        []
    );
}
