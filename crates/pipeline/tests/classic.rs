//! Integration tests: real pipelines over the classic piece set.

use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::{Puzzle, UNREACHABLE};
use klotski::{PieceSet, Unlabeled, parse};
use pipeline::run::files;
use pipeline::{RunOptions, run_space};

fn quiet() -> RunOptions {
    RunOptions::default()
}

#[test]
fn hengdao_lima_takes_81_piece_moves() {
    let dir = tempfile::tempdir().unwrap();
    let u = Unlabeled::new(PieceSet::CLASSIC);
    run_space(&u, dir.path(), &[0, 1, 2], &quiet()).unwrap();
    let states = StateTable::open(&dir.path().join(files::STATES), &u).unwrap();
    let start = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
    let i = u.rank(start.code()).unwrap() as usize;
    let mut d = Vec::new();
    for m in ["step", "straight", "piece"] {
        let metric = huarong_core::metric_index(&u, m).unwrap();
        let csr = Csr::open(&dir.path().join(files::graph(m)), &u, metric, &states).unwrap();
        let dist =
            Distances::open(&dir.path().join(files::distances(m)), &u, &states, &csr).unwrap();
        d.push(dist.values()[i]);
    }
    assert_ne!(d[0], UNREACHABLE);
    eprintln!("横刀立马 step/straight/piece = {d:?}");
    assert_eq!(d[2], 81);
}

struct Opened {
    ids: Vec<Vec<u32>>,
    dist: Vec<Vec<u16>>,
}

/// Runs a space in all three metrics and loads its component ids and distances.
fn run_and_load<P: Puzzle + 'static>(p: &P, dir: &std::path::Path) -> Opened {
    run_space(p, dir, &[0, 1, 2], &quiet()).unwrap();
    let states = StateTable::open(&dir.join(files::STATES), p).unwrap();
    let mut out = Opened {
        ids: Vec::new(),
        dist: Vec::new(),
    };
    for (metric, m) in ["step", "straight", "piece"].iter().enumerate() {
        let csr = Csr::open(&dir.join(files::graph(m)), p, metric, &states).unwrap();
        let c = components::Components::open(&dir.join(files::components(m)), &csr).unwrap();
        let d = Distances::open(&dir.join(files::distances(m)), p, &states, &csr).unwrap();
        out.ids.push(c.ids().to_vec());
        out.dist.push(d.values().to_vec());
    }
    out
}

fn assert_metrics_nest(dist: &[Vec<u16>]) {
    let triples = dist[0].iter().zip(&dist[1]).zip(&dist[2]);
    for (i, ((&step, &straight), &piece)) in triples.enumerate() {
        let finite = step != UNREACHABLE;
        assert_eq!(finite, straight != UNREACHABLE, "state {i}");
        assert_eq!(finite, piece != UNREACHABLE, "state {i}");
        assert!(
            piece <= straight && straight <= step,
            "state {i}: {piece} {straight} {step}"
        );
    }
}

#[test]
fn unlabeled_distances_nest_and_are_mirror_invariant() {
    for set in ["h1v4s4", "h2v3s2", "h0v4s4"] {
        let dir = tempfile::tempdir().unwrap();
        let u = Unlabeled::new(set.parse().unwrap());
        let o = run_and_load(&u, dir.path());
        assert_metrics_nest(&o.dist);
        for (i, &code) in u.codes().iter().enumerate() {
            let b = klotski::Board::from_code(code, u.piece_set()).unwrap();
            let j = u.index_of_board(&b.mirror()).unwrap() as usize;
            for m in 0..3 {
                assert_eq!(o.dist[m][i], o.dist[m][j], "{set}: mirror of state {i}");
            }
        }
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn labeled_classic_agrees_with_unlabeled() {
    use rayon::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let l = klotski::Labeled::new(PieceSet::CLASSIC).unwrap();
    let lab = run_and_load(&l, &dir.path().join("labeled"));
    let unl = run_and_load(l.base(), &dir.path().join("unlabeled"));
    assert_metrics_nest(&lab.dist);
    let per = l.per_canonical() as usize;
    for m in 0..3 {
        // Each labeled state's distance is its canonical state's.
        assert!(
            lab.dist[m]
                .par_iter()
                .enumerate()
                .all(|(i, &d)| d == unl.dist[m][i / per])
        );
        // Each labeled component lies inside one canonical component.
        let ncomp = *lab.ids[m].iter().max().unwrap() as usize + 1;
        let mut canon = vec![u32::MAX; ncomp];
        for (i, &c) in lab.ids[m].iter().enumerate() {
            let k = unl.ids[m][i / per];
            if canon[c as usize] == u32::MAX {
                canon[c as usize] = k;
            }
            assert_eq!(
                canon[c as usize], k,
                "labeled component {c} spans two canonical ones"
            );
        }
        // Distance is mirror-invariant on the labeled space too.
        assert!((0..l.len() as u32).into_par_iter().all(|i| {
            let i = i as u64;
            let b = l.board_of(l.unrank(i)).unwrap();
            let j = l.rank(l.code_of(&b.mirror())).unwrap();
            lab.dist[m][i as usize] == lab.dist[m][j as usize]
        }));
    }
}

/// Artifact bytes do not depend on the number of threads.
#[test]
fn artifacts_are_identical_with_one_and_two_threads() {
    let l = klotski::Labeled::new("h1v2s2".parse().unwrap()).unwrap();
    let u = Unlabeled::new(PieceSet::CLASSIC);
    let run = |threads: usize, dir: &std::path::Path| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                run_space(&u, &dir.join("u"), &[0, 1, 2], &quiet()).unwrap();
                run_space(&l, &dir.join("l"), &[0, 1, 2], &quiet()).unwrap();
            });
    };
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run(1, one.path());
    run(2, two.path());
    let mut compared = 0;
    for space in ["u", "l"] {
        for entry in std::fs::read_dir(one.path().join(space)).unwrap() {
            let name = entry.unwrap().file_name();
            let a = std::fs::read(one.path().join(space).join(&name)).unwrap();
            let b = std::fs::read(two.path().join(space).join(&name)).unwrap();
            assert!(a == b, "{space}/{name:?} differs between 1 and 2 threads");
            compared += 1;
        }
    }
    assert_eq!(compared, 2 * 10);
}
