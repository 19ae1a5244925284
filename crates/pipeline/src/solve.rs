//! `huarong solve`: an optimal solution for any registered family's position — from a
//! pipeline's distance tables when they hold the position's space (the family's instance
//! descends them), otherwise by the family's own search.

use std::path::{Path, PathBuf};

use components::Components;
use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::driver::{Instance, SolveError, SolveRequest, SolvedPath};
use huarong_core::{Puzzle, StageError, UNREACHABLE, metric_index};

use crate::run::files;

/// How a solution was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// Descent along the distance table in this folder.
    Tables(PathBuf),
    /// The family's search from the position.
    Cold,
}

/// A shortest path (start first) and how it was found; `path` is `None` when no goal is
/// reachable.
#[derive(Debug, Clone)]
pub struct Solution {
    pub path: Option<SolvedPath>,
    pub method: Method,
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
}

/// The position a request names, read by the first registered family that accepts it.
pub fn instance(request: &SolveRequest<'_>) -> Result<Box<dyn Instance>, Error> {
    let solver = registry::drivers()
        .iter()
        .filter_map(|d| d.solver())
        .find(|s| s.accepts(request))
        .ok_or_else(|| Error::Request("no puzzle family reads this request".into()))?;
    solver.instance(request).map_err(Error::Request)
}

/// A space's verified distance and component tables in one metric, from `<root>/<space id>/`.
#[derive(Debug)]
pub struct DistanceTables {
    pub(crate) dir: PathBuf,
    pub(crate) states: StateTable,
    pub(crate) distances: Distances,
    pub(crate) components: Components,
}

impl DistanceTables {
    /// Opens the tables of `puzzle`'s space for `metric` under `root`: `Ok(None)` when they are
    /// absent or stale (built for another version of the puzzle, e.g. an edited puzzle file:
    /// never used), an error when they are there but corrupt.
    pub fn open(root: &Path, puzzle: &dyn Puzzle, metric: &str) -> Result<Option<Self>, Error> {
        match Self::open_current(root, puzzle, metric) {
            Err(Error::Tables(StageError::Artifact(huarong_core::ArtifactError::Stale {
                ..
            }))) => Ok(None),
            other => other,
        }
    }

    fn open_current(root: &Path, puzzle: &dyn Puzzle, metric: &str) -> Result<Option<Self>, Error> {
        let Some(m) = metric_index(puzzle, metric) else {
            return Err(SolveError::Metric(metric.to_owned()).into());
        };
        let dir = root.join(puzzle.space_id());
        let paths = [
            dir.join(files::STATES),
            dir.join(files::graph(metric)),
            dir.join(files::components(metric)),
            dir.join(files::distances(metric)),
        ];
        // Components and distances may be there as the parts a multi-process run wrote.
        let there = |p: &Path| {
            p.exists() || {
                let (dir, name) = huarong_core::shards::split(p);
                huarong_core::shards::parts_of(dir, name).is_some()
            }
        };
        if !paths.iter().all(|p| there(p)) {
            return Ok(None);
        }
        let states = StateTable::open(&paths[0], puzzle)?;
        let csr = Csr::open(&paths[1], puzzle, m, &states)?;
        let components = Components::open(&paths[2], &csr)?;
        let distances = Distances::open(&paths[3], puzzle, &states, &csr)?;
        Ok(Some(DistanceTables {
            dir,
            states,
            distances,
            components,
        }))
    }

    /// The distance of a code of the space, `None` if unreachable or not a state.
    pub fn distance(&self, code: u64) -> Option<u16> {
        let i = self.states.lookup(code)?;
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

/// Solves `instance` in `metric`, from the tables under the first of `roots` that holds its
/// space's, else by the family's search (exploring at most `limit` states).
pub fn solve<P: AsRef<Path>>(
    instance: &dyn Instance,
    metric: &str,
    roots: &[P],
    limit: u64,
) -> Result<Solution, Error> {
    if let Some((space, _)) = instance.table_space() {
        for root in roots {
            if let Some(tables) = DistanceTables::open(root.as_ref(), space, metric)? {
                let distance = |code: u64| tables.distance(code);
                return Ok(Solution {
                    path: instance.solve(metric, Some(&distance), limit)?,
                    method: Method::Tables(tables.dir.clone()),
                });
            }
        }
    }
    Ok(Solution {
        path: instance.solve(metric, None, limit)?,
        method: Method::Cold,
    })
}
