//! The one seam through which a puzzle family enters the pipeline and the command line.
//!
//! A family implements [`Driver`] (usually in its own crate, beside its model) and is listed once
//! in the `registry` crate. The driver declares:
//!
//! * its pipeline section: [`Driver::load`] deserializes a typed serde config from the section
//!   (errors point at the line) and validates it into a [`Section`];
//! * the spaces the section builds ([`Section::spaces`]): each a [`Puzzle`], its metrics, its own
//!   summary columns ([`SpaceSpec::tags`]) and which per-position tables it wants;
//! * its answer per space, its records and its extra tables, read off the finished artifacts
//!   through [`SpaceView`]s (plain slices: the driver never touches a file);
//! * its notation, an example section, and optionally a contest judge.
//!
//! The pipeline crate runs every section the same way: stages per space, answers, then one
//! export (summary, records, histograms, states tables, the driver's extra tables).

use std::cell::RefCell;
use std::fmt;

use rayon::prelude::*;
use serde::de::DeserializeOwned;

use crate::picture::Picture;
use crate::table::{Table, Value};
use crate::{Puzzle, UNREACHABLE};

/// A contest judge: the whole judge input in, the exact judge output out; an error names the
/// case and line.
pub type Judge = fn(&str) -> Result<String, crate::InputError>;

/// Most `farthest` records per space and metric (the summary counts them all).
pub const FARTHEST_CAP: usize = 100;

/// A puzzle family as the pipeline and the command line see it.
pub trait Driver: Send + Sync {
    /// The pipeline section's name, also the family's name on the command line (`huarong`,
    /// `square-destroyer`, …).
    fn name(&self) -> &'static str;

    /// One line saying what the family is.
    fn about(&self) -> &'static str;

    /// How positions are written (what `render` prints and `parse` reads).
    fn notation(&self) -> &'static str;

    /// A complete pipeline section in TOML, its header included and every key present:
    /// documentation, and the base the contract tests perturb key by key.
    fn example(&self) -> &'static str;

    /// Reads and validates the pipeline section.
    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError>;

    /// The family's contest judge, if it has one.
    fn judge(&self) -> Option<Judge> {
        None
    }

    /// How `huarong solve` and `huarong render` read this family's positions, if they do.
    fn solver(&self) -> Option<&dyn Solver> {
        None
    }
}

/// The puzzle families a program knows, in the order it lists them. The program — the binary,
/// the Python module — takes them from the `registry` crate and hands them to the libraries;
/// no library reaches for a global list, and nothing but a listing depends on the order.
#[derive(Clone, Copy)]
pub struct Families(&'static [&'static dyn Driver]);

impl fmt::Debug for Families {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|d| d.name()))
            .finish()
    }
}

