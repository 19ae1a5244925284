//! Pictures of Huarong Dao boards and solutions, as strings (no IO):
//!
//! * [`text`]: a board in Unicode box drawing, pieces outlined, optionally coloured by kind with
//!   ANSI escapes; a solution as strips of numbered frames with the moved piece highlighted;
//! * [`svg`]: one board, or a whole solution as a grid of frames.

pub mod svg;
pub mod text;

use klotski::{Board, Kind, Piece};

/// One picture of a solution: a board, which piece just moved, and a caption.
#[derive(Debug, Clone)]
pub struct Frame {
    pub board: Board,
    /// The piece (as placed on this board) that moved to get here.
    pub moved: Option<Piece>,
    pub caption: String,
}

/// Frames of a path (start first): frame `i` is captioned `i` and highlights the piece that
/// moved from board `i − 1`.
pub fn frames(path: &[Board]) -> Vec<Frame> {
    path.iter()
        .enumerate()
        .map(|(i, b)| Frame {
            board: *b,
            moved: (i > 0).then(|| moved_piece(&path[i - 1], b)).flatten(),
            caption: i.to_string(),
        })
        .collect()
}

/// The piece of `to` that is not on `from` (the one a single move displaced).
pub fn moved_piece(from: &Board, to: &Board) -> Option<Piece> {
    let before: Vec<Piece> = from.pieces().collect();
    to.pieces().find(|p| !before.contains(p))
}

/// The character a piece is drawn with: its labeled notation character if the board is
/// labeled, else its kind's letter.
pub(crate) fn piece_char(board: &Board, p: &Piece, labeled: bool) -> char {
    if labeled {
        let text = klotski::render_labeled(board);
        let row = p.anchor as usize / klotski::board::COLS;
        let col = p.anchor as usize % klotski::board::COLS;
        text.split('/')
            .nth(row)
            .and_then(|r| r.chars().nth(col))
            .unwrap_or('?')
    } else {
        match p.kind {
            Kind::Cao => 'C',
            Kind::Horizontal => 'H',
            Kind::Vertical => 'V',
            Kind::Soldier => 'S',
        }
    }
}

/// Rows as an aligned text table under a header line; numeric columns are right-aligned.
/// Widths are display widths (a CJK character takes two columns).
pub fn table(headers: &[String], rows: &[Vec<String>]) -> String {
    use unicode_width::UnicodeWidthStr;
    let width = |i: usize| {
        rows.iter()
            .map(|r| r.get(i).map_or(0, |v| v.width()))
            .chain(std::iter::once(headers[i].width()))
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..headers.len()).map(width).collect();
    let numeric: Vec<bool> = (0..headers.len())
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .all(|v| v.is_empty() || v.parse::<f64>().is_ok())
        })
        .collect();
    let line = |cells: &mut dyn Iterator<Item = (usize, &str)>| -> String {
        let parts: Vec<String> = cells
            .map(|(i, v)| {
                let pad = widths[i].saturating_sub(v.width());
                if numeric[i] {
                    format!("{}{v}", " ".repeat(pad))
                } else {
                    format!("{v}{}", " ".repeat(pad))
                }
            })
            .collect();
        parts.join("  ").trim_end().to_owned()
    };
    let mut out = line(&mut headers.iter().map(String::as_str).enumerate());
    out.push('\n');
    let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
    out.push_str(&rule.join("  "));
    out.push('\n');
    for r in rows {
        out.push_str(&line(&mut r.iter().map(String::as_str).enumerate()));
        out.push('\n');
    }
    out
}
