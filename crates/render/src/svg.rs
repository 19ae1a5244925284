//! Boards as SVG, for any puzzle's [`Picture`]: pieces coloured by class (the notebooks'
//! colours), rectangular ones as rounded rectangles, other shapes as their cells with an
//! outline; walls dark; the moved piece outlined in gold; an exit marked under the board. A
//! solution is a grid of frames, each a `<g class="frame">` with its caption.

use std::fmt::Write;

use huarong_core::picture::{Cell, Frame, Picture};

/// Pixels per cell.
const CELL: f64 = 24.0;
/// Space around a board inside its frame, and below it for the caption.
const PAD: f64 = 10.0;
const CAPTION: f64 = 16.0;

/// Fill colour of a colour class (matplotlib's tab10, class 0 red).
pub fn fill(class: u16) -> &'static str {
    const TAB: [&str; 10] = [
        "#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf",
    ];
    TAB[class as usize % TAB.len()]
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Size of one frame (board, padding and caption).
fn frame_size(p: &Picture) -> (f64, f64) {
    (
        p.cols as f64 * CELL + 2.0 * PAD,
        p.rows as f64 * CELL + 2.0 * PAD + CAPTION,
    )
}

/// One board drawn with its top-left corner at the origin.
fn board_group(out: &mut String, p: &Picture, moved: Option<u16>) {
    let (w, h) = (p.cols as f64 * CELL, p.rows as f64 * CELL);
    let _ = writeln!(
        out,
        r##"<rect class="tray" x="0" y="0" width="{w}" height="{h}" fill="#f4efe6" stroke="#333" stroke-width="2"/>"##
    );
    if let Some(exit) = &p.exit {
        let _ = writeln!(
            out,
            r##"<line class="exit" x1="{}" y1="{h}" x2="{}" y2="{h}" stroke="#f4efe6" stroke-width="3"/>"##,
            exit.start as f64 * CELL + 2.0,
            exit.end as f64 * CELL - 2.0
        );
    }
    for (i, &cell) in p.cells.iter().enumerate() {
        if cell == Cell::Wall {
            let (x, y) = ((i % p.cols) as f64 * CELL, (i / p.cols) as f64 * CELL);
            let _ = writeln!(
                out,
                r##"<rect class="wall" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="#555"/>"##
            );
        }
    }
    for k in 0..p.pieces.len() as u16 {
        piece(out, p, k, moved == Some(k));
    }
}

/// One piece: a rounded rectangle if it fills its bounding box, else its cells and outline.
fn piece(out: &mut String, p: &Picture, k: u16, hot: bool) {
    let cells = p.cells_of(k);
    let Some(&first) = cells.first() else {
        return;
    };
    let look = p.pieces[k as usize];
    let (r0, r1) = (
        cells.iter().map(|i| i / p.cols).min().unwrap_or(0),
        cells.iter().map(|i| i / p.cols).max().unwrap_or(0),
    );
    let (c0, c1) = (
        cells.iter().map(|i| i % p.cols).min().unwrap_or(0),
        cells.iter().map(|i| i % p.cols).max().unwrap_or(0),
    );
    let (stroke, sw) = if hot { ("#ffd700", 3.0) } else { ("#222", 1.0) };
    let label = escape(&look.label.to_string());
    let text = |out: &mut String, cx: f64, cy: f64| {
        let _ = writeln!(
            out,
            r#"<text x="{cx}" y="{cy}" font-size="11" text-anchor="middle" dominant-baseline="central" fill="white">{label}</text>"#
        );
    };
    if cells.len() == (r1 - r0 + 1) * (c1 - c0 + 1) {
        let (x, y) = (c0 as f64 * CELL + 1.5, r0 as f64 * CELL + 1.5);
        let (rw, rh) = (
            (c1 - c0 + 1) as f64 * CELL - 3.0,
            (r1 - r0 + 1) as f64 * CELL - 3.0,
        );
        let _ = writeln!(
            out,
            r#"<rect class="piece" x="{x}" y="{y}" width="{rw}" height="{rh}" rx="3" fill="{}" stroke="{stroke}" stroke-width="{sw}"/>"#,
            fill(look.class)
        );
        text(out, x + rw / 2.0, y + rh / 2.0);
        return;
    }
    // Any other shape: its cells filled, then the edges it shares with no cell of its own.
    let _ = writeln!(out, r#"<g class="piece">"#);
    let mine = |r: isize, c: isize| {
        r >= 0
            && c >= 0
            && (r as usize) < p.rows
            && (c as usize) < p.cols
            && p.at(r as usize, c as usize) == Cell::Piece(k)
    };
    let mut outline = String::new();
    for &i in &cells {
        let (r, c) = ((i / p.cols) as isize, (i % p.cols) as isize);
        let (x, y) = (c as f64 * CELL, r as f64 * CELL);
        let _ = writeln!(
            out,
            r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{}"/>"#,
            fill(look.class)
        );
        for (dr, dc, x1, y1, x2, y2) in [
            (-1, 0, x, y, x + CELL, y),
            (1, 0, x, y + CELL, x + CELL, y + CELL),
            (0, -1, x, y, x, y + CELL),
            (0, 1, x + CELL, y, x + CELL, y + CELL),
        ] {
            if !mine(r + dr, c + dc) {
                let _ = write!(outline, "M{x1} {y1}L{x2} {y2}");
            }
        }
    }
    let _ = writeln!(
        out,
        r#"<path d="{outline}" fill="none" stroke="{stroke}" stroke-width="{sw}"/>"#
    );
    let (x, y) = (
        (first % p.cols) as f64 * CELL,
        (first / p.cols) as f64 * CELL,
    );
    text(out, x + CELL / 2.0, y + CELL / 2.0);
    out.push_str("</g>\n");
}

/// One board as a standalone SVG document.
pub fn board(p: &Picture) -> String {
    board_titled(p, None)
}

/// [`board`] with a `<title>` (what viewers show on hover and screen readers read).
pub fn board_titled(p: &Picture, title: Option<&str>) -> String {
    let (w, h) = (
        p.cols as f64 * CELL + 2.0 * PAD,
        p.rows as f64 * CELL + 2.0 * PAD,
    );
    let mut out = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#
    );
    out.push('\n');
    if let Some(title) = title {
        let _ = writeln!(out, "<title>{}</title>", escape(title));
    }
    let _ = writeln!(
        out,
        r#"<g class="board" transform="translate({PAD},{PAD})">"#
    );
    board_group(&mut out, p, None);
    out.push_str("</g>\n</svg>\n");
    out
}

