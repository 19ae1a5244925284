//! Huarong Dao (华容道, Klotski) as a pure model — no IO.
//!
//! * [`board`]: the 4 × 5 board, pieces, piece sets, compact codes, moves in the three metrics
//!   (`step`, `straight`, `piece`), the goal test and the left-right mirror;
//! * [`notation`]: parsing and rendering layouts, unlabeled (`VCCV/VCCV/VHHV/VSSV/S..S`) and
//!   labeled (`1CC2/1CC2/3HH4/3ab4/c..d`), with precise errors;
//! * [`space`]: the unlabeled and labeled state spaces with perfect rankings, both implementing
//!   [`huarong_core::Puzzle`];
//! * [`bits`]: bitboards (per piece, the mask of anchors where it fits), the fast move generator
//!   of the spaces and the cold solver;
//! * [`codes`]: dnomd343/klotski's CommonCode and ShortCode of a layout, both ways;
//! * [`perm`]: Lehmer ranks of the label permutations and the label shifts of a move;
//! * [`solve`]: optimal solutions without tables (breadth-first search on bitboards);
//! * [`named`]: the named layouts of the records table;
//! * [`picture`]: a board as a [`huarong_core::picture::Picture`] for the `render` crate;
//! * [`goal`]: a layout as a sliding-block puzzle file, for goals other than the exit;
//! * [`driver`]: the family's registry entry — the `[huarong]` pipeline section, its spaces and
//!   records, and the layout reader of `huarong solve` and `huarong render`.

pub mod bits;
pub mod board;
pub mod codes;
pub mod database;
pub mod driver;
pub mod goal;
pub mod named;
pub mod notation;
pub mod perm;
pub mod picture;
pub mod solve;
pub mod space;

pub use board::{Board, Kind, Metric, Move, Piece, PieceSet, PieceSetError};
pub use notation::{LayoutError, Parsed, parse, render, render_labeled};
pub use picture::picture;
pub use space::{Labeled, SpaceError, Unlabeled};
