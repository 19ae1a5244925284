//! Pictures as strings (no IO), for any puzzle: a position is a
//! [`Picture`](huarong_core::picture::Picture) — cells, pieces with labels and colour classes,
//! walls, an exit — and this crate draws it:
//!
//! * [`text`]: a board in Unicode box drawing, pieces outlined, optionally coloured by class
//!   with ANSI escapes; a solution as strips of numbered frames with the moved piece
//!   highlighted;
//! * [`svg`]: one board, or a whole solution as a grid of frames;
//! * [`table`]: rows as an aligned text table.
//!
//! Architecture invariant: no puzzle knowledge; puzzles describe themselves as pictures.

pub mod svg;
pub mod text;

pub use huarong_core::picture::{Frame, Picture, frames};

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
