//! Integration tests: real pipelines over the classic piece set.

use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::{Puzzle, Ranking, UNREACHABLE};
use klotski::{Metric, PieceSet, Unlabeled, parse};
use pipeline::space::Kind;
use pipeline::{RunOptions, run_space};

fn quiet() -> RunOptions {
    RunOptions::default()
}

#[test]
fn hengdao_lima_takes_81_piece_moves() {
    let dir = tempfile::tempdir().unwrap();
    let u = Unlabeled::new(PieceSet::CLASSIC);
    run_space(&u, dir.path(), &[0, 1, 2], &quiet()).unwrap();
    let states = StateTable::open(&Kind::States.path(dir.path(), ""), &u).unwrap();
    let start = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
    let i = u.rank(start.code()).unwrap() as usize;
    let mut d = Vec::new();
    for m in ["step", "straight", "piece"] {
        let metric = huarong_core::metric_index(&u, m).unwrap();
        let csr = Csr::open(&Kind::Graph.path(dir.path(), m), &u, metric, &states).unwrap();
        let dist =
            Distances::open(&Kind::Distances.path(dir.path(), m), &u, &states, &csr).unwrap();
        d.push(dist.values()[i]);
    }
    // 81 piece moves: the published optimum (Gardner, Scientific American, February 1964; the
    // classic 81-move solution). 116 step and 90 straight moves: the cold breadth-first search
    // of `klotski::solve` (a separate model: bitboards and a hash map, no tables) agrees below.
    assert_eq!(d, [116, 90, 81]);
    for (m, &want) in [Metric::Step, Metric::Straight, Metric::Piece]
        .iter()
        .zip(&d)
    {
        let path = klotski::solve::solve(&start, *m).unwrap();
        assert_eq!(path.len() - 1, want as usize, "{m:?}");
    }
}

/// The labeled classic space in the piece metric: every figure of the main job's labeled rows
/// (docs/USAGE.md), each also derived without the labeled space.
///
/// Independent derivation of the components: walking a component of the *unlabeled* space on
/// plain boards (`Board::moves`, labels carried by `Board::apply`) and closing every loop
/// permutes the labels by a group G; the component's 576 labelings (4! generals × 4!
/// soldiers) then fall into 576 / |G| labeled components. Solvable states, goals and the
/// farthest ones are the unlabeled figures times 576.
#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn labeled_classic_figures_in_the_piece_metric() {
    let dir = tempfile::tempdir().unwrap();
    let l = klotski::Labeled::new(PieceSet::CLASSIC).unwrap();
    let piece = huarong_core::metric_index(&l, "piece").unwrap();
    let r = run_space(&l, dir.path(), &[piece], &quiet()).unwrap();
    let m = &r.metrics[0];
    assert_eq!(r.states, 37_946_880);
    assert_eq!(r.goal_states, 3_913_920);
    assert_eq!(m.edges, 66_215_808);
    assert_eq!(m.components, 476_306);
    assert_eq!(m.goal_components, 24_002);
    assert_eq!(m.solvable_states, 31_077_504);
    assert_eq!((m.max_distance, m.max_distance_states), (93, 1152));

    let u = l.base();
    let per = l.per_canonical() as u64;
    assert_eq!(per, 576);
    let derived = labeled_components_from_loops(u, Metric::Piece);
    assert_eq!(derived.components, 898);
    assert_eq!(derived.edges, UNLABELED_ROW.2[2].0);
    assert_eq!(derived.labeled, m.components);
    assert_eq!(derived.labeled_with_goal, m.goal_components);
    assert_eq!(derived.solvable * per, m.solvable_states);
    assert_eq!(derived.goals * per, r.goal_states);
    assert_eq!(derived.edges * per, m.edges);
}

#[derive(Debug, Default)]
struct Derived {
    /// Unlabeled components, states reaching a goal, goal states, edges.
    components: u64,
    solvable: u64,
    goals: u64,
    edges: u64,
    /// Labeled components over all unlabeled components, and over those holding a goal.
    labeled: u64,
    labeled_with_goal: u64,
}

/// See [`labeled_classic_figures_in_the_piece_metric`]: one breadth-first walk per unlabeled
/// component on plain boards, a permutation group per component.
fn labeled_components_from_loops(u: &Unlabeled, metric: Metric) -> Derived {
    use std::collections::{HashSet, VecDeque};
    let n = u.len();
    let mut labels: Vec<Option<Vec<u8>>> = vec![None; n];
    let mut out = Derived::default();
    let mut moves = Vec::new();
    for root in 0..n {
        if labels[root].is_some() {
            continue;
        }
        let board = u.board(root as u32);
        let seqs = board
            .label_sequences()
            .map(|s| (0..s.len() as u8).collect::<Vec<u8>>());
        // Labels numbered 0.. within each kind; flattened, a kind's labels keep their slots.
        let identity: Vec<u8> = (0..seqs.iter().map(Vec::len).sum::<usize>() as u8).collect();
        let offsets = [0, seqs[0].len(), seqs[0].len() + seqs[1].len()];
        let global = |b: &klotski::Board| -> Vec<u8> {
            let s = b.label_sequences();
            (0..3)
                .flat_map(|k| s[k].iter().map(move |&x| x + offsets[k] as u8))
                .collect()
        };
        labels[root] = Some(identity.clone());
        let mut generators: HashSet<Vec<u8>> = HashSet::new();
        let mut queue = VecDeque::from([root]);
        let (mut solvable_here, mut goal_here) = (false, false);
        out.components += 1;
        let mut members = Vec::new();
        while let Some(i) = queue.pop_front() {
            members.push(i);
            let here = labels[i].clone().unwrap();
            let b = u.board(i as u32);
            let local: [Vec<u8>; 3] = std::array::from_fn(|k| {
                here[offsets[k]..offsets[k] + seqs[k].len()]
                    .iter()
                    .map(|&x| x - offsets[k] as u8)
                    .collect()
            });
            let b = b.with_labels(&local);
            goal_here |= b.is_goal();
            moves.clear();
            b.moves(metric, &mut moves);
            let mut targets = HashSet::new();
            for mv in &moves {
                let next = b.apply(mv);
                let j = u.index_of_board(&next.unlabeled()).unwrap() as usize;
                targets.insert(j);
                let carried = global(&next);
                match &labels[j] {
                    None => {
                        labels[j] = Some(carried);
                        queue.push_back(j);
                    }
                    Some(tree) => {
                        // The loop root → i → j → root maps label carried[s] to tree[s].
                        let mut g = vec![0u8; identity.len()];
                        for (s, &c) in carried.iter().enumerate() {
                            g[c as usize] = tree[s];
                        }
                        if g != identity {
                            generators.insert(g);
                        }
                    }
                }
            }
            out.edges += targets.len() as u64;
        }
        let order = group_order(&identity, &generators);
        let labeled = 576 / order;
        assert_eq!(576 % order, 0);
        out.labeled += labeled;
        if goal_here {
            solvable_here = true;
            out.labeled_with_goal += labeled;
        }
        if solvable_here {
            out.solvable += members.len() as u64;
        }
        out.goals += members
            .iter()
            .filter(|&&i| u.board(i as u32).is_goal())
            .count() as u64;
    }
    out.edges /= 2;
    out
}

