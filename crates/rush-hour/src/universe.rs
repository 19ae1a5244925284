//! The universe of `N × N` layouts with at most `W` walls, class by class: every cluster (a
//! connected component of the move graph), its puzzle (its layout farthest from the goals) and
//! whether that puzzle is minimal — Fogleman's database.

use rayon::prelude::*;
use thiserror::Error;

use crate::board::{Board, EXIT_ROW, SIZES};
use crate::class::{self, Class, Columns, LineSet, PieceId, State, UNREACHED};

/// Why a universe cannot be built.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum UniverseError {
    #[error("size {0}: the universe takes boards of 4, 5 or 6 cells a side")]
    Size(usize),
    #[error(
        "max_walls {0}: at most 2 walls (more are out of reach of one machine's memory and time)"
    )]
    Walls(usize),
    #[error("a cluster needs more than {0} moves, more than a distance byte holds")]
    Distance(u32),
    #[error("a unit of work listed twice: each class is searched once")]
    Twice,
    #[error("two censuses both count units {0:?}: each class is counted once")]
    Overlap(std::ops::Range<u64>),
}

/// Most walls a universe takes.
pub const MAX_WALLS: usize = 2;

/// A database row: a solvable cluster whose puzzle is minimal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Puzzle {
    /// Fewest moves from the puzzle to a goal (the cluster's largest distance).
    pub moves: u32,
    /// The puzzle in Fogleman's notation, letters in reading order ([`Board`]'s `Display`).
    pub board: String,
    /// Layouts in its cluster.
    pub cluster_size: u64,
}

/// What a set of classes holds; sums over any split of the classes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// Classes with at least one layout.
    pub classes: u64,
    pub layouts: u64,
    pub clusters: u64,
    pub solvable_clusters: u64,
    /// Solvable clusters by the moves their puzzle needs (index = moves).
    pub clusters_by_moves: Vec<u64>,
    /// Layouts of solvable clusters by their distance to a goal.
    pub layouts_by_distance: Vec<u64>,
    /// The database, sorted: most moves first, then by board.
    pub puzzles: Vec<Puzzle>,
    /// The units (classes by their index in [`Universe`]) it counts: sorted disjoint ranges.
    pub units: Vec<std::ops::Range<u64>>,
}

