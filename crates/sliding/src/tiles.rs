//! The sliding tiles as a ranked space: a dense perfect ranking of the positions of `n − 1`
//! labeled 1×1 tiles and one blank on a full rectangle of `n` cells (the 8-, 11- and 15-puzzle
//! family), so a position's index is computed, never searched for.
//!
//! Read the tiles in row-major order, skipping the blank: a permutation `σ` of the `m = n − 1`
//! tiles. A horizontal move leaves `σ` unchanged; a vertical one carries a tile past the `w − 1`
//! tiles between, which changes `σ`'s parity exactly when the width `w` is even. So `parity(σ)`,
//! plus the blank's row when `w` is even, is the same in every reachable position, and on a board
//! of at least 2×2 every position with the start's value is reachable (Johnson & Story, 1879):
//! `n!/2` positions, for each of the `n` blank cells the `m!/2` permutations of one parity.
//!
//! The rank is `blank · m!/2 + r`, where `r` reads the first `m − 2` Lehmer digits of `σ`
//! (`c_k` = how many later tiles are smaller than `σ_k`, at most `m − 1 − k`) as a mixed-radix
//! number with place values `(m − 1 − k)!/2`; the last two digits follow from the parity (their
//! sum with the others has the reachable parity, and the last is always 0). Ranking and unranking
//! take `O(m)` steps on bit masks, and a move's neighbour is re-ranked from its swapped cells.
//!
//! Codes are ranks, so the state table is the identity and sorted by code; [`Tiles::to_sliding`]
//! and [`Tiles::from_sliding`] convert to and from the [`SlidingPuzzle`]'s own codes, through
//! which positions are written, read and drawn.

use huarong_core::indexed::{CodeOf, Lookup};
use huarong_core::{
    BlockShifts, DistanceSources, Fingerprint, IndexedMoves, Puzzle, Ranking, Shift,
};

use crate::{METRICS, SlidingPuzzle};

/// No tile: the blank.
const BLANK: u8 = u8::MAX;
/// Most cells whose `n!/2` positions still fit a `u32` dense index (13!/2 = 3,113,510,400).
const MAX_CELLS: usize = 13;
/// Version of this ranking (part of every fingerprint).
const RANKING_VERSION: u64 = 1;
/// The fewest consecutive ranks a vertical move carries together for it to be taken a range at
/// a time ([`Tiles::block_shifts`]) rather than state by state.
const MIN_RANGE: u32 = 256;

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct Tiles {
    puzzle: SlidingPuzzle,
    cols: usize,
    /// Cells (`n`); tiles are `n − 1`.
    n: usize,
    /// Positions per blank cell: `(n − 1)!/2`.
    per_blank: u64,
    /// Place value of Lehmer digit `k`, for `k < n − 3`: `(n − 2 − k)!/2` (below `per_blank`,
    /// which is below 2^32: the digits are read with 32-bit divisions).
    weights: Vec<u32>,
    /// The same place values as divisors (a multiplication instead of a division), and
    /// `per_blank`'s.
    digit_divisors: Vec<Divisor>,
    blank_divisor: Divisor,
    /// The reachable parity of `σ` with the blank in row 0.
    parity: u8,
    /// The cell of each candidate of tile `k` (`cell_of[k][j]`) and back (`candidate_of[k][c]`).
    cell_of: Vec<Vec<u8>>,
    candidate_of: Vec<Vec<u8>>,
    /// Where the goal wants each tile, if anywhere.
    goal: Vec<Option<u8>>,
    /// When the goal places every tile, the one position it is: `Some(Some(code))`, or
    /// `Some(None)` when that position is in the other half (no goal is reachable).
    single_goal: Option<Option<u64>>,
    /// Whether the graph stage stores the moves ([`Tiles::storing_graph`]; off by default).
    store_graph: bool,
    /// Per blank cell, its moves in [`Tiles::next_to`]'s order (every position's degree is its
    /// blank cell's count): the cell the blank moves to, and whether the move is one of
    /// [`Tiles::block_shifts`].
    moves: Vec<Vec<(u8, bool)>>,
    /// Per blank cell, whether every move is one of the block shifts (no move is left to
    /// generate state by state).
    all_ranged: Vec<bool>,
}

/// The position of the `k`-th lowest set bit of `mask` (`pdep` where the CPU has BMI2).
#[inline]
pub(crate) fn select(mask: u32, k: u32) -> u8 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2 (checked just above).
        return unsafe { std::arch::x86_64::_pdep_u32(1 << k, mask) }.trailing_zeros() as u8;
    }
    select_portable(mask, k)
}

/// [`select`] over 64 cells.
#[inline]
pub(crate) fn select64(mask: u64, k: u32) -> u8 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2 (checked just above).
        return unsafe { std::arch::x86_64::_pdep_u64(1 << k, mask) }.trailing_zeros() as u8;
    }
    let mut rest = mask;
    for _ in 0..k {
        rest &= rest - 1;
    }
    rest.trailing_zeros() as u8
}

/// Division of 32-bit numbers by a fixed divisor as a multiplication (Lemire, Kaser & Kurz,
/// "Faster remainder by direct computation", 2019: `⌊n/d⌋ = ⌊c·n / 2^64⌋` with `c = ⌈2^64/d⌉`,
/// exact for every 32-bit `n` and `d ≥ 2`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Divisor {
    d: u32,
    c: u64,
}

impl Divisor {
    pub(crate) fn new(d: u32) -> Divisor {
        assert!(d >= 1, "a divisor is positive");
        // d = 1 keeps c = 0 and divides by itself.
        let c = if d == 1 { 0 } else { u64::MAX / d as u64 + 1 };
        Divisor { d, c }
    }

    /// `(n / d, n % d)`.
    #[inline]
    pub(crate) fn div_rem(self, n: u32) -> (u32, u32) {
        if self.c == 0 {
            return (n, 0);
        }
        let q = ((self.c as u128 * n as u128) >> 64) as u32;
        (q, n - q * self.d)
    }
}

