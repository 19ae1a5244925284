//! Boards in Unicode box drawing. Each cell is three characters wide; lines separate different
//! pieces (and pieces from empty cells), so every piece reads as one outlined block with its
//! letter in each of its cells. The exit (bottom edge, columns 2–3) is drawn dashed.
//!
//! With colour, pieces get an ANSI background by kind (Cao Cao red, horizontal generals yellow,
//! vertical generals blue, soldiers green) and the moved piece a bright one; without colour the
//! moved piece's cells are shaded `░`.

use klotski::board::{COLS, ROWS};
use klotski::{Board, Kind, Piece};

use crate::{Frame, piece_char};

/// Width in characters of one drawn board.
pub const BOARD_WIDTH: usize = 4 * COLS + 1;
/// Lines of one drawn board.
pub const BOARD_HEIGHT: usize = 2 * ROWS + 1;

/// How to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Draw labeled characters (generals `H`–`N`, `1`–`7`, soldiers `a`–`n`).
    pub labeled: bool,
    /// ANSI colours.
    pub colour: bool,
}

/// The lines of one board (each [`BOARD_WIDTH`] characters wide, colour escapes aside).
pub fn board_lines(board: &Board, moved: Option<&Piece>, style: Style) -> Vec<String> {
    let pieces: Vec<Piece> = board.pieces().collect();
    // The index of the piece covering each cell.
    let mut owner: [Option<usize>; ROWS * COLS] = [None; ROWS * COLS];
    for (k, p) in pieces.iter().enumerate() {
        let mut m = p.mask();
        while m != 0 {
            owner[m.trailing_zeros() as usize] = Some(k);
            m &= m - 1;
        }
    }
    // Cell (r, c) or outside the board.
    let at = |r: isize, c: isize| -> Option<Option<usize>> {
        ((0..ROWS as isize).contains(&r) && (0..COLS as isize).contains(&c))
            .then(|| owner[r as usize * COLS + c as usize])
    };
    // A line between two neighbouring cells: different pieces, a piece and a hole, or the edge.
    let split = |a: Option<Option<usize>>, b: Option<Option<usize>>| match (a, b) {
        (None, None) => false,
        (None, _) | (_, None) => true,
        (Some(x), Some(y)) => x != y,
    };
    // Horizontal edge above cell (r, c); vertical edge left of cell (r, c).
    let h_edge = |r: isize, c: isize| split(at(r - 1, c), at(r, c));
    let v_edge = |r: isize, c: isize| split(at(r, c - 1), at(r, c));
    let moved_k = moved.and_then(|m| pieces.iter().position(|p| p == m));

    let mut lines = Vec::with_capacity(BOARD_HEIGHT);
    for r in 0..=ROWS as isize {
        // The line of edges above row r.
        let mut line = String::new();
        for c in 0..=COLS as isize {
            let up = r > 0 && v_edge(r - 1, c);
            let down = r < ROWS as isize && v_edge(r, c);
            let left = c > 0 && h_edge(r, c - 1);
            let right = c < COLS as isize && h_edge(r, c);
            // Inside the dashed exit the joint is dashed too.
            let in_exit = r == ROWS as isize && c == 2 && !up;
            line.push(if in_exit {
                '╌'
            } else {
                junction(up, down, left, right)
            });
            if c < COLS as isize {
                let exit = r == ROWS as isize && (c == 1 || c == 2);
                line.push_str(match (h_edge(r, c), exit) {
                    (true, true) => "╌╌╌",
                    (true, false) => "───",
                    (false, _) => "   ",
                });
            }
        }
        lines.push(line);
        if r == ROWS as isize {
            break;
        }
        // The row of cells, each preceded by its left edge (or gap).
        let mut line = String::new();
        for c in 0..=COLS as isize {
            let left = (c > 0)
                .then(|| owner[r as usize * COLS + c as usize - 1])
                .flatten();
            let cell = (c < COLS as isize)
                .then(|| owner[r as usize * COLS + c as usize])
                .flatten();
            if v_edge(r, c) {
                line.push('│');
            } else if let (true, Some(k)) = (left == cell, cell) {
                // The gap inside a piece looks like the piece, so it reads as one block.
                let hot = Some(k) == moved_k;
                if style.colour {
                    let (bg, _) = colour(pieces[k].kind, hot);
                    line.push_str(&format!("\x1b[{bg}m \x1b[0m"));
                } else {
                    line.push(if hot { '░' } else { ' ' });
                }
            } else {
                line.push(' ');
            }
            if c == COLS as isize {
                break;
            }
            line.push_str(&match cell {
                None => "   ".to_owned(),
                Some(k) => {
                    let ch = piece_char(board, &pieces[k], style.labeled);
                    let hot = Some(k) == moved_k;
                    if style.colour {
                        let (bg, fg) = colour(pieces[k].kind, hot);
                        let bold = if hot { ";1" } else { "" };
                        format!("\x1b[{bg};{fg}{bold}m {ch} \x1b[0m")
                    } else if hot {
                        format!("░{ch}░")
                    } else {
                        format!(" {ch} ")
                    }
                }
            });
        }
        lines.push(line);
    }
    lines
}

