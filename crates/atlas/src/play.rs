//! Answers for interactive play (`huarong serve`): a position's distance in a metric, every move
//! with the distance it leads to, the optimal path, and the position's component (size and
//! farthest member) — from a pipeline's tables when they hold the position's space, otherwise
//! from the position's component explored on the spot (at most `limit` states).
//!
//! Both sources are cached: opened tables per (space, metric) for the life of the [`Atlas`],
//! explored components in a small most-recently-used list. Nothing here knows HTTP.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use huarong_core::driver::{Families, Instance, SolveRequest};
use huarong_core::picture::Picture;
use huarong_core::{Fingerprint, Puzzle, UNREACHABLE, metric_index};

use crate::farthest::representatives;
use crate::folder::Folder;
use crate::solve::{DistanceTables, Error, instance};
pub use crate::solve::{Solution, Source};

/// Explored components kept for reuse (at most; fewer when a memory budget bounds their states).
const EXPLORED_CACHE: usize = 16;

/// About how many bytes an exploration holds per state while it runs (codes, the search's
/// levels, the rows of its graph, distances) and once cached (codes and distances).
const EXPLORING_BYTES: u64 = 40;
const CACHED_BYTES: u64 = 10;

/// Set when whoever asked is gone (a client that hung up, a deadline that passed): an
/// exploration nobody else waits for stops at the end of its current level.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Self {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

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

impl Move {
    /// The move from the position drawn as `from` to `step`, which is `distance` from the goal.
    fn of(from: &Picture, step: huarong_core::driver::Step, distance: Option<u16>) -> Move {
        Move {
            distance,
            piece: from.moved_from(&step.picture),
            cells: step
                .picture
                .moved_from(from)
                .map(|k| step.picture.cells_of(k))
                .unwrap_or_default(),
            position: step.position,
            picture: step.picture,
        }
    }
}

/// Everything the board shows about one position in one metric.
#[derive(Debug, Clone)]
pub struct Position {
    pub position: String,
    /// Other names of the position ([`Instance::codes`]).
    pub codes: Vec<(&'static str, String)>,
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
    /// The families whose positions it reads.
    families: Families,
    roots: Vec<Folder>,
    limit: u64,
    cold: Cold,
    /// Per (space key, metric): the tables found under the roots (`None`: none), once looked up.
    tables: Mutex<HashMap<(u64, usize), Slot>>,
    explored: Mutex<Vec<Arc<Explored>>>,
    /// Explorations in flight, per (space key, metric, start): one computation for every
    /// request asking the same.
    running: Mutex<HashMap<(u64, usize, u64), Arc<Flight>>>,
    /// Most explorations in flight at once, and most states kept in the cache.
    max_running: usize,
    cache_states: u64,
    /// Explorations started since the atlas was made.
    started: std::sync::atomic::AtomicU64,
    /// Pattern databases opened (and verified) once, by folder and fingerprint.
    databases: Mutex<HashMap<(PathBuf, u64), Arc<patterns::Database>>>,
}

impl Atlas {
    /// Reads positions of `families`, looks for tables under `roots` (`<root>/<space id>/`,
    /// first match wins) and explores at most `limit` states of a component without them.
    pub fn new(families: Families, roots: Vec<PathBuf>, limit: u64) -> Self {
        Atlas {
            families,
            roots: roots.into_iter().map(Folder::new).collect(),
            limit,
            cold: Cold::Explore,
            tables: Mutex::default(),
            explored: Mutex::default(),
            running: Mutex::default(),
            max_running: usize::MAX,
            cache_states: u64::MAX,
            started: Default::default(),
            databases: Mutex::default(),
        }
    }

    /// Explorations admitted against a memory budget of `bytes`: half for those in flight (each
    /// reserving `limit` states' worth; at least one runs), half for the cache. A request
    /// beyond it gets [`Error::Busy`] at once, before any work.
    pub fn with_budget(self, bytes: u64) -> Self {
        let per = self.limit.saturating_mul(EXPLORING_BYTES).max(1);
        Atlas {
            max_running: ((bytes / 2) / per).max(1) as usize,
            cache_states: (bytes / 2) / CACHED_BYTES,
            ..self
        }
    }

    /// How many explorations may run at once.
    pub fn max_running(&self) -> usize {
        self.max_running
    }

    /// Explorations running now, and started in all.
    pub fn explorations(&self) -> (usize, u64) {
        let running = self
            .running
            .lock()
            .expect("no request panics holding the lock")
            .len();
        (running, self.started.load(Ordering::Relaxed))
    }

