//! Solving, shared by `huarong solve` and `huarong serve`: the request read by its family
//! ([`instance`]), the tables of its space ([`DistanceTables`], through the one opener
//! [`OpenSpace::find`]), and what an answer is ([`Solution`], [`Source`]). The one solve path is
//! [`crate::play::Atlas::solve_instance`]: tables under the roots when they hold the position,
//! else a search — the family's own (the CLI) or the position's component explored (`serve`).

use std::path::{Path, PathBuf};

use components::Components;
use distances::Distances;
use enumerate::StateTable;
use huarong_core::driver::{Families, Instance, SolveError, SolveRequest, SolvedPath};
use huarong_core::{ErrorKind, Puzzle, UNREACHABLE, metric_index};
use huarong_store::StageError;

use crate::folder::Folder;
use crate::space::OpenSpace;

/// Where an answer came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The distance tables in this folder.
    Tables(PathBuf),
    /// The position's component, explored now: this many states.
    Explored(u64),
    /// The family's own search from the position.
    Searched,
    /// The family's heuristic search over these pattern databases (none: its own heuristic
    /// alone), and the nodes it expanded and generated.
    Patterns {
        databases: Vec<String>,
        nodes: huarong_core::driver::Nodes,
    },
}

/// The optimal path from a position (start first), `None` if no goal is reachable, in
/// `metric`, and where it came from.
#[derive(Debug, Clone)]
pub struct Solution {
    pub path: Option<SolvedPath>,
    pub metric: String,
    pub source: Source,
}

/// Why `solve` failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No family reads the request, or the position is invalid (the message says why).
    #[error("{0}")]
    Request(String),
    #[error("reading the distance tables: {0}")]
    Tables(#[from] StageError),
    #[error(transparent)]
    Search(#[from] SolveError),
    /// Too much work in flight for the memory budget: nothing was started (try again later).
    #[error("{0}")]
    Busy(String),
    /// Whoever asked went away (or its deadline passed) before the work was done.
    #[error("cancelled: nobody waits for the answer any more")]
    Cancelled,
}

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Request(_) => ErrorKind::Invalid,
            // Tables the roots said they hold, failing to open: the folder is damaged.
            Error::Tables(e) => match e.kind() {
                ErrorKind::System => ErrorKind::System,
                _ => ErrorKind::Corrupt,
            },
            Error::Search(e) => e.kind(),
            Error::Busy(_) => ErrorKind::Busy,
            Error::Cancelled => ErrorKind::Cancelled,
        }
    }
}

/// The position a request names, read by the one family whose notation it is in
/// ([`Families::instance`]).
pub fn instance(
    families: Families,
    request: &SolveRequest<'_>,
) -> Result<Box<dyn Instance>, Error> {
    families
        .instance(request)
        .map_err(|e| Error::Request(e.to_string()))
}

/// A space's verified distance and component tables in one metric, from `<root>/<space id>/`
/// (opened by [`OpenSpace::find`], the one opener).
#[derive(Debug)]
pub struct DistanceTables {
    pub(crate) dir: PathBuf,
    pub(crate) states: StateTable,
    pub(crate) distances: Distances,
    pub(crate) components: Components,
}

impl DistanceTables {
    /// Opens the tables of `puzzle`'s space for `metric` under `root`: `Ok(None)` when they are
    /// absent or stale (never used), an error when they are there but corrupt.
    pub fn open(root: &Folder, puzzle: &dyn Puzzle, metric: &str) -> Result<Option<Self>, Error> {
        let Some(m) = metric_index(puzzle, metric) else {
            return Err(SolveError::Metric(metric.to_owned()).into());
        };
        let Some(open) = OpenSpace::find(root, puzzle, m)? else {
            return Ok(None);
        };
        let metric = open.metrics.into_iter().next().expect("one metric opened");
        Ok(Some(DistanceTables {
            dir: open.dir,
            states: open.states,
            distances: metric.distances,
            components: metric.components,
        }))
    }

    /// The distance of a code of the space, `None` if unreachable or not a state.
    pub fn distance(&self, puzzle: &dyn Puzzle, code: u64) -> Option<u16> {
        let i = self.states.lookup(puzzle, code)?;
        let d = self.distances.values()[i as usize];
        (d != UNREACHABLE).then_some(d)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Where `huarong solve` looks for tables by default: every pipeline output folder under
/// `outputs/` (in name order).
pub fn default_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::fs::read_dir("outputs")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    roots.sort();
    roots
}
