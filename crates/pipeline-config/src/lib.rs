//! Pipeline descriptions: `pipelines/*.toml`. Its own crate, free of the stages and of polars,
//! so the loader can be fuzzed and reused cheaply.
//!
//! ```toml
//! name = "huarong"                 # names the run
//! output = "outputs/huarong"       # relative paths resolve against the current directory
//! engine = "local"                 # or "timely" (components and distances on timely-dataflow)
//! workers = 2                      # timely worker threads (engine = "timely" only)
//!
//! [huarong]                        # exactly one puzzle section, named after a registered family
//! piece_sets = ["h1v4s4"]
//! spaces = ["unlabeled", "labeled"]
//! metrics = ["step", "straight", "piece"]
//! ```
//!
//! The puzzle section is looked up in the families the program hands in (the `registry`
//! crate's, from the binary) and read by that family's driver
//! ([`huarong_core::driver::Driver::load`]); `huarong puzzles --examples` prints every family's
//! section with every key.
//!
//! The loader also fingerprints the section as written ([`Pipeline::section_key`]): every key
//! and value in a canonical encoding, plus every file the section read, so that the export is
//! rebuilt whenever any of them changes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use huarong_core::Fingerprint;
use huarong_core::driver::{Driver, Families, Section, SectionError, SectionInput};
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
    /// A file the pipeline's section names cannot be read.
    #[error("pipeline {path}: {source}")]
    Section {
        path: PathBuf,
        #[source]
        source: SectionError,
    },
}

impl ConfigError {
    /// The error of loading the pipeline file `path`: bad input as [`ConfigError::Invalid`],
    /// a file it names that cannot be read with the reading's error.
    pub fn of(path: &Path, e: SectionError) -> ConfigError {
        match e {
            SectionError::Invalid(message) => ConfigError::Invalid {
                path: path.to_owned(),
                message,
            },
            e @ SectionError::Read { .. } => ConfigError::Section {
                path: path.to_owned(),
                source: e,
            },
        }
    }

    pub fn kind(&self) -> huarong_core::ErrorKind {
        match self {
            ConfigError::Read { source, .. } => huarong_core::ErrorKind::of_io(source),
            ConfigError::Invalid { .. } => huarong_core::ErrorKind::Invalid,
            ConfigError::Section { source, .. } => source.kind(),
        }
    }
}

/// The settings every pipeline has besides its puzzle section.
#[derive(Debug, Deserialize)]
struct Head {
    name: String,
    output: PathBuf,
    #[serde(default)]
    engine: Option<String>,
    #[serde(default)]
    workers: Option<usize>,
    #[serde(default)]
    max_states: Option<u64>,
}

const HEAD_KEYS: [&str; 5] = ["name", "output", "engine", "workers", "max_states"];

/// A loaded, validated pipeline.
#[derive(Clone)]
pub struct Pipeline {
    pub name: String,
    pub output: PathBuf,
    /// Where components and distances run (`engine = "local" | "timely"`, `workers = N`).
    pub engine: EngineChoice,
    /// Most states a space may have (`max_states = N`; the command line can override it, the
    /// run sizes it to the machine when neither says).
    pub max_states: Option<u64>,
    /// The puzzle family of the section.
    pub puzzle: &'static dyn Driver,
    /// The validated puzzle section.
    pub section: Arc<dyn Section>,
    /// Fingerprint of the section as written and of the files it read (see [`section_key`]).
    pub section_key: u64,
}

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("name", &self.name)
            .field("output", &self.output)
            .field("engine", &self.engine)
            .field("puzzle", &self.puzzle.name())
            .field("section", &self.section)
            .field("section_key", &format_args!("{:016x}", self.section_key))
            .finish()
    }
}

/// The engine a pipeline asks for (the command line can override it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineChoice {
    #[default]
    Local,
    /// timely-dataflow with this many worker threads in this process.
    Timely { workers: usize },
}

