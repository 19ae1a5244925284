//! Pipeline descriptions: `pipelines/*.toml`. Its own crate, free of the stages and of polars,
//! so the loader can be fuzzed and reused cheaply.
//!
//! ```toml
//! name = "huarong"                 # names the run
//! output = "outputs/huarong"       # relative paths resolve against the current directory
//! engine = "local"                 # or "timely" (components and distances on timely-dataflow)
//! workers = 2                      # timely worker threads (engine = "timely" only)
//!
//! [huarong]                        # the puzzle section (exactly one of the four below)
//! piece_sets = ["h1v4s4"]          # "h<N>v<N>s<N>" each, or "all" (every set with positions)
//! spaces = ["unlabeled", "labeled"]
//! metrics = ["step", "straight", "piece"]
//! state_tables = true              # per-position states/components tables (default true)
//! ```
//!
//! The other puzzles' sections:
//!
//! ```toml
//! [solitaire]
//! start = "4 4 4 5 5 4 6 5"        # r1 c1 … r4 c4, 1-based: distances are measured from here
//! goal = "2 4 3 3 3 6 4 6"         # the summary's goal state (and its `answer`)
//!
//! [[omnigravity.boards]]           # one state space per board
//! name = "sample-1"                # folder name: letters, digits, '-' and '_'
//! board = "....AA../....AA#./..."  # 8 rows of A B C D . #, separated by '/'
//!
//! [square-destroyer]
//! exhaustive = [1, 2, 3]           # grids whose every removal set gets a state (n <= 3)
//! symmetric = true                 # one state per orbit of the square's 8 symmetries
//! sampled = [4, 5]                 # grids answered by search for the empty grid and samples
//! samples = 20                     # random removal sets per sampled grid
//! seed = 1603
//! ```

use std::path::{Path, PathBuf};

use klotski::{Metric, PieceSet};
use omnigravity::Board;
use serde::Deserialize;

/// A pipeline that cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read pipeline {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("pipeline {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Which Huarong Dao spaces to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpaceKind {
    Unlabeled,
    Labeled,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPipeline {
    name: String,
    output: PathBuf,
    #[serde(default)]
    engine: Option<String>,
    #[serde(default)]
    workers: Option<usize>,
    huarong: Option<RawHuarong>,
    solitaire: Option<RawSolitaire>,
    omnigravity: Option<RawOmniGravity>,
    #[serde(rename = "square-destroyer")]
    square_destroyer: Option<RawSquareDestroyer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSolitaire {
    start: String,
    goal: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOmniGravity {
    boards: Vec<RawBoard>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    name: String,
    board: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSquareDestroyer {
    exhaustive: Vec<usize>,
    #[serde(default = "yes")]
    symmetric: bool,
    #[serde(default)]
    sampled: Vec<usize>,
    #[serde(default)]
    samples: usize,
    #[serde(default)]
    seed: u64,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHuarong {
    piece_sets: Vec<String>,
    spaces: Vec<SpaceKind>,
    metrics: Vec<String>,
    #[serde(default = "yes")]
    state_tables: bool,
}

/// A loaded, validated pipeline.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub name: String,
    pub output: PathBuf,
    /// Where components and distances run (`engine = "local" | "timely"`, `workers = N`).
    pub engine: EngineChoice,
    pub puzzle: PuzzleConfig,
}

/// The engine a pipeline asks for (the command line can override it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    #[default]
    Local,
    /// timely-dataflow with this many worker threads in this process.
    Timely { workers: usize },
}

/// The puzzle a pipeline runs, with its parameters.
#[derive(Debug, Clone)]
pub enum PuzzleConfig {
    Huarong(HuarongConfig),
    Solitaire(SolitaireConfig),
    OmniGravity(OmniGravityConfig),
    SquareDestroyer(SquareDestroyerConfig),
}

/// Solitaire: the start distances are measured from and the goal the summary reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolitaireConfig {
    pub start: u64,
    pub goal: u64,
}

/// OmniGravity: named boards, one state space each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OmniGravityConfig {
    pub boards: Vec<(String, Board)>,
}

/// Square Destroyer: exhaustive spaces for small grids, searched answers for larger ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SquareDestroyerConfig {
    pub exhaustive: Vec<usize>,
    pub symmetric: bool,
    pub sampled: Vec<usize>,
    pub samples: usize,
    pub seed: u64,
}

/// Largest grid whose every removal set gets a state (n = 4 would have 2^40).
pub const MAX_EXHAUSTIVE_N: usize = 3;

#[derive(Debug, Clone)]
pub struct HuarongConfig {
    pub piece_sets: Vec<PieceSet>,
    pub spaces: Vec<SpaceKind>,
    pub metrics: Vec<Metric>,
    /// Write `states-<space>.parquet` and `components-<space>.parquet` (one row per position /
    /// component); the universe turns them off and keeps the distributions.
    pub state_tables: bool,
}

