//! Runs the stages over one state space, generic over the puzzle, and gathers its statistics.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use atlas::folder::Folder;
use components::Components;
use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::table::Value;
use huarong_core::{Abstraction, Outcome, Puzzle, Reporter};
use huarong_store::StageError;
use rayon::prelude::*;

use crate::space::{self, Kind, files};

/// Options shared by every stage of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Rebuild every artifact even if a verified one is there.
    pub force: bool,
    /// Where progress bars, stage lines and notes go (nowhere by default).
    pub reporter: Reporter,
    /// Where components and distances run.
    pub engine: Engine,
    /// Most states a space may have (`None`: [`default_max_states`]): a space known to be larger
    /// is refused before any work, an explored one stops when it passes the bound.
    pub max_states: Option<u64>,
    /// How long a run waits for another run writing the same output folder (zero: it is
    /// refused at once; [`crate::folder`]).
    pub wait_for_folder: std::time::Duration,
}

/// About how many bytes of memory a run needs per state: the measured peaks are 13 B (the 4 × 3
/// eleven puzzle, moves regenerated) to 36 B (the labeled classic space in three metrics),
/// docs/RELIABILITY.md.
pub const BYTES_PER_STATE: u64 = 32;

/// The bound on states a run takes by default: what fits three quarters of the memory available
/// when the run starts ([`usable_memory`]) at [`BYTES_PER_STATE`], and never more than a dense
/// `u32` index holds.
pub fn default_max_states() -> u64 {
    (usable_memory() / BYTES_PER_STATE).min(u32::MAX as u64)
}

/// Three quarters of the memory available now (`MemAvailable`, else `MemTotal`, else 8 GiB
/// assumed): the rest is left to the system, the page cache the artifacts' maps live in, and the
/// estimate's error (peaks measured up to 36 bytes a state against the 32 assumed).
pub fn usable_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let field = |name: &str| -> Option<u64> {
        let line = meminfo.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    let memory = field("MemAvailable:")
        .or_else(|| field("MemTotal:"))
        .unwrap_or(8 << 30);
    memory / 4 * 3
}

impl RunOptions {
    /// The bound on states of this run.
    pub fn state_bound(&self) -> u64 {
        self.max_states.unwrap_or_else(default_max_states)
    }
}

/// Where the components and distances stages run.
#[derive(Debug, Clone, Default)]
pub enum Engine {
    /// Rayon, in this process (the default).
    #[default]
    Local,
    /// timely-dataflow workers, in this process or across several. Directed puzzles stay local.
    Timely(Arc<dataflow::Cluster>),
}

impl Engine {
    /// The timely cluster, if this run uses one for `puzzle`.
    fn cluster<P: Puzzle + ?Sized>(&self, puzzle: &P) -> Option<&dataflow::Cluster> {
        match self {
            Engine::Timely(c) if !puzzle.directed() => Some(c),
            _ => None,
        }
    }

    /// Whether this process only helps the dataflow of a multi-process run (writes nothing).
    pub fn is_follower(&self) -> bool {
        matches!(self, Engine::Timely(c) if !c.is_leader())
    }

    /// Several processes: every process must take part in every dataflow, so none reuses
    /// component or distance artifacts.
    fn multi_process(&self) -> bool {
        matches!(self, Engine::Timely(c) if c.hosts.len() > 1)
    }

    /// Whether several spaces may run at once (only on the local engine: the processes of a
    /// timely run must meet in the same dataflows in the same order).
    pub fn is_local(&self) -> bool {
        matches!(self, Engine::Local)
    }
}

/// One stage's outcome and wall time, for the log and the performance notes.
#[derive(Debug, Clone)]
pub struct StageLog {
    pub stage: String,
    pub outcome: Outcome,
    pub seconds: f64,
}

/// Statistics of one metric's graph over a space (the columns of `summary.parquet`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricStats {
    pub metric: String,
    /// Undirected edges (arcs for a directed puzzle).
    pub edges: u64,
    pub components: u64,
    /// Components holding at least one goal state.
    pub goal_components: u64,
    /// States with a finite distance.
    pub solvable_states: u64,
    pub max_distance: u32,
    pub max_distance_states: u64,
    /// States per distance (index = distance).
    pub distance_histogram: Vec<u64>,
    /// States per number of moves (index = degree).
    pub degree_histogram: Vec<u64>,
    /// The family's own question answered in this metric (OmniGravity: reachable static
    /// states; Solitaire: moves from the start to the goal; Square Destroyer: removals for the
    /// full grid; a sliding puzzle: its board's distance to the goal), filled in by the export.
    pub answer: Option<u64>,
}

