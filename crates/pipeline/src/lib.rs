//! Pipelines: a TOML description ([`config`]) turned into stage runs over each state space
//! ([`run`]). The stage crates stay generic over [`huarong_core::Puzzle`]; this crate is where
//! concrete puzzles meet them.

/// The pipeline descriptions (the `pipeline-config` crate).
pub use pipeline_config as config;
pub mod inspect;
pub mod manifest;
pub mod run;
pub mod sibling;
pub mod solve;
pub mod tables;

use std::path::{Path, PathBuf};

pub use config::{ConfigError, HuarongConfig, Pipeline, PuzzleConfig, SpaceKind};
use huarong_core::{Puzzle, StageError};
use klotski::{Labeled, PieceSet, Unlabeled};
pub use run::{Engine, MetricStats, RunOptions, SpaceReport, StageLog, run_space};

/// Why a pipeline run failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stage(#[from] StageError),
    #[error(transparent)]
    Space(#[from] klotski::SpaceError),
    #[error(transparent)]
    Export(#[from] tables::ExportError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The result of a whole pipeline run.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub name: String,
    pub output: PathBuf,
    pub spaces: Vec<SpaceReport>,
    /// Parquet files written (or verified and reused) with their sizes in bytes.
    pub tables: Vec<(String, u64)>,
    pub export_outcome: huarong_core::Outcome,
    pub export_seconds: f64,
}

/// Runs every stage of `pipeline` into `output` (the pipeline's own output folder if `None`).
pub fn run_pipeline(
    pipeline: &Pipeline,
    output: Option<&Path>,
    opts: RunOptions,
) -> Result<RunReport, PipelineError> {
    let output = output.unwrap_or(&pipeline.output).to_owned();
    std::fs::create_dir_all(&output).map_err(|source| PipelineError::Io {
        path: output.clone(),
        source,
    })?;
    // Parquet temporaries of a run that was killed here.
    for name in huarong_core::artifact::remove_stale_temporaries(&output) {
        if opts.log {
            eprintln!("  removed {name}, left by an interrupted run");
        }
    }
    if opts.engine.is_follower() {
        // Another process of a multi-process run: only the stages' dataflows, nothing written
        // but the (identical) state tables and graphs.
        let spaces = match &pipeline.puzzle {
            PuzzleConfig::Huarong(h) => run_huarong(h, &output, opts)?,
            other => sibling::run_follower(other, &output, opts)?,
        };
        return Ok(RunReport {
            name: pipeline.name.clone(),
            output,
            spaces,
            tables: Vec::new(),
            export_outcome: huarong_core::Outcome::Reused,
            export_seconds: 0.0,
        });
    }
    // The stages, then the export (timed on its own).
    let (spaces, (tables, export_outcome), export_seconds) = match &pipeline.puzzle {
        PuzzleConfig::Huarong(h) => {
            let spaces = run_huarong(h, &output, opts)?;
            let t = std::time::Instant::now();
            let export = export_huarong(h, &spaces, &output, opts)?;
            (spaces, export, t.elapsed().as_secs_f64())
        }
        other => {
            let spaces = sibling::run_spaces(other, &output, opts)?;
            let t = std::time::Instant::now();
            let export = sibling::export(&spaces, &output, opts)?;
            (spaces.reports(), export, t.elapsed().as_secs_f64())
        }
    };
    if opts.log {
        eprintln!(
            "  {:<22} {:<15} {export_seconds:>8.3} s  {export_outcome}",
            "parquet", "export"
        );
    }
    Ok(RunReport {
        name: pipeline.name.clone(),
        output,
        spaces,
        tables,
        export_outcome,
        export_seconds,
    })
}

/// Most `farthest` records per piece set and metric (the summary counts them all).
pub const FARTHEST_CAP: usize = 100;

fn export_huarong(
    config: &HuarongConfig,
    spaces: &[SpaceReport],
    output: &Path,
    opts: RunOptions,
) -> Result<(Vec<(String, u64)>, huarong_core::Outcome), PipelineError> {
    use huarong_core::Fingerprint;
    let metrics: Vec<usize> = config.metrics.iter().map(|&m| m as usize).collect();

    // Records need the unlabeled space of every named layout's piece set and of every piece
    // set the pipeline ran; build the missing ones (they are small).
    let mut record_sets: Vec<PieceSet> = ran_sets(spaces);
    for (_, layout) in klotski::named::LAYOUTS {
        let set = klotski::parse(layout)
            .expect("named layouts parse")
            .board
            .piece_set();
        if !record_sets.contains(&set) {
            record_sets.push(set);
        }
    }
    let mut record_spaces = Vec::new();
    for &set in &record_sets {
        let u = Unlabeled::new(set);
        let dir = output.join(u.space_id());
        let report = match spaces.iter().find(|s| s.dir == dir) {
            Some(r) => r.clone(),
            // Only this process builds these: the local engine.
            None => run_space(
                &u,
                &dir,
                &metrics,
                RunOptions {
                    engine: Engine::Local,
                    ..opts
                },
            )?,
        };
        record_spaces.push((u, report));
    }

    // Version 3: `space` in records, `answer` in the summary, `hardest` records,
    // component_sizes.parquet.
    let mut fp = Fingerprint::new("export", 3);
    fp.add_u64(config.state_tables as u64);
    for s in spaces.iter().chain(record_spaces.iter().map(|(_, r)| r)) {
        fp.add_str(&s.space_id)
            .add_u64(manifest::space_checksum(s)?);
    }
    let fingerprint = fp.finish();
    let manifest_path = output.join(manifest::FILE);
    if !opts.force {
        match manifest::verify(&manifest_path, fingerprint) {
            Ok(tables) => return Ok((tables, huarong_core::Outcome::Reused)),
            Err(manifest::Unusable::Missing) => {}
            Err(manifest::Unusable::Invalid(why)) => {
                return write_huarong_tables(config, spaces, &record_spaces, output, fingerprint)
                    .map(|t| (t, huarong_core::Outcome::Rebuilt(why)));
            }
        }
    }
    write_huarong_tables(config, spaces, &record_spaces, output, fingerprint)
        .map(|t| (t, huarong_core::Outcome::Built))
}

/// The piece sets of the spaces a run built, in run order.
fn ran_sets(spaces: &[SpaceReport]) -> Vec<PieceSet> {
    let mut sets: Vec<PieceSet> = Vec::new();
    for s in spaces {
        let set: PieceSet = s.piece_set.parse().expect("piece set of a run");
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
    sets
}

fn write_huarong_tables(
    config: &HuarongConfig,
    spaces: &[SpaceReport],
    record_spaces: &[(Unlabeled, SpaceReport)],
    output: &Path,
    fingerprint: u64,
) -> Result<Vec<(String, u64)>, PipelineError> {
    use tables::Record;
    let metrics: Vec<usize> = config.metrics.iter().map(|&m| m as usize).collect();
    let mut tables = Vec::new();
    let mut dist_hist = Vec::new();
    let mut deg_hist = Vec::new();
    let mut comp_sizes = Vec::new();
    let unlabeled_of = |set: PieceSet| -> &Unlabeled {
        &record_spaces
            .iter()
            .find(|(u, _)| u.piece_set() == set)
            .expect("every ran set has a record space")
            .0
    };
    for report in spaces {
        let set: PieceSet = report.piece_set.parse().expect("piece set of a run");
        let unlabeled = unlabeled_of(set);
        let (name_states, name_comps) = (
            format!("states-{}.parquet", report.space_id),
            format!("components-{}.parquet", report.space_id),
        );
        let mut write_space = |p: &dyn PuzzleExport| -> Result<(), PipelineError> {
            let open = p.open(&report.dir, &metrics)?;
            let goals = run::goal_mask(p.puzzle(), &open.states);
            if config.state_tables {
                let size = tables::write_states(
                    p.puzzle(),
                    &open,
                    &goals,
                    p.columns(),
                    &output.join(&name_states),
                )?;
                tables.push((name_states.clone(), size));
                let size =
                    tables::write_components(p.puzzle(), &open, &goals, &output.join(&name_comps))?;
                tables.push((name_comps.clone(), size));
            }
            comp_sizes.push(tables::component_sizes(report, &open, &goals));
            let (d, g) = tables::histograms(report);
            dist_hist.push(d);
            deg_hist.push(g);
            Ok(())
        };
        if report.labeled {
            let labeled = Labeled::over(unlabeled.clone())?;
            write_space(&labeled)?;
        } else {
            write_space(unlabeled)?;
        }
    }
    let size = tables::write_tables(comp_sizes, &output.join("component_sizes.parquet"))?;
    tables.push(("component_sizes.parquet".to_owned(), size));
    for (name, tabs) in [
        ("distance_histogram.parquet", dist_hist),
        ("degree_histogram.parquet", deg_hist),
    ] {
        let size = tables::write_tables(tabs, &output.join(name))?;
        tables.push((name.to_owned(), size));
    }
    let size = tables::write_summary(spaces, &output.join("summary.parquet"))?;
    tables.push(("summary.parquet".to_owned(), size));

    // Records: the named layouts, then the farthest positions of the pipeline's piece sets.
    let mut records: Vec<Record> = Vec::new();
    let opened: Vec<tables::OpenSpace> = record_spaces
        .iter()
        .map(|(u, r)| tables::OpenSpace::open(u, &r.dir, &metrics))
        .collect::<Result<_, _>>()?;
    let find = |set: PieceSet| record_spaces.iter().position(|(u, _)| u.piece_set() == set);
    for (name, layout) in klotski::named::LAYOUTS {
        let board = klotski::parse(layout).expect("named layouts parse").board;
        let k = find(board.piece_set()).expect("record space built above");
        let u = &record_spaces[k].0;
        let i = u.index_of_board(&board).expect("a layout is in its space") as usize;
        for m in &opened[k].metrics {
            let c = m.components.ids()[i];
            records.push(Record {
                name: (*name).to_owned(),
                space: u.space_id(),
                layout: (*layout).to_owned(),
                piece_set: u.piece_set().to_string(),
                metric: m.name.clone(),
                moves: (m.distances.values()[i] != huarong_core::UNREACHABLE)
                    .then_some(m.distances.values()[i] as u32),
                component_size: m.components.sizes()[c as usize],
            });
        }
    }
    let sets = ran_sets(spaces);
    for &set in &sets {
        let k = find(set).expect("record space built above");
        let u = &record_spaces[k].0;
        for m in &opened[k].metrics {
            for i in run::farthest(m.distances.values())
                .into_iter()
                .take(FARTHEST_CAP)
            {
                let c = m.components.ids()[i as usize];
                records.push(Record {
                    name: "farthest".to_owned(),
                    space: u.space_id(),
                    layout: klotski::render(&u.board(i)),
                    piece_set: set.to_string(),
                    metric: m.name.clone(),
                    moves: Some(m.distances.values()[i as usize] as u32),
                    component_size: m.components.sizes()[c as usize],
                });
            }
        }
    }
    // Over several piece sets: the hardest positions of them all, per metric.
    if sets.len() > 1 {
        for (mi, m) in config.metrics.iter().enumerate() {
            let at_max = |k: usize| -> u16 {
                let h = &record_spaces[k].1.metrics[mi].distance_histogram;
                h.len().saturating_sub(1) as u16
            };
            let ks: Vec<usize> = sets.iter().map(|&s| find(s).expect("built")).collect();
            let Some(max) = ks.iter().map(|&k| at_max(k)).max() else {
                continue;
            };
            let mut taken = 0;
            for &k in ks.iter().filter(|&&k| at_max(k) == max) {
                let (u, _) = &record_spaces[k];
                let om = &opened[k].metrics[mi];
                for i in run::farthest(om.distances.values()) {
                    if taken == FARTHEST_CAP {
                        break;
                    }
                    taken += 1;
                    let c = om.components.ids()[i as usize];
                    records.push(Record {
                        name: "hardest".to_owned(),
                        space: u.space_id(),
                        layout: klotski::render(&u.board(i)),
                        piece_set: u.piece_set().to_string(),
                        metric: m.name().to_owned(),
                        moves: Some(max as u32),
                        component_size: om.components.sizes()[c as usize],
                    });
                }
            }
        }
    }
    let size = tables::write_records(&records, &output.join("records.parquet"))?;
    tables.push(("records.parquet".to_owned(), size));
    manifest::write(&output.join(manifest::FILE), fingerprint, output, &tables)?;
    Ok(tables)
}

/// What the export needs of a Huarong Dao space, object-safe so both spaces share one path.
trait PuzzleExport {
    fn puzzle(&self) -> &dyn Puzzle;
    fn columns(&self) -> tables::StateColumns;
    fn open(&self, dir: &Path, metrics: &[usize]) -> Result<tables::OpenSpace, StageError>;
}

impl PuzzleExport for Unlabeled {
    fn puzzle(&self) -> &dyn Puzzle {
        self
    }

    fn columns(&self) -> tables::StateColumns {
        tables::StateColumns::Layout
    }

    fn open(&self, dir: &Path, metrics: &[usize]) -> Result<tables::OpenSpace, StageError> {
        tables::OpenSpace::open(self, dir, metrics)
    }
}

impl PuzzleExport for Labeled {
    fn puzzle(&self) -> &dyn Puzzle {
        self
    }

    fn columns(&self) -> tables::StateColumns {
        tables::StateColumns::Canonical {
            per: self.per_canonical() as u64,
        }
    }

    fn open(&self, dir: &Path, metrics: &[usize]) -> Result<tables::OpenSpace, StageError> {
        tables::OpenSpace::open(self, dir, metrics)
    }
}

/// Piece sets at which a run goes parallel across spaces (small spaces use one chunk, so the
/// stages alone would leave cores idle).
const PARALLEL_SETS: usize = 8;

fn run_huarong(
    config: &HuarongConfig,
    output: &Path,
    opts: RunOptions,
) -> Result<Vec<SpaceReport>, PipelineError> {
    use rayon::prelude::*;
    let metrics: Vec<usize> = config.metrics.iter().map(|&m| m as usize).collect();
    // Parallel spaces only on the local engine: the processes of a timely run must meet in the
    // same dataflows in the same order.
    let many = config.piece_sets.len() >= PARALLEL_SETS && matches!(opts.engine, Engine::Local);
    // Many spaces at once: one bar counting piece sets instead of a bar per stage.
    let bar = opts.reporter.bar(
        if many {
            config.piece_sets.len() as u64
        } else {
            0
        },
        "piece sets",
    );
    let inner = if many {
        RunOptions {
            reporter: huarong_core::Reporter::quiet(),
            ..opts
        }
    } else {
        opts
    };
    let run_set = |set: PieceSet| -> Result<Vec<SpaceReport>, PipelineError> {
        let unlabeled = Unlabeled::new(set);
        let mut reports = Vec::new();
        if unlabeled.is_empty() {
            if opts.log {
                eprintln!("  {:<22} no positions: skipped", format!("{set}"));
            }
            return Ok(reports);
        }
        for &kind in &config.spaces {
            let report = match kind {
                SpaceKind::Unlabeled => run_one(&unlabeled, output, &metrics, inner)?,
                SpaceKind::Labeled => {
                    let labeled = Labeled::over(unlabeled.clone())?;
                    run_one(&labeled, output, &metrics, inner)?
                }
            };
            reports.push(SpaceReport {
                piece_set: set.to_string(),
                labeled: kind == SpaceKind::Labeled,
                ..report
            });
        }
        if many {
            bar.inc(1);
        }
        Ok(reports)
    };
    let per_set: Vec<Vec<SpaceReport>> = if many {
        // Largest first, so the long ones do not start last; results keep the config's order.
        let mut order: Vec<usize> = (0..config.piece_sets.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(config.piece_sets[k].empty_cells()));
        let mut done: Vec<(usize, Vec<SpaceReport>)> = order
            .par_iter()
            .map(|&k| run_set(config.piece_sets[k]).map(|r| (k, r)))
            .collect::<Result<_, _>>()?;
        done.sort_by_key(|d| d.0);
        done.into_iter().map(|d| d.1).collect()
    } else {
        config
            .piece_sets
            .iter()
            .map(|&set| run_set(set))
            .collect::<Result<_, _>>()?
    };
    bar.finish();
    Ok(per_set.into_iter().flatten().collect())
}

fn run_one<P: Puzzle + 'static>(
    puzzle: &P,
    output: &Path,
    metrics: &[usize],
    opts: RunOptions,
) -> Result<SpaceReport, PipelineError> {
    let dir = output.join(puzzle.space_id());
    Ok(run_space(puzzle, &dir, metrics, opts)?)
}
