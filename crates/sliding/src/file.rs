//! Puzzle files: a sliding-block puzzle written as TOML (see the crate docs), read into a
//! [`SlidingPuzzle`] with errors that name the line, row, column or letter at fault.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::large::{LargeTiles, Position};
use crate::model::{Layout, MAX_CELLS, Shape};
use crate::pattern::TileBoard;
use crate::{Motion, SlidingPuzzle};

/// What is wrong with a puzzle file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    #[error("{0}")]
    Toml(String),
    #[error("`{field}` has no rows")]
    Empty { field: &'static str },
    #[error("{at}: {found} cells, but the first row has {expected} (rows must be equally wide)")]
    Ragged {
        at: String,
        found: usize,
        expected: usize,
    },
    #[error("the board has {rows} × {cols} = {} cells; at most {MAX_CELLS} fit", rows * cols)]
    TooManyCells { rows: usize, cols: usize },
    #[error("{at}: {ch:?} is not a piece letter (use `.`, `#` or printable ASCII but `/`)")]
    Character { at: String, ch: char },
    #[error("piece {letter:?} is not connected: {at} does not touch the rest of it")]
    Disconnected { letter: char, at: String },
    #[error("`goal` is {found_rows} × {found_cols}, the board {rows} × {cols}")]
    GoalSize {
        found_rows: usize,
        found_cols: usize,
        rows: usize,
        cols: usize,
    },
    #[error("{at}: {letter:?} is not a piece of the board")]
    GoalUnknownLetter { at: String, letter: char },
    #[error("goal: {letter:?} has another shape than the board's piece {letter:?}")]
    GoalMisshapen { letter: char },
    #[error("{at}: a goal cell on a wall")]
    GoalOnWall { at: String },
    #[error("{at}: `#` where the board has no wall")]
    GoalWall { at: String },
    #[error("goal: {letter:?} can never stand there: {why}")]
    GoalUnreachable { letter: char, why: String },
    #[error("the goal names no piece (every position would be a goal)")]
    NoGoal,
    #[error("`moves` = {0:?}: use \"free\" or \"lengthwise\"")]
    Moves(String),
    #[error("`distinct`: {0:?} is not a piece of the board")]
    Distinct(char),
    #[error("the board has no piece")]
    NoPiece,
    #[error(
        "positions need {bits} bits here; at most 64 fit a state code (fewer or more alike pieces, or a smaller board)"
    )]
    TooLarge { bits: u32 },
    #[error("not sliding tiles: {0}")]
    NotTiles(String),
}

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    name: String,
    board: String,
    goal: String,
    #[serde(default = "free")]
    moves: String,
    #[serde(default)]
    labeled: bool,
    #[serde(default)]
    distinct: String,
}

fn free() -> String {
    "free".to_owned()
}

/// A grid of cells read from a board or goal string, with where each row is in the file.
struct Grid {
    rows: Vec<Vec<char>>,
    /// 1-based file line of each row (0 when unknown).
    lines: Vec<usize>,
}

impl Grid {
    fn at(&self, field: &str, r: usize, c: usize) -> String {
        let line = self.lines.get(r).copied().unwrap_or(0);
        let line = if line > 0 {
            format!(" (line {line})")
        } else {
            String::new()
        };
        format!("{field} row {}, column {}{line}", r + 1, c + 1)
    }
}

/// Rows on their own lines, blank lines at either end dropped, each row trimmed.
fn grid(text: &str, first_line: usize, field: &'static str) -> Result<Grid, PuzzleError> {
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        rows.push(line.trim().chars().collect::<Vec<char>>());
        lines.push(if first_line > 0 { first_line + i } else { 0 });
    }
    while rows.first().is_some_and(|r| r.is_empty()) {
        rows.remove(0);
        lines.remove(0);
    }
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
        lines.pop();
    }
    if rows.is_empty() {
        return Err(PuzzleError::Empty { field });
    }
    let g = Grid { rows, lines };
    let width = g.rows[0].len();
    for (r, row) in g.rows.iter().enumerate() {
        if row.len() != width {
            return Err(PuzzleError::Ragged {
                at: g.at(field, r, row.len().min(width)),
                found: row.len(),
                expected: width,
            });
        }
    }
    Ok(g)
}

