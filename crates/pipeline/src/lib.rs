//! Pipelines: a TOML description ([`config`]) turned into stage runs over each state space
//! ([`run`]) and one export ([`export`]). Every puzzle takes the same path: its driver's
//! [`Section`](huarong_core::driver::Section) says which spaces to build and what to read off
//! them; this crate runs the stages and writes the tables. The stage crates stay generic over
//! [`huarong_core::Puzzle`]; nothing here names a puzzle.

/// The pipeline descriptions (the `pipeline-config` crate).
pub use pipeline_config as config;
pub mod census;
pub mod export;
pub mod folder;
pub mod inspect;
pub mod prune;
pub mod run;
pub mod tables;
pub mod verify;
pub mod work;
/// The query side (the `atlas` crate): the folder layout, the manifest, and the readers.
pub use atlas::{manifest, outputs, play, solve, space};

use std::path::{Path, PathBuf};

use atlas::folder::Folder;
pub use config::{ConfigError, Pipeline};
use huarong_core::Outcome;
use huarong_core::driver::{Plan, SpaceSpec};
use huarong_store::StageError;
pub use run::{Engine, MetricStats, RunOptions, SpaceReport, StageLog, run_space};

/// Why a pipeline run failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stage(#[from] StageError),
    #[error(transparent)]
    Export(#[from] tables::ExportError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A space known to be too large for the run, refused before any work.
    #[error("{0}")]
    TooLarge(String),
    /// Another run writes the output folder.
    #[error(transparent)]
    Busy(#[from] folder::LockError),
    /// The run's new files need more disk than the output folder's file system has free,
    /// refused before any work.
    #[error("{message}")]
    NoDisk {
        message: String,
        /// At least the bytes of new files, and the bytes free.
        needed: u64,
        free: u64,
    },
}

impl PipelineError {
    pub fn kind(&self) -> huarong_core::ErrorKind {
        use huarong_core::ErrorKind;
        match self {
            PipelineError::Config(e) => e.kind(),
            PipelineError::Stage(e) => e.kind(),
            PipelineError::Export(e) => e.kind(),
            PipelineError::Io { source, .. } => ErrorKind::of_io(source),
            PipelineError::TooLarge(_) | PipelineError::NoDisk { .. } => ErrorKind::Refused,
            PipelineError::Busy(e) => e.kind(),
        }
    }
}

impl From<atlas::IoError> for PipelineError {
    fn from(e: atlas::IoError) -> Self {
        PipelineError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// The result of a whole pipeline run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub name: String,
    pub output: PathBuf,
    /// The summary spaces (those built only for records are not listed).
    pub spaces: Vec<SpaceReport>,
    /// Parquet files written (or verified and reused) with their sizes in bytes.
    pub tables: Vec<(String, u64)>,
    pub export_outcome: Outcome,
    pub export_seconds: f64,
    /// Files of earlier runs that this pipeline no longer produces, removed.
    pub pruned: Vec<PathBuf>,
    /// What each kind of work beside the spaces made ([`work::Work`]), in the run's order.
    pub works: Vec<work::Done>,
}

impl RunReport {
    /// The pattern databases, in plan order.
    pub fn patterns(&self) -> &[run::PatternReport] {
        self.report_of::<run::PatternReport>()
    }

    /// The universes' censuses, in plan order.
    pub fn universes(&self) -> &[run::UniverseReport] {
        self.report_of::<run::UniverseReport>()
    }

    /// The reports of the work whose report is a list of `R` (none if the run had no such work).
    fn report_of<R: 'static>(&self) -> &[R] {
        self.works
            .iter()
            .find_map(|d| d.report::<Vec<R>>())
            .map_or(&[], |r| r.as_slice())
    }
}

/// Runs every stage of `pipeline` into `output` (the pipeline's own output folder if `None`),
/// with the [`work::built_in`] kinds of work.
pub fn run_pipeline(
    pipeline: &Pipeline,
    output: Option<&Path>,
    opts: &RunOptions,
) -> Result<RunReport, PipelineError> {
    run_pipeline_with(pipeline, output, opts, &work::built_in())
}

/// [`run_pipeline`] walking the kinds of work `works` after the spaces' stages.
pub fn run_pipeline_with(
    pipeline: &Pipeline,
    output: Option<&Path>,
    opts: &RunOptions,
    works: &[Box<dyn work::Work>],
) -> Result<RunReport, PipelineError> {
    let root = output.unwrap_or(&pipeline.output).to_owned();
    // What cannot fit is refused before anything is written.
    let plan = pipeline.section.spaces();
    check_fits(&plan, opts.state_bound())?;
    for w in works {
        w.check_fits(&plan, opts.state_bound())?;
    }
    // One writer at a time (the processes of a multi-process run under process 0's lock).
    let writing = folder::Writing::open(&root, opts)?;
    let output = writing.folder();
    // What cannot fit on the disk is refused before anything is written, too.
    if !opts.engine.is_follower()
        && let Some(free) = huarong_store::atomic::free_bytes(output.root())
    {
        check_disk(
            &least_new_bytes_with(&plan, output, works),
            free,
            output.root(),
        )?;
    }
    for note in &plan.notes {
        opts.reporter.note(note);
    }
    if opts.engine.is_follower() {
        // Another process of a multi-process run: the same undirected summary spaces in the
        // same order as the leader, so both meet in every dataflow; nothing is exported.
        let mut spaces = Vec::new();
        for spec in plan.spaces.iter().filter(|s| s.summary) {
            if !spec.puzzle.directed() {
                spaces.push(run_one(spec, output, opts)?);
            }
        }
        // Its share of the other work (a census's classes, sent to the leader).
        for w in works {
            w.run(&plan, &spaces, output, opts)?;
        }
        return Ok(RunReport {
            name: pipeline.name.clone(),
            output: root,
            spaces,
            tables: Vec::new(),
            export_outcome: Outcome::Reused,
            export_seconds: 0.0,
            pruned: Vec::new(),
            works: Vec::new(),
        });
    }
    let mut reports = run_spaces(&plan, output, opts)?;
    let done = works
        .iter()
        .map(|w| w.run(&plan, &reports, output, opts))
        .collect::<Result<Vec<_>, _>>()?;
    let t = std::time::Instant::now();
    let (tables, export_outcome) =
        export::export(pipeline, &plan, &mut reports, works, &done, output, opts)?;
    let export_seconds = t.elapsed().as_secs_f64();
    opts.reporter
        .stage("parquet", "export", export_seconds, &export_outcome);
    let pruned =
        prune::prune(output, &reports, &done, &tables).map_err(|source| PipelineError::Io {
            path: root.clone(),
            source,
        })?;
    for p in &pruned {
        opts.reporter.note(&format!(
            "removed {}: not produced by this pipeline any more",
            p.display()
        ));
    }
    let spaces = plan
        .spaces
        .iter()
        .zip(reports)
        .filter(|(s, _)| s.summary)
        .map(|(_, r)| r)
        .collect();
    Ok(RunReport {
        name: pipeline.name.clone(),
        output: root,
        spaces,
        tables,
        export_outcome,
        export_seconds,
        pruned,
        works: done,
    })
}

/// The universes of `pipeline`; an error naming the option if it has none.
fn universes_of(pipeline: &Pipeline, option: &str) -> Result<Plan, PipelineError> {
    let plan = pipeline.section.spaces();
    if plan.universes.is_empty() {
        return Err(PipelineError::Stage(StageError::Invalid(format!(
            "{option}: pipeline {} has no census to measure (only universes, such as \
             [rush-hour], have one)",
            pipeline.name
        ))));
    }
    Ok(plan)
}

/// Each universe's census of `pipeline` projected on this machine from a timed sample of its
/// units (`huarong run --estimate`); nothing is written.
pub fn estimate(
    pipeline: &Pipeline,
    opts: &RunOptions,
) -> Result<Vec<census::Estimate>, PipelineError> {
    let plan = universes_of(pipeline, "--estimate")?;
    let mut out = Vec::new();
    for u in &plan.universes {
        out.push(census::estimate(u.as_ref(), opts)?);
    }
    Ok(out)
}

/// Each universe's census of `pipeline` over the units `k ≡ from (mod every)` only (`huarong
/// run --sample`), timed, with the whole projected at its rate; nothing is written.
pub fn sample(
    pipeline: &Pipeline,
    every: usize,
    from: usize,
    opts: &RunOptions,
) -> Result<Vec<census::SampleReport>, PipelineError> {
    let plan = universes_of(pipeline, "--sample")?;
    let mut out = Vec::new();
    for u in &plan.universes {
        out.push(census::sample(u.as_ref(), every, from, opts)?);
    }
    Ok(out)
}

/// Refuses, before any work, a space whose size is known to exceed what a dense `u32` index
/// holds or the run's bound on states (`bound`, sized to the memory available by default).
fn check_fits(plan: &Plan, bound: u64) -> Result<(), PipelineError> {
    for spec in &plan.spaces {
        let Some(n) = spec.puzzle.size_hint() else {
            continue;
        };
        let space = format!("{} {}", spec.puzzle.name(), spec.puzzle.space_id());
        let count = if n == u64::MAX {
            "more than 18,446,744,073,709,551,615".to_owned()
        } else {
            thousands(n)
        };
        if n > u32::MAX as u64 {
            return Err(PipelineError::TooLarge(format!(
                "{space}: {count} positions, more than the {} a dense 32-bit state index holds: \
                 refused before any work",
                thousands(u32::MAX as u64)
            )));
        }
        if n > bound {
            let gib = (n * run::BYTES_PER_STATE) as f64 / (1u64 << 30) as f64;
            return Err(PipelineError::TooLarge(format!(
                "{space}: {count} positions, over this run's bound of {} (max_states; at about \
                 {} bytes a position it needs {gib:.1} GiB): refused before any work",
                thousands(bound),
                run::BYTES_PER_STATE
            )));
        }
    }
    Ok(())
}

/// The files a run of `plan` into `output` has yet to write, each with at least the bytes it
/// takes: those not there yet ([`least_new_bytes_with`] the [`work::built_in`] kinds of work).
pub fn least_new_bytes(plan: &Plan, output: &Folder) -> Vec<(PathBuf, u64)> {
    least_new_bytes_with(plan, output, &work::built_in())
}

/// The files a run of `plan`'s spaces ([`space::least_bytes`]) and of `works`
/// ([`work::Work::least_new_bytes`]) into `output` has yet to write, each with at least the
/// bytes it takes: those not there yet. A file that is there is reused, or replaced by one of
/// about its size.
pub fn least_new_bytes_with(
    plan: &Plan,
    output: &Folder,
    works: &[Box<dyn work::Work>],
) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    for spec in &plan.spaces {
        let dir = output.space(spec);
        for (name, bytes) in space::least_bytes(spec) {
            if !space::present(&dir, &name) {
                out.push((dir.join(name), bytes));
            }
        }
    }
    for w in works {
        out.extend(w.least_new_bytes(plan, output));
    }
    out
}

