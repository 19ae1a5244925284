//! Benchmarks of the stages on the classic piece set, each against a simple single-threaded
//! baseline over the same data in the same run.
//!
//! `cargo bench -p pipeline --bench stages` — medians of 5 runs for the stages, of 3 for the
//! fast baselines; the slow baselines (whole-graph builds) run once and say so.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::time::Instant;

use huarong_core::{Puzzle, Ranking, Reporter};
use klotski::board::mask_at;
use klotski::{Board, Kind, Labeled, Metric, PieceSet, Unlabeled, parse};
use pipeline::{RunOptions, run_space};

mod common;
use common::{median, time};

fn row(what: &str, ours: f64, baseline: Option<(f64, &str)>) {
    match baseline {
        Some((b, how)) => println!(
            "| {what} | {ours:.3} s | {b:.3} s ({how}) | {:.1}x |",
            b / ours
        ),
        None => println!("| {what} | {ours:.3} s | | |"),
    }
}

/// Seed 000's idea, straightforwardly: place the ten labeled pieces one at a time on a bitmask
/// board (first free cell, every piece that fits there, or leave it empty), single-threaded,
/// collecting one key per complete position.
fn baseline_enumerate(set: PieceSet) -> Vec<u64> {
    let mut pieces = vec![Kind::Cao];
    pieces.extend(std::iter::repeat_n(Kind::Horizontal, set.h as usize));
    pieces.extend(std::iter::repeat_n(Kind::Vertical, set.v as usize));
    pieces.extend(std::iter::repeat_n(Kind::Soldier, set.s as usize));
    let mut out = Vec::new();
    #[allow(clippy::too_many_arguments)]
    fn go(pieces: &[Kind], used: u32, occ: u32, empties: u8, key: u64, out: &mut Vec<u64>) {
        let Some(cell) = (0..20).find(|&i| occ & (1 << i) == 0) else {
            out.push(key);
            return;
        };
        let (r, c) = (cell / 4, cell % 4);
        if empties > 0 {
            go(pieces, used, occ | 1 << cell, empties - 1, key, out);
        }
        for (p, &kind) in pieces.iter().enumerate() {
            if used & (1 << p) != 0 {
                continue;
            }
            if let Some(m) = mask_at(kind, r, c)
                && m & occ == 0
            {
                let key = key | (cell as u64) << (5 * p);
                go(pieces, used | 1 << p, occ | m, empties, key, out);
            }
        }
    }
    go(&pieces, 0, 0, set.empty_cells(), 0, &mut out);
    out
}

/// The straightforward graph build: decode every state, generate its moves, encode and rank
/// every neighbour (binary search), one thread.
fn baseline_graph<P: Puzzle + Ranking>(p: &P, metric: usize) -> (Vec<u64>, Vec<u32>) {
    let n = p.ranked_len().unwrap();
    let mut offsets = vec![0u64];
    let mut targets = Vec::new();
    let mut codes = Vec::new();
    for i in 0..n {
        codes.clear();
        p.successors(p.unrank(i), metric, &mut codes);
        let mut nb: Vec<u32> = codes.iter().map(|&c| p.rank(c).unwrap() as u32).collect();
        nb.sort_unstable();
        targets.extend(nb);
        offsets.push(targets.len() as u64);
    }
    (offsets, targets)
}

/// A plain BFS solve: std HashMap (SipHash), VecDeque, boards throughout.
fn baseline_solve(start: &Board, metric: Metric) -> usize {
    let mut parent: HashMap<u64, u64> = HashMap::new();
    let mut depth: HashMap<u64, usize> = HashMap::new();
    let mut queue = VecDeque::new();
    parent.insert(start.code(), u64::MAX);
    depth.insert(start.code(), 0);
    queue.push_back(*start);
    let mut moves = Vec::new();
    while let Some(b) = queue.pop_front() {
        let d = depth[&b.code()];
        if b.is_goal() {
            return d;
        }
        moves.clear();
        b.moves(metric, &mut moves);
        for m in &moves {
            let nb = b.apply(m);
            if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(nb.code()) {
                e.insert(b.code());
                depth.insert(nb.code(), d + 1);
                queue.push_back(nb);
            }
        }
    }
    usize::MAX
}

fn quiet() -> RunOptions {
    RunOptions {
        force: true,
        ..RunOptions::default()
    }
}