/// Everything a run learned about one state space.
#[derive(Debug, Clone)]
pub struct SpaceReport {
    pub puzzle: String,
    pub space_id: String,
    /// The family's own columns for this space (e.g. Huarong Dao's `piece_set`, `labeled`).
    pub tags: Vec<(&'static str, Value)>,
    pub dir: PathBuf,
    pub states: u64,
    pub goal_states: u64,
    pub metrics: Vec<MetricStats>,
    pub log: Vec<StageLog>,
    /// Which states are goals and where distances start, as the run found them (the export
    /// reads them instead of scanning the space again).
    pub goals: Arc<Goals>,
    /// The space's artifact files with their checksums once the stages are done, from the
    /// artifacts the stages built or verified: the export's fingerprint and prune read them
    /// here (empty on a follower of a multi-process run).
    pub artifacts: Vec<(String, u64)>,
    /// The artifacts themselves, as the stages left them, for the export (none on a follower).
    pub open: Option<Arc<space::OpenSpace>>,
}

/// What a run built (or reused) of one pattern database.
#[derive(Debug, Clone)]
pub struct PatternReport {
    pub id: String,
    pub placements: u64,
    /// The largest value, the mean over the reached placements, bits per stored value.
    pub max: u8,
    pub mean: f64,
    pub bits: u32,
    /// Placements per value (index = value).
    pub counts: Vec<u64>,
    pub log: StageLog,
    /// The artifact (`<id>/pattern.bin`, relative to the output folder) and its checksum.
    pub artifact: (String, u64),
}

/// Builds (or reuses) the pattern database of `abstraction` under `output`.
pub fn run_pattern(
    abstraction: &dyn Abstraction,
    output: &Folder,
    opts: &RunOptions,
) -> Result<PatternReport, StageError> {
    let dir = output.patterns(abstraction);
    crate::folder::prepare(&dir, opts)?;
    let id = abstraction.id();
    let t = Instant::now();
    let (db, outcome) = patterns::run(
        abstraction,
        &dir.join(files::PATTERN),
        opts.force,
        &opts.reporter,
    )?;
    let seconds = t.elapsed().as_secs_f64();
    opts.reporter.stage(&id, "patterns", seconds, &outcome);
    Ok(PatternReport {
        artifact: (format!("{id}/{}", files::PATTERN), db.checksum()),
        id,
        placements: db.len(),
        max: db.max(),
        mean: db.mean(),
        bits: db.bits(),
        counts: db.counts().to_vec(),
        log: StageLog {
            stage: "patterns".into(),
            outcome,
            seconds,
        },
    })
}

pub use crate::census::{UniverseReport, run_universe};

/// A space's goal states and distance sources.
pub struct Goals {
    /// `mask[i]`: state `i` is a goal.
    pub mask: Vec<bool>,
    /// The distance stage's sources (dense indices, sorted).
    pub sources: Vec<u32>,
}

impl std::fmt::Debug for Goals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Goals")
            .field("states", &self.mask.len())
            .field("sources", &self.sources.len())
            .finish()
    }
}

struct Timer<'a> {
    reporter: &'a Reporter,
    space: &'a str,
    log: Vec<StageLog>,
}

impl Timer<'_> {
    fn record(&mut self, stage: &str, seconds: f64, outcome: Outcome) {
        self.reporter.stage(self.space, stage, seconds, &outcome);
        self.log.push(StageLog {
            stage: stage.to_owned(),
            outcome,
            seconds,
        });
    }

    fn time<T>(
        &mut self,
        stage: &str,
        f: impl FnOnce() -> Result<(T, Outcome), StageError>,
    ) -> Result<T, StageError> {
        let t = Instant::now();
        let (value, outcome) = f()?;
        self.record(stage, t.elapsed().as_secs_f64(), outcome);
        Ok(value)
    }
}

