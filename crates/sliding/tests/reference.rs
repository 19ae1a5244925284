//! The bitboard model against a deliberately simple reference on random small puzzles: the
//! reference keeps a position as a grid of letters, moves a piece by rewriting the grid cell by
//! cell, and tells look-alikes apart by nothing but giving them their letters in reading order
//! of their top-left corners. Both must reach the same positions (compared as text), with the
//! same distance to the goal from every one of them, in every metric.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use huarong_core::Puzzle;
use proptest::prelude::*;
use sliding::SlidingPuzzle;

/// A position: one char per cell, row-major.
type Grid = Vec<char>;

struct Reference {
    rows: usize,
    cols: usize,
    lengthwise: bool,
    /// Letter → the letters interchangeable with it (itself included), sorted.
    class: BTreeMap<char, Vec<char>>,
    /// (letter, cells) the goal asks for, as sets of cells for any piece of the letter's class.
    goal: Vec<(char, Vec<usize>)>,
}

impl Reference {
    fn cells_of(&self, g: &Grid, letter: char) -> Vec<usize> {
        (0..g.len()).filter(|&i| g[i] == letter).collect()
    }

    /// Look-alikes take their letters in reading order of their top-left bounding-box corner.
    fn canonical(&self, g: &Grid) -> Grid {
        let mut out = g.clone();
        let mut done = HashSet::new();
        for class in self.class.values() {
            if !done.insert(class.clone()) || class.len() < 2 {
                continue;
            }
            let mut placed: Vec<(usize, Vec<usize>)> = class
                .iter()
                .map(|&l| {
                    let cells = self.cells_of(g, l);
                    let r0 = cells.iter().map(|c| c / self.cols).min().unwrap();
                    let c0 = cells.iter().map(|c| c % self.cols).min().unwrap();
                    (r0 * self.cols + c0, cells)
                })
                .collect();
            placed.sort();
            for (k, (_, cells)) in placed.iter().enumerate() {
                for &c in cells {
                    out[c] = class[k];
                }
            }
        }
        out
    }

    /// Moves `letter` one cell in direction (dr, dc), if every target cell is free or its own.
    fn shift(&self, g: &Grid, letter: char, dr: isize, dc: isize) -> Option<Grid> {
        let cells = self.cells_of(g, letter);
        let mut targets = Vec::new();
        for &c in &cells {
            let (r, col) = ((c / self.cols) as isize + dr, (c % self.cols) as isize + dc);
            if r < 0 || col < 0 || r >= self.rows as isize || col >= self.cols as isize {
                return None;
            }
            let t = r as usize * self.cols + col as usize;
            if g[t] != '.' && g[t] != letter {
                return None;
            }
            targets.push(t);
        }
        let mut out = g.clone();
        for &c in &cells {
            out[c] = '.';
        }
        for &t in &targets {
            out[t] = letter;
        }
        Some(out)
    }

    fn directions(&self, g: &Grid, letter: char) -> Vec<(isize, isize)> {
        let cells = self.cells_of(g, letter);
        let h = cells.iter().map(|c| c / self.cols).max().unwrap()
            - cells.iter().map(|c| c / self.cols).min().unwrap();
        let w = cells.iter().map(|c| c % self.cols).max().unwrap()
            - cells.iter().map(|c| c % self.cols).min().unwrap();
        let all = vec![(-1, 0), (1, 0), (0, -1), (0, 1)];
        match (self.lengthwise, w.cmp(&h)) {
            (true, std::cmp::Ordering::Greater) => vec![(0, -1), (0, 1)],
            (true, std::cmp::Ordering::Less) => vec![(-1, 0), (1, 0)],
            _ => all,
        }
    }

    fn successors(&self, g: &Grid, metric: usize) -> Vec<Grid> {
        let mut out = Vec::new();
        let letters: Vec<char> = self.class.keys().copied().collect();
        for letter in letters {
            let dirs = self.directions(g, letter);
            match metric {
                0 => {
                    for &(dr, dc) in &dirs {
                        out.extend(self.shift(g, letter, dr, dc));
                    }
                }
                1 => {
                    for &(dr, dc) in &dirs {
                        let mut at = g.clone();
                        while let Some(next) = self.shift(&at, letter, dr, dc) {
                            out.push(next.clone());
                            at = next;
                        }
                    }
                }
                _ => {
                    let mut seen = HashSet::from([g.clone()]);
                    let mut queue = VecDeque::from([g.clone()]);
                    while let Some(at) = queue.pop_front() {
                        for &(dr, dc) in &dirs {
                            if let Some(next) = self.shift(&at, letter, dr, dc)
                                && seen.insert(next.clone())
                            {
                                out.push(next.clone());
                                queue.push_back(next);
                            }
                        }
                    }
                }
            }
        }
        out.into_iter().map(|s| self.canonical(&s)).collect()
    }

