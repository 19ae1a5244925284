//! The Klotski database (`klotski_puzzles.parquet`, `klotski_moves.parquet` and the summary's
//! `solvable_clusters` and `minimal_puzzles`) against a deliberately plain reference that shares
//! no code with the pipeline: per piece set every position generated cell by cell, the moves of
//! each metric found by sliding a piece over a grid, clusters and distances by breadth-first
//! search over a hash map, every removal looked up in the smaller set's map, and dnomd343's
//! CommonCode written out from its definition. Equal row for row on every piece set with at most
//! five pieces besides Cao Cao (56 sets, 1.8 million positions, closed under removing a piece).
//!
//! The published facts (Super Century in the database at 138 piece moves; 横刀立马's cluster)
//! are checked on the whole universe in `universe.rs`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;

use pipeline::{Pipeline, RunOptions, run_pipeline};

const ROWS: usize = 5;
const COLS: usize = 4;
const METRICS: [&str; 3] = ["step", "straight", "piece"];

/// A piece set: horizontal generals, vertical generals, soldiers.
type Set = (usize, usize, usize);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Cao,
    Horizontal,
    Vertical,
    Soldier,
}

impl Shape {
    /// Rows and columns the piece covers.
    fn size(self) -> (usize, usize) {
        match self {
            Shape::Cao => (2, 2),
            Shape::Horizontal => (1, 2),
            Shape::Vertical => (2, 1),
            Shape::Soldier => (1, 1),
        }
    }
    fn letter(self) -> u8 {
        match self {
            Shape::Cao => b'C',
            Shape::Horizontal => b'H',
            Shape::Vertical => b'V',
            Shape::Soldier => b'S',
        }
    }
    /// dnomd343's two bits: 00 empty, 01 horizontal, 10 vertical, 11 soldier.
    fn bits(self) -> u64 {
        match self {
            Shape::Cao => unreachable!("Cao Cao is the code's head"),
            Shape::Horizontal => 1,
            Shape::Vertical => 2,
            Shape::Soldier => 3,
        }
    }
}

/// A position: the letter on every cell, `.` when empty. A cell's letter says which shape
/// covers it; the pieces are read back by scanning (a horizontal piece's left half comes first,
/// a vertical piece's top half), so the grid is the position.
type Grid = [u8; ROWS * COLS];

#[derive(Clone, Copy, Debug)]
struct Piece {
    shape: Shape,
    row: usize,
    col: usize,
}

fn fits(grid: &Grid, shape: Shape, row: usize, col: usize) -> bool {
    let (h, w) = shape.size();
    row + h <= ROWS
        && col + w <= COLS
        && (row..row + h).all(|r| (col..col + w).all(|c| grid[r * COLS + c] == b'.'))
}

fn paint(grid: &mut Grid, p: Piece, letter: u8) {
    let (h, w) = p.shape.size();
    for r in p.row..p.row + h {
        for c in p.col..p.col + w {
            grid[r * COLS + c] = letter;
        }
    }
}

fn pieces(grid: &Grid) -> Vec<Piece> {
    let mut seen = [false; ROWS * COLS];
    let mut out = Vec::new();
    for cell in 0..ROWS * COLS {
        if seen[cell] || grid[cell] == b'.' {
            continue;
        }
        let shape = match grid[cell] {
            b'C' => Shape::Cao,
            b'H' => Shape::Horizontal,
            b'V' => Shape::Vertical,
            _ => Shape::Soldier,
        };
        let p = Piece {
            shape,
            row: cell / COLS,
            col: cell % COLS,
        };
        let (h, w) = shape.size();
        for r in p.row..p.row + h {
            for c in p.col..p.col + w {
                seen[r * COLS + c] = true;
            }
        }
        out.push(p);
    }
    out
}

/// Every position of the set, generated cell by cell: the first uncovered cell is left empty or
/// becomes the top-left cell of a piece still to place.
fn positions(h: usize, v: usize, s: usize) -> Vec<Grid> {
    fn fill(grid: &mut Grid, left: &mut [usize; 5], out: &mut Vec<Grid>) {
        let Some(cell) = grid.iter().position(|&x| x == 0) else {
            out.push(*grid);
            return;
        };
        let (row, col) = (cell / COLS, cell % COLS);
        if left[4] > 0 {
            left[4] -= 1;
            grid[cell] = b'.';
            fill(grid, left, out);
            grid[cell] = 0;
            left[4] += 1;
        }
        let shapes = [
            Shape::Cao,
            Shape::Horizontal,
            Shape::Vertical,
            Shape::Soldier,
        ];
        for (k, shape) in shapes.into_iter().enumerate() {
            let (ph, pw) = shape.size();
            let free = row + ph <= ROWS
                && col + pw <= COLS
                && (row..row + ph).all(|r| (col..col + pw).all(|c| grid[r * COLS + c] == 0));
            if left[k] > 0 && free {
                left[k] -= 1;
                let p = Piece { shape, row, col };
                paint(grid, p, shape.letter());
                fill(grid, left, out);
                paint(grid, p, 0);
                left[k] += 1;
            }
        }
    }
    let empty = ROWS * COLS - 4 - 2 * h - 2 * v - s;
    let mut out = Vec::new();
    fill(&mut [0; ROWS * COLS], &mut [1, h, v, s, empty], &mut out);
    out
}

