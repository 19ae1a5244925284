//! Benchmarks of the generic sliding-block engine, each against a simple baseline in the same
//! run: the hardest Rush Hour puzzle of Fogleman's database solved cold, the 8-puzzle's whole
//! pipeline, and the generic engine against the dedicated `klotski` stages on Huarong Dao.
//!
//! `cargo bench -p pipeline --bench sliding` — medians (the count is in each row);
//! `-- tiles 4x3 [stored] [reference]`: the stages on the sliding tiles of one size, once (the
//! graph stored instead of regenerated; and a plain single-threaded BFS over the same puzzle,
//! which must agree).

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use huarong_core::Puzzle;
use pipeline::{Pipeline, RunOptions, run_pipeline, run_space};
use sliding::search::{self, Outcome};

mod common;
use common::time;
#[path = "../tests/published/mod.rs"]
mod published;
use published::{A090166, A090167_START};

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn puzzle(name: &str) -> sliding::SlidingPuzzle {
    let text = std::fs::read_to_string(root().join("puzzles").join(name)).unwrap();
    sliding::driver::read_puzzle(name, &text).unwrap()
}

/// The baseline solver: breadth-first search over positions as strings of 36 cells (`.` empty,
/// `#` wall, letters), vehicles found by scanning, a SipHash map of parents.
fn baseline_rush_hour(board: &str) -> usize {
    let start: Vec<u8> = board.bytes().filter(|&b| b != b'/').collect();
    let goal = |g: &[u8]| g[2 * 6 + 4] == b'A' && g[2 * 6 + 5] == b'A';
    let mut parent: HashMap<Vec<u8>, Vec<u8>> = HashMap::new();
    parent.insert(start.clone(), Vec::new());
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some((g, d)) = queue.pop_front() {
        if goal(&g) {
            return d;
        }
        for letter in b'A'..=b'Z' {
            let cells: Vec<usize> = (0..36).filter(|&i| g[i] == letter).collect();
            if cells.is_empty() {
                continue;
            }
            let horizontal = cells.len() > 1 && cells[1] == cells[0] + 1;
            let step: isize = if horizontal { 1 } else { 6 };
            for dir in [-1isize, 1] {
                let mut h = g.clone();
                let mut lo = cells[0] as isize;
                let mut hi = *cells.last().unwrap() as isize;
                loop {
                    let next = if dir < 0 { lo - step } else { hi + step };
                    let same_line = if horizontal {
                        (0..36).contains(&next) && next / 6 == lo / 6
                    } else {
                        (0..36).contains(&next)
                    };
                    if !same_line || h[next as usize] != b'.' {
                        break;
                    }
                    let (vacate, take) = if dir < 0 { (hi, next) } else { (lo, next) };
                    h[vacate as usize] = b'.';
                    h[take as usize] = letter;
                    lo += dir * step;
                    hi += dir * step;
                    if !parent.contains_key(&h) {
                        parent.insert(h.clone(), g.clone());
                        queue.push_back((h.clone(), d + 1));
                    }
                }
            }
        }
    }
    usize::MAX
}

fn rush_hour() {
    let p = puzzle("rush-hour-60.toml");
    let straight = 1;
    let reps = 51;
    let (ours, moves) = time(reps, || {
        let p = puzzle("rush-hour-60.toml");
        match search::solve(&p, p.start, straight, u64::MAX) {
            Outcome::Path(path) => path.len() - 1,
            other => panic!("{other:?}"),
        }
    });
    assert_eq!(moves, 60);
    let board = p.render(p.start);
    let (plain, moves) = time(reps, || baseline_rush_hour(&board));
    assert_eq!(moves, 60);
    println!("| what | ours | baseline | speed-up |");
    println!("|---|---|---|---|");
    println!(
        "| Rush Hour, Fogleman's hardest (60 straight moves), cold solve incl. parsing, median of {reps} | {:.3} ms | {:.3} ms (string BFS, SipHash) | {:.1}x |",
        ours * 1e3,
        plain * 1e3,
        plain / ours
    );
}