/// ANSI background and foreground codes per kind; `hot` for the moved piece.
fn colour(kind: Kind, hot: bool) -> (u8, u8) {
    let base = match kind {
        Kind::Cao => 41,
        Kind::Horizontal => 43,
        Kind::Vertical => 44,
        Kind::Soldier => 42,
    };
    if hot { (base + 60, 30) } else { (base, 97) }
}

/// The box-drawing character joining the given arms.
fn junction(up: bool, down: bool, left: bool, right: bool) -> char {
    match (up, down, left, right) {
        (false, false, false, false) => ' ',
        (true, true, true, true) => '┼',
        (false, true, true, true) => '┬',
        (true, false, true, true) => '┴',
        (true, true, false, true) => '├',
        (true, true, true, false) => '┤',
        (false, true, false, true) => '┌',
        (false, true, true, false) => '┐',
        (true, false, false, true) => '└',
        (true, false, true, false) => '┘',
        (true, true, false, false) => '│',
        (false, false, true, true) => '─',
        (true, false, false, false) => '╵',
        (false, true, false, false) => '╷',
        (false, false, true, false) => '╴',
        (false, false, false, true) => '╶',
    }
}

/// Frames side by side, as many per strip as fit in `width` columns, each with its caption
/// above it; strips separated by a blank line.
pub fn strips(frames: &[Frame], style: Style, width: usize) -> String {
    const GAP: usize = 2;
    let per = ((width + GAP) / (BOARD_WIDTH + GAP)).max(1);
    let mut out = String::new();
    for (s, chunk) in frames.chunks(per).enumerate() {
        if s > 0 {
            out.push('\n');
        }
        let drawn: Vec<Vec<String>> = chunk
            .iter()
            .map(|f| board_lines(&f.board, f.moved.as_ref(), style))
            .collect();
        let captions: Vec<String> = chunk
            .iter()
            .map(|f| format!("{:^w$}", f.caption, w = BOARD_WIDTH))
            .collect();
        out.push_str(captions.join(&" ".repeat(GAP)).trim_end());
        out.push('\n');
        for line in 0..BOARD_HEIGHT {
            let row: Vec<&str> = drawn.iter().map(|d| d[line].as_str()).collect();
            out.push_str(row.join(&" ".repeat(GAP)).trim_end());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use klotski::parse;

    const PLAIN: Style = Style {
        labeled: false,
        colour: false,
    };

    #[test]
    fn hengdao_lima_plain() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let lines = board_lines(&b, None, PLAIN);
        assert!(lines.iter().all(|l| l.chars().count() == BOARD_WIDTH));
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn labeled_with_a_moved_piece() {
        let p = parse("1CC2/1CC2/3HH4/3ab4/c.d.").unwrap();
        let moved = p.board.pieces().find(|x| x.anchor == 18);
        let lines = board_lines(
            &p.board,
            moved.as_ref(),
            Style {
                labeled: true,
                colour: false,
            },
        );
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn coloured_cells_keep_the_width() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let style = Style {
            labeled: false,
            colour: true,
        };
        for line in board_lines(&b, None, style) {
            let mut visible = String::new();
            let mut in_escape = false;
            for ch in line.chars() {
                match (in_escape, ch) {
                    (false, '\x1b') => in_escape = true,
                    (true, 'm') => in_escape = false,
                    (false, c) => visible.push(c),
                    _ => {}
                }
            }
            assert_eq!(visible.chars().count(), BOARD_WIDTH, "{visible:?}");
        }
    }

    #[test]
    fn strip_of_a_short_solution() {
        let path: Vec<Board> = ["VCCV/VCCV/VHHV/VSSV/S..S", "VCCV/VCCV/VHHV/V.SV/SS.S"]
            .iter()
            .map(|l| parse(l).unwrap().board)
            .collect();
        let frames = crate::frames(&path);
        insta::assert_snapshot!(strips(&frames, PLAIN, 80));
    }
}
