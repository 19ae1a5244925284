//! The Klotski universe pipeline on a slice of piece sets (the parallel, many-set path): every
//! space's components and distances against the sequential references, the `hardest` records,
//! and `solve` answering from the universe tables for a non-classic piece set.

use components::Components;
use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::driver::SolveRequest;
use huarong_core::{Puzzle, Ranking, UNREACHABLE};
use klotski::{Metric, PieceSet, Unlabeled};
use pipeline::play::Atlas;
use pipeline::solve::{Solution, Source, instance};
use pipeline::space::Kind;
use pipeline::{Pipeline, RunOptions, run_pipeline};
use std::path::Path;

#[test]
fn universe_slice_matches_the_references_and_solves_from_its_tables() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/pipelines/klotski-universe-mini.toml"
    ))
    .unwrap();
    let pipeline = Pipeline::parse(registry::families(), &text).unwrap();
    let report = run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    assert_eq!(report.spaces.len(), 12);
    assert!(
        report
            .tables
            .iter()
            .any(|(f, _)| f == "component_sizes.parquet")
    );
    assert!(!report.tables.iter().any(|(f, _)| f.starts_with("states-")));

    // The notebook reader (`pipeline::outputs`, the Python package's) sees the same tables;
    // every metric's components after the first are references to the first's table.
    let outputs = pipeline::outputs::Outputs::open(
        registry::families(),
        dir.path(),
        Some(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/pipelines/klotski-universe-mini.toml"
        ))),
    )
    .unwrap();
    let mut hardest = 0;
    for space in &report.spaces {
        let set = space.space_id.strip_suffix("-unlabeled").unwrap();
        let u = Unlabeled::new(set.parse::<PieceSet>().unwrap());
        assert_eq!(space.states, u.len() as u64);
        let states = StateTable::open(&Kind::States.path(&space.dir, ""), &u).unwrap();
        let goals: Vec<u32> = (0..u.len() as u32)
            .filter(|&i| u.is_goal(u.unrank(i as u64)))
            .collect();
        for (m, name) in ["step", "straight", "piece"].iter().enumerate() {
            let csr = Csr::open(&Kind::Graph.path(&space.dir, name), &u, m, &states).unwrap();
            let comps = Components::open(&Kind::Components.path(&space.dir, name), &csr).unwrap();
            let dist = Distances::open(&Kind::Distances.path(&space.dir, name), &u, &states, &csr)
                .unwrap();
            assert_eq!(
                comps.ids(),
                &components::reference::component_ids(&csr.rows(&u, &states, m))[..],
                "{} {name}",
                space.space_id
            );
            let read = outputs.components(&space.space_id, name).unwrap();
            assert_eq!(read.as_slice(), comps.ids(), "{} {name}", space.space_id);
            assert_eq!(read.is_mapped(), comps.count() > 1, "{}", space.space_id);
            if comps.count() > 1 {
                let step = Kind::Components.path(&space.dir, "step");
                assert_eq!(read.path(), Some(step.as_path()), "{}", space.space_id);
            }
            assert_eq!(
                dist.values(),
                &distances::reference::bfs(&csr.rows(&u, &states, m), &goals)[..],
                "{} {name}",
                space.space_id
            );
            let finite = dist.values().iter().filter(|&&d| d != UNREACHABLE);
            let max = finite.clone().copied().max().unwrap_or(0) as u32;
            assert_eq!(space.metrics[m].max_distance, max);
            if *name == "piece" {
                hardest = hardest.max(max);
            }
        }
    }
    // The slice's hardest piece-metric positions are the classic set's (h1v4s4): 93 moves.
    assert_eq!(hardest, 93);

    // `solve` finds a non-classic set's tables in the universe folder and returns an optimal
    // path (the stage's distance).
    let layout = klotski::parse("VSSV/VSSV/.CC./.CC./HH..").unwrap().board;
    assert_eq!(layout.piece_set().to_string(), "h1v2s4");
    let roots = [dir.path().join("missing"), dir.path().to_owned()];
    let solve_layout = |layout: &str| {
        let request = SolveRequest {
            position: Some(layout),
            ..SolveRequest::default()
        };
        let instance = instance(registry::families(), &request).unwrap();
        solve(instance.as_ref(), "piece", &roots, u64::MAX).unwrap()
    };
    for set in ["h1v2s2", "h0v2s3", "h2v2s2"] {
        let b = Unlabeled::new(set.parse().unwrap()).board(0);
        let s = solve_layout(&klotski::render(&b));
        assert_eq!(
            s.source,
            Source::Tables(dir.path().join(format!("{set}-unlabeled")))
        );
        let cold = klotski::solve::solve(&b, Metric::Piece);
        assert_eq!(s.path.map(|p| p.layouts.len()), cold.map(|p| p.len()));
    }
    // A piece set outside the slice falls back to the cold search.
    let s = solve_layout(&klotski::render(&layout));
    assert_eq!(s.source, Source::Searched);
}

