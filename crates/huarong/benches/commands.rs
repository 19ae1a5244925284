//! The benchmark is the command: `huarong run` of the README's pipelines as a user runs them,
//! next to a plain single-threaded breadth-first search of the same space in the same run.
//!
//! `cargo bench --workspace --bench commands -- [main|eleven|universe|rush-hour|pipelines|
//! rush-hour-6|rush-hour-db|fifteen ...] [--runs N]` (the first five by default, 5 runs each;
//! `rush-hour-6`: also the 6 × 6 Rush Hour universe, see [`rush_hour`]; `rush-hour-db
//! [--output DIR]`: Fogleman's whole database, hours, see [`rush_hour_db`]; `fifteen`: the
//! fifteen puzzle's pattern databases and Korf's 100 instances, see [`fifteen`]; `pipelines`:
//! every other bundled pipeline that takes seconds, fresh). `bash scripts/bench.sh NAME cargo
//! bench ...` records what it prints in `docs/bench/NAME.txt`, which the documents quote. For
//! each pipeline, the release binary runs `huarong run PIPELINE -o DIR -q`:
//!
//! * **fresh**: `DIR` removed and `sync` before each run (untimed): a first run;
//! * **force**: with `--force` over the previous run's outputs, after `sync`.
//!
//! Each prints the median wall time, the median peak RSS of the process (`wait4`) and the
//! bytes the run leaves in `DIR` (every file rewritten: what it wrote). The baseline, run once
//! after them in a child process of the bench (so that the bench's own peak RSS, which Linux
//! hands on to every command it starts, stays small), is the search a newcomer writes first: one thread, a FIFO queue, one byte per
//! state, each state's moves from the model's plain code (decode, move, encode, rank) — per
//! metric for the main job's labeled space, the step metric for the eleven puzzle. Its
//! distances are asserted equal, state by state, to the artifacts the command wrote.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use huarong_core::{Puzzle, Ranking, UNREACHABLE};
use huarong_store::{Artifact, Expect};

/// One run of the command.
struct Measure {
    seconds: f64,
    peak_rss: u64,
    bytes: u64,
    /// The export stage's seconds, as the run's summary gives them (`parquet tables (built,
    /// 0.83 s):`).
    export: Option<f64>,
}

