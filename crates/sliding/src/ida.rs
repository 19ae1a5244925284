//! Optimal sliding-tiles solutions by IDA* (Korf 1985) over an admissible heuristic: the sum
//! of disjoint additive pattern databases ([`crate::pattern`]), each tile outside every group
//! counted by its Manhattan distance; on a square board whose goal is symmetric about the main
//! diagonal, the max of that sum and the same sum of the position reflected about it (Felner,
//! Korf & Hanan, "Additive pattern database heuristics", JAIR 22, 2004). With no database it is
//! Korf's original IDA* over the Manhattan distance.
//!
//! A move changes one tile's cell, so only that tile's group (and its mirror's) is looked up
//! again; the search keeps the blank's path, pruning the move that undoes the last one.

use huarong_core::abstraction::{Abstraction, MAX_CELLS, Values};

use crate::pattern::{Pattern, TileBoard};

/// No tile: the blank.
const BLANK: u8 = u8::MAX;

/// The heuristic of one board: its databases and the rest.
#[derive(Debug)]
pub struct Heuristic<'a> {
    board: TileBoard,
    groups: Vec<(Pattern, Values<'a>)>,
    /// Per tile: its group, if any.
    group_of: Vec<Option<usize>>,
    /// Manhattan distance of tile `t` on cell `c` (`manhattan[t][c]`), for tiles outside every
    /// group (0 for the others).
    manhattan: Vec<[u8; MAX_CELLS]>,
    /// The reflection about the main diagonal: each tile's mirror (the tile whose goal cell is
    /// the transposed goal cell) and each cell's transpose.
    mirror: Option<(Vec<u8>, [u8; MAX_CELLS])>,
}