fn add(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

/// The database order: most moves first, then by board.
fn database_order(a: &Puzzle, b: &Puzzle) -> std::cmp::Ordering {
    b.moves.cmp(&a.moves).then_with(|| a.board.cmp(&b.board))
}

/// Both lists in [`database_order`] (each sorted first unless it is), `a`'s first among equals
/// — what sorting them one after the other would give, in linear time once they are sorted:
/// merging the chunks of a universe does not sort its millions of puzzles again each time.
fn merge_sorted(mut a: Vec<Puzzle>, mut b: Vec<Puzzle>) -> Vec<Puzzle> {
    for v in [&mut a, &mut b] {
        if !v.is_sorted_by(|x, y| database_order(x, y).is_le()) {
            v.sort_by(database_order);
        }
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let next = if database_order(y, x).is_lt() {
            b.next()
        } else {
            a.next()
        };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

impl Census {
    /// The census of both sets of classes; an error if both count a unit.
    pub fn merge(self, other: Census) -> Result<Census, UniverseError> {
        let units = huarong_core::universe::union(&self.units, &other.units)
            .map_err(UniverseError::Overlap)?;
        let mut merged = self.absorb(other);
        merged.units = units;
        Ok(merged)
    }

    /// Both censuses' counts and puzzles added up (their units left to the caller).
    fn absorb(mut self, other: Census) -> Census {
        self.classes += other.classes;
        self.layouts += other.layouts;
        self.clusters += other.clusters;
        self.solvable_clusters += other.solvable_clusters;
        add(&mut self.clusters_by_moves, &other.clusters_by_moves);
        add(&mut self.layouts_by_distance, &other.layouts_by_distance);
        self.puzzles = merge_sorted(std::mem::take(&mut self.puzzles), other.puzzles);
        self
    }

    /// Every count twice (the puzzles excepted): a class's census and its mirror image's.
    fn double_counts(&mut self) {
        self.classes *= 2;
        self.layouts *= 2;
        self.clusters *= 2;
        self.solvable_clusters *= 2;
        for v in [&mut self.clusters_by_moves, &mut self.layouts_by_distance] {
            v.iter_mut().for_each(|x| *x *= 2);
        }
    }

    /// Minimal puzzles by their moves (index = moves).
    pub fn puzzles_by_moves(&self) -> Vec<u64> {
        let mut out = vec![0u64; self.clusters_by_moves.len()];
        for p in &self.puzzles {
            out[p.moves as usize] += 1;
        }
        out
    }

    /// A byte encoding ([`Census::decode`] reads it back).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut put = |x: u64| out.extend_from_slice(&x.to_le_bytes());
        for x in [
            self.classes,
            self.layouts,
            self.clusters,
            self.solvable_clusters,
        ] {
            put(x);
        }
        for v in [&self.clusters_by_moves, &self.layouts_by_distance] {
            put(v.len() as u64);
            for &x in v.iter() {
                put(x);
            }
        }
        put(self.puzzles.len() as u64);
        for p in &self.puzzles {
            put(p.moves as u64);
            put(p.cluster_size);
            put(p.board.len() as u64);
        }
        for p in &self.puzzles {
            out.extend_from_slice(p.board.as_bytes());
        }
        out.extend_from_slice(&(self.units.len() as u64).to_le_bytes());
        for r in &self.units {
            out.extend_from_slice(&r.start.to_le_bytes());
            out.extend_from_slice(&r.end.to_le_bytes());
        }
        out
    }

    /// Reads [`Census::encode`]'s bytes; `None` if they are not such bytes.
    pub fn decode(bytes: &[u8]) -> Option<Census> {
        let mut at = 0usize;
        let mut get = || -> Option<u64> {
            let b = bytes.get(at..at + 8)?;
            at += 8;
            Some(u64::from_le_bytes(b.try_into().ok()?))
        };
        let mut c = Census {
            classes: get()?,
            layouts: get()?,
            clusters: get()?,
            solvable_clusters: get()?,
            ..Census::default()
        };
        for k in 0..2 {
            let len = get()? as usize;
            if len > bytes.len() / 8 {
                return None;
            }
            let v = (0..len).map(|_| get()).collect::<Option<Vec<u64>>>()?;
            if k == 0 {
                c.clusters_by_moves = v;
            } else {
                c.layouts_by_distance = v;
            }
        }
        let count = get()? as usize;
        if count > bytes.len() / 24 {
            return None;
        }
        let heads = (0..count)
            .map(|_| Some((get()?, get()?, get()? as usize)))
            .collect::<Option<Vec<_>>>()?;
        for (moves, cluster_size, len) in heads {
            let text = bytes.get(at..at.checked_add(len)?)?;
            at += len;
            c.puzzles.push(Puzzle {
                moves: u32::try_from(moves).ok()?,
                board: String::from_utf8(text.to_vec()).ok()?,
                cluster_size,
            });
        }
        let mut get = || -> Option<u64> {
            let b = bytes.get(at..at + 8)?;
            at += 8;
            Some(u64::from_le_bytes(b.try_into().ok()?))
        };
        let ranges = get()? as usize;
        if ranges > bytes.len() / 16 {
            return None;
        }
        for _ in 0..ranges {
            let (start, end) = (get()?, get()?);
            // Sorted, disjoint, not touching, none empty.
            if start >= end || c.units.last().is_some_and(|r| r.end >= start) {
                return None;
            }
            c.units.push(start..end);
        }
        (at == bytes.len()).then_some(c)
    }
}

/// One unit of work: a wall set and a pattern per row.
#[derive(Debug, Clone, Copy)]
struct Unit {
    walls: u32,
    rows: [u16; 6],
}

impl Unit {
    fn key(&self) -> (u32, [u16; 6]) {
        (self.walls, self.rows)
    }
}

/// Everything one wall set's classes share.
#[derive(Debug)]
struct WallSet {
    walls: u64,
    columns: Columns,
    /// Per row, its line sets, one per pattern.
    rows: Vec<Vec<LineSet>>,
    /// What counting a class's layouts needs ([`class::count_layouts`]): the walls and each
    /// row pattern's arrangements by column, and per column and pattern the arrangements left.
    walls_by_column: u64,
    rows_by_column: Vec<Vec<Vec<u64>>>,
    counts: [[u32; 64]; 6],
}

/// The universe of `size × size` layouts with at most `max_walls` walls.
#[derive(Debug)]
pub struct Universe {
    n: usize,
    max_walls: usize,
    wall_sets: Vec<WallSet>,
    units: Vec<Unit>,
}

impl Universe {
    /// Lays out every class (nothing is searched yet).
    pub fn new(size: usize, max_walls: usize) -> Result<Universe, UniverseError> {
        if !SIZES.contains(&size) {
            return Err(UniverseError::Size(size));
        }
        if max_walls > MAX_WALLS {
            return Err(UniverseError::Walls(max_walls));
        }
        let n = size;
        let cells = n * n;
        let mut masks = vec![0u64];
        if max_walls >= 1 {
            masks.extend((0..cells).map(|a| 1u64 << a));
        }
        if max_walls >= 2 {
            for a in 0..cells {
                masks.extend((a + 1..cells).map(|b| 1u64 << a | 1u64 << b));
            }
        }
        let mut wall_sets = Vec::new();
        let mut units = Vec::new();
        for walls in masks {
            let rows: Vec<Vec<LineSet>> = (0..n).map(|r| row_patterns(n, r, walls)).collect();
            if rows.iter().any(|p| p.is_empty()) {
                continue;
            }
            let w = wall_sets.len() as u32;
            let mut choice = [0u16; 6];
            loop {
                units.push(Unit {
                    walls: w,
                    rows: choice,
                });
                // The next choice, last row fastest.
                let mut r = n;
                loop {
                    if r == 0 {
                        break;
                    }
                    r -= 1;
                    choice[r] += 1;
                    if (choice[r] as usize) < rows[r].len() {
                        break;
                    }
                    choice[r] = 0;
                }
                if choice[..n].iter().all(|&c| c == 0) {
                    break;
                }
            }
            let columns = Columns::new(n, walls);
            wall_sets.push(WallSet {
                walls,
                walls_by_column: class::transposed(n, walls),
                rows_by_column: rows
                    .iter()
                    .map(|sets| {
                        sets.iter()
                            .map(|set| {
                                set.arrangements
                                    .iter()
                                    .map(|a| class::transposed(n, a.mask))
                                    .collect()
                            })
                            .collect()
                    })
                    .collect(),
                counts: columns.counts(),
                columns,
                rows,
            });
        }
        Ok(Universe {
            n,
            max_walls,
            wall_sets,
            units,
        })
    }

    pub fn size(&self) -> usize {
        self.n
    }

    pub fn max_walls(&self) -> usize {
        self.max_walls
    }

    /// Units of work (a wall set and one pattern per row; each a class of layouts).
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// The unit of the mirror images of `unit`'s layouts, when the board has a middle exit row.
    fn mirror_of(&self, unit: &Unit) -> Option<Unit> {
        let n = self.n;
        if n - 1 - EXIT_ROW != EXIT_ROW {
            return None;
        }
        let walls = self.wall_sets[unit.walls as usize].walls;
        let flipped = (0..n * n)
            .filter(|&c| walls >> c & 1 == 1)
            .fold(0u64, |m, c| m | 1u64 << ((n - 1 - c / n) * n + c % n));
        let mut rows = [0u16; 6];
        rows[..n].copy_from_slice(&unit.rows[..n]);
        rows[..n].reverse();
        let index = self.wall_sets.iter().position(|w| w.walls == flipped)?;
        Some(Unit {
            walls: index as u32,
            rows,
        })
    }

    fn class(&self, unit: &Unit) -> Class<'_> {
        self.class_ranked_with(unit, None)
    }

    /// The class of `unit` ranked with board column `last` last ([`Class::ranked_with`]).
    fn class_ranked_with(&self, unit: &Unit, last: Option<usize>) -> Class<'_> {
        let set = &self.wall_sets[unit.walls as usize];
        let rows = (0..self.n)
            .map(|r| set.rows[r][unit.rows[r] as usize].clone())
            .collect();
        Class::ranked_with(self.n, set.walls, rows, &set.columns, last)
    }

    /// Layouts of unit `k`, counted without searching.
    pub fn unit_layouts(&self, k: usize) -> u64 {
        let unit = &self.units[k];
        let set = &self.wall_sets[unit.walls as usize];
        let mut rows: [&[u64]; 6] = [&[]; 6];
        for (r, row) in rows.iter_mut().enumerate().take(self.n) {
            *row = &set.rows_by_column[r][unit.rows[r] as usize];
        }
        class::count_layouts(self.n, set.walls_by_column, &rows[..self.n], &set.counts)
    }

    /// Per unit, its layouts per row combination: its work ([`Universe::work`]) over the
    /// product of its rows' arrangements. How fast a class goes per layout depends on it far
    /// more than on its size.
    pub fn paces(&self, work: &[u64]) -> Vec<u64> {
        self.units
            .iter()
            .zip(work)
            .map(|(unit, &w)| {
                let set = &self.wall_sets[unit.walls as usize];
                let combos: u64 = (0..self.n)
                    .map(|r| set.rows[r][unit.rows[r] as usize].len() as u64)
                    .product();
                w / combos.max(1)
            })
            .collect()
    }

    /// Whether unit `k` is searched, and whether its census counts its mirror image too: with
    /// the exit row in the middle, a class and its mirror image have the same clusters upside
    /// down, so the smaller of the two counts both and the other is skipped.
    fn searched(&self, k: usize) -> Option<bool> {
        let u = &self.units[k];
        match self.mirror_of(u) {
            Some(m) if m.key() < u.key() => None,
            Some(m) => Some(m.key() != u.key()),
            None => Some(false),
        }
    }

    /// Every unit's work: the layouts its search holds in memory, 0 for a class its mirror
    /// image's census counts (measured without searching).
    pub fn work(&self) -> Vec<u64> {
        (0..self.units.len())
            .into_par_iter()
            .map(|k| match self.searched(k) {
                Some(_) => self.unit_layouts(k),
                None => 0,
            })
            .collect()
    }

    /// The census of the units `k` with `k % parts == part`; `progress` is called once per
    /// finished unit.
    pub fn census(
        &self,
        part: usize,
        parts: usize,
        progress: &(dyn Fn() + Sync),
    ) -> Result<Census, UniverseError> {
        let units: Vec<usize> = (0..self.units.len())
            .filter(|k| k % parts.max(1) == part)
            .collect();
        self.census_of(&units, &|_, _| progress())
    }

    /// The census of exactly `units` (no unit twice), on every thread of the rayon pool: the
    /// largest classes first, each taken from one queue by the first thread free, so the run
    /// ends with small classes on both threads, never one large class left to one thread while
    /// the other idles; `progress(unit, layouts)` is called as each unit finishes, on the
    /// thread that searched it.
    pub fn census_of(
        &self,
        units: &[usize],
        progress: &(dyn Fn(usize, u64) + Sync),
    ) -> Result<Census, UniverseError> {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
        let covered = huarong_core::universe::ranges_of(units).ok_or(UniverseError::Twice)?;
        let mut mine: Vec<(usize, bool, u64)> = units
            .par_iter()
            .map(|&k| match self.searched(k) {
                Some(twice) => (k, twice, self.unit_layouts(k)),
                None => (k, false, 0),
            })
            .collect();
        mine.sort_by_key(|&(k, _, size)| (std::cmp::Reverse(size), k));
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let per_thread = rayon::broadcast(|_| {
            let mut scratch = Scratch::default();
            let mut done = Tally::default();
            while !failed.load(Relaxed) {
                let Some(&(k, twice, size)) = mine.get(next.fetch_add(1, Relaxed)) else {
                    break;
                };
                let mut census = Census::default();
                if size > 0 {
                    let class = self.class(&self.units[k]);
                    if let Err(e) = census_class(&class, &mut scratch, &mut census, twice) {
                        failed.store(true, Relaxed);
                        return Err(e);
                    }
                    if twice {
                        census.double_counts();
                    }
                }
                progress(k, size);
                done.push(census);
            }
            Ok(done.total())
        });
        let mut all = Tally::default();
        for census in per_thread {
            all.push(census?);
        }
        let mut census = all.total();
        census.units = covered;
        Ok(census)
    }
}