impl Families {
    pub const fn new(drivers: &'static [&'static dyn Driver]) -> Families {
        Families(drivers)
    }

    /// Every family, in listing order.
    pub fn drivers(&self) -> &'static [&'static dyn Driver] {
        self.0
    }

    /// The family named `name` (its pipeline section's name).
    pub fn find(&self, name: &str) -> Option<&'static dyn Driver> {
        self.0.iter().copied().find(|d| d.name() == name)
    }

    /// Every family's name, comma-separated (for messages).
    pub fn names(&self) -> String {
        self.0
            .iter()
            .map(|d| d.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The position `request` names, read by the one family whose notation it is in
    /// ([`Solver::accepts`]). No family reading it is an error saying what each reads; two is an
    /// error naming both — never a choice by listing order.
    pub fn instance(&self, request: &SolveRequest<'_>) -> Result<Box<dyn Instance>, RequestError> {
        // By name, so that even the messages do not depend on the order.
        let mut solvers: Vec<(&'static str, &'static dyn Solver)> = self
            .0
            .iter()
            .filter_map(|d| Some((d.name(), d.solver()?)))
            .collect();
        solvers.sort_by_key(|(name, _)| *name);
        let readers: Vec<_> = solvers.iter().filter(|(_, s)| s.accepts(request)).collect();
        match readers[..] {
            [&(family, solver)] => solver.instance(request).map_err(|e| RequestError::Invalid {
                family,
                message: e.0,
            }),
            [] => Err(RequestError::Unread {
                reads: solvers.iter().map(|(f, s)| (*f, s.reads())).collect(),
            }),
            _ => Err(RequestError::Ambiguous {
                families: readers.iter().map(|(family, _)| *family).collect(),
            }),
        }
    }
}

/// Why a request names no position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    /// The family whose notation the request is in found it wrong (the message says where).
    #[error("{message}")]
    Invalid {
        family: &'static str,
        message: String,
    },
    /// In no family's notation: what each family reads.
    #[error("no puzzle family reads this request{}", reads_text(.reads))]
    Unread {
        reads: Vec<(&'static str, &'static str)>,
    },
    /// In the notation of several families (a family's `accepts` is too broad).
    #[error("more than one puzzle family reads this request: {}", .families.join(", "))]
    Ambiguous { families: Vec<&'static str> },
}

impl RequestError {
    /// Always [`crate::ErrorKind::Invalid`]: what the user wrote is in no family's notation,
    /// or wrong in its details.
    pub fn kind(&self) -> crate::ErrorKind {
        crate::ErrorKind::Invalid
    }
}

fn reads_text(reads: &[(&'static str, &'static str)]) -> String {
    reads
        .iter()
        .map(|(family, what)| format!("; [{family}] reads {what}"))
        .collect()
}

/// A position to solve, show or draw, as a user gives it (on the command line, or to the
/// server): every part is text the family reads in its own notation.
#[derive(Debug, Clone, Copy, Default)]
pub struct SolveRequest<'a> {
    /// The position, e.g. a Huarong Dao layout, or a position of `puzzle`.
    pub position: Option<&'a str>,
    /// A puzzle file: its path (for messages) and contents.
    pub puzzle: Option<(&'a str, &'a str)>,
    /// Another goal than the family's own, in the family's notation (Huarong Dao: `ROW,COL`
    /// of Cao Cao's top-left cell).
    pub goal: Option<&'a str>,
}

/// A family's reader of `solve` requests.
pub trait Solver: Send + Sync {
    /// Whether `request` is in this family's notation (a puzzle file it reads, or a position
    /// written as it writes them), even if wrong in its details: [`Families::instance`] wants
    /// exactly one family to say so, whatever their order.
    fn accepts(&self, request: &SolveRequest<'_>) -> bool;

    /// What the family reads, for the message when no family reads a request: "a layout (…)".
    fn reads(&self) -> &'static str;

    /// The position `request` names, or what is wrong with it (row, column, piece).
    fn instance(&self, request: &SolveRequest<'_>) -> Result<Box<dyn Instance>, crate::InputError>;

    /// Named positions a player can pick (name, position as [`SolveRequest::position`] reads
    /// it), e.g. the classic Huarong Dao layouts.
    fn named(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
}

/// One position to solve.
pub trait Instance {
    /// How JSON output names the instance: `("layout", "VCCV/…")`, `("puzzle", "Pennant")`.
    fn describe(&self) -> (&'static str, String);

    /// The start position in the notation of the path.
    fn start(&self) -> String;

    /// The space whose distance tables (a pipeline's `<output>/<space id>/`) may hold this
    /// position, and the position's code there.
    fn table_space(&self) -> Option<(&dyn Puzzle, u64)>;

    /// An optimal path to the goal in `metric` (a metric name), start first, or `None` if no
    /// goal is reachable. With `distance` (a code of the table space → its distance) the path
    /// descends the tables; without, a search explores at most `limit` states.
    fn solve(
        &self,
        metric: &str,
        distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<SolvedPath>, SolveError>;

    /// The start as a picture.
    fn picture(&self) -> Picture;

    /// The metric a request that names none is solved in; `None`: the first of the table
    /// space's metrics (an instance without a [`Instance::table_space`] should name one, or
    /// such a request is refused).
    fn default_metric(&self) -> Option<&'static str> {
        None
    }

    /// Whether a heuristic search of this instance ([`Instance::solve_informed`]) can use
    /// pattern databases whose ids start with this prefix (the folders `<root>/<id>/` under the
    /// table roots); `None` when the family has no such search.
    fn pattern_prefix(&self) -> Option<String> {
        None
    }

    /// The abstraction named `id` (which starts with the [`Instance::pattern_prefix`]), when it
    /// is one of this instance's: the databases found must carry its fingerprint.
    fn abstraction(&self, id: &str) -> Option<Box<dyn crate::Abstraction>> {
        let _ = id;
        None
    }

    /// An optimal path by the family's heuristic search with `databases` (verified, current
    /// databases of this instance's abstractions; it picks the ones it can add up), expanding
    /// at most `limit` nodes; and the nodes it expanded. The default: [`Instance::solve`]
    /// without tables.
    fn solve_informed(
        &self,
        metric: &str,
        databases: &[crate::abstraction::Database<'_>],
        limit: u64,
    ) -> Result<Informed, SolveError> {
        let _ = databases;
        Ok(Informed {
            path: self.solve(metric, None, limit)?,
            nodes: None,
        })
    }

    /// Every position one move away in `metric` (a metric name), in the family's move order.
    fn moves(&self, metric: &str) -> Result<Vec<Step>, SolveError>;

    /// Other names of the start that the family's users paste around (Huarong Dao:
    /// dnomd343/klotski's `common_code` and `short_code`), shown beside it; the position's
    /// text accepts them too.
    fn codes(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }
}

/// A position one move away from an [`Instance`]'s start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// In the notation of [`Instance::start`] (what [`SolveRequest::position`] reads).
    pub position: String,
    /// Its code in the [`Instance::table_space`], when the instance has one.
    pub code: Option<u64>,
    pub picture: Picture,
}

/// What [`Instance::solve_informed`] found: the path (`None`: no goal reachable) and how much
/// the search did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Informed {
    pub path: Option<SolvedPath>,
    pub nodes: Option<Nodes>,
}

/// A heuristic search's work: states whose moves it generated, and the children generated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Nodes {
    pub expanded: u64,
    pub generated: u64,
}

/// A path from the start to a goal: every position in the family's notation and as a picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolvedPath {
    pub layouts: Vec<String>,
    pub pictures: Vec<Picture>,
}

/// Why a search gave up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("gave up after {0} states without reaching a goal")]
    Limit(u64),
    #[error("gave up after expanding {0} nodes without reaching a goal")]
    Nodes(u64),
    #[error("unknown metric {0:?}")]
    Metric(String),
}