impl<'a> Heuristic<'a> {
    /// Picks from `databases` (patterns of `board` and their values) disjoint groups, the
    /// largest first; every other tile counts its Manhattan distance.
    pub fn new(board: &TileBoard, databases: Vec<(Pattern, Values<'a>)>) -> Heuristic<'a> {
        let mut databases = databases;
        databases.sort_by_key(|(p, _)| std::cmp::Reverse(p.tiles().len()));
        let mut group_of = vec![None; board.tiles()];
        let mut groups = Vec::new();
        for (p, v) in databases {
            if p.board() != board || p.tiles().iter().any(|&t| group_of[t as usize].is_some()) {
                continue;
            }
            for &t in p.tiles() {
                group_of[t as usize] = Some(groups.len());
            }
            groups.push((p, v));
        }
        let cols = board.cols;
        let manhattan = (0..board.tiles())
            .map(|t| {
                let mut row = [0u8; MAX_CELLS];
                if group_of[t].is_none() {
                    let g = board.goal[t] as usize;
                    for (c, d) in row.iter_mut().enumerate().take(board.cells()) {
                        *d = ((c / cols).abs_diff(g / cols) + (c % cols).abs_diff(g % cols)) as u8;
                    }
                }
                row
            })
            .collect();
        Heuristic {
            mirror: mirror(board),
            board: board.clone(),
            groups,
            group_of,
            manhattan,
        }
    }

    /// The databases in use, by their ids.
    pub fn patterns(&self) -> Vec<String> {
        self.groups.iter().map(|(p, _)| p.id()).collect()
    }

    /// Whether the reflected position is looked up too.
    pub fn reflects(&self) -> bool {
        self.mirror.is_some()
    }

    /// The heuristic's terms for a position (every tile's cell): per group its value, then the
    /// Manhattan sum of the other tiles.
    fn terms(&self, cells: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend(self.groups.iter().map(|(p, v)| v.get(p.rank_of(cells))));
        let m: u32 = cells
            .iter()
            .enumerate()
            .map(|(t, &c)| self.manhattan[t][c as usize] as u32)
            .sum();
        out.push(m as u8);
    }

    /// The heuristic value of a position given as every tile's cell.
    pub fn value(&self, cells: &[u8]) -> u32 {
        let mut terms = Vec::new();
        self.terms(cells, &mut terms);
        let mut h: u32 = terms.iter().map(|&x| x as u32).sum();
        if let Some((tiles, cell)) = &self.mirror {
            let r = reflect(cells, tiles, cell);
            self.terms(&r, &mut terms);
            h = h.max(terms.iter().map(|&x| x as u32).sum());
        }
        h
    }
}

/// The reflection of `board` about its main diagonal, when the board is square and the
/// transpose maps the goal onto itself (the blank's goal on the diagonal).
fn mirror(board: &TileBoard) -> Option<(Vec<u8>, [u8; MAX_CELLS])> {
    let n = board.rows;
    if board.cols != n {
        return None;
    }
    let mut cell = [0u8; MAX_CELLS];
    for (c, t) in cell.iter_mut().enumerate().take(n * n) {
        *t = ((c % n) * n + c / n) as u8;
    }
    if cell[board.goal_blank as usize] != board.goal_blank {
        return None;
    }
    let tiles = board
        .goal
        .iter()
        .map(|&g| {
            let want = cell[g as usize];
            board.goal.iter().position(|&h| h == want).map(|t| t as u8)
        })
        .collect::<Option<Vec<u8>>>()?;
    Some((tiles, cell))
}

/// The position reflected: tile `tiles[t]` on the transpose of tile `t`'s cell.
fn reflect(cells: &[u8], tiles: &[u8], cell: &[u8; MAX_CELLS]) -> Vec<u8> {
    let mut r = vec![0u8; cells.len()];
    for (t, &c) in cells.iter().enumerate() {
        r[tiles[t] as usize] = cell[c as usize];
    }
    r
}

/// What an IDA* search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The blank's cells along an optimal path, start first; the nodes expanded (whose moves
    /// were generated) and generated (children, the last move's reverse left out), over every
    /// iteration.
    Path {
        blanks: Vec<u8>,
        nodes: u64,
        generated: u64,
    },
    /// The search expanded this many nodes without finishing.
    Limit(u64),
}

/// IDA* from the position where tile `t` is on `cells[t]` and the blank on `blank`, expanding
/// at most `limit` nodes. The position must reach the goal (the caller checks the parity).
pub fn solve(h: &Heuristic<'_>, cells: &[u8], blank: u8, limit: u64) -> Found {
    let board = &h.board;
    let n = board.cells();
    let mut grid = [BLANK; MAX_CELLS];
    for (t, &c) in cells.iter().enumerate() {
        grid[c as usize] = t as u8;
    }
    let mut s = State {
        h,
        cols: board.cols,
        rows: board.rows,
        cells: cells.to_vec(),
        grid,
        reflected: match &h.mirror {
            Some((tiles, cell)) => reflect(cells, tiles, cell),
            None => Vec::new(),
        },
        terms: Vec::new(),
        rterms: Vec::new(),
        path: vec![blank],
        nodes: 0,
        generated: 0,
        limit,
    };
    h.terms(&s.cells, &mut s.terms);
    if h.mirror.is_some() {
        h.terms(&s.reflected, &mut s.rterms);
    }
    debug_assert!(n <= MAX_CELLS);
    let mut bound = s.h_value();
    loop {
        match s.dfs(blank, BLANK, 0, bound) {
            Step::Found => {
                return Found::Path {
                    blanks: s.path,
                    nodes: s.nodes,
                    generated: s.generated,
                };
            }
            Step::Limit => return Found::Limit(s.nodes),
            Step::Over(next) => bound = next,
        }
    }
}

enum Step {
    Found,
    Limit,
    /// Not within the bound; the least f above it.
    Over(u32),
}

struct State<'h, 'a> {
    h: &'h Heuristic<'a>,
    cols: usize,
    rows: usize,
    /// Every tile's cell, and every cell's tile.
    cells: Vec<u8>,
    grid: [u8; MAX_CELLS],
    /// The reflected position's tile cells (empty when not reflecting).
    reflected: Vec<u8>,
    /// The heuristic's terms of the position and of its reflection.
    terms: Vec<u8>,
    rterms: Vec<u8>,
    path: Vec<u8>,
    nodes: u64,
    generated: u64,
    limit: u64,
}

impl State<'_, '_> {
    fn h_value(&self) -> u32 {
        let a: u32 = self.terms.iter().map(|&x| x as u32).sum();
        let b: u32 = self.rterms.iter().map(|&x| x as u32).sum();
        a.max(b)
    }

    /// Moves tile `t` to `to`; returns what to restore.
    #[inline]
    fn place(&mut self, t: u8, to: u8) -> (u8, u8, u8, u8) {
        let h = self.h;
        let ti = t as usize;
        self.cells[ti] = to;
        let last = self.terms.len() - 1;
        let (slot, old) = match h.group_of[ti] {
            Some(g) => {
                let (p, v) = &h.groups[g];
                let old = self.terms[g];
                self.terms[g] = v.get(p.rank_of(&self.cells));
                (g as u8, old)
            }
            None => {
                let old = self.terms[last];
                (last as u8, old)
            }
        };
        let (mut rslot, mut rold) = (u8::MAX, 0);
        if let Some((tiles, cell)) = &h.mirror {
            let m = tiles[ti] as usize;
            self.reflected[m] = cell[to as usize];
            match h.group_of[m] {
                Some(g) => {
                    let (p, v) = &h.groups[g];
                    rold = self.rterms[g];
                    rslot = g as u8;
                    self.rterms[g] = v.get(p.rank_of(&self.reflected));
                }
                None => {
                    rold = self.rterms[last];
                    rslot = last as u8;
                }
            }
        }
        (slot, old, rslot, rold)
    }

