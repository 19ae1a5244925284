//! Answers for interactive play (`huarong serve`): a position's distance in a metric, every move
//! with the distance it leads to, the optimal path, and the position's component (size and
//! farthest member) — from a pipeline's tables when they hold the position's space, otherwise
//! from the position's component explored on the spot (at most `limit` states).
//!
//! Both sources are cached: opened tables per (space, metric) for the life of the [`Atlas`],
//! explored components in a small most-recently-used list. Nothing here knows HTTP.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use huarong_core::driver::{Instance, SolveRequest};
use huarong_core::picture::Picture;
use huarong_core::{Fingerprint, Puzzle, UNREACHABLE, metric_index};

use crate::solve::{DistanceTables, Error, instance};
pub use crate::solve::{Solution, Source};
use crate::tables::representatives;

/// Explored components kept for reuse.
const EXPLORED_CACHE: usize = 16;

/// A position's component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub size: u64,
    /// A member farthest from the goals (the smallest member when none is solvable), in the
    /// table space's notation, and its distance.
    pub farthest: String,
    pub farthest_distance: Option<u16>,
}

/// One move from the asked position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub position: String,
    pub picture: Picture,
    pub distance: Option<u16>,
    /// The piece that moves, as an index into the asked position's picture.
    pub piece: Option<u16>,
    /// The cells it covers afterwards.
    pub cells: Vec<usize>,
}

/// Everything the board shows about one position in one metric.
#[derive(Debug, Clone)]
pub struct Position {
    pub position: String,
    pub picture: Picture,
    pub metric: String,
    /// The metrics of the position's space.
    pub metrics: Vec<&'static str>,
    pub distance: Option<u16>,
    pub goal: bool,
    pub moves: Vec<Move>,
    pub component: Component,
    pub source: Source,
}

/// Distance tables, components and explored components, shared by every request.
#[derive(Debug)]
pub struct Atlas {
    roots: Vec<PathBuf>,
    limit: u64,
    cold: Cold,
    /// Per (space key, metric): the tables found under the roots (`None`: none), once looked up.
    tables: Mutex<HashMap<(u64, usize), Slot>>,
    explored: Mutex<Vec<Arc<Explored>>>,
}

impl Atlas {
    /// Looks for tables under `roots` (`<root>/<space id>/`, first match wins) and explores at
    /// most `limit` states of a component without them.
    pub fn new(roots: Vec<PathBuf>, limit: u64) -> Self {
        Atlas {
            roots,
            limit,
            cold: Cold::Explore,
            tables: Mutex::default(),
            explored: Mutex::default(),
        }
    }

    /// An atlas that answers [`Atlas::solve_instance`] without tables by the family's own
    /// search (which stops at the first goal) instead of exploring the whole component: for a
    /// one-off solve, as `huarong solve` does.
    pub fn searching(roots: Vec<PathBuf>, limit: u64) -> Self {
        Atlas {
            cold: Cold::Search,
            ..Atlas::new(roots, limit)
        }
    }

    /// The position `request` names, in `metric` (`None`: the space's `piece` metric if it has
    /// one, else its first).
    pub fn position(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
    ) -> Result<Position, Error> {
        Ok(self
            .position_with(request, metric, Work::Allowed)?
            .expect("work is allowed"))
    }

    /// [`Atlas::position`] when it is quick — the tables already open or the component already
    /// explored — else `Ok(None)` (e.g. to answer on a server's event loop only what cannot
    /// stall it).
    pub fn position_if_ready(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
    ) -> Result<Option<Position>, Error> {
        self.position_with(request, metric, Work::Refused)
    }

    fn position_with(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
        work: Work,
    ) -> Result<Option<Position>, Error> {
        let instance = instance(request)?;
        let (puzzle, code) = table_space(instance.as_ref())?;
        let metric = pick_metric(puzzle, metric)?;
        let Some(known) = self.knowledge(puzzle, code, &metric, work)? else {
            return Ok(None);
        };
        let picture = instance.picture();
        let moves = instance
            .moves(&metric)?
            .into_iter()
            .map(|step| Move {
                distance: step.code.and_then(|c| known.distance(c)),
                piece: picture.moved_from(&step.picture),
                cells: step
                    .picture
                    .moved_from(&picture)
                    .map(|k| step.picture.cells_of(k))
                    .unwrap_or_default(),
                position: step.position,
                picture: step.picture,
            })
            .collect();
        Ok(Some(Position {
            position: instance.start(),
            picture,
            metrics: puzzle.metrics().to_vec(),
            distance: known.distance(code),
            goal: puzzle.is_goal(code),
            moves,
            component: known.component(puzzle, code),
            source: known.source(),
            metric,
        }))
    }

    /// The optimal path from the position `request` names, in `metric` (`None`: as in
    /// [`Atlas::position`]).
    pub fn solve(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
    ) -> Result<Solution, Error> {
        self.solve_instance(instance(request)?.as_ref(), metric)
    }

