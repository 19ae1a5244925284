//! Boards as SVG: pieces as rounded rectangles coloured by kind (the notebook's colours), the
//! moved piece outlined in gold, the exit marked under the board. A solution is a grid of
//! frames, each a `<g class="frame">` with its caption.

use std::fmt::Write;

use klotski::board::{COLS, ROWS};
use klotski::{Board, Kind, Piece};

use crate::{Frame, piece_char};

/// Pixels per cell.
const CELL: f64 = 24.0;
/// Space around a board inside its frame, and below it for the caption.
const PAD: f64 = 10.0;
const CAPTION: f64 = 16.0;

fn fill(kind: Kind) -> &'static str {
    match kind {
        Kind::Cao => "#d62728",
        Kind::Horizontal => "#ff7f0e",
        Kind::Vertical => "#1f77b4",
        Kind::Soldier => "#2ca02c",
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Size of one frame (board, padding and caption).
fn frame_size() -> (f64, f64) {
    (
        COLS as f64 * CELL + 2.0 * PAD,
        ROWS as f64 * CELL + 2.0 * PAD + CAPTION,
    )
}

/// One board drawn with its top-left corner at `(x, y)`.
fn board_group(out: &mut String, board: &Board, moved: Option<&Piece>, labeled: bool) {
    let (w, h) = (COLS as f64 * CELL, ROWS as f64 * CELL);
    let _ = writeln!(
        out,
        r##"<rect class="tray" x="0" y="0" width="{w}" height="{h}" fill="#f4efe6" stroke="#333" stroke-width="2"/>"##
    );
    // The exit: the bottom edge under columns 2 and 3.
    let _ = writeln!(
        out,
        r##"<line class="exit" x1="{}" y1="{h}" x2="{}" y2="{h}" stroke="#f4efe6" stroke-width="3"/>"##,
        CELL + 2.0,
        3.0 * CELL - 2.0
    );
    for p in board.pieces() {
        let (pw, ph) = p.kind.dims();
        let (x, y) = (p.col() as f64 * CELL + 1.5, p.row() as f64 * CELL + 1.5);
        let (rw, rh) = (pw as f64 * CELL - 3.0, ph as f64 * CELL - 3.0);
        let hot = moved == Some(&p);
        let (stroke, sw) = if hot { ("#ffd700", 3.0) } else { ("#222", 1.0) };
        let _ = writeln!(
            out,
            r#"<rect class="piece" x="{x}" y="{y}" width="{rw}" height="{rh}" rx="3" fill="{}" stroke="{stroke}" stroke-width="{sw}"/>"#,
            fill(p.kind)
        );
        let ch = escape(&piece_char(board, &p, labeled).to_string());
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle" dominant-baseline="central" fill="white">{ch}</text>"#,
            x + rw / 2.0,
            y + rh / 2.0
        );
    }
}

/// One board as a standalone SVG document.
pub fn board(board: &Board, labeled: bool) -> String {
    let (w, h) = (
        COLS as f64 * CELL + 2.0 * PAD,
        ROWS as f64 * CELL + 2.0 * PAD,
    );
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#
    );
    out.push('\n');
    let _ = writeln!(
        out,
        r#"<g class="board" transform="translate({PAD},{PAD})">"#
    );
    board_group(&mut out, board, None, labeled);
    out.push_str("</g>\n</svg>\n");
    out
}

/// A whole solution as a grid of frames, `columns` per row, with a title line.
pub fn solution(frames: &[Frame], labeled: bool, columns: usize, title: &str) -> String {
    let columns = columns.max(1);
    let (fw, fh) = frame_size();
    let rows = frames.len().div_ceil(columns);
    let title_h = 24.0;
    let (w, h) = (
        columns.min(frames.len().max(1)) as f64 * fw,
        rows as f64 * fh + title_h,
    );
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#
    );
    out.push('\n');
    let _ = writeln!(
        out,
        r#"<text x="{PAD}" y="17" font-size="14">{}</text>"#,
        escape(title)
    );
    for (i, f) in frames.iter().enumerate() {
        let (x, y) = (
            (i % columns) as f64 * fw,
            (i / columns) as f64 * fh + title_h,
        );
        let _ = writeln!(
            out,
            r#"<g class="frame" transform="translate({},{})">"#,
            x + PAD,
            y + PAD
        );
        board_group(&mut out, &f.board, f.moved.as_ref(), labeled);
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
            COLS as f64 * CELL / 2.0,
            ROWS as f64 * CELL + CAPTION - 2.0,
            escape(&f.caption)
        );
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use klotski::parse;

    fn frames_of(doc: &str) -> usize {
        let xml = roxmltree::Document::parse(doc).expect("well-formed SVG");
        assert_eq!(xml.root_element().tag_name().name(), "svg");
        xml.descendants()
            .filter(|n| n.attribute("class") == Some("frame"))
            .count()
    }

    #[test]
    fn board_is_well_formed_with_one_rect_per_piece() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let doc = board(&b, false);
        let xml = roxmltree::Document::parse(&doc).unwrap();
        let pieces = xml
            .descendants()
            .filter(|n| n.attribute("class") == Some("piece"))
            .count();
        assert_eq!(pieces, 10);
        assert_eq!(frames_of(&doc), 0);
    }

    #[test]
    fn solution_has_one_frame_per_board_and_highlights_moves() {
        let path: Vec<Board> = ["VCCV/VCCV/VHHV/VSSV/S..S", "VCCV/VCCV/VHHV/V.SV/SS.S"]
            .iter()
            .map(|l| parse(l).unwrap().board)
            .collect();
        let doc = solution(&crate::frames(&path), false, 10, "a <title> & more");
        assert_eq!(frames_of(&doc), 2);
        assert_eq!(
            doc.matches("#ffd700").count(),
            1,
            "one moved piece, in frame 1"
        );
    }
}