/// The positions one move away in `metric`.
fn neighbours(grid: &Grid, metric: &str) -> Vec<Grid> {
    let mut out = Vec::new();
    for p in pieces(grid) {
        let mut rest = *grid;
        paint(&mut rest, p, b'.');
        let steps = |r: usize, c: usize| {
            let mut v = Vec::new();
            if r > 0 {
                v.push((r - 1, c));
            }
            if c > 0 {
                v.push((r, c - 1));
            }
            v.push((r + 1, c));
            v.push((r, c + 1));
            v.into_iter().filter(|&(r, c)| fits(&rest, p.shape, r, c))
        };
        let mut to = Vec::new();
        match metric {
            "step" => to.extend(steps(p.row, p.col)),
            "straight" => {
                for (dr, dc) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                    let (mut r, mut c) = (p.row as i32, p.col as i32);
                    loop {
                        (r, c) = (r + dr, c + dc);
                        if r < 0 || c < 0 || !fits(&rest, p.shape, r as usize, c as usize) {
                            break;
                        }
                        to.push((r as usize, c as usize));
                    }
                }
            }
            _ => {
                let mut seen = vec![(p.row, p.col)];
                let mut queue = VecDeque::from([(p.row, p.col)]);
                while let Some((r, c)) = queue.pop_front() {
                    for next in steps(r, c) {
                        if !seen.contains(&next) {
                            seen.push(next);
                            queue.push_back(next);
                        }
                    }
                }
                to.extend(&seen[1..]);
            }
        }
        for (row, col) in to {
            let mut g = rest;
            paint(&mut g, Piece { row, col, ..p }, p.shape.letter());
            out.push(g);
        }
    }
    out
}

fn is_goal(grid: &Grid) -> bool {
    grid[3 * COLS + 1] == b'C' && grid[4 * COLS + 2] == b'C'
}

/// dnomd343's CommonCode: Cao Cao's top-left cell, then two bits per piece or empty cell in
/// reading order (cells a piece already covers skipped), left-aligned in 32 bits.
fn common_code(grid: &Grid) -> u64 {
    let ps = pieces(grid);
    let cao = ps.iter().find(|p| p.shape == Shape::Cao).unwrap();
    let mut code = ((cao.row * COLS + cao.col) as u64) << 32;
    let mut shift = 32;
    let mut covered = [false; ROWS * COLS];
    paint_bool(&mut covered, cao);
    for cell in 0..ROWS * COLS {
        if covered[cell] {
            continue;
        }
        shift -= 2;
        if grid[cell] == b'.' {
            continue;
        }
        let p = ps.iter().find(|p| p.row * COLS + p.col == cell).unwrap();
        code |= p.shape.bits() << shift;
        paint_bool(&mut covered, p);
    }
    code
}

fn paint_bool(covered: &mut [bool; ROWS * COLS], p: &Piece) {
    let (h, w) = p.shape.size();
    for r in p.row..p.row + h {
        for c in p.col..p.col + w {
            covered[r * COLS + c] = true;
        }
    }
}

fn layout(grid: &Grid) -> String {
    grid.chunks(COLS)
        .map(|row| String::from_utf8(row.to_vec()).unwrap())
        .collect::<Vec<_>>()
        .join("/")
}

/// One piece set in one metric: every position's cluster and distance (u32::MAX: no goal).
struct Space {
    index: HashMap<Grid, usize>,
    grids: Vec<Grid>,
    cluster: Vec<usize>,
    distance: Vec<u32>,
}