/// The order of the permutation group the generators generate (closure from the identity).
fn group_order(identity: &[u8], generators: &std::collections::HashSet<Vec<u8>>) -> u64 {
    let mut seen = std::collections::HashSet::from([identity.to_vec()]);
    let mut todo = vec![identity.to_vec()];
    while let Some(p) = todo.pop() {
        for g in generators {
            let q: Vec<u8> = p.iter().map(|&x| g[x as usize]).collect();
            if seen.insert(q.clone()) {
                todo.push(q);
            }
        }
    }
    seen.len() as u64
}

struct Opened {
    ids: Vec<Vec<u32>>,
    dist: Vec<Vec<u16>>,
    report: pipeline::SpaceReport,
}

/// The main job's table as docs/USAGE.md prints it ("What the main job prints"), per space: states,
/// goals, then per metric (step, straight, piece) edges, components, goal components, solvable
/// states, the farthest distance and the states at it.
type Row = (u64, u64, [(u64, u64, u64, u64, u32, u64); 3]);
const UNLABELED_ROW: Row = (
    65_880,
    6_795,
    [
        (103_390, 898, 52, 53_954, 126, 4),
        (108_798, 898, 52, 53_954, 101, 2),
        (114_958, 898, 52, 53_954, 93, 2),
    ],
);
const LABELED_ROW: Row = (
    37_946_880,
    3_913_920,
    [
        (59_552_640, 476_306, 24_002, 31_077_504, 126, 2_304),
        (62_667_648, 476_306, 24_002, 31_077_504, 101, 1_152),
        (66_215_808, 476_306, 24_002, 31_077_504, 93, 1_152),
    ],
);

fn assert_row(r: &pipeline::SpaceReport, row: &Row) {
    assert_eq!((r.states, r.goal_states), (row.0, row.1), "{}", r.space_id);
    for (m, want) in r.metrics.iter().zip(&row.2) {
        let got = (
            m.edges,
            m.components,
            m.goal_components,
            m.solvable_states,
            m.max_distance,
            m.max_distance_states,
        );
        assert_eq!(got, *want, "{} {}", r.space_id, m.metric);
    }
}

/// The unlabeled rows of that table.
#[test]
fn unlabeled_classic_has_the_readme_figures() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_and_load(&Unlabeled::new(PieceSet::CLASSIC), dir.path());
    assert_row(&o.report, &UNLABELED_ROW);
}

/// Runs a space in all three metrics and loads its component ids and distances.
fn run_and_load<P: Puzzle + 'static>(p: &P, dir: &std::path::Path) -> Opened {
    let report = run_space(p, dir, &[0, 1, 2], &quiet()).unwrap();
    let states = StateTable::open(&Kind::States.path(dir, ""), p).unwrap();
    let mut out = Opened {
        ids: Vec::new(),
        dist: Vec::new(),
        report,
    };
    for (metric, m) in ["step", "straight", "piece"].iter().enumerate() {
        let csr = Csr::open(&Kind::Graph.path(dir, m), p, metric, &states).unwrap();
        let c = components::Components::open(&Kind::Components.path(dir, m), &csr).unwrap();
        let d = Distances::open(&Kind::Distances.path(dir, m), p, &states, &csr).unwrap();
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
    assert_row(&lab.report, &LABELED_ROW);
    assert_row(&unl.report, &UNLABELED_ROW);
    // Each labeled figure of the two runs is the unlabeled one times 576 (every labeling of a
    // position has its distance and its number of moves) but the components, which
    // `labeled_classic_figures_in_the_piece_metric` derives.
    let (ur, lr) = (&unl.report, &lab.report);
    assert_eq!(
        (ur.states * 576, ur.goal_states * 576),
        (lr.states, lr.goal_states)
    );
    for (a, b) in ur.metrics.iter().zip(&lr.metrics) {
        assert_eq!(
            (
                a.edges * 576,
                a.solvable_states * 576,
                a.max_distance,
                a.max_distance_states * 576
            ),
            (
                b.edges,
                b.solvable_states,
                b.max_distance,
                b.max_distance_states
            )
        );
    }
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