/// The 1-based line where the content of top-level key `key` starts (the next line when a
/// `"""` string opens with a newline); 0 if unknown.
fn value_line(text: &str, key: &str) -> usize {
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return 0;
    };
    for (k, v) in doc.get_ref() {
        if k.get_ref().as_ref() == key {
            let start = v.span().start;
            let mut line = text[..start].matches('\n').count() + 1;
            let raw = &text[start..];
            let opened_with_newline = ["\"\"\"\n", "'''\n", "\"\"\"\r\n", "'''\r\n"]
                .iter()
                .any(|q| raw.starts_with(q));
            if opened_with_newline {
                line += 1;
            }
            return line;
        }
    }
    0
}

/// Reads a sliding-tiles puzzle file cell by cell, whatever its number of positions: every
/// piece 1×1 and told apart (`labeled = true`), one blank, no walls, at most 64 cells, and a
/// goal that places every tile. [`parse`] is the reader for everything else (and for tiles
/// whose positions fit a code); this one serves boards like the twenty-four puzzle's.
pub fn parse_tiles(text: &str, stem: &str) -> Result<LargeTiles, PuzzleError> {
    // `read` refuses boards past the model's cells; every board it takes fits a database.
    const _: () = assert!(MAX_CELLS <= huarong_core::abstraction::MAX_CELLS);
    let Read {
        raw,
        board,
        goal,
        rows,
        cols,
        walls,
        pieces,
        ..
    } = read(text)?;
    let not = |why: String| Err(PuzzleError::NotTiles(why));
    if !raw.labeled {
        return not("tiles are told apart: write labeled = true".into());
    }
    if walls != 0 {
        return not("the board has a wall".into());
    }
    let n = rows * cols;
    if let Some((letter, cells)) = pieces.iter().find(|(_, c)| c.len() != 1) {
        let (r, c) = cells[0];
        return not(format!(
            "piece {letter:?} ({}) covers {} cells, not one",
            board.at("board", r, c),
            cells.len()
        ));
    }
    if pieces.len() + 1 != n {
        return not(format!(
            "{} tiles on {n} cells: a tiles board has exactly one blank",
            pieces.len()
        ));
    }
    let letters: Vec<char> = pieces.keys().copied().collect();
    let cell = |(r, c): (usize, usize)| (r * cols + c) as u8;
    let start: Vec<u8> = pieces.values().map(|c| cell(c[0])).collect();
    let used = start.iter().fold(0u64, |m, &c| m | 1 << c);
    let blank = (!used).trailing_zeros() as u8;
    let mut goal_cells = vec![u8::MAX; letters.len()];
    let mut goal_blank = None;
    for (r, row) in goal.rows.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            if ch == '.' {
                if goal_blank.is_some() {
                    return not(format!(
                        "{}: the goal's second blank",
                        goal.at("goal", r, c)
                    ));
                }
                goal_blank = Some(cell((r, c)));
                continue;
            }
            let Some(t) = letters.iter().position(|&l| l == ch) else {
                return Err(PuzzleError::GoalUnknownLetter {
                    at: goal.at("goal", r, c),
                    letter: ch,
                });
            };
            if goal_cells[t] != u8::MAX {
                return not(format!(
                    "{}: the goal's second {ch:?}",
                    goal.at("goal", r, c)
                ));
            }
            goal_cells[t] = cell((r, c));
        }
    }
    let Some(goal_blank) = goal_blank else {
        return not("the goal has no blank".into());
    };
    if let Some(t) = goal_cells.iter().position(|&c| c == u8::MAX) {
        return not(format!("the goal leaves tile {:?} out", letters[t]));
    }
    Ok(LargeTiles {
        name: raw.name,
        stem: stem.to_owned(),
        board: TileBoard {
            rows,
            cols,
            letters,
            goal: goal_cells,
            goal_blank,
        },
        start: Position {
            cells: start,
            blank,
        },
    })
}