/// [`select`] by `pdep` when `PDEP` (the caller is compiled for BMI2), else
/// [`select_portable`].
#[inline(always)]
fn select_with<const PDEP: bool>(mask: u32, k: u32) -> u8 {
    #[cfg(target_arch = "x86_64")]
    if PDEP {
        // SAFETY: `PDEP` is set only in code compiled for BMI2, run where the CPU has it.
        return unsafe { std::arch::x86_64::_pdep_u32(1 << k, mask) }.trailing_zeros() as u8;
    }
    select_portable(mask, k)
}

/// [`select`] clearing the lowest set bit `k` times.
fn select_portable(mask: u32, k: u32) -> u8 {
    let mut rest = mask;
    for _ in 0..k {
        rest &= rest - 1;
    }
    rest.trailing_zeros() as u8
}

/// The number of positions of `puzzle` if it is a sliding-tiles puzzle of any size (every
/// piece 1×1 and told apart, one blank, no walls, at least 2×2): n!/2 for n cells, `u64::MAX`
/// when that does not fit. `None` for any other puzzle.
pub fn count(puzzle: &SlidingPuzzle) -> Option<u64> {
    let l = &puzzle.layout;
    let n = l.rows * l.cols;
    let tiles_only = l
        .classes
        .iter()
        .all(|c| c.len() == 1 && c.shape.cells.len() == 1 && c.masks.len() == n);
    if l.walls != 0 || l.rows < 2 || l.cols < 2 || l.pieces + 1 != n || !tiles_only {
        return None;
    }
    let full = (1..=n as u64).try_fold(1u64, |acc, k| acc.checked_mul(k));
    Some(full.map_or(u64::MAX, |f| f / 2))
}

/// For a sliding-tiles puzzle (see [`count`]) whose goal places every tile: whether the
/// position `code` can reach it at all. The moves keep an invariant — the parity of the tiles'
/// order (row-major, the blank left out), plus on even widths the blank's row — and two
/// positions with the same invariant reach each other, so this answers at once what no search
/// of the 10^13 fifteen-puzzle positions could. `None`: not tiles, or a goal that leaves a
/// tile free (its positions then have either parity).
pub fn reaches_goal(puzzle: &SlidingPuzzle, code: u64) -> Option<bool> {
    count(puzzle)?;
    let l = &puzzle.layout;
    let mut goal = vec![None; l.classes.len()];
    for &(class, candidate) in &puzzle.goal {
        goal[class] = Some(candidate);
    }
    let goal: Vec<u8> = goal.into_iter().collect::<Option<_>>()?;
    Some(invariant(puzzle, &puzzle.places(code)) == invariant(puzzle, &goal))
}

/// The tiles' order parity, plus the blank's row on even widths, of a position given as every
/// tile's candidate (each class is one tile; its candidates are the cells in reading order).
fn invariant(puzzle: &SlidingPuzzle, places: &[u8]) -> usize {
    let l = &puzzle.layout;
    let n = l.rows * l.cols;
    let mut board = vec![usize::MAX; n];
    for (tile, class) in l.classes.iter().enumerate() {
        let cell = class.masks[places[class.offset] as usize].trailing_zeros() as usize;
        board[cell] = tile;
    }
    let blank = board
        .iter()
        .position(|&t| t == usize::MAX)
        .expect("one cell is blank");
    let order: Vec<usize> = board.into_iter().filter(|&t| t != usize::MAX).collect();
    let inversions: usize = (0..order.len())
        .map(|i| order[i + 1..].iter().filter(|&&t| t < order[i]).count())
        .sum();
    let row = if l.cols.is_multiple_of(2) {
        blank / l.cols
    } else {
        0
    };
    (inversions + row) % 2
}

impl Tiles {
    /// The ranked space of `puzzle` when it is a sliding-tiles puzzle: every piece 1×1 and told
    /// apart, one blank, no walls, at least 2×2 and at most 13 cells; `None` otherwise.
    pub fn new(puzzle: &SlidingPuzzle) -> Option<Tiles> {
        let l = &puzzle.layout;
        let n = l.rows * l.cols;
        // Sliding tiles (`count` says which puzzles are), small enough to rank.
        count(puzzle)?;
        if n > MAX_CELLS {
            return None;
        }
        let m = n - 1;
        let fact = |k: usize| (1..=k as u64).product::<u64>();
        let cell_of: Vec<Vec<u8>> = l
            .classes
            .iter()
            .map(|c| c.masks.iter().map(|m| m.trailing_zeros() as u8).collect())
            .collect();
        let candidate_of = cell_of
            .iter()
            .map(|cells| {
                let mut back = vec![0u8; n];
                for (j, &c) in cells.iter().enumerate() {
                    back[c as usize] = j as u8;
                }
                back
            })
            .collect();
        let mut goal = vec![None; m];
        for &(k, j) in &puzzle.goal {
            goal[k] = Some(cell_of[k][j as usize]);
        }
        let weights: Vec<u32> = (0..m - 2).map(|k| (fact(m - 1 - k) / 2) as u32).collect();
        let mut tiles = Tiles {
            puzzle: puzzle.clone(),
            cols: l.cols,
            n,
            per_blank: fact(m) / 2,
            digit_divisors: weights.iter().map(|&w| Divisor::new(w)).collect(),
            blank_divisor: Divisor::new((fact(m) / 2) as u32),
            weights,
            parity: 0,
            cell_of,
            candidate_of,
            single_goal: None,
            goal,
            store_graph: false,
            moves: Vec::new(),
            all_ranged: Vec::new(),
        };
        tiles.moves = (0..n)
            .map(|b| {
                let moves = tiles.next_to(b).map(|x| (x as u8, tiles.ranged(b, x)));
                moves.collect()
            })
            .collect();
        tiles.all_ranged = tiles
            .moves
            .iter()
            .map(|m| m.iter().all(|&(_, r)| r))
            .collect();
        let cells = tiles.cells_of_sliding(puzzle.start);
        let blank = cells.iter().position(|&t| t == BLANK)?;
        let (digits, _) = tiles.lehmer(&cells[..n], blank);
        let sigma = digits.iter().map(|&d| d as u32).sum::<u32>() as u8 & 1;
        tiles.parity = sigma ^ tiles.row_parity(blank);
        if tiles.goal.iter().all(Option::is_some) {
            let mut cells = [BLANK; MAX_CELLS];
            for (t, &c) in tiles.goal.iter().enumerate() {
                cells[c? as usize] = t as u8;
            }
            let code = tiles.rank_cells(&cells[..n]);
            // A placement of the other half ranks onto one of this half: unranking tells.
            tiles.single_goal = Some((tiles.cells(code).0 == cells).then_some(code));
        }
        Some(tiles)
    }

