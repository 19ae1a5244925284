//! Integration tests: the sibling puzzles' real pipelines, checked against independent simple
//! implementations (plain BFS, exhaustive search) and their judges.

use std::collections::{HashMap, VecDeque};

use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::{Puzzle, UNREACHABLE};
use pipeline::space::Kind;
use pipeline::{Pipeline, RunOptions, run_pipeline};

fn quiet() -> RunOptions {
    RunOptions::default()
}

/// The distances artifact of a one-metric space.
fn distances_of<P: Puzzle>(p: &P, dir: &std::path::Path) -> (Vec<u64>, Vec<u16>, Csr) {
    let m = p.metrics()[0];
    let states = StateTable::open(&Kind::States.path(dir, ""), p).unwrap();
    let csr = Csr::open(&Kind::Graph.path(dir, m), p, 0, &states).unwrap();
    let d = Distances::open(&Kind::Distances.path(dir, m), p, &states, &csr).unwrap();
    (states.codes(p).to_vec(), d.values().to_vec(), csr)
}

/// Plain Solitaire BFS on coordinate lists in a hash map, independent of the crate's bit masks.
fn solitaire_plain_bfs(start: [(i32, i32); 4]) -> HashMap<[(i32, i32); 4], u16> {
    let norm = |mut s: [(i32, i32); 4]| {
        s.sort_unstable();
        s
    };
    let mut dist = HashMap::from([(norm(start), 0u16)]);
    let mut queue = VecDeque::from([norm(start)]);
    while let Some(s) = queue.pop_front() {
        let d = dist[&s];
        for k in 0..4 {
            for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let occupied = |r: i32, c: i32| s.contains(&(r, c));
                let on = |r: i32, c: i32| (1..=8).contains(&r) && (1..=8).contains(&c);
                let (r, c) = (s[k].0 + dr, s[k].1 + dc);
                let to = if !on(r, c) {
                    continue;
                } else if !occupied(r, c) {
                    (r, c)
                } else if on(r + dr, c + dc) && !occupied(r + dr, c + dc) {
                    (r + dr, c + dc)
                } else {
                    continue;
                };
                let mut t = s;
                t[k] = to;
                let t = norm(t);
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(t) {
                    e.insert(d + 1);
                    queue.push_back(t);
                }
            }
        }
    }
    dist
}

#[test]
fn solitaire_pipeline_agrees_with_plain_bfs_and_the_judge() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../pipelines/solitaire.toml"
    ))
    .unwrap();
    let pipeline = Pipeline::parse(registry::families(), &text).unwrap();
    let report = run_pipeline(&pipeline, Some(dir.path()), &quiet()).unwrap();
    let space = &report.spaces[0];
    assert_eq!(space.states, 635_376);
    let puzzle = solitaire::Solitaire::new(
        solitaire::parse("4 4 4 5 5 4 6 5").unwrap(),
        solitaire::parse("2 4 3 3 3 6 4 6").unwrap(),
    );
    let (codes, dist, csr) = distances_of(&puzzle, &space.dir);

    let plain = solitaire_plain_bfs([(4, 4), (4, 5), (5, 4), (6, 5)]);
    let reached = dist.iter().filter(|&&d| d != UNREACHABLE).count();
    assert_eq!(reached, plain.len());
    for (i, &code) in codes.iter().enumerate() {
        let cells = solitaire::cells(code);
        let key: [(i32, i32); 4] = std::array::from_fn(|k| (cells[k].0 as i32, cells[k].1 as i32));
        assert_eq!(plain.get(&key).copied().unwrap_or(UNREACHABLE), dist[i]);
    }
    // The graph is undirected and every arc is a legal move.
    assert_eq!(csr.arc_count(), 2 * space.metrics[0].edges);
    assert_eq!(
        space.metrics[0].answer,
        Some(dist[solitaire::rank(puzzle.goal()).unwrap() as usize] as u64)
    );

    // Generated judge cases from the pipeline's start: YES exactly when the distance is <= 8.
    let mut rng = huarong_core::SplitMix(401);
    let mut input = String::new();
    let mut expected = String::new();
    for k in 0..300u64 {
        // Half the ends near the start (random walks), half anywhere.
        let end = if k % 2 == 0 {
            let mut s = puzzle.start();
            for _ in 0..(rng.next_u64() % 11) {
                let mut out = Vec::new();
                solitaire::successors(s, &mut out);
                s = out[(rng.next_u64() % out.len() as u64) as usize];
            }
            s
        } else {
            solitaire::unrank(rng.next_u64() % solitaire::STATES)
        };
        input += &format!(
            "{}\n{}\n",
            solitaire::render(puzzle.start()),
            solitaire::render(end)
        );
        let d = dist[solitaire::rank(end).unwrap() as usize];
        expected += if d <= 8 { "YES\n" } else { "NO\n" };
    }
    assert!(expected.contains("YES") && expected.contains("NO"));
    assert_eq!(solitaire::judge::run(&input).unwrap(), expected);
}

