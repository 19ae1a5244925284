//! A board as a picture, whatever the puzzle: a grid of cells, each empty, a wall, or part of a
//! piece with a label and a colour class. Puzzles describe their positions this way; the
//! `render` crate draws any of them (box drawing, SVG) without knowing the puzzle.

use std::ops::Range;

/// One cell of a picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Empty,
    /// A fixed wall.
    Wall,
    /// Part of piece number `k` (an index into [`Picture::pieces`]).
    Piece(u16),
}

/// How a piece looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// The character in each of its cells.
    pub label: char,
    /// Its colour class (pieces of one class share a colour; class 0 is the eye-catching one).
    pub class: u16,
}

/// A board: `rows × cols` cells in row-major order, and the pieces' looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Cell>,
    pub pieces: Vec<Look>,
    /// Columns of the bottom edge that are an exit (drawn open), if the puzzle has one.
    pub exit: Option<Range<usize>>,
}

impl Picture {
    /// The cell at row `r`, column `c`.
    pub fn at(&self, r: usize, c: usize) -> Cell {
        self.cells[r * self.cols + c]
    }

    /// The sorted cells of piece `k`.
    pub fn cells_of(&self, k: u16) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == Cell::Piece(k))
            .collect()
    }

    /// The piece of `self` that `before` does not have (same cells and look): the one a single
    /// move displaced.
    pub fn moved_from(&self, before: &Picture) -> Option<u16> {
        let placed = |p: &Picture, k: u16| (p.cells_of(k), p.pieces[k as usize]);
        let old: Vec<_> = (0..before.pieces.len() as u16)
            .map(|k| placed(before, k))
            .collect();
        (0..self.pieces.len() as u16).find(|&k| !old.contains(&placed(self, k)))
    }
}

/// One picture of a solution: a board, the piece that just moved, and a caption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub picture: Picture,
    pub moved: Option<u16>,
    pub caption: String,
}

/// Frames of a path (start first): frame `i` is captioned `i` and highlights the piece that
/// moved from picture `i − 1`.
pub fn frames(path: &[Picture]) -> Vec<Frame> {
    path.iter()
        .enumerate()
        .map(|(i, p)| Frame {
            picture: p.clone(),
            moved: (i > 0).then(|| p.moved_from(&path[i - 1])).flatten(),
            caption: i.to_string(),
        })
        .collect()
}
