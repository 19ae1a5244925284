//! The sliding-block model: a board of at most 64 cells as bitboards, pieces grouped into
//! classes of interchangeable look-alikes, a canonical `u64` code per position, and moves in
//! the three metrics.
//!
//! **Encoding.** A piece's place is its *anchor* (the top-left cell of its bounding box). Each
//! class lists the anchors its pieces may ever take (its *candidates*: every anchor where the
//! shape fits the board and misses the walls; for a lengthwise class only those on its pieces'
//! lines). A position places each class's `k` pieces on `k` distinct candidates; sorted, those
//! are ranked in the combinatorial number system (`rank = Σ C(cᵢ, i + 1)`), so look-alike pieces
//! never count twice, and the classes' ranks are packed in mixed radix, `C(m, k)` per class.
//! Codes are therefore canonical and injective; the explored space is every code reachable from
//! the board.

use crate::Motion;

/// Cells a board may have (one `u64` bitboard).
pub const MAX_CELLS: usize = 64;

/// No candidate (off the board, on a wall, or off the piece's line).
const NONE: u8 = u8::MAX;

/// Directions: up, down, left, right.
const DIRS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The move metrics, by index.
pub const METRICS: [&str; 3] = ["step", "straight", "piece"];

/// Which way a piece may slide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Both,
    /// Wider than tall, under lengthwise motion: left and right only.
    Horizontal,
    /// Taller than wide, under lengthwise motion: up and down only.
    Vertical,
}

impl Axis {
    fn allows(self, dir: usize) -> bool {
        match self {
            Axis::Both => true,
            Axis::Horizontal => dir >= 2,
            Axis::Vertical => dir < 2,
        }
    }
}

/// A piece's shape: its cells relative to the top-left corner of its bounding box.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shape {
    pub height: usize,
    pub width: usize,
    /// `(row, column)` offsets, sorted.
    pub cells: Vec<(usize, usize)>,
}

impl Shape {
    /// The shape of a set of board cells, and the anchor (top-left of the bounding box).
    pub fn of(cells: &[(usize, usize)]) -> (Shape, (usize, usize)) {
        let r0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let c0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let r1 = cells.iter().map(|c| c.0).max().unwrap_or(0);
        let c1 = cells.iter().map(|c| c.1).max().unwrap_or(0);
        let mut rel: Vec<(usize, usize)> = cells.iter().map(|&(r, c)| (r - r0, c - c0)).collect();
        rel.sort_unstable();
        (
            Shape {
                height: r1 - r0 + 1,
                width: c1 - c0 + 1,
                cells: rel,
            },
            (r0, c0),
        )
    }

    /// The bitboard of the shape anchored at `(r, c)` on a `rows × cols` board, if it fits.
    pub fn mask_at(&self, rows: usize, cols: usize, r: usize, c: usize) -> Option<u64> {
        if r + self.height > rows || c + self.width > cols {
            return None;
        }
        Some(
            self.cells
                .iter()
                .fold(0u64, |m, &(dr, dc)| m | 1 << ((r + dr) * cols + c + dc)),
        )
    }

    /// The axis a piece of this shape slides along under `motion`.
    pub fn axis(&self, motion: Motion) -> Axis {
        match motion {
            Motion::Free => Axis::Both,
            Motion::Lengthwise if self.width > self.height => Axis::Horizontal,
            Motion::Lengthwise if self.height > self.width => Axis::Vertical,
            Motion::Lengthwise => Axis::Both,
        }
    }
}

/// Interchangeable pieces: one shape, the letters of its pieces, where they may stand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Class {
    pub shape: Shape,
    /// The pieces' letters, sorted; a position's pieces take them in anchor order.
    pub letters: Vec<char>,
    pub axis: Axis,
    /// Anchor cells (`row · cols + column`) the pieces may take, ascending.
    pub candidates: Vec<u8>,
    /// The piece's cells at each candidate.
    pub masks: Vec<u64>,
    /// Per candidate and direction: the candidate one cell over, or [`NONE`].
    step: Vec<[u8; 4]>,
    /// `C(m, k)`: placements of the class.
    pub radix: u64,
    /// The place value of the class's rank in a code.
    pub mult: u64,
    /// Index of the class's first piece among all pieces.
    pub offset: usize,
}

impl Class {
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }

    /// The candidate index of an anchor cell, if it is one.
    pub fn candidate(&self, anchor: usize) -> Option<u8> {
        self.candidates
            .binary_search(&(anchor as u8))
            .ok()
            .map(|i| i as u8)
    }
}

/// Binomial coefficients `C(n, k)` for `n, k ≤ 64` (saturating at `u64::MAX`).
static BINOM: std::sync::LazyLock<Vec<[u64; 65]>> = std::sync::LazyLock::new(|| {
    let mut b = vec![[0u64; 65]; 65];
    for n in 0..=64 {
        b[n][0] = 1;
        for k in 1..=n {
            b[n][k] = b[n - 1][k - 1].saturating_add(b[n - 1][k]);
        }
    }
    b
});