    /// This space with its move graph stored by the graph stage (as every other puzzle's is)
    /// instead of regenerated by the later stages: the same components and distances, for
    /// comparing the two ways.
    pub fn storing_graph(mut self) -> Tiles {
        self.store_graph = true;
        self
    }

    /// The puzzle this space ranks.
    pub fn puzzle(&self) -> &SlidingPuzzle {
        &self.puzzle
    }

    /// 1 when the blank's row changes the reachable parity (even widths, odd rows).
    fn row_parity(&self, blank: usize) -> u8 {
        (self.cols.is_multiple_of(2) && (blank / self.cols) % 2 == 1) as u8
    }

    /// The Lehmer digits of the tiles read in row-major order without the blank, and the
    /// reachable-half rank they give.
    fn lehmer(&self, cells: &[u8], blank: usize) -> ([u8; MAX_CELLS], u64) {
        let mut digits = [0u8; MAX_CELLS];
        let mut left = (1u32 << (self.n - 1)) - 1;
        let mut rank = 0u64;
        let mut k = 0;
        for (c, &t) in cells.iter().enumerate() {
            if c == blank {
                continue;
            }
            let d = (left & ((1u32 << t) - 1)).count_ones() as u8;
            left &= !(1 << t);
            if k < self.weights.len() {
                rank += d as u64 * self.weights[k] as u64;
            }
            digits[k] = d;
            k += 1;
        }
        (digits, rank)
    }

    /// The rank of a position given as the tile in every cell ([`BLANK`] for the blank).
    pub fn rank_cells(&self, cells: &[u8]) -> u64 {
        let blank = cells.iter().position(|&t| t == BLANK).expect("one blank");
        let (_, r) = self.lehmer(cells, blank);
        blank as u64 * self.per_blank + r
    }

    /// The tile in every cell of the position ranked `code` ([`BLANK`] for the blank); the
    /// blank's cell.
    pub fn cells(&self, code: u64) -> ([u8; MAX_CELLS], usize) {
        let m = self.n - 1;
        // Codes are below 13!/2 < 2^32.
        let (blank, mut r) = self.blank_divisor.div_rem(code as u32);
        let blank = blank as usize;
        let mut digits = [0u8; MAX_CELLS];
        let mut sum = 0u8;
        for (k, &w) in self.digit_divisors.iter().enumerate() {
            let (q, rest) = w.div_rem(r);
            digits[k] = q as u8;
            r = rest;
            sum ^= digits[k] & 1;
        }
        // The second-to-last digit sets the parity; the last is 0.
        digits[m - 2] = (self.parity ^ self.row_parity(blank)) ^ sum;
        let mut cells = [BLANK; MAX_CELLS];
        let mut left = (1u32 << m) - 1;
        let mut k = 0;
        for (c, cell) in cells.iter_mut().enumerate().take(self.n) {
            if c == blank {
                continue;
            }
            // The digits[k]-th smallest tile still left.
            let t = select(left, digits[k] as u32);
            left &= !(1 << t);
            *cell = t;
            k += 1;
        }
        (cells, blank)
    }