fn stage_rows(dir: &Path, l: &Labeled) {
    let q = &Reporter::quiet();
    let (t, (states, _)) = time(5, || {
        enumerate::run(l, &dir.join("states.bin"), true, q).unwrap()
    });
    let (tb, keys) = time(1, || baseline_enumerate(PieceSet::CLASSIC));
    assert_eq!(keys.len(), 37_946_880);
    assert_eq!(states.len(), keys.len());
    row(
        "enumerate labeled (37,946,880)",
        t,
        Some((tb, "seed-000 style backtracking, 1 thread, 1 run")),
    );
    drop(keys);

    for (m, name) in Metric::NAMES.iter().enumerate() {
        let path = dir.join(format!("graph-{name}.csr"));
        let (t, (csr, _)) = time(5, || graph::run(l, &states, m, &path, true, q).unwrap());
        let baseline = (m == 0).then(|| {
            let (tb, (_, targets)) = time(1, || baseline_graph(l, m));
            assert_eq!(targets.len() as u64, csr.arc_count());
            (tb, "decode, move, encode, rank; 1 thread, 1 run")
        });
        row(&format!("graph {name}"), t, baseline);

        let cpath = dir.join(format!("components-{name}.bin"));
        let (t, (comps, _)) = time(5, || {
            components::run(&csr, &csr.rows(l, &states, m), &cpath, name, true, q).unwrap()
        });
        let (tb, ids) = time(3, || {
            components::reference::component_ids(&csr.rows(l, &states, m))
        });
        assert_eq!(comps.ids(), &ids[..]);
        row(
            &format!("components {name}"),
            t,
            Some((tb, "sequential BFS labelling")),
        );
        drop(ids);

        let dpath = dir.join(format!("distances-{name}.bin"));
        let (t, (dists, _)) = time(5, || {
            distances::run(
                l,
                &states,
                &csr,
                &csr.rows(l, &states, m),
                &dpath,
                name,
                true,
                q,
            )
            .unwrap()
        });
        let src = distances::sources(l, &states).unwrap();
        let (tb, reference) = time(3, || {
            distances::reference::bfs(&csr.rows(l, &states, m), &src)
        });
        assert_eq!(dists.values(), &reference[..]);
        row(
            &format!("distances {name}"),
            t,
            Some((tb, "sequential queue BFS")),
        );
    }
}

/// The whole labeled pipeline, median of 5, two ways: into a fresh folder each time (the first
/// run of the main job; removing the previous folder and a `sync` are not timed), and
/// rebuilding over the artifacts of the previous repetition (`--force` on an existing output).
fn whole(l: &Labeled) {
    let what = "whole labeled pipeline (enumerate + 3 x graph, components, distances)";
    let mut times = Vec::new();
    for _ in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        // Like separate runs of the main job: no writeback of the previous repetition pending.
        let _ = std::process::Command::new("sync").status();
        let t = Instant::now();
        run_space(l, dir.path(), &[0, 1, 2], &quiet()).unwrap();
        times.push(t.elapsed().as_secs_f64());
    }
    row(&format!("{what}, fresh folder"), median(times), None);
    let dir = tempfile::tempdir().unwrap();
    let (t, _) = time(5, || {
        run_space(l, dir.path(), &[0, 1, 2], &quiet()).unwrap()
    });
    row(&format!("{what}, --force over existing"), t, None);
}

