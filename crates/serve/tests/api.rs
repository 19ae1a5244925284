//! The JSON API over real HTTP: a server on a free loopback port, answers from the distance
//! tables of a real pipeline run checked against published figures and against the same server
//! without tables (the position's component explored on the spot), and every kind of bad input
//! answered with a JSON error, never a crash.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pipeline::play::Atlas;
use pipeline::{Pipeline, RunOptions, run_pipeline};
use serde_json::Value;
use serve::client::{Connection, encode};
use serve::{App, Catalog};

/// The classic opening, 横刀立马.
const HENGDAO: &str = "VCCV/VCCV/VHHV/VSSV/S..S";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the unlabeled classic pipeline (65,880 positions, all three metrics) into `dir`.
fn tables(dir: &Path) {
    let text = std::fs::read_to_string(repo().join("pipelines/huarong-canonical.toml")).unwrap();
    let pipeline = Pipeline::parse(registry::families(), &text).unwrap();
    run_pipeline(&pipeline, Some(dir), &RunOptions::default()).unwrap();
}

/// Starts a server (tables under `roots`, the repository's puzzle files) on a free port.
async fn start(roots: Vec<PathBuf>) -> SocketAddr {
    serve_app(App {
        atlas: Atlas::new(registry::families(), roots, 5_000_000),
        catalog: Catalog::load(registry::families(), Some(&repo().join("puzzles"))).unwrap(),
    })
    .await
}

/// Starts a server for `app` on a free port.
async fn serve_app(app: App) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve::serve(
        listener,
        Arc::new(app),
        std::future::pending(),
    ));
    addr
}

async fn get(c: &mut Connection, target: &str) -> (u16, Value) {
    let (status, body) = c.get(target).await.unwrap();
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{target}: {e}: {body}"));
    (status, json)
}

async fn ok(c: &mut Connection, target: &str) -> Value {
    let (status, json) = get(c, target).await;
    assert_eq!(status, 200, "{target}: {json}");
    json
}