/// Runs enumerate, then graph, distances and components per metric, for one space in `dir`.
pub fn run_space<P: Puzzle + ?Sized + 'static>(
    puzzle: &P,
    dir: &Path,
    metrics: &[usize],
    opts: &RunOptions,
) -> Result<SpaceReport, StageError> {
    crate::folder::prepare(dir, opts)?;
    let space_id = puzzle.space_id();
    let mut timer = Timer {
        reporter: &opts.reporter,
        space: &space_id,
        log: Vec::new(),
    };
    let (force, reporter) = (opts.force, &opts.reporter);
    let bound = opts.state_bound();
    let states = timer.time("enumerate", || {
        enumerate::run_bounded(puzzle, &Kind::States.path(dir, ""), force, bound, reporter)
    })?;
    let goals = goal_mask(puzzle, &states);
    let goal_states = goals.iter().filter(|&&g| g).count() as u64;
    let src = distances::sources_given(puzzle, &states, &goals)?;

    let mut graphs = graphs_together(puzzle, &states, dir, metrics, opts, &mut timer)?;
    let mut stats = Vec::new();
    // Each metric's artifacts as built or verified, handed to the export.
    let mut opened: Vec<(usize, space::OpenMetric)> = Vec::new();
    for (k, &m) in metrics.iter().enumerate() {
        let name = puzzle.metrics()[m];
        let csr = match graphs[k].take() {
            Some(csr) => csr,
            None => timer.time(&format!("graph {name}"), || {
                graph::run(
                    puzzle,
                    &states,
                    m,
                    &Kind::Graph.path(dir, name),
                    force,
                    reporter,
                )
            })?,
        };
        // The rows as the later stages read them: the stored CSR, the cover, or regenerated moves.
        let rows = csr.rows(puzzle, &states, m);
        if let Some(cluster) = opts.engine.cluster(puzzle)
            && opts.engine.multi_process()
        {
            // Several processes: each writes the parts of the tables that hold its own states.
            let written = written_in_parts(puzzle, &states, &csr, &rows, &src, dir, name, cluster);
            // Followers are done; the leader reads every process's parts back.
            let Some((comps, dists, seconds)) = written? else {
                continue;
            };
            timer.record(&format!("comps {name}"), seconds[0], Outcome::Built);
            timer.record(&format!("dist {name}"), seconds[1], Outcome::Built);
            stats.push(metric_stats(name, &csr, &comps, &dists, &goals));
            opened.push((m, open_metric(name, csr, comps, dists)));
            continue;
        }

        // A metric whose components an earlier metric of this run already has: copied.
        let like = opened
            .iter()
            .find(|(d, _)| {
                *d == huarong_core::indexed_moves(puzzle).same_components_as(m) && *d != m
            })
            .map(|(_, o)| &o.components);
        let (comps, dists) = whole_tables(
            puzzle, &states, &csr, &rows, &src, like, dir, name, opts, &mut timer,
        )?;
        stats.push(metric_stats(name, &csr, &comps, &dists, &goals));
        opened.push((m, open_metric(name, csr, comps, dists)));
    }
    let log = timer.log;
    let state_count = states.len() as u64;
    // The followers of a multi-process run hold no whole tables: nothing to hand on.
    let complete = opened.len() == metrics.len();
    let open = complete.then(|| {
        Arc::new(space::OpenSpace {
            dir: dir.to_owned(),
            states,
            metrics: opened.into_iter().map(|(_, o)| o).collect(),
        })
    });
    let artifacts = open.as_ref().map_or_else(Vec::new, |o| o.listed());
    Ok(SpaceReport {
        puzzle: puzzle.name().to_owned(),
        space_id: space_id.clone(),
        tags: Vec::new(),
        dir: dir.to_owned(),
        states: state_count,
        goal_states,
        metrics: stats,
        log,
        goals: Arc::new(Goals {
            mask: goals,
            sources: src,
        }),
        artifacts,
        open,
    })
}

/// One metric's artifacts as the run leaves them for the export: the graph without the rows
/// its stage held (a reader reopening it would have none).
fn open_metric(
    name: &str,
    mut csr: Csr,
    components: Components,
    distances: Distances,
) -> space::OpenMetric {
    csr.release_rows();
    space::OpenMetric {
        name: name.to_owned(),
        csr,
        components,
        distances,
    }
}