/// `-- universe`: every piece set (29,334,498 positions).
fn universe(dir: &Path) {
    use rayon::prelude::*;
    let sets: Vec<PieceSet> = PieceSet::all();
    println!(
        "| universe (203 piece sets, 29,334,498 positions) | ours, median | baseline, median | speed-up |"
    );
    println!("|---|---|---|---|");
    // Enumeration in memory: every set's sorted code table, sets in parallel.
    let (t, total) = time(5, || {
        sets.par_iter()
            .map(|&s| Unlabeled::new(s).len())
            .sum::<usize>()
    });
    assert_eq!(total, 29_334_498);
    let (b, _) = time(3, || {
        sets.iter().map(|&s| Unlabeled::new(s).len()).sum::<usize>()
    });
    row(
        "enumerate all positions (sorted code tables in memory)",
        t,
        Some((b, "the same, one set after another on one thread")),
    );
    // Every set's stages once, to have graphs; then components + piece distances again.
    let spaces: Vec<Unlabeled> = sets
        .par_iter()
        .map(|&s| Unlabeled::new(s))
        .filter(|u| !u.is_empty())
        .collect();
    let (t, _) = time(3, || {
        spaces.par_iter().for_each(|u| {
            let d = dir.join(u.space_id());
            std::fs::create_dir_all(&d).unwrap();
            enumerate::run(u, &d.join("states.bin"), true, &Reporter::quiet()).unwrap();
        })
    });
    row("enumerate stage: all 203 state tables written", t, None);
    let t0 = Instant::now();
    spaces.par_iter().for_each(|u| {
        run_space(
            u,
            &dir.join(u.space_id()),
            &[Metric::Piece as usize],
            &quiet(),
        )
        .unwrap();
    });
    row(
        "enumerate + piece graph + components + distances, all sets (once)",
        t0.elapsed().as_secs_f64(),
        None,
    );
    let piece = Metric::Piece as usize;
    let (t, _) = time(3, || {
        spaces.par_iter().for_each(|u| {
            let d = dir.join(u.space_id());
            let q = &Reporter::quiet();
            let states = enumerate::StateTable::open(&d.join("states.bin"), u).unwrap();
            let csr = graph::Csr::open(&d.join("graph-piece.csr"), u, piece, &states).unwrap();
            components::run(
                &csr,
                &csr.rows(u, &states, piece),
                &d.join("components-piece.bin"),
                "u",
                true,
                q,
            )
            .unwrap();
            distances::run(
                u,
                &states,
                &csr,
                &csr.rows(u, &states, piece),
                &d.join("distances-piece.bin"),
                "u",
                true,
                q,
            )
            .unwrap();
        })
    });
    let (b, _) = time(1, || {
        spaces.iter().for_each(|u| {
            let d = dir.join(u.space_id());
            let states = enumerate::StateTable::open(&d.join("states.bin"), u).unwrap();
            let csr = graph::Csr::open(&d.join("graph-piece.csr"), u, piece, &states).unwrap();
            let goals: Vec<u32> = (0..u.len() as u32)
                .filter(|&i| u.is_goal(u.unrank(i as u64)))
                .collect();
            let rows = csr.rows(u, &states, piece);
            std::hint::black_box(components::reference::component_ids(&rows));
            std::hint::black_box(distances::reference::bfs(&rows, &goals));
        })
    });
    row(
        "components + piece-metric distances, all sets (graphs built)",
        t,
        Some((b, "sequential references, one set after another (1 run)")),
    );
}

/// `-- timely`: components and piece-metric distances of the labeled classic space, local vs
/// timely in one process with 1 and 2 workers (median of 5 each), with the dataflow's bytes per
/// BFS level. (Two processes: `huarong run --engine timely --hosts …`, see docs/SCALING.md.)
fn timely_vs_local(dir: &Path) {
    let l = Labeled::new(PieceSet::CLASSIC).unwrap();
    let q = &Reporter::quiet();
    let piece = Metric::Piece as usize;
    let (states, _) = enumerate::run(&l, &dir.join("states.bin"), true, q).unwrap();
    let (csr, _) = graph::run(&l, &states, piece, &dir.join("g.csr"), true, q).unwrap();
    let src = distances::sources(&l, &states).unwrap();
    let rows = csr.rows(&l, &states, piece);
    let local_c = median_secs(5, || {
        components::run(&csr, &rows, &dir.join("c-local"), "l", true, q).unwrap();
    });
    let local_d = median_secs(5, || {
        distances::run_from(
            &l,
            &states,
            &csr,
            &rows,
            &src,
            &dir.join("d-local"),
            "l",
            true,
            q,
        )
        .unwrap();
    });
    let local = distances::Distances::open(&dir.join("d-local"), &l, &states, &csr).unwrap();
    let local_roots = components::union_find_roots(&rows, |_| {});
    println!(
        "| labeled classic, piece metric, whole stage (compute + write the artifact), median of 5 | components | distances |"
    );
    println!("|---|---|---|");
    println!("| local (rayon, 2 threads) | {local_c:.3} s | {local_d:.3} s |");
    let mut levels = Vec::new();
    for workers in [1, 2] {
        let cluster = dataflow::Cluster::local(workers);
        // The whole stage either way: compute, then write the same artifact.
        let mut ct = None;
        let timely_c = median_secs(5, || {
            components::run_with(&csr, &dir.join("c-timely"), "t", true, || {
                let (roots, t) = dataflow::component_roots(&rows, &cluster)?.unwrap();
                assert_eq!(roots, local_roots);
                ct = Some(t);
                Ok(roots)
            })
            .unwrap();
        });
        let mut dt = None;
        let timely_d = median_secs(5, || {
            distances::run_with(
                &l,
                &states,
                &csr,
                &src,
                &dir.join("d-timely"),
                "t",
                true,
                |s| {
                    let (dist, t) = dataflow::distances(&rows, s, &cluster)?.unwrap();
                    assert_eq!(local.values(), &dist[..]);
                    dt = Some(t);
                    Ok(dist)
                },
            )
            .unwrap();
        });
        let (ct, dt) = (ct.unwrap(), dt.unwrap());
        println!(
            "| timely, 1 process x {workers} worker(s) | {timely_c:.3} s ({:.2}x; {} merge rounds, {} bytes) | {timely_d:.3} s ({:.2}x; {} levels, {:.1} MB between workers, {:.1} MB gathered) |",
            timely_c / local_c,
            ct.bytes_per_round.len(),
            ct.total(),
            timely_d / local_d,
            dt.bytes_per_round.len(),
            dt.bytes_per_round.iter().sum::<u64>() as f64 / 1e6,
            dt.gathered as f64 / 1e6,
        );
        levels = dt.bytes_per_round.clone();
    }
    println!();
    println!("BFS bytes per level between the 2 workers (batches of newly reached states):");
    for (level, b) in levels.iter().enumerate() {
        println!("level {}: {b} bytes", level + 1);
    }
}

