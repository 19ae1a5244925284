//! Optimal sliding-tiles solutions by IDA* (Korf 1985) over an admissible heuristic: the sum
//! of disjoint additive pattern databases ([`crate::pattern`]), each tile outside every group
//! counted by its Manhattan distance; on a square board whose goal is symmetric about the main
//! diagonal, the max of that sum and the same sum of the position reflected about it (Felner,
//! Korf & Hanan, "Additive pattern database heuristics", JAIR 22, 2004). With no database it is
//! Korf's original IDA* over the Manhattan distance.
//!
//! A move changes one tile's cell, so only that tile's group (and its mirror's) is looked up
//! again; the search keeps the blank's path, pruning the move that undoes the last one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use huarong_core::abstraction::{Abstraction, MAX_CELLS, Values};

use crate::pattern::{Pattern, TileBoard};

/// No tile: the blank.
const BLANK: u8 = u8::MAX;

/// The heuristic of one board: its databases and the rest.
#[derive(Debug)]
pub struct Heuristic<'a> {
    groups: Vec<(Pattern, Values<'a>)>,
    /// Per tile: its group, if any.
    group_of: Vec<Option<usize>>,
    /// Manhattan distance of tile `t` on cell `c` (`manhattan[t][c]`), for tiles outside every
    /// group (0 for the others).
    manhattan: Vec<[u8; MAX_CELLS]>,
    /// The reflection about the main diagonal: each tile's mirror (the tile whose goal cell is
    /// the transposed goal cell) and each cell's transpose.
    mirror: Option<(Vec<u8>, [u8; MAX_CELLS])>,
    /// Each cell's neighbours: above, left, right, below ([`BLANK`] off the board).
    neighbours: [[u8; 4]; MAX_CELLS],
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
        let mut neighbours = [[BLANK; 4]; MAX_CELLS];
        for (c, next) in neighbours.iter_mut().enumerate().take(board.cells()) {
            let (r, col) = (c / cols, c % cols);
            if r > 0 {
                next[0] = (c - cols) as u8;
            }
            if col > 0 {
                next[1] = (c - 1) as u8;
            }
            if col + 1 < cols {
                next[2] = (c + 1) as u8;
            }
            if r + 1 < board.rows {
                next[3] = (c + cols) as u8;
            }
        }
        Heuristic {
            neighbours,
            mirror: mirror(board),
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

    /// Asks the memory for the byte of group `g`'s database at `rank`.
    #[inline(always)]
    fn prefetch(&self, g: usize, rank: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let byte = match self.groups[g].1 {
                Values::Bytes(b) => &b[rank as usize],
                Values::Nibbles(b) => &b[(rank / 2) as usize],
            };
            // SAFETY: SSE is part of x86_64; a prefetch reads nothing and `byte` is a value
            // of the database.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((byte as *const u8).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (g, rank);
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

/// Nodes of an iteration expanded one level at a time before its subtrees are searched side
/// by side: enough for both cores to stay busy to the end of the iteration.
const SPLIT: usize = 4096;
/// Nodes a search takes from the shared budget at a time (and expands between looks at the
/// stop flag).
const CHECK_EVERY: u64 = 1 << 14;

/// IDA* from the position where tile `t` is on `cells[t]` and the blank on `blank`, expanding
/// at most `limit` nodes. The position must reach the goal (the caller checks the parity).
///
/// Each iteration expands the tree one level at a time until it has [`SPLIT`] nodes, then
/// searches their subtrees depth-first on every core (rayon); the first to reach the goal
/// stops the rest. Nodes are counted exactly up to the last iteration, in which the subtrees
/// stopped early depend on timing; the solution's length does not.
pub fn solve(h: &Heuristic<'_>, cells: &[u8], blank: u8, limit: u64) -> Found {
    use rayon::prelude::*;
    let shared = Shared {
        limit,
        used: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    let root = Search::new(h, cells, blank, &shared);
    let mut bound = root.h_value();
    let (mut nodes, mut generated) = (0u64, 0u64);
    loop {
        // One level at a time: each node a path of blank cells from the root.
        let mut layer: Vec<Vec<u8>> = vec![Vec::new()];
        let mut least = u32::MAX;
        let mut w = root.clone();
        while !layer.is_empty() && layer.len() < SPLIT {
            let mut next = Vec::new();
            for path in &layer {
                w.reset(&root, path);
                if w.hn == 0 {
                    return w.found(nodes, generated);
                }
                if w.budget == 0 && !w.refill() {
                    return Found::Limit(nodes);
                }
                w.budget -= 1;
                nodes += 1;
                let g = path.len() as u32;
                let prev = w.previous();
                let blank = w.blank();
                for &to in &h.neighbours[blank as usize] {
                    if to == BLANK || to == prev {
                        continue;
                    }
                    generated += 1;
                    let u = w.slide(to, None);
                    let f = g + 1 + w.h_value();
                    if f > bound {
                        least = least.min(f);
                    } else {
                        let mut p = path.clone();
                        p.push(to);
                        next.push(p);
                    }
                    w.unslide(u);
                }
            }
            layer = next;
        }
        w.give_back();
        let results: Vec<(Step, u64, u64, Option<Vec<u8>>)> = layer
            .par_iter()
            .map(|path| {
                if shared.stop.load(Ordering::Relaxed) {
                    return (Step::Limit, 0, 0, None);
                }
                let mut w = root.clone();
                w.reset(&root, path);
                let prev = w.previous();
                let step = w.dfs(path.len() as u32, bound, prev);
                w.give_back();
                let found = matches!(step, Step::Found).then(|| w.path.clone());
                if found.is_some() {
                    shared.stop.store(true, Ordering::Relaxed);
                }
                (step, w.nodes, w.generated, found)
            })
            .collect();
        let mut path = None;
        for (step, n, g, found) in results {
            nodes += n;
            generated += g;
            match step {
                Step::Over(x) => least = least.min(x),
                Step::Found => path = path.or(found),
                Step::Limit => {}
            }
        }
        if let Some(blanks) = path {
            return Found::Path {
                blanks,
                nodes,
                generated,
            };
        }
        if shared.used.load(Ordering::Relaxed) >= limit {
            return Found::Limit(nodes);
        }
        if least == u32::MAX {
            // Nothing beyond the bound: no path (the parity check should have said so).
            return Found::Limit(nodes);
        }
        bound = least;
    }
}

enum Step {
    Found,
    /// The budget ran out, or another search found the goal.
    Limit,
    /// Not within the bound; the least f above it.
    Over(u32),
}

/// What the searches of one instance share.
struct Shared {
    limit: u64,
    /// Nodes of the budget taken by the searches (each takes [`CHECK_EVERY`] at a time and
    /// gives back what it did not expand), so never more than `limit` are expanded.
    used: AtomicU64,
    /// Set when a search reached the goal.
    stop: AtomicBool,
}

/// What [`Search::slide`] changed, to put back.
#[derive(Clone, Copy)]
struct Undo {
    tile: u8,
    from: u8,
    slot: u8,
    old: u8,
    rslot: u8,
    rold: u8,
    hn: u32,
    hr: u32,
}

/// One depth-first search's position: every tile's cell and every cell's tile, the reflected
/// position, the heuristic's terms (per group, then the Manhattan rest) and their sums.
#[derive(Clone)]
struct Search<'h, 'a> {
    h: &'h Heuristic<'a>,
    cells: [u8; MAX_CELLS],
    grid: [u8; MAX_CELLS],
    rcells: [u8; MAX_CELLS],
    terms: [u8; MAX_CELLS + 1],
    rterms: [u8; MAX_CELLS + 1],
    hn: u32,
    hr: u32,
    /// The blank's cells from the root.
    path: Vec<u8>,
    nodes: u64,
    generated: u64,
    /// Nodes taken from the shared budget and not yet expanded.
    budget: u64,
    shared: &'h Shared,
}

impl<'h, 'a> Search<'h, 'a> {
    fn new(h: &'h Heuristic<'a>, cells: &[u8], blank: u8, shared: &'h Shared) -> Self {
        let mut s = Search {
            h,
            cells: [0; MAX_CELLS],
            grid: [BLANK; MAX_CELLS],
            rcells: [0; MAX_CELLS],
            terms: [0; MAX_CELLS + 1],
            rterms: [0; MAX_CELLS + 1],
            hn: 0,
            hr: 0,
            path: vec![blank],
            nodes: 0,
            generated: 0,
            budget: 0,
            shared,
        };
        s.cells[..cells.len()].copy_from_slice(cells);
        for (t, &c) in cells.iter().enumerate() {
            s.grid[c as usize] = t as u8;
        }
        let mut terms = Vec::new();
        h.terms(cells, &mut terms);
        s.terms[..terms.len()].copy_from_slice(&terms);
        s.hn = terms.iter().map(|&x| x as u32).sum();
        if let Some((tiles, cell)) = &h.mirror {
            let r = reflect(cells, tiles, cell);
            s.rcells[..r.len()].copy_from_slice(&r);
            h.terms(&r, &mut terms);
            s.rterms[..terms.len()].copy_from_slice(&terms);
            s.hr = terms.iter().map(|&x| x as u32).sum();
        }
        s
    }

    /// Back to `root`'s position, then the blank along `path`.
    fn reset(&mut self, root: &Self, path: &[u8]) {
        self.cells = root.cells;
        self.grid = root.grid;
        self.rcells = root.rcells;
        self.terms = root.terms;
        self.rterms = root.rterms;
        self.hn = root.hn;
        self.hr = root.hr;
        self.path.clear();
        self.path.extend_from_slice(&root.path);
        for &to in path {
            self.slide(to, None);
        }
    }

    fn blank(&self) -> u8 {
        *self.path.last().expect("the path holds the root")
    }

    /// The blank's cell before the last move ([`BLANK`] at the root).
    fn previous(&self) -> u8 {
        match self.path.len() {
            0 | 1 => BLANK,
            n => self.path[n - 2],
        }
    }

    #[inline(always)]
    fn h_value(&self) -> u32 {
        self.hn.max(self.hr)
    }

    fn found(&self, nodes: u64, generated: u64) -> Found {
        Found::Path {
            blanks: self.path.clone(),
            nodes,
            generated,
        }
    }

    /// Takes up to [`CHECK_EVERY`] nodes of the shared budget; false when none is left or
    /// the goal was found elsewhere.
    fn refill(&mut self) -> bool {
        if self.shared.stop.load(Ordering::Relaxed) {
            return false;
        }
        let limit = self.shared.limit;
        let taken = self
            .shared
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used < limit).then(|| used + CHECK_EVERY.min(limit - used))
            });
        match taken {
            Ok(used) => {
                self.budget = CHECK_EVERY.min(limit - used);
                true
            }
            Err(_) => false,
        }
    }

    /// Returns the budget this search took and did not use.
    fn give_back(&mut self) {
        self.shared.used.fetch_sub(self.budget, Ordering::Relaxed);
        self.budget = 0;
    }

    /// The placement tile `t`'s group takes when it moves to `to` (`u64::MAX` where the tile
    /// counts by its Manhattan distance), its database's byte asked for.
    #[inline(always)]
    fn rank(&mut self, t: u8, to: u8) -> u64 {
        let h = self.h;
        let ti = t as usize;
        let Some(g) = h.group_of[ti] else {
            return u64::MAX;
        };
        let from = self.cells[ti];
        self.cells[ti] = to;
        let rank = h.groups[g].0.rank_of(&self.cells);
        self.cells[ti] = from;
        h.prefetch(g, rank);
        rank
    }

    /// As [`Search::rank`] in the reflected position: the placement of the group of tile
    /// `t`'s mirror when `t` moves to `to` (`u64::MAX`: no mirror, or no group).
    #[inline(always)]
    fn rrank(&mut self, t: u8, to: u8) -> u64 {
        let h = self.h;
        let Some((tiles, cell)) = &h.mirror else {
            return u64::MAX;
        };
        let m = tiles[t as usize] as usize;
        let Some(g) = h.group_of[m] else {
            return u64::MAX;
        };
        let from = self.rcells[m];
        self.rcells[m] = cell[to as usize];
        let rank = h.groups[g].0.rank_of(&self.rcells);
        self.rcells[m] = from;
        h.prefetch(g, rank);
        rank
    }

    /// The sum of the heuristic's terms (not the reflection's) once the tile `t` on `to`
    /// slides into the blank, its group's new placement `rank` given.
    #[inline(always)]
    fn sum_after(&self, t: u8, to: u8, rank: u64) -> u32 {
        let h = self.h;
        let ti = t as usize;
        match h.group_of[ti] {
            Some(g) => self.hn - self.terms[g] as u32 + h.groups[g].1.get(rank) as u32,
            None => {
                let md = &h.manhattan[ti];
                self.hn + md[self.blank() as usize] as u32 - md[to as usize] as u32
            }
        }
    }

    /// Slides the tile on `to` into the blank, its terms' new placements given (`ranks`, as
    /// [`Search::rank`] and [`Search::rrank`] compute them) or computed here; returns what to
    /// put back.
    #[inline(always)]
    fn slide(&mut self, to: u8, ranks: Option<(u64, u64)>) -> Undo {
        let h = self.h;
        let blank = self.blank();
        let t = self.grid[to as usize];
        let (rank, rrank) = ranks.unwrap_or_else(|| (self.rank(t, blank), self.rrank(t, blank)));
        let ti = t as usize;
        let last = h.groups.len();
        let mut u = Undo {
            tile: t,
            from: to,
            slot: 0,
            old: 0,
            rslot: 0,
            rold: 0,
            hn: self.hn,
            hr: self.hr,
        };
        match h.group_of[ti] {
            Some(g) => {
                let v = h.groups[g].1.get(rank);
                u.slot = g as u8;
                u.old = self.terms[g];
                self.terms[g] = v;
                self.hn = self.hn + v as u32 - u.old as u32;
            }
            None => {
                let md = &h.manhattan[ti];
                u.slot = last as u8;
                u.old = self.terms[last];
                let v = u.old + md[blank as usize] - md[to as usize];
                self.terms[last] = v;
                self.hn = self.hn + v as u32 - u.old as u32;
            }
        }
        if let Some((tiles, cell)) = &h.mirror {
            let m = tiles[ti] as usize;
            let (rto, rfrom) = (cell[blank as usize], cell[to as usize]);
            self.rcells[m] = rto;
            match h.group_of[m] {
                Some(g) => {
                    let v = h.groups[g].1.get(rrank);
                    u.rslot = g as u8;
                    u.rold = self.rterms[g];
                    self.rterms[g] = v;
                    self.hr = self.hr + v as u32 - u.rold as u32;
                }
                None => {
                    let md = &h.manhattan[m];
                    u.rslot = last as u8;
                    u.rold = self.rterms[last];
                    let v = u.rold + md[rto as usize] - md[rfrom as usize];
                    self.rterms[last] = v;
                    self.hr = self.hr + v as u32 - u.rold as u32;
                }
            }
        }
        self.cells[ti] = blank;
        self.grid[blank as usize] = t;
        self.grid[to as usize] = BLANK;
        self.path.push(to);
        u
    }

    #[inline(always)]
    fn unslide(&mut self, u: Undo) {
        let h = self.h;
        let ti = u.tile as usize;
        self.path.pop();
        let blank = self.blank();
        self.cells[ti] = u.from;
        self.grid[u.from as usize] = u.tile;
        self.grid[blank as usize] = BLANK;
        self.terms[u.slot as usize] = u.old;
        self.hn = u.hn;
        if let Some((tiles, cell)) = &h.mirror {
            self.rcells[tiles[ti] as usize] = cell[u.from as usize];
            self.rterms[u.rslot as usize] = u.rold;
            self.hr = u.hr;
        }
    }

    /// The depth-first search below the current position, `g` moves from the root (which
    /// must be within `bound`), `prev` the blank's cell before (not moved back to); with the
    /// CPU's popcount instruction where it has one (each lookup's rank counts set bits).
    fn dfs(&mut self, g: u32, bound: u32, prev: u8) -> Step {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            return unsafe { self.dfs_popcnt(g, bound, prev) };
        }
        self.dfs_body::<false>(g, bound, prev)
    }

    /// [`Search::dfs`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn dfs_popcnt(&mut self, g: u32, bound: u32, prev: u8) -> Step {
        self.dfs_body::<true>(g, bound, prev)
    }

    /// The search of [`Search::dfs`]; `POPCNT`: the CPU has it (and this is inlined into
    /// [`Search::dfs_popcnt`]).
    #[inline(always)]
    fn dfs_body<const POPCNT: bool>(&mut self, g: u32, bound: u32, prev: u8) -> Step {
        if self.hn == 0 {
            return Step::Found;
        }
        if self.budget == 0 && !self.refill() {
            return Step::Limit;
        }
        self.budget -= 1;
        self.nodes += 1;
        let h = self.h;
        let blank = self.blank();
        // First every child's placement of its group, their values fetched from memory side
        // by side; then the children those leave within the bound get the reflection's.
        let mut children = [(BLANK, 0u8, 0u64, 0u64); 4];
        for (child, &to) in children.iter_mut().zip(&h.neighbours[blank as usize]) {
            if to == BLANK || to == prev {
                continue;
            }
            let t = self.grid[to as usize];
            *child = (to, t, self.rank(t, blank), 0);
        }
        let mut least = u32::MAX;
        for child in children.iter_mut() {
            let (to, t, rank, _) = *child;
            if to == BLANK {
                continue;
            }
            self.generated += 1;
            // The heuristic is the larger of the two sums: over the bound by the first, the
            // child needs no second lookup. (Its f is then exact to the least above the bound
            // on boards whose values keep the Manhattan distance's parity, as ours do.)
            let f = g + 1 + self.sum_after(t, to, rank);
            if f > bound {
                least = least.min(f);
                child.0 = BLANK;
            } else {
                child.3 = self.rrank(t, blank);
            }
        }
        for (to, _, rank, rrank) in children {
            if to == BLANK {
                continue;
            }
            let u = self.slide(to, Some((rank, rrank)));
            let f = g + 1 + self.h_value();
            if f > bound {
                least = least.min(f);
            } else {
                let below = {
                    #[cfg(target_arch = "x86_64")]
                    if POPCNT {
                        // SAFETY: `POPCNT` is set only below a check that the CPU has it.
                        unsafe { self.dfs_popcnt(g + 1, bound, blank) }
                    } else {
                        self.dfs_body::<false>(g + 1, bound, blank)
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    self.dfs_body::<false>(g + 1, bound, blank)
                };
                match below {
                    Step::Found => return Step::Found,
                    Step::Limit => return Step::Limit,
                    Step::Over(x) => least = least.min(x),
                }
            }
            self.unslide(u);
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
                // Start, then the blank on 5 (h stays exact): 2 expanded; the start's four
                // children generated (the first levels are expanded whole before their
                // subtrees are searched), then 2 of the blank on 5's before the goal.
                assert_eq!((nodes, generated), (2, 6));
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
