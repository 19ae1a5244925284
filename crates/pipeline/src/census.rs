//! A universe's census as a long job: cut into chunks of units ([`huarong_core::universe`]),
//! each kept as an artifact as soon as it is done (`<id>/chunk-<first>-<end>.bin`, verified and
//! reused like every artifact, so a killed run resumes and loses at most the chunks it was
//! working on), projected before it starts from a timed sample of its units, shown on a
//! progress bar with an ETA, spread over the processes of a timely run by work, and merged into
//! `<id>/universe.bin`, which must count every unit exactly once. Process 0 then removes its
//! chunks: a finished folder holds the census alone.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use atlas::folder::Folder;
use huarong_core::Outcome;
use huarong_core::universe::{Census, CensusError, Universe};
use huarong_store::{Artifact, StageError};

use crate::run::{Engine, RunOptions, StageLog};
use crate::space::{self, files};

/// The artifact kind of a chunk of a census.
pub const CHUNK_KIND: &str = "universe-chunk";

/// The file name of the chunk of units `units`.
pub fn chunk_name(units: &Range<usize>) -> String {
    format!("chunk-{:07}-{:07}.bin", units.start, units.end)
}

/// The fingerprint of a chunk: its universe's and its units.
pub fn chunk_fingerprint(universe: u64, units: &Range<usize>) -> u64 {
    let mut fp = huarong_core::Fingerprint::new("universe-chunk", 1);
    fp.add_u64(universe)
        .add_u64(units.start as u64)
        .add_u64(units.end as u64);
    fp.finish()
}

/// What a run built (or reused) of one universe.
#[derive(Debug, Clone)]
pub struct UniverseReport {
    pub id: String,
    /// Its summary row (`(column, value)`).
    pub summary: Vec<(&'static str, u64)>,
    pub log: StageLog,
    /// The artifact (`<id>/universe.bin`, relative to the output folder) and its checksum.
    pub artifact: (String, u64),
    /// The census (the artifact's payload, read).
    pub result: Arc<dyn Census>,
    /// Work per process of the run that built it (one entry on a local run, none if reused).
    pub work_per_process: Vec<u64>,
}

/// The layout of a universe's work: every unit's, and the chunks.
#[derive(Debug)]
pub struct Plan {
    pub work: Vec<u64>,
    pub chunks: Vec<Range<usize>>,
    pub chunk_work: Vec<u64>,
}

impl Plan {
    /// Measures every unit (without searching) and cuts the chunks; a unit over the run's
    /// bound on states is refused here, before any is searched.
    pub fn of(universe: &dyn Universe, bound: u64) -> Result<Plan, StageError> {
        let work = universe.work();
        if let Some(&largest) = work.iter().max()
            && largest > bound
        {
            return Err(census_error(
                universe,
                CensusError::TooLarge {
                    unit: universe.unit_name(),
                    size: largest,
                    bound,
                },
            ));
        }
        let chunks = huarong_core::universe::chunks(&work, universe.chunk_work());
        let chunk_work = chunks
            .iter()
            .map(|r| work[r.clone()].iter().sum())
            .collect();
        Ok(Plan {
            work,
            chunks,
            chunk_work,
        })
    }

    pub fn total(&self) -> u64 {
        self.work.iter().sum()
    }
}

fn census_error(universe: &dyn Universe, source: CensusError) -> StageError {
    StageError::Census {
        id: universe.id(),
        source,
    }
}

/// A projection of a census's time on this machine, from a timed sample of its units.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    /// Work (units) to do and the sample's.
    pub work: u64,
    pub units: usize,
    pub sample_work: u64,
    pub sample_units: usize,
    pub sample_seconds: f64,
    /// The sample's threads' time to their last unit, on average ([`Timing`]).
    pub sample_busy_seconds: f64,
    /// `work` at the sample's rate (by its busy time).
    pub seconds: f64,
}

impl Projection {
    /// One line: what is projected and from what.
    pub fn describe(&self, unit: &str, work: &str) -> String {
        format!(
            "projected {} on this machine for {} {} and {} {work} (a sample of {} {} and {} \
             {work} took {:.2} s, its threads busy {:.2} s each)",
            duration(self.seconds),
            crate::thousands(self.units as u64),
            plural(unit),
            crate::thousands(self.work),
            crate::thousands(self.sample_units as u64),
            plural(unit),
            crate::thousands(self.sample_work),
            self.sample_seconds,
            self.sample_busy_seconds
        )
    }
}