/// Refuses, before any work, a run into `output` whose new files (`needed`, at least) take
/// more than the `free` bytes of its file system; the message gives both figures and the
/// largest file.
pub fn check_disk(
    needed: &[(PathBuf, u64)],
    free: u64,
    output: &Path,
) -> Result<(), PipelineError> {
    let total = needed
        .iter()
        .map(|(_, b)| *b)
        .fold(0u64, u64::saturating_add);
    if total <= free {
        return Ok(());
    }
    let (largest, bytes) = needed
        .iter()
        .max_by_key(|(_, b)| *b)
        .expect("more than nothing is needed");
    Err(PipelineError::NoDisk {
        message: format!(
            "{}: this run writes at least {} in {} new files (the largest: {}, {}), and its \
             file system has {} free: refused before any work",
            output.display(),
            bytes_text(total),
            needed.len(),
            largest.display(),
            bytes_text(*bytes),
            bytes_text(free)
        ),
        needed: total,
        free,
    })
}

/// A size in the largest binary unit it has one of: `512 B`, `1.48 KiB` (1,512 bytes), `1.16 GiB`.
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.2} {}", UNITS[unit])
}

/// `n` with thousands separators: 10,461,394,944,000.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Spaces at which a run goes parallel across spaces (small spaces use one chunk, so the stages
/// alone would leave cores idle).
const PARALLEL_SPACES: usize = 8;

