//! Pattern databases' abstract spaces for the sliding tiles: a group of tiles on a board of at
//! most 64 cells, the other tiles forgotten ([`huarong_core::abstraction`]).
//!
//! A placement is the cells of the group's `k` tiles, in the group's order: a `k`-permutation
//! of the `n` cells, ranked densely in `0..n!/(n−k)!` by reading, for each tile in turn, its
//! cell's position among the cells the earlier tiles left (a digit below `n − i`) as a
//! mixed-radix number. Free cells are the others; the blank is in one region of them, and each
//! abstract move slides a group tile into that region.
//!
//! A group is written as its tiles' letters (`"1234567"`); its abstraction's id is
//! `pattern-<rows>x<cols>-<letters>`, the folder of its database under a pipeline's output.

use huarong_core::abstraction::{Abstraction, MAX_CELLS};
use huarong_core::{Fingerprint, InputError};

use crate::SlidingPuzzle;
use crate::tiles::{Divisor, select64};

/// Version of the placement ranking (part of the fingerprint).
const RANKING_VERSION: u64 = 1;
/// Most tiles in one group: the 8-tile database of the fifteen puzzle has 518,918,400
/// placements; a 9-tile group would have 4,151,347,200 and need 21 GB to build.
pub const MAX_GROUP: usize = 8;
/// Most placements of a group (ranks are 32-bit): 25!/18! = 2,422,728,000 for 7 tiles of the
/// twenty-four puzzle fits, 25!/17! does not.
pub const MAX_PLACEMENTS: u64 = 1 << 32;
/// Most placements of a group [`TileBoard::default_groups`] picks: the fifteen puzzle's 8
/// tiles (518,918,400) but the twenty-four puzzle's 6 (127,512,000; 7 would take 2.4 billion
/// placements and 22 GB to build).
pub const DEFAULT_PLACEMENTS: u64 = 600_000_000;

/// The sliding tiles of a puzzle file as cells: every tile's goal cell, the blank's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileBoard {
    pub rows: usize,
    pub cols: usize,
    /// Each tile's letter (tile `t` is the puzzle's piece class `t`).
    pub letters: Vec<char>,
    /// Each tile's goal cell.
    pub goal: Vec<u8>,
    pub goal_blank: u8,
}

