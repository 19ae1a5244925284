//! Any sliding-block puzzle from a text file — Pennant, Quzzle, Century, Rush Hour, the sliding
//! tiles — as a pure model (no IO).
//!
//! A puzzle file is TOML:
//!
//! ```toml
//! name = "Pennant"
//! board = """
//! AABB
//! AACC
//! DE..
//! FGHH
//! FGII
//! """
//! goal = """
//! ....
//! ....
//! ....
//! AA..
//! AA..
//! """
//! moves = "free"        # or "lengthwise": wide pieces slide left/right, tall ones up/down
//! labeled = false       # true: every piece is told apart (sliding tiles)
//! distinct = ""         # letters told apart from their look-alikes, e.g. "A"
//! ```
//!
//! `board`: rows top first (newlines or `/` between them), all equally wide, at most 64 cells;
//! `.` empty, `#` a fixed wall, any other printable ASCII character one piece made of all the
//! cells bearing it (4-connected, any shape). Pieces of the same shape are interchangeable
//! unless `labeled` or listed in `distinct`. `goal`: each letter's cells must be covered by
//! that piece or one interchangeable with it; `.` constrains nothing.
//!
//! * [`file`]: the parser, errors naming the line, row, column or letter;
//! * [`model`]: bitboards, canonical codes (look-alikes sorted, combinatorial ranks), moves in
//!   the `step`, `straight` and `piece` metrics;
//! * [`search`]: optimal solutions without tables, bounded by a state budget;
//! * [`tiles`]: the sliding tiles (labeled 1×1 tiles, one blank) as a ranked space with a dense
//!   perfect ranking;
//! * [`pattern`]: the sliding tiles' abstract spaces for pattern databases (a group of tiles,
//!   the others forgotten), and [`ida`]: IDA* over those databases, optimal where no
//!   breadth-first search fits (the fifteen puzzle);
//! * [`driver`]: the `[sliding]` pipeline section and `huarong solve --puzzle`.

pub mod driver;
pub mod file;
pub mod ida;
pub mod large;
pub mod model;
pub mod pattern;
pub mod search;
pub mod tiles;

use huarong_core::picture::{Cell, Look, Picture};
use huarong_core::{DistanceSources, Fingerprint, InputError, Puzzle};

pub use file::{PuzzleError, parse, parse_tiles};
pub use model::{Axis, METRICS};

/// Version of the state encoding (part of every fingerprint): bump it when codes change meaning.
const ENCODING_VERSION: u64 = 1;

/// How pieces slide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// In all four directions.
    Free,
    /// Along their length (Rush Hour); square pieces freely.
    Lengthwise,
}

/// One sliding-block puzzle: its board, pieces and goal; the state space is every position
/// reachable from the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlidingPuzzle {
    pub name: String,
    /// The file's stem: the space's id.
    pub stem: String,
    pub motion: Motion,
    pub labeled: bool,
    pub layout: model::Layout,
    /// The board's code.
    pub start: u64,
    /// Goal requirements: class `c` has a piece at candidate `j`.
    pub goal: Vec<(usize, u8)>,
}

impl SlidingPuzzle {
    pub fn rows(&self) -> usize {
        self.layout.rows
    }

    pub fn cols(&self) -> usize {
        self.layout.cols
    }

    pub(crate) fn places(&self, code: u64) -> Vec<u8> {
        let mut p = vec![0u8; self.layout.pieces.max(1)];
        self.layout.decode(code, &mut p);
        p.truncate(self.layout.pieces);
        p
    }

    /// The letters of a position, row by row.
    pub fn rows_of(&self, code: u64) -> Vec<String> {
        let grid = self.layout.grid(&self.places(code));
        grid.chunks(self.cols())
            .map(|r| r.iter().collect())
            .collect()
    }

    /// The position as a picture: each piece its letter, coloured by class (the classes the
    /// goal names first).
    pub fn picture(&self, code: u64) -> Picture {
        let places = self.places(code);
        let mut cells = vec![Cell::Empty; self.rows() * self.cols()];
        for (i, c) in cells.iter_mut().enumerate() {
            if self.layout.walls >> i & 1 == 1 {
                *c = Cell::Wall;
            }
        }
        let in_goal = |k: usize| self.goal.iter().any(|g| g.0 == k);
        let mut order: Vec<usize> = (0..self.layout.classes.len()).collect();
        order.sort_by_key(|&k| (!in_goal(k), k));
        let colour = |k: usize| order.iter().position(|&o| o == k).unwrap_or(0) as u16;
        let mut pieces = Vec::new();
        for (k, class) in self.layout.classes.iter().enumerate() {
            for (i, &j) in places[class.offset..class.offset + class.len()]
                .iter()
                .enumerate()
            {
                let id = pieces.len() as u16;
                let mut m = class.masks[j as usize];
                while m != 0 {
                    cells[m.trailing_zeros() as usize] = Cell::Piece(id);
                    m &= m - 1;
                }
                pieces.push(Look {
                    label: class.letters[i],
                    class: colour(k),
                });
            }
        }
        Picture {
            rows: self.rows(),
            cols: self.cols(),
            cells,
            pieces,
            exit: None,
        }
    }
}