    fn is_goal(&self, g: &Grid) -> bool {
        self.goal.iter().all(|(letter, cells)| {
            self.class[letter]
                .iter()
                .any(|&l| self.cells_of(g, l) == *cells)
        })
    }
}

/// Every position reachable from `start` with its distance to the nearest goal (or none).
fn distances<S: Clone + Eq + std::hash::Hash>(
    start: S,
    next: impl Fn(&S) -> Vec<S>,
    goal: impl Fn(&S) -> bool,
) -> HashMap<S, Option<u32>> {
    let mut all = vec![start.clone()];
    let mut seen = HashSet::from([start]);
    let mut i = 0;
    let mut adj: HashMap<S, Vec<S>> = HashMap::new();
    while i < all.len() {
        let s = all[i].clone();
        let n = next(&s);
        for t in &n {
            if seen.insert(t.clone()) {
                all.push(t.clone());
            }
        }
        adj.insert(s, n);
        i += 1;
    }
    let mut dist: HashMap<S, Option<u32>> = all.iter().map(|s| (s.clone(), None)).collect();
    let mut queue: VecDeque<S> = all.iter().filter(|s| goal(s)).cloned().collect();
    for s in &queue {
        dist.insert(s.clone(), Some(0));
    }
    // Moves are reversible: distances to the goals follow the arcs either way.
    while let Some(s) = queue.pop_front() {
        let d = dist[&s].expect("queued states have a distance");
        for t in &adj[&s] {
            if dist[t].is_none() {
                dist.insert(t.clone(), Some(d + 1));
                queue.push_back(t.clone());
            }
        }
    }
    dist
}