/// Median wall time of `runs` calls of `f`, in seconds.
fn median_secs(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    if std::env::args().any(|a| a == "timely") {
        timely_vs_local(dir.path());
        return;
    }
    if std::env::args().any(|a| a == "universe") {
        universe(dir.path());
        return;
    }
    // `-- enumerate`: only the labeled enumeration (for measuring its peak RSS on its own).
    if std::env::args().any(|a| a == "enumerate") {
        let l = Labeled::new(PieceSet::CLASSIC).unwrap();
        let path = dir.path().join("states.bin");
        let (t, (states, _)) = time(5, || {
            enumerate::run(&l, &path, true, &Reporter::quiet()).unwrap()
        });
        assert_eq!(states.len(), 37_946_880);
        row("enumerate labeled (37,946,880)", t, None);
        return;
    }
    // `-- whole`: only the whole labeled pipeline.
    if std::env::args().any(|a| a == "whole") {
        whole(&Labeled::new(PieceSet::CLASSIC).unwrap());
        return;
    }
    // `-- solve`: only the solve latencies.
    if !std::env::args().any(|a| a == "solve") {
        let l = Labeled::new(PieceSet::CLASSIC).unwrap();
        println!("threads: {}", rayon::current_num_threads());
        println!("| stage (labeled classic) | ours, median | baseline, median | speed-up |");
        println!("|---|---|---|---|");
        stage_rows(dir.path(), &l);
        whole(&l);
    }

    // Solve latency.
    let u = Unlabeled::new(PieceSet::CLASSIC);
    let tables = dir.path().join("tables");
    run_space(&u, &tables.join(u.space_id()), &[0, 1, 2], &quiet()).unwrap();
    let start = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
    let reps = 51;
    let (cold, path) = time(reps, || {
        klotski::solve::solve(&start, Metric::Piece).unwrap()
    });
    assert_eq!(path.len(), 82);
    let request = huarong_core::driver::SolveRequest {
        position: Some("VCCV/VCCV/VHHV/VSSV/S..S"),
        ..Default::default()
    };
    let (warm, path) = time(reps, || {
        let instance = pipeline::solve::instance(registry::families(), &request).unwrap();
        pipeline::play::Atlas::searching(registry::families(), vec![tables.clone()], u64::MAX)
            .solve_instance(instance.as_ref(), Some("piece"))
            .unwrap()
            .path
            .unwrap()
    });
    assert_eq!(path.layouts.len(), 82);
    let (plain, moves) = time(reps, || baseline_solve(&start, Metric::Piece));
    assert_eq!(moves, 81);
    println!();
    println!("| solve 横刀立马 (piece) | median of {reps} |");
    println!("|---|---|");
    println!(
        "| from tables (parse + open + verify + descend) | {:.3} ms |",
        warm * 1e3
    );
    println!("| cold BFS | {:.3} ms |", cold * 1e3);
    println!(
        "| baseline: plain BFS (SipHash map, queue) | {:.3} ms |",
        plain * 1e3
    );
}