fn space(set: Set, metric: &str) -> Space {
    let grids = positions(set.0, set.1, set.2);
    let index: HashMap<Grid, usize> = grids.iter().enumerate().map(|(i, g)| (*g, i)).collect();
    let adjacent: Vec<Vec<usize>> = grids
        .iter()
        .map(|g| neighbours(g, metric).iter().map(|n| index[n]).collect())
        .collect();
    let mut cluster = vec![usize::MAX; grids.len()];
    let mut clusters = 0;
    for start in 0..grids.len() {
        if cluster[start] != usize::MAX {
            continue;
        }
        cluster[start] = clusters;
        let mut queue = VecDeque::from([start]);
        while let Some(i) = queue.pop_front() {
            for &j in &adjacent[i] {
                if cluster[j] == usize::MAX {
                    cluster[j] = clusters;
                    queue.push_back(j);
                }
            }
        }
        clusters += 1;
    }
    let mut distance = vec![u32::MAX; grids.len()];
    let mut queue = VecDeque::new();
    for (i, g) in grids.iter().enumerate() {
        if is_goal(g) {
            distance[i] = 0;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        for &j in &adjacent[i] {
            if distance[j] == u32::MAX {
                distance[j] = distance[i] + 1;
                queue.push_back(j);
            }
        }
    }
    Space {
        index,
        grids,
        cluster,
        distance,
    }
}

/// One row of the reference database (minimal or not).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    moves: std::cmp::Reverse<u32>,
    metric: usize,
    set: Set,
    common: u64,
    layout: String,
    cluster_size: u64,
    goals: u64,
    minimal: bool,
}

fn name((h, v, s): Set) -> String {
    format!("h{h}v{v}s{s}")
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn the_database_is_the_plain_reference_row_for_row() {
    let sets: Vec<Set> = (0..=5)
        .flat_map(|h| (0..=5 - h).flat_map(move |v| (0..=5 - h - v).map(move |s| (h, v, s))))
        .collect();
    assert_eq!(sets.len(), 56);
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = sets.iter().map(|&s| format!("{:?}", name(s))).collect();
    let text = format!(
        "name = \"klotski-database-slice\"\noutput = \"unused\"\n[huarong]\n\
         piece_sets = [{}]\nspaces = [\"unlabeled\"]\nmetrics = [\"step\", \"straight\", \
         \"piece\"]\nstate_tables = false\n",
        names.join(", ")
    );
    run_pipeline(
        &Pipeline::parse(registry::families(), &text).unwrap(),
        Some(dir.path()),
        &RunOptions::default(),
    )
    .unwrap();

    let mut rows: Vec<Row> = Vec::new();
    for (m, metric) in METRICS.iter().enumerate() {
        let spaces: HashMap<Set, Space> = sets.iter().map(|&s| (s, space(s, metric))).collect();
        for &set in &sets {
            let sp = &spaces[&set];
            // Per cluster: (farthest distance, smallest CommonCode there, size, goals).
            let mut per: BTreeMap<usize, (u32, u64, usize, u64, u64)> = BTreeMap::new();
            for (i, g) in sp.grids.iter().enumerate() {
                let e = per.entry(sp.cluster[i]).or_insert((0, u64::MAX, i, 0, 0));
                e.3 += 1;
                let d = sp.distance[i];
                if d == u32::MAX {
                    continue;
                }
                e.4 += (d == 0) as u64;
                let code = common_code(g);
                if d > e.0 || (d == e.0 && code < e.1) {
                    (e.0, e.1, e.2) = (d, code, i);
                }
            }
            for (moves, common, i, size, goals) in per.into_values() {
                if goals == 0 {
                    continue;
                }
                let grid = sp.grids[i];
                let minimal = pieces(&grid)
                    .into_iter()
                    .filter(|p| p.shape != Shape::Cao)
                    .all(|p| {
                        let mut smaller = grid;
                        paint(&mut smaller, p, b'.');
                        let mut below = set;
                        match p.shape {
                            Shape::Horizontal => below.0 -= 1,
                            Shape::Vertical => below.1 -= 1,
                            _ => below.2 -= 1,
                        }
                        let other = &spaces[&below];
                        other.distance[other.index[&smaller]] < moves
                    });
                rows.push(Row {
                    moves: std::cmp::Reverse(moves),
                    metric: m,
                    set,
                    common,
                    layout: layout(&grid),
                    cluster_size: size,
                    goals,
                    minimal,
                });
            }
        }
    }
    rows.sort();

    // The database: the minimal rows, in the reference's order (most moves first, then metric,
    // piece set, CommonCode).
    let read = |file: &str| export::read_text(&dir.path().join(file), usize::MAX).unwrap();
    let puzzles = read("klotski_puzzles.parquet");
    assert_eq!(
        puzzles.columns,
        [
            "metric (str)",
            "piece_set (str)",
            "moves (u32)",
            "layout (str)",
            "common_code (str)",
            "short_code (str)",
            "cluster_size (u64)",
            "goals_in_cluster (u64)"
        ]
    );
    let expected: Vec<Vec<String>> = rows
        .iter()
        .filter(|r| r.minimal)
        .map(|r| {
            vec![
                METRICS[r.metric].to_string(),
                name(r.set),
                r.moves.0.to_string(),
                r.layout.clone(),
                format!("{:09X}", r.common),
                klotski::codes::format_short(klotski::codes::short_code(r.common).unwrap()),
                r.cluster_size.to_string(),
                r.goals.to_string(),
            ]
        })
        .collect();
    assert!(expected.len() > 100, "{} minimal puzzles", expected.len());
    for (k, (got, want)) in puzzles.rows.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "row {k}");
    }
    assert_eq!(puzzles.rows.len(), expected.len());

    // Per metric, set and moves: solvable clusters and minimal puzzles.
    let mut totals: BTreeMap<(usize, Set, u32), (u64, u64)> = BTreeMap::new();
    for r in &rows {
        let e = totals.entry((r.metric, r.set, r.moves.0)).or_default();
        e.0 += 1;
        e.1 += r.minimal as u64;
    }
    let expected: Vec<Vec<String>> = totals
        .iter()
        .map(|(&(m, set, moves), &(n, minimal))| {
            vec![
                METRICS[m].to_string(),
                name(set),
                moves.to_string(),
                n.to_string(),
                minimal.to_string(),
            ]
        })
        .collect();
    assert_eq!(read("klotski_moves.parquet").rows, expected);

    // The summary: one row per (set, metric), with the set's totals.
    let summary = read("summary.parquet");
    let col = |name: &str| {
        summary
            .columns
            .iter()
            .position(|c| c.starts_with(&format!("{name} (")))
            .unwrap_or_else(|| panic!("summary has no {name}: {:?}", summary.columns))
    };
    let (set_col, metric_col) = (col("piece_set"), col("metric"));
    let (solvable_col, minimal_col) = (col("solvable_clusters"), col("minimal_puzzles"));
    let mut checked = 0;
    for row in &summary.rows {
        let m = METRICS.iter().position(|&x| x == row[metric_col]).unwrap();
        let of_set = rows
            .iter()
            .filter(|r| r.metric == m && name(r.set) == row[set_col]);
        let solvable = of_set.clone().count();
        let minimal = of_set.filter(|r| r.minimal).count();
        assert_eq!(row[solvable_col], solvable.to_string(), "{row:?}");
        assert_eq!(row[minimal_col], minimal.to_string(), "{row:?}");
        checked += 1;
    }
    // Every set with positions, in each metric (sets without positions are skipped).
    let with_positions = sets.iter().filter(|s| !positions(s.0, s.1, s.2).is_empty());
    assert_eq!(checked, with_positions.count() * 3);
}

