//! Boards as pictures: `solve --boards` text strips, `solve --svg` and `render` SVGs, and
//! `inspect` of the canonical outputs (snapshots).

use std::path::Path;

mod common;
use common::huarong;

fn ok(args: &[&str]) -> String {
    let o = huarong(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Frames of a solution SVG (and a check that it is well-formed XML with an `svg` root).
fn svg_frames(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("frame"))
        .count()
}

/// Three piece moves from the goal (cold search, no tables needed).
const SHORT: &str = "VSSV/VSSV/VCCV/VCCV/.SS.";

#[test]
fn solve_boards_plain_text_when_piped() {
    let text = ok(&["solve", SHORT, "--cold", "--boards"]);
    assert!(!text.contains('\x1b'), "no colour escapes when piped");
    insta::assert_snapshot!(text);
    // Without --boards a pipe gets the plain path, one layout per line.
    let plain = ok(&["solve", SHORT, "--cold"]);
    let moves: usize = plain.lines().next().unwrap().parse().unwrap();
    assert_eq!(plain.lines().count(), moves + 2);
    assert!(text.starts_with(&format!("{moves} moves (piece metric, common_code ")));
}

#[test]
fn solve_svg_has_a_frame_per_position() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("solution.svg");
    for metric in ["piece", "step"] {
        let out = ok(&[
            "solve",
            SHORT,
            "--cold",
            "--metric",
            metric,
            "--svg",
            svg.to_str().unwrap(),
        ]);
        let moves: usize = out.lines().next().unwrap().parse().unwrap();
        assert_eq!(svg_frames(&svg), moves + 1, "{metric}");
    }
    // --json is unchanged by --svg.
    let json = ok(&[
        "solve",
        SHORT,
        "--cold",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(svg_frames(&svg), v["path"].as_array().unwrap().len());
}

#[test]
fn render_writes_one_board() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("board.svg");
    ok(&[
        "render",
        "VCCV/VCCV/VHHV/VSSV/S..S",
        "-o",
        svg.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let pieces = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("piece"))
        .count();
    assert_eq!(pieces, 10);
    let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap();
    assert_eq!(
        title.text(),
        Some("VCCV/VCCV/VHHV/VSSV/S..S, common_code 1A9BF0C00, short_code 4WVE1")
    );
    let o = huarong(&[
        "render",
        "VCCV/VCCV/VHHV/VSSV/S..X",
        "-o",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid layout"));
}

#[test]
fn inspect_canonical_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let pipeline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../pipelines/huarong-canonical.toml");
    ok(&[
        "run",
        pipeline.to_str().unwrap(),
        "--quiet",
        "--output",
        out,
    ]);
    let text = ok(&["inspect", out, "--rows", "6"]);
    // The first line is the (temporary) folder.
    let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    insta::assert_snapshot!(body);
    let o = huarong(&["inspect", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a pipeline output folder"));
}