    /// The cells next to `cell` (up, down, left, right where on the board).
    fn next_to(&self, cell: usize) -> impl Iterator<Item = usize> + '_ {
        let (r, c) = (cell / self.cols, cell % self.cols);
        let rows = self.n / self.cols;
        [
            (r > 0).then(|| cell - self.cols),
            (r + 1 < rows).then(|| cell + self.cols),
            (c > 0).then(|| cell - 1),
            (c + 1 < self.cols).then(|| cell + 1),
        ]
        .into_iter()
        .flatten()
    }

    /// Whether the move of the blank from cell `b` to cell `x` beside it carries whole ranges of
    /// consecutive ranks onto ranges ([`Tiles::block_shifts`]): a horizontal move (it keeps
    /// `σ`), and a vertical one whose window of Lehmer digits (the `w` from the upper cell's)
    /// ends at a digit of place value at least [`MIN_RANGE`]: the digits after it, the same
    /// before and after the move, count through that many ranks.
    fn ranged(&self, b: usize, x: usize) -> bool {
        let end = b.min(x) + self.cols - 1;
        b.abs_diff(x) == 1 || self.weights.get(end).is_some_and(|&w| w >= MIN_RANGE)
    }

    /// The ranks one move from `code`: the blank swapped with each tile beside it (up, down,
    /// left, right). A horizontal move keeps the tile order `σ`, so its rank differs by one
    /// blank cell's worth of positions; a vertical one re-ranks `σ` only where the moved tile
    /// passes: the `w` places from the upper cell's on, before and after the move.
    fn each_successor(&self, code: u64, mut f: impl FnMut(u64)) {
        // Every board has at least two rows: some move is vertical.
        let (mut cells, blank) = self.cells(code);
        let base = code % self.per_blank;
        for x in self.next_to(blank) {
            if x.abs_diff(blank) == 1 {
                f(x as u64 * self.per_blank + base);
                continue;
            }
            let lo = blank.min(x);
            let left = self.left_at(&cells, lo);
            let before = self.lehmer_window(&cells, lo, blank, left);
            cells.swap(blank, x);
            let after = self.lehmer_window(&cells, lo, x, left);
            cells.swap(blank, x);
            f(x as u64 * self.per_blank + base + after - before);
        }
    }

    /// The tiles not in the cells before `lo`.
    fn left_at(&self, cells: &[u8; MAX_CELLS], lo: usize) -> u32 {
        let mut left = (1u32 << (self.n - 1)) - 1;
        for &t in &cells[..lo] {
            left &= !(1u32 << t);
        }
        left
    }

    /// [`Tiles::each_successor`] of every code of `codes` (increasing), decoding each only from
    /// the first Lehmer digit where it differs from the one before ([`Decoder`]): consecutive
    /// states of a dense frontier share the blank and most digits. `all`: the moves of
    /// [`Tiles::block_shifts`] too (else a position with only those is not even decoded).
    fn each_successor_of(&self, codes: &[u32], all: bool, f: impl FnMut(u32, u64)) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has BMI1, BMI2 and POPCNT (checked just above).
            return unsafe { self.each_successor_of_bmi2(codes, all, f) };
        }
        self.successors_of::<false>(codes, all, f)
    }

    /// [`Tiles::each_successor_of`] compiled for BMI2 (and BMI1, POPCNT), so that `pdep`
    /// ([`select_with`]) is inlined rather than called behind a feature test at every digit,
    /// and the Lehmer digits' bit counts are one instruction each.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2,popcnt")]
    fn each_successor_of_bmi2(&self, codes: &[u32], all: bool, f: impl FnMut(u32, u64)) {
        self.successors_of::<true>(codes, all, f)
    }

    /// [`Tiles::each_successor_of`], the `k`-th set bit found by `pdep` when `PDEP`.
    #[inline(always)]
    fn successors_of<const PDEP: bool>(
        &self,
        codes: &[u32],
        all: bool,
        mut f: impl FnMut(u32, u64),
    ) {
        let mut d = Decoder::new(self.n);
        let skip = !all && self.all_ranged.contains(&true);
        for &code in codes {
            if skip && self.all_ranged[self.blank_divisor.div_rem(code).0 as usize] {
                continue;
            }
            d.decode::<PDEP>(self, code);
            let (blank, base) = (d.blank, d.rank);
            for &(x, ranged) in &self.moves[blank] {
                let x = x as usize;
                if ranged && !all {
                    continue;
                }
                if x.abs_diff(blank) == 1 {
                    f(code, x as u64 * self.per_blank + base);
                    continue;
                }
                let lo = blank.min(x);
                let end = (lo + self.cols).min(self.weights.len());
                let before: u64 = (lo..end)
                    .map(|k| d.digits[k] as u64 * self.weights[k] as u64)
                    .sum();
                let mut cells = d.cells;
                cells.swap(blank, x);
                let after = self.lehmer_window(&cells, lo, x, d.left[lo]);
                f(code, x as u64 * self.per_blank + base + after - before);
            }
        }
    }

    /// What the `w` places of `σ` from the cell `lo` on (the row's worth of cells from `lo`, the
    /// blank at `blank` among or after them) add to the rank: their Lehmer digits times their
    /// place values. Tiles before `lo` are the same before and after a vertical move through
    /// `lo`, so the smaller tiles after each place are read from the set of tiles left at `lo`.
    #[inline]
    fn lehmer_window(&self, cells: &[u8; MAX_CELLS], lo: usize, blank: usize, left: u32) -> u64 {
        let mut left = left;
        let mut sum = 0u64;
        // Cells lo.. up to the one after the window's last place (the blank is skipped).
        let mut k = lo;
        for (c, &t) in cells[..self.n].iter().enumerate().skip(lo) {
            if c == blank {
                continue;
            }
            if k >= lo + self.cols || k >= self.weights.len() {
                break;
            }
            let d = (left & ((1u32 << t) - 1)).count_ones();
            left &= !(1u32 << t);
            sum += d as u64 * self.weights[k] as u64;
            k += 1;
        }
        sum
    }

    fn cells_of_sliding(&self, code: u64) -> [u8; MAX_CELLS] {
        let places = self.puzzle.places(code);
        let mut cells = [BLANK; MAX_CELLS];
        for (k, &j) in places.iter().enumerate() {
            cells[self.cell_of[k][j as usize] as usize] = k as u8;
        }
        cells
    }

    /// The [`SlidingPuzzle`]'s code of the position ranked `code`.
    pub fn to_sliding(&self, code: u64) -> u64 {
        let (cells, _) = self.cells(code);
        let mut places = vec![0u8; self.n - 1];
        for (c, &t) in cells[..self.n].iter().enumerate() {
            if t != BLANK {
                places[t as usize] = self.candidate_of[t as usize][c];
            }
        }
        self.puzzle.layout.encode(&places)
    }

    /// The rank of the position the [`SlidingPuzzle`] codes `code`, if it is reachable.
    pub fn from_sliding(&self, code: u64) -> Option<u64> {
        let cells = self.cells_of_sliding(code);
        let rank = self.rank_cells(&cells[..self.n]);
        // The other half of the positions ranks onto this half: check by unranking.
        (self.cells(rank).0 == cells).then_some(rank)
    }
}

/// The largest step from one code to the next that [`Decoder::decode`] takes by carrying digits
/// rather than dividing the code afresh.
const ODOMETER_GAP: u32 = 64;

/// The decoding of the last rank [`Tiles::each_successor_of`] saw, kept to decode the next
/// one from the first digit where the two differ.
struct Decoder {
    /// The blank's cell (`usize::MAX` before the first rank) and the rank within its block.
    blank: usize,
    rank: u64,
    /// The code decoded last.
    code: u32,
    /// The Lehmer digits (the last two as the parity fixes them).
    digits: [u8; MAX_CELLS],
    cells: [u8; MAX_CELLS],
    /// `left[k]`: the tiles not placed by the digits before `k`.
    left: [u32; MAX_CELLS + 1],
}