/// The geometry and encoding of a puzzle's positions.
#[derive(Clone, PartialEq, Eq)]
pub struct Layout {
    pub rows: usize,
    pub cols: usize,
    pub walls: u64,
    pub classes: Vec<Class>,
    /// Pieces in all (the length of a decoded position).
    pub pieces: usize,
    binom: &'static [[u64; 65]],
}

impl std::fmt::Debug for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layout")
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("walls", &format_args!("{:#x}", self.walls))
            .field("classes", &self.classes)
            .finish_non_exhaustive()
    }
}

/// Why a layout cannot encode its positions in 64 bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    pub bits: u32,
}

impl Layout {
    /// A layout from its classes, given as (shape, letters, axis, the start anchors of the
    /// class's pieces); candidates follow from the board and the axis.
    pub fn new(
        rows: usize,
        cols: usize,
        walls: u64,
        classes: Vec<(Shape, Vec<char>, Axis, Vec<usize>)>,
    ) -> Result<Layout, TooLarge> {
        let binom: &'static [[u64; 65]] = &BINOM;
        let mut out = Vec::new();
        let mut offset = 0;
        let mut mult: u128 = 1;
        // The last class varies fastest, so codes sort by the first class first.
        let mut built: Vec<Class> = Vec::new();
        for (shape, letters, axis, starts) in classes {
            let mut candidates = Vec::new();
            let mut masks = Vec::new();
            for r in 0..rows {
                for c in 0..cols {
                    let on_line = match axis {
                        Axis::Both => true,
                        Axis::Horizontal => starts.iter().any(|&a| a / cols == r),
                        Axis::Vertical => starts.iter().any(|&a| a % cols == c),
                    };
                    if let Some(m) = shape.mask_at(rows, cols, r, c)
                        && on_line
                        && m & walls == 0
                    {
                        candidates.push((r * cols + c) as u8);
                        masks.push(m);
                    }
                }
            }
            let index_of = |anchor: isize| -> u8 {
                if anchor < 0 {
                    return NONE;
                }
                candidates
                    .binary_search(&(anchor as u8))
                    .map_or(NONE, |i| i as u8)
            };
            let step = candidates
                .iter()
                .map(|&a| {
                    let (r, c) = ((a as usize / cols) as isize, (a as usize % cols) as isize);
                    std::array::from_fn(|d| {
                        let (dr, dc) = DIRS[d];
                        let (nr, nc) = (r + dr, c + dc);
                        if !axis.allows(d)
                            || nr < 0
                            || nc < 0
                            || nr >= rows as isize
                            || nc >= cols as isize
                        {
                            NONE
                        } else {
                            index_of(nr * cols as isize + nc)
                        }
                    })
                })
                .collect();
            let k = letters.len();
            let radix = binom[candidates.len()][k];
            built.push(Class {
                shape,
                letters,
                axis,
                candidates,
                masks,
                step,
                radix,
                mult: 0,
                offset,
            });
            offset += k;
        }
        for class in built.iter_mut().rev() {
            class.mult = mult as u64;
            mult = mult.saturating_mul(class.radix.max(1) as u128);
        }
        if mult > u64::MAX as u128 + 1 {
            return Err(TooLarge {
                bits: 128 - (mult - 1).leading_zeros(),
            });
        }
        out.extend(built);
        Ok(Layout {
            rows,
            cols,
            walls,
            classes: out,
            pieces: offset,
            binom,
        })
    }

    /// Bits a code needs.
    pub fn bits(&self) -> u32 {
        let total: u128 = self
            .classes
            .iter()
            .map(|c| c.radix.max(1) as u128)
            .product();
        128 - (total.max(1) - 1).leading_zeros()
    }

    /// Writes class `c`'s sorted candidate indices (from its rank in `code`) into `out`.
    #[inline]
    fn unrank_class(&self, code: u64, c: usize, out: &mut [u8]) {
        let class = &self.classes[c];
        let k = class.len();
        let mut r = (code / class.mult) % class.radix.max(1);
        if k == 1 {
            out[0] = r as u8;
            return;
        }
        let mut n = class.candidates.len();
        for i in (0..k).rev() {
            // The largest n with C(n, i + 1) ≤ r.
            n -= 1;
            while self.binom[n][i + 1] > r {
                n -= 1;
            }
            out[i] = n as u8;
            r -= self.binom[n][i + 1];
        }
    }

    /// The rank of a sorted list of candidate indices.
    #[inline]
    fn rank_class(&self, sorted: &[u8]) -> u64 {
        if sorted.len() == 1 {
            return sorted[0] as u64;
        }
        sorted
            .iter()
            .enumerate()
            .map(|(i, &c)| self.binom[c as usize][i + 1])
            .sum()
    }