impl Pipeline {
    /// Reads and validates a pipeline file.
    pub fn load(path: &Path) -> Result<Pipeline, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text).map_err(|message| ConfigError::Invalid {
            path: path.to_owned(),
            message,
        })
    }

    /// Parses and validates pipeline text; the error says what is wrong and where.
    pub fn parse(text: &str) -> Result<Pipeline, String> {
        let raw: RawPipeline = toml::from_str(text).map_err(|e| e.to_string())?;
        if raw.name.trim().is_empty() {
            return Err("`name` must not be empty".into());
        }
        let sections = [
            raw.huarong.is_some(),
            raw.solitaire.is_some(),
            raw.omnigravity.is_some(),
            raw.square_destroyer.is_some(),
        ];
        let puzzle = match sections.iter().filter(|&&s| s).count() {
            0 => {
                return Err("no puzzle section: add one of [huarong], [solitaire], \
                     [omnigravity], [square-destroyer]"
                    .into());
            }
            1 => {
                if let Some(s) = raw.solitaire {
                    solitaire_config(s)?
                } else if let Some(o) = raw.omnigravity {
                    omnigravity_config(o)?
                } else if let Some(q) = raw.square_destroyer {
                    square_destroyer_config(q)?
                } else {
                    huarong_config(raw.huarong.expect("one section is set"))?
                }
            }
            _ => return Err("more than one puzzle section: a pipeline runs one puzzle".into()),
        };
        let engine = match (raw.engine.as_deref(), raw.workers) {
            (None | Some("local"), None) => EngineChoice::Local,
            (None | Some("local"), Some(_)) => {
                return Err("`workers` needs `engine = \"timely\"`".into());
            }
            (Some("timely"), w) => match w.unwrap_or(2) {
                0 => return Err("`workers` must be at least 1".into()),
                workers => EngineChoice::Timely { workers },
            },
            (Some(other), _) => {
                return Err(format!(
                    "`engine`: unknown engine {other:?} (use \"local\" or \"timely\")"
                ));
            }
        };
        Ok(Pipeline {
            name: raw.name,
            output: raw.output,
            engine,
            puzzle,
        })
    }
}

fn solitaire_config(s: RawSolitaire) -> Result<PuzzleConfig, String> {
    let start = solitaire::parse(&s.start).map_err(|e| format!("[solitaire] start: {e}"))?;
    let goal = solitaire::parse(&s.goal).map_err(|e| format!("[solitaire] goal: {e}"))?;
    Ok(PuzzleConfig::Solitaire(SolitaireConfig { start, goal }))
}

fn omnigravity_config(o: RawOmniGravity) -> Result<PuzzleConfig, String> {
    if o.boards.is_empty() {
        return Err("[omnigravity] needs at least one board".into());
    }
    let mut boards: Vec<(String, Board)> = Vec::new();
    for (i, b) in o.boards.into_iter().enumerate() {
        let at = format!("[omnigravity] board {} ({:?})", i + 1, b.name);
        let ok_name = !b.name.is_empty()
            && b.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !ok_name {
            return Err(format!(
                "{at}: a board name is a folder name: letters, digits, '-' and '_'"
            ));
        }
        if boards.iter().any(|(n, _)| *n == b.name) {
            return Err(format!("{at}: the name is used twice"));
        }
        let board = Board::parse(&b.board).map_err(|e| format!("{at}: {e}"))?;
        boards.push((b.name, board));
    }
    Ok(PuzzleConfig::OmniGravity(OmniGravityConfig { boards }))
}

fn square_destroyer_config(q: RawSquareDestroyer) -> Result<PuzzleConfig, String> {
    for &n in &q.exhaustive {
        if !(1..=MAX_EXHAUSTIVE_N).contains(&n) {
            return Err(format!(
                "[square-destroyer] exhaustive: grid size {n} is outside 1..={MAX_EXHAUSTIVE_N} \
                 (n = 4 has 2^40 removal sets; list it under `sampled`)"
            ));
        }
    }
    for &n in &q.sampled {
        if !(1..=square_destroyer::MAX_N).contains(&n) {
            return Err(format!(
                "[square-destroyer] sampled: grid size {n} is outside 1..={}",
                square_destroyer::MAX_N
            ));
        }
    }
    if q.exhaustive.is_empty() && q.sampled.is_empty() {
        return Err("[square-destroyer] needs at least one grid (exhaustive or sampled)".into());
    }
    Ok(PuzzleConfig::SquareDestroyer(SquareDestroyerConfig {
        exhaustive: dedup(q.exhaustive),
        symmetric: q.symmetric,
        sampled: dedup(q.sampled),
        samples: q.samples,
        seed: q.seed,
    }))
}

