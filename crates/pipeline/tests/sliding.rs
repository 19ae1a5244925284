//! Every bundled sliding-block puzzle through the real pipeline (`pipelines/sliding.toml`),
//! checked against the figures published for it. The sources are cited in each puzzle file's
//! header and below.

mod published;

use pipeline::{Pipeline, RunOptions, SpaceReport, run_pipeline};

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The board's published optimum: (space, metric, moves).
const OPTIMA: &[(&str, &str, u64)] = &[
    // L. E. Hordern, "Sliding Piece Puzzles" (1986); puzzlopia checks/checkPennant.go.
    ("pennant", "piece", 59),
    // J. A. Storer, "Quzzle And Quzzle Killer": 84 rectilinear, 93 straight-line moves.
    ("quzzle", "piece", 84),
    ("quzzle", "straight", 93),
    // J. A. Storer, "Century and Super Century": 99, 149 (after the pure form's half move),
    // 138 and 230 rectilinear moves.
    ("century", "piece", 99),
    ("century-and-a-half", "piece", 149),
    ("super-century", "piece", 138),
    ("new-century", "piece", 230),
    // puzzlopia checks/checkSupercompo.go, after N. Baxter's chart.
    ("supercompo", "piece", 123),
    // The classic 横刀立马 record (SPEC; dnomd343/klotski; puzzlopia checks/checkAneRouge.go).
    ("hengdao-lima", "piece", 81),
    // M. Fogleman's Rush Hour database (rush.txt): moves of the database line.
    ("rush-hour-60", "straight", 60),
    ("rush-hour-58", "straight", 58),
    ("rush-hour-55", "straight", 55),
    ("rush-hour-51", "straight", 51),
    ("rush-hour-10", "straight", 10),
];

/// Positions reachable from the board: (space, count).
const STATES: &[(&str, u64)] = &[
    // Fogleman's database: the cluster size of the line.
    ("rush-hour-60", 2332),
    ("rush-hour-58", 9192),
    ("rush-hour-55", 9712),
    ("rush-hour-51", 9360),
    ("rush-hour-10", 304),
    // docs/USAGE.md's table for the block puzzles (computed here, asserted so it cannot drift;
    // 横刀立马's also equals the component the Huarong Dao model finds, `serve/tests/api.rs`).
    ("hengdao-lima", 25_955),
    ("pennant", 1_398),
    ("quzzle", 888),
    ("century", 81_340),
    ("century-and-a-half", 81_340),
    ("super-century", 81_340),
    ("new-century", 81_340),
    ("supercompo", 81_462),
    // n!/2 for the sliding tiles.
    ("five", 360),
    ("seven", 20_160),
    ("eight", 181_440),
    ("nine", 1_814_400),
];

/// Positions at each distance from the solved board, single-tile moves (the OEIS sequences
/// computed by H. Pfoertner from Karlemo and Östergård's data; the 8-puzzle's first by A.
/// Reinefeld, IJCAI 1993).
const TILE_DISTRIBUTIONS: &[(&str, &[u64])] = &[
    // OEIS A090034.
    (
        "five",
        &[
            1, 2, 3, 5, 6, 7, 10, 12, 12, 16, 23, 25, 28, 39, 44, 40, 29, 21, 18, 12, 6, 1,
        ],
    ),
    // OEIS A090035.
    (
        "seven",
        &[
            1, 2, 3, 6, 10, 14, 19, 28, 42, 61, 85, 119, 161, 215, 293, 396, 506, 632, 788, 985,
            1194, 1414, 1664, 1884, 1999, 1958, 1770, 1463, 1076, 667, 361, 190, 88, 39, 19, 7, 1,
        ],
    ),
    // OEIS A089473.
    (
        "eight",
        &[
            1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638,
            9529, 10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
        ],
    ),
    // OEIS A090036.
    (
        "nine",
        &[
            1, 2, 3, 6, 11, 19, 30, 44, 68, 112, 176, 271, 411, 602, 851, 1232, 1783, 2530, 3567,
            4996, 6838, 9279, 12463, 16597, 21848, 28227, 35682, 44464, 54597, 65966, 78433, 91725,
            104896, 116966, 126335, 131998, 133107, 128720, 119332, 106335, 91545, 75742, 60119,
            45840, 33422, 23223, 15140, 9094, 5073, 2605, 1224, 528, 225, 75, 20, 2,
        ],
    ),
];

fn space<'a>(spaces: &'a [SpaceReport], id: &str) -> &'a SpaceReport {
    spaces
        .iter()
        .find(|s| s.space_id == id)
        .unwrap_or_else(|| panic!("no space {id}"))
}