    /// The one solve path: the tables under the roots when they hold the position; else, for a
    /// [searching](Atlas::searching) atlas or a position without a table space (e.g. a layout
    /// with another goal), the family's search; else the position's component explored.
    pub fn solve_instance(
        &self,
        instance: &dyn Instance,
        metric: Option<&str>,
    ) -> Result<Solution, Error> {
        let searched = |metric: String| -> Result<Solution, Error> {
            Ok(Solution {
                path: instance.solve(&metric, None, self.limit)?,
                metric,
                source: Source::Searched,
            })
        };
        let Some((puzzle, code)) = instance.table_space() else {
            return searched(metric.unwrap_or(DEFAULT_METRIC).to_owned());
        };
        let metric = pick_metric(puzzle, metric)?;
        let known = match self.cold {
            Cold::Search => {
                let key = space_key(puzzle);
                match self.tables(puzzle, key, &metric, Work::Allowed)?.flatten() {
                    Some(t) if t.tables.states.lookup(code).is_some() => Known::Tables(t),
                    // No tables, or tables of the space that do not hold this position.
                    _ => return searched(metric),
                }
            }
            Cold::Explore => self
                .knowledge(puzzle, code, &metric, Work::Allowed)?
                .expect("work is allowed"),
        };
        let distance = |c: u64| known.distance(c);
        Ok(Solution {
            path: instance.solve(&metric, Some(&distance), self.limit)?,
            metric,
            source: known.source(),
        })
    }

    fn knowledge(
        &self,
        puzzle: &dyn Puzzle,
        code: u64,
        metric: &str,
        work: Work,
    ) -> Result<Option<Known>, Error> {
        let key = space_key(puzzle);
        let Some(tables) = self.tables(puzzle, key, metric, work)? else {
            return Ok(None);
        };
        if let Some(t) = tables {
            if t.tables.states.lookup(code).is_some() {
                return Ok(Some(Known::Tables(t)));
            }
            return Err(Error::Request(format!(
                "not a position of the space {} (its tables in {} do not hold it)",
                puzzle.space_id(),
                t.tables.dir.display()
            )));
        }
        let m = metric_index(puzzle, metric).expect("pick_metric checked the metric");
        {
            let mut cache = self
                .explored
                .lock()
                .expect("no request panics holding the lock");
            if let Some(k) = cache.iter().position(|e| {
                e.key == key
                        && e.metric == m
                        && e.index(code).is_some()
                        // A directed space's explored set is what its start reaches.
                        && (!puzzle.directed() || e.start == code)
            }) {
                let hit = cache.remove(k);
                cache.push(hit.clone());
                return Ok(Some(Known::Explored(hit)));
            }
        }
        if work == Work::Refused {
            return Ok(None);
        }
        let explored = Arc::new(Explored::new(puzzle, key, m, code, self.limit)?);
        let mut cache = self
            .explored
            .lock()
            .expect("no request panics holding the lock");
        if cache.len() == EXPLORED_CACHE {
            cache.remove(0);
        }
        cache.push(explored.clone());
        Ok(Some(Known::Explored(explored)))
    }

    /// The verified tables of `puzzle`'s space in `metric` under the first root that has
    /// current ones, opened once; `Ok(None)` when they are not looked up yet and work is refused.
    fn tables(
        &self,
        puzzle: &dyn Puzzle,
        key: u64,
        metric: &str,
        work: Work,
    ) -> Result<Option<Found>, Error> {
        let cell = self
            .tables
            .lock()
            .expect("no request panics holding the lock")
            .entry((key, metric_index(puzzle, metric).expect("a checked metric")))
            .or_default()
            .clone();
        if let Some(found) = cell.get() {
            return Ok(Some(found.clone()));
        }
        if work == Work::Refused {
            return Ok(None);
        }
        let mut found = None;
        for root in &self.roots {
            if let Some(tables) = DistanceTables::open(root, puzzle, metric)? {
                found = Some(Arc::new(Tables {
                    tables,
                    farthest: OnceLock::new(),
                }));
                break;
            }
        }
        Ok(Some(cell.get_or_init(|| found).clone()))
    }
}

/// The tables of a space in a metric, if any root has current ones.
type Found = Option<Arc<Tables>>;

/// Where a (space, metric)'s [`Found`] is filled in once.
type Slot = Arc<OnceLock<Found>>;

/// What answers a position whose space has no tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cold {
    /// Explore its component (every member's distance: what a player's board shows).
    Explore,
    /// The family's search from it (a path, stopping at the first goal).
    Search,
}

/// The metric when a request names none, if the space has it (else its first metric).
const DEFAULT_METRIC: &str = "piece";

/// Whether a request may open tables or explore a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    Allowed,
    Refused,
}

fn table_space(instance: &dyn Instance) -> Result<(&dyn Puzzle, u64), Error> {
    instance.table_space().ok_or_else(|| {
        Error::Request(
            "this position has no state space to explore (its goal is not its family's)".into(),
        )
    })
}

fn pick_metric(puzzle: &dyn Puzzle, metric: Option<&str>) -> Result<String, Error> {
    let metrics = puzzle.metrics();
    match metric {
        Some(m) if metrics.contains(&m) => Ok(m.to_owned()),
        Some(m) => Err(Error::Request(format!(
            "unknown metric {m:?}: {} has {}",
            puzzle.space_id(),
            metrics.join(", ")
        ))),
        None => Ok(metrics
            .iter()
            .find(|&&m| m == DEFAULT_METRIC)
            .unwrap_or(&metrics[0])
            .to_string()),
    }
}