/// Censuses added up as they come, in a binary counter's pattern: two sums of as many
/// censuses are merged, so each puzzle is merged about log₂(censuses) times and few sums are
/// held at once.
#[derive(Debug, Default)]
struct Tally(Vec<(u32, Census)>);

impl Tally {
    fn push(&mut self, census: Census) {
        let mut top = (0, census);
        while let Some((rank, _)) = self.0.last() {
            if *rank != top.0 {
                break;
            }
            let (rank, held) = self.0.pop().expect("a sum held");
            top = (rank + 1, held.absorb(top.1));
        }
        self.0.push(top);
    }

    fn total(self) -> Census {
        self.0
            .into_iter()
            .map(|(_, census)| census)
            .reduce(Census::absorb)
            .unwrap_or_default()
    }
}

/// The census of the one class holding `board` (its walls and its rows' pieces, the columns'
/// pieces free): a published puzzle's cluster without the whole universe.
pub fn class_census(board: &Board) -> Result<Census, UniverseError> {
    let n = board.n();
    let walls = board.wall_mask();
    let mut rows = Vec::new();
    for r in 0..n {
        let blocked = class::line_bits(n, false, r, walls);
        let mut mine: Vec<(u8, u8)> = board
            .pieces()
            .iter()
            .filter(|p| p.kind == crate::board::Kind::Horizontal && p.cell as usize / n == r)
            .map(|p| {
                let c = p.cell as usize % n;
                let below = blocked & ((1u16 << c) - 1) as u8;
                (c as u8, below.count_ones() as u8 * 8 + p.len)
            })
            .collect();
        mine.sort();
        let key: Vec<(u8, u8)> = mine.iter().map(|&(_, k)| (k / 8, k % 8)).collect();
        let set = row_patterns(n, r, walls)
            .into_iter()
            .find(|s| class::pattern(&s.arrangements[0], blocked) == key)
            .expect("a valid board's rows are one of their patterns");
        rows.push(set);
    }
    let columns = Columns::new(n, walls);
    let class = Class::new(n, walls, rows, &columns);
    let mut census = Census::default();
    census_class(&class, &mut Scratch::default(), &mut census, false)?;
    Ok(census)
}

