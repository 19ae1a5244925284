//! The Rush Hour universe as a pure model (no IO).
//!
//! Michael Fogleman's definitions ("Solving Rush Hour, the Puzzle", 2018): an `N × N` board
//! whose exit is the right end of row 2; the red car `A` (horizontal, 2 cells) alone in that
//! row but for walls left of it; cars (2) and trucks (3) sliding along their row or column;
//! at most `W` fixed 1×1 walls; in every row the horizontal pieces and walls, in every column
//! the vertical pieces, cover fewer than `N` cells. A move slides one piece any distance. A
//! *cluster* is a connected component of the move graph over all such layouts; its *puzzle* is
//! its layout farthest from the goals (ties: the smallest mask of horizontal cells, then of
//! vertical ones, then the class rank); the puzzle is *minimal* if removing any piece but the red car makes it need
//! fewer moves. The database holds the minimal puzzle of every solvable cluster.
//!
//! - [`board`]: one layout, its notation, moves and a bounded breadth-first solver.
//! - [`class`]: a class (walls and every row's piece lengths) as a densely ranked space.
//! - [`universe`]: every class searched in memory — clusters, distances, puzzles, the
//!   database ([`Census`]).
//! - [`driver`]: the `[rush-hour]` pipeline section and its universe.
//! - [`reference`]: a deliberately plain census to check the universe's against.

pub mod board;
pub mod class;
pub mod driver;
pub mod reference;
pub mod universe;

pub use board::{Board, BoardError};
pub use universe::{Census, Puzzle, Universe, UniverseError, class_census};
