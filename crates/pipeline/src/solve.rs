//! `huarong solve`: an optimal solution for any layout, from the pipeline's distance tables when
//! they exist (greedy descent along decreasing distance), otherwise by a cold search.

use std::path::{Path, PathBuf};

use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::{Puzzle, StageError, UNREACHABLE};
use klotski::solve::solve as cold_solve;
use klotski::{Board, Metric, Unlabeled};

use crate::run::files;

/// How a solution was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Method {
    /// Descent along the distance table in this folder.
    Tables(PathBuf),
    /// Breadth-first search from the layout.
    Cold,
}

/// A shortest path (start first) and how it was found; `path` is `None` when no goal is
/// reachable.
#[derive(Debug, Clone)]
pub struct Solution {
    pub path: Option<Vec<Board>>,
    pub method: Method,
}

/// The distance table of the unlabeled space of `board`'s piece set in `metric`, if `root`
/// holds a verified one.
#[derive(Debug)]
pub struct DistanceTables {
    dir: PathBuf,
    states: StateTable,
    distances: Distances,
}

impl DistanceTables {
    /// Opens `root/<set>-unlabeled/` for `metric`: `Ok(None)` when the tables are absent, an
    /// error when they are there but corrupt or stale.
    pub fn open(root: &Path, board: &Board, metric: Metric) -> Result<Option<Self>, StageError> {
        let space = Unlabeled::new(board.piece_set());
        let dir = root.join(space.space_id());
        let name = metric.name();
        let paths = [
            dir.join(files::STATES),
            dir.join(files::graph(name)),
            dir.join(files::distances(name)),
        ];
        if !paths.iter().all(|p| p.exists()) {
            return Ok(None);
        }
        let m = metric as usize;
        let states = StateTable::open(&paths[0], &space)?;
        let csr = Csr::open(&paths[1], &space, m, &states)?;
        let distances = Distances::open(&paths[2], &space, &states, &csr)?;
        Ok(Some(DistanceTables {
            dir,
            states,
            distances,
        }))
    }

    fn distance(&self, board: &Board) -> u16 {
        match self.states.lookup(board.code()) {
            Some(i) => self.distances.values()[i as usize],
            None => UNREACHABLE,
        }
    }

    /// Greedy descent: from each position, the first move (in move order) to a position one
    /// closer to the goal.
    pub fn solve(&self, start: &Board, metric: Metric) -> Option<Vec<Board>> {
        let mut d = self.distance(start);
        if d == UNREACHABLE {
            return None;
        }
        let mut path = vec![*start];
        while d > 0 {
            let at = path.last().expect("path starts non-empty");
            let next = at
                .successor_where(metric, |b| self.distance(b) == d - 1)
                .expect("a state at distance d has a neighbour at d - 1");
            path.push(next);
            d -= 1;
        }
        Some(path)
    }
}

/// Where `huarong solve` looks for tables by default: the main job's outputs, then the Klotski
/// universe's (every piece set).
pub const DEFAULT_ROOTS: [&str; 2] = ["outputs/huarong", "outputs/klotski-universe"];

/// Solves `start` in `metric`, from the tables under the first of `roots` that holds its piece
/// set's, else by a cold search.
pub fn solve<P: AsRef<Path>>(
    start: &Board,
    metric: Metric,
    roots: &[P],
) -> Result<Solution, StageError> {
    for root in roots {
        if let Some(tables) = DistanceTables::open(root.as_ref(), start, metric)? {
            return Ok(Solution {
                path: tables.solve(start, metric),
                method: Method::Tables(tables.dir.clone()),
            });
        }
    }
    Ok(Solution {
        path: cold_solve(start, metric),
        method: Method::Cold,
    })
}