/// The whole universe (every piece set with positions, three metrics): the 29,334,498
/// positions dnomd343/klotski publishes, and its hardest positions — 138 piece moves, in the
/// 峰回路转 family `h2v3s4` and no other set — with Super Century's start (Storer's 138,
/// `puzzles/super-century.toml`) among them: the hardest start of any 4 × 5 piece set. Then the
/// Klotski database of the universe against those facts: Super Century's cluster's puzzle first,
/// 横刀立马's cluster's puzzle the farthest position of its component by the records, and the
/// database's figures in docs/USAGE.md. About 15 s and 4.8 GB of scratch disk in release mode;
/// debug builds skip it.
#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn the_universe_is_hardest_at_138_in_h2v3s4_only() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::parse(registry::families(), UNIVERSE).unwrap();
    let report = run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    assert_eq!(report.spaces.len(), 203);
    let positions: u64 = report.spaces.iter().map(|s| s.states).sum();
    assert_eq!(positions, 29_334_498);
    let max = |s: &pipeline::SpaceReport| s.metrics[2].max_distance;
    let hardest = report.spaces.iter().map(max).max().unwrap();
    assert_eq!(hardest, 138);
    let at: Vec<&str> = report
        .spaces
        .iter()
        .filter(|s| max(s) == hardest)
        .map(|s| s.space_id.as_str())
        .collect();
    assert_eq!(at, ["h2v3s4-unlabeled"]);
    // Super Century's start, from its puzzle file's letters: A, E, G vertical generals, F the
    // 2 × 2 block, H and J horizontal, B, C, D, I soldiers.
    let super_century = "VSSS/VVCC/VVCC/VHHS/..HH";
    let request = SolveRequest {
        position: Some(super_century),
        ..SolveRequest::default()
    };
    let s = solve(
        instance(registry::families(), &request).unwrap().as_ref(),
        "piece",
        &[dir.path()],
        u64::MAX,
    )
    .unwrap();
    assert_eq!(
        s.source,
        Source::Tables(dir.path().join("h2v3s4-unlabeled"))
    );
    assert_eq!(s.path.unwrap().layouts.len() - 1, 138);

    // The Klotski database of the whole universe: its first puzzle is Super Century's cluster's
    // at 138, minimal (every piece matters), and 横刀立马's cluster's puzzle is the farthest
    // position the records name in its component (93 moves; of two, the smaller CommonCode).
    let puzzles = export::read_text(&dir.path().join("klotski_puzzles.parquet"), 100_000).unwrap();
    let column = |name: &str| {
        let k = puzzles
            .columns
            .iter()
            .position(|c| c.starts_with(&format!("{name} (")))
            .unwrap();
        move |row: &Vec<String>| row[k].clone()
    };
    let (set, moves, layout) = (column("piece_set"), column("moves"), column("layout"));
    let (size, common, metric) = (
        column("cluster_size"),
        column("common_code"),
        column("metric"),
    );
    assert_eq!(puzzles.rows.len(), puzzles.total_rows);
    let piece: Vec<&Vec<String>> = puzzles
        .rows
        .iter()
        .filter(|r| metric(r) == "piece")
        .collect();
    let first = piece[0];
    assert_eq!(
        (set(first).as_str(), moves(first).as_str()),
        ("h2v3s4", "138")
    );
    assert_eq!(piece.iter().filter(|r| moves(r) == "138").count(), 1);
    let file = dir.path().with_extension("toml");
    std::fs::write(&file, UNIVERSE).unwrap();
    let outputs =
        pipeline::outputs::Outputs::open(registry::families(), dir.path(), Some(&file)).unwrap();
    let component = |space: &str, text: &str| {
        let board = klotski::notation::parse(text).unwrap().board;
        let u = Unlabeled::new(board.piece_set());
        let ids = outputs.components(space, "piece").unwrap();
        ids.as_slice()[u.index_of_board(&board).unwrap() as usize]
    };
    let super_century_cluster = component("h2v3s4-unlabeled", super_century);
    assert_eq!(
        component("h2v3s4-unlabeled", &layout(first)),
        super_century_cluster
    );

    let records = export::read_text(&dir.path().join("records.parquet"), 10_000).unwrap();
    let field = |name: &str| {
        let k = records
            .columns
            .iter()
            .position(|c| c.starts_with(&format!("{name} (")))
            .unwrap();
        move |row: &Vec<String>| row[k].clone()
    };
    let (name, r_layout, r_set, r_moves, r_size, r_metric) = (
        field("name"),
        field("layout"),
        field("piece_set"),
        field("moves"),
        field("component_size"),
        field("metric"),
    );
    let classic = "h1v4s4-unlabeled";
    let hengdao = records
        .rows
        .iter()
        .find(|r| name(r) == "横刀立马" && r_metric(r) == "piece")
        .unwrap();
    let cluster = component(classic, &r_layout(hengdao));
    let farthest: Vec<&Vec<String>> = records
        .rows
        .iter()
        .filter(|r| name(r) == "farthest" && r_set(r) == "h1v4s4" && r_metric(r) == "piece")
        .filter(|r| component(classic, &r_layout(r)) == cluster)
        .collect();
    assert!(!farthest.is_empty());
    let in_cluster: Vec<&Vec<String>> = piece
        .iter()
        .copied()
        .filter(|r| set(r) == "h1v4s4" && component(classic, &layout(r)) == cluster)
        .collect();
    assert_eq!(in_cluster.len(), 1, "one puzzle per cluster");
    let puzzle = in_cluster[0];
    assert_eq!(moves(puzzle), "93");
    assert_eq!(moves(puzzle), r_moves(farthest[0]));
    assert_eq!(size(puzzle), r_size(hengdao));
    let smallest = farthest
        .iter()
        .map(|r| klotski::codes::codes(&klotski::notation::parse(&r_layout(r)).unwrap().board).0)
        .min()
        .unwrap();
    assert_eq!(common(puzzle), smallest);

    // docs/USAGE.md's table of the database: per metric the solvable clusters (the summary's
    // column), the minimal puzzles (the database's rows) and the hardest puzzle (its first row).
    let summary = export::read_text(&dir.path().join("summary.parquet"), usize::MAX).unwrap();
    let at = |name: &str| {
        summary
            .columns
            .iter()
            .position(|c| c.starts_with(&format!("{name} (")))
            .unwrap()
    };
    let mut computed = Vec::new();
    for m in ["step", "straight", "piece"] {
        let solvable: u64 = summary
            .rows
            .iter()
            .filter(|r| r[at("metric")] == m)
            .map(|r| r[at("solvable_clusters")].parse::<u64>().unwrap())
            .sum();
        let rows: Vec<&Vec<String>> = puzzles.rows.iter().filter(|r| metric(r) == m).collect();
        computed.push(vec![
            format!("`{m}`"),
            pipeline::thousands(solvable),
            pipeline::thousands(rows.len() as u64),
            format!(
                "{}: `{}`, `{}`",
                moves(rows[0]),
                set(rows[0]),
                layout(rows[0])
            ),
        ]);
    }
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/USAGE.md"))
        .unwrap();
    let (_, section) = docs.split_once("## The Klotski database").unwrap();
    let documented: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    assert_eq!(documented, computed);
}

const UNIVERSE: &str = "name = \"universe\"\noutput = \"unused\"\n[huarong]\n\
    piece_sets = [\"all\"]\nspaces = [\"unlabeled\"]\n\
    metrics = [\"step\", \"straight\", \"piece\"]\nstate_tables = false\n";

/// `huarong solve`'s path: tables under `roots`, else the family's search.
fn solve<P: AsRef<std::path::Path>>(
    instance: &dyn huarong_core::driver::Instance,
    metric: &str,
    roots: &[P],
    limit: u64,
) -> Result<Solution, pipeline::solve::Error> {
    let roots = roots.iter().map(|r| r.as_ref().to_owned()).collect();
    Atlas::searching(registry::families(), roots, limit).solve_instance(instance, Some(metric))
}