impl SolveError {
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            SolveError::Limit(_) | SolveError::Nodes(_) => crate::ErrorKind::GaveUp,
            SolveError::Metric(_) => crate::ErrorKind::Invalid,
        }
    }
}

/// A validated pipeline section: what to build and what to read off it.
pub trait Section: Send + Sync + fmt::Debug {
    /// The state spaces, in run order. Spaces with [`SpaceSpec::summary`] off are built only for
    /// records (e.g. the unlabeled space of a named layout's piece set).
    fn spaces(&self) -> Plan;

    /// The family's own question answered for one finished space in one metric (an index
    /// into `space.metrics`): `summary.answer` of that row, if the family has one.
    fn answer(&self, space: &SpaceView<'_>, metric: usize) -> Option<u64> {
        let _ = (space, metric);
        None
    }

    /// `records.parquet` rows. The default: per summary space and metric, its named positions,
    /// then its farthest solvable positions (at most [`FARTHEST_CAP`]).
    fn records(&self, spaces: &[SpaceView<'_>]) -> Vec<Record> {
        default_records(spaces)
    }

    /// Extra Parquet tables (file name, table) beyond the ones every pipeline writes.
    fn tables(&self, spaces: &[SpaceView<'_>]) -> Vec<(String, Table)> {
        let _ = spaces;
        Vec::new()
    }

    /// Everything the section adds to the export: its [`Section::tables`], and columns of
    /// `summary.parquet` computed with them. The default: the tables alone.
    fn extras(&self, spaces: &[SpaceView<'_>]) -> Extras {
        Extras {
            tables: self.tables(spaces),
            summary: Vec::new(),
        }
    }
}

/// What a section adds to the export ([`Section::extras`]).
#[derive(Debug, Default)]
pub struct Extras {
    /// Extra Parquet tables (file name, table).
    pub tables: Vec<(String, Table)>,
    /// Extra `summary.parquet` columns, after every pipeline's.
    pub summary: Vec<SummaryColumn>,
}

/// A `summary.parquet` column a section adds: its values by `(space index, metric index)`; a
/// summary row without one holds null.
#[derive(Debug)]
pub struct SummaryColumn {
    pub name: &'static str,
    pub values: Vec<((usize, usize), u64)>,
}

/// The spaces a section builds, the pattern databases (abstract spaces searched from their
/// goal, [`crate::abstraction`]), and remarks for the log (e.g. a space skipped as empty).
#[derive(Debug, Default)]
pub struct Plan {
    pub spaces: Vec<SpaceSpec>,
    pub patterns: Vec<Box<dyn crate::Abstraction>>,
    /// Censuses over classes searched in memory ([`crate::universe`]).
    pub universes: Vec<Box<dyn crate::Universe>>,
    pub notes: Vec<String>,
}

/// How a states table identifies its positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKey {
    /// A `layout` column: the puzzle's rendering of each state.
    Layout,
    /// A `u32` column `name` holding `index / per` (a labeled space whose states come in blocks
    /// of `per` over an unlabeled one: the unlabeled index, so the two tables join).
    Block { name: &'static str, per: u64 },
}

/// A column of a states table: its name and the text of a state's code.
pub type CodeColumn = (&'static str, fn(u64) -> String);

/// One state space of a section.
pub struct SpaceSpec {
    pub puzzle: Box<dyn Puzzle>,
    /// Metric indices (into `puzzle.metrics()`) the graph, components and distances run in.
    pub metrics: Vec<usize>,
    /// In the summary, the histograms and the per-position tables; `false`: built only so that
    /// records can be read off it.
    pub summary: bool,
    /// The family's own columns for this space, in the summary, histograms, component sizes
    /// and records (every space of a section has the same names). `piece_set` and `labeled`
    /// are in every summary; a family that sets neither gets `""` and `false`.
    pub tags: Vec<(&'static str, Value)>,
    pub key: StateKey,
    /// Text columns the states table adds after its key, each a function of a state's code
    /// (Huarong Dao's unlabeled spaces: `common_code`, `short_code`).
    pub code_columns: Vec<CodeColumn>,
    /// Write `states-<space>.parquet` (one row per position).
    pub states_table: bool,
    /// Write `components-<space>.parquet` (one row per component and metric).
    pub components_table: bool,
    /// Named positions (name, code) for the default records.
    pub named: Vec<(String, u64)>,
}

impl fmt::Debug for SpaceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpaceSpec")
            .field("space", &self.puzzle.space_id())
            .field("metrics", &self.metrics)
            .field("summary", &self.summary)
            .field("tags", &self.tags)
            .finish_non_exhaustive()
    }
}

impl SpaceSpec {
    /// A summary space with a layout column and both per-position tables.
    pub fn new(puzzle: Box<dyn Puzzle>, metrics: Vec<usize>) -> Self {
        SpaceSpec {
            puzzle,
            metrics,
            summary: true,
            tags: Vec::new(),
            key: StateKey::Layout,
            code_columns: Vec::new(),
            states_table: true,
            components_table: true,
            named: Vec::new(),
        }
    }

    /// The tag `name`, if the family set it.
    pub fn tag(&self, name: &str) -> Option<&Value> {
        self.tags.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// A finished space's artifacts as plain slices (the pipeline opened and verified them).
#[derive(Debug)]
pub struct SpaceView<'a> {
    pub spec: &'a SpaceSpec,
    /// Position of this space in its [`Plan`].
    pub index: usize,
    /// State codes in index order (sorted): stored, or computed by a ranked space's puzzle.
    pub codes: crate::Codes<'a>,
    pub metrics: Vec<MetricView<'a>>,
}

/// One metric's artifacts of a finished space.
#[derive(Debug, Clone, Copy)]
pub struct MetricView<'a> {
    pub name: &'a str,
    /// The targets of every arc (each state's neighbours in turn), when the graph is stored
    /// (`None` for a puzzle whose later stages regenerate its moves, [`crate::Puzzle::stores_graph`]).
    pub targets: Option<&'a [u32]>,
    /// Component id of every state, and the size of every component.
    pub components: &'a [u32],
    pub component_sizes: &'a [u64],
    /// Distance of every state, [`UNREACHABLE`] where none.
    pub distances: &'a [u16],
}

impl MetricView<'_> {
    /// The distance of state `index`, `None` if unreachable.
    pub fn distance(&self, index: u32) -> Option<u32> {
        let d = self.distances[index as usize];
        (d != UNREACHABLE).then_some(d as u32)
    }

    /// The size of the component of state `index`.
    pub fn component_size(&self, index: u32) -> u64 {
        self.component_sizes[self.components[index as usize] as usize]
    }

    /// Indices of the states at the largest finite distance, in index order.
    pub fn farthest(&self) -> Vec<u32> {
        farthest(self.distances)
    }
}

impl SpaceView<'_> {
    pub fn puzzle(&self) -> &dyn Puzzle {
        self.spec.puzzle.as_ref()
    }

    /// The dense index of `code`, if it is a state of this space.
    pub fn index_of(&self, code: u64) -> Option<u32> {
        self.codes.index_of(code)
    }
}

/// Indices of the states at the largest finite distance, in index order. Each chunk of 64K
/// states' largest distance first (a vectorised pass, the chunks in parallel), then the states
/// at the overall largest listed from the chunks that reach it only.
pub fn farthest(values: &[u16]) -> Vec<u32> {
    const CHUNK: usize = 1 << 16;
    // `d + 1` wraps [`UNREACHABLE`] to 0: a chunk's largest is 1 + its largest finite distance,
    // 0 if it has none.
    let tops: Vec<u16> = values
        .par_chunks(CHUNK)
        .map(|chunk| chunk.iter().fold(0, |m, &d| m.max(d.wrapping_add(1))))
        .collect();
    let Some(&top) = tops.iter().max().filter(|&&t| t > 0) else {
        return Vec::new();
    };
    let max = top - 1;
    tops.par_iter()
        .enumerate()
        .filter(|&(_, &t)| t == top)
        .flat_map_iter(|(k, _)| {
            let chunk = &values[k * CHUNK..((k + 1) * CHUNK).min(values.len())];
            (chunk.iter().enumerate())
                .filter(move |&(_, &d)| d == max)
                .map(move |(i, _)| (k * CHUNK + i) as u32)
        })
        .collect()
}

/// One row of `records.parquet`: a position of a space, measured in one metric. The pipeline
/// fills in its layout, space, tags, moves and component size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    /// Index of the space in the [`Plan`].
    pub space: usize,
    /// Index into that space's [`SpaceView::metrics`].
    pub metric: usize,
    /// The state's dense index.
    pub state: u32,
}