/// The baseline 8-puzzle analysis: every permutation reachable from the solved board by a
/// sequential BFS over strings, distances to the solved board (one metric: the three agree).
fn baseline_eight() -> usize {
    let start = b"12345678.".to_vec();
    let mut dist: HashMap<Vec<u8>, u8> = HashMap::from([(start.clone(), 0)]);
    let mut queue = VecDeque::from([start]);
    let mut max = 0;
    while let Some(g) = queue.pop_front() {
        let d = dist[&g];
        max = max.max(d as usize);
        let z = g.iter().position(|&b| b == b'.').unwrap();
        let (r, c) = (z / 3, z % 3);
        for (dr, dc) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
            let (nr, nc) = (r as isize + dr, c as isize + dc);
            if !(0..3).contains(&nr) || !(0..3).contains(&nc) {
                continue;
            }
            let mut h = g.clone();
            h.swap(z, (nr * 3 + nc) as usize);
            if !dist.contains_key(&h) {
                dist.insert(h.clone(), d + 1);
                queue.push_back(h);
            }
        }
    }
    assert_eq!(dist.len(), 181_440);
    max
}

fn eight_puzzle() {
    let text = "name = \"eight\"\noutput = \"unused\"\n[sliding]\npuzzles = [\"puzzles/eight.toml\"]\n\
                metrics = [\"step\", \"straight\", \"piece\"]\nstate_tables = false\n";
    let read = |path: &str| std::fs::read_to_string(root().join(path));
    let p = Pipeline::parse_with(registry::families(), text, &read).unwrap();
    let reps = 5;
    let (ours, report) = time(reps, || {
        let dir = tempfile::tempdir().unwrap();
        run_pipeline(&p, Some(dir.path()), &RunOptions::default()).unwrap()
    });
    assert_eq!(report.spaces[0].states, 181_440);
    assert_eq!(report.spaces[0].metrics[0].max_distance, 31);
    // The baseline searches once per metric, as the pipeline does (for tiles they agree).
    let (plain, max) = time(reps, || (0..3).map(|_| baseline_eight()).max().unwrap());
    assert_eq!(max, 31);
    println!(
        "| 8-puzzle pipeline: 181,440 positions, 3 metrics, all stages + export into a fresh folder, median of {reps} | {:.3} s | {:.3} s (string BFS per metric, no files) | {:.1}x |",
        ours,
        plain,
        plain / ours
    );
}