/// What identifies a space across requests: its puzzle's name, space id and parameters.
fn space_key(puzzle: &dyn Puzzle) -> u64 {
    let mut fp = Fingerprint::new("play", 1);
    huarong_core::add_space(&mut fp, puzzle);
    fp.finish()
}

enum Known {
    Tables(Arc<Tables>),
    Explored(Arc<Explored>),
}

impl Known {
    fn distance(&self, code: u64) -> Option<u16> {
        let d = match self {
            Known::Tables(t) => {
                let t = &t.tables;
                t.distances.values()[t.states.lookup(code)? as usize]
            }
            Known::Explored(e) => e.distances[e.index(code)?],
        };
        (d != UNREACHABLE).then_some(d)
    }

    fn component(&self, puzzle: &dyn Puzzle, code: u64) -> Component {
        let (size, far) = match self {
            Known::Tables(t) => {
                let far = t.farthest();
                let t = &t.tables;
                let i = t.states.lookup(code).expect("checked by knowledge") as usize;
                let c = t.components.ids()[i] as usize;
                (t.components.sizes()[c], t.states.codes()[far[c] as usize])
            }
            Known::Explored(e) => (e.codes.len() as u64, e.codes[e.farthest]),
        };
        Component {
            size,
            farthest: puzzle.render(far),
            farthest_distance: self.distance(far),
        }
    }

    fn source(&self) -> Source {
        match self {
            Known::Tables(t) => Source::Tables(t.tables.dir.clone()),
            Known::Explored(e) => Source::Explored(e.codes.len() as u64),
        }
    }
}

/// A space's tables in one metric, and per component the index of its representative (its
/// farthest member; computed on first use).
#[derive(Debug)]
struct Tables {
    tables: DistanceTables,
    farthest: OnceLock<Vec<u32>>,
}

impl Tables {
    fn farthest(&self) -> &[u32] {
        self.farthest.get_or_init(|| {
            let t = &self.tables;
            representatives(
                t.components.ids(),
                t.distances.values(),
                t.components.count(),
            )
        })
    }
}

/// One component of a space in one metric, explored from a position: its members (sorted)
/// and their distances to the component's goals.
#[derive(Debug)]
struct Explored {
    key: u64,
    metric: usize,
    start: u64,
    codes: Vec<u64>,
    distances: Vec<u16>,
    farthest: usize,
}

impl Explored {
    fn new(
        puzzle: &dyn Puzzle,
        key: u64,
        metric: usize,
        start: u64,
        limit: u64,
    ) -> Result<Self, Error> {
        // Every state reachable from the start (for a directed puzzle, the positions a player
        // can reach: distances are measured inside that set), found by the enumerate stage's
        // search; sorted by code, so lookups are binary searches and the answer is the same
        // whichever member was asked first.
        let codes =
            enumerate::explore_from(puzzle, &[start], &[metric], limit, |_| {}).map_err(|_| {
                Error::Request(format!(
                    "the position's component has more than {limit} states: build its \
                     tables with a pipeline"
                ))
            })?;
        // Its move graph in memory, and the distance stage's breadth-first search to its goals.
        let n = codes.len();
        let (offsets, targets) = rows_of(puzzle, &codes, metric);
        let view = graph::CsrView {
            offsets: graph::Offsets::Wide(&offsets),
            targets: &targets,
            directed: puzzle.directed(),
        };
        let goals: Vec<u32> = (0..n as u32)
            .filter(|&u| puzzle.is_goal(codes[u as usize]))
            .collect();
        let distances = if puzzle.directed() {
            distances::bfs_reverse(&view, &goals, |_| {})?
        } else {
            distances::bfs(&view, &goals, |_| {})?
        };
        let farthest = representatives(&vec![0u32; n], &distances, 1)[0] as usize;
        Ok(Explored {
            key,
            metric,
            start,
            codes,
            distances,
            farthest,
        })
    }

    fn index(&self, code: u64) -> Option<usize> {
        self.codes.binary_search(&code).ok()
    }
}

/// The rows of the move graph over `codes` (sorted, closed under moves) in `metric`: CSR
/// offsets and targets, each row sorted and distinct as the graph stage stores them.
fn rows_of(puzzle: &dyn Puzzle, codes: &[u64], metric: usize) -> (Vec<u64>, Vec<u32>) {
    let mut offsets = Vec::with_capacity(codes.len() + 1);
    let mut targets = Vec::new();
    let (mut next, mut row) = (Vec::new(), Vec::new());
    offsets.push(0);
    for &c in codes {
        next.clear();
        puzzle.successors(c, metric, &mut next);
        row.clear();
        row.extend(next.iter().map(|v| {
            codes
                .binary_search(v)
                .expect("the explored set is closed under moves") as u32
        }));
        row.sort_unstable();
        row.dedup();
        targets.extend_from_slice(&row);
        offsets.push(targets.len() as u64);
    }
    (offsets, targets)
}