impl TileBoard {
    /// The tiles of `puzzle` when it is a sliding-tiles puzzle (every piece 1×1 and told
    /// apart, one blank, no walls) of at most [`MAX_CELLS`] cells whose goal places every tile; else what
    /// is missing.
    pub fn new(puzzle: &SlidingPuzzle) -> Result<TileBoard, InputError> {
        let l = &puzzle.layout;
        let n = l.rows * l.cols;
        if crate::tiles::count(puzzle).is_none() {
            return Err(
                "pattern databases need sliding tiles: every piece 1×1 and told apart \
                        (labeled = true), one blank, no walls"
                    .into(),
            );
        }
        if n > MAX_CELLS {
            return Err(InputError(format!(
                "pattern databases need at most {MAX_CELLS} cells; this board has {n}"
            )));
        }
        let mut goal = vec![u8::MAX; l.classes.len()];
        for &(k, j) in &puzzle.goal {
            goal[k] = l.classes[k].masks[j as usize].trailing_zeros() as u8;
        }
        if let Some(t) = goal.iter().position(|&g| g == u8::MAX) {
            return Err(InputError(format!(
                "pattern databases need a goal that places every tile; it leaves {} free",
                l.classes[t].letters[0]
            )));
        }
        let goal_blank = (0..n as u8)
            .find(|c| !goal.contains(c))
            .expect("n − 1 tiles leave one cell");
        Ok(TileBoard {
            rows: l.rows,
            cols: l.cols,
            letters: l.classes.iter().map(|c| c.letters[0]).collect(),
            goal,
            goal_blank,
        })
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    pub fn tiles(&self) -> usize {
        self.goal.len()
    }

    /// The cell of every tile in the position `code` of `puzzle`, and the blank's.
    pub fn position(&self, puzzle: &SlidingPuzzle, code: u64) -> (Vec<u8>, u8) {
        let l = &puzzle.layout;
        let places = puzzle.places(code);
        let cells: Vec<u8> = l
            .classes
            .iter()
            .map(|c| c.masks[places[c.offset] as usize].trailing_zeros() as u8)
            .collect();
        let used = cells.iter().fold(0u64, |m, &c| m | 1 << c);
        let blank = (!used).trailing_zeros() as u8;
        (cells, blank)
    }

    /// The tiles of `letters` (each a tile's letter, once), in that order.
    pub fn group(&self, letters: &str) -> Result<Vec<u8>, InputError> {
        let mut out: Vec<u8> = Vec::new();
        for ch in letters.chars() {
            let t = self
                .letters
                .iter()
                .position(|&l| l == ch)
                .ok_or_else(|| format!("group {letters:?}: no tile {ch:?} on this board"))?
                as u8;
            if out.contains(&t) {
                return Err(InputError(format!(
                    "group {letters:?}: tile {ch:?} is listed twice"
                )));
            }
            out.push(t);
        }
        if out.is_empty() || out.len() > MAX_GROUP {
            return Err(InputError(format!(
                "group {letters:?}: a group has 1 to {MAX_GROUP} tiles, not {}",
                out.len()
            )));
        }
        Ok(out)
    }

    /// The default partition: the tiles in reading order of their goal cells, cut into the
    /// fewest groups of at most [`MAX_GROUP`] tiles and [`DEFAULT_PLACEMENTS`] placements, as
    /// even as can be with the smaller first (the fifteen puzzle: 7 then 8, Korf & Felner's 7-8
    /// partition; the eight puzzle: one; the twenty-four puzzle: four of 6, in rows).
    pub fn default_groups(&self) -> Vec<String> {
        let mut order: Vec<usize> = (0..self.tiles()).collect();
        order.sort_by_key(|&t| self.goal[t]);
        let n = self.cells() as u64;
        let largest = (1..=MAX_GROUP as u64)
            .take_while(|&k| (n - k + 1..=n).product::<u64>() <= DEFAULT_PLACEMENTS)
            .last()
            .unwrap_or(1) as usize;
        let count = self.tiles().div_ceil(largest);
        let mut out = Vec::new();
        let mut start = 0;
        for g in 0..count {
            // Sizes ⌊m/count⌋ or one more, the larger last.
            let size = (self.tiles() + g) / count;
            out.push(
                order[start..start + size]
                    .iter()
                    .map(|&t| self.letters[t])
                    .collect(),
            );
            start += size;
        }
        out
    }

    /// The abstraction's id of a group written as letters.
    pub fn pattern_id(&self, letters: &str) -> String {
        format!("{}{letters}", self.pattern_prefix())
    }

    /// What every abstraction id of this board starts with: `pattern-<rows>x<cols>-`.
    pub fn pattern_prefix(&self) -> String {
        format!("pattern-{}x{}-", self.rows, self.cols)
    }
}

/// One group's abstract space; see the module documentation.
#[derive(Debug, Clone)]
pub struct Pattern {
    board: TileBoard,
    /// The group's tiles, in order.
    tiles: Vec<u8>,
    letters: String,
    n: usize,
    len: u64,
    /// The radices `n − i` of the ranks' digits, as divisors (ranks are below 2^32).
    radices: Vec<Divisor>,
    /// Each digit's weight in the rank, the product of the later digits' radices: the digits
    /// are independent of each other, so a rank is a sum of products, not a chain of them.
    weights: Vec<u64>,
    /// Cells not in the first / last column (a region grows left / right only from them).
    not_first: u64,
    not_last: u64,
    all: u64,
    /// The cells next to each cell.
    next_to: [u64; MAX_CELLS],
}

impl Pattern {
    /// The group `letters` of `board`.
    pub fn new(board: &TileBoard, letters: &str) -> Result<Pattern, InputError> {
        let tiles = board.group(letters)?;
        let n = board.cells();
        let len: u64 = (n - tiles.len() + 1..=n).map(|x| x as u64).product();
        if len > MAX_PLACEMENTS {
            return Err(InputError(format!(
                "group {letters:?}: {len} placements, more than the {MAX_PLACEMENTS} a 32-bit \
                 rank holds: use smaller groups"
            )));
        }
        let (rows, cols) = (board.rows, board.cols);
        let mut not_first = 0u64;
        let mut not_last = 0u64;
        let mut next_to = [0u64; MAX_CELLS];
        for (c, next) in next_to.iter_mut().enumerate().take(n) {
            let (r, col) = (c / cols, c % cols);
            if col > 0 {
                not_first |= 1 << c;
                *next |= 1 << (c - 1);
            }
            if col + 1 < cols {
                not_last |= 1 << c;
                *next |= 1 << (c + 1);
            }
            if r > 0 {
                *next |= 1 << (c - cols);
            }
            if r + 1 < rows {
                *next |= 1 << (c + cols);
            }
        }
        Ok(Pattern {
            board: board.clone(),
            radices: (0..tiles.len())
                .map(|i| Divisor::new((n - i) as u32))
                .collect(),
            weights: (0..tiles.len())
                .map(|i| (i + 1..tiles.len()).map(|j| (n - j) as u64).product())
                .collect(),
            tiles,
            letters: letters.to_owned(),
            n,
            len,
            not_first,
            not_last,
            all: u64::MAX >> (64 - n),
            next_to,
        })
    }