/// `unit` in the plural (`class` → `classes`, `unit` → `units`).
pub fn plural(unit: &str) -> String {
    if unit.ends_with('s') {
        format!("{unit}es")
    } else {
        format!("{unit}s")
    }
}

/// `seconds` for a person: `42 s`, `14.2 min`, `2.3 h`.
pub fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// Work below which no sample is timed: seconds at any speed this census has had.
pub const PROJECT_FROM: u64 = 1 << 30;

/// The sample's share of the work: 1/256 of it, at most this much.
const SAMPLE_MAX: u64 = 1 << 28;

/// The group of a unit of pace `pace` ([`Universe::paces`]): units within a factor of two.
fn pace_group(pace: u64) -> usize {
    pace.max(1).ilog2() as usize
}

/// Times a sample of `units` and projects their whole work from it, pace group by pace group
/// ([`Universe::paces`]): units of different paces take very different times per unit of work,
/// so the sample takes, in each group of units within a factor of two in pace (sparse groups of
/// the fastest merged until they hold a quarter of a stride), the units at evenly spaced places
/// in order of their work — about one in `s` (about 1/256 of the work, at most 2^28, and at least
/// 16 units) and at least one — and each group's work is projected at its own units' rate.
/// The sample's census is thrown away.
pub fn project(
    universe: &dyn Universe,
    work: &[u64],
    units: &[usize],
) -> Result<Projection, StageError> {
    let paces = universe.paces(work);
    let with_work: Vec<usize> = units.iter().copied().filter(|&k| work[k] > 0).collect();
    let total: u64 = with_work.iter().map(|&k| work[k]).sum();
    let target = (total / 256).clamp(1, SAMPLE_MAX);
    let stride = ((total / target) as usize).clamp(1, (with_work.len() / 16).max(1));
    let groups = pace_groups(&with_work, &paces, stride);
    let mut sample = Vec::new();
    for mut group in groups.iter().cloned() {
        group.sort_by_key(|&k| (work[k], k));
        let picks = (group.len() / stride).max(1);
        // The middle unit of each of `picks` equal runs.
        sample.extend((0..picks).map(|i| group[(2 * i + 1) * group.len() / (2 * picks)]));
    }
    let sample_work: u64 = sample.iter().map(|&k| work[k]).sum();
    let (_, timing) = timed_run(universe, &sample, &|_| {})?;
    Ok(Projection {
        work: total,
        units: with_work.len(),
        sample_work,
        sample_units: sample.len(),
        sample_seconds: timing.wall,
        sample_busy_seconds: timing.busy,
        seconds: timing.projected(&groups, work),
    })
}

/// `units` in groups of about the same pace ([`pace_group`]), the fastest first; a group of
/// fewer than a quarter of `stride` units joins the next slower ones, so that the sample takes
/// one unit for about as much work in every group.
fn pace_groups(units: &[usize], paces: &[u64], stride: usize) -> Vec<Vec<usize>> {
    let mut by_group: Vec<Vec<usize>> = vec![Vec::new(); 64];
    for &k in units {
        by_group[pace_group(paces[k])].push(k);
    }
    let least = (stride / 4).max(1);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for group in by_group.into_iter().rev() {
        open.extend(group);
        if open.len() >= least {
            groups.push(std::mem::take(&mut open));
        }
    }
    match groups.last_mut() {
        Some(last) => last.extend(open),
        None if !open.is_empty() => groups.push(open),
        None => {}
    }
    groups
}

/// How long a run of some units took: its wall time, each thread's time to its last unit
/// averaged over the threads that ran one, how many those were, and each unit with its time
/// (on its thread, since the thread's unit before).
#[derive(Debug, Clone)]
struct Timing {
    wall: f64,
    busy: f64,
    threads: usize,
    units: Vec<(usize, f64)>,
}