/// Each pattern's line set of row `r` with walls `walls`: the red car alone right of the walls
/// in the exit row, elsewhere pieces that with the row's walls cover fewer than `n` cells.
fn row_patterns(n: usize, r: usize, walls: u64) -> Vec<LineSet> {
    let blocked = class::line_bits(n, false, r, walls);
    let budget = (n - 1).saturating_sub(blocked.count_ones() as usize);
    let mut all = class::arrangements(n, false, r, blocked, budget);
    if r == EXIT_ROW {
        all.retain(|a| a.pieces == 1 && a.lens[0] == 2 && (blocked as u32) < 1 << a.starts[0]);
    }
    type Group = (Vec<(u8, u8)>, Vec<class::Arrangement>);
    let mut groups: Vec<Group> = Vec::new();
    for a in all {
        let key = class::pattern(&a, blocked);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(a),
            None => groups.push((key, vec![a])),
        }
    }
    groups
        .into_iter()
        .map(|(_, arrangements)| class::line_set(n, false, r, blocked, arrangements))
        .collect()
}

/// What one class's census reuses from the last.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// Per block: its union-find parent, then its cluster.
    cluster: Vec<u32>,
    /// Per block: its layouts.
    sizes: Vec<u32>,
    /// Per block: the largest distance of its layouts to a goal.
    farthest: Vec<u8>,
    /// Per cluster: its layouts; its puzzle's moves ([`UNREACHED`] while no goal is known in
    /// it); the keys of its farthest layouts. Three arrays, not one of structs: the passes
    /// over the blocks look up the first two for every block, the keys for a few.
    cluster_sizes: Vec<u64>,
    moves: Vec<u8>,
    clusters: Vec<Cluster>,
    /// Per layout: its distance to a goal.
    dist: Vec<u8>,
    /// The search's bits per layout.
    bits: class::Bits,
}