/// A puzzle file read up to its pieces: what [`parse`] and [`parse_tiles`] share.
struct Read {
    raw: RawFile,
    motion: Motion,
    board: Grid,
    goal: Grid,
    rows: usize,
    cols: usize,
    walls: u64,
    /// Each letter's cells.
    pieces: BTreeMap<char, Vec<(usize, usize)>>,
    distinct: Vec<char>,
}

/// Reads a puzzle file; `stem` names its space (the file name without `.toml`).
pub fn parse(text: &str, stem: &str) -> Result<SlidingPuzzle, PuzzleError> {
    let Read {
        raw,
        motion,
        board: _,
        goal,
        rows,
        cols,
        walls,
        pieces,
        distinct,
    } = read(text)?;
    // Classes: look-alike pieces together unless labeled or distinct; each class in the
    // order of its first letter.
    let mut groups: Vec<(Shape, Vec<char>, Vec<usize>)> = Vec::new();

    for (&letter, cells) in &pieces {
        let (shape, (r, c)) = Shape::of(cells);
        let alone = raw.labeled || distinct.contains(&letter);
        let anchor = r * cols + c;
        match groups.iter_mut().find(|(s, letters, _)| {
            !alone && *s == shape && !letters.iter().any(|l| raw.labeled || distinct.contains(l))
        }) {
            Some(g) => {
                g.1.push(letter);
                g.2.push(anchor);
            }
            None => groups.push((shape, vec![letter], vec![anchor])),
        }
    }
    let class_of = |letter: char| {
        groups
            .iter()
            .position(|(_, letters, _)| letters.contains(&letter))
            .expect("every letter has a class")
    };
    let layout = Layout::new(
        rows,
        cols,
        walls,
        groups
            .iter()
            .map(|(s, letters, starts)| {
                (s.clone(), letters.clone(), s.axis(motion), starts.clone())
            })
            .collect(),
    )
    .map_err(|e| PuzzleError::TooLarge { bits: e.bits })?;
    // The start: each class's pieces at their anchors.
    let mut places = vec![0u8; layout.pieces];
    let mut filled = vec![0usize; layout.classes.len()];
    for (&letter, cells) in &pieces {
        let k = class_of(letter);
        let (_, (r, c)) = Shape::of(cells);
        let class = &layout.classes[k];
        places[class.offset + filled[k]] = class
            .candidate(r * cols + c)
            .expect("a piece's own place is a candidate");
        filled[k] += 1;
    }
    let start = layout.encode(&places);
    let goal = goal_of(&goal, &pieces, &layout, &class_of, walls, cols)?;
    Ok(SlidingPuzzle {
        name: raw.name,
        stem: stem.to_owned(),
        motion,
        labeled: raw.labeled,
        layout,
        start,
        goal,
    })
}
fn read(text: &str) -> Result<Read, PuzzleError> {
    let raw: RawFile =
        toml::from_str(text).map_err(|e| PuzzleError::Toml(e.to_string().trim_end().to_owned()))?;
    let motion = match raw.moves.as_str() {
        "free" => Motion::Free,
        "lengthwise" => Motion::Lengthwise,
        other => return Err(PuzzleError::Moves(other.to_owned())),
    };
    let board = grid(&raw.board, value_line(text, "board"), "board")?;
    let goal = grid(&raw.goal, value_line(text, "goal"), "goal")?;
    let (rows, cols) = (board.rows.len(), board.rows[0].len());
    if rows * cols > MAX_CELLS {
        return Err(PuzzleError::TooManyCells { rows, cols });
    }
    if (goal.rows.len(), goal.rows[0].len()) != (rows, cols) {
        return Err(PuzzleError::GoalSize {
            found_rows: goal.rows.len(),
            found_cols: goal.rows[0].len(),
            rows,
            cols,
        });
    }
    // The board: walls and each letter's cells.
    let mut walls = 0u64;
    let mut pieces: BTreeMap<char, Vec<(usize, usize)>> = BTreeMap::new();
    for (r, row) in board.rows.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            match ch {
                '.' => {}
                '#' => walls |= 1 << (r * cols + c),
                // '/' separates rows when a position is written on one line.
                '!'..='~' if ch != '/' => pieces.entry(ch).or_default().push((r, c)),
                _ => {
                    return Err(PuzzleError::Character {
                        at: board.at("board", r, c),
                        ch,
                    });
                }
            }
        }
    }
    if pieces.is_empty() {
        return Err(PuzzleError::NoPiece);
    }
    for (&letter, cells) in &pieces {
        if let Some(&(r, c)) = disconnected(cells) {
            return Err(PuzzleError::Disconnected {
                letter,
                at: board.at("board", r, c),
            });
        }
    }
    let mut distinct: Vec<char> = Vec::new();
    for ch in raw.distinct.chars().filter(|c| !c.is_whitespace()) {
        if !pieces.contains_key(&ch) {
            return Err(PuzzleError::Distinct(ch));
        }
        distinct.push(ch);
    }
    Ok(Read {
        raw,
        motion,
        board,
        goal,
        rows,
        cols,
        walls,
        pieces,
        distinct,
    })
}