#[test]
fn every_bundled_puzzle_meets_its_published_figures() {
    let text = std::fs::read_to_string(root().join("pipelines/sliding.toml")).unwrap();
    let read = |path: &str| std::fs::read_to_string(root().join(path));
    let pipeline = Pipeline::parse_with(registry::families(), &text, &read).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    for &(id, metric, moves) in OPTIMA {
        let s = space(&report.spaces, id);
        let m = s.metrics.iter().find(|m| m.metric == metric).unwrap();
        assert_eq!(m.answer, Some(moves), "{id} in the {metric} metric");
    }
    for &(id, states) in STATES {
        assert_eq!(space(&report.spaces, id).states, states, "{id}");
    }
    for &(id, dist) in TILE_DISTRIBUTIONS {
        let s = space(&report.spaces, id);
        // A tile moves one cell at a time, so all three metrics agree.
        for m in &s.metrics {
            assert_eq!(
                m.distance_histogram, dist,
                "{id} in the {} metric",
                m.metric
            );
        }
    }
    // Every bundled puzzle file (but the fifteen and eleven puzzles') is in the pipeline and
    // has a published figure checked here.
    let checked: Vec<&str> = OPTIMA
        .iter()
        .map(|o| o.0)
        .chain(TILE_DISTRIBUTIONS.iter().map(|t| t.0))
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(root().join("puzzles"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".toml").map(str::to_owned)
        })
        // The fifteen puzzle's files are for `solve` (Korf's optima, puzzles/korf-100.txt, are
        // checked by crates/huarong/tests/fifteen.rs); the eleven puzzles (239.5M positions
        // each, `pipelines/sliding-tiles.toml`) are checked by the sliding bench against OEIS;
        // the twenty-four and thirty-five puzzles have no space (25!/2 and 36!/2 positions):
        // Korf & Taylor's optima, puzzles/korf-taylor-24.txt, and positions of both of known
        // depth are checked by crates/huarong/tests/twenty_four.rs.
        .filter(|n| {
            !n.starts_with("fifteen")
                && !n.starts_with("eleven")
                && n != "twenty-four"
                && n != "thirty-five"
        })
        .collect();
    files.sort();
    for f in &files {
        assert!(
            checked.contains(&f.as_str()),
            "{f} has no published figure checked"
        );
        space(&report.spaces, f);
    }
    assert!(files.len() >= 15, "{files:?}");
}

/// Every position of a sliding puzzle's space with its distance to the goal in `metric`
/// (a plain breadth-first search over the puzzle's own moves).
fn sliding_distances(p: &sliding::SlidingPuzzle, metric: usize) -> Vec<(u64, Option<u32>)> {
    use huarong_core::Puzzle;
    let codes = enumerate::explore(p, |_| {});
    let index = |c: u64| codes.binary_search(&c).unwrap();
    let mut dist: Vec<Option<u32>> = vec![None; codes.len()];
    let mut frontier: Vec<usize> = (0..codes.len()).filter(|&i| p.is_goal(codes[i])).collect();
    for &i in &frontier {
        dist[i] = Some(0);
    }
    let mut d = 0;
    let mut out = Vec::new();
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for &i in &frontier {
            out.clear();
            p.successors(codes[i], metric, &mut out);
            for &t in &out {
                let j = index(t);
                if dist[j].is_none() {
                    dist[j] = Some(d);
                    next.push(j);
                }
            }
        }
        frontier = next;
    }
    codes.into_iter().zip(dist).collect()
}

