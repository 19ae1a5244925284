//! Pipeline descriptions: `pipelines/*.toml`.
//!
//! ```toml
//! name = "huarong"                 # names the run
//! output = "outputs/huarong"       # relative paths resolve against the current directory
//!
//! [huarong]                        # the puzzle section (exactly one)
//! piece_sets = ["h1v4s4"]          # "h<N>v<N>s<N>" each
//! spaces = ["unlabeled", "labeled"]
//! metrics = ["step", "straight", "piece"]
//! ```

use std::path::{Path, PathBuf};

use klotski::{Metric, PieceSet};
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
    huarong: Option<RawHuarong>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHuarong {
    piece_sets: Vec<String>,
    spaces: Vec<SpaceKind>,
    metrics: Vec<String>,
}

/// A loaded, validated pipeline.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub name: String,
    pub output: PathBuf,
    pub puzzle: PuzzleConfig,
}

/// The puzzle a pipeline runs, with its parameters.
#[derive(Debug, Clone)]
pub enum PuzzleConfig {
    Huarong(HuarongConfig),
}

#[derive(Debug, Clone)]
pub struct HuarongConfig {
    pub piece_sets: Vec<PieceSet>,
    pub spaces: Vec<SpaceKind>,
    pub metrics: Vec<Metric>,
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
        let Some(h) = raw.huarong else {
            return Err("no puzzle section: add [huarong]".into());
        };
        if h.piece_sets.is_empty() || h.spaces.is_empty() || h.metrics.is_empty() {
            return Err("[huarong] needs at least one piece set, space and metric".into());
        }
        let piece_sets = h
            .piece_sets
            .iter()
            .map(|s| {
                s.parse::<PieceSet>()
                    .map_err(|e| format!("[huarong] piece_sets: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let metrics = h
            .metrics
            .iter()
            .map(|m| {
                Metric::from_name(m).ok_or_else(|| {
                    format!("[huarong] metrics: unknown metric {m:?} (use step, straight, piece)")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Pipeline {
            name: raw.name,
            output: raw.output,
            puzzle: PuzzleConfig::Huarong(HuarongConfig {
                piece_sets: dedup(piece_sets),
                spaces: dedup(h.spaces),
                metrics: dedup(metrics),
            }),
        })
    }
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
        let PuzzleConfig::Huarong(h) = p.puzzle;
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
}
