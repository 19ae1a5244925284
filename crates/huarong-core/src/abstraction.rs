//! Abstract spaces for pattern databases: the trait the `patterns` stage is generic over.
//!
//! An abstraction of a puzzle keeps only some of its pieces (a *pattern*: a group of tiles)
//! and forgets the identity of the rest. Its states are the pattern's placements, ranked
//! densely (`0..len`); the cells the pattern leaves free are indistinguishable, except for the
//! blank among them, which is what lets the pattern's pieces move. Moving a free piece into the
//! blank costs nothing in an *additive* database (only the pattern's own moves count), so the
//! blank roams its whole connected *region* of free cells for free: a search state is a
//! placement and one region, and every move of a pattern piece costs one.
//!
//! The `patterns` stage searches the states breadth-first from the goal and keeps, for every
//! placement, the fewest pattern moves from any of its regions: a lower bound on the moves of
//! the pattern's pieces in the real puzzle, which disjoint patterns add up (Korf & Felner,
//! "Disjoint pattern database heuristics", Artificial Intelligence 134, 2002).
//!
//! Regions are bit masks over at most 64 cells (cell `c` is bit `c`).

use crate::fingerprint::Fingerprint;

/// Most cells an abstraction's board may have: a region is one 64-bit mask.
pub const MAX_CELLS: usize = 64;

/// A ranked abstract space; see the module documentation.
pub trait Abstraction: Send + Sync + std::fmt::Debug {
    /// Names the abstraction among its puzzle's (e.g. `fifteen-pattern-1234567`): the folder of
    /// its artifact.
    fn id(&self) -> String;

    /// Everything that decides its placements, ranks, goal and moves (board, goal cells, the
    /// pattern's pieces, the ranking's version): the artifact's fingerprint.
    fn parameters(&self, key: &mut Fingerprint);

    /// Placements: states are `0..len`.
    fn len(&self) -> u64;

    /// Whether there are no placements (never, for a valid abstraction).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cells of the board (at most [`MAX_CELLS`]).
    fn cells(&self) -> usize;

    /// The goal: its placement and the region of the goal's blank.
    fn goal(&self) -> (u64, u64);

    /// The free cells of `placement`.
    fn free(&self, placement: u64) -> u64;

    /// The region of `cell` among the free cells `free` (the cells connected to it through
    /// free cells).
    fn region(&self, free: u64, cell: usize) -> u64;

    /// Every move of a pattern piece of `placement` into the blank's `region`: `next` gets the
    /// placement it leads to and the blank's region there (around the cell the piece left).
    fn moves(&self, placement: u64, region: u64, next: &mut dyn FnMut(u64, u64));

    /// [`Abstraction::moves`] from every region of `placement` holding a cell of `front` (a
    /// union of whole regions); returns those regions' cells. An abstraction may do it in one
    /// decoding of the placement.
    fn expand(&self, placement: u64, front: u64, next: &mut dyn FnMut(u64, u64)) -> u64 {
        let free = self.free(placement);
        let (mut left, mut done) = (front, 0);
        while left != 0 {
            let region = self.region(free, left.trailing_zeros() as usize);
            left &= !region;
            done |= region;
            self.moves(placement, region, next);
        }
        done
    }
}

/// A pattern database's values, one per placement: a byte each, or two to a byte (4 bits,
/// placement `2i` in the low half of byte `i`) when every value is below 16.
#[derive(Debug, Clone, Copy)]
pub enum Values<'a> {
    Bytes(&'a [u8]),
    Nibbles(&'a [u8]),
}

impl Values<'_> {
    /// The fewest pattern moves from `placement` to the goal.
    #[inline]
    pub fn get(&self, placement: u64) -> u8 {
        match self {
            Values::Bytes(b) => b[placement as usize],
            Values::Nibbles(b) => (b[(placement / 2) as usize] >> ((placement % 2) * 4)) & 15,
        }
    }
}

/// A verified pattern database as a search reads it: the abstraction's id and its values.
#[derive(Debug, Clone, Copy)]
pub struct Database<'a> {
    pub id: &'a str,
    pub values: Values<'a>,
}