    /// Every piece's candidate index, class by class (each class sorted), into `out`.
    pub fn decode(&self, code: u64, out: &mut [u8]) {
        for c in 0..self.classes.len() {
            let o = self.classes[c].offset;
            let k = self.classes[c].len();
            self.unrank_class(code, c, &mut out[o..o + k]);
        }
    }

    /// The code of a position given as every piece's candidate index (any order within a
    /// class).
    pub fn encode(&self, places: &[u8]) -> u64 {
        let mut code = 0;
        let mut buf = [0u8; MAX_CELLS];
        for class in &self.classes {
            let k = class.len();
            buf[..k].copy_from_slice(&places[class.offset..class.offset + k]);
            buf[..k].sort_unstable();
            code += self.rank_class(&buf[..k]) * class.mult;
        }
        code
    }

    /// Whether class `c` has a piece at candidate `j` in `code`.
    pub fn has(&self, code: u64, c: usize, j: u8) -> bool {
        let mut buf = [0u8; MAX_CELLS];
        let k = self.classes[c].len();
        self.unrank_class(code, c, &mut buf[..k]);
        buf[..k].contains(&j)
    }

    /// The occupied cells (walls included) of a decoded position.
    pub fn occupancy(&self, places: &[u8]) -> u64 {
        let mut occ = self.walls;
        for class in &self.classes {
            for &j in &places[class.offset..class.offset + class.len()] {
                occ |= class.masks[j as usize];
            }
        }
        occ
    }

    /// Appends the codes one move away from `code` in `metric` (0 step, 1 straight, 2 piece).
    pub fn successors(&self, code: u64, metric: usize, out: &mut Vec<u64>) {
        let mut places = [0u8; MAX_CELLS];
        self.decode(code, &mut places);
        let occ = self.occupancy(&places[..self.pieces]);
        // Places a piece can move to (at most one per candidate) and a flood-fill stack.
        let mut targets = [0u8; MAX_CELLS];
        let mut stack = [0u8; MAX_CELLS];
        for (ci, class) in self.classes.iter().enumerate() {
            let k = class.len();
            for i in 0..k {
                let at = places[class.offset + i];
                let others = occ & !class.masks[at as usize];
                let open = |j: u8| class.masks[j as usize] & others == 0;
                let mut n = 0;
                match metric {
                    0 => {
                        for d in 0..4 {
                            let j = class.step[at as usize][d];
                            if j != NONE && open(j) {
                                targets[n] = j;
                                n += 1;
                            }
                        }
                    }
                    1 => {
                        for d in 0..4 {
                            let mut j = class.step[at as usize][d];
                            while j != NONE && open(j) {
                                targets[n] = j;
                                n += 1;
                                j = class.step[j as usize][d];
                            }
                        }
                    }
                    _ => {
                        // Every anchor the piece reaches by unit slides, the others fixed.
                        let mut seen = 1u64 << at;
                        stack[0] = at;
                        let mut top = 1;
                        while top > 0 {
                            top -= 1;
                            let j = stack[top];
                            for d in 0..4 {
                                let c = class.step[j as usize][d];
                                if c != NONE && seen >> c & 1 == 0 && open(c) {
                                    seen |= 1 << c;
                                    stack[top] = c;
                                    top += 1;
                                    targets[n] = c;
                                    n += 1;
                                }
                            }
                        }
                    }
                }
                if n == 0 {
                    continue;
                }
                let old = self.class_rank_at(&places, ci);
                for &j in &targets[..n] {
                    if k == 1 {
                        out.push(code - old * class.mult + j as u64 * class.mult);
                        continue;
                    }
                    let mut buf = [0u8; MAX_CELLS];
                    let slice = &mut buf[..k];
                    slice.copy_from_slice(&places[class.offset..class.offset + k]);
                    slice[i] = j;
                    slice.sort_unstable();
                    let new = self.rank_class(slice);
                    out.push(code - old * class.mult + new * class.mult);
                }
            }
        }
    }

    fn class_rank_at(&self, places: &[u8], c: usize) -> u64 {
        let class = &self.classes[c];
        self.rank_class(&places[class.offset..class.offset + class.len()])
    }

    /// The letter in every cell of a decoded position (`.` empty, `#` wall); each class's
    /// letters go to its pieces in anchor order.
    pub fn grid(&self, places: &[u8]) -> Vec<char> {
        let mut grid = vec!['.'; self.rows * self.cols];
        for (i, g) in grid.iter_mut().enumerate() {
            if self.walls >> i & 1 == 1 {
                *g = '#';
            }
        }
        for class in &self.classes {
            for (i, &j) in places[class.offset..class.offset + class.len()]
                .iter()
                .enumerate()
            {
                let mut m = class.masks[j as usize];
                while m != 0 {
                    grid[m.trailing_zeros() as usize] = class.letters[i];
                    m &= m - 1;
                }
            }
        }
        grid
    }
}