impl Decoder {
    fn new(n: usize) -> Self {
        let mut left = [0u32; MAX_CELLS + 1];
        left[0] = (1u32 << (n - 1)) - 1;
        Decoder {
            blank: usize::MAX,
            rank: 0,
            code: 0,
            digits: [0; MAX_CELLS],
            cells: [BLANK; MAX_CELLS],
            left,
        }
    }

    /// Decodes `code` as [`Tiles::cells`] does, from the first digit that changed. (The digits
    /// are read here as `cells` reads them, not through a shared helper: one measured 1.3 s
    /// slower on the eleven puzzle's search.)
    #[inline(always)]
    fn decode<const PDEP: bool>(&mut self, t: &Tiles, code: u32) {
        let m = t.n - 1;
        let gap = code.wrapping_sub(self.code);
        let (blank, rank, mut digits);
        // The first digit that may differ from the last code's (every one when the blank moved).
        let mut from = 0;
        if self.blank != usize::MAX
            && code > self.code
            && gap <= ODOMETER_GAP
            && self.rank + (gap as u64) < t.per_blank
        {
            // A code a little after the last one, with the blank in the same cell: its digits
            // are the last ones plus the gap, carried from the lowest (digit k counts 0..m−k).
            (blank, rank, digits) = (self.blank, self.rank + gap as u64, self.digits);
            let mut carry = gap;
            let mut k = m - 3;
            loop {
                let radix = (m - k) as u32;
                let v = digits[k] as u32 + carry;
                if v < radix {
                    digits[k] = v as u8;
                    break;
                }
                // Mostly a carry of one (consecutive codes): no division.
                carry = if v < 2 * radix { 1 } else { v / radix };
                digits[k] = (v - carry * radix) as u8;
                // The rank stays below the block's size, so the highest digit takes the rest.
                k -= 1;
            }
            // The digits before `k` kept their values (the parity digit comes after it).
            from = k;
        } else {
            let (b, mut r) = t.blank_divisor.div_rem(code);
            (blank, rank, digits) = (b as usize, r as u64, [0u8; MAX_CELLS]);
            for (k, &w) in t.digit_divisors.iter().enumerate() {
                let (q, rest) = w.div_rem(r);
                digits[k] = q as u8;
                r = rest;
            }
        }
        // The second-to-last digit sets the parity; the last is 0.
        let sum = digits[..m - 2].iter().fold(0u8, |s, &d| s ^ (d & 1));
        digits[m - 2] = (t.parity ^ t.row_parity(blank)) ^ sum;
        if blank != self.blank {
            self.cells = [BLANK; MAX_CELLS];
        } else if from == 0 {
            from = (0..m).find(|&k| digits[k] != self.digits[k]).unwrap_or(m);
        }
        for (k, &digit) in digits.iter().enumerate().take(m).skip(from) {
            let tile = select_with::<PDEP>(self.left[k], digit as u32);
            self.left[k + 1] = self.left[k] & !(1 << tile);
            self.cells[k + (k >= blank) as usize] = tile;
        }
        self.blank = blank;
        self.rank = rank;
        self.code = code;
        self.digits = digits;
    }
}

impl Puzzle for Tiles {
    fn name(&self) -> &'static str {
        "sliding"
    }

    fn space_id(&self) -> String {
        self.puzzle.space_id()
    }

    /// The puzzle's own parameters, this ranking's version and the half of the positions it
    /// ranks (the board's parity class: boards in the other half are another space).
    fn parameters(&self, key: &mut Fingerprint) {
        self.puzzle.parameters(key);
        key.add_str("tiles")
            .add_u64(RANKING_VERSION)
            .add_u64(self.parity as u64);
    }

    fn metrics(&self) -> &'static [&'static str] {
        &METRICS
    }

    fn ranking(&self) -> Option<&dyn Ranking> {
        Some(self)
    }

    fn starts(&self) -> Vec<u64> {
        self.from_sliding(self.puzzle.start).into_iter().collect()
    }

    /// One blank: a tile moves one cell in every metric (it cannot slide past the blank, nor
    /// reach another cell), so the three metrics have the same moves.
    fn successors(&self, code: u64, _metric: usize, out: &mut Vec<u64>) {
        self.each_successor(code, |s| out.push(s));
    }

    /// A move's rank costs a few operations on the unranked cells (horizontal moves none at
    /// all), less than writing and reading back a stored arc: not stored unless asked
    /// ([`Tiles::storing_graph`]).
    fn stores_graph(&self) -> bool {
        self.store_graph
    }

    fn is_goal(&self, code: u64) -> bool {
        // A goal placing every tile is one position, known by its rank.
        if let Some(goal) = self.single_goal {
            return goal == Some(code);
        }
        let (cells, _) = self.cells(code);
        self.goal
            .iter()
            .enumerate()
            .all(|(t, want)| want.is_none_or(|c| cells[c as usize] == t as u8))
    }

    fn goal_codes(&self) -> Option<Vec<u64>> {
        self.single_goal.map(|goal| goal.into_iter().collect())
    }

    fn render(&self, code: u64) -> String {
        self.puzzle.render(self.to_sliding(code))
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        let code = self.puzzle.parse(text)?;
        self.from_sliding(code)
            .ok_or_else(|| "not reachable from the board: two tiles are swapped".into())
    }

    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Goals
    }

    fn indexed_moves(&self) -> Option<&dyn IndexedMoves> {
        Some(self)
    }
}

impl IndexedMoves for Tiles {
    fn distinct_degree(&self, index: u64, _code: u64, _metric: usize) -> Option<usize> {
        // Indices are below 2^32 (13!/2 fits); the blank's cell by a multiplication.
        Some(self.moves[self.blank_divisor.div_rem(index as u32).0 as usize].len())
    }

    /// Every blank cell's block of positions has that cell's degree.
    fn degree_counts(&self, _metric: usize) -> Option<Vec<u64>> {
        let mut counts = vec![0u64; self.moves.iter().map(Vec::len).max()? + 1];
        for moves in &self.moves {
            counts[moves.len()] += self.per_blank;
        }
        Some(counts)
    }