impl Timing {
    /// The wall time of `groups` of units (of work `work`) on as many threads as this run had,
    /// each group at the rate of this run's units in it (seconds per unit of work); a group it
    /// had none of at the rate of all its units.
    fn projected(&self, groups: &[Vec<usize>], work: &[u64]) -> f64 {
        let rate = |units: &mut dyn Iterator<Item = &(usize, f64)>| {
            let (spent, done) = units.fold((0.0, 0u64), |(s, d), &(k, t)| (s + t, d + work[k]));
            (done > 0).then(|| spent / done as f64)
        };
        let Some(overall) = rate(&mut self.units.iter()) else {
            return 0.0;
        };
        let seconds: f64 = groups
            .iter()
            .map(|group| {
                let members: std::collections::HashSet<usize> = group.iter().copied().collect();
                let own = rate(&mut self.units.iter().filter(|(k, _)| members.contains(k)));
                let all: u64 = group.iter().map(|&k| work[k]).sum();
                own.unwrap_or(overall) * all as f64
            })
            .sum();
        seconds / self.threads.max(1) as f64
    }
}

/// Runs `units`, reporting each unit's work to `inc`, and times it ([`Timing`]): each thread's
/// last report marks when it finished its share.
fn timed_run(
    universe: &dyn Universe,
    units: &[usize],
    inc: &(dyn Fn(u64) + Sync),
) -> Result<(Box<dyn Census>, Timing), StageError> {
    let t = Instant::now();
    let finished: std::sync::Mutex<Vec<(std::thread::ThreadId, f64)>> = Default::default();
    let done: std::sync::Mutex<Vec<(usize, f64)>> = Default::default();
    let result = universe
        .run(units, &|unit, w| {
            inc(w);
            let (id, at) = (std::thread::current().id(), t.elapsed().as_secs_f64());
            let mut finished = finished.lock().unwrap_or_else(|e| e.into_inner());
            let since = match finished.iter_mut().find(|(thread, _)| *thread == id) {
                Some(entry) => std::mem::replace(&mut entry.1, at),
                None => {
                    finished.push((id, at));
                    0.0
                }
            };
            done.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((unit, at - since));
        })
        .map_err(|e| census_error(universe, e))?;
    let wall = t.elapsed().as_secs_f64();
    let finished = finished.into_inner().unwrap_or_else(|e| e.into_inner());
    let busy = if finished.is_empty() {
        wall
    } else {
        finished.iter().map(|&(_, at)| at).sum::<f64>() / finished.len() as f64
    };
    Ok((
        result,
        Timing {
            wall,
            busy,
            threads: finished.len(),
            units: done.into_inner().unwrap_or_else(|e| e.into_inner()),
        },
    ))
}

