//! Boards in Unicode box drawing, for any puzzle's [`Picture`]. Each cell is three characters
//! wide; lines separate different pieces (and pieces from empty cells and walls), so every
//! piece reads as one outlined block with its label in each of its cells. Walls are shaded
//! `▓`; an exit on the bottom edge is drawn dashed.
//!
//! With colour, pieces get an ANSI background by colour class (class 0 red, then yellow,
//! blue, green, magenta, cyan) and the moved piece a bright one; without colour the moved
//! piece's cells are shaded `░`.

use huarong_core::picture::{Cell, Frame, Picture};

/// Width in characters of a drawn board of `cols` columns.
pub fn board_width(cols: usize) -> usize {
    4 * cols + 1
}

/// Lines of a drawn board of `rows` rows.
pub fn board_height(rows: usize) -> usize {
    2 * rows + 1
}

/// How to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// ANSI colours.
    pub colour: bool,
}

/// Who covers a cell: a piece, the walls (one block), or nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Piece(u16),
    Wall,
}

fn owner(cell: Cell) -> Option<Owner> {
    match cell {
        Cell::Empty => None,
        Cell::Wall => Some(Owner::Wall),
        Cell::Piece(k) => Some(Owner::Piece(k)),
    }
}

/// The lines of one board (each [`board_width`] characters wide, colour escapes aside).
pub fn board_lines(picture: &Picture, moved: Option<u16>, style: Style) -> Vec<String> {
    let (rows, cols) = (picture.rows as isize, picture.cols as isize);
    // Cell (r, c) or outside the board.
    let at = |r: isize, c: isize| -> Option<Option<Owner>> {
        ((0..rows).contains(&r) && (0..cols).contains(&c))
            .then(|| owner(picture.at(r as usize, c as usize)))
    };
    // A line between two neighbouring cells: different pieces, a piece and a hole, or the edge.
    let split = |a: Option<Option<Owner>>, b: Option<Option<Owner>>| match (a, b) {
        (None, None) => false,
        (None, _) | (_, None) => true,
        (Some(x), Some(y)) => x != y,
    };
    // Horizontal edge above cell (r, c); vertical edge left of cell (r, c).
    let h_edge = |r: isize, c: isize| split(at(r - 1, c), at(r, c));
    let v_edge = |r: isize, c: isize| split(at(r, c - 1), at(r, c));
    let exit = picture.exit.clone().unwrap_or(0..0);
    let in_exit = |c: isize| c >= 0 && exit.contains(&(c as usize));
    let fill = |o: Owner, inner: bool| -> String {
        match o {
            Owner::Wall => (if inner { "▓" } else { "▓▓▓" }).to_owned(),
            Owner::Piece(k) => {
                let hot = Some(k) == moved;
                let look = picture.pieces[k as usize];
                if style.colour {
                    let (bg, fg) = colour(look.class, hot);
                    if inner {
                        format!("\x1b[{bg}m \x1b[0m")
                    } else {
                        let bold = if hot { ";1" } else { "" };
                        format!("\x1b[{bg};{fg}{bold}m {} \x1b[0m", look.label)
                    }
                } else if inner {
                    (if hot { "░" } else { " " }).to_owned()
                } else if hot {
                    format!("░{}░", look.label)
                } else {
                    format!(" {} ", look.label)
                }
            }
        }
    };

    let mut lines = Vec::with_capacity(board_height(picture.rows));
    for r in 0..=rows {
        // The line of edges above row r.
        let mut line = String::new();
        for c in 0..=cols {
            let up = r > 0 && v_edge(r - 1, c);
            let down = r < rows && v_edge(r, c);
            let left = c > 0 && h_edge(r, c - 1);
            let right = c < cols && h_edge(r, c);
            // Inside the dashed exit the joint is dashed too.
            let dashed_joint = r == rows && in_exit(c - 1) && in_exit(c) && !up;
            line.push(if dashed_joint {
                '╌'
            } else {
                junction(up, down, left, right)
            });
            if c < cols {
                line.push_str(match (h_edge(r, c), r == rows && in_exit(c)) {
                    (true, true) => "╌╌╌",
                    (true, false) => "───",
                    (false, _) => "   ",
                });
            }
        }
        lines.push(line);
        if r == rows {
            break;
        }
        // The row of cells, each preceded by its left edge (or gap).
        let mut line = String::new();
        for c in 0..=cols {
            let left = (c > 0).then(|| at(r, c - 1).flatten()).flatten();
            let cell = (c < cols).then(|| at(r, c).flatten()).flatten();
            if v_edge(r, c) {
                line.push('│');
            } else if let (true, Some(o)) = (left == cell, cell) {
                // The gap inside a piece looks like the piece, so it reads as one block.
                line.push_str(&fill(o, true));
            } else {
                line.push(' ');
            }
            if c == cols {
                break;
            }
            line.push_str(&match cell {
                None => "   ".to_owned(),
                Some(o) => fill(o, false),
            });
        }
        lines.push(line);
    }
    lines
}