    /// The group's tiles, in order.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    pub fn letters(&self) -> &str {
        &self.letters
    }

    pub fn board(&self) -> &TileBoard {
        &self.board
    }

    /// The rank of the placement whose `i`-th tile is on `cells[i]`.
    #[inline(always)]
    pub fn rank(&self, cells: &[u8]) -> u64 {
        let mut used = 0u64;
        let mut r = 0u64;
        for (&c, &w) in cells.iter().zip(&self.weights) {
            let d = c as u32 - (used & ((1u64 << c) - 1)).count_ones();
            r += d as u64 * w;
            used |= 1 << c;
        }
        r
    }

    /// The rank of the group's placement in a position given as every tile's cell.
    #[inline(always)]
    pub fn rank_of(&self, position: &[u8]) -> u64 {
        let mut used = 0u64;
        let mut r = 0u64;
        for (&t, &w) in self.tiles.iter().zip(&self.weights) {
            let c = position[t as usize];
            let d = c as u32 - (used & ((1u64 << c) - 1)).count_ones();
            r += d as u64 * w;
            used |= 1 << c;
        }
        r
    }

    /// The cells of the placement ranked `rank` (`out[i]` for the `i`-th tile).
    pub fn unrank(&self, rank: u64, out: &mut [u8]) {
        let k = self.tiles.len();
        let mut digits = [0u8; MAX_CELLS];
        // Below 2^32 ([`Pattern::new`] refuses larger groups).
        let mut rank = rank as u32;
        for i in (0..k).rev() {
            let (q, r) = self.radices[i].div_rem(rank);
            digits[i] = r as u8;
            rank = q;
        }
        let mut left = self.all;
        for i in 0..k {
            let c = select64(left, digits[i] as u32);
            out[i] = c;
            left &= !(1 << c);
        }
    }

    /// The cells of the placement ranked `placement` and its free cells.
    #[inline(always)]
    fn decode(&self, placement: u64) -> ([u8; MAX_CELLS], u64) {
        let mut cells = [0u8; MAX_CELLS];
        self.unrank(placement, &mut cells);
        let used = cells[..self.tiles.len()]
            .iter()
            .fold(0u64, |m, &c| m | 1 << c);
        (cells, self.all & !used)
    }

    /// The moves of `cells` (a placement, decoded; `free` its free cells) from its region
    /// `region`.
    #[inline(always)]
    fn moves_of(&self, cells: &mut [u8], free: u64, region: u64, next: &mut dyn FnMut(u64, u64)) {
        for i in 0..cells.len() {
            let from = cells[i];
            let mut into = self.next_to[from as usize] & region;
            while into != 0 {
                let to = into.trailing_zeros() as u8;
                into &= into - 1;
                cells[i] = to;
                let after = (free & !(1u64 << to)) | 1 << from;
                next(self.rank(cells), self.grow(after, from as usize));
            }
            cells[i] = from;
        }
    }