/// A census of some units only, for measuring: its summary, its time, and the whole
/// universe's time projected at its rate. Nothing is written.
#[derive(Debug, Clone)]
pub struct SampleReport {
    pub id: String,
    pub unit: &'static str,
    pub work_name: &'static str,
    pub units: usize,
    pub work: u64,
    pub seconds: f64,
    pub summary: Vec<(&'static str, u64)>,
    /// All units' work, and its time at the sample's rates (per group of units of about the
    /// same pace, [`Universe::paces`]).
    pub total_work: u64,
    pub projected_seconds: f64,
}

/// The census of the units `k ≡ from (mod every)` (see [`SampleReport`]).
pub fn sample(
    universe: &dyn Universe,
    every: usize,
    from: usize,
    opts: &RunOptions,
) -> Result<SampleReport, StageError> {
    let plan = Plan::of(universe, opts.state_bound())?;
    let units: Vec<usize> = (0..plan.work.len())
        .filter(|k| k % every.max(1) == from)
        .collect();
    let work: u64 = units.iter().map(|&k| plan.work[k]).sum();
    let bar = opts
        .reporter
        .bar_eta(work, format!("{} sample", universe.id()));
    let (result, timing) = timed_run(universe, &units, &|w| bar.inc(w))?;
    bar.finish();
    let with_work: Vec<usize> = (0..plan.work.len()).filter(|&k| plan.work[k] > 0).collect();
    let groups = pace_groups(&with_work, &universe.paces(&plan.work), every.max(1));
    let total_work = plan.total();
    Ok(SampleReport {
        id: universe.id(),
        unit: universe.unit_name(),
        work_name: universe.work_name(),
        units: units.len(),
        work,
        seconds: timing.wall,
        summary: result.summary(),
        total_work,
        projected_seconds: timing.projected(&groups, &plan.work),
    })
}

/// A universe's projected time on this machine ([`project`] over all its units), and its
/// layout in chunks.
#[derive(Debug, Clone)]
pub struct Estimate {
    pub id: String,
    pub unit: &'static str,
    pub work: &'static str,
    pub chunks: usize,
    pub projection: Projection,
}

/// Projects `universe`'s whole census on this machine; nothing is written.
pub fn estimate(universe: &dyn Universe, opts: &RunOptions) -> Result<Estimate, StageError> {
    let plan = Plan::of(universe, opts.state_bound())?;
    let units: Vec<usize> = (0..plan.work.len()).collect();
    Ok(Estimate {
        id: universe.id(),
        unit: universe.unit_name(),
        work: universe.work_name(),
        chunks: plan.chunks.len(),
        projection: project(universe, &plan.work, &units)?,
    })
}

/// The chunks process `process` of `processes` computes, and every process's work.
fn my_chunks(plan: &Plan, process: usize, processes: usize) -> (Vec<usize>, Vec<u64>) {
    let owner = huarong_core::universe::assign(&plan.chunk_work, processes);
    let mut load = vec![0u64; processes.max(1)];
    for (i, &p) in owner.iter().enumerate() {
        load[p] += plan.chunk_work[i];
    }
    let mine = (0..plan.chunks.len())
        .filter(|&i| owner[i] == process)
        .collect();
    (mine, load)
}

/// Runs (or reuses) the census of `universe` under `output`: this process's chunks (all of
/// them on a local run), each reused if a verified one is there, else computed and kept; then
/// every process's chunks merged on process 0 (`None` on the others) and checked to count
/// every unit once, and kept as `<id>/universe.bin`. A local run reuses a current
/// `universe.bin` without looking at its chunks.
pub fn run_universe(
    universe: &dyn Universe,
    output: &Folder,
    opts: &RunOptions,
) -> Result<Option<UniverseReport>, StageError> {
    let dir = output.universe(universe);
    crate::folder::prepare(&dir, opts)?;
    let id = universe.id();
    let fingerprint = space::universe_fingerprint(universe);
    let path = dir.join(files::UNIVERSE);
    let failed = |e: CensusError| census_error(universe, e);
    let t = Instant::now();
    let cluster = match &opts.engine {
        Engine::Timely(c) if c.hosts.len() > 1 => Some(c.clone()),
        _ => None,
    };
    let expect = huarong_store::Expect {
        kind: space::UNIVERSE_KIND,
        fingerprint: Some(fingerprint),
    };
    // Every process of a multi-process run takes part in the gathering: none reuses the whole.
    let reused = match cluster {
        Some(_) => Err(Outcome::Built),
        None => huarong_store::try_reuse(&path, expect, opts.force),
    };
    let rebuilt = match reused {
        Ok(artifact) => {
            return report(
                universe,
                opts,
                artifact,
                None,
                Outcome::Reused,
                t,
                Vec::new(),
            )
            .map(Some);
        }
        Err(outcome) => outcome,
    };
    let plan = Plan::of(universe, opts.state_bound())?;
    let (process, processes) = cluster
        .as_ref()
        .map_or((0, 1), |c| (c.process, c.hosts.len()));
    let (mine, load) = my_chunks(&plan, process, processes);
    if processes > 1 {
        let max = load.iter().copied().max().unwrap_or(0);
        let mean = plan.total() as f64 / processes as f64;
        opts.reporter.note(&format!(
            "{id}: {} chunks over {processes} processes by work: this process {} of {} work; \
             max / mean {:.3}",
            plan.chunks.len(),
            crate::thousands(load[process]),
            crate::thousands(plan.total()),
            if mean > 0.0 { max as f64 / mean } else { 1.0 }
        ));
    }
    // This process's chunks: verified ones reused, the rest to do.
    let mut parts: Vec<Option<Box<dyn Census>>> = (0..plan.chunks.len()).map(|_| None).collect();
    let mut todo = Vec::new();
    for &i in &mine {
        let r = &plan.chunks[i];
        let expect = huarong_store::Expect {
            kind: CHUNK_KIND,
            fingerprint: Some(chunk_fingerprint(fingerprint, r)),
        };
        match huarong_store::try_reuse(&dir.join(chunk_name(r)), expect, opts.force) {
            Ok(a) => parts[i] = Some(universe.decode(a.section::<u8>(0)).map_err(failed)?),
            Err(_) => todo.push(i),
        }
    }
    let todo_units: Vec<usize> = todo.iter().flat_map(|&i| plan.chunks[i].clone()).collect();
    let todo_work: u64 = todo.iter().map(|&i| plan.chunk_work[i]).sum();
    let reused_chunks = mine.len() - todo.len();
    if reused_chunks > 0 {
        opts.reporter.note(&format!(
            "{id}: {reused_chunks} of {} chunks done by an earlier run, verified and reused",
            mine.len()
        ));
    }
    if todo_work >= PROJECT_FROM {
        let p = project(universe, &plan.work, &todo_units)?;
        opts.reporter.note(&format!(
            "{id}: {}",
            p.describe(universe.unit_name(), universe.work_name())
        ));
    }
    let bar = opts.reporter.bar_eta(todo_work, format!("{id} census"));
    let units_total = todo_units.len();
    let units_done = std::sync::atomic::AtomicUsize::new(0);
    for &i in &todo {
        let r = plan.chunks[i].clone();
        let units: Vec<usize> = r.clone().collect();
        let census = universe
            .run(&units, &|_, w| {
                let done = units_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                bar.inc(w);
                if done.is_multiple_of(64) || done == units_total {
                    bar.set_message(format!(
                        "{id}: {done}/{units_total} {}",
                        plural(universe.unit_name())
                    ));
                }
            })
            .map_err(failed)?;
        write_census(
            &dir.join(chunk_name(&r)),
            CHUNK_KIND,
            chunk_fingerprint(fingerprint, &r),
            &id,
            &census.encode(),
        )?;
        parts[i] = Some(census);
    }
    bar.finish();
    let chunk_files: Vec<String> = mine
        .iter()
        .map(|&i| format!("{id}/{}", chunk_name(&plan.chunks[i])))
        .collect();
    let mine = universe
        .merge(parts.into_iter().flatten().collect())
        .map_err(failed)?;
    let result = match &cluster {
        None => mine,
        // The processes' censuses sent as their bytes, read back and merged on process 0.
        Some(c) => match dataflow::gather(c, mine.encode())? {
            None => return Ok(None),
            Some(all) => {
                let all = all
                    .iter()
                    .map(|bytes| universe.decode(bytes))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(failed)?;
                universe.merge(all).map_err(failed)?
            }
        },
    };
    // Every unit exactly once, or no census at all.
    let covered = result.units();
    let all = 0..plan.work.len() as u64;
    if covered != [all.clone()] && !(covered.is_empty() && all.is_empty()) {
        return Err(StageError::Invalid(format!(
            "{id}: the merged census counts units {covered:?}, not each of {all:?} once: \
             nothing written"
        )));
    }
    let header = write_census(
        &path,
        space::UNIVERSE_KIND,
        fingerprint,
        &id,
        &result.encode(),
    )?;
    let artifact = Artifact::open_written(&path, &header)?;
    // The chunks are merged: the folder holds the census alone, as a fresh run's does.
    for file in chunk_files {
        match std::fs::remove_file(output.file(&file)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(StageError::Artifact(huarong_store::ArtifactError::Io {
                    path: output.file(&file),
                    source: e,
                }));
            }
            _ => {}
        }
    }
    report(universe, opts, artifact, Some(result), rebuilt, t, load).map(Some)
}