/// Stages (enumerate, then graph, components and distances in 3 metrics) per position: the
/// generic engine on 横刀立马's component against the dedicated `klotski` stages on the whole
/// classic unlabeled space.
fn generic_vs_klotski() {
    let reps = 5;
    let forced = RunOptions {
        force: true,
        ..RunOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let s = puzzle("hengdao-lima.toml");
    let (generic, report) = time(reps, || {
        run_space(&s, &dir.path().join("s"), &[0, 1, 2], &forced).unwrap()
    });
    let generic_states = report.states;
    let u = klotski::Unlabeled::new(klotski::PieceSet::CLASSIC);
    let (dedicated, report) = time(reps, || {
        run_space(&u, &dir.path().join("k"), &[0, 1, 2], &forced).unwrap()
    });
    let dedicated_states = report.states;
    let per = |t: f64, n: u64| t / n as f64 * 1e6;
    let (g, d) = (
        per(generic, generic_states),
        per(dedicated, dedicated_states),
    );
    println!(
        "| Huarong Dao stages (3 metrics) per position, median of {reps}: generic sliding engine ({generic_states} positions of 横刀立马's component, {:.3} s) vs the klotski stages ({dedicated_states} positions, {:.3} s) | {g:.2} µs | {d:.2} µs (klotski) | {:.2}x of klotski's time |",
        generic,
        dedicated,
        g / d
    );
}

/// `-- tiles ROWSxCOLS [stored]`: the stages (enumerate, graph, components, distances; step
/// metric) on the sliding tiles of that size as a ranked space (`sliding::tiles`), once, with
/// the stage log, the artifacts' size and the process's peak RSS; the graph regenerated by the
/// later stages (the default) or, with `stored`, stored by the graph stage. The solved board has the tiles in
/// reading order and the blank last.
fn tiles_at_scale(size: &str, stored: bool) -> Vec<u64> {
    let (rows, cols) = size
        .split_once('x')
        .map(|(r, c)| (r.parse::<usize>().unwrap(), c.parse::<usize>().unwrap()))
        .expect("ROWSxCOLS");
    let n = rows * cols;
    let mut board = String::new();
    for i in 0..n {
        board.push(if i + 1 == n {
            '.'
        } else {
            (b'A' + i as u8) as char
        });
        if (i + 1) % cols == 0 {
            board.push('\n');
        }
    }
    let text = format!(
        "name = \"tiles\"\nboard = \"\"\"\n{board}\"\"\"\ngoal = \"\"\"\n{board}\"\"\"\nlabeled = true\n"
    );
    let explored = sliding::parse(&text, "tiles").unwrap();
    let mut tiles = sliding::tiles::Tiles::new(&explored).expect("a tiles puzzle");
    if stored {
        tiles = tiles.storing_graph();
    }
    let dir = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    let report = run_space(&tiles, dir.path(), &[0], &RunOptions::default()).unwrap();
    let wall = t.elapsed().as_secs_f64();
    let m = &report.metrics[0];
    let bytes: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let hwm = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?")
        .to_owned();
    println!(
        "{rows}x{cols} tiles: {} positions, {} edges, {} component(s), diameter {} ({} at it); {wall:.1} s; artifacts {:.2} GB; {hwm}",
        report.states,
        m.edges,
        m.components,
        m.max_distance,
        m.max_distance_states,
        bytes as f64 / 1e9
    );
    for l in &report.log {
        println!("  {:<12} {:.2} s", l.stage, l.seconds);
    }
    // Published distributions (blank in a corner): OEIS A090166 (4 x 3, Karlemo and
    // Östergård) in full; A090167 (6 x 2) its first terms and its last distance, 80.
    match (rows, cols) {
        (4, 3) => assert_eq!(m.distance_histogram, A090166, "4 x 3 distribution"),
        (2, 6) => {
            assert_eq!(&m.distance_histogram[..A090167_START.len()], A090167_START);
            assert_eq!(m.max_distance, 80);
        }
        _ => {}
    }
    println!("  distances: {:?}", m.distance_histogram);
    m.distance_histogram.clone()
}

/// The reference for `-- tiles`: a plain single-threaded breadth-first search over the tiles
/// (the blank counted as tile `n − 1`), every permutation ranked by its full Lehmer code into
/// `n!` one-byte distances (the unreachable half stays unvisited), a FIFO queue of ranks, no
/// graph and no files. Returns the number of positions at each distance.
fn reference_tiles(rows: usize, cols: usize) -> Vec<u64> {
    let n = rows * cols;
    let fact: Vec<u64> = (0..=n).map(|k| (1..=k as u64).product()).collect();
    let rank = |p: &[u8]| -> u64 {
        let mut r = 0;
        for i in 0..n {
            let smaller = p[i + 1..].iter().filter(|&&x| x < p[i]).count() as u64;
            r += smaller * fact[n - 1 - i];
        }
        r
    };
    let unrank = |mut r: u64, p: &mut [u8]| {
        let mut left: Vec<u8> = (0..n as u8).collect();
        for i in 0..n {
            let d = (r / fact[n - 1 - i]) as usize;
            r %= fact[n - 1 - i];
            p[i] = left.remove(d);
        }
    };
    let mut dist = vec![u8::MAX; fact[n] as usize];
    let solved: Vec<u8> = (0..n as u8).collect();
    let start = rank(&solved);
    dist[start as usize] = 0;
    let mut queue = VecDeque::from([start]);
    let mut p = vec![0u8; n];
    let mut histogram = vec![1u64];
    while let Some(r) = queue.pop_front() {
        let d = dist[r as usize];
        unrank(r, &mut p);
        let z = p.iter().position(|&t| t as usize == n - 1).unwrap();
        let (zr, zc) = (z / cols, z % cols);
        for (dr, dc) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
            let (nr, nc) = (zr as isize + dr, zc as isize + dc);
            if nr < 0 || nc < 0 || nr >= rows as isize || nc >= cols as isize {
                continue;
            }
            p.swap(z, nr as usize * cols + nc as usize);
            let s = rank(&p);
            p.swap(z, nr as usize * cols + nc as usize);
            if dist[s as usize] == u8::MAX {
                dist[s as usize] = d + 1;
                if histogram.len() <= d as usize + 1 {
                    histogram.push(0);
                }
                histogram[d as usize + 1] += 1;
                queue.push_back(s);
            }
        }
    }
    histogram
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "tiles") {
        let size = args.get(k + 1).map_or("3x3", |s| s.as_str());
        let ours = tiles_at_scale(size, args.iter().any(|a| a == "stored"));
        if args.iter().any(|a| a == "reference") {
            let (rows, cols) = size.split_once('x').unwrap();
            let (rows, cols) = (rows.parse().unwrap(), cols.parse().unwrap());
            let t = std::time::Instant::now();
            let h = reference_tiles(rows, cols);
            println!(
                "reference (single-threaded BFS, full Lehmer ranks, 1-byte distances): {:.1} s, {} positions, diameter {}",
                t.elapsed().as_secs_f64(),
                h.iter().sum::<u64>(),
                h.len() - 1
            );
            assert_eq!(h, ours, "the reference and the stages disagree");
        }
        return;
    }
    rush_hour();
    eight_puzzle();
    generic_vs_klotski();
}