/// Huarong Dao layouts written as puzzle files (`klotski::goal::puzzle_file`) reach the same
/// distances through the generic sliding engine as through the dedicated `klotski` stages: the
/// 12 named classic layouts in all three metrics, and 1,000 random classic positions — each
/// compared with every position of its component.
#[test]
fn huarong_layouts_as_puzzle_files_match_the_klotski_stages() {
    use huarong_core::{Puzzle, SplitMix, UNREACHABLE};
    use klotski::{PieceSet, Unlabeled};
    let dir = tempfile::tempdir().unwrap();
    let u = Unlabeled::new(PieceSet::CLASSIC);
    pipeline::run_space(&u, dir.path(), &[0, 1, 2], &RunOptions::default()).unwrap();
    let open = pipeline::space::OpenSpace::open(&u, dir.path(), &[0, 1, 2]).unwrap();
    let klotski_distance = |layout: &str, m: usize| -> Option<u32> {
        let code = klotski::parse(layout).unwrap().board.code();
        let i = u.index_of(code).unwrap() as usize;
        let d = open.metrics[m].distances.values()[i];
        (d != UNREACHABLE).then_some(d as u32)
    };
    let mut covered = std::collections::HashSet::new();
    let mut starts: Vec<u32> = klotski::named::LAYOUTS
        .iter()
        .take(12)
        .map(|(_, l)| u.index_of_board(&klotski::parse(l).unwrap().board).unwrap())
        .collect();
    let mut rng = SplitMix(16);
    starts.extend((0..1000).map(|_| (rng.next_u64() % u.len() as u64) as u32));
    let (mut compared, mut components) = (0usize, 0usize);
    for &start in &starts {
        if covered.contains(&start) {
            continue;
        }
        let board = u.board(start);
        let (text, back) = klotski::goal::puzzle_file(&board, false, (3, 1)).unwrap();
        let p = sliding::parse(&text, "layout").unwrap();
        let layout_of = |code: u64| -> String {
            p.render(code)
                .chars()
                .map(|c| back.get(&c).copied().unwrap_or(c))
                .collect()
        };
        components += 1;
        for m in 0..3 {
            for (code, d) in sliding_distances(&p, m) {
                let layout = layout_of(code);
                assert_eq!(d, klotski_distance(&layout, m), "{layout} metric {m}");
                if m == 0 {
                    covered.insert(
                        u.index_of(klotski::parse(&layout).unwrap().board.code())
                            .unwrap(),
                    );
                    compared += 1;
                }
            }
        }
    }
    eprintln!("{compared} positions compared in {components} components");
    // The components of 1,012 starting positions: most of the space.
    assert!(
        compared > 30_000,
        "{compared} positions in {components} components"
    );
}

/// The sliding tiles as ranked spaces (`sliding::tiles`, a dense perfect ranking: positions are
/// computed, not discovered and searched for) through the stages give the published distance
/// distributions, and the same states, components and distances per position as the explored
/// space of the same file — two independent code paths.
#[test]
fn ranked_tiles_match_the_explored_spaces_and_the_published_figures() {
    use huarong_core::Puzzle;
    let opts = RunOptions::default();
    for &(id, dist) in TILE_DISTRIBUTIONS {
        let text = std::fs::read_to_string(root().join(format!("puzzles/{id}.toml"))).unwrap();
        let explored = sliding::parse(&text, id).unwrap();
        let ranked = sliding::tiles::Tiles::new(&explored).expect("a tiles puzzle");
        assert_eq!(ranked.ranked_len(), Some(dist.iter().sum::<u64>()), "{id}");
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("ranked"), dir.path().join("explored"));
        let r = pipeline::run_space(&ranked, &a, &[0], &opts).unwrap();
        let e = pipeline::run_space(&explored, &b, &[0], &opts).unwrap();
        assert_eq!(r.metrics[0].distance_histogram, dist, "{id} ranked");
        assert_eq!(e.metrics[0].distance_histogram, dist, "{id} explored");
        assert_eq!(r.metrics[0].edges, e.metrics[0].edges, "{id}");
        assert_eq!(r.metrics[0].components, 1, "{id}");
        // Position by position: the ranked space's distance of each state is the explored
        // space's distance of the same position.
        let open = |p: &dyn Puzzle, d: &std::path::Path| {
            pipeline::space::OpenSpace::open(p, d, &[0]).unwrap()
        };
        let (ro, eo) = (open(&ranked, &a), open(&explored, &b));
        let (rd, ed) = (
            ro.metrics[0].distances.values(),
            eo.metrics[0].distances.values(),
        );
        for (i, code) in ro.states.codes(&ranked).to_vec().into_iter().enumerate() {
            let j = eo
                .states
                .lookup(&explored, ranked.to_sliding(code))
                .unwrap() as usize;
            assert_eq!(rd[i], ed[j], "{id}: {}", ranked.render(code));
        }
        stored_and_regenerated_agree(id, &ranked, &a, &dir.path().join("stored"));
    }
}