/// Writes a census (or a chunk of one) as an artifact of one byte section.
fn write_census(
    path: &Path,
    kind: &str,
    fingerprint: u64,
    id: &str,
    bytes: &[u8],
) -> Result<huarong_store::Header, StageError> {
    let w = huarong_store::ArtifactWriter::create(
        path,
        kind,
        fingerprint,
        id,
        &[huarong_store::Section::of::<u8>(bytes.len() as u64)],
    )?;
    w.write(0, 0, bytes)?;
    Ok(w.finish()?)
}

/// The report of a universe's census kept in `artifact`: `census` as the run merged it, or
/// (`None`: reused) read back from the artifact.
fn report(
    universe: &dyn Universe,
    opts: &RunOptions,
    artifact: Artifact,
    census: Option<Box<dyn Census>>,
    outcome: Outcome,
    started: Instant,
    work_per_process: Vec<u64>,
) -> Result<UniverseReport, StageError> {
    let id = universe.id();
    let result = match census {
        Some(c) => c,
        None => universe
            .decode(artifact.section::<u8>(0))
            .map_err(|e| census_error(universe, e))?,
    };
    let seconds = started.elapsed().as_secs_f64();
    opts.reporter.stage(&id, "census", seconds, &outcome);
    Ok(UniverseReport {
        summary: result.summary(),
        artifact: (
            format!("{id}/{}", files::UNIVERSE),
            artifact.header().checksum,
        ),
        id,
        log: StageLog {
            stage: "census".into(),
            outcome,
            seconds,
        },
        result: Arc::from(result),
        work_per_process,
    })
}