impl Puzzle for SlidingPuzzle {
    fn name(&self) -> &'static str {
        "sliding"
    }

    fn space_id(&self) -> String {
        self.stem.clone()
    }

    /// Everything that decides the positions, their codes and the moves: the board's size and
    /// walls, the motion, and every class (shape, letters, axis, candidates).
    fn parameters(&self, key: &mut Fingerprint) {
        let l = &self.layout;
        key.add_u64(ENCODING_VERSION)
            .add_u64(l.rows as u64)
            .add_u64(l.cols as u64)
            .add_u64(l.walls)
            .add_bool(self.motion == Motion::Lengthwise)
            .add_list(l.classes.len());
        for c in &l.classes {
            key.add_list(c.shape.cells.len());
            for &(r, col) in &c.shape.cells {
                key.add_u64(r as u64).add_u64(col as u64);
            }
            key.add_str(&c.letters.iter().collect::<String>())
                .add_u64(c.axis as u64)
                .add_bytes(&c.candidates);
        }
    }

    fn metrics(&self) -> &'static [&'static str] {
        &METRICS
    }

    /// The sliding tiles' count even beyond the ranked sizes (the fifteen puzzle's 16!/2).
    fn size_hint(&self) -> Option<u64> {
        tiles::count(self)
    }

    fn starts(&self) -> Vec<u64> {
        vec![self.start]
    }

    /// Straight and piece moves are runs of steps, and a step is one of each: the three metrics
    /// reach the same positions, and steps are the cheapest to generate.
    fn explore_metrics(&self) -> Vec<usize> {
        vec![0]
    }

    fn successors(&self, code: u64, metric: usize, out: &mut Vec<u64>) {
        self.layout.successors(code, metric, out);
    }

    fn is_goal(&self, code: u64) -> bool {
        self.goal.iter().all(|&(c, j)| self.layout.has(code, c, j))
    }

    fn render(&self, code: u64) -> String {
        self.rows_of(code).join("/")
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        self.position(text)
    }

    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Goals
    }
}

impl SlidingPuzzle {
    /// The code of a position written like the board (rows joined by `/` or newlines): every
    /// piece of the board once, with its shape, on a place its class may take.
    pub fn position(&self, text: &str) -> Result<u64, InputError> {
        let rows: Vec<Vec<char>> = text
            .split(['/', '\n'])
            .map(|r| r.trim().chars().collect::<Vec<char>>())
            .filter(|r| !r.is_empty())
            .collect();
        let (nr, nc) = (self.rows(), self.cols());
        if rows.len() != nr || rows.iter().any(|r| r.len() != nc) {
            return Err(InputError(format!("expected {nr} rows of {nc} cells")));
        }
        let mut cells: std::collections::BTreeMap<char, Vec<(usize, usize)>> = Default::default();
        for (r, row) in rows.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                let wall = self.layout.walls >> (r * nc + c) & 1 == 1;
                match (ch, wall) {
                    ('#', true) => {}
                    ('#', false) => {
                        return Err(InputError(format!(
                            "row {}, column {}: no wall here",
                            r + 1,
                            c + 1
                        )));
                    }
                    (_, true) => {
                        return Err(InputError(format!(
                            "row {}, column {}: a wall belongs here",
                            r + 1,
                            c + 1
                        )));
                    }
                    ('.', false) => {}
                    (_, false) => cells.entry(ch).or_default().push((r, c)),
                }
            }
        }
        let mut places = vec![0u8; self.layout.pieces];
        let mut filled = vec![0usize; self.layout.classes.len()];
        for (letter, cs) in &cells {
            let Some(k) = self
                .layout
                .classes
                .iter()
                .position(|cl| cl.letters.contains(letter))
            else {
                return Err(InputError(format!(
                    "{letter:?} is not a piece of {}",
                    self.name
                )));
            };
            let class = &self.layout.classes[k];
            let (shape, (r, c)) = model::Shape::of(cs);
            if shape != class.shape {
                return Err(InputError(format!("{letter:?} has the wrong shape")));
            }
            let j = class.candidate(r * nc + c).ok_or_else(|| {
                format!("{letter:?} cannot stand at row {}, column {}", r + 1, c + 1)
            })?;
            places[class.offset + filled[k]] = j;
            filled[k] += 1;
        }
        for (k, class) in self.layout.classes.iter().enumerate() {
            if filled[k] != class.len() {
                return Err(InputError(format!(
                    "{} of the pieces {} are on the board, {} expected",
                    filled[k],
                    class.letters.iter().collect::<String>(),
                    class.len()
                )));
            }
        }
        Ok(self.layout.encode(&places))
    }
}