/// ANSI background and foreground codes per colour class; `hot` for the moved piece.
fn colour(class: u16, hot: bool) -> (u8, u8) {
    const BACKGROUNDS: [u8; 6] = [41, 43, 44, 42, 45, 46];
    let base = BACKGROUNDS[class as usize % BACKGROUNDS.len()];
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
    let Some(first) = frames.first() else {
        return String::new();
    };
    let (bw, bh) = (
        board_width(first.picture.cols),
        board_height(first.picture.rows),
    );
    let per = ((width + GAP) / (bw + GAP)).max(1);
    let mut out = String::new();
    for (s, chunk) in frames.chunks(per).enumerate() {
        if s > 0 {
            out.push('\n');
        }
        let drawn: Vec<Vec<String>> = chunk
            .iter()
            .map(|f| board_lines(&f.picture, f.moved, style))
            .collect();
        let captions: Vec<String> = chunk
            .iter()
            .map(|f| format!("{:^w$}", f.caption, w = bw))
            .collect();
        out.push_str(captions.join(&" ".repeat(GAP)).trim_end());
        out.push('\n');
        for line in 0..bh {
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
    use huarong_core::picture::frames;
    use klotski::{parse, picture};

    const PLAIN: Style = Style { colour: false };

    #[test]
    fn hengdao_lima_plain() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let lines = board_lines(&picture(&b, false), None, PLAIN);
        assert!(lines.iter().all(|l| l.chars().count() == board_width(4)));
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn labeled_with_a_moved_piece() {
        let p = parse("1CC2/1CC2/3HH4/3ab4/c.d.").unwrap();
        let pic = picture(&p.board, true);
        // The soldier `d` at row 4, column 2.
        let moved = match pic.at(4, 2) {
            Cell::Piece(k) => k,
            other => panic!("{other:?}"),
        };
        let lines = board_lines(&pic, Some(moved), PLAIN);
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn coloured_cells_keep_the_width() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let style = Style { colour: true };
        for line in board_lines(&picture(&b, false), None, style) {
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
            assert_eq!(visible.chars().count(), board_width(4), "{visible:?}");
        }
    }

    #[test]
    fn strip_of_a_short_solution() {
        let path: Vec<Picture> = ["VCCV/VCCV/VHHV/VSSV/S..S", "VCCV/VCCV/VHHV/V.SV/SS.S"]
            .iter()
            .map(|l| picture(&parse(l).unwrap().board, false))
            .collect();
        insta::assert_snapshot!(strips(&frames(&path), PLAIN, 80));
    }

    #[test]
    fn walls_and_odd_shapes_are_outlined() {
        use huarong_core::picture::Look;
        // An L-shaped piece, a wall and an empty cell on a 2 x 3 board.
        let pic = Picture {
            rows: 2,
            cols: 3,
            cells: vec![
                Cell::Piece(0),
                Cell::Wall,
                Cell::Empty,
                Cell::Piece(0),
                Cell::Piece(0),
                Cell::Piece(1),
            ],
            pieces: vec![
                Look {
                    label: 'L',
                    class: 0,
                },
                Look {
                    label: 'x',
                    class: 1,
                },
            ],
            exit: None,
        };
        insta::assert_snapshot!(board_lines(&pic, Some(1), PLAIN).join("\n"));
    }
}