fn position(layout: &str, metric: &str) -> String {
    format!("/api/position?layout={}&metric={metric}", encode(layout))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tables_and_exploration_agree_with_the_published_figures() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let with = start(vec![dir.path().to_owned()]).await;
    let without = start(Vec::new()).await;
    let (mut t, mut x) = (
        Connection::open(with).await.unwrap(),
        Connection::open(without).await.unwrap(),
    );
    // 横刀立马: 81 moves in the piece metric (the classic record; SPEC, dnomd343/klotski) and
    // 116 single-cell steps (dnomd343/klotski's step count for the same layout).
    for (metric, moves) in [("piece", 81), ("step", 116), ("straight", -1)] {
        let a = ok(&mut t, &position(HENGDAO, metric)).await;
        let b = ok(&mut x, &position(HENGDAO, metric)).await;
        assert!(a["source"]["tables"].is_string(), "{}", a["source"]);
        assert!(b["source"]["explored"].is_u64(), "{}", b["source"]);
        if moves >= 0 {
            assert_eq!(a["distance"], moves, "{metric}");
        }
        // Two independent ways: the pipeline's tables and a search of the component now.
        for key in [
            "distance",
            "moves",
            "component",
            "goal",
            "picture",
            "position",
        ] {
            assert_eq!(a[key], b[key], "{metric}: {key}");
        }
        assert_eq!(a["component"]["size"], 25_955);
        assert_eq!(b["source"]["explored"], 25_955);
        let d = a["distance"].as_i64().unwrap();
        let moves = a["moves"].as_array().unwrap();
        assert!(!moves.is_empty());
        assert!(moves.iter().any(|m| m["change"] == "closer"));
        for m in moves {
            let md = m["distance"].as_i64().unwrap();
            assert!(
                (md - d).abs() <= 1,
                "an undirected move changes the distance by ≤ 1"
            );
            let expected = match md.cmp(&d) {
                std::cmp::Ordering::Less => "closer",
                std::cmp::Ordering::Equal => "same",
                std::cmp::Ordering::Greater => "farther",
            };
            assert_eq!(m["change"], expected);
            // The move's own page says the same distance.
            let next = ok(&mut t, &position(m["position"].as_str().unwrap(), metric)).await;
            assert_eq!(next["distance"], m["distance"]);
            // The moved piece covers exactly its new cells there.
            let cells: Vec<i64> = m["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect();
            let label = &a["picture"]["pieces"][m["piece"].as_u64().unwrap() as usize]["label"];
            for c in cells {
                let k = next["picture"]["cells"][c as usize].as_i64().unwrap();
                assert!(k >= 0);
                assert_eq!(&next["picture"]["pieces"][k as usize]["label"], label);
            }
        }
        // The farthest member of the component is as far as it says, in the same component.
        let far = ok(
            &mut t,
            &position(a["component"]["farthest"].as_str().unwrap(), metric),
        )
        .await;
        assert_eq!(far["distance"], a["component"]["farthest_distance"]);
        assert_eq!(far["component"]["size"], 25_955);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_solution_is_a_chain_of_legal_moves_to_a_goal() {
    let dir = tempfile::tempdir().unwrap();
    tables(dir.path());
    let addr = start(vec![dir.path().to_owned()]).await;
    let mut c = Connection::open(addr).await.unwrap();
    let s = ok(
        &mut c,
        &format!("/api/solve?layout={}&metric=piece", encode(HENGDAO)),
    )
    .await;
    assert_eq!(s["moves"], 81);
    let path = s["path"].as_array().unwrap();
    assert_eq!(path.len(), 82);
    assert_eq!(path[0]["position"], HENGDAO);
    for (i, pair) in path.windows(2).enumerate() {
        let here = ok(
            &mut c,
            &position(pair[0]["position"].as_str().unwrap(), "piece"),
        )
        .await;
        assert_eq!(here["distance"], 81 - i);
        assert!(
            here["moves"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["position"] == pair[1]["position"] && m["change"] == "closer"),
            "step {i} is not a closer move"
        );
    }
    let last = ok(
        &mut c,
        &position(path[81]["position"].as_str().unwrap(), "piece"),
    )
    .await;
    assert_eq!(last["goal"], true);
    assert_eq!(last["distance"], 0);

    // dnomd343/klotski's codes of 横刀立马 (its published CommonCode and ShortCode) name the
    // same position, and every position answer shows both.
    for code in ["1A9BF0C00", "4WVE1"] {
        let p = ok(&mut c, &position(code, "piece")).await;
        assert_eq!(p["position"], HENGDAO);
        assert_eq!(p["distance"], 81);
        assert_eq!(p["codes"]["common_code"], "1A9BF0C00");
        assert_eq!(p["codes"]["short_code"], "4WVE1");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bundled_and_pasted_puzzle_files() {
    let addr = start(Vec::new()).await;
    let mut c = Connection::open(addr).await.unwrap();
    let catalog = ok(&mut c, "/api/catalog").await;
    assert!(
        catalog["named"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["layout"] == HENGDAO)
    );
    assert!(
        catalog["puzzles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["id"] == "pennant" && p["name"] == "Pennant")
    );
    // Pennant: 59 moves in the piece metric (L. E. Hordern, "Sliding Piece Puzzles", 1986).
    let p = ok(&mut c, "/api/position?puzzle=pennant&metric=piece").await;
    assert_eq!(p["distance"], 59);
    // The same file pasted, from a later position of its solution.
    let text = std::fs::read_to_string(repo().join("puzzles/pennant.toml")).unwrap();
    let s = ok(&mut c, "/api/solve?puzzle=pennant&metric=piece").await;
    let tenth = s["path"][10]["position"].as_str().unwrap();
    let body = serde_json::json!({ "text": text, "position": tenth, "metric": "piece" });
    let (status, body) = c.post("/api/position", &body.to_string()).await.unwrap();
    assert_eq!(status, 200, "{body}");
    let p: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(p["distance"], 49);
    // The five puzzle (2 x 3 tiles): 360 positions reachable from the solved board, the
    // farthest 21 moves away (OEIS A090034). Two tiles swapped is the other parity: unsolvable.
    let solved = ok(&mut c, "/api/position?puzzle=five&metric=step").await;
    assert_eq!(solved["goal"], true);
    assert_eq!(solved["component"]["size"], 360);
    assert_eq!(solved["component"]["farthest_distance"], 21);
    let swapped = ok(
        &mut c,
        "/api/position?puzzle=five&position=213/45.&metric=step",
    )
    .await;
    assert_eq!(swapped["solvable"], false);
    assert_eq!(swapped["distance"], Value::Null);
    assert_eq!(swapped["component"]["size"], 360);
    assert!(
        swapped["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["change"] == "unsolvable")
    );
    let s = ok(
        &mut c,
        "/api/solve?puzzle=five&position=213/45.&metric=step",
    )
    .await;
    assert_eq!(s["solvable"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_a_json_error_naming_the_problem() {
    let addr = start(Vec::new()).await;
    let mut c = Connection::open(addr).await.unwrap();
    let cases: &[(&str, u16, &str)] = &[
        ("/api/position", 400, "exactly one of"),
        (
            "/api/position?layout=VCCV/VCCV/VHHV/VSSV/S..X",
            400,
            "invalid layout",
        ),
        ("/api/position?layout=3A9BF0C00", 400, "row 1, column 4"),
        (
            "/api/position?layout=VCCV&puzzle=pennant",
            400,
            "exactly one of",
        ),
        (
            "/api/position?layout=VCCV/VCCV/VHHV/VSSV/S..S&metric=teleport",
            400,
            "unknown metric",
        ),
        ("/api/position?puzzle=nope", 404, "no bundled puzzle"),
        (
            "/api/position?puzzle=pennant&position=AABB",
            400,
            "position",
        ),
        (
            "/api/position?layout=VCCV/VCCV/VHHV/VSSV/S..S&colour=red",
            400,
            "colour",
        ),
        // Not TOML: the parser names the line and column.
        (
            "/api/solve?text=board",
            400,
            "pasted.toml: TOML parse error at line 1, column 6",
        ),
        ("/nope", 404, "no such page"),
    ];
    for &(target, status, words) in cases {
        let (s, json) = get(&mut c, target).await;
        assert_eq!(s, status, "{target}: {json}");
        let message = json["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{target}: {json}"));
        assert!(message.contains(words), "{target}: {message}");
    }
    // A broken pasted file: the parser's message names the line.
    let body = serde_json::json!({ "text": "name = \"x\"\nboard = \"\"\"\nAB\nA?\n\"\"\"\n" });
    let (s, text) = c.post("/api/position", &body.to_string()).await.unwrap();
    assert_eq!(s, 400, "{text}");
    assert!(text.contains("line"), "{text}");
    // Not JSON, and too large.
    let (s, _) = c.post("/api/position", "{not json").await.unwrap();
    assert_eq!(s, 400);
    let huge = serde_json::json!({ "text": "x".repeat(serve::BODY_LIMIT + 1) }).to_string();
    let mut fresh = Connection::open(addr).await.unwrap();
    let (s, _) = fresh.post("/api/position", &huge).await.unwrap();
    assert_eq!(s, 413);
    // The server still answers.
    let mut again = Connection::open(addr).await.unwrap();
    let p = ok(&mut again, &position(HENGDAO, "piece")).await;
    assert_eq!(p["distance"], 81);
}

/// The fifteen puzzle (10^13 positions, no tables) on the page: with pattern databases under
/// the roots (a 5-5-5 partition a pipeline builds in about a second), a position and its
/// solution come from IDA* over them — Korf's instance 9, 46 moves (Korf 1985) — and each
/// move's distance is one more or one less.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifteen_puzzle_positions_are_solved_over_pattern_databases() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "name = \"pdb\"\noutput = \"unused\"\n[sliding]\npuzzles = [\"{}\"]\nmetrics = [\"step\"]\n\
         patterns = [\"12345\", \"6789A\", \"BCDEF\"]\nspaces = false\n",
        repo().join("puzzles/fifteen.toml").display()
    );
    let read = |f: &str| std::fs::read_to_string(f);
    let pipeline = Pipeline::parse_with(registry::families(), &text, &read).unwrap();
    run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    let addr = start(vec![dir.path().to_owned()]).await;
    let mut c = Connection::open(addr).await.unwrap();
    let korf9 = encode("3E9B/5482/DC67/A1F.");
    let s = ok(
        &mut c,
        &format!("/api/solve?puzzle=fifteen&position={korf9}&metric=step"),
    )
    .await;
    assert_eq!(s["moves"], 46);
    assert_eq!(
        s["source"]["patterns"]["databases"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(s["source"]["patterns"]["nodes"].as_u64().unwrap() > 0);
    assert!(s["source"]["patterns"]["generated"].as_u64().unwrap() > 0);
    let p = ok(
        &mut c,
        &format!("/api/position?puzzle=fifteen&position={korf9}&metric=step"),
    )
    .await;
    assert_eq!(p["distance"], 46);
    assert_eq!(p["component"]["size"], 10_461_394_944_000u64);
    let moves = p["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 2);
    assert!(
        moves
            .iter()
            .all(|m| m["distance"] == 45 || m["distance"] == 47)
    );
    assert!(moves.iter().any(|m| m["distance"] == 45));
    // Two tiles swapped: unsolvable at once.
    let swapped = encode("E39B/5482/DC67/A1F.");
    let s = ok(
        &mut c,
        &format!("/api/solve?puzzle=fifteen&position={swapped}&metric=step"),
    )
    .await;
    assert_eq!(s["solvable"], false);
}

/// A twenty-four puzzle position — too many positions for a code, so no tables can hold it —
/// is answered by the search alone (no databases under the roots: IDA* over the Manhattan
/// distance): its distance and every move's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_four_puzzle_positions_are_searched() {
    let addr = start(Vec::new()).await;
    let mut c = Connection::open(addr).await.unwrap();
    // Korf's goal with tiles 1 and 2 slid left: two moves away.
    let near = encode("12.34/56789/ABCDE/FGHIJ/KLMNO");
    let p = ok(
        &mut c,
        &format!("/api/position?puzzle=twenty-four&position={near}"),
    )
    .await;
    assert_eq!(p["metric"], "step");
    assert_eq!(p["distance"], 2);
    assert_eq!(p["goal"], false);
    let mut moves: Vec<(String, i64)> = p["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["position"].as_str().unwrap().to_owned(),
                m["distance"].as_i64().unwrap(),
            )
        })
        .collect();
    moves.sort();
    // Tile 2 back (one move from the goal), tile 3 left, tile 7 up (in text order).
    assert_eq!(
        moves,
        [
            ("1.234/56789/ABCDE/FGHIJ/KLMNO".to_owned(), 1),
            ("123.4/56789/ABCDE/FGHIJ/KLMNO".to_owned(), 3),
            ("12734/56.89/ABCDE/FGHIJ/KLMNO".to_owned(), 3),
        ]
    );
    let s = ok(
        &mut c,
        &format!("/api/solve?puzzle=twenty-four&position={near}"),
    )
    .await;
    assert_eq!(s["moves"], 2);
}

/// Fogleman's database rows open in `serve` as layouts (his notation) and, written as puzzle
/// files, as pasted text: every row of the 4 × 4 database (at most 2 walls, computed here by the
/// universe's census) and the hardest published row, rush.txt's 60-move puzzle with one wall.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rush_hour_database_rows_open_as_layouts_and_puzzle_files() {
    let census = rush_hour::Universe::new(4, 2)
        .unwrap()
        .census(0, 1, &|| {})
        .unwrap();
    let mut rows: Vec<(String, u32)> = census
        .puzzles
        .iter()
        .map(|p| (p.board.clone(), p.moves))
        .collect();
    assert_eq!(
        rows.len(),
        32,
        "the 4 x 4 database (crates/rush-hour/tests)"
    );
    rows.push(("IBBx..I..LDDJAAL..J.KEEMFFK..MGGHHHM".into(), 60));
    let addr = start(Vec::new()).await;
    let mut c = Connection::open(addr).await.unwrap();
    for (board, moves) in rows {
        let s = ok(
            &mut c,
            &format!("/api/solve?layout={}&metric=piece", encode(&board)),
        )
        .await;
        assert_eq!(s["moves"], moves, "{board}");
        assert_eq!(s["path"].as_array().unwrap().len(), moves as usize + 1);
        let file = rush_hour::Board::parse(&board)
            .unwrap()
            .puzzle_file(&format!("Rush Hour {board}"));
        let body = serde_json::json!({ "text": file, "metric": "piece" });
        let (status, body) = c.post("/api/position", &body.to_string()).await.unwrap();
        assert_eq!(status, 200, "{board}: {body}");
        let p: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(p["distance"], moves, "{board} as a puzzle file");
        assert_eq!(p["solvable"], true);
    }
}

/// The puzzles view's API: a run whose piece sets are closed under removing a piece serves its
/// Klotski database, filtered by metric and piece set, each row a layout the position API plays
/// at the row's distance; a folder without a database adds none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_klotski_database_is_listed_and_every_row_plays() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::parse(
        registry::families(),
        "name = \"slice\"\noutput = \"unused\"\n[huarong]\npiece_sets = [\"h0v0s0\", \
         \"h0v0s1\", \"h0v0s2\", \"h1v0s0\", \"h1v0s1\", \"h1v0s2\"]\nspaces = [\"unlabeled\"]\n\
         metrics = [\"step\", \"piece\"]\nstate_tables = false\n",
    )
    .unwrap();
    run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    let roots = vec![dir.path().to_owned()];
    let app = App {
        atlas: Atlas::new(registry::families(), roots.clone(), 5_000_000),
        catalog: Catalog::default().with_databases(&roots),
    };
    assert!(app.catalog.skipped.is_empty(), "{:?}", app.catalog.skipped);
    let addr = serve_app(app).await;
    let mut c = Connection::open(addr).await.unwrap();

    let catalog = ok(&mut c, "/api/catalog").await;
    assert_eq!(catalog["databases"][0]["file"], "klotski_puzzles.parquet");
    let all = ok(&mut c, "/api/puzzles?limit=1000").await;
    let db = &all["databases"][0];
    assert_eq!(db["metrics"], serde_json::json!(["piece", "step"]));
    assert_eq!(
        db["piece_sets"],
        serde_json::json!(["h0v0s0", "h0v0s1", "h0v0s2", "h1v0s0", "h1v0s1", "h1v0s2"])
    );
    let columns: Vec<&str> = db["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let col = |name: &str| columns.iter().position(|&c| c == name).unwrap();
    let rows = db["rows"].as_array().unwrap();
    assert_eq!(rows.len() as u64, db["matching"].as_u64().unwrap());
    assert!(rows.len() >= 6);
    for row in rows {
        let (metric, layout) = (
            row[col("metric")].as_str().unwrap(),
            row[col("layout")].as_str().unwrap(),
        );
        let p = ok(&mut c, &position(layout, metric)).await;
        assert_eq!(
            p["distance"].to_string(),
            row[col("moves")].as_str().unwrap(),
            "{row}"
        );
    }
    // Filters and paging.
    let some = ok(&mut c, "/api/puzzles?metric=piece&piece_set=h1v0s2&limit=1").await;
    let db = &some["databases"][0];
    let matching = db["matching"].as_u64().unwrap();
    let expected = rows
        .iter()
        .filter(|r| r[col("metric")] == "piece" && r[col("piece_set")] == "h1v0s2")
        .count();
    assert_eq!(matching as usize, expected);
    assert_eq!(db["rows"].as_array().unwrap().len(), 1.min(expected));
    let (status, body) = get(&mut c, "/api/puzzles?limit=1001").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = get(&mut c, "/api/puzzles?colour=red").await;
    assert_eq!(status, 400, "{body}");

    // The classic tables hold no database.
    let classic = tempfile::tempdir().unwrap();
    tables(classic.path());
    let catalog = Catalog::default().with_databases(&[classic.path().to_owned()]);
    assert!(catalog.databases.is_empty() && catalog.skipped.is_empty());
}