/// Components and distances of one metric, each written whole by this process (on the local
/// engine, or gathered from timely workers); parts of an earlier multi-process run are removed.
#[allow(clippy::too_many_arguments)]
fn whole_tables<P: Puzzle + ?Sized, R: graph::Rows>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
    rows: &R,
    src: &[u32],
    like: Option<&Components>,
    dir: &Path,
    name: &str,
    opts: &RunOptions,
    timer: &mut Timer<'_>,
) -> Result<(Components, Distances), StageError> {
    let (force, reporter) = (opts.force, &opts.reporter);
    let label = format!("{} {name}", puzzle.space_id());
    // Distances first: on an undirected graph their search tells the components stage which
    // states share a source's component.
    let dists = timer.time(&format!("dist {name}"), || {
        let path = Kind::Distances.path(dir, name);
        match opts.engine.cluster(puzzle) {
            None => distances::run_from(
                puzzle, states, csr, rows, src, &path, &label, force, reporter,
            ),
            Some(c) => distances::run_with(puzzle, states, csr, src, &path, &label, force, |src| {
                let (dist, _) =
                    dataflow::distances(rows, src, c)?.expect("the leader gathers the distances");
                Ok(dist)
            }),
        }
    })?;
    let comps = timer.time(&format!("comps {name}"), || {
        let path = Kind::Components.path(dir, name);
        // Another metric's table where the puzzle says they are the same (on any engine: no
        // search needed).
        if let Some(from) = like.filter(|_| !csr.is_directed()) {
            return components::run_copying(csr, from, &path, &label, force);
        }
        match opts.engine.cluster(puzzle) {
            None => {
                // The search just made tells which states share the sources' component.
                let reached = (!csr.is_directed()).then(|| components::Reached {
                    sources: src,
                    distances: dists.values(),
                });
                components::run_after(csr, rows, reached, &path, &label, force, reporter)
            }
            Some(c) => components::run_with(csr, &path, &label, force, || {
                let (roots, _) =
                    dataflow::component_roots(rows, c)?.expect("the leader gathers the roots");
                Ok(roots)
            }),
        }
    })?;
    for file in [Kind::Components.file(name), Kind::Distances.file(name)] {
        remove_other_forms(dir, &file, None)?;
    }
    Ok((comps, dists))
}

/// Components and distances of one metric on several timely processes, every process writing
/// the parts of both tables that hold its own states' values ([`huarong_store::shards`]); the
/// whole tables of an earlier run are removed. On the leader: both tables read back from all the
/// parts (the output folder is shared) and the seconds each stage took.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn written_in_parts<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
    rows: &dyn graph::Rows,
    src: &[u32],
    dir: &Path,
    name: &str,
    cluster: &dataflow::Cluster,
) -> Result<Option<(Components, Distances, [f64; 2])>, StageError> {
    let label = format!("{} {name}", puzzle.space_id());
    let (cpath, dpath) = (
        Kind::Components.path(dir, name),
        Kind::Distances.path(dir, name),
    );
    let cfp = components::fingerprint(csr);
    let dfp = space::distances_fingerprint(puzzle, src, states.checksum(), csr.checksum());
    let t = Instant::now();
    let (path, l) = (cpath.clone(), label.clone());
    dataflow::component_parts(
        rows,
        cluster,
        Arc::new(move |part, ids: &[u32], sizes: &[u64]| {
            components::write_part(&path, cfp, &l, part, ids, sizes)
        }),
    )?;
    remove_other_forms(dir, &Kind::Components.file(name), Some(cluster.peers()))?;
    let comps_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (path, l) = (dpath.clone(), label);
    dataflow::distance_parts(
        rows,
        src,
        cluster,
        Arc::new(move |part, values: &[u16]| distances::write_part(&path, dfp, &l, part, values)),
    )?;
    remove_other_forms(dir, &Kind::Distances.file(name), Some(cluster.peers()))?;
    let dist_seconds = t.elapsed().as_secs_f64();
    if !cluster.is_leader() {
        return Ok(None);
    }
    Ok(Some((
        Components::open_with(&cpath, cfp)?,
        Distances::open_with(&dpath, dfp)?,
        [comps_seconds, dist_seconds],
    )))
}

/// [`huarong_store::shards::remove_other_forms`] with the error a stage reports.
fn remove_other_forms(dir: &Path, name: &str, parts: Option<usize>) -> Result<(), StageError> {
    huarong_store::shards::remove_other_forms(dir, name, parts).map_err(|source| {
        StageError::Artifact(huarong_store::ArtifactError::Io {
            path: dir.join(name),
            source,
        })
    })?;
    Ok(())
}