/// A whole solution as a grid of frames, `columns` per row, with a title line.
pub fn solution(frames: &[Frame], columns: usize, title: &str) -> String {
    let columns = columns.max(1);
    let (fw, fh) = frames
        .first()
        .map_or((0.0, 0.0), |f| frame_size(&f.picture));
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
        board_group(&mut out, &f.picture, f.moved);
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"#,
            f.picture.cols as f64 * CELL / 2.0,
            f.picture.rows as f64 * CELL + CAPTION - 2.0,
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
    use huarong_core::picture::{Look, frames};
    use klotski::{parse, picture};

    fn frames_of(doc: &str) -> usize {
        let xml = roxmltree::Document::parse(doc).expect("well-formed SVG");
        assert_eq!(xml.root_element().tag_name().name(), "svg");
        xml.descendants()
            .filter(|n| n.attribute("class") == Some("frame"))
            .count()
    }

    fn count(doc: &str, class: &str) -> usize {
        roxmltree::Document::parse(doc)
            .unwrap()
            .descendants()
            .filter(|n| n.attribute("class") == Some(class))
            .count()
    }

    #[test]
    fn board_is_well_formed_with_one_rect_per_piece() {
        let b = parse("VCCV/VCCV/VHHV/VSSV/S..S").unwrap().board;
        let doc = board(&picture(&b, false));
        assert_eq!(count(&doc, "piece"), 10);
        assert_eq!(count(&doc, "exit"), 1);
        assert_eq!(frames_of(&doc), 0);
    }

    #[test]
    fn solution_has_one_frame_per_board_and_highlights_moves() {
        let path: Vec<Picture> = ["VCCV/VCCV/VHHV/VSSV/S..S", "VCCV/VCCV/VHHV/V.SV/SS.S"]
            .iter()
            .map(|l| picture(&parse(l).unwrap().board, false))
            .collect();
        let doc = solution(&frames(&path), 10, "a <title> & more");
        assert_eq!(frames_of(&doc), 2);
        assert_eq!(
            doc.matches("#ffd700").count(),
            1,
            "one moved piece, in frame 1"
        );
    }

    #[test]
    fn odd_shapes_and_walls() {
        let pic = Picture {
            rows: 2,
            cols: 2,
            cells: vec![Cell::Piece(0), Cell::Wall, Cell::Piece(0), Cell::Piece(0)],
            pieces: vec![Look {
                label: 'L',
                class: 4,
            }],
            exit: None,
        };
        let doc = board(&pic);
        assert_eq!(count(&doc, "piece"), 1);
        assert_eq!(count(&doc, "wall"), 1);
        assert_eq!(count(&doc, "exit"), 0);
        // The L's outline: 8 unit edges (it has no inner edges drawn).
        assert_eq!(doc.matches('M').count(), 8);
        assert!(doc.contains(fill(4)));
    }
}