    fn neighbor_indices(
        &self,
        _index: u64,
        code: u64,
        _metric: usize,
        _lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        self.each_successor(code, |s| out.push(s as u32));
    }

    /// A rank grows with the blank's cell: the moves up in the ranking are the blank's moves
    /// right and down (only the latter unranks).
    fn neighbor_indices_above(
        &self,
        _index: u64,
        code: u64,
        _metric: usize,
        _lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        let blank = (code / self.per_blank) as usize;
        if !(blank + 1).is_multiple_of(self.cols) {
            out.push((code + self.per_blank) as u32);
        }
        let x = blank + self.cols;
        if x < self.n {
            let (mut cells, _) = self.cells(code);
            let left = self.left_at(&cells, blank);
            let before = self.lehmer_window(&cells, blank, blank, left);
            cells.swap(blank, x);
            let after = self.lehmer_window(&cells, blank, x, left);
            let base = code % self.per_blank;
            out.push((x as u64 * self.per_blank + base + after - before) as u32);
        }
    }

    /// Consecutive frontier states decoded incrementally ([`Tiles::each_successor_of`]).
    fn each_neighbor_index(
        &self,
        indices: &[u32],
        _metric: usize,
        _code: &CodeOf<'_>,
        _lookup: &Lookup<'_>,
        f: &mut dyn FnMut(u32, u32),
    ) {
        self.each_successor_of(indices, true, |u, v| f(u, v as u32));
    }

    /// A horizontal move keeps the tiles' order: the blank's block `b` onto the block of the
    /// cell beside it, rank for rank. A vertical move changes only the `w` Lehmer digits of its
    /// window ([`Tiles::ranged`]): the ranks that share every digit up to the window's last
    /// move together, by the one difference of their ranks (found by moving the first of them).
    fn block_shifts(&self, _metric: usize) -> Option<BlockShifts> {
        let pb = self.per_blank;
        let mut shifts = Vec::new();
        for b in 0..self.n {
            for &(x, ranged) in &self.moves[b] {
                let x = x as usize;
                if !ranged {
                    continue;
                }
                if x.abs_diff(b) == 1 {
                    shifts.push(Shift {
                        from: b as u64 * pb,
                        to: x as u64 * pb,
                        len: pb,
                    });
                    continue;
                }
                // Every value of the digits up to the window's last, `end` (digit `k` runs
                // below `m − k`), as the first rank of its range.
                let end = b.min(x) + self.cols - 1;
                let len = self.weights[end] as u64;
                let mut digits = vec![0u32; end + 1];
                loop {
                    let rank: u64 = (0..=end)
                        .map(|k| digits[k] as u64 * self.weights[k] as u64)
                        .sum();
                    let from = b as u64 * pb + rank;
                    let mut to = None;
                    self.each_successor(from, |v| {
                        if v / pb == x as u64 {
                            to = Some(v);
                        }
                    });
                    let to = to.expect("the blank moves to x");
                    shifts.push(Shift { from, to, len });
                    // The next digits, the last fastest.
                    let mut k = end + 1;
                    loop {
                        if k == 0 {
                            break;
                        }
                        k -= 1;
                        digits[k] += 1;
                        if digits[k] < (self.n - 1 - k) as u32 {
                            break;
                        }
                        digits[k] = 0;
                    }
                    if digits.iter().all(|&d| d == 0) {
                        break;
                    }
                }
            }
        }
        Some(BlockShifts { shifts })
    }

    fn each_other_neighbor_index(
        &self,
        indices: &[u32],
        _metric: usize,
        _code: &CodeOf<'_>,
        _lookup: &Lookup<'_>,
        f: &mut dyn FnMut(u32, u32),
    ) {
        self.each_successor_of(indices, false, |u, v| f(u, v as u32));
    }
}

impl Ranking for Tiles {
    fn states(&self) -> u64 {
        self.n as u64 * self.per_blank
    }

    fn unrank(&self, index: u64) -> u64 {
        index
    }

    fn rank(&self, code: u64) -> Option<u64> {
        (code < self.n as u64 * self.per_blank).then_some(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The board of `rows × cols` tiles in reading order, the blank last.
    fn solved(rows: usize, cols: usize) -> String {
        let letters = "ABCDEFGHIJKL";
        let mut board = String::new();
        for r in 0..rows {
            for c in 0..cols {
                let i = r * cols + c;
                board.push(if i + 1 == rows * cols {
                    '.'
                } else {
                    letters.as_bytes()[i] as char
                });
            }
            board.push('\n');
        }
        board
    }

    fn tiles_to(board: &str, goal: &str) -> Tiles {
        let text = format!(
            "name = \"t\"\nboard = \"\"\"\n{board}\"\"\"\ngoal = \"\"\"\n{goal}\"\"\"\nlabeled = true\n"
        );
        let p = crate::parse(&text, "t").unwrap();
        Tiles::new(&p).expect("a tiles puzzle")
    }

    fn tiles(rows: usize, cols: usize) -> Tiles {
        let board = solved(rows, cols);
        tiles_to(&board, &board)
    }

    /// The goal test by rank agrees with the sliding model's on every ranked position: one goal
    /// when it is reachable, none when two tiles of it are swapped (the other half).
    #[test]
    fn goals_by_rank_are_the_models_goals() {
        for (rows, cols) in [(2, 2), (3, 3), (2, 4), (4, 2)] {
            let board = solved(rows, cols);
            let swapped = board
                .replacen('A', "#", 1)
                .replacen('B', "A", 1)
                .replacen('#', "B", 1);
            for (goal, goals) in [(&board, 1), (&swapped, 0)] {
                let t = tiles_to(&board, goal);
                let mut found = Vec::new();
                for code in 0..t.ranked_len().unwrap() {
                    let theirs = t.puzzle.is_goal(t.to_sliding(code));
                    assert_eq!(t.is_goal(code), theirs, "{rows}x{cols} {code}");
                    if theirs {
                        found.push(code);
                    }
                }
                assert_eq!(found.len(), goals, "{rows}x{cols} goal\n{goal}");
                assert_eq!(t.goal_codes(), Some(found), "{rows}x{cols} goal\n{goal}");
            }
        }
    }

    #[test]
    fn ranks_are_a_bijection_onto_half_the_positions() {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)] {
            let t = tiles(rows, cols);
            let len = t.ranked_len().unwrap();
            let n = (rows * cols) as u64;
            assert_eq!(len, (1..=n).product::<u64>() / 2);
            let mut seen = std::collections::HashSet::new();
            for code in 0..len {
                let (cells, _) = t.cells(code);
                assert_eq!(t.rank_cells(&cells[..t.n]), code, "{rows}x{cols} {code}");
                assert!(seen.insert(t.to_sliding(code)));
                assert_eq!(t.from_sliding(t.to_sliding(code)), Some(code));
            }
        }
    }

