//! Layout notation: five rows of four cells, separated by `/` (or newlines on input).
//!
//! * **Unlabeled**: `C` Cao Cao, `H` horizontal general, `V` vertical general, `S` soldier, `.`
//!   empty. Vertical pieces pair top-down, horizontal ones left-right.
//! * **Labeled**: every piece has its own character: `C` Cao Cao; horizontal generals `H`–`N`
//!   (labels 0–6); vertical generals `1`–`7` (labels 0–6); soldiers `a`–`n` (labels 0–13); `.`
//!   empty. The `n` pieces of one kind carry exactly the first `n` labels of that kind. 横刀立马
//!   with labels in scan order is `1CC2/1CC2/3HH4/3ab4/c..d`.
//!
//! Rows and columns in error messages count from 1.

use crate::board::{Board, COLS, Kind, Piece, ROWS, mask_at};

/// What is wrong with a layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("expected 5 rows separated by '/' or newlines, found {found}")]
    RowCount { found: usize },
    #[error("row {row} has {found} cells, expected 4")]
    RowLength { row: usize, found: usize },
    #[error(
        "unknown character {ch:?} at row {row}, column {col} (use C H V S . or the labeled letters C H-N 1-7 a-n .)"
    )]
    UnknownChar { row: usize, col: usize, ch: char },
    #[error(
        "{ch:?} at row {row}, column {col} mixes notations: a layout is either unlabeled (C H V S .) or labeled (C H-N 1-7 a-n .)"
    )]
    MixedNotation { row: usize, col: usize, ch: char },
    #[error("{noun} {ch:?} at row {row}, column {col} is broken: {detail}")]
    BrokenPiece {
        noun: &'static str,
        ch: char,
        row: usize,
        col: usize,
        detail: &'static str,
    },
    #[error("no Cao Cao: the layout needs exactly one 2x2 block of 'C'")]
    NoCao,
    #[error("{found} Cao Cao blocks: the layout needs exactly one 2x2 block of 'C'")]
    TooManyCao { found: usize },
    #[error("only {found} empty cell(s): a layout needs at least 2")]
    TooFewEmpty { found: usize },
    #[error("label {ch:?} is used by two pieces (row {row}, column {col} is the second)")]
    DuplicateLabel { ch: char, row: usize, col: usize },
    #[error(
        "label {ch:?} at row {row}, column {col} is out of range: with {count} {noun}(s) the labels are the first {count} of that kind"
    )]
    LabelOutOfRange {
        ch: char,
        row: usize,
        col: usize,
        count: usize,
        noun: &'static str,
    },
}

/// A parsed layout: the board and whether it was written with labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parsed {
    pub board: Board,
    pub labeled: bool,
}

const UNLABELED_CHARS: &str = "CHVS.";

/// The labeled character of a piece.
pub fn labeled_char(kind: Kind, label: u8) -> char {
    match kind {
        Kind::Cao => 'C',
        Kind::Horizontal => (b'H' + label) as char,
        Kind::Vertical => (b'1' + label) as char,
        Kind::Soldier => (b'a' + label) as char,
    }
}

fn labeled_meaning(ch: char) -> Option<(Kind, u8)> {
    match ch {
        'C' => Some((Kind::Cao, 0)),
        'H'..='N' => Some((Kind::Horizontal, ch as u8 - b'H')),
        '1'..='7' => Some((Kind::Vertical, ch as u8 - b'1')),
        'a'..='n' => Some((Kind::Soldier, ch as u8 - b'a')),
        _ => None,
    }
}

fn unlabeled_meaning(ch: char) -> Option<Kind> {
    match ch {
        'C' => Some(Kind::Cao),
        'H' => Some(Kind::Horizontal),
        'V' => Some(Kind::Vertical),
        'S' => Some(Kind::Soldier),
        _ => None,
    }
}