/// The smallest key of a cluster's layouts at its largest distance to a goal: their masks
/// (horizontal, vertical) and index, as they are and upside down.
#[derive(Debug, Clone, Copy)]
struct Cluster {
    farthest: (u64, u64, u32),
    mirrored: (u64, u64, u32),
}

/// A union-find root: every parent is at most its child, so the root is the smallest block.
fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let up = parent[parent[x as usize] as usize];
        parent[x as usize] = up;
        x = up;
    }
    x
}

/// Every cluster of `class`, with its size, from its blocks (the sets of layouts vertical
/// moves connect, joined by horizontal moves); every layout's distance to a goal by one
/// breadth-first search from all the class's goals; each solvable cluster's puzzle (its
/// farthest layout) and its minimality. Added to `out`, its puzzles left in database order.
fn census_class(
    class: &Class<'_>,
    scratch: &mut Scratch,
    out: &mut Census,
    mirror_too: bool,
) -> Result<(), UniverseError> {
    let Scratch {
        cluster,
        sizes,
        farthest,
        cluster_sizes,
        moves,
        clusters,
        dist,
        bits,
    } = scratch;
    out.classes += 1;
    out.layouts += class.len();
    // The clusters: blocks joined by horizontal moves.
    let blocks = class.blocks() as usize;
    cluster.clear();
    cluster.extend(0..blocks as u32);
    class.for_each_block_move(|a, b| {
        let (a, b) = (root(cluster, a), root(cluster, b));
        if a < b {
            cluster[b as usize] = a;
        } else if b < a {
            cluster[a as usize] = b;
        }
    });
    // Each block's cluster number, in order of their smallest blocks (a parent's number is
    // set before its child's).
    clusters.clear();
    for b in 0..blocks {
        let parent = cluster[b] as usize;
        cluster[b] = if parent == b {
            clusters.push(Cluster {
                farthest: (u64::MAX, u64::MAX, u32::MAX),
                mirrored: (u64::MAX, u64::MAX, u32::MAX),
            });
            clusters.len() as u32 - 1
        } else {
            cluster[parent]
        };
    }
    cluster_sizes.clear();
    cluster_sizes.resize(clusters.len(), 0);
    moves.clear();
    moves.resize(clusters.len(), UNREACHED);
    class.block_sizes(sizes);
    for (b, &size) in sizes.iter().enumerate() {
        cluster_sizes[cluster[b] as usize] += size as u64;
    }
    for k in class.goal_combos() {
        for b in class.combo_blocks(k as usize) {
            moves[cluster[b] as usize] = 0;
        }
    }
    out.clusters += clusters.len() as u64;
    // Distances from every goal at once (a layout's nearest goal is in its cluster); each
    // block's largest, then each cluster's. The blocks of clusters without a goal are out of
    // reach: given as empty, so that a row combination is done with once its others are.
    for (b, size) in sizes.iter_mut().enumerate() {
        if moves[cluster[b] as usize] == UNREACHED {
            *size = 0;
        }
    }
    let levels = class
        .goal_distances(sizes, dist, bits, farthest)
        .ok_or(UniverseError::Distance(UNREACHED as u32 - 1))?;
    for (d, &count) in levels.iter().enumerate() {
        bump(&mut out.layouts_by_distance, d, count);
    }
    for (b, &d) in farthest.iter().enumerate() {
        if d != UNREACHED {
            let m = &mut moves[cluster[b] as usize];
            *m = (*m).max(d);
        }
    }
    // Each solvable cluster's puzzle: its farthest layout, the smallest by horizontal then
    // vertical cells (then by rank, for layouts the two masks do not tell apart). Only the
    // blocks whose largest distance is their cluster's hold one, and a block's layouts share
    // their horizontal cells: first the smallest of those, then the layouts of the blocks
    // that have it.
    let flip = |m: u64| class.rows_reversed(m);
    // Layouts by their masks, then (the masks alike) by their index with the columns ranked
    // left to right, whatever order the class ranks them in.
    let keep_smaller = |best: &mut (u64, u64, u32), key: (u64, u64, u32)| {
        let masks = (key.0, key.1).cmp(&(best.0, best.1));
        if masks.is_lt()
            || masks.is_eq() && class.board_order_index(key.2) < class.board_order_index(best.2)
        {
            *best = key;
        }
    };
    let candidate =
        |b: usize| farthest[b] != UNREACHED && farthest[b] == moves[cluster[b] as usize];
    for k in 0..class.combos() {
        let horizontal = class.combo_horizontal_mask(k);
        for b in class.combo_blocks(k) {
            if candidate(b) {
                let c = &mut clusters[cluster[b] as usize];
                c.farthest.0 = c.farthest.0.min(horizontal);
                if mirror_too {
                    c.mirrored.0 = c.mirrored.0.min(flip(horizontal));
                }
            }
        }
    }
    for k in 0..class.combos() {
        let horizontal = class.combo_horizontal_mask(k);
        for b in class.combo_blocks(k) {
            if !candidate(b) {
                continue;
            }
            let c = &mut clusters[cluster[b] as usize];
            let plain = c.farthest.0 == horizontal;
            let upside_down = mirror_too && c.mirrored.0 == flip(horizontal);
            if !(plain || upside_down) {
                continue;
            }
            let d = moves[cluster[b] as usize];
            class.for_each_layout_in_block_at(b as u32, dist, d, |s, vertical| {
                if plain {
                    keep_smaller(&mut c.farthest, (horizontal, vertical, s));
                }
                if upside_down {
                    keep_smaller(&mut c.mirrored, (flip(horizontal), flip(vertical), s));
                }
            });
        }
    }
    let distance = |t: u32| dist[t as usize];
    for (i, c) in clusters.iter().enumerate() {
        if moves[i] == UNREACHED {
            continue;
        }
        out.solvable_clusters += 1;
        bump(&mut out.clusters_by_moves, moves[i] as usize, 1);
        let moves = moves[i] as u32;
        let row = |board: Board| Puzzle {
            moves,
            board: board.to_string(),
            cluster_size: cluster_sizes[i],
        };
        let s = c.farthest.2;
        if let Some(board) = minimal(class, (s, class.decode(s)), moves, &distance) {
            out.puzzles.push(row(board));
        }
        if mirror_too {
            // The mirrored cluster's farthest layouts are these upside down; its puzzle is the
            // smallest of them, minimal as the layout it mirrors is.
            let original = class.decode(c.mirrored.2);
            if minimal(class, (c.mirrored.2, original), moves, &distance).is_some() {
                out.puzzles.push(row(class.board(&original).0.mirrored()));
            }
        }
    }
    // In database order, not in the order of the clusters' blocks (which the class's ranking
    // order decides).
    out.puzzles.sort_by(database_order);
    Ok(())
}