    /// The region of `cell` among `free`: grown one ring of neighbours at a time.
    #[inline(always)]
    fn grow(&self, free: u64, cell: usize) -> u64 {
        let cols = self.board.cols;
        let mut r = 1u64 << cell;
        loop {
            let g = (r
                | ((r & self.not_last) << 1)
                | ((r & self.not_first) >> 1)
                | (r << cols)
                | (r >> cols))
                & free;
            if g == r {
                return r;
            }
            r = g;
        }
    }
}

impl Abstraction for Pattern {
    fn id(&self) -> String {
        self.board.pattern_id(&self.letters)
    }

    /// The board's size, the goal cell of every group tile and the blank's (the other tiles'
    /// goals do not change the database), the ranking's version.
    fn parameters(&self, key: &mut Fingerprint) {
        key.add_str("sliding-tiles-pattern")
            .add_u64(RANKING_VERSION)
            .add_u64(self.board.rows as u64)
            .add_u64(self.board.cols as u64)
            .add_u64(self.board.goal_blank as u64)
            .add_list(self.tiles.len());
        for &t in &self.tiles {
            key.add_u64(self.board.goal[t as usize] as u64);
        }
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn cells(&self) -> usize {
        self.n
    }

    fn goal(&self) -> (u64, u64) {
        let cells: Vec<u8> = self
            .tiles
            .iter()
            .map(|&t| self.board.goal[t as usize])
            .collect();
        let rank = self.rank(&cells);
        let free = self.free(rank);
        (rank, self.grow(free, self.board.goal_blank as usize))
    }

    fn free(&self, placement: u64) -> u64 {
        self.decode(placement).1
    }

    fn region(&self, free: u64, cell: usize) -> u64 {
        self.grow(free, cell)
    }

    fn moves(&self, placement: u64, region: u64, next: &mut dyn FnMut(u64, u64)) {
        let (mut cells, free) = self.decode(placement);
        self.moves_of(&mut cells[..self.tiles.len()], free, region, next);
    }

    /// One decoding of the placement for all its regions in `front`; with the CPU's popcount
    /// instruction where it has one (the ranks count set bits).
    fn expand(&self, placement: u64, front: u64, next: &mut dyn FnMut(u64, u64)) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            return unsafe { self.expand_popcnt(placement, front, next) };
        }
        self.expand_here(placement, front, next)
    }
}

