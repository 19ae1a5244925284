//! Benchmarks of the sibling puzzles: each judge on 100 generated cases against a
//! straightforward baseline in the same run, Square Destroyer's hardest case, and the Solitaire
//! and Square Destroyer pipelines.
//!
//! `cargo bench -p pipeline --bench siblings` — medians of 5 runs.

use std::collections::HashSet;

use huarong_core::SplitMix;
use pipeline::{Pipeline, RunOptions, run_pipeline};
use square_destroyer::Grid;

mod common;
use common::time;

fn row(what: &str, ours: f64, baseline: f64, how: &str) {
    println!(
        "| {what} | {:.2} ms | {:.2} ms ({how}) | {:.1}x |",
        ours * 1e3,
        baseline * 1e3,
        baseline / ours
    );
}

/// 100 Solitaire cases: random starts, ends a random walk of 0–24 moves away.
fn solitaire_cases() -> Vec<(u64, u64)> {
    let mut rng = SplitMix(1401);
    (0..100)
        .map(|_| {
            let start = solitaire::unrank(rng.next_u64() % solitaire::STATES);
            let mut end = start;
            for _ in 0..rng.next_u64() % 25 {
                let mut out = Vec::new();
                solitaire::successors(end, &mut out);
                end = out[(rng.next_u64() % out.len() as u64) as usize];
            }
            (start, end)
        })
        .collect()
}

/// One-sided BFS from the start to depth 8 in a hash set.
fn solitaire_baseline(cases: &[(u64, u64)]) -> String {
    let mut out = String::new();
    for &(start, end) in cases {
        let mut seen = HashSet::from([start]);
        let mut frontier = vec![start];
        let mut found = start == end;
        for _ in 0..8 {
            if found {
                break;
            }
            let mut next = Vec::new();
            for &s in &frontier {
                let mut succ = Vec::new();
                solitaire::successors(s, &mut succ);
                for t in succ {
                    if seen.insert(t) {
                        found |= t == end;
                        next.push(t);
                    }
                }
            }
            frontier = next;
        }
        out += if found { "YES\n" } else { "NO\n" };
    }
    out
}

/// IDA* as seed 001 sketches it: the same packing bound, branching on the matches of the first
/// (smallest) intact square in match order, everything recomputed from the full square list.
fn square_baseline(grid: &Grid, present: u64) -> u32 {
    fn h(grid: &Grid, mut p: u64) -> u32 {
        let mut k = 0;
        for &s in grid.squares() {
            if p & s == s {
                k += 1;
                p &= !s;
            }
        }
        k
    }
    fn dfs(grid: &Grid, p: u64, g: u32, bound: u32) -> bool {
        let hv = h(grid, p);
        if hv == 0 {
            return true;
        }
        if g + hv > bound {
            return false;
        }
        let first = *grid.squares().iter().find(|&&s| p & s == s).unwrap();
        (0..64)
            .filter(|m| first >> m & 1 != 0)
            .any(|m| dfs(grid, p & !(1 << m), g + 1, bound))
    }
    let mut bound = h(grid, present);
    while !dfs(grid, present, 0, bound) {
        bound += 1;
    }
    bound
}

fn main() {
    println!("| judge, 100 generated cases | ours | baseline | speed-up |");
    println!("|---|---|---|---|");

    // Solitaire.
    let cases = solitaire_cases();
    let mut input = String::new();
    for &(s, e) in &cases {
        input += &format!("{}\n{}\n", solitaire::render(s), solitaire::render(e));
    }
    let (ours, out) = time(5, || solitaire::judge::run(&input).unwrap());
    let (base, expected) = time(5, || solitaire_baseline(&cases));
    assert_eq!(out, expected);
    let yes = out.lines().filter(|l| *l == "YES").count();
    row(
        &format!("solitaire ({yes} YES)"),
        ours,
        base,
        "one-sided BFS to depth 8, hash set",
    );

    // OmniGravity.
    let boards: Vec<omnigravity::Board> = (0..100)
        .map(|seed| omnigravity::random_board(seed, seed % 30))
        .collect();
    let input = omnigravity::judge::input_for(&boards);
    let (ours, out) = time(5, || omnigravity::judge::run(&input).unwrap());
    let (base, expected) = time(5, || {
        let mut s = String::new();
        for (k, b) in boards.iter().enumerate() {
            let text = b.render(b.start());
            let rows: Vec<&str> = text.split('/').collect();
            s += &format!(
                "Case {}: {}\n",
                k + 1,
                omnigravity::reference::count_reachable(&rows)
            );
        }
        s
    });
    assert_eq!(out, expected);
    row(
        "omnigravity",
        ours,
        base,
        "char grid, cell-by-cell gravity, BFS in a hash set",
    );

    // Square Destroyer: n = 2..=5, 0–40 % of the matches removed.
    let mut rng = SplitMix(1603);
    let cases: Vec<square_destroyer::judge::Case> = (0..100)
        .map(|k| {
            let n = 2 + k % 4;
            let grid = Grid::new(n);
            let percent = rng.next_u64() % 41;
            square_destroyer::judge::Case {
                n,
                present: square_destroyer::random_removal(&grid, &mut rng, percent),
            }
        })
        .collect();
    let input = square_destroyer::judge::input_for(&cases);
    let grids: Vec<Grid> = (1..=5).map(Grid::new).collect();
    let (ours, out) = time(5, || square_destroyer::judge::run(&input).unwrap());
    let (base, expected) = time(5, || {
        cases
            .iter()
            .map(|c| format!("{}\n", square_baseline(&grids[c.n - 1], c.present)))
            .collect::<String>()
    });
    assert_eq!(out, expected);
    row(
        "square-destroyer (n = 2..5)",
        ours,
        base,
        "IDA*, same bound, no move ordering",
    );

    println!();
    println!("| Square Destroyer, nothing removed | ours (IDA*) | baseline | speed-up |");
    println!("|---|---|---|---|");
    for n in [4, 5] {
        let g = &grids[n - 1];
        let (ours, (a, stats)) = time(5, || {
            square_destroyer::search::solve_with_stats(g, g.full())
        });
        let (base, b) = time(5, || square_baseline(g, g.full()));
        assert_eq!(a, b);
        row(
            &format!("n = {n}: {a} removals, {} nodes", stats.nodes),
            ours,
            base,
            "as above",
        );
    }

    println!();
    println!("| pipeline (fresh folder, all stages + export) | median of 5 |");
    println!("|---|---|");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines");
    for name in ["solitaire", "omnigravity", "square-destroyer"] {
        let p = Pipeline::load(registry::families(), &root.join(format!("{name}.toml"))).unwrap();
        let (t, _) = time(5, || {
            let dir = tempfile::tempdir().unwrap();
            run_pipeline(&p, Some(dir.path()), &RunOptions::default()).unwrap()
        });
        println!("| {name} | {t:.3} s |");
    }
}