/// What the next run expects of a universe's census and its chunks (keyed as [`expected`]'s).
pub fn expected_universe(
    universe: &dyn huarong_core::Universe,
    out: &mut std::collections::HashMap<String, space::Expected>,
) {
    out.insert(
        format!("{}/{}", universe.id(), space::files::UNIVERSE),
        space::Expected::Fingerprint(space::universe_fingerprint(universe)),
    );
    for (path, fp) in expected_chunks(universe, u64::MAX) {
        out.insert(
            path.to_string_lossy().into_owned(),
            space::Expected::Optional(fp),
        );
    }
}

/// The chunk files a universe's folder may hold (relative to the output folder), with their
/// fingerprints: for `verify` and prune.
pub fn expected_chunks(universe: &dyn Universe, bound: u64) -> Vec<(PathBuf, u64)> {
    let Ok(plan) = Plan::of(universe, bound) else {
        return Vec::new();
    };
    let fingerprint = space::universe_fingerprint(universe);
    plan.chunks
        .iter()
        .map(|r| {
            (
                PathBuf::from(universe.id()).join(chunk_name(r)),
                chunk_fingerprint(fingerprint, r),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pace_groups_hold_every_unit_once_and_merge_sparse_fast_ones() {
        // Paces 1 (group 0), 2..=3 (group 1), 4..=7 (group 2), 8 (group 3), 1024 (group 10).
        let paces = [1, 2, 3, 4, 5, 6, 7, 1024, 8];
        let units: Vec<usize> = (0..paces.len()).collect();
        // One unit in eight sampled: a group needs two units. The lone fastest joins the next
        // slower one; the lone slowest, left over, joins the last group.
        let groups = pace_groups(&units, &paces, 8);
        assert_eq!(groups, vec![vec![7, 8], vec![3, 4, 5, 6], vec![1, 2, 0]]);
        let mut all: Vec<usize> = groups.concat();
        all.sort();
        assert_eq!(all, units);
        // Every unit sampled: every pace group its own.
        assert_eq!(pace_groups(&units, &paces, 1).len(), 5);
        // Too few units for any group: one group of all.
        assert_eq!(pace_groups(&[0, 7], &paces, 64), vec![vec![7, 0]]);
    }

    #[test]
    fn each_group_is_projected_at_its_own_rate() {
        // Units 0..4 slow (3 s per unit of work), 4..8 fast (1 s); one sampled of each.
        let work = [10, 20, 30, 40, 100, 200, 300, 400];
        let groups = vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]];
        let timing = Timing {
            wall: 0.0,
            busy: 0.0,
            threads: 2,
            units: vec![(1, 60.0), (6, 300.0)],
        };
        // (100 · 3 + 1000 · 1) / 2 threads; one rate for all (360 s for 320) would say 618.75.
        assert_eq!(timing.projected(&groups, &work), 650.0);
        // A group without a sampled unit goes at the rate of all of them.
        let timing = Timing {
            units: vec![(6, 300.0)],
            ..timing
        };
        assert_eq!(timing.projected(&groups, &work), 550.0);
    }
}