#[test]
fn omnigravity_answers_agree_with_the_reference_and_the_judge() {
    let dir = tempfile::tempdir().unwrap();
    let mut toml = String::from("name = \"og\"\noutput = \"unused\"\n");
    let mut boards = Vec::new();
    for (name, board) in omnigravity::SAMPLES {
        boards.push((name.to_owned(), omnigravity::Board::parse(board).unwrap()));
    }
    for seed in 0..40 {
        boards.push((
            format!("gen-{seed}"),
            omnigravity::random_board(seed, seed % 30),
        ));
    }
    for (name, b) in &boards {
        toml += &format!(
            "[[omnigravity.boards]]\nname = \"{name}\"\nboard = \"{}\"\n",
            b.render(b.start())
        );
    }
    let pipeline = Pipeline::parse(registry::families(), &toml).unwrap();
    let report = run_pipeline(&pipeline, Some(dir.path()), &quiet()).unwrap();
    let judge_out = omnigravity::judge::run(&omnigravity::judge::input_for(
        &boards.iter().map(|b| b.1).collect::<Vec<_>>(),
    ))
    .unwrap();
    let mut expected = String::new();
    for (k, ((name, b), space)) in boards.iter().zip(&report.spaces).enumerate() {
        let text = b.render(b.start());
        let rows: Vec<&str> = text.split('/').collect();
        let answer = omnigravity::reference::count_reachable(&rows);
        assert_eq!(space.metrics[0].answer, Some(answer), "{name}");
        expected += &format!("Case {}: {answer}\n", k + 1);
        // Depth from the start: the stage's BFS against a sequential one over the same graph,
        // and every explored state is reachable.
        let puzzle = omnigravity::OmniGravity::new(name.clone(), *b);
        let (codes, dist, csr) = distances_of(&puzzle, &space.dir);
        let start = codes.binary_search(&b.start()).unwrap() as u32;
        assert_eq!(
            dist,
            distances::reference::bfs(&csr.view(), &[start]),
            "{name}"
        );
        assert!(dist.iter().all(|&d| d != UNREACHABLE), "{name}");
        // Strongly connected components agree with petgraph's.
        let scc = petgraph::algo::tarjan_scc(&csr);
        assert_eq!(space.metrics[0].components, scc.len() as u64, "{name}");
    }
    assert_eq!(judge_out, expected);
    assert!(
        report.spaces[0].metrics[0].answer == Some(110)
            && report.spaces[1].metrics[0].answer == Some(2)
    );
}

#[test]
fn square_destroyer_tables_agree_with_exhaustive_search_and_ida_star() {
    use square_destroyer::{Grid, SquareDestroyer, search};
    let dir = tempfile::tempdir().unwrap();
    let toml = "name = \"sd\"\noutput = \"unused\"\n[square-destroyer]\nexhaustive = [1, 2, 3]\n";
    let report = run_pipeline(
        &Pipeline::parse(registry::families(), toml).unwrap(),
        Some(dir.path()),
        &quiet(),
    )
    .unwrap();
    let answers: Vec<Option<u64>> = report.spaces.iter().map(|s| s.metrics[0].answer).collect();
    assert_eq!(answers, vec![Some(1), Some(3), Some(6)]);

    for (k, n) in [1usize, 2, 3].into_iter().enumerate() {
        let puzzle = SquareDestroyer::new(n, true);
        let grid = Grid::new(n);
        let (codes, dist, _) = distances_of(&puzzle, &report.spaces[k].dir);
        // One state per orbit: Burnside's count from the symmetries' cycle structure.
        let mut fixed_sum = 0u64;
        for s in 0..8 {
            let mut seen = vec![false; grid.matches()];
            let mut cycles = 0;
            for m in 0..grid.matches() {
                if !seen[m] {
                    cycles += 1;
                    let mut x = m;
                    while !seen[x] {
                        seen[x] = true;
                        x = grid.transform(s, 1 << x).trailing_zeros() as usize;
                    }
                }
            }
            fixed_sum += 1 << cycles;
        }
        assert_eq!(codes.len() as u64, fixed_sum / 8, "n = {n}");
        if n <= 2 {
            for (i, &c) in codes.iter().enumerate() {
                assert_eq!(
                    dist[i] as u32,
                    search::exhaustive(&grid, c),
                    "n {n}: {}",
                    grid.render(c)
                );
            }
        } else {
            let mut rng = huarong_core::SplitMix(3);
            for _ in 0..400 {
                let percent = rng.next_u64() % 45;
                let p = square_destroyer::random_removal(&grid, &mut rng, percent);
                let i = codes.binary_search(&puzzle.state_of(p)).unwrap();
                let exhaustive = search::exhaustive(&grid, p);
                assert_eq!(dist[i] as u32, exhaustive, "{}", grid.render(p));
                assert_eq!(search::solve(&grid, p), exhaustive, "{}", grid.render(p));
            }
        }
    }

    // Without the symmetry reduction (n = 2: all 4,096 sets, ranked by mask) every set's
    // distance is its orbit representative's.
    let plain = SquareDestroyer::new(2, false);
    let sym = SquareDestroyer::new(2, true);
    let d2 = dir.path().join("plain");
    pipeline::run_space(&plain, &d2, &[0], &quiet()).unwrap();
    let (codes, dist, _) = distances_of(&plain, &d2);
    let (sym_codes, sym_dist, _) = distances_of(&sym, &report.spaces[1].dir);
    assert_eq!(codes.len(), 4096);
    for (i, &c) in codes.iter().enumerate() {
        let j = sym_codes.binary_search(&sym.state_of(c)).unwrap();
        assert_eq!(dist[i], sym_dist[j]);
    }
}
