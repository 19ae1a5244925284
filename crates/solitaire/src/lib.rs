//! Solitaire (HDU 1401): four identical pieces on an 8×8 board. A move steps a piece to an
//! adjacent empty cell, or jumps it over exactly one adjacent piece onto the empty cell right
//! behind. Moves are reversible, so the graph is undirected.
//!
//! A state is the set of occupied cells, encoded as a 64-bit occupancy mask (bit `8·r + c`,
//! 0-based). The C(64, 4) = 635,376 states are ranked with the combinatorial number system: the
//! rank of `{c0 < c1 < c2 < c3}` is `C(c0,1) + C(c1,2) + C(c2,3) + C(c3,4)` — no hash map, and
//! rank order is increasing mask order (colexicographic order).
//!
//! Pure: no IO. [`judge`] parses and answers the judge's input text.

pub mod driver;
pub mod judge;

use huarong_core::{DistanceSources, Fingerprint, Puzzle, Ranking};

/// Version of the state encoding (part of every fingerprint): bump it when codes change meaning.
const ENCODING_VERSION: u64 = 1;

/// Board side.
pub const SIDE: usize = 8;
/// Cells on the board.
pub const CELLS: usize = SIDE * SIDE;
/// Pieces on the board.
pub const PIECES: usize = 4;
/// Number of states, C(64, 4).
pub const STATES: u64 = binomial(CELLS as u64, PIECES as u64);

/// `C(n, k)` (small arguments, const).
pub const fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let mut r = 1u64;
    let mut i = 0;
    while i < k {
        r = r * (n - i) / (i + 1);
        i += 1;
    }
    r
}

/// `BINOM[c][k] = C(c, k)` for the ranking.
const BINOM: [[u64; PIECES + 1]; CELLS + 1] = {
    let mut t = [[0u64; PIECES + 1]; CELLS + 1];
    let mut c = 0;
    while c <= CELLS {
        let mut k = 0;
        while k <= PIECES {
            t[c][k] = binomial(c as u64, k as u64);
            k += 1;
        }
        c += 1;
    }
    t
};

/// The combinatorial rank of a 4-cell occupancy mask, or `None` if it has not exactly 4 cells.
pub fn rank(mask: u64) -> Option<u64> {
    if mask.count_ones() as usize != PIECES {
        return None;
    }
    let mut m = mask;
    let mut r = 0;
    #[allow(clippy::needless_range_loop)] // k is the k of C(c, k), not just an index
    for k in 1..=PIECES {
        let c = m.trailing_zeros() as usize;
        m &= m - 1;
        r += BINOM[c][k];
    }
    Some(r)
}

/// The occupancy mask of rank `r` (`r < STATES`).
pub fn unrank(mut r: u64) -> u64 {
    debug_assert!(r < STATES);
    let mut mask = 0u64;
    let mut hi = CELLS;
    for k in (1..=PIECES).rev() {
        // The largest c < hi with C(c, k) <= r.
        let mut c = hi - 1;
        while BINOM[c][k] > r {
            c -= 1;
        }
        r -= BINOM[c][k];
        mask |= 1 << c;
        hi = c;
    }
    mask
}

const DIRS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

fn offset(cell: usize, (dr, dc): (isize, isize), times: isize) -> Option<usize> {
    let r = (cell / SIDE) as isize + dr * times;
    let c = (cell % SIDE) as isize + dc * times;
    ((0..SIDE as isize).contains(&r) && (0..SIDE as isize).contains(&c))
        .then(|| r as usize * SIDE + c as usize)
}

/// Appends every state one move from `mask` (steps and single jumps).
pub fn successors(mask: u64, out: &mut Vec<u64>) {
    let mut pieces = mask;
    while pieces != 0 {
        let p = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let rest = mask & !(1 << p);
        for dir in DIRS {
            let Some(q) = offset(p, dir, 1) else { continue };
            if rest >> q & 1 == 0 {
                out.push(rest | 1 << q);
            } else if let Some(j) = offset(p, dir, 2)
                && rest >> j & 1 == 0
            {
                out.push(rest | 1 << j);
            }
        }
    }
}

/// The cells of a mask as 1-based `(row, column)` pairs, in cell order.
pub fn cells(mask: u64) -> Vec<(u8, u8)> {
    let mut out = Vec::with_capacity(PIECES);
    let mut m = mask;
    while m != 0 {
        let c = m.trailing_zeros() as usize;
        m &= m - 1;
        out.push(((c / SIDE) as u8 + 1, (c % SIDE) as u8 + 1));
    }
    out
}