/// The graphs of a small space in several metrics, reused where they verify and the rest built
/// in one pass over the states (each successor generated once for every metric that reaches
/// it); `None` for each metric of a large space or of a single-metric run, whose graph is built
/// just before its other stages (so only one metric's graph is in memory at a time).
fn graphs_together<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    dir: &Path,
    metrics: &[usize],
    opts: &RunOptions,
    timer: &mut Timer<'_>,
) -> Result<Vec<Option<Csr>>, StageError> {
    let mut graphs: Vec<Option<Csr>> = metrics.iter().map(|_| None).collect();
    if metrics.len() < 2 || !graph::one_pass(states.len()) {
        return Ok(graphs);
    }
    let paths: Vec<PathBuf> = metrics
        .iter()
        .map(|&m| Kind::Graph.path(dir, puzzle.metrics()[m]))
        .collect();
    let mut todo = Vec::new();
    for (k, &m) in metrics.iter().enumerate() {
        let t = Instant::now();
        match graph::reuse(puzzle, states, m, &paths[k], opts.force) {
            Ok(csr) => {
                let name = puzzle.metrics()[m];
                timer.record(
                    &format!("graph {name}"),
                    t.elapsed().as_secs_f64(),
                    Outcome::Reused,
                );
                graphs[k] = Some(csr);
            }
            Err(outcome) => todo.push((k, outcome)),
        }
    }
    let Some((_, outcome)) = todo.first().cloned() else {
        return Ok(graphs);
    };
    let names: Vec<&str> = todo
        .iter()
        .map(|&(k, _)| puzzle.metrics()[metrics[k]])
        .collect();
    let built = timer.time(&format!("graph {}", names.join(",")), || {
        let wanted: Vec<(usize, &Path)> = todo
            .iter()
            .map(|&(k, _)| (metrics[k], paths[k].as_path()))
            .collect();
        Ok((
            graph::build_many(puzzle, states, &wanted, &opts.reporter)?,
            outcome,
        ))
    })?;
    for ((k, _), csr) in todo.into_iter().zip(built) {
        graphs[k] = Some(csr);
    }
    Ok(graphs)
}

/// Which states are goals.
pub fn goal_mask<P: Puzzle + ?Sized>(puzzle: &P, states: &StateTable) -> Vec<bool> {
    if let Some(codes) = puzzle.goal_codes() {
        let mut mask = vec![false; states.len()];
        for i in codes.into_iter().filter_map(|c| states.lookup(puzzle, c)) {
            mask[i as usize] = true;
        }
        return mask;
    }
    (0..states.len())
        .into_par_iter()
        .map(|i| puzzle.is_goal(states.code(puzzle, i)))
        .collect()
}

/// The indices of the goals in `mask`, in order: a 64K block at a time in parallel, a block
/// without one passed over by a vectorised test (goals are few: one in ten states of the
/// labeled Huarong Dao space, one of 239.5M of an eleven puzzle's).
pub fn goal_indices(mask: &[bool]) -> Vec<u32> {
    const BLOCK: usize = 1 << 16;
    mask.par_chunks(BLOCK)
        .enumerate()
        .flat_map_iter(|(k, block)| {
            let any = block.iter().fold(false, |a, &g| a | g);
            let block = if any { block } else { &[] };
            (block.iter().enumerate())
                .filter(|&(_, &g)| g)
                .map(move |(i, _)| (k * BLOCK + i) as u32)
        })
        .collect()
}

/// The summary statistics of one metric.
pub fn metric_stats(
    metric: &str,
    csr: &Csr,
    comps: &Components,
    dists: &Distances,
    goals: &[bool],
) -> MetricStats {
    // Components holding a goal: a bit per component, set at each goal (goals are few; a space
    // of one component has its ids as zeros that need not be read).
    let ids = comps.ids();
    let mut holding = fixedbitset::FixedBitSet::with_capacity(comps.count());
    for i in goal_indices(goals) {
        holding.insert(ids[i as usize] as usize);
    }
    let goal_components = holding.count_ones(..);
    let hist = dists.histogram();
    let max_distance = hist.len().saturating_sub(1);
    MetricStats {
        metric: metric.to_owned(),
        edges: csr.edge_count(),
        components: comps.count() as u64,
        goal_components: goal_components as u64,
        solvable_states: hist.iter().sum(),
        max_distance: max_distance as u32,
        max_distance_states: hist.last().copied().unwrap_or(0),
        distance_histogram: hist,
        degree_histogram: csr.degree_histogram(),
        answer: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default bound leaves a quarter of the memory: what it admits at 32 bytes a state
    /// fits three quarters of the machine's memory, and something is admitted.
    #[test]
    fn the_default_bound_leaves_a_quarter_of_the_memory() {
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
        let total_kib: u64 = meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap();
        let usable = usable_memory();
        assert!(usable > 0 && usable <= total_kib * 1024 / 4 * 3, "{usable}");
        let states = default_max_states();
        assert!(states > 0 && states * BYTES_PER_STATE <= usable, "{states}");
    }
}
