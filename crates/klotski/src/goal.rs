//! A Huarong Dao layout as a sliding-block puzzle (the `sliding` crate), for `huarong solve
//! LAYOUT --goal ROW,COL`: Cao Cao's top-left cell to any place, not only the exit. The puzzle
//! file gives every piece its own letter; look-alikes stay interchangeable unless the layout is
//! labeled. Paths come back in the layout notation.

use std::collections::HashMap;

use huarong_core::driver::{Instance, SolveError, SolvedPath, Step};
use huarong_core::picture::Picture;
use huarong_core::{InputError, Puzzle};
use sliding::driver::PuzzleInstance;

use crate::board::{COLS, ROWS};
use crate::{Board, Kind};

/// The puzzle file of `board` with Cao Cao's top-left cell at `goal` as the goal, and the
/// layout character of every letter it uses.
pub fn puzzle_file(
    board: &Board,
    labeled: bool,
    goal: (usize, usize),
) -> Result<(String, HashMap<char, char>), InputError> {
    let (gr, gc) = goal;
    if gr > ROWS - 2 || gc > COLS - 2 {
        return Err(InputError(format!(
            "goal {gr},{gc}: Cao Cao's top-left cell must be within rows 0-{} and columns 0-{}",
            ROWS - 2,
            COLS - 2
        )));
    }
    let notation: Vec<char> = if labeled {
        crate::render_labeled(board)
    } else {
        crate::render(board)
    }
    .chars()
    .filter(|&c| c != '/')
    .collect();
    let mut cells = vec!['.'; ROWS * COLS];
    let mut back = HashMap::new();
    let mut cao = 'A';
    for (k, p) in board.pieces().enumerate() {
        let letter = (b'A' + k as u8) as char;
        if p.kind == Kind::Cao {
            cao = letter;
        }
        back.insert(letter, notation[p.anchor as usize]);
        let mut m = p.mask();
        while m != 0 {
            cells[m.trailing_zeros() as usize] = letter;
            m &= m - 1;
        }
    }
    let mut goal_cells = vec!['.'; ROWS * COLS];
    for (dr, dc) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        goal_cells[(gr + dr) * COLS + gc + dc] = cao;
    }
    let rows = |g: &[char]| -> String {
        g.chunks(COLS)
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = format!(
        "name = \"Huarong Dao, Cao Cao to {gr},{gc}\"\nboard = \"\"\"\n{}\n\"\"\"\n\
         goal = \"\"\"\n{}\n\"\"\"\nlabeled = {labeled}\n",
        rows(&cells),
        rows(&goal_cells)
    );
    Ok((text, back))
}

/// A layout to solve towards another goal than the exit.
#[derive(Debug)]
pub struct GoalInstance {
    inner: PuzzleInstance,
    /// Puzzle letter → layout character.
    back: HashMap<char, char>,
    labeled: bool,
}

impl GoalInstance {
    pub fn new(board: &Board, labeled: bool, goal: (usize, usize)) -> Result<Self, InputError> {
        let (text, back) = puzzle_file(board, labeled, goal)?;
        let puzzle = sliding::parse(&text, "huarong-goal").map_err(|e| e.to_string())?;
        let start = puzzle.start;
        Ok(GoalInstance {
            inner: PuzzleInstance::new(puzzle, start),
            back,
            labeled,
        })
    }

    /// The layout of a puzzle position.
    fn layout(&self, code: u64) -> String {
        self.inner
            .puzzle
            .rows_of(code)
            .iter()
            .map(|row| {
                row.chars()
                    .map(|c| self.back.get(&c).copied().unwrap_or(c))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    fn picture_of(&self, layout: &str) -> Picture {
        let parsed = crate::parse(layout).expect("a mapped position is a layout");
        crate::picture(&parsed.board, self.labeled)
    }
}

impl Instance for GoalInstance {
    fn describe(&self) -> (&'static str, String) {
        ("layout", self.start())
    }

    fn start(&self) -> String {
        self.layout(self.inner.start)
    }

    /// Pipelines build Huarong Dao spaces towards the exit only: no tables.
    fn table_space(&self) -> Option<(&dyn Puzzle, u64)> {
        None
    }

    /// Piece moves, as a layout's ([`crate::driver`]).
    fn default_metric(&self) -> Option<&'static str> {
        Some(crate::Metric::Piece.name())
    }

    fn solve(
        &self,
        metric: &str,
        _distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<SolvedPath>, SolveError> {
        let m = huarong_core::metric_index(&self.inner.puzzle, metric)
            .ok_or_else(|| SolveError::Metric(metric.to_owned()))?;
        Ok(self.inner.path(m, None, limit)?.map(|codes| {
            let layouts: Vec<String> = codes.iter().map(|&c| self.layout(c)).collect();
            SolvedPath {
                pictures: layouts.iter().map(|l| self.picture_of(l)).collect(),
                layouts,
            }
        }))
    }

    fn picture(&self) -> Picture {
        self.picture_of(&self.start())
    }

    fn moves(&self, metric: &str) -> Result<Vec<Step>, SolveError> {
        Ok(self
            .inner
            .moves(metric)?
            .into_iter()
            .map(|s| {
                let position = self.layout(s.code.expect("puzzle steps have codes"));
                Step {
                    picture: self.picture_of(&position),
                    position,
                    code: None,
                }
            })
            .collect())
    }
}
