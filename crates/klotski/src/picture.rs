//! A Huarong Dao board as a [`Picture`] for the `render` crate: pieces coloured by kind (Cao Cao
//! red, horizontal generals orange, vertical generals blue, soldiers green), labelled with their
//! notation character, and the exit under columns 2–3.

use huarong_core::picture::{Cell, Look, Picture};

use crate::board::{COLS, ROWS};
use crate::{Board, Kind};

/// The colour class of a kind.
fn class(kind: Kind) -> u16 {
    match kind {
        Kind::Cao => 0,
        Kind::Horizontal => 1,
        Kind::Vertical => 2,
        Kind::Soldier => 3,
    }
}

/// The picture of `board`; `labeled` draws the labeled characters (`H`–`N`, `1`–`7`, `a`–`n`).
pub fn picture(board: &Board, labeled: bool) -> Picture {
    let text = if labeled {
        crate::render_labeled(board)
    } else {
        crate::render(board)
    };
    let chars: Vec<char> = text.chars().filter(|&c| c != '/').collect();
    let mut cells = vec![Cell::Empty; ROWS * COLS];
    let mut pieces = Vec::new();
    for (k, p) in board.pieces().enumerate() {
        let mut m = p.mask();
        while m != 0 {
            cells[m.trailing_zeros() as usize] = Cell::Piece(k as u16);
            m &= m - 1;
        }
        pieces.push(Look {
            label: chars[p.anchor as usize],
            class: class(p.kind),
        });
    }
    Picture {
        rows: ROWS,
        cols: COLS,
        cells,
        pieces,
        exit: Some(1..3),
    }
}
