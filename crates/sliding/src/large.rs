//! Sliding tiles too many for a position code: the twenty-four puzzle's 25! orderings need 84
//! bits, more than the 64 of a [`crate::SlidingPuzzle`]'s code. Such a board has no space to
//! build, but its pattern databases ([`crate::pattern`]) and its positions' optimal solutions
//! by IDA* ([`crate::ida`]) work on every tile's cell, which is what a position is here.

use huarong_core::InputError;
use huarong_core::picture::{Cell, Look, Picture};

use crate::pattern::TileBoard;

/// A sliding-tiles puzzle file of up to 64 cells read cell by cell ([`crate::file::parse_tiles`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LargeTiles {
    pub name: String,
    /// The file's name without `.toml`.
    pub stem: String,
    pub board: TileBoard,
    /// The board: every tile's cell and the blank's.
    pub start: Position,
}

/// A position: tile `t` on `cells[t]`, the blank on `blank`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub cells: Vec<u8>,
    pub blank: u8,
}

impl LargeTiles {
    /// The position written as the board's rows joined by `/` (or newlines): each tile's
    /// letter once, `.` the blank.
    pub fn position(&self, text: &str) -> Result<Position, InputError> {
        let b = &self.board;
        let rows: Vec<Vec<char>> = text
            .split(['/', '\n'])
            .map(|r| r.trim().chars().collect::<Vec<char>>())
            .filter(|r| !r.is_empty())
            .collect();
        if rows.len() != b.rows || rows.iter().any(|r| r.len() != b.cols) {
            return Err(InputError(format!(
                "expected {} rows of {} cells",
                b.rows, b.cols
            )));
        }
        let mut cells = vec![u8::MAX; b.tiles()];
        let mut blank = None;
        for (r, row) in rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let at = (r * b.cols + c) as u8;
                let here = || format!("row {}, column {}", r + 1, c + 1);
                if ch == '.' {
                    if blank.is_some() {
                        return Err(InputError(format!(
                            "{}: a second blank (the board has one)",
                            here()
                        )));
                    }
                    blank = Some(at);
                    continue;
                }
                let Some(t) = b.letters.iter().position(|&l| l == ch) else {
                    return Err(InputError(format!(
                        "{}: {ch:?} is not a tile of {}",
                        here(),
                        self.name
                    )));
                };
                if cells[t] != u8::MAX {
                    return Err(InputError(format!("{}: tile {ch:?} a second time", here())));
                }
                cells[t] = at;
            }
        }
        let blank = blank.ok_or("no blank ('.')")?;
        Ok(Position { cells, blank })
    }

    /// `p` as the board's rows joined by `/`.
    pub fn render(&self, p: &Position) -> String {
        let b = &self.board;
        let mut grid = vec!['.'; b.cells()];
        for (t, &c) in p.cells.iter().enumerate() {
            grid[c as usize] = b.letters[t];
        }
        grid.chunks(b.cols)
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// `p` as a picture (every tile its own colour class, in letter order).
    pub fn picture(&self, p: &Position) -> Picture {
        let b = &self.board;
        let mut cells = vec![Cell::Empty; b.cells()];
        for (t, &c) in p.cells.iter().enumerate() {
            cells[c as usize] = Cell::Piece(t as u16);
        }
        Picture {
            rows: b.rows,
            cols: b.cols,
            cells,
            pieces: b
                .letters
                .iter()
                .enumerate()
                .map(|(t, &label)| Look {
                    label,
                    class: t as u16,
                })
                .collect(),
            exit: None,
        }
    }

    /// Whether `p` reaches the goal: the parity of the permutation taking it to the goal (the
    /// blank included) equals the parity of the blank's distance to its goal cell, as every
    /// move swaps the blank with a neighbour.
    pub fn solvable(&self, p: &Position) -> bool {
        let b = &self.board;
        // Where each cell's content must go.
        let mut to = vec![0u8; b.cells()];
        for (t, &c) in p.cells.iter().enumerate() {
            to[c as usize] = b.goal[t];
        }
        to[p.blank as usize] = b.goal_blank;
        let mut seen = vec![false; to.len()];
        let mut odd = false;
        for start in 0..to.len() {
            let mut len = 0;
            let mut c = start;
            while !seen[c] {
                seen[c] = true;
                c = to[c] as usize;
                len += 1;
            }
            if len > 0 && len % 2 == 0 {
                odd = !odd;
            }
        }
        let (cols, x, y) = (b.cols, p.blank as usize, b.goal_blank as usize);
        let distance = (x / cols).abs_diff(y / cols) + (x % cols).abs_diff(y % cols);
        odd == (distance % 2 == 1)
    }

    /// Every position one move away from `p`: a tile next to the blank slid into it, the
    /// tiles above, left, right and below the blank in that order.
    pub fn moves(&self, p: &Position) -> Vec<Position> {
        let b = &self.board;
        let (r, c) = (p.blank as usize / b.cols, p.blank as usize % b.cols);
        let mut out = Vec::new();
        let mut next = |cell: usize| {
            let mut q = p.clone();
            if let Some(t) = q.cells.iter().position(|&x| x as usize == cell) {
                q.cells[t] = p.blank;
                q.blank = cell as u8;
                out.push(q);
            }
        };
        if r > 0 {
            next(p.blank as usize - b.cols);
        }
        if c > 0 {
            next(p.blank as usize - 1);
        }
        if c + 1 < b.cols {
            next(p.blank as usize + 1);
        }
        if r + 1 < b.rows {
            next(p.blank as usize + b.cols);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twenty_four() -> LargeTiles {
        let text = "name = \"t\"\nlabeled = true\nboard = \".1234/56789/ABCDE/FGHIJ/KLMNO\"\n\
                    goal = \".1234/56789/ABCDE/FGHIJ/KLMNO\"\n"
            .replace('/', "\\n");
        crate::file::parse_tiles(&text, "t").unwrap()
    }

    #[test]
    fn positions_are_read_written_and_told_solvable_by_parity() {
        let t = twenty_four();
        assert_eq!(t.board.tiles(), 24);
        assert_eq!(t.render(&t.start), ".1234/56789/ABCDE/FGHIJ/KLMNO");
        let p = t.position("1.234/56789/ABCDE/FGHIJ/KLMNO").unwrap();
        assert_eq!(t.render(&p), "1.234/56789/ABCDE/FGHIJ/KLMNO");
        assert!(t.solvable(&p));
        // Two tiles swapped: the other parity.
        let q = t.position(".2134/56789/ABCDE/FGHIJ/KLMNO").unwrap();
        assert!(!t.solvable(&q));
        // Every move keeps the parity.
        for m in t.moves(&p) {
            assert!(t.solvable(&m));
        }
        assert_eq!(t.moves(&t.start).len(), 2);
        for (bad, why) in [
            (".1234/56789/ABCDE/FGHIJ/KLMN", "expected 5 rows of 5 cells"),
            (
                ".1234/56789/ABCDE/FGHIJ/KLMNZ",
                "row 5, column 5: 'Z' is not a tile",
            ),
            (
                ".1134/56789/ABCDE/FGHIJ/KLMNO",
                "row 1, column 3: tile '1' a second time",
            ),
            (
                "..234/56789/ABCDE/FGHIJ/KLMNO",
                "row 1, column 2: a second blank",
            ),
        ] {
            let e = t.position(bad).unwrap_err();
            assert!(e.0.starts_with(why), "{bad}: {e}");
        }
    }
}