    fn dfs(&mut self, blank: u8, prev: u8, g: u32, bound: u32) -> Step {
        let f = g + self.h_value();
        if f > bound {
            return Step::Over(f);
        }
        if self.terms.iter().all(|&x| x == 0) {
            return Step::Found;
        }
        if self.nodes >= self.limit {
            return Step::Limit;
        }
        self.nodes += 1;
        let (r, c) = (blank as usize / self.cols, blank as usize % self.cols);
        let mut next = [BLANK; 4];
        if r > 0 {
            next[0] = blank - self.cols as u8;
        }
        if c > 0 {
            next[1] = blank - 1;
        }
        if c + 1 < self.cols {
            next[2] = blank + 1;
        }
        if r + 1 < self.rows {
            next[3] = blank + self.cols as u8;
        }
        let mut least = u32::MAX;
        for to in next {
            if to == BLANK || to == prev {
                continue;
            }
            // The tile on `to` slides into the blank.
            self.generated += 1;
            let t = self.grid[to as usize];
            let ti = t as usize;
            let last = self.terms.len() - 1;
            let (slot, old, rslot, rold) = self.place(t, blank);
            if self.h.group_of[ti].is_none() {
                let md = &self.h.manhattan[ti];
                self.terms[last] = self.terms[last] + md[blank as usize] - md[to as usize];
            }
            if let Some((tiles, cell)) = &self.h.mirror {
                let m = tiles[ti] as usize;
                if self.h.group_of[m].is_none() {
                    let md = &self.h.manhattan[m];
                    self.rterms[last] = self.rterms[last] + md[cell[blank as usize] as usize]
                        - md[cell[to as usize] as usize];
                }
            }
            self.grid[blank as usize] = t;
            self.grid[to as usize] = BLANK;
            self.path.push(to);
            match self.dfs(to, blank, g + 1, bound) {
                Step::Found => return Step::Found,
                Step::Limit => return Step::Limit,
                Step::Over(x) => least = least.min(x),
            }
            self.path.pop();
            self.grid[to as usize] = t;
            self.grid[blank as usize] = BLANK;
            self.cells[ti] = to;
            self.terms[slot as usize] = old;
            if let Some((tiles, cell)) = &self.h.mirror {
                self.reflected[tiles[ti] as usize] = cell[to as usize];
                self.rterms[rslot as usize] = rold;
            }
        }
        Step::Over(least)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(text: &str) -> (crate::SlidingPuzzle, TileBoard) {
        let p = crate::parse(text, "t").unwrap();
        let b = TileBoard::new(&p).unwrap();
        (p, b)
    }

    /// Korf's instance 1 (Korf 1985, optimum 57 moves) by the Manhattan distance alone.
    #[test]
    fn manhattan_ida_star_solves_a_small_instance() {
        let (p, b) = board(
            "name = \"e\"\nlabeled = true\nboard = \"123\\n4.5\\n786\"\ngoal = \"123\\n456\\n78.\"\n",
        );
        let h = Heuristic::new(&b, Vec::new());
        let (cells, blank) = b.position(&p, p.start);
        match solve(&h, &cells, blank, 1000) {
            Found::Path {
                blanks,
                nodes,
                generated,
            } => {
                assert_eq!(blanks, [4, 5, 8]);
                // Start, then the blank on 5 (h stays exact): 2 expanded, 3 + 2 generated.
                assert_eq!((nodes, generated), (2, 5));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_reflection_needs_a_symmetric_goal() {
        let (_, korf) = board(
            "name = \"f\"\nlabeled = true\nboard = \".123\\n4567\\n89AB\\nCDEF\"\n\
             goal = \".123\\n4567\\n89AB\\nCDEF\"\n",
        );
        let (tiles, cell) = mirror(&korf).unwrap();
        // Tile 1 (cell 1) mirrors tile 4 (cell 4); tile 5 (cell 5, on the diagonal) itself.
        assert_eq!(
            tiles[korf.group("1").unwrap()[0] as usize],
            korf.group("4").unwrap()[0]
        );
        assert_eq!(
            tiles[korf.group("5").unwrap()[0] as usize],
            korf.group("5").unwrap()[0]
        );
        assert_eq!(cell[1], 4);
        let (_, corner) = board(
            "name = \"f\"\nlabeled = true\nboard = \"123\\n456\\n78.\"\ngoal = \"123\\n456\\n78.\"\n",
        );
        // The blank's goal cell 8 is on the diagonal, and 1↔1, 2↔4, 3↔7, 6↔8.
        assert!(mirror(&corner).is_some());
        let (_, wide) = board(
            "name = \"f\"\nlabeled = true\nboard = \"1234\\n5678\\n9AB.\"\ngoal = \"1234\\n5678\\n9AB.\"\n",
        );
        assert!(mirror(&wide).is_none());
    }
}