/// A random small puzzle: pieces of a few shapes dropped on a board, a wall or two, a goal for
/// the first piece somewhere it fits.
fn puzzle_text() -> impl Strategy<Value = String> {
    (
        2usize..=4,
        2usize..=4,
        proptest::collection::vec((0usize..5, 0usize..16), 2..7),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0usize..16,
        0usize..3,
    )
        .prop_map(
            |(rows, cols, drops, lengthwise, labeled, distinct_a, goal_at, walls)| {
                const SHAPES: [&[(usize, usize)]; 5] = [
                    &[(0, 0)],
                    &[(0, 0), (0, 1)],
                    &[(0, 0), (1, 0)],
                    &[(0, 0), (0, 1), (1, 0), (1, 1)],
                    &[(0, 0), (1, 0), (1, 1)],
                ];
                let mut grid = vec!['.'; rows * cols];
                let mut letter = b'A';
                let mut first: Option<usize> = None;
                for (s, at) in drops {
                    let (r, c) = (at % rows, (at / rows) % cols);
                    let cells: Vec<usize> = SHAPES[s]
                        .iter()
                        .filter_map(|&(dr, dc)| {
                            (r + dr < rows && c + dc < cols).then_some((r + dr) * cols + c + dc)
                        })
                        .collect();
                    if cells.len() == SHAPES[s].len() && cells.iter().all(|&i| grid[i] == '.') {
                        for &i in &cells {
                            grid[i] = letter as char;
                        }
                        first.get_or_insert(s);
                        letter += 1;
                    }
                }
                // Keep at least one empty cell, then maybe a wall on an empty cell.
                let empty: Vec<usize> = (0..grid.len()).filter(|&i| grid[i] == '.').collect();
                if empty.len() >= 2 && walls > 0 {
                    grid[empty[walls % empty.len()]] = '#';
                }
                let shape = SHAPES[first.unwrap_or(0)];
                let mut goal = vec!['.'; rows * cols];
                let (gr, gc) = (goal_at % rows, (goal_at / rows) % cols);
                let fits = shape
                    .iter()
                    .all(|&(dr, dc)| gr + dr < rows && gc + dc < cols);
                let (gr, gc) = if fits { (gr, gc) } else { (0, 0) };
                for &(dr, dc) in shape {
                    if gr + dr < rows && gc + dc < cols {
                        goal[(gr + dr) * cols + gc + dc] = 'A';
                    }
                }
                let rows_of = |g: &[char]| -> String {
                    g.chunks(cols)
                        .map(|r| r.iter().collect::<String>())
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                format!(
                    "name = \"random\"\nboard = \"\"\"\n{}\n\"\"\"\ngoal = \"\"\"\n{}\n\"\"\"\n\
                     moves = \"{}\"\nlabeled = {labeled}\ndistinct = \"{}\"\n",
                    rows_of(&grid),
                    rows_of(&goal),
                    if lengthwise { "lengthwise" } else { "free" },
                    if distinct_a { "A" } else { "" },
                )
            },
        )
}

fn reference_of(p: &SlidingPuzzle, text: &str) -> Reference {
    let doc: toml::Table = toml::from_str(text).unwrap();
    let goal_rows: Vec<Vec<char>> = doc["goal"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().collect())
        .collect();
    let mut goal_cells: BTreeMap<char, Vec<usize>> = BTreeMap::new();
    for (r, row) in goal_rows.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            if ch != '.' && ch != '#' {
                goal_cells.entry(ch).or_default().push(r * p.cols() + c);
            }
        }
    }
    // Look-alikes from the file's own text, not from the model: letters whose cells have the
    // same shape (cell offsets from their bounding box's top-left corner), unless `labeled` or
    // the letter is `distinct`.
    let board: Vec<char> = doc["board"]
        .as_str()
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .flat_map(|l| l.chars())
        .collect();
    let labeled = doc
        .get("labeled")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let distinct = doc.get("distinct").and_then(|v| v.as_str()).unwrap_or("");
    let mut shapes: BTreeMap<char, Vec<(usize, usize)>> = BTreeMap::new();
    for (i, &ch) in board.iter().enumerate() {
        if ch != '.' && ch != '#' {
            shapes
                .entry(ch)
                .or_default()
                .push((i / p.cols(), i % p.cols()));
        }
    }
    for cells in shapes.values_mut() {
        let top = cells.iter().map(|c| c.0).min().unwrap();
        let left = cells.iter().map(|c| c.1).min().unwrap();
        for c in cells.iter_mut() {
            *c = (c.0 - top, c.1 - left);
        }
    }
    let alone = |l: char| labeled || distinct.contains(l);
    let mut class = BTreeMap::new();
    for (&l, shape) in &shapes {
        let mates: Vec<char> = if alone(l) {
            vec![l]
        } else {
            shapes
                .iter()
                .filter(|&(&m, s)| !alone(m) && s == shape)
                .map(|(&m, _)| m)
                .collect()
        };
        class.insert(l, mates);
    }
    Reference {
        rows: p.rows(),
        cols: p.cols(),
        lengthwise: p.motion == sliding::Motion::Lengthwise,
        class,
        goal: goal_cells.into_iter().collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_model_matches_the_grid_reference(text in puzzle_text()) {
        let Ok(p) = sliding::parse(&text, "random") else {
            // Random boards can have no piece the goal fits, and so on: parse errors are
            // tested on their own.
            return Ok(());
        };
        let r = reference_of(&p, &text);
        let start: Grid = r.canonical(&p.render(p.start).chars().filter(|&c| c != '/').collect());
        for metric in 0..3 {
            let fast = distances(p.start, |&c| {
                let mut out = Vec::new();
                p.successors(c, metric, &mut out);
                out
            }, |&c| p.is_goal(c));
            let slow = distances(start.clone(), |g| r.successors(g, metric), |g| r.is_goal(g));
            let fast_text: HashMap<String, Option<u32>> = fast
                .iter()
                .map(|(&c, &d)| (p.render(c).replace('/', ""), d))
                .collect();
            let slow_text: HashMap<String, Option<u32>> = slow
                .into_iter()
                .map(|(g, d)| (g.into_iter().collect(), d))
                .collect();
            prop_assert_eq!(fast.len(), fast_text.len(), "codes render apart");
            prop_assert_eq!(&fast_text, &slow_text, "metric {}\n{}", metric, text);
            // Every code parses back from its rendering.
            for &c in fast.keys() {
                prop_assert_eq!(p.parse(&p.render(c)), Ok(c));
            }
        }
    }
}

/// Most random puzzles parse, so the property above is not vacuous.
#[test]
fn most_random_puzzles_are_valid() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = puzzle_text();
    let (mut ok, mut states) = (0, 0);
    for _ in 0..300 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        if let Ok(p) = sliding::parse(&text, "random") {
            ok += 1;
            let d = distances(
                p.start,
                |&c| {
                    let mut out = Vec::new();
                    p.successors(c, 0, &mut out);
                    out
                },
                |&c| p.is_goal(c),
            );
            states += d.len();
        }
    }
    assert!(ok >= 200, "only {ok} of 300 random puzzles parse");
    assert!(
        states >= 300 * 10,
        "the spaces are tiny: {states} states in all"
    );
    eprintln!("{ok} of 300 parse; {states} states in all");
}