/// Parses a layout in either notation (detected from its characters).
pub fn parse(text: &str) -> Result<Parsed, LayoutError> {
    let rows: Vec<&str> = text
        .split(['/', '\n'])
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .collect();
    if rows.len() != ROWS {
        return Err(LayoutError::RowCount { found: rows.len() });
    }
    let mut grid = [['.'; COLS]; ROWS];
    for (r, row) in rows.iter().enumerate() {
        let chars: Vec<char> = row.chars().collect();
        if chars.len() != COLS {
            return Err(LayoutError::RowLength {
                row: r + 1,
                found: chars.len(),
            });
        }
        for (c, &ch) in chars.iter().enumerate() {
            if ch != '.' && unlabeled_meaning(ch).is_none() && labeled_meaning(ch).is_none() {
                return Err(LayoutError::UnknownChar {
                    row: r + 1,
                    col: c + 1,
                    ch,
                });
            }
            grid[r][c] = ch;
        }
    }
    let labeled = grid
        .iter()
        .flatten()
        .any(|ch| !UNLABELED_CHARS.contains(*ch));
    if labeled {
        // 'V' and 'S' only exist in unlabeled notation.
        for (r, row) in grid.iter().enumerate() {
            for (c, &ch) in row.iter().enumerate() {
                if ch == 'V' || ch == 'S' {
                    return Err(LayoutError::MixedNotation {
                        row: r + 1,
                        col: c + 1,
                        ch,
                    });
                }
            }
        }
    }
    let meaning = |ch: char| -> Option<(Kind, u8)> {
        if labeled {
            labeled_meaning(ch)
        } else {
            unlabeled_meaning(ch).map(|k| (k, 0))
        }
    };

    let mut taken = 0u32;
    let mut pieces: Vec<Piece> = Vec::new();
    let mut empty = 0;
    let mut caos = 0;
    for r in 0..ROWS {
        for c in 0..COLS {
            let cell = r * COLS + c;
            if taken & (1 << cell) != 0 {
                continue;
            }
            let ch = grid[r][c];
            let Some((kind, label)) = meaning(ch) else {
                empty += 1;
                continue;
            };
            let broken = |detail| LayoutError::BrokenPiece {
                noun: kind.noun(),
                ch,
                row: r + 1,
                col: c + 1,
                detail,
            };
            let detail = match kind {
                Kind::Vertical => "it has no lower half (vertical pieces pair top-down)",
                Kind::Horizontal => "it has no right half (horizontal pieces pair left-right)",
                Kind::Cao => "its 2x2 block is incomplete",
                Kind::Soldier => "",
            };
            let mask = mask_at(kind, r as i32, c as i32).ok_or_else(|| broken(detail))?;
            let mut m = mask;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                if taken & (1 << i) != 0 || grid[i / COLS][i % COLS] != ch {
                    return Err(broken(detail));
                }
                m &= m - 1;
            }
            taken |= mask;
            if kind == Kind::Cao {
                caos += 1;
            }
            pieces.push(Piece {
                kind,
                anchor: cell as u8,
                label,
            });
        }
    }
    if caos == 0 {
        return Err(LayoutError::NoCao);
    }
    if caos > 1 {
        return Err(LayoutError::TooManyCao { found: caos });
    }
    if empty < 2 {
        return Err(LayoutError::TooFewEmpty { found: empty });
    }
    if labeled {
        check_labels(&pieces)?;
    }
    Ok(Parsed {
        board: Board::from_pieces(&pieces),
        labeled,
    })
}

fn check_labels(pieces: &[Piece]) -> Result<(), LayoutError> {
    for kind in Kind::LABELED {
        let count = pieces.iter().filter(|p| p.kind == kind).count();
        let mut seen = 0u32;
        for p in pieces.iter().filter(|p| p.kind == kind) {
            let (ch, row, col) = (
                labeled_char(kind, p.label),
                p.row() as usize + 1,
                p.col() as usize + 1,
            );
            if p.label as usize >= count {
                return Err(LayoutError::LabelOutOfRange {
                    ch,
                    row,
                    col,
                    count,
                    noun: kind.noun(),
                });
            }
            if seen & (1 << p.label) != 0 {
                return Err(LayoutError::DuplicateLabel { ch, row, col });
            }
            seen |= 1 << p.label;
        }
    }
    Ok(())
}

fn render_with(board: &Board, letter: impl Fn(Kind, u8) -> char) -> String {
    let mut s = String::with_capacity(24);
    for r in 0..ROWS {
        if r > 0 {
            s.push('/');
        }
        for c in 0..COLS {
            let i = r * COLS + c;
            s.push(match board.kind_at(i) {
                None => '.',
                Some(k) => letter(k, board.label_at(i)),
            });
        }
    }
    s
}