impl Pattern {
    /// [`Abstraction::expand`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn expand_popcnt(
        &self,
        placement: u64,
        front: u64,
        next: &mut dyn FnMut(u64, u64),
    ) -> u64 {
        self.expand_here(placement, front, next)
    }

    #[inline(always)]
    fn expand_here(&self, placement: u64, front: u64, next: &mut dyn FnMut(u64, u64)) -> u64 {
        let (mut cells, free) = self.decode(placement);
        let k = self.tiles.len();
        let (mut left, mut done) = (front, 0);
        while left != 0 {
            let region = self.grow(free, left.trailing_zeros() as usize);
            left &= !region;
            done |= region;
            self.moves_of(&mut cells[..k], free, region, next);
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fifteen() -> TileBoard {
        let text = "name = \"f\"\nlabeled = true\nboard = \".123\\n4567\\n89AB\\nCDEF\"\n\
                    goal = \".123\\n4567\\n89AB\\nCDEF\"\n";
        TileBoard::new(&crate::parse(text, "f").unwrap()).unwrap()
    }

    #[test]
    fn default_groups_are_korf_and_felners() {
        let b = fifteen();
        assert_eq!(b.default_groups(), ["1234567", "89ABCDEF"]);
        let p = Pattern::new(&b, "89ABCDEF").unwrap();
        // 16!/8!, the published size of the 8-tile database.
        assert_eq!(p.len(), 518_918_400);
        assert_eq!(Pattern::new(&b, "1234567").unwrap().len(), 57_657_600);
        assert_eq!(p.id(), "pattern-4x4-89ABCDEF");
    }

    /// The thirty-five puzzle's groups (pipelines/thirty-five-pdb.toml): 36!/31! placements
    /// for five tiles, 36!/30! for six (too many to build here: 17 bytes each).
    #[test]
    fn six_by_six_groups_have_their_counts() {
        let text = "name = \"t\"\nlabeled = true\n\
                    board = \".12345\\n6789AB\\nCDEFGH\\nIJKLMN\\nOPQRST\\nUVWXYZ\"\n\
                    goal = \".12345\\n6789AB\\nCDEFGH\\nIJKLMN\\nOPQRST\\nUVWXYZ\"\n";
        let b = crate::parse_tiles(text, "t").unwrap().board;
        assert_eq!(Pattern::new(&b, "12678").unwrap().len(), 45_239_040);
        assert_eq!(Pattern::new(&b, "126789").unwrap().len(), 1_402_410_240);
        assert_eq!(b.default_groups().len(), 7);
        let p = Pattern::new(&b, "STXYZ").unwrap();
        assert_eq!(p.id(), "pattern-6x6-STXYZ");
        // Cells 32-35 (the bottom row's last four) ranked and unranked past the first word.
        let mut cells = [0u8; 8];
        for rank in [0, 1, p.len() / 2, p.len() - 1] {
            p.unrank(rank, &mut cells);
            assert_eq!(p.rank(&cells[..5]), rank);
        }
        let (goal, region) = p.goal();
        p.unrank(goal, &mut cells);
        assert_eq!(&cells[..5], &[28, 29, 33, 34, 35]);
        assert_eq!(region.count_ones(), 31);
    }

    #[test]
    fn bad_groups_are_named() {
        let b = fifteen();
        assert!(b.group("12G").unwrap_err().0.contains("no tile 'G'"));
        assert!(b.group("121").unwrap_err().0.contains("listed twice"));
        assert!(b.group("123456789").unwrap_err().0.contains("1 to 8 tiles"));
    }

    #[test]
    fn the_goal_region_is_the_free_cells_around_the_blank() {
        let b = fifteen();
        let p = Pattern::new(&b, "1234567").unwrap();
        let (g, region) = p.goal();
        // Tiles 1-7 on cells 1-7: the blank's region is cell 0 alone.
        assert_eq!(region, 1);
        let mut cells = [0u8; 16];
        p.unrank(g, &mut cells);
        assert_eq!(&cells[..7], &[1, 2, 3, 4, 5, 6, 7]);
        // Tiles 8-15 at the bottom: the blank roams the top two rows.
        let q = Pattern::new(&b, "89ABCDEF").unwrap();
        assert_eq!(q.goal().1, 0x00ff);
    }

    #[test]
    fn moves_slide_a_group_tile_into_the_region() {
        let b = fifteen();
        let p = Pattern::new(&b, "1234567").unwrap();
        let (g, region) = p.goal();
        let mut seen = Vec::new();
        p.moves(g, region, &mut |q, r| seen.push((q, r)));
        // Tile 1 (cell 1) or tile 4 (cell 4) into cell 0.
        assert_eq!(seen.len(), 2);
        for (q, r) in seen {
            let mut cells = [0u8; 16];
            p.unrank(q, &mut cells);
            assert!(cells[..7].contains(&0));
            // The vacated cell joins the big free region below row 1.
            assert_eq!(r.count_ones(), if cells[0] == 0 { 1 } else { 9 });
        }
    }

    proptest! {
        #[test]
        fn rank_and_unrank_are_inverse(k in 1usize..=8, seed in any::<u64>()) {
            let b = fifteen();
            let letters: String = b.letters.iter().take(k).collect();
            let p = Pattern::new(&b, &letters).unwrap();
            let rank = seed % p.len();
            let mut cells = [0u8; 16];
            p.unrank(rank, &mut cells);
            let mut sorted = cells[..k].to_vec();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), k);
            prop_assert_eq!(p.rank(&cells[..k]), rank);
        }
    }
}