impl Pipeline {
    /// Reads and validates a pipeline file; files its section names are read relative to the
    /// current directory.
    pub fn load(families: Families, path: &Path) -> Result<Pipeline, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse_with(families, &text, &|file: &str| std::fs::read_to_string(file))
            .map_err(|e| ConfigError::of(path, e))
    }

    /// Parses and validates pipeline text whose section reads no files; the error says what is
    /// wrong and where.
    pub fn parse(families: Families, text: &str) -> Result<Pipeline, SectionError> {
        Self::parse_with(families, text, &|_: &str| {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no files here",
            ))
        })
    }

    /// Parses and validates pipeline text; `read` reads the files the section names.
    pub fn parse_with(
        families: Families,
        text: &str,
        read: &dyn Fn(&str) -> std::io::Result<String>,
    ) -> Result<Pipeline, SectionError> {
        let head: Head = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_owned())?;
        let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        if head.name.trim().is_empty() {
            return Err("`name` must not be empty".into());
        }
        let mut sections = Vec::new();
        for (key, value) in &table {
            if HEAD_KEYS.contains(&key.as_str()) {
                continue;
            }
            match families.find(key) {
                Some(driver) => sections.push((driver, value)),
                None => {
                    return Err(format!(
                        "unknown key `{key}`{}: a pipeline has `name`, `output`, `engine`, \
                         `workers`, `max_states` and one puzzle section, one of [{}]",
                        line_of(text, key),
                        families.names().replace(", ", "], [")
                    )
                    .into());
                }
            }
        }
        let (driver, value) = match sections.len() {
            0 => {
                return Err(format!(
                    "no puzzle section: add one of [{}]",
                    families.names().replace(", ", "], [")
                )
                .into());
            }
            1 => sections[0],
            _ => return Err("more than one puzzle section: a pipeline runs one puzzle".into()),
        };
        let input = SectionInput::new(driver.name(), text, read);
        let section = driver.load(&input)?;
        let engine = match (head.engine.as_deref(), head.workers) {
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
                )
                .into());
            }
        };
        if head.max_states == Some(0) {
            return Err("`max_states` must be at least 1".into());
        }
        Ok(Pipeline {
            name: head.name,
            output: head.output,
            engine,
            max_states: head.max_states,
            puzzle: driver,
            section: Arc::from(section),
            section_key: section_key(driver.name(), value, &input.files_read()),
        })
    }
}

/// ` (line N)` for the first line that starts with `key`, if any.
fn line_of(text: &str, key: &str) -> String {
    text.lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches('[');
            l.starts_with(key) && l[key.len()..].trim_start().starts_with(['=', ']', '.'])
        })
        .map(|i| format!(" (line {})", i + 1))
        .unwrap_or_default()
}

/// The fingerprint of a puzzle section as written, documented as part of the export's
/// fingerprint: the family's name, then the section's value in a canonical encoding (below),
/// then the list of files the section read, each as its path and its contents.
///
/// The canonical encoding of a TOML value, on [`Fingerprint`]'s tagged values: a type name
/// (`string`, `integer`, `float`, `bool`, `datetime`, `array`, `table`) then the value — a
/// string, an `i64`, a float's IEEE bits as `u64`, a bool, a datetime as its TOML text; an
/// array as a list of values; a table as a list of (key, value) pairs in key order. Comments,
/// spacing and key order in the file do not matter; every key and value does.
pub fn section_key(name: &str, value: &toml::Value, files: &[(String, String)]) -> u64 {
    let mut key = Fingerprint::new("section", 1);
    key.add_str(name);
    encode(&mut key, value);
    key.add_list(files.len());
    for (path, text) in files {
        key.add_str(path).add_str(text);
    }
    key.finish()
}