/// A slice that is not closed under removing a piece gets no database, and the run says why.
#[test]
fn a_slice_without_the_smaller_sets_has_no_database_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = Pipeline::parse(
        registry::families(),
        "name = \"open-slice\"\noutput = \"unused\"\n[huarong]\npiece_sets = [\"h1v0s2\", \
         \"h0v0s2\"]\nspaces = [\"unlabeled\"]\nmetrics = [\"piece\"]\nstate_tables = false\n",
    )
    .unwrap();
    run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    assert!(!dir.path().join("klotski_puzzles.parquet").exists());
    let notes = pipeline.section.spaces().notes;
    let note = notes
        .iter()
        .find(|n| n.contains("klotski_puzzles.parquet"))
        .unwrap_or_else(|| panic!("no note on the database: {notes:?}"));
    assert!(note.contains("h0v0s1") && note.contains("h1v0s1"), "{note}");

    // Closed under removal: written.
    let closed = Pipeline::parse(
        registry::families(),
        "name = \"closed-slice\"\noutput = \"unused\"\n[huarong]\npiece_sets = [\"h0v0s0\", \
         \"h0v0s1\", \"h0v0s2\"]\nspaces = [\"unlabeled\"]\nmetrics = [\"piece\"]\n\
         state_tables = false\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_pipeline(&closed, Some(dir.path()), &RunOptions::default()).unwrap();
    let puzzles = export::read_text(&dir.path().join("klotski_puzzles.parquet"), 10).unwrap();
    assert!(puzzles.total_rows >= 1);
    assert!(Path::new(&dir.path().join("klotski_moves.parquet")).exists());
}