/// The tiles' graph is regenerated by the later stages, not stored: storing it instead gives
/// the same rows, degrees, components and distances (the same artifact payloads), on the
/// local engine and on timely (two workers, rows regenerated by each).
fn stored_and_regenerated_agree(
    id: &str,
    ranked: &sliding::tiles::Tiles,
    regenerated_dir: &std::path::Path,
    stored_dir: &std::path::Path,
) {
    use graph::Rows;
    use huarong_core::Puzzle;
    let stored = ranked.clone().storing_graph();
    assert!(!ranked.stores_graph() && stored.stores_graph());
    let r = pipeline::run_space(&stored, stored_dir, &[0], &RunOptions::default()).unwrap();
    let open =
        |p: &dyn Puzzle, d: &std::path::Path| pipeline::space::OpenSpace::open(p, d, &[0]).unwrap();
    let (g, s) = (open(ranked, regenerated_dir), open(&stored, stored_dir));
    let (gm, sm) = (&g.metrics[0], &s.metrics[0]);
    assert!(!gm.csr.is_stored() && sm.csr.is_stored(), "{id}");
    assert_eq!(gm.csr.degree_histogram(), sm.csr.degree_histogram(), "{id}");
    assert_eq!(gm.csr.arc_count(), sm.csr.arc_count(), "{id}");
    assert_eq!(r.metrics[0].edges, gm.csr.edge_count(), "{id}");
    let rows = gm.csr.rows(ranked, &g.states, 0);
    let mut buf = Vec::new();
    for u in 0..g.states.len() as u32 {
        assert_eq!(rows.row(u, &mut buf), sm.csr.neighbors(u), "{id} row {u}");
    }
    // Payloads (headers differ: the fingerprints say which graph they were built from).
    assert_eq!(gm.components.checksum(), sm.components.checksum(), "{id}");
    assert_eq!(gm.distances.checksum(), sm.distances.checksum(), "{id}");
    let cluster = dataflow::Cluster::local(2);
    let (roots, _) = dataflow::component_roots(&rows, &cluster).unwrap().unwrap();
    assert_eq!(
        roots,
        components::union_find_roots(&sm.csr.view(), |_| {}),
        "{id}"
    );
    let src = distances::sources(ranked, &g.states).unwrap();
    let (dist, _) = dataflow::distances(&rows, &src, &cluster).unwrap().unwrap();
    assert_eq!(dist, sm.distances.values(), "{id} timely");
}

/// The 4 × 3 eleven puzzle in full, through the stages as the pipeline runs it (ranked, moves
/// regenerated, not stored): 239,500,800 positions in one component, at the distances OEIS
/// A090166 publishes. About 25 s, 3.4 GB of memory and 3.4 GB of scratch disk in release mode;
/// ignored in debug builds.
#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn eleven_4x3_has_the_published_distance_distribution() {
    let text = std::fs::read_to_string(root().join("puzzles/eleven-4x3.toml")).unwrap();
    let p = sliding::driver::read_puzzle("eleven-4x3.toml", &text).unwrap();
    let space = sliding::driver::space_of(&p);
    assert_eq!(space.ranked_len(), Some(239_500_800));
    assert!(!space.stores_graph());
    let dir = tempfile::tempdir().unwrap();
    let r = pipeline::run_space(space.as_ref(), dir.path(), &[0], &RunOptions::default()).unwrap();
    let m = &r.metrics[0];
    assert_eq!(m.distance_histogram, published::A090166);
    assert_eq!((m.components, m.goal_components), (1, 1));
    // 2 moves from a corner, 3 from an edge, 4 from the middle: (4·2 + 6·3 + 2·4)·11!/2 / 2.
    assert_eq!(m.edges, 339_292_800);
    assert_eq!(
        m.degree_histogram,
        [0, 0, 79_833_600, 119_750_400, 39_916_800]
    );
}

/// The 6 × 2 eleven puzzle in full, as the pipeline runs it: one component of 239,500,800
/// positions; the first 39 terms of OEIS A090167 (the terms bundled) and its diameter, 80
/// (the sequence's length, A090167 running from distance 0 to 80). About 25 s in release mode;
/// ignored in debug builds.
#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn eleven_6x2_has_the_published_distances_and_diameter() {
    let text = std::fs::read_to_string(root().join("puzzles/eleven-6x2.toml")).unwrap();
    let p = sliding::driver::read_puzzle("eleven-6x2.toml", &text).unwrap();
    let space = sliding::driver::space_of(&p);
    assert_eq!(space.ranked_len(), Some(239_500_800));
    let dir = tempfile::tempdir().unwrap();
    let r = pipeline::run_space(space.as_ref(), dir.path(), &[0], &RunOptions::default()).unwrap();
    let m = &r.metrics[0];
    let hist = &m.distance_histogram;
    assert_eq!(
        &hist[..published::A090167_START.len()],
        published::A090167_START
    );
    assert_eq!((m.max_distance, hist.len()), (80, 81));
    assert_eq!(hist.iter().sum::<u64>(), 239_500_800);
    assert_eq!((m.components, m.goal_components), (1, 1));
}