fn huarong_config(h: RawHuarong) -> Result<PuzzleConfig, String> {
    if h.piece_sets.is_empty() || h.spaces.is_empty() || h.metrics.is_empty() {
        return Err("[huarong] needs at least one piece set, space and metric".into());
    }
    let mut piece_sets = Vec::new();
    for s in &h.piece_sets {
        if s == "all" {
            // Every valid piece set (204; the run skips the one without positions).
            piece_sets.extend(PieceSet::all());
        } else {
            piece_sets.push(
                s.parse::<PieceSet>()
                    .map_err(|e| format!("[huarong] piece_sets: {e}"))?,
            );
        }
    }
    let metrics = h
        .metrics
        .iter()
        .map(|m| {
            Metric::from_name(m).ok_or_else(|| {
                format!("[huarong] metrics: unknown metric {m:?} (use step, straight, piece)")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PuzzleConfig::Huarong(HuarongConfig {
        piece_sets: dedup(piece_sets),
        spaces: dedup(h.spaces),
        metrics: dedup(metrics),
        state_tables: h.state_tables,
    }))
}

fn dedup<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
name = "t"
output = "out"
[huarong]
piece_sets = ["h1v4s4"]
spaces = ["unlabeled"]
metrics = ["piece", "step"]
"#;

    #[test]
    fn parses_a_pipeline() {
        let p = Pipeline::parse(GOOD).unwrap();
        let PuzzleConfig::Huarong(h) = p.puzzle else {
            panic!("a huarong pipeline")
        };
        assert_eq!(h.piece_sets, vec![PieceSet::CLASSIC]);
        assert_eq!(h.metrics, vec![Metric::Piece, Metric::Step]);
    }

    #[test]
    fn names_what_is_wrong() {
        let e = Pipeline::parse(&GOOD.replace("spaces", "spacez")).unwrap_err();
        assert!(e.contains("spacez"), "{e}");
        let e = Pipeline::parse(&GOOD.replace("\"piece\"", "\"jump\"")).unwrap_err();
        assert!(e.contains("unknown metric \"jump\""), "{e}");
        let e = Pipeline::parse(&GOOD.replace("h1v4s4", "h1v4s9")).unwrap_err();
        assert!(e.contains("at least 2 are needed"), "{e}");
        let e = Pipeline::parse(&GOOD.replace("\"unlabeled\"", "\"both\"")).unwrap_err();
        assert!(e.contains("both"), "{e}");
        let e = Pipeline::parse("name = \"x\"\noutput = \"o\"\n").unwrap_err();
        assert!(e.contains("no puzzle section"), "{e}");
        let e = Pipeline::parse("name = = 1").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
    }

    #[test]
    fn sibling_sections() {
        let head = "name = \"t\"\noutput = \"o\"\n";
        let p = Pipeline::parse(&format!(
            "{head}[solitaire]\nstart = \"4 4 4 5 5 4 6 5\"\ngoal = \"2 4 3 3 3 6 4 6\"\n"
        ))
        .unwrap();
        assert!(matches!(p.puzzle, PuzzleConfig::Solitaire(_)));
        let e = Pipeline::parse(&format!(
            "{head}[solitaire]\nstart = \"4 4 4 5 5 4 6 9\"\ngoal = \"2 4 3 3 3 6 4 6\"\n"
        ))
        .unwrap_err();
        assert_eq!(e, "[solitaire] start: piece 4: column 9 is outside 1..=8");
        let board = "AABBCCDD/AABBCCDD/......../......../......../......../......../........";
        let og = |name: &str, b: &str| {
            format!("{head}[[omnigravity.boards]]\nname = \"{name}\"\nboard = \"{b}\"\n")
        };
        assert!(Pipeline::parse(&og("b-1", board)).is_ok());
        let e = Pipeline::parse(&og("a/b", board)).unwrap_err();
        assert!(e.contains("a board name is a folder name"), "{e}");
        let e = Pipeline::parse(&og("b", &board.replacen('A', "E", 1))).unwrap_err();
        assert!(
            e.contains("board 1 (\"b\"): row 1, column 1: unknown character 'E'"),
            "{e}"
        );
        let twice = format!("{}{}", og("b", board), &og("b", board)[head.len()..]);
        let e = Pipeline::parse(&twice).unwrap_err();
        assert!(e.contains("the name is used twice"), "{e}");
        let sd = |body: &str| Pipeline::parse(&format!("{head}[square-destroyer]\n{body}"));
        assert!(sd("exhaustive = [1, 2]\n").is_ok());
        let e = sd("exhaustive = [4]\n").unwrap_err();
        assert!(e.contains("grid size 4 is outside 1..=3"), "{e}");
        let e = sd("exhaustive = []\nsampled = [6]\n").unwrap_err();
        assert!(e.contains("sampled: grid size 6 is outside 1..=5"), "{e}");
        let e = sd("exhaustive = [1]\nseeds = 3\n").unwrap_err();
        assert!(e.contains("seeds"), "{e}");
        let e =
            Pipeline::parse(&format!("{GOOD}[square-destroyer]\nexhaustive = [1]\n")).unwrap_err();
        assert!(e.contains("more than one puzzle section"), "{e}");
    }
}