    /// An atlas that answers [`Atlas::solve_instance`] without tables by the family's own
    /// search (which stops at the first goal) instead of exploring the whole component: for a
    /// one-off solve, as `huarong solve` does.
    pub fn searching(families: Families, roots: Vec<PathBuf>, limit: u64) -> Self {
        Atlas {
            cold: Cold::Search,
            ..Atlas::new(families, roots, limit)
        }
    }

    /// The position `request` names, in `metric` (`None`: the space's `piece` metric if it has
    /// one, else its first).
    pub fn position(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
    ) -> Result<Position, Error> {
        self.position_for(request, metric, &Cancel::new())
    }

    /// [`Atlas::position`] for a request that may go away: `cancel` stops its exploration.
    pub fn position_for(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
        cancel: &Cancel,
    ) -> Result<Position, Error> {
        Ok(self
            .position_with(request, metric, Work::Allowed(cancel))?
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
        work: Work<'_>,
    ) -> Result<Option<Position>, Error> {
        let instance = instance(self.families, request)?;
        let Some((puzzle, code)) = instance.table_space() else {
            // No space to hold tables (sliding tiles too many for a code): every answer is a
            // search.
            let Work::Allowed(cancel) = work else {
                return Ok(None);
            };
            let metric = metric.or(instance.default_metric()).ok_or_else(no_metric)?;
            let solution = self.searched(instance.as_ref(), None, metric)?;
            return self
                .searched_position(request, instance.as_ref(), solution, cancel)
                .map(Some);
        };
        let metric = pick_metric(puzzle, metric.or(instance.default_metric()))?;
        if let Work::Allowed(cancel) = work
            && self
                .holding(puzzle, space_key(puzzle), code, &metric, cancel)?
                .is_none()
            && let Some(solution) = self.informed(instance.as_ref(), puzzle.size_hint(), &metric)?
        {
            return self
                .searched_position(request, instance.as_ref(), solution, cancel)
                .map(Some);
        }
        let Some(known) = self.knowledge(puzzle, code, &metric, work)? else {
            return Ok(None);
        };
        let picture = instance.picture();
        let moves = instance
            .moves(&metric)?
            .into_iter()
            .map(|step| {
                let distance = step.code.and_then(|c| known.distance(puzzle, c));
                Move::of(&picture, step, distance)
            })
            .collect();
        Ok(Some(Position {
            position: instance.start(),
            codes: instance.codes(),
            picture,
            metrics: puzzle.metrics().to_vec(),
            distance: known.distance(puzzle, code),
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
        self.solve_for(request, metric, &Cancel::new())
    }

    /// [`Atlas::solve`] for a request that may go away: `cancel` stops its exploration.
    pub fn solve_for(
        &self,
        request: &SolveRequest<'_>,
        metric: Option<&str>,
        cancel: &Cancel,
    ) -> Result<Solution, Error> {
        self.solve_with(instance(self.families, request)?.as_ref(), metric, cancel)
    }

    /// The one solve path: the tables under the roots when they hold the position; else, for a
    /// [searching](Atlas::searching) atlas or a position without a table space (e.g. a layout
    /// with another goal), the family's search; else the position's component explored.
    pub fn solve_instance(
        &self,
        instance: &dyn Instance,
        metric: Option<&str>,
    ) -> Result<Solution, Error> {
        self.solve_with(instance, metric, &Cancel::new())
    }

    fn solve_with(
        &self,
        instance: &dyn Instance,
        metric: Option<&str>,
        cancel: &Cancel,
    ) -> Result<Solution, Error> {
        let Some((puzzle, code)) = instance.table_space() else {
            // No space to hold tables (sliding tiles too many for a code): the family's
            // search, over pattern databases when the roots hold some.
            let metric = metric.or(instance.default_metric()).ok_or_else(no_metric)?;
            return self.searched(instance, None, metric);
        };
        let metric = pick_metric(puzzle, metric.or(instance.default_metric()))?;
        let key = space_key(puzzle);
        let held = self.holding(puzzle, key, code, &metric, cancel)?;
        if held.is_none()
            && let Some(solution) = self.informed(instance, puzzle.size_hint(), &metric)?
        {
            return Ok(solution);
        }
        let known = match self.cold {
            Cold::Search => match held {
                Some(t) => Known::Tables(t),
                // No tables, or tables of the space that do not hold this position.
                None => return self.own_search(instance, &metric),
            },
            Cold::Explore => self
                .knowledge(puzzle, code, &metric, Work::Allowed(cancel))?
                .expect("work is allowed"),
        };
        let distance = |c: u64| known.distance(puzzle, c);
        Ok(Solution {
            path: instance.solve(&metric, Some(&distance), self.limit)?,
            metric,
            source: known.source(),
        })
    }

    /// The tables under the roots of `puzzle`'s space in `metric`, if they hold `code`.
    fn holding(
        &self,
        puzzle: &dyn Puzzle,
        key: u64,
        code: u64,
        metric: &str,
        cancel: &Cancel,
    ) -> Result<Option<Arc<Tables>>, Error> {
        Ok(self
            .tables(puzzle, key, metric, Work::Allowed(cancel))?
            .flatten()
            .filter(|t| t.tables.states.lookup(puzzle, code).is_some()))
    }

    /// A position no tables hold, `solution` its search's answer (over pattern databases where
    /// [`Atlas::informed`] finds some): its distance and every move's, each searched the same
    /// way; the component is the whole space (its size where the puzzle knows it, its farthest
    /// member unknown).
    fn searched_position(
        &self,
        request: &SolveRequest<'_>,
        instance: &dyn Instance,
        solution: Solution,
        cancel: &Cancel,
    ) -> Result<Position, Error> {
        let metric = solution.metric.as_str();
        let space = instance.table_space();
        let size = space.and_then(|(p, _)| p.size_hint());
        let distance = |s: &Solution| s.path.as_ref().map(|p| (p.layouts.len() - 1) as u16);
        let picture = instance.picture();
        let mut moves = Vec::new();
        for step in instance.moves(metric)? {
            if cancel.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let next = SolveRequest {
                position: Some(&step.position),
                ..*request
            };
            let next = crate::solve::instance(self.families, &next)?;
            let solved = self.searched(next.as_ref(), size, metric)?;
            moves.push(Move::of(&picture, step, distance(&solved)));
        }
        let here = distance(&solution);
        Ok(Position {
            position: instance.start(),
            codes: instance.codes(),
            picture,
            metrics: match space {
                Some((puzzle, _)) => puzzle.metrics().to_vec(),
                None => instance.default_metric().into_iter().collect(),
            },
            distance: here,
            goal: match space {
                Some((puzzle, code)) => puzzle.is_goal(code),
                None => here == Some(0),
            },
            moves,
            component: Component {
                size: size.unwrap_or(0),
                farthest: String::new(),
                farthest_distance: None,
            },
            metric: metric.to_owned(),
            source: solution.source,
        })
    }

    /// [`Atlas::informed`], else the family's own search.
    fn searched(
        &self,
        instance: &dyn Instance,
        size: Option<u64>,
        metric: &str,
    ) -> Result<Solution, Error> {
        match self.informed(instance, size, metric)? {
            Some(solution) => Ok(solution),
            None => self.own_search(instance, metric),
        }
    }

    /// The family's own search from the position (at most `limit` states).
    fn own_search(&self, instance: &dyn Instance, metric: &str) -> Result<Solution, Error> {
        Ok(Solution {
            path: instance.solve(metric, None, self.limit)?,
            metric: metric.to_owned(),
            source: Source::Searched,
        })
    }

    /// The family's heuristic search, when the instance has one and either pattern databases of
    /// it are under the roots or its space (of `size` positions, if known) is too big to
    /// explore: `None` otherwise.
    fn informed(
        &self,
        instance: &dyn Instance,
        size: Option<u64>,
        metric: &str,
    ) -> Result<Option<Solution>, Error> {
        let Some(prefix) = instance.pattern_prefix() else {
            return Ok(None);
        };
        let found = self.databases(instance, &prefix)?;
        let too_big = size.is_some_and(|n| n > self.limit);
        if found.is_empty() && !too_big {
            return Ok(None);
        }
        let views: Vec<huarong_core::abstraction::Database<'_>> = found
            .iter()
            .map(|(id, db)| huarong_core::abstraction::Database {
                id,
                values: db.values(),
            })
            .collect();
        let informed = instance.solve_informed(metric, &views, self.limit)?;
        Ok(Some(Solution {
            path: informed.path,
            metric: metric.to_owned(),
            source: Source::Patterns {
                databases: found.into_iter().map(|(id, _)| id).collect(),
                nodes: informed.nodes.unwrap_or_default(),
            },
        }))
    }

    /// The current, verified pattern databases of `instance` under the roots (folders whose
    /// name starts with `prefix`; the first root holding an id wins), opened once.
    fn databases(
        &self,
        instance: &dyn Instance,
        prefix: &str,
    ) -> Result<Vec<(String, Arc<patterns::Database>)>, Error> {
        let mut found: Vec<(String, Arc<patterns::Database>)> = Vec::new();
        for root in &self.roots {
            let Ok(entries) = std::fs::read_dir(root.root()) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.starts_with(prefix))
                .collect();
            names.sort();
            for name in names {
                if found.iter().any(|(id, _)| *id == name) {
                    continue;
                }
                let Some(a) = instance.abstraction(&name) else {
                    continue;
                };
                let slot = (root.patterns(a.as_ref()), patterns::fingerprint(a.as_ref()));
                let cached = self
                    .databases
                    .lock()
                    .expect("no request panics holding the lock")
                    .get(&slot)
                    .cloned();
                let db = match cached {
                    Some(db) => db,
                    None => match crate::space::open_pattern(root, a.as_ref())? {
                        Some(mut db) => {
                            db.load_resident();
                            let db = Arc::new(db);
                            self.databases
                                .lock()
                                .expect("no request panics holding the lock")
                                .insert(slot, db.clone());
                            db
                        }
                        None => continue,
                    },
                };
                found.push((name, db));
            }
        }
        Ok(found)
    }

    fn knowledge(
        &self,
        puzzle: &dyn Puzzle,
        code: u64,
        metric: &str,
        work: Work<'_>,
    ) -> Result<Option<Known>, Error> {
        let key = space_key(puzzle);
        let Some(tables) = self.tables(puzzle, key, metric, work)? else {
            return Ok(None);
        };
        if let Some(t) = tables {
            if t.tables.states.lookup(puzzle, code).is_some() {
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
        let Work::Allowed(cancel) = work else {
            return Ok(None);
        };
        Ok(Some(Known::Explored(
            self.explore(puzzle, key, m, code, cancel)?,
        )))
    }

    /// The component of `code` explored, once for every request asking the same at the same
    /// time: the first starts it (if the budget admits it), the others wait for its answer; it
    /// stops when every request waiting for it is cancelled.
    fn explore(
        &self,
        puzzle: &dyn Puzzle,
        key: u64,
        metric: usize,
        code: u64,
        cancel: &Cancel,
    ) -> Result<Arc<Explored>, Error> {
        let id = (key, metric, code);
        let (flight, leads) = {
            let mut running = self
                .running
                .lock()
                .expect("no request panics holding the lock");
            match running.get(&id) {
                Some(f) => {
                    f.join(cancel);
                    (f.clone(), false)
                }
                None if running.len() >= self.max_running => {
                    return Err(Error::Busy(format!(
                        "{} explorations are running, the most this server's memory budget \
                         allows: try again shortly",
                        running.len()
                    )));
                }
                None => {
                    let f = Arc::new(Flight::new(cancel));
                    running.insert(id, f.clone());
                    self.started.fetch_add(1, Ordering::Relaxed);
                    (f, true)
                }
            }
        };
        if !leads {
            return flight.wait(cancel);
        }
        let result = Explored::new(puzzle, key, metric, code, self.limit, &|| flight.wanted());
        let result = result.map(Arc::new);
        flight.finish(match &result {
            Ok(e) => Shared::Done(e.clone()),
            Err(Error::Cancelled) => Shared::Cancelled,
            Err(e) => Shared::Failed(e.to_string()),
        });
        self.running
            .lock()
            .expect("no request panics holding the lock")
            .remove(&id);
        let explored = result?;
        self.remember(explored.clone());
        Ok(explored)
    }

    /// Puts an explored component in the cache, dropping the least recently used beyond its
    /// bounds (entries and states).
    fn remember(&self, explored: Arc<Explored>) {
        let mut cache = self
            .explored
            .lock()
            .expect("no request panics holding the lock");
        cache.push(explored);
        let states = |c: &[Arc<Explored>]| c.iter().map(|e| e.codes.len() as u64).sum::<u64>();
        while cache.len() > EXPLORED_CACHE
            || (cache.len() > 1 && states(&cache) > self.cache_states)
        {
            cache.remove(0);
        }
    }

    /// The verified tables of `puzzle`'s space in `metric` under the first root that has
    /// current ones, opened once; `Ok(None)` when they are not looked up yet and work is refused.
    fn tables(
        &self,
        puzzle: &dyn Puzzle,
        key: u64,
        metric: &str,
        work: Work<'_>,
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
        if let Work::Refused = work {
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

/// A request that names no metric for an instance whose family names no default.
fn no_metric() -> Error {
    Error::Request("name a metric: this puzzle has no default one".into())
}

/// Whether a request may open tables or explore a component (and what cancels it).
#[derive(Debug, Clone, Copy)]
enum Work<'a> {
    Allowed(&'a Cancel),
    Refused,
}

/// What an exploration in flight ended with, for every request waiting for it.
#[derive(Debug, Clone)]
enum Shared {
    Done(Arc<Explored>),
    Failed(String),
    Cancelled,
}

/// One exploration in flight and the requests waiting for it.
#[derive(Debug)]
struct Flight {
    done: Mutex<Option<Shared>>,
    ready: Condvar,
    askers: Mutex<Vec<Cancel>>,
}

impl Flight {
    fn new(first: &Cancel) -> Self {
        Flight {
            done: Mutex::new(None),
            ready: Condvar::new(),
            askers: Mutex::new(vec![first.clone()]),
        }
    }

    fn join(&self, cancel: &Cancel) {
        self.askers
            .lock()
            .expect("no request panics holding the lock")
            .push(cancel.clone());
    }

    /// Whether any request still waits for the answer.
    fn wanted(&self) -> bool {
        self.askers
            .lock()
            .expect("no request panics holding the lock")
            .iter()
            .any(|c| !c.is_cancelled())
    }

    fn finish(&self, outcome: Shared) {
        *self
            .done
            .lock()
            .expect("no request panics holding the lock") = Some(outcome);
        self.ready.notify_all();
    }

    /// The answer, once the leader has it; `Cancelled` as soon as `cancel` is.
    fn wait(&self, cancel: &Cancel) -> Result<Arc<Explored>, Error> {
        let mut done = self
            .done
            .lock()
            .expect("no request panics holding the lock");
        loop {
            match &*done {
                Some(Shared::Done(e)) => return Ok(e.clone()),
                Some(Shared::Failed(why)) => return Err(Error::Request(why.clone())),
                Some(Shared::Cancelled) => {
                    return Err(Error::Busy(
                        "the same exploration was just cancelled: try again".into(),
                    ));
                }
                None if cancel.is_cancelled() => return Err(Error::Cancelled),
                None => {}
            }
            done = self
                .ready
                .wait_timeout(done, Duration::from_millis(50))
                .expect("no request panics holding the lock")
                .0;
        }
    }
}

/// The metric a request names (`None`: the space's first).
fn pick_metric(puzzle: &dyn Puzzle, metric: Option<&str>) -> Result<String, Error> {
    let metrics = puzzle.metrics();
    match metric {
        Some(m) if metrics.contains(&m) => Ok(m.to_owned()),
        Some(m) => Err(Error::Request(format!(
            "unknown metric {m:?}: {} has {}",
            puzzle.space_id(),
            metrics.join(", ")
        ))),
        None => Ok(metrics[0].to_owned()),
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
    fn distance(&self, puzzle: &dyn Puzzle, code: u64) -> Option<u16> {
        let d = match self {
            Known::Tables(t) => {
                let t = &t.tables;
                t.distances.values()[t.states.lookup(puzzle, code)? as usize]
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
                let i = t.states.lookup(puzzle, code).expect("checked by knowledge") as usize;
                let c = t.components.ids()[i] as usize;
                (
                    t.components.sizes()[c],
                    t.states.code(puzzle, far[c] as usize),
                )
            }
            Known::Explored(e) => (e.codes.len() as u64, e.codes[e.farthest]),
        };
        Component {
            size,
            farthest: puzzle.render(far),
            farthest_distance: self.distance(puzzle, far),
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
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Self, Error> {
        // Every state reachable from the start (for a directed puzzle, the positions a player
        // can reach: distances are measured inside that set), found by the enumerate stage's
        // search; sorted by code, so lookups are binary searches and the answer is the same
        // whichever member was asked first.
        let codes = enumerate::explore_from(puzzle, &[start], &[metric], limit, |_| {}, keep_going)
            .map_err(|stopped| match stopped {
                enumerate::Stopped::Cancelled => Error::Cancelled,
                enumerate::Stopped::Limit(_) => Error::Request(format!(
                    "the position's component has more than {limit} states: build its \
                         tables with a pipeline"
                )),
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