fn encode(key: &mut Fingerprint, value: &toml::Value) {
    use toml::Value as V;
    match value {
        V::String(s) => key.add_str("string").add_str(s),
        V::Integer(i) => key.add_str("integer").add_i64(*i),
        V::Float(f) => key.add_str("float").add_u64(f.to_bits()),
        V::Boolean(b) => key.add_str("bool").add_bool(*b),
        V::Datetime(d) => key.add_str("datetime").add_str(&d.to_string()),
        V::Array(items) => {
            key.add_str("array").add_list(items.len());
            for item in items {
                encode(key, item);
            }
            key
        }
        V::Table(t) => {
            key.add_str("table").add_list(t.len());
            let mut entries: Vec<(&String, &toml::Value)> = t.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (k, v) in entries {
                key.add_str(k);
                encode(key, v);
            }
            key
        }
    };
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
        let p = Pipeline::parse(registry::families(), GOOD).unwrap();
        assert_eq!(p.puzzle.name(), "huarong");
        assert_eq!(p.name, "t");
        let plan = p.section.spaces();
        let ids: Vec<String> = plan.spaces.iter().map(|s| s.puzzle.space_id()).collect();
        // The run's space, then the unlabeled spaces of the named layouts' other piece sets.
        assert_eq!(ids[0], "h1v4s4-unlabeled");
        assert!(plan.spaces[0].summary && !plan.spaces[1].summary);
        assert_eq!(plan.spaces[0].metrics, vec![2, 0]);
    }

    #[test]
    fn names_what_is_wrong() {
        let e = Pipeline::parse(registry::families(), &GOOD.replace("spaces", "spacez"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("spacez") && e.contains("line 6"), "{e}");
        let e = Pipeline::parse(registry::families(), &GOOD.replace("\"piece\"", "\"jump\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown metric \"jump\""), "{e}");
        let e = Pipeline::parse(registry::families(), &GOOD.replace("h1v4s4", "h1v4s9"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least 2 are needed"), "{e}");
        let e = Pipeline::parse(
            registry::families(),
            &GOOD.replace("\"unlabeled\"", "\"both\""),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("both"), "{e}");
        let e = Pipeline::parse(registry::families(), "name = \"x\"\noutput = \"o\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no puzzle section: add one of [") && e.contains("[huarong]"),
            "{e}"
        );
        let e = Pipeline::parse(registry::families(), "name = = 1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = Pipeline::parse(registry::families(), &GOOD.replace("[huarong]", "[hauron]"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key `hauron` (line 4)"), "{e}");
        let e = Pipeline::parse(registry::families(), &format!("speed = 3\n{GOOD}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key `speed` (line 1)"), "{e}");
    }

    /// A file the section names that cannot be read keeps the reading's kind (not found, not
    /// bad input) up to the pipeline's error; the message names the key and the file.
    #[test]
    fn an_unreadable_file_keeps_its_kind() {
        use huarong_core::ErrorKind;
        let text = "name = \"t\"\noutput = \"o\"\n[sliding]\npuzzles = [\"puzzles/nope.toml\"]\n";
        let e = Pipeline::parse(registry::families(), text).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            "[sliding] puzzles: cannot read puzzles/nope.toml: no files here"
        );
        let e = ConfigError::of(Path::new("p.toml"), e);
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(
            e.to_string()
                .starts_with("pipeline p.toml: [sliding] puzzles: cannot read"),
            "{e}"
        );
        let bad = Pipeline::parse(registry::families(), &GOOD.replace("spaces", "spacez"));
        let e = ConfigError::of(Path::new("p.toml"), bad.unwrap_err());
        assert_eq!(e.kind(), ErrorKind::Invalid);
    }

    #[test]
    fn sibling_sections() {
        let head = "name = \"t\"\noutput = \"o\"\n";
        let p = Pipeline::parse(
            registry::families(),
            &format!(
                "{head}[solitaire]\nstart = \"4 4 4 5 5 4 6 5\"\ngoal = \"2 4 3 3 3 6 4 6\"\n"
            ),
        )
        .unwrap();
        assert_eq!(p.puzzle.name(), "solitaire");
        let e = Pipeline::parse(
            registry::families(),
            &format!(
                "{head}[solitaire]\nstart = \"4 4 4 5 5 4 6 9\"\ngoal = \"2 4 3 3 3 6 4 6\"\n"
            ),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "[solitaire] start: piece 4: column 9 is outside 1..=8");
        let board = "AABBCCDD/AABBCCDD/......../......../......../......../......../........";
        let og = |name: &str, b: &str| {
            format!("{head}[[omnigravity.boards]]\nname = \"{name}\"\nboard = \"{b}\"\n")
        };
        assert!(Pipeline::parse(registry::families(), &og("b-1", board)).is_ok());
        let e = Pipeline::parse(registry::families(), &og("a/b", board))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a board name is a folder name"), "{e}");
        let e = Pipeline::parse(registry::families(), &og("b", &board.replacen('A', "E", 1)))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("board 1 (\"b\"): row 1, column 1: unknown character 'E'"),
            "{e}"
        );
        let twice = format!("{}{}", og("b", board), &og("b", board)[head.len()..]);
        let e = Pipeline::parse(registry::families(), &twice)
            .unwrap_err()
            .to_string();
        assert!(e.contains("the name is used twice"), "{e}");
        let sd = |body: &str| {
            Pipeline::parse(
                registry::families(),
                &format!("{head}[square-destroyer]\n{body}"),
            )
        };
        assert!(sd("exhaustive = [1, 2]\n").is_ok());
        let e = sd("exhaustive = [4]\n").unwrap_err().to_string();
        assert!(e.contains("grid size 4 is outside 1..=3"), "{e}");
        let e = sd("exhaustive = []\nsampled = [6]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sampled: grid size 6 is outside 1..=5"), "{e}");
        let e = sd("exhaustive = [1]\nseeds = 3\n").unwrap_err().to_string();
        assert!(e.contains("seeds") && e.contains("line 5"), "{e}");
        let e = Pipeline::parse(
            registry::families(),
            &format!("{GOOD}[square-destroyer]\nexhaustive = [1]\n"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("more than one puzzle section"), "{e}");
    }

    #[test]
    fn the_section_key_covers_every_value_but_not_layout_or_comments() {
        let key = |text: &str| {
            Pipeline::parse(registry::families(), text)
                .unwrap()
                .section_key
        };
        let base = key(GOOD);
        // Comments, spacing and key order do not matter.
        let reordered = "name = \"t\"\noutput = \"out\"\n[huarong]  # a comment\n\
            metrics = [ \"piece\", \"step\" ]\nspaces = [\"unlabeled\"]\npiece_sets = [\"h1v4s4\"]\n";
        assert_eq!(key(reordered), base);
        // Every value does, and so does a default written out.
        assert_ne!(key(&GOOD.replace("\"piece\", ", "")), base);
        assert_ne!(key(&GOOD.replace("[\"unlabeled\"]", "[\"labeled\"]")), base);
        assert_ne!(key(&format!("{GOOD}state_tables = true\n")), base);
        // The run's name and output folder are not part of the section.
        assert_eq!(key(&GOOD.replace("\"t\"", "\"u\"")), base);
    }
}