/// Per summary space and metric: the named positions, then the farthest ones.
pub fn default_records(spaces: &[SpaceView<'_>]) -> Vec<Record> {
    let mut out = Vec::new();
    for s in spaces.iter().filter(|s| s.spec.summary) {
        for (mi, m) in s.metrics.iter().enumerate() {
            for (name, code) in &s.spec.named {
                if let Some(state) = s.index_of(*code) {
                    out.push(Record {
                        name: name.clone(),
                        space: s.index,
                        metric: mi,
                        state,
                    });
                }
            }
            for state in m.farthest().into_iter().take(FARTHEST_CAP) {
                out.push(Record {
                    name: "farthest".to_owned(),
                    space: s.index,
                    metric: mi,
                    state,
                });
            }
        }
    }
    out
}

/// Why a pipeline section cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SectionError {
    /// What the section says is wrong; the message names the key, line, file or piece.
    #[error("{0}")]
    Invalid(String),
    /// A file the section names cannot be read (`within`: what named it, e.g. `[sliding]
    /// puzzles: `).
    #[error("{within}cannot read {path}: {source}")]
    Read {
        within: String,
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl SectionError {
    /// Bad input, or the reading's own kind (a missing file is not found).
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            SectionError::Invalid(_) => crate::ErrorKind::Invalid,
            SectionError::Read { source, .. } => crate::ErrorKind::of_io(source),
        }
    }

    /// The error as part of `what` (`[sliding] puzzles`): its message prefixed with `what: `.
    pub fn within(self, what: &str) -> SectionError {
        match self {
            SectionError::Invalid(m) => SectionError::Invalid(format!("{what}: {m}")),
            SectionError::Read {
                within,
                path,
                source,
            } => SectionError::Read {
                within: format!("{what}: {within}"),
                path,
                source,
            },
        }
    }
}