fn bump(v: &mut Vec<u64>, i: usize, by: u64) {
    if v.len() <= i {
        v.resize(i + 1, 0);
    }
    v[i] += by;
}

/// The puzzle's board if it is minimal: removing any piece but the red car (a wall too) lets
/// it be solved in fewer than `moves` moves. A piece that moves on some shortest solution always
/// does (that solution without its moves still solves), one on no other piece's line never does
/// (no piece ever enters its cells); the others are solved again.
fn minimal(
    class: &Class<'_>,
    (puzzle, state): (u32, State),
    moves: u32,
    dist: &dyn Fn(u32) -> u8,
) -> Option<Board> {
    let mut pieces = class.pieces(&state);
    if moves <= 1 {
        // No removal moves the red car, so none makes it need fewer than one move: a goal
        // or a layout one move from it is minimal when nothing but the red car is on it.
        return (pieces == 0 && class.walls() == 0).then(|| class.board(&state).0);
    }
    // Without a vertical piece the layout is in this class, whose distances are known.
    let mut vertical = pieces;
    while vertical != 0 {
        let id = vertical.trailing_zeros() as PieceId;
        vertical &= vertical - 1;
        if let Some(t) = class.without_vertical(&state, id) {
            if dist(t) as u32 >= moves {
                return None;
            }
            pieces &= !(1u64 << id);
        }
    }
    // A piece (or wall) on no other piece's line is never in the way: without it the puzzle
    // needs as many moves ([`Board::crossed_by_none`]), no search needed.
    let (board, ids) = class.board(&state);
    if (1..ids.len()).any(|i| board.crossed_by_none(i)) {
        return None;
    }
    // Pieces that move on some shortest solution: every step of the shortest paths from the
    // puzzle, level by level, until every piece has moved (or the goals are reached).
    let mut moved = 0u64;
    let mut level = vec![(puzzle, state)];
    let mut next: Vec<(u32, State)> = Vec::new();
    for d in (0..moves).rev() {
        if moved & pieces == pieces {
            break;
        }
        next.clear();
        for (s, state) in &level {
            class.for_each_neighbor(state, *s, |t, state, piece| {
                if dist(t) as u32 == d {
                    moved |= 1u64 << piece;
                    next.push((t, *state));
                }
            });
        }
        next.sort_unstable_by_key(|&(t, _)| t);
        next.dedup_by_key(|&mut (t, _)| t);
        std::mem::swap(&mut level, &mut next);
    }
    // Every horizontal piece (or wall) whose removal those solutions do not already settle.
    let searched: Vec<usize> = (1..ids.len())
        .filter(|&i| ids[i] == u8::MAX || (pieces & !moved) >> ids[i] & 1 == 1)
        .collect();
    // Without piece `i` the puzzle needs fewer moves; a lower bound of `moves` or more settles
    // that it does not, before any search.
    searched
        .into_iter()
        .map(|i| board.without(i))
        .all(|b| b.lower_bound() < moves && b.moves_within(moves - 1).is_some())
        .then_some(board)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Censuses summed as they come (a binary counter's merges) give what adding them up
        /// one after the other gives, whatever their number.
        #[test]
        fn a_tally_sums_as_one_sum_would(
            parts in proptest::collection::vec(
                (0u64..5, proptest::collection::vec(0u64..3, 0..4),
                 proptest::collection::vec((0u32..4, "[AB.]{3}"), 0..4)),
                0..20,
            ),
        ) {
            let censuses: Vec<Census> = parts
                .into_iter()
                .map(|(clusters, by_moves, puzzles)| {
                    let mut puzzles: Vec<Puzzle> = puzzles
                        .into_iter()
                        .map(|(moves, board)| Puzzle { moves, board, cluster_size: 1 })
                        .collect();
                    puzzles.sort_by(database_order);
                    Census {
                        classes: 1,
                        clusters,
                        clusters_by_moves: by_moves,
                        puzzles,
                        ..Census::default()
                    }
                })
                .collect();
            let plain = censuses.iter().cloned().fold(Census::default(), Census::absorb);
            let mut tally = Tally::default();
            for census in censuses {
                tally.push(census);
            }
            let summed = tally.total();
            prop_assert_eq!(&summed.puzzles, &plain.puzzles);
            prop_assert_eq!(summed, plain);
        }

        /// Merging two lists gives what sorting them one after the other gives (a stable
        /// sort: `a`'s first among equals), sorted or not.
        #[test]
        fn merging_puzzle_lists_is_sorting_them_together(
            a in proptest::collection::vec((0u32..4, "[AB.]{2}", 0u64..3), 0..12),
            b in proptest::collection::vec((0u32..4, "[AB.]{2}", 0u64..3), 0..12),
            sort_a: bool,
        ) {
            let rows = |v: Vec<(u32, String, u64)>| -> Vec<Puzzle> {
                v.into_iter()
                    .map(|(moves, board, cluster_size)| Puzzle { moves, board, cluster_size })
                    .collect()
            };
            let (mut a, b) = (rows(a), rows(b));
            if sort_a {
                a.sort_by(database_order);
            }
            // What the merge did before: both lists one after the other, sorted (stably).
            let mut plain = a.clone();
            plain.extend(b.clone());
            plain.sort_by(database_order);
            prop_assert_eq!(merge_sorted(a, b), plain);
        }
    }

    /// Every `every`-th class of the `n × n` universe with at most `walls` walls.
    fn sample(n: usize, walls: usize, every: usize) -> (Universe, Vec<usize>) {
        let u = Universe::new(n, walls).unwrap();
        let units = (0..u.units()).step_by(every).collect();
        (u, units)
    }

    #[test]
    fn blocks_are_what_vertical_moves_connect_and_horizontal_moves_join() {
        for (n, walls, every) in [(4, 2, 5), (5, 1, 61)] {
            let (u, units) = sample(n, walls, every);
            for k in units {
                let class = u.class(&u.units[k]);
                let (len, blocks) = (class.len() as usize, class.blocks() as usize);
                // The layouts vertical moves connect, by a union-find over layouts.
                let mut vertical: Vec<u32> = (0..len as u32).collect();
                let mut joined: Vec<u32> = (0..blocks as u32).collect();
                class.for_each_block_move(|a, b| {
                    let (a, b) = (root(&mut joined, a), root(&mut joined, b));
                    joined[a.max(b) as usize] = a.min(b);
                });
                let mut sizes = vec![0u64; blocks];
                for s in 0..len as u32 {
                    let state = class.decode(s);
                    let b = class.block(&state);
                    sizes[b as usize] += 1;
                    class.for_each_neighbor(&state, s, |t, next, piece| {
                        let c = class.block(next);
                        if piece >= 32 {
                            // A vertical move stays in its block.
                            assert_eq!(c, b, "class {k}, layout {s}");
                            let (x, y) = (root(&mut vertical, s), root(&mut vertical, t));
                            vertical[x.max(y) as usize] = x.min(y);
                        } else {
                            // A horizontal move joins blocks the block moves join.
                            assert_eq!(root(&mut joined, b), root(&mut joined, c), "class {k}");
                        }
                    });
                }
                let mut expected = Vec::new();
                class.for_each_block(|size, _| expected.push(size));
                assert_eq!(sizes, expected, "class {k}: each block's layouts");
                let mut products = Vec::new();
                class.block_sizes(&mut products);
                let products: Vec<u64> = products.into_iter().map(u64::from).collect();
                assert_eq!(products, expected, "class {k}: the block sizes as products");
                // Each block is one set of layouts connected by vertical moves.
                let sets = (0..len as u32)
                    .filter(|&s| root(&mut vertical, s) == s)
                    .count();
                assert_eq!(sets, blocks, "class {k}");
            }
        }
    }

    /// A class ranked with each of its columns last has the same census: the ranking order
    /// decides nothing, not even which of two layouts alike but for their columns' pieces is a
    /// cluster's puzzle.
    #[test]
    fn the_census_is_the_same_whatever_column_is_ranked_last() {
        for (n, walls, every) in [(4, 2, 7), (5, 1, 37), (5, 2, 401)] {
            let (u, units) = sample(n, walls, every);
            let mut chosen = vec![0; n];
            for k in units {
                let unit = &u.units[k];
                let mirror_too = u.searched(k) == Some(true);
                let census = |class: &Class<'_>| {
                    let mut out = Census::default();
                    census_class(class, &mut Scratch::default(), &mut out, mirror_too).unwrap();
                    out
                };
                let first = census(&u.class_ranked_with(unit, Some(0)));
                for last in 1..n {
                    let class = u.class_ranked_with(unit, Some(last));
                    assert_eq!(census(&class), first, "class {k}, column {last} last");
                }
                let class = u.class(unit);
                chosen[class.order[n - 1] as usize] += 1;
                assert_eq!(census(&class), first, "class {k}");
            }
            // The sample ranks more than one column last (the test compares real choices).
            assert!(
                chosen.iter().filter(|&&x| x > 0).count() > 1,
                "{n} x {n}: {chosen:?}"
            );
        }
    }

    /// With any column ranked last, a layout's index with the columns ranked left to right is
    /// its index in the class ranked that way (the rightmost column last).
    #[test]
    fn the_board_order_index_is_the_index_ranked_left_to_right() {
        for (n, walls, every) in [(4, 2, 11), (5, 1, 97), (6, 2, 99_991)] {
            let (u, units) = sample(n, walls, every);
            for k in units.into_iter().filter(|&k| u.unit_layouts(k) <= 50_000) {
                let unit = &u.units[k];
                let plain = u.class_ranked_with(unit, Some(n - 1));
                let index: std::collections::HashMap<String, u64> = (0..plain.len() as u32)
                    .map(|s| (plain.board(&plain.decode(s)).0.to_string(), s as u64))
                    .collect();
                for last in 0..n {
                    let class = u.class_ranked_with(unit, Some(last));
                    for s in 0..class.len() as u32 {
                        let board = class.board(&class.decode(s)).0.to_string();
                        assert_eq!(
                            class.board_order_index(s),
                            index[&board],
                            "class {k}, column {last} last, {board}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_search_gives_every_layout_its_distance() {
        for (n, walls, every) in [(4, 2, 3), (5, 0, 7), (6, 0, 997)] {
            let (u, units) = sample(n, walls, every);
            for k in units {
                let class = u.class(&u.units[k]);
                let len = class.len() as usize;
                // A plain breadth-first search from the goals over the class's moves.
                let mut plain = vec![UNREACHED; len];
                let mut queue = std::collections::VecDeque::new();
                for g in class.goal_combos() {
                    for s in class.combo_layouts(g as usize) {
                        plain[s] = 0;
                        queue.push_back(s as u32);
                    }
                }
                while let Some(s) = queue.pop_front() {
                    let d = plain[s as usize];
                    class.for_each_neighbor(&class.decode(s), s, |t, _, _| {
                        if plain[t as usize] == UNREACHED {
                            plain[t as usize] = d + 1;
                            queue.push_back(t);
                        }
                    });
                }
                let reached = plain.iter().filter(|&&d| d != UNREACHED).count() as u64;
                // Each block's largest distance (a block is reached whole or not at all).
                let mut largest = vec![0u8; class.blocks() as usize];
                for (s, &d) in plain.iter().enumerate() {
                    let b = class.block(&class.decode(s as u32)) as usize;
                    largest[b] = largest[b].max(d);
                }
                // The search given every block's size, then with the blocks out of reach
                // given as empty (as the census gives them): the same distances.
                let mut sizes = Vec::new();
                class.block_sizes(&mut sizes);
                let in_reach: Vec<u32> = sizes
                    .iter()
                    .zip(&largest)
                    .map(|(&size, &d)| if d == UNREACHED { 0 } else { size })
                    .collect();
                let mut bits = class::Bits::default();
                for sizes in [&sizes, &in_reach] {
                    let (mut dist, mut farthest) = (Vec::new(), Vec::new());
                    let levels = class
                        .goal_distances(sizes, &mut dist, &mut bits, &mut farthest)
                        .unwrap();
                    assert_eq!(dist, plain, "class {k}");
                    assert_eq!(levels.iter().sum::<u64>(), reached, "class {k}");
                    assert_eq!(farthest, largest, "class {k}");
                }
            }
        }
    }
}