/// The judge's notation: `r1 c1 r2 c2 r3 c3 r4 c4`, 1-based, in cell order.
pub fn render(mask: u64) -> String {
    cells(mask)
        .iter()
        .map(|(r, c)| format!("{r} {c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A position that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("expected 8 numbers (r1 c1 … r4 c4), found {0}")]
    Count(usize),
    #[error("{0:?} is not a number")]
    NotANumber(String),
    #[error("piece {piece}: {what} {value} is outside 1..=8")]
    OutOfRange {
        piece: usize,
        what: &'static str,
        value: i64,
    },
    #[error("pieces {first} and {second} are both on row {row}, column {column}")]
    SameCell {
        first: usize,
        second: usize,
        row: u8,
        column: u8,
    },
}

/// Reads a position in the judge's notation (8 whitespace-separated numbers).
pub fn parse(text: &str) -> Result<u64, PositionError> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() != 2 * PIECES {
        return Err(PositionError::Count(tokens.len()));
    }
    let numbers = tokens
        .iter()
        .map(|t| {
            t.parse::<i64>()
                .map_err(|_| PositionError::NotANumber((*t).to_owned()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    from_numbers(&numbers)
}

/// A position from 8 numbers `r1 c1 … r4 c4` (1-based).
pub fn from_numbers(numbers: &[i64]) -> Result<u64, PositionError> {
    if numbers.len() != 2 * PIECES {
        return Err(PositionError::Count(numbers.len()));
    }
    let mut mask = 0u64;
    let mut owner = [0usize; CELLS];
    for piece in 0..PIECES {
        let (r, c) = (numbers[2 * piece], numbers[2 * piece + 1]);
        for (what, value) in [("row", r), ("column", c)] {
            if !(1..=SIDE as i64).contains(&value) {
                return Err(PositionError::OutOfRange {
                    piece: piece + 1,
                    what,
                    value,
                });
            }
        }
        let cell = (r as usize - 1) * SIDE + (c as usize - 1);
        if mask >> cell & 1 != 0 {
            return Err(PositionError::SameCell {
                first: owner[cell],
                second: piece + 1,
                row: r as u8,
                column: c as u8,
            });
        }
        mask |= 1 << cell;
        owner[cell] = piece + 1;
    }
    Ok(mask)
}

/// The whole Solitaire space, with the start the distances are measured from and a goal.
#[derive(Debug, Clone)]
pub struct Solitaire {
    start: u64,
    goal: u64,
}

impl Solitaire {
    /// The space with distances from `start`; `goal` is the position the summary calls a goal.
    pub fn new(start: u64, goal: u64) -> Self {
        Solitaire { start, goal }
    }

    pub fn start(&self) -> u64 {
        self.start
    }

    pub fn goal(&self) -> u64 {
        self.goal
    }
}

impl Puzzle for Solitaire {
    fn name(&self) -> &'static str {
        "solitaire"
    }

    fn space_id(&self) -> String {
        "8x8-4".to_owned()
    }

    /// One board, one piece count: the space id says it all. The start and goal decide only
    /// distances (fingerprinted by their source states) and the export.
    fn parameters(&self, key: &mut Fingerprint) {
        key.add_u64(ENCODING_VERSION);
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["move"]
    }

    fn ranking(&self) -> Option<&dyn Ranking> {
        Some(self)
    }

    fn starts(&self) -> Vec<u64> {
        vec![self.start]
    }

    fn successors(&self, code: u64, _metric: usize, out: &mut Vec<u64>) {
        successors(code, out);
    }

    fn is_goal(&self, code: u64) -> bool {
        code == self.goal
    }

    fn render(&self, code: u64) -> String {
        render(code)
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        parse(text).map_err(|e| e.to_string().into())
    }

    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Starts
    }
}

impl Ranking for Solitaire {
    fn states(&self) -> u64 {
        STATES
    }

    fn unrank(&self, index: u64) -> u64 {
        unrank(index)
    }

    fn rank(&self, code: u64) -> Option<u64> {
        rank(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_and_extremes() {
        assert_eq!(STATES, 635_376);
        assert_eq!(unrank(0), 0b1111);
        assert_eq!(unrank(STATES - 1), 0xF << 60);
        assert_eq!(rank(0xF << 60), Some(STATES - 1));
        assert_eq!(rank(0b111), None);
    }

    #[test]
    fn rank_order_is_mask_order() {
        let mut prev = 0;
        for r in 0..STATES {
            let m = unrank(r);
            assert!(m > prev || r == 0);
            assert_eq!(rank(m), Some(r));
            prev = m;
        }
    }

    #[test]
    fn moves_from_a_corner() {
        // Pieces at (1,1) (1,2) (2,1) (8,8): (1,1) is boxed in except by jumps.
        let m = from_numbers(&[1, 1, 1, 2, 2, 1, 8, 8]).unwrap();
        let mut out = Vec::new();
        successors(m, &mut out);
        let rendered: Vec<String> = out.iter().map(|&s| render(s)).collect();
        assert!(
            rendered.contains(&"1 2 1 3 2 1 8 8".to_owned()),
            "{rendered:?}"
        ); // jump right
        assert!(
            rendered.contains(&"1 2 2 1 3 1 8 8".to_owned()),
            "{rendered:?}"
        ); // jump down
        assert!(
            rendered.contains(&"1 1 1 2 2 1 7 8".to_owned()),
            "{rendered:?}"
        ); // step up
        assert_eq!(out.len(), 8, "{rendered:?}");
    }

    #[test]
    fn parse_names_the_problem() {
        assert_eq!(parse("1 1 1 2"), Err(PositionError::Count(4)));
        assert!(matches!(
            parse("1 1 1 2 2 1 9 8"),
            Err(PositionError::OutOfRange {
                piece: 4,
                what: "row",
                value: 9
            })
        ));
        assert!(matches!(
            parse("1 1 1 2 2 1 1 1"),
            Err(PositionError::SameCell {
                first: 1,
                second: 4,
                ..
            })
        ));
        assert!(matches!(
            parse("1 1 x 2 2 1 1 1"),
            Err(PositionError::NotANumber(_))
        ));
    }

    proptest! {
        #[test]
        fn rank_unrank_roundtrip(r in 0..STATES) {
            let m = unrank(r);
            prop_assert_eq!(m.count_ones(), 4);
            prop_assert_eq!(rank(m), Some(r));
            prop_assert_eq!(parse(&render(m)), Ok(m));
        }

        #[test]
        fn moves_are_reversible(r in 0..STATES) {
            let m = unrank(r);
            let mut out = Vec::new();
            successors(m, &mut out);
            for &s in &out {
                prop_assert_eq!(s.count_ones(), 4);
                prop_assert_ne!(s, m);
                let mut back = Vec::new();
                successors(s, &mut back);
                prop_assert!(back.contains(&m));
            }
        }
    }
}