impl From<String> for SectionError {
    fn from(message: String) -> Self {
        SectionError::Invalid(message)
    }
}

impl From<&str> for SectionError {
    fn from(message: &str) -> Self {
        SectionError::Invalid(message.to_owned())
    }
}

/// A pipeline section as a driver receives it: typed deserialization with errors that point at
/// the line of the pipeline file, and reading the files the section names.
pub struct SectionInput<'a> {
    name: &'a str,
    document: &'a str,
    reader: &'a dyn Fn(&str) -> std::io::Result<String>,
    read: RefCell<Vec<(String, String)>>,
}

impl fmt::Debug for SectionInput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SectionInput")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<'a> SectionInput<'a> {
    /// The section `name` of the pipeline file `document`; `reader` reads a file the section
    /// names (the pipeline loader's IO, so drivers stay pure).
    pub fn new(
        name: &'a str,
        document: &'a str,
        reader: &'a dyn Fn(&str) -> std::io::Result<String>,
    ) -> Self {
        SectionInput {
            name,
            document,
            reader,
            read: RefCell::new(Vec::new()),
        }
    }

    pub fn name(&self) -> &str {
        self.name
    }

    /// The section as `T` (a serde config, usually with `deny_unknown_fields`). The error
    /// quotes the offending line of the pipeline file.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, SectionError> {
        use toml::de::{DeTable, ValueDeserializer};
        let doc =
            DeTable::parse(self.document).map_err(|e| SectionError::Invalid(e.to_string()))?;
        let value = doc
            .into_inner()
            .into_iter()
            .find(|(k, _)| k.get_ref().as_ref() == self.name)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("no [{}] section", self.name))?;
        T::deserialize(ValueDeserializer::from(value)).map_err(|mut e| {
            e.set_input(Some(self.document));
            SectionError::Invalid(e.to_string().trim_end().to_owned())
        })
    }

    /// Reads a file the section names (a path relative to the current directory); the file and
    /// its contents become part of the export fingerprint.
    pub fn read_file(&self, path: &str) -> Result<String, SectionError> {
        let text = (self.reader)(path).map_err(|source| SectionError::Read {
            within: String::new(),
            path: path.to_owned(),
            source,
        })?;
        self.read.borrow_mut().push((path.to_owned(), text.clone()));
        Ok(text)
    }

    /// The files read so far, in order, with their contents.
    pub fn files_read(&self) -> Vec<(String, String)> {
        self.read.borrow().clone()
    }
}