/// The seconds of the export in a run's summary.
fn export_seconds(stdout: &str) -> Option<f64> {
    let line = stdout.lines().find(|l| l.starts_with("parquet tables ("))?;
    let (_, rest) = line.split_once(", ")?;
    rest.split_once(" s)")?.0.parse().ok()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sync() {
    let _ = Command::new("sync").status();
}

/// Total size of the files under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => bytes_under(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

/// Runs `huarong run pipeline -o out -q [--force]` and measures it.
fn run_command(pipeline: &str, out: &Path, force: bool) -> Measure {
    let mut args = vec!["run", pipeline, "-o", out.to_str().unwrap(), "-q"];
    if force {
        args.push("--force");
    }
    let (mut m, stdout) = huarong(&args);
    m.bytes = bytes_under(out);
    m.export = export_seconds(&stdout);
    m
}

/// Runs `huarong ARGS` from the repository's root and measures it; its standard output.
fn huarong(args: &[&str]) -> (Measure, String) {
    use std::io::Read;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_huarong"));
    cmd.args(args)
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let start = Instant::now();
    // Reaped by wait4 below (which reads its peak RSS), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("the huarong binary runs");
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals above.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "huarong {args:?} failed"
    );
    let m = Measure {
        seconds,
        peak_rss: usage.ru_maxrss as u64 * 1024,
        bytes: 0,
        export: None,
    };
    (m, stdout)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median of `runs` runs in each situation; returns (fresh, force) medians of the wall time.
fn measure(pipeline: &str, out: &Path, runs: usize) -> (f64, f64) {
    let mut medians = [0.0; 2];
    for (k, force) in [false, true].into_iter().enumerate() {
        let mut all = Vec::new();
        for _ in 0..runs {
            if !force {
                let _ = std::fs::remove_dir_all(out);
            }
            sync();
            all.push(run_command(pipeline, out, force));
        }
        let secs: Vec<f64> = all.iter().map(|m| m.seconds).collect();
        let list = secs
            .iter()
            .map(|s| format!("{s:.2}"))
            .collect::<Vec<_>>()
            .join(" / ");
        let rss = median(all.iter().map(|m| m.peak_rss as f64).collect());
        medians[k] = median(secs);
        let export: Vec<f64> = all.iter().filter_map(|m| m.export).collect();
        let export = if export.len() == all.len() {
            format!("  export {:.2} s", median(export))
        } else {
            String::new()
        };
        println!(
            "  {:<6} median {:>7.2} s  ({list} s)  peak RSS {:.2} GB  written {:.2} GB{export}",
            if force { "force" } else { "fresh" },
            medians[k],
            rss / 1e9,
            all.last().unwrap().bytes as f64 / 1e9,
        );
    }
    (medians[0], medians[1])
}

/// The distances artifact at `path` (fully verified).
fn distances_at(path: &Path) -> Vec<u16> {
    let expect = Expect {
        kind: "distances",
        fingerprint: None,
    };
    Artifact::open(path, expect)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .section::<u16>(0)
        .to_vec()
}

/// Plain BFS from `sources`: FIFO queue, one byte per state, `moves` giving each state's
/// neighbours; asserts the distances equal `want`. Returns the seconds it took.
fn plain_bfs(
    n: usize,
    sources: impl Iterator<Item = u32>,
    mut moves: impl FnMut(u32, &mut Vec<u32>),
    want: &[u16],
) -> f64 {
    let start = Instant::now();
    let mut dist = vec![u8::MAX; n];
    let mut queue = VecDeque::new();
    for s in sources {
        dist[s as usize] = 0;
        queue.push_back(s);
    }
    let mut next = Vec::new();
    while let Some(u) = queue.pop_front() {
        next.clear();
        moves(u, &mut next);
        for &v in &next {
            if dist[v as usize] == u8::MAX {
                dist[v as usize] = dist[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    assert_eq!(want.len(), n);
    for (i, (&d, &w)) in dist.iter().zip(want).enumerate() {
        let d = if d == u8::MAX { UNREACHABLE } else { d as u16 };
        assert_eq!(d, w, "state {i}: the baseline and the command disagree");
    }
    seconds
}

/// A rerun over a finished folder: every artifact verified (checksums) and reused, nothing
/// written; median of `runs`.
fn reuse(pipeline: &str, out: &Path, runs: usize) {
    let secs: Vec<f64> = (0..runs)
        .map(|_| {
            sync();
            run_command(pipeline, out, false).seconds
        })
        .collect();
    println!(
        "  reuse  median {:>7.2} s  ({} s): verified and reused, nothing rebuilt",
        median(secs.clone()),
        secs.iter()
            .map(|s| format!("{s:.2}"))
            .collect::<Vec<_>>()
            .join(" / ")
    );
}

/// Every bundled pipeline that takes seconds, each into a fresh folder (`sync` first), median
/// of `runs`.
fn pipelines(runs: usize, scratch: &Path) {
    println!("bundled pipelines, fresh folder, median of {runs}:");
    for name in [
        "huarong-canonical",
        "solitaire",
        "omnigravity",
        "square-destroyer",
        "sliding",
        "sliding-tiles",
    ] {
        let file = format!("pipelines/{name}.toml");
        let out = scratch.join(name);
        let all: Vec<Measure> = (0..runs)
            .map(|_| {
                let _ = std::fs::remove_dir_all(&out);
                sync();
                run_command(&file, &out, false)
            })
            .collect();
        let secs: Vec<f64> = all.iter().map(|m| m.seconds).collect();
        println!(
            "  {file:<34} median {:>7.2} s  ({} s)  peak RSS {:.2} GB  written {:.3} GB",
            median(secs.clone()),
            secs.iter()
                .map(|s| format!("{s:.2}"))
                .collect::<Vec<_>>()
                .join(" / "),
            median(all.iter().map(|m| m.peak_rss as f64).collect()) / 1e9,
            all.last().unwrap().bytes as f64 / 1e9
        );
    }
}

/// Runs a baseline in a child process of this bench (`--baseline NAME DIR`) and prints what it
/// printed but its last line, `seconds S`; returns `S`. The bench process itself never holds a
/// baseline's memory: Linux carries a process's peak RSS across `exec` into the command it
/// starts, so a command started after a large baseline in this process would report this
/// process's peak as its own.
fn baseline(name: &str, dir: &Path) -> f64 {
    let exe = std::env::current_exe().expect("the bench's own path");
    let o = Command::new(exe)
        .args(["--baseline", name])
        .arg(dir)
        .stderr(Stdio::inherit())
        .output()
        .expect("the baseline child runs");
    assert!(o.status.success(), "baseline {name} failed");
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().expect("a last line");
    for l in lines {
        println!("{l}");
    }
    last.strip_prefix("seconds ")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("baseline {name}: {last}"))
}

fn main_job(runs: usize, scratch: &Path) {
    println!("main job: huarong run pipelines/huarong.toml");
    let out = scratch.join("huarong");
    let (fresh, force) = measure("pipelines/huarong.toml", &out, runs);
    reuse("pipelines/huarong.toml", &out, runs);
    let total = baseline("main", &out);
    println!(
        "  baseline, three metrics: {total:.1} s; the command: fresh {:.3}, force {:.3} of it",
        fresh / total,
        force / total
    );
}

/// The main job's baseline over its output folder `out`: a plain BFS per metric.
fn main_baseline(out: &Path) -> f64 {
    let l = klotski::Labeled::new(klotski::PieceSet::CLASSIC).unwrap();
    let n = l.len() as usize;
    let mut total = 0.0;
    for (m, name) in l.metrics().iter().enumerate() {
        let want = distances_at(
            &out.join("h1v4s4-labeled")
                .join(format!("distances-{name}.bin")),
        );
        let goals = (0..n as u32).filter(|&i| l.is_goal(l.unrank(i as u64)));
        let mut codes = Vec::new();
        let secs = plain_bfs(
            n,
            goals,
            |u, out| {
                codes.clear();
                l.successors(l.unrank(u as u64), m, &mut codes);
                out.extend(codes.iter().map(|&c| l.rank(c).unwrap() as u32));
            },
            &want,
        );
        println!("  baseline {name}: {secs:.1} s (plain BFS of the labeled space, 1 thread)");
        total += secs;
    }
    total
}

fn eleven(runs: usize, scratch: &Path) {
    println!("eleven puzzle (4 x 3): huarong run pipelines/eleven.toml");
    let out = scratch.join("eleven");
    let (fresh, force) = measure("pipelines/eleven.toml", &out, runs);
    let secs = baseline("eleven", &out);
    println!(
        "  the command: fresh {:.3}, force {:.3} of the baseline",
        fresh / secs,
        force / secs
    );
}

/// The eleven puzzle's baseline over its output folder `out`.
fn eleven_baseline(out: &Path) -> f64 {
    let text = std::fs::read_to_string(root().join("puzzles/eleven-4x3.toml")).unwrap();
    let p = sliding::driver::read_puzzle("eleven-4x3.toml", &text).unwrap();
    let t = sliding::tiles::Tiles::new(&p).unwrap();
    let (rows, cols) = (p.rows(), p.cols());
    let n = t.ranked_len().unwrap() as usize;
    let want = distances_at(&out.join("eleven-4x3").join("distances-step.bin"));
    let goal = (0..n as u32).find(|&i| t.is_goal(i as u64)).unwrap();
    let secs = plain_bfs(
        n,
        std::iter::once(goal),
        |u, out| {
            let (mut cells, blank) = t.cells(u as u64);
            let (r, c) = (blank / cols, blank % cols);
            let near = [
                (r > 0).then(|| blank - cols),
                (r + 1 < rows).then(|| blank + cols),
                (c > 0).then(|| blank - 1),
                (c + 1 < cols).then(|| blank + 1),
            ];
            for x in near.into_iter().flatten() {
                cells.swap(blank, x);
                out.push(t.rank_cells(&cells[..rows * cols]) as u32);
                cells.swap(blank, x);
            }
        },
        &want,
    );
    println!("  baseline step: {secs:.1} s (plain BFS, Lehmer ranks, 1 thread)");
    secs
}

fn universe(runs: usize, scratch: &Path) {
    println!("Klotski universe (203 piece sets): huarong run pipelines/klotski-universe.toml");
    measure(
        "pipelines/klotski-universe.toml",
        &scratch.join("universe"),
        runs,
    );
}

/// Rush Hour's universe: `huarong run pipelines/rush-hour-5.toml` (5 × 5, ≤ 2 walls) fresh and
/// with `--force`; then, as the baseline, the plain reference census (`rush_hour::reference`:
/// every cluster explored from scratch over a hash map) of the 5 × 5 board without walls next
/// to the universe's census of the same board, in a child process, asserted equal. With `six`,
/// also one fresh `huarong run` of the 6 × 6 board without walls (about a quarter of an hour).
fn rush_hour(runs: usize, scratch: &Path, six: bool) {
    println!(
        "Rush Hour universe, 5 x 5 with up to two walls: huarong run pipelines/rush-hour-5.toml"
    );
    measure(
        "pipelines/rush-hour-5.toml",
        &scratch.join("rush-hour-5"),
        runs,
    );
    baseline("rush-hour", scratch);
    if six {
        let out = scratch.join("rush-hour-6");
        let file = scratch.join("rush-hour-6.toml");
        std::fs::write(
            &file,
            format!(
                "name = \"rush-hour-6\"\noutput = \"{}\"\n[rush-hour]\nsize = 6\nmax_walls = 0\n",
                out.display()
            ),
        )
        .unwrap();
        let _ = std::fs::remove_dir_all(&out);
        // The projection a user sees first, then the run it projects.
        let (_, estimate) = huarong(&["run", file.to_str().unwrap(), "--estimate"]);
        print!("  {estimate}");
        sync();
        let (mut m, stdout) = huarong(&[
            "run",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "-q",
        ]);
        m.bytes = bytes_under(&out);
        println!(
            "Rush Hour universe, 6 x 6 without walls: one fresh run {:.1} s ({:.1} min)  \
             peak RSS {:.2} GB  written {:.2} MB",
            m.seconds,
            m.seconds / 60.0,
            m.peak_rss as f64 / 1e9,
            m.bytes as f64 / 1e6
        );
        // The run's summary against the figures of the 6 x 6 database (docs/RUSH-HOUR.md):
        // Fogleman's article publishes the hardest, 51 moves; the others are this census's,
        // found again by every run since 2026-12-02.
        let value = |name: &str| -> u64 {
            stdout
                .lines()
                .find_map(|l| {
                    let mut w = l.split_whitespace();
                    (w.next() == Some(name)).then(|| w.next().unwrap().parse().unwrap())
                })
                .unwrap_or_else(|| panic!("no {name} in\n{stdout}"))
        };
        for (name, want) in [
            ("classes", 7_776),
            ("layouts", 27_103_652_326),
            ("clusters", 80_939_910),
            ("solvable_clusters", 33_167_684),
            ("minimal_puzzles", 476_118),
            ("max_moves", 51),
        ] {
            assert_eq!(value(name), want, "6 x 6 without walls: {name}");
            println!("  {name:<18} {want:>16}  (asserted)");
        }
    }
}

/// Fogleman's database: `huarong run pipelines/rush-hour.toml` (the 6 × 6 universe with up to
/// two walls: hours) into `out`, which may hold the chunks of a killed run (they are reused)
/// or a finished census (the run is then only the export); then the database's figures next
/// to those Fogleman publishes, every one printed before any is asserted.
fn rush_hour_db(out: &Path) {
    println!(
        "Rush Hour universe, 6 x 6 with up to two walls: huarong run pipelines/rush-hour.toml -o {}",
        out.display()
    );
    let (_, estimate) = huarong(&["run", "pipelines/rush-hour.toml", "--estimate"]);
    print!("  {estimate}");
    let (m, stdout) = huarong(&[
        "run",
        "pipelines/rush-hour.toml",
        "-o",
        out.to_str().unwrap(),
        "-q",
    ]);
    println!(
        "  this run {:.1} s ({:.2} h, reusing what an earlier run left)  peak RSS {:.2} GB",
        m.seconds,
        m.seconds / 3600.0,
        m.peak_rss as f64 / 1e9
    );
    let path = out.join("rush-hour-6x6-w2/universe.bin");
    let expect = Expect {
        kind: pipeline::space::UNIVERSE_KIND,
        fingerprint: None,
    };
    let artifact =
        Artifact::open(&path, expect).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let census = rush_hour::Census::decode(artifact.section::<u8>(0))
        .unwrap_or_else(|| panic!("{}: not a Rush Hour census", path.display()));
    for line in stdout.lines().filter(|l| l.starts_with("  ")) {
        println!("  {}", line.trim_start());
    }
    let hardest = census.puzzles.first().expect("a database");
    let sizes: u64 = census.puzzles.iter().map(|p| p.cluster_size).sum();
    // Fogleman's article ("Solving Rush Hour, the Puzzle", 2018): 2,577,412 puzzles over
    // 9,698,093,879 reachable states (the sum of their clusters' sizes), the hardest 60 moves;
    // its database file rush.txt begins `60 IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM 2332`.
    let hardest_published = rush_hour::Board::parse("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM")
        .unwrap()
        .to_string();
    let rows = [
        ("minimal puzzles", census.puzzles.len() as u64, 2_577_412),
        ("their clusters' layouts", sizes, 9_698_093_879),
        ("the hardest's moves", hardest.moves as u64, 60),
        ("the hardest's cluster", hardest.cluster_size, 2_332),
    ];
    println!("  {:<24} {:>16} {:>16}", "", "this run", "Fogleman");
    for (name, ours, his) in rows {
        println!("  {name:<24} {ours:>16} {his:>16}");
    }
    println!(
        "  the hardest: {} (Fogleman's: {hardest_published})",
        hardest.board
    );
    println!("  moves  solvable clusters  minimal puzzles  layouts at that distance");
    let by_moves = census.puzzles_by_moves();
    for d in (0..census.clusters_by_moves.len()).rev() {
        println!(
            "  {d:>5}  {:>17}  {:>15}  {:>24}",
            census.clusters_by_moves[d],
            by_moves.get(d).copied().unwrap_or(0),
            census.layouts_by_distance.get(d).copied().unwrap_or(0)
        );
    }
    // The first rows of Fogleman's database file as another project copied them
    // (mephitrpg/rush-hour-fogleman-utilities, data/michael-fogleman-top-23/hash_1.txt to
    // hash_22.txt, in rush.txt's notation; rush.txt lists most moves first, then the largest
    // cluster first): they must be this database's first rows in that order.
    let mut ranked: Vec<&rush_hour::Puzzle> = census.puzzles.iter().collect();
    ranked.sort_by_key(|p| {
        (
            std::cmp::Reverse(p.moves),
            std::cmp::Reverse(p.cluster_size),
        )
    });
    println!("  his first rows as copied by mephitrpg/rush-hour-fogleman-utilities, and ours:");
    let mut differ = Vec::new();
    for (i, (text, ours)) in FOGLEMAN_FIRST_ROWS.iter().zip(&ranked).enumerate() {
        let his = rush_hour::Board::parse(text).unwrap().to_string();
        let same = his == ours.board;
        println!(
            "  {:>4}  {text}  ours {} moves, cluster {:>5}: {}",
            i + 1,
            ours.moves,
            ours.cluster_size,
            if same { "the same" } else { "differs" }
        );
        if !same {
            differ.push(i + 1);
        }
    }
    // A second way: a sample of the rows checked by plain code over boards, apart from the
    // census's class search.
    let every = 100;
    let start = Instant::now();
    let wrong = rows_checked_plainly(&census.puzzles, every);
    println!(
        "  every {every}th row ({} rows) checked over boards alone in {:.1} s: {} wrong",
        census.puzzles.len().div_ceil(every),
        start.elapsed().as_secs_f64(),
        wrong.len()
    );
    for line in &wrong {
        println!("    {line}");
    }
    for (name, ours, his) in rows {
        assert_eq!(ours, his, "6 x 6 with up to two walls: {name}");
    }
    assert!(wrong.is_empty(), "database rows the plain check rejects");
    assert_eq!(hardest.board, hardest_published);
    assert!(differ.is_empty(), "rows unlike Fogleman's: {differ:?}");
    // The figures docs/RUSH-HOUR.md gives that Fogleman does not publish: this census's, from
    // its first whole run (2026-12-06, resumed twice), so that a run that differs fails.
    let summary = [
        ("classes", census.classes, 2_660_256),
        ("layouts", census.layouts, 1_833_107_808_027),
        ("clusters", census.clusters, 11_881_255_022),
        ("solvable clusters", census.solvable_clusters, 5_392_978_237),
    ];
    for (name, ours, documented) in summary {
        assert_eq!(ours, documented, "6 x 6 with up to two walls: {name}");
    }
    assert_eq!(
        by_moves, MINIMAL_BY_MOVES,
        "6 x 6 with up to two walls: minimal puzzles by moves"
    );
}

/// Every `every`-th row of a Rush Hour database (from the first) checked by plain code over
/// boards, on every core: its cluster and distances as the plain reference finds them
/// (`rush_hour::reference::cluster`), and then the row's figures: the
/// cluster's size, the board's distance and that it is the farthest, its masks the smallest of
/// the farthest layouts' (horizontal, then vertical), and minimal (without any piece but the red
/// car, a wall too, `Board::moves_within` solves it in fewer moves). Returns what is wrong.
fn rows_checked_plainly(puzzles: &[rush_hour::Puzzle], every: usize) -> Vec<String> {
    use rush_hour::Board;
    let check = |row: &rush_hour::Puzzle| -> Option<String> {
        let board = Board::parse(&row.board).unwrap();
        let (members, dist) = rush_hour::reference::cluster(&board);
        let far = dist.iter().flatten().copied().max();
        let smallest = (0..members.len())
            .filter(|&i| dist[i] == far)
            .map(|i| (members[i].horizontal_mask(), members[i].vertical_mask()))
            .min();
        let problem = if members.len() as u64 != row.cluster_size {
            format!("a cluster of {} layouts", members.len())
        } else if dist[0] != Some(row.moves) || far != Some(row.moves) {
            format!("{:?} moves, the cluster's farthest {far:?}", dist[0])
        } else if smallest != Some((board.horizontal_mask(), board.vertical_mask())) {
            "not the smallest of the farthest layouts".to_owned()
        } else if let Some(i) = (1..board.pieces().len())
            .find(|&i| board.without(i).moves_within(row.moves - 1).is_none())
        {
            format!("not minimal: without piece {i} it needs as many moves")
        } else {
            return None;
        };
        Some(format!(
            "{} ({} moves, cluster {}): {problem}",
            row.board, row.moves, row.cluster_size
        ))
    };
    let sample: Vec<&rush_hour::Puzzle> = puzzles.iter().step_by(every).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let sample = &sample;
                scope.spawn(move || {
                    sample
                        .iter()
                        .skip(t)
                        .step_by(threads)
                        .filter_map(|row| check(row))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut wrong: Vec<String> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        wrong.sort();
        wrong
    })
}

/// The database's minimal puzzles by their moves (0 to 60), as docs/RUSH-HOUR.md gives them;
/// his first 22 rows ([`FOGLEMAN_FIRST_ROWS`]) agree on 51 to 60 moves.
const MINIMAL_BY_MOVES: [u64; 61] = [
    0, 1, 8, 176, 1754, 11650, 45409, 105732, 176222, 246307, 294107, 299746, 267868, 221176,
    180221, 149459, 124882, 102741, 82466, 64877, 50365, 38533, 29354, 21972, 16382, 12134, 8753,
    6579, 4752, 3562, 2467, 1838, 1461, 1060, 861, 654, 488, 373, 246, 209, 142, 99, 92, 63, 58,
    28, 22, 16, 14, 10, 8, 2, 2, 3, 4, 2, 0, 0, 1, 0, 1,
];

/// The first rows of Fogleman's database as another project copied them ([`rush_hour_db`]).
const FOGLEMAN_FIRST_ROWS: [&str; 22] = [
    "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
    "BBoKMxDDDKMoIAALooIoJLEEooJFFNoGGoxN",
    "ooBBMxDDDKMoAAJKoNooJEENIFFLooIGGLox",
    "ooBBMxDDDKMoAAJKoNooJEENIFFLooIGGLHH",
    "oxCCMoDDDKMoAAJKooooJLEEIFFLoNIGGoxN",
    "oooJLxCCCJLoHAAKooHoIKDDooIEEMoFFoxM",
    "oooJxoCCCJLoHAAKLoHoIKDDooIEEMoFFoxM",
    "BBBKCCDDoKoLIAAKoLIoJEEMFFJooMooxoHH",
    "BBBCCNDDoxMNJAAoMOJoKFFOGGKLooxIILoo",
    "ooBBoxDDDKooAAJKoMooJEEMIFFLooIGGLHH",
    "ooBBoxDDDKooAAJKoMooJEEMIFFLooIGGLox",
    "oxCCMNDDDKMNAAJKooooJEEoIFFLooIGGLox",
    "oxCCMNDDDKMNAAJKooooJLEEIFFLooIGGHHo",
    "xCCoLMooJoLMAAJoLNHIDDDNHIoKEExooKGG",
    "GBBoLoGHIoLMGHIAAMCCCKoMooJKDDEEJFFo",
    "BBIooMGHIoLMGHAALNGCCKoNooJKDDooJEEx",
    "ooIBBBooIKooAAJKoLCCJDDLGHEEoLGHFFoo",
    "ooooxoCCCJLoAAIJLMooIDDMHEEKooHFFKox",
    "ooooLxCCCJLoAAIJoMooIDDMHEEKooHFFKox",
    "ooooLxCCCJLoAAIJoMooIDDMHEEKooHFFKGG",
    "ooooxoCCCJLoAAIJLMooIDDMHEEKooHFFKGG",
    "ooxCCLDDoKoLIAAKooIoJKEEFFJooMGGGHHM",
];

/// The Rush Hour baseline: the plain reference census of the 5 × 5 board without walls next to
/// the universe's census of the same board, asserted equal.
fn rush_hour_baseline() -> f64 {
    let start = Instant::now();
    let (plain, _) = rush_hour::reference::census(5, 0);
    let plain_secs = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let universe = rush_hour::Universe::new(5, 0).unwrap();
    let census = universe.census(0, 1, &|| {}).unwrap();
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(
        (census.layouts, census.clusters, &census.puzzles),
        (plain.layouts, plain.clusters, &plain.puzzles),
        "the universe's census is the plain reference's"
    );
    println!(
        "  baseline, 5 x 5 without walls ({} layouts): plain reference {plain_secs:.2} s, \
         the universe's census {secs:.3} s ({:.4} of the baseline)",
        census.layouts,
        secs / plain_secs
    );
    plain_secs
}

/// Korf's 100 fifteen-puzzle instances and their published optima (puzzles/korf-100.txt).
fn korf_optima() -> Vec<u64> {
    std::fs::read_to_string(root().join("puzzles/korf-100.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let n = l.split(": ").nth(1).unwrap().split(' ').next().unwrap();
            n.parse().unwrap()
        })
        .collect()
}

/// The fifteen puzzle's pattern databases built by `huarong run` (fresh folder, `sync` first)
/// for three partitions, then Korf's 100 instances solved by one
/// `huarong solve --positions puzzles/korf-100.txt --json` over each: the median wall time and
/// peak RSS of each command, the nodes IDA* expanded and generated (every length asserted equal to Korf's
/// published optimum). The 7-8 build runs at most 3 times (about 4 minutes each).
fn fifteen(runs: usize, scratch: &Path) {
    let optima = korf_optima();
    println!("Fifteen puzzle: pattern databases, then Korf's 100 instances by IDA*");
    for (name, groups, builds) in [
        ("5-5-5", "[\"12345\", \"6789A\", \"BCDEF\"]", runs),
        ("6-6-3", "[\"123456\", \"789ABC\", \"DEF\"]", runs),
        ("7-8", "[\"1234567\", \"89ABCDEF\"]", runs.min(3)),
    ] {
        let out = scratch.join(format!("fifteen-{name}"));
        let file = scratch.join(format!("fifteen-{name}.toml"));
        std::fs::write(
            &file,
            format!(
                "name = \"fifteen-{name}\"\noutput = \"{}\"\n[sliding]\n\
                 puzzles = [\"puzzles/fifteen.toml\"]\nmetrics = [\"step\"]\npatterns = {groups}\n\
                 spaces = false\n",
                out.display()
            ),
        )
        .unwrap();
        let mut built = Vec::new();
        for _ in 0..builds {
            let _ = std::fs::remove_dir_all(&out);
            sync();
            built.push(run_command(file.to_str().unwrap(), &out, false));
        }
        let mut solved = Vec::new();
        let (mut nodes, mut generated) = (0, 0);
        for _ in 0..runs {
            let (m, stdout) = huarong(&[
                "solve",
                "--puzzle",
                "puzzles/fifteen.toml",
                "--positions",
                "puzzles/korf-100.txt",
                "--tables",
                out.to_str().unwrap(),
                "--json",
            ]);
            let lines: Vec<serde_json::Value> = stdout
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect();
            let moves: Vec<u64> = lines.iter().map(|v| v["moves"].as_u64().unwrap()).collect();
            assert_eq!(moves, optima, "{name}: the published optima");
            let sum = |key: &str| lines.iter().map(|v| v[key].as_u64().unwrap()).sum::<u64>();
            (nodes, generated) = (sum("nodes"), sum("generated"));
            solved.push(m);
        }
        let med = |v: &[Measure], f: &dyn Fn(&Measure) -> f64| median(v.iter().map(f).collect());
        println!(
            "  {name:<5} build  median {:>7.2} s of {builds}  peak RSS {:.2} GB  written {:.2} GB",
            med(&built, &|m| m.seconds),
            med(&built, &|m| m.peak_rss as f64) / 1e9,
            built.last().unwrap().bytes as f64 / 1e9,
        );
        println!(
            "  {name:<5} solve  median {:>7.3} s of {runs} for the 100  peak RSS {:.2} GB  \
             per instance: {} nodes expanded, {} generated",
            med(&solved, &|m| m.seconds),
            med(&solved, &|m| m.peak_rss as f64) / 1e9,
            nodes / 100,
            generated / 100
        );
    }
}

/// Builds the bundled pipeline `name` (pattern databases only) with `huarong run` into a fresh
/// folder under `scratch`, `sync` first, and prints its time, peak RSS and bytes; its folder.
fn build_databases(name: &str, scratch: &Path) -> PathBuf {
    let out = scratch.join(name);
    let file = scratch.join(format!("{name}.toml"));
    let text = std::fs::read_to_string(root().join(format!("pipelines/{name}.toml")))
        .unwrap()
        .replace(
            &format!("output = \"outputs/{name}\""),
            &format!("output = \"{}\"", out.display()),
        )
        .replace("\"puzzles/", &format!("\"{}/puzzles/", root().display()));
    std::fs::write(&file, text).unwrap();
    sync();
    let built = run_command(file.to_str().unwrap(), &out, false);
    println!(
        "  build  {:>8.2} s  peak RSS {:.2} GB  written {:.2} GB",
        built.seconds,
        built.peak_rss as f64 / 1e9,
        built.bytes as f64 / 1e9
    );
    out
}

/// Solves `position` of puzzles/`puzzle`.toml — sliding tiles whose goal is the blank top-left,
/// then the tiles in order (the position's letters sorted) — by its own `huarong solve
/// --positions … --json` over the databases under `tables`, with no node bound to speak of;
/// checks that the path starts at the position, ends at the goal and moves one tile into the
/// blank a step. The measure and the answer.
fn solve_tiles(
    puzzle: &str,
    position: &str,
    tables: &Path,
    scratch: &Path,
) -> (Measure, serde_json::Value) {
    let one = scratch.join("position.txt");
    std::fs::write(&one, format!("{position}\n")).unwrap();
    let file = format!("puzzles/{puzzle}.toml");
    let (m, stdout) = huarong(&[
        "solve",
        "--puzzle",
        &file,
        "--positions",
        one.to_str().unwrap(),
        "--tables",
        tables.to_str().unwrap(),
        "--max-states",
        "1000000000000",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let path: Vec<Vec<u8>> = v["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().replace('/', "").into_bytes())
        .collect();
    let side = position.split('/').count();
    let mut goal: Vec<u8> = path[0].clone();
    goal.sort_unstable();
    assert_eq!(goal[0], b'.', "{position}");
    assert_eq!(
        v["moves"].as_u64(),
        Some(path.len() as u64 - 1),
        "{position}"
    );
    assert_eq!(path[0], position.replace('/', "").into_bytes());
    assert_eq!(path.last().unwrap(), &goal, "{position}: ends at the goal");
    for w in path.windows(2) {
        let blank = |p: &[u8]| p.iter().position(|&c| c == b'.').unwrap();
        let (x, y) = (blank(&w[0]), blank(&w[1]));
        assert!(x.abs_diff(y) == side || (x / side == y / side && x.abs_diff(y) == 1));
        let mut swapped = w[0].clone();
        swapped.swap(x, y);
        assert_eq!(swapped, w[1], "{position}: one tile into the blank");
    }
    (m, v)
}

/// The thirty-five puzzle: the seven 5-tile databases of pipelines/thirty-five-pdb.toml built
/// by `huarong run` into a fresh folder (`sync` first, once: about two minutes), their cell
/// codes in two words per placement; then four positions random walks of 120 and 140 moves
/// (never straight back) left, each solved by its own `huarong solve --positions … --json`,
/// its path replayed to the goal and no longer than its walk, of the walk's parity.
fn thirty_five(scratch: &Path) {
    println!("Thirty-five puzzle: seven 5-tile pattern databases, then random walks from the goal");
    let out = build_databases("thirty-five-pdb", scratch);
    for (position, walk) in [
        ("67345A/8129GB/DJEFLM/WCKPRH/QV.SYN/IOUXTZ", 120),
        ("D71293/I6E8A4/JLFRTH/POCQW5/KVYMZB/UXSNG.", 120),
        ("1I27BA/DOG9E5/JCR63N/VUMFH4/.L8XST/PKQWYZ", 140),
        ("29BA5N/1.ID4H/C68GF3/7OELKT/WPXQMY/JUVRZS", 120),
    ] {
        let (m, v) = solve_tiles("thirty-five", position, &out, scratch);
        let moves = v["moves"].as_u64().unwrap();
        assert!(
            moves <= walk,
            "{position}: {moves} moves, longer than the walk"
        );
        assert_eq!(moves % 2, walk % 2, "{position}: the walk's parity");
        let generated = v["generated"].as_u64().unwrap();
        println!(
            "  walk of {walk}  {moves:>3} moves  {:>8.2} s  peak RSS {:.2} GB  {} nodes expanded, \
             {generated} generated ({:.1} M/s)  {position}",
            m.seconds,
            m.peak_rss as f64 / 1e9,
            v["nodes"].as_u64().unwrap(),
            generated as f64 / m.seconds / 1e6
        );
    }
}

/// The twenty-four puzzle: the 6-6-6-6 databases of pipelines/twenty-four-pdb.toml built by
/// `huarong run` (fresh folder, `sync` first, once: about 3.5 minutes), then each of Korf &
/// Taylor's instances asked for (`--instances 1,2`, the default) solved by its own `huarong
/// solve --positions … --json`: wall time, peak RSS, nodes expanded and generated, and the
/// generation rate; each length asserted equal to the published optimum
/// (puzzles/korf-taylor-24.txt) and each path replayed move by move to Korf's goal.
fn twenty_four(instances: &[usize], scratch: &Path) {
    println!("Twenty-four puzzle: 6-6-6-6 pattern databases, then Korf & Taylor's instances");
    let out = build_databases("twenty-four-pdb", scratch);
    let list = std::fs::read_to_string(root().join("puzzles/korf-taylor-24.txt")).unwrap();
    let all: Vec<(&str, u64)> = list
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (pos, rest) = l.split_once('#').unwrap();
            let n = rest.split(": ").nth(1).unwrap().split(' ').next().unwrap();
            (pos.trim(), n.parse().unwrap())
        })
        .collect();
    for &k in instances {
        let (position, optimum) = all[k - 1];
        let (m, v) = solve_tiles("twenty-four", position, &out, scratch);
        assert_eq!(v["moves"].as_u64(), Some(optimum), "instance {k}: {v}");
        let (nodes, generated) = (
            v["nodes"].as_u64().unwrap(),
            v["generated"].as_u64().unwrap(),
        );
        println!(
            "  instance {k:>2}  {optimum} moves  {:>8.1} s  peak RSS {:.2} GB  {nodes} nodes \
             expanded, {generated} generated ({:.1} M/s)",
            m.seconds,
            m.peak_rss as f64 / 1e9,
            generated as f64 / m.seconds / 1e6
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(k) = args.iter().position(|a| a == "--baseline") {
        let dir = Path::new(&args[k + 2]);
        let secs = match args[k + 1].as_str() {
            "main" => main_baseline(dir),
            "eleven" => eleven_baseline(dir),
            "rush-hour" => rush_hour_baseline(),
            other => panic!("no baseline {other}"),
        };
        println!("seconds {secs}");
        return;
    }
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|k| args.get(k + 1))
        .map(|r| r.parse().expect("--runs takes a number"))
        .unwrap_or(5);
    let picked: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| {
            [
                "main",
                "eleven",
                "universe",
                "rush-hour",
                "rush-hour-6",
                "rush-hour-db",
                "fifteen",
                "twenty-four",
                "thirty-five",
                "pipelines",
            ]
            .contains(a)
        })
        .collect();
    // The fifteen, twenty-four and thirty-five puzzles' databases and the 6 x 6 Rush Hour universe (minutes
    // to hours each) only when asked for.
    let long = [
        "fifteen",
        "rush-hour-6",
        "rush-hour-db",
        "twenty-four",
        "thirty-five",
    ];
    let wants = |name: &str| (picked.is_empty() && !long.contains(&name)) || picked.contains(&name);
    let scratch = tempfile::tempdir().unwrap();
    if wants("main") {
        main_job(runs, scratch.path());
    }
    if wants("eleven") {
        eleven(runs, scratch.path());
    }
    if wants("universe") {
        universe(runs, scratch.path());
    }
    if wants("rush-hour") || wants("rush-hour-6") {
        rush_hour(runs, scratch.path(), wants("rush-hour-6"));
    }
    if wants("rush-hour-db") {
        // Into `--output DIR` (to finish or check a run made there), else where the pipeline
        // writes.
        let out = args
            .iter()
            .position(|a| a == "--output")
            .and_then(|k| args.get(k + 1))
            .map_or_else(|| root().join("outputs/rush-hour"), PathBuf::from);
        rush_hour_db(&out);
    }
    if wants("fifteen") {
        fifteen(runs, scratch.path());
    }
    if wants("pipelines") {
        pipelines(runs, scratch.path());
    }
    if wants("twenty-four") {
        let instances: Vec<usize> = args
            .iter()
            .position(|a| a == "--instances")
            .and_then(|k| args.get(k + 1))
            .map(|l| {
                l.split(',')
                    .map(|n| n.parse().expect("--instances takes numbers 1-10"))
                    .collect()
            })
            .unwrap_or(vec![1, 2]);
        twenty_four(&instances, scratch.path());
    }
    if wants("thirty-five") {
        thirty_five(scratch.path());
    }
}