/// Runs the stages of every space of `plan`, in plan order of the reports: the summary spaces
/// (many at once on the local engine, largest first), then the ones built for records only
/// (always on the local engine: only the leader needs them).
fn run_spaces(
    plan: &Plan,
    output: &Folder,
    opts: &RunOptions,
) -> Result<Vec<SpaceReport>, PipelineError> {
    use rayon::prelude::*;
    let (summary, extra): (Vec<usize>, Vec<usize>) =
        (0..plan.spaces.len()).partition(|&k| plan.spaces[k].summary);
    let many = summary.len() >= PARALLEL_SPACES && opts.engine.is_local();
    let mut done: Vec<(usize, SpaceReport)> = if many {
        // One bar counting spaces instead of a bar per stage.
        let bar = opts.reporter.bar(summary.len() as u64, "spaces");
        let inner = RunOptions {
            reporter: opts.reporter.without_bars(),
            ..opts.clone()
        };
        let mut order = summary.clone();
        order.sort_by_key(|&k| std::cmp::Reverse(plan.spaces[k].puzzle.ranked_len()));
        let done = order
            .par_iter()
            .map(|&k| {
                let r = run_one(&plan.spaces[k], output, &inner)?;
                bar.inc(1);
                Ok((k, r))
            })
            .collect::<Result<_, PipelineError>>()?;
        bar.finish();
        done
    } else {
        summary
            .iter()
            .map(|&k| Ok((k, run_one(&plan.spaces[k], output, opts)?)))
            .collect::<Result<_, PipelineError>>()?
    };
    let local = RunOptions {
        engine: Engine::Local,
        ..opts.clone()
    };
    for k in extra {
        done.push((k, run_one(&plan.spaces[k], output, &local)?));
    }
    done.sort_by_key(|d| d.0);
    Ok(done.into_iter().map(|d| d.1).collect())
}

fn run_one(
    spec: &SpaceSpec,
    output: &Folder,
    opts: &RunOptions,
) -> Result<SpaceReport, PipelineError> {
    let dir = output.space(spec);
    let mut report = run_space(spec.puzzle.as_ref(), &dir, &spec.metrics, opts)?;
    report.tags = spec.tags.clone();
    Ok(report)
}