/// Renders a board in unlabeled notation, e.g. `VCCV/VCCV/VHHV/VSSV/S..S`.
pub fn render(board: &Board) -> String {
    render_with(board, |k, _| k.letter())
}

/// Renders a board in labeled notation, e.g. `1CC2/1CC2/3HH4/3ab4/c..d`.
pub fn render_labeled(board: &Board) -> String {
    render_with(board, labeled_char)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> LayoutError {
        parse(text).unwrap_err()
    }

    #[test]
    fn parses_classic() {
        let p = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap();
        assert!(!p.labeled);
        assert_eq!(render(&p.board), "VCCV/VCCV/VHHV/VSSV/S..S");
        assert_eq!(p.board.piece_set().to_string(), "h1v4s4");
        let q = parse("VCCV\nVCCV\nVHHV\nVSSV\nS..S\n").unwrap();
        assert_eq!(p, q);
    }

    #[test]
    fn parses_labeled() {
        let p = parse("1CC2/1CC2/3HH4/3ab4/c..d").unwrap();
        assert!(p.labeled);
        assert_eq!(render_labeled(&p.board), "1CC2/1CC2/3HH4/3ab4/c..d");
        assert_eq!(render(&p.board), "VCCV/VCCV/VHHV/VSSV/S..S");
        let q = parse("4CC2/4CC2/3HH1/3db4/c..a");
        assert!(q.is_err(), "vertical 4 is split across two pieces");
    }

    #[test]
    fn each_error_kind_has_its_message() {
        assert_eq!(
            err("VCCV/VCCV/VHHV/VSSV"),
            LayoutError::RowCount { found: 4 }
        );
        assert_eq!(
            err("VCCV/VCCV/VHHV/VSSV/S..S/...."),
            LayoutError::RowCount { found: 6 }
        );
        assert_eq!(
            err("VCCV/VCCV/VHHV/VSSVS/S..S"),
            LayoutError::RowLength { row: 4, found: 5 }
        );
        assert_eq!(
            err("VCCV/VCCV/VHHV/VSXV/S..S"),
            LayoutError::UnknownChar {
                row: 4,
                col: 3,
                ch: 'X'
            }
        );
        let e = err("VCCV/VCCV/VHHV/VSSV/S..V");
        assert!(matches!(
            e,
            LayoutError::BrokenPiece {
                row: 5,
                col: 4,
                ch: 'V',
                ..
            }
        ));
        assert!(e.to_string().contains("no lower half"), "{e}");
        let e = err("VCCV/VCCV/VH.V/VSSV/S.HS");
        assert!(e.to_string().contains("no right half"), "{e}");
        let e = err("VC.V/VCCV/VHHV/VSSV/S.CS");
        assert!(e.to_string().contains("2x2 block is incomplete"), "{e}");
        assert_eq!(err("V..V/V..V/VHHV/VSSV/S..S"), LayoutError::NoCao);
        assert_eq!(
            err("CCCC/CCCC/VHHV/V..V/S..S"),
            LayoutError::TooManyCao { found: 2 }
        );
        assert_eq!(
            err("VCCV/VCCV/VHHV/VSSV/SS.S"),
            LayoutError::TooFewEmpty { found: 1 }
        );
        assert!(matches!(
            err("1CC2/1CC2/3HH4/3aV4/c..d"),
            LayoutError::MixedNotation { ch: 'V', .. }
        ));
        assert!(matches!(
            err("1CC2/1CC2/3HH4/3aa4/c..d"),
            LayoutError::DuplicateLabel { ch: 'a', .. }
        ));
        assert!(matches!(
            err("1CC2/1CC2/3HH5/3ab5/c..d"),
            LayoutError::LabelOutOfRange {
                ch: '5',
                count: 4,
                ..
            }
        ));
        assert!(matches!(err(""), LayoutError::RowCount { found: 0 }));
        assert!(matches!(
            err("VCCV/VCCV/VHHV/VSSV/S..é"),
            LayoutError::UnknownChar { ch: 'é', .. }
        ));
    }
}
