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

    /// The piece of `self` that a single move from `before` displaced: the piece on a cell that
    /// is empty in `before` (a move always fills at least one empty cell). One pass over the
    /// cells; `None` when nothing moved. With the pictures swapped it names the piece's index in
    /// `before`.
    pub fn moved_from(&self, before: &Picture) -> Option<u16> {
        self.cells
            .iter()
            .zip(&before.cells)
            .find_map(|(now, was)| match (now, was) {
                (Cell::Piece(k), Cell::Empty) => Some(*k),
                _ => None,
            })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(cells: &str) -> Picture {
        // Pieces are numbered in the order their letters first appear.
        let mut letters: Vec<char> = Vec::new();
        let cells = cells
            .chars()
            .filter(|&ch| ch != '/')
            .map(|ch| match ch {
                '.' => Cell::Empty,
                '#' => Cell::Wall,
                _ => {
                    if !letters.contains(&ch) {
                        letters.push(ch);
                    }
                    Cell::Piece(letters.iter().position(|&l| l == ch).unwrap() as u16)
                }
            })
            .collect();
        Picture {
            rows: 2,
            cols: 3,
            cells,
            pieces: letters
                .iter()
                .map(|&label| Look { label, class: 0 })
                .collect(),
            exit: None,
        }
    }

    #[test]
    fn the_moved_piece_is_named_in_either_picture() {
        // The 2-cell piece B slides right.
        let before = picture("BB./A#C");
        let after = picture(".BB/A#C");
        assert_eq!(after.moved_from(&before), Some(0));
        assert_eq!(before.moved_from(&after), Some(0));
        assert_eq!(after.cells_of(0), vec![1, 2]);
        // A moves down-left: before it is piece 0, after it is piece 1 (B comes first).
        let before = picture("A.B/.#.");
        let after = picture("..B/A#.");
        assert_eq!(after.moved_from(&before), Some(1));
        assert_eq!(before.moved_from(&after), Some(0));
        assert_eq!(before.moved_from(&before), None);
    }
}