/// The goal as (class, candidate) requirements.
fn goal_of(
    goal: &Grid,
    pieces: &BTreeMap<char, Vec<(usize, usize)>>,
    layout: &Layout,
    class_of: &dyn Fn(char) -> usize,
    walls: u64,
    cols: usize,
) -> Result<Vec<(usize, u8)>, PuzzleError> {
    let mut cells: BTreeMap<char, Vec<(usize, usize)>> = BTreeMap::new();
    for (r, row) in goal.rows.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            let wall = walls >> (r * cols + c) & 1 == 1;
            match ch {
                '.' => {}
                '#' if wall => {}
                '#' => {
                    return Err(PuzzleError::GoalWall {
                        at: goal.at("goal", r, c),
                    });
                }
                _ if wall => {
                    return Err(PuzzleError::GoalOnWall {
                        at: goal.at("goal", r, c),
                    });
                }
                _ if !pieces.contains_key(&ch) => {
                    return Err(PuzzleError::GoalUnknownLetter {
                        at: goal.at("goal", r, c),
                        letter: ch,
                    });
                }
                _ => cells.entry(ch).or_default().push((r, c)),
            }
        }
    }
    if cells.is_empty() {
        return Err(PuzzleError::NoGoal);
    }
    let mut out = Vec::new();
    for (&letter, cs) in &cells {
        let (shape, (r, c)) = Shape::of(cs);
        let (board_shape, _) = Shape::of(&pieces[&letter]);
        if shape != board_shape {
            return Err(PuzzleError::GoalMisshapen { letter });
        }
        let k = class_of(letter);
        let class = &layout.classes[k];
        let j = class
            .candidate(r * cols + c)
            .ok_or_else(|| PuzzleError::GoalUnreachable {
                letter,
                why: match class.axis {
                    crate::model::Axis::Horizontal => "it slides only along its row".to_owned(),
                    crate::model::Axis::Vertical => "it slides only along its column".to_owned(),
                    crate::model::Axis::Both => "it does not fit there".to_owned(),
                },
            })?;
        out.push((k, j));
    }
    Ok(out)
}