    /// The ranked positions are exactly those the sliding model reaches from the board
    /// (breadth-first over its own moves and codes), on boards of odd and even width.
    #[test]
    fn ranked_positions_are_the_reachable_ones() {
        for (rows, cols) in [(3, 3), (2, 4), (4, 2), (2, 5)] {
            let t = tiles(rows, cols);
            let mut seen = std::collections::HashSet::from([t.puzzle.start]);
            let mut queue = std::collections::VecDeque::from([t.puzzle.start]);
            let mut next = Vec::new();
            while let Some(c) = queue.pop_front() {
                next.clear();
                t.puzzle.successors(c, 0, &mut next);
                for &s in &next {
                    if seen.insert(s) {
                        queue.push_back(s);
                    }
                }
            }
            assert_eq!(seen.len() as u64, t.ranked_len().unwrap(), "{rows}x{cols}");
            assert!(seen.iter().all(|&c| t.from_sliding(c).is_some()));
        }
    }

    /// The parity invariant against breadth-first search: on boards of odd and even width,
    /// every one of the n! placements reaches the goal exactly when the search from the goal
    /// finds it.
    #[test]
    fn the_parity_says_which_positions_reach_the_goal() {
        for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)] {
            let t = tiles(rows, cols);
            let p = &t.puzzle;
            let mut seen = std::collections::HashSet::from([p.start]);
            let mut queue = std::collections::VecDeque::from([p.start]);
            let mut next = Vec::new();
            while let Some(c) = queue.pop_front() {
                next.clear();
                p.successors(c, 0, &mut next);
                queue.extend(next.iter().filter(|&&s| seen.insert(s)));
            }
            // Every placement of the tiles: the n − 1 tiles' cells, a permutation of n − 1 of
            // the n cells (Heap's algorithm over all n cells, the last one left blank).
            let n = rows * cols;
            let mut cells: Vec<u8> = (0..n as u8).collect();
            let (mut c, mut i, mut placements, mut reaching) = (vec![0usize; n], 0, 0u64, 0u64);
            let mut check = |cells: &[u8]| {
                let places = &cells[..n - 1];
                let code = p.layout.encode(places);
                let expect = seen.contains(&code);
                assert_eq!(
                    reaches_goal(p, code),
                    Some(expect),
                    "{rows}x{cols} {places:?}"
                );
                placements += 1;
                reaching += expect as u64;
            };
            check(&cells);
            while i < n {
                if c[i] < i {
                    cells.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
                    check(&cells);
                    c[i] += 1;
                    i = 0;
                } else {
                    c[i] = 0;
                    i += 1;
                }
            }
            let all: u64 = (1..=n as u64).product();
            assert_eq!((placements, reaching), (all, all / 2), "{rows}x{cols}");
        }
    }

    #[test]
    fn moves_stay_in_the_space_and_undo() {
        let t = tiles(3, 4);
        let mut rng = huarong_core::SplitMix(12);
        let len = t.ranked_len().unwrap();
        for _ in 0..20_000 {
            let code = rng.next_u64() % len;
            let mut next = Vec::new();
            t.successors(code, 0, &mut next);
            assert_eq!(Some(next.len()), t.distinct_degree(code, code, 0));
            for &s in &next {
                assert!(s < len);
                let mut back = Vec::new();
                t.successors(s, 0, &mut back);
                assert!(back.contains(&code));
                // The same move as the sliding model's.
                let mut theirs = Vec::new();
                t.puzzle.successors(t.to_sliding(code), 0, &mut theirs);
                assert!(theirs.contains(&t.to_sliding(s)));
            }
        }
    }

    /// The successors' ranks (horizontal moves by arithmetic, vertical ones re-ranked in a
    /// window) equal the full ranks of the swapped cells, in the same order.
    /// Decoding increasing codes incrementally gives every code's moves as decoding each one
    /// whole: runs of consecutive codes, sparse ones, every blank cell, on five boards.
    /// The moves without the block shifts plus the block shifts are every move, each once
    /// (the 4 × 3 and 3 × 4 boards have vertical shifts besides the sideways ones).
    #[test]
    fn block_shifts_and_the_other_moves_are_every_move() {
        for (rows, cols) in [(2, 2), (3, 3), (4, 3), (3, 4), (2, 5)] {
            let t = tiles(rows, cols);
            let shifts = t.block_shifts(0).unwrap();
            let step = (t.ranked_len().unwrap() / 5_000).max(1);
            let codes: Vec<u32> = (0..t.ranked_len().unwrap())
                .step_by(step as usize)
                .map(|c| c as u32)
                .collect();
            let (mut all, mut other) = (Vec::new(), Vec::new());
            let none = |_: u32| 0;
            let lookup = |_: u64| None;
            t.each_neighbor_index(&codes, 0, &none, &lookup, &mut |u, v| all.push((u, v)));
            t.each_other_neighbor_index(&codes, 0, &none, &lookup, &mut |u, v| {
                assert!(!shifts.carries(u, v), "{rows}x{cols}: {u} -> {v}");
                other.push((u, v))
            });
            for &u in &codes {
                for s in &shifts.shifts {
                    if (s.from..s.from + s.len).contains(&(u as u64)) {
                        other.push((u, (u as u64 - s.from + s.to) as u32));
                    }
                }
            }
            all.sort_unstable();
            other.sort_unstable();
            assert_eq!(all, other, "{rows}x{cols}");
        }
    }

    #[test]
    fn incremental_decoding_gives_the_same_moves() {
        for (rows, cols) in [(2, 2), (3, 3), (2, 5), (4, 3), (2, 6)] {
            let t = tiles(rows, cols);
            let len = t.ranked_len().unwrap();
            let mut rng = huarong_core::SplitMix(rows as u64 * 7 + cols as u64);
            let mut codes: Vec<u32> = Vec::new();
            while codes.len() < 40_000 {
                let start = rng.next_u64() % len;
                let run = 1 + rng.next_u64() % 300;
                let step = 1 + rng.next_u64() % 3;
                codes.extend(
                    (0..run)
                        .map(|k| start + k * step)
                        .filter(|&c| c < len)
                        .map(|c| c as u32),
                );
            }
            codes.sort_unstable();
            codes.dedup();
            let mut fast = Vec::new();
            t.each_successor_of(&codes, true, |u, v| fast.push((u, v)));
            // Without `pdep` too, whatever this CPU has.
            let mut portable = Vec::new();
            t.successors_of::<false>(&codes, true, |u, v| portable.push((u, v)));
            assert_eq!(portable, fast, "{rows}x{cols}");
            let mut whole = Vec::new();
            for &u in &codes {
                t.each_successor(u as u64, |v| whole.push((u, v)));
            }
            assert_eq!(fast, whole, "{rows}x{cols}");
        }
    }

    #[test]
    fn fast_successors_equal_full_reranking() {
        for (rows, cols, samples) in [
            (2, 2, 0),
            (3, 3, 0),
            (2, 5, 0),
            (4, 3, 50_000),
            (2, 6, 50_000),
        ] {
            let t = tiles(rows, cols);
            let len = t.ranked_len().unwrap();
            let mut rng = huarong_core::SplitMix(rows as u64 * 31 + cols as u64);
            let codes: Vec<u64> = if samples == 0 {
                (0..len).collect()
            } else {
                (0..samples).map(|_| rng.next_u64() % len).collect()
            };
            for code in codes {
                let (mut cells, blank) = t.cells(code);
                let mut slow = Vec::new();
                for x in t.next_to(blank) {
                    cells.swap(blank, x);
                    slow.push(t.rank_cells(&cells[..t.n]));
                    cells.swap(blank, x);
                }
                let mut fast = Vec::new();
                t.each_successor(code, |s| fast.push(s));
                assert_eq!(fast, slow, "{rows}x{cols} {code}");
                // The moves up in the ranking: the larger neighbours.
                let mut above = Vec::new();
                t.neighbor_indices_above(code, code, 0, &|c| Some(c as u32), &mut above);
                above.sort_unstable();
                let mut want: Vec<u32> = slow
                    .iter()
                    .filter(|&&s| s > code)
                    .map(|&s| s as u32)
                    .collect();
                want.sort_unstable();
                assert_eq!(above, want, "{rows}x{cols} {code} above");
            }
        }
    }

    #[test]
    fn divisors_divide_exactly() {
        let mut rng = huarong_core::SplitMix(5);
        let mut ds: Vec<u32> = vec![1, 2, 3, 7, 60, 360, 19_958_400, u32::MAX - 1, u32::MAX];
        ds.extend((0..200).map(|_| (rng.next_u64() as u32).max(1)));
        for d in ds {
            let div = Divisor::new(d);
            let mut ns: Vec<u32> =
                vec![0, 1, d - 1, d, d.saturating_add(1), u32::MAX, u32::MAX - 1];
            ns.extend((0..500).map(|_| rng.next_u64() as u32));
            for n in ns {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }

    #[test]
    fn select_finds_the_kth_set_bit() {
        let mut rng = huarong_core::SplitMix(3);
        for _ in 0..10_000 {
            let mask = rng.next_u64() as u32;
            let bits: Vec<u8> = (0..32).filter(|&i| mask >> i & 1 == 1).collect();
            for (k, &b) in bits.iter().enumerate() {
                assert_eq!(select(mask, k as u32), b);
                assert_eq!(select_portable(mask, k as u32), b);
            }
            let wide = rng.next_u64();
            let bits: Vec<u8> = (0..64).filter(|&i| wide >> i & 1 == 1).collect();
            for (k, &b) in bits.iter().enumerate() {
                assert_eq!(select64(wide, k as u32), b);
            }
        }
    }

    /// The degrees counted by blank cell are those of every position, moves generated.
    #[test]
    fn degree_counts_are_every_positions_degree() {
        for (rows, cols) in [(2, 2), (3, 3), (2, 4), (3, 2)] {
            let t = tiles(rows, cols);
            let mut counts = Vec::new();
            for code in 0..t.ranked_len().unwrap() {
                let mut d = 0;
                t.each_successor(code, |_| d += 1);
                if counts.len() <= d {
                    counts.resize(d + 1, 0u64);
                }
                counts[d] += 1;
            }
            assert_eq!(t.degree_counts(0), Some(counts), "{rows}x{cols}");
        }
    }

    #[test]
    fn other_puzzles_are_not_tiles() {
        for board in ["AAB\n.CB\n..D", "AB\nC.\nD#", "ABC\nD..", "A.\nB."] {
            let text = format!(
                "name = \"p\"\nboard = \"\"\"\n{board}\n\"\"\"\ngoal = \"\"\"\n{board}\n\"\"\"\nlabeled = true\n"
            );
            let p = crate::parse(&text, "p").unwrap();
            assert!(Tiles::new(&p).is_none(), "{board}");
        }
    }
}