/// A pipeline list (`what`, e.g. `[huarong] metrics`) that names an item twice is a mistake
/// (a typo for another item, most often), not a request to build it twice: an error naming it.
pub fn no_repeats<T: PartialEq + fmt::Debug>(what: &str, items: &[T]) -> Result<(), SectionError> {
    for (i, x) in items.iter().enumerate() {
        if items[..i].contains(x) {
            return Err(SectionError::Invalid(format!(
                "{what}: {x:?} is listed twice"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The farthest states by definition: the largest finite distance, then every state at it.
    fn by_definition(values: &[u16]) -> Vec<u32> {
        let Some(max) = values.iter().copied().filter(|&d| d != UNREACHABLE).max() else {
            return Vec::new();
        };
        (0..values.len() as u32)
            .filter(|&i| values[i as usize] == max)
            .collect()
    }

    #[test]
    fn farthest_states_across_chunks() {
        // Ties in different chunks of the one pass, in index order; unreachable states never
        // count; a space of goals alone has them all at distance 0.
        let mut v = vec![UNREACHABLE; 200_000];
        v[5] = 7;
        v[70_000] = 9;
        v[199_999] = 9;
        v[140_000] = 8;
        assert_eq!(farthest(&v), vec![70_000, 199_999]);
        assert_eq!(farthest(&[UNREACHABLE; 10]), Vec::<u32>::new());
        assert_eq!(farthest(&[0, UNREACHABLE, 0]), vec![0, 2]);
        assert_eq!(farthest(&[]), Vec::<u32>::new());
    }

    proptest! {
        #[test]
        fn farthest_is_the_largest_distance_and_where_it_occurs(
            spots in proptest::collection::vec((0usize..300_000, 0u16..6), 0..40),
            len in 0usize..300_000,
        ) {
            let mut v = vec![UNREACHABLE; len];
            for (i, d) in spots {
                if i < len {
                    v[i] = d;
                }
            }
            prop_assert_eq!(farthest(&v), by_definition(&v));
        }
    }
}