/// A cell of `cells` not 4-connected to the first one, if any.
fn disconnected(cells: &[(usize, usize)]) -> Option<&(usize, usize)> {
    let mut seen = vec![false; cells.len()];
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(i) = stack.pop() {
        let (r, c) = cells[i];
        for (j, &(r2, c2)) in cells.iter().enumerate() {
            if !seen[j] && r.abs_diff(r2) + c.abs_diff(c2) == 1 {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    cells.iter().zip(&seen).find(|(_, s)| !**s).map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PENNANT: &str = "name = \"Pennant\"\nboard = \"\"\"\nAABB\nAACC\nDE..\nFGHH\nFGII\n\"\"\"\n\
        goal = \"\"\"\n....\n....\n....\nAA..\nAA..\n\"\"\"\n";

    #[test]
    fn pennant_parses_into_classes_of_look_alikes() {
        let p = parse(PENNANT, "pennant").unwrap();
        assert_eq!((p.rows(), p.cols()), (5, 4));
        // A (2x2); B, C, H, I (horizontal); D, E (single); F, G (vertical).
        let classes: Vec<String> = p
            .layout
            .classes
            .iter()
            .map(|c| c.letters.iter().collect())
            .collect();
        assert_eq!(classes, ["A", "BCHI", "DE", "FG"]);
        assert_eq!(p.goal.len(), 1);
        assert_eq!(p.layout.bits(), p.layout.bits().min(64));
    }

    /// Every kind of bad file, with the message a user sees.
    #[test]
    fn every_error_names_what_is_wrong() {
        let with = |from: &str, to: &str| PENNANT.replacen(from, to, 1);
        let cases = [
            ("ragged row", with("DE..\n", "DE.\n")),
            ("too many cells", {
                let row = "A".to_owned() + &".".repeat(12);
                PENNANT.replace(
                    "AABB\nAACC\nDE..\nFGHH\nFGII",
                    &[row.as_str(); 5].join("\n"),
                )
            }),
            ("not printable", with("DE..", "DE.\u{e9}")),
            ("disconnected piece", with("DE..\nFGHH", "DE.A\nFGHH")),
            ("goal size", with("....\nAA..\nAA..\n", "....\nAA..\n")),
            (
                "unknown goal letter",
                with("AA..\nAA..\n\"\"\"", "AA..\nAAZ.\n\"\"\""),
            ),
            (
                "misshapen goal letter",
                with("AA..\nAA..\n\"\"\"", "AA..\nA...\n\"\"\""),
            ),
            (
                "goal on a wall",
                with("DE..", "DE#.").replacen(
                    "....\n....\n....\nAA..\nAA..",
                    "....\n.AA.\n.AA.\n....\n....",
                    1,
                ),
            ),
            (
                "goal wall without a wall",
                with("....\n....\nAA..", "#...\n....\nAA.."),
            ),
            ("no goal", with("AA..\nAA..\n\"\"\"", "....\n....\n\"\"\"")),
            ("bad moves", format!("{PENNANT}moves = \"diagonal\"\n")),
            ("bad distinct", format!("{PENNANT}distinct = \"Z\"\n")),
            ("unknown key", format!("{PENNANT}speed = 3\n")),
            (
                "missing goal",
                PENNANT.split("goal").next().unwrap().to_owned(),
            ),
            (
                "lengthwise goal off the line",
                format!("{PENNANT}moves = \"lengthwise\"\n").replacen(
                    "....\n....\n....\nAA..\nAA..",
                    "....\n....\n..BB\n....\n....",
                    1,
                ),
            ),
            ("slash", with("DE..", "D/..")),
        ];
        let mut report = String::new();
        for (what, text) in &cases {
            let e = parse(text, "t").expect_err(what);
            report += &format!("{what}: {e}\n");
        }
        insta::assert_snapshot!(report);
    }

    #[test]
    fn too_many_bits_is_an_error_not_a_wrong_code() {
        // 40 labeled 1x1 tiles on an 8 x 8 board: 40 x 6 bits.
        let letters: Vec<char> = ('!'..='~').filter(|c| !"#./".contains(*c)).collect();
        let cell = |i: usize| if i < 40 { letters[i] } else { '.' };
        let rows: Vec<String> = (0..8)
            .map(|r| (0..8).map(|c| cell(r * 8 + c)).collect())
            .collect();
        let mut goal = vec![".".repeat(8); 8];
        goal[0] = format!("{}{}", letters[0], ".".repeat(7));
        let text = format!(
            "name = \"big\"\nlabeled = true\nboard = \"\"\"\n{}\n\"\"\"\ngoal = \"\"\"\n{}\n\"\"\"\n",
            rows.join("\n"),
            goal.join("\n")
        );
        match parse(&text, "big") {
            Err(PuzzleError::TooLarge { bits }) => assert!(bits > 64, "{bits}"),
            other => panic!("{:?}", other.map(|p| p.layout.bits())),
        }
    }
}
