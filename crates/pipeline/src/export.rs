//! The export: every pipeline's Parquet tables, from its finished spaces, skipped when a
//! verified manifest says they were written from the same inputs.
//!
//! The export's fingerprint covers everything that can change a byte of a table: the export's
//! own version ([`VERSION`]), the pipeline section as written and the files it read
//! ([`Pipeline::section_key`]), and the id and artifact checksums of every space and pattern
//! database.

use rayon::prelude::*;

use huarong_core::driver::{Plan, SpaceView};
use huarong_core::{Outcome, Table};

use crate::run::{RunOptions, SpaceReport};
use crate::work::{Done, Work};
use atlas::folder::Folder;
use atlas::manifest;
use atlas::space::{self, OpenSpace};

use crate::{Pipeline, PipelineError, tables};

pub use atlas::fingerprint::VERSION;
use atlas::fingerprint::fingerprint_of;

/// The fingerprint the export of `pipeline` over `plan` in `output` must carry, from what the
/// folder holds now: every space's artifacts and each kind of work's (`works`).
pub fn fingerprint(
    pipeline: &Pipeline,
    plan: &Plan,
    output: &Folder,
    works: &[Box<dyn Work>],
) -> Result<u64, huarong_store::StageError> {
    let spaces = atlas::fingerprint::spaces_on_disk(plan, output)?;
    let others = works
        .iter()
        .map(|w| w.on_disk(plan, output))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(fingerprint_of(pipeline, plan, &spaces, &others))
}

/// Writes the Parquet tables (or reuses a verified export with the same inputs): the spaces',
/// then each kind of work's (`works`, which made `done`); fills in the summary spaces' answers
/// when it writes.
pub fn export(
    pipeline: &Pipeline,
    plan: &Plan,
    reports: &mut [SpaceReport],
    works: &[Box<dyn Work>],
    done: &[Done],
    output: &Folder,
    opts: &RunOptions,
) -> Result<(Vec<(String, u64)>, Outcome), PipelineError> {
    // The run listed each space's artifacts once; their checksums are read off that list.
    let checksums: Vec<u64> = reports
        .iter()
        .map(|r| space::checksum_of(&r.artifacts))
        .collect();
    let others: Vec<Vec<(String, u64)>> = done.iter().map(|d| d.checksums.clone()).collect();
    let fingerprint = fingerprint_of(pipeline, plan, &checksums, &others);
    let manifest_path = output.manifest();
    let outcome = if opts.force {
        Outcome::Built
    } else {
        match manifest::verify(&manifest_path, fingerprint) {
            Ok(tables) => return Ok((tables, Outcome::Reused)),
            Err(manifest::Unusable::Missing) => Outcome::Built,
            Err(manifest::Unusable::Invalid(why)) => Outcome::Rebuilt(why),
        }
    };
    let mut tables = write(pipeline, plan, reports, output)?;
    for (w, d) in works.iter().zip(done) {
        for (name, table) in w.tables(plan, d)? {
            if tables.iter().any(|(n, _)| *n == name) {
                return Err(PipelineError::Stage(huarong_store::StageError::Invalid(
                    format!("{}: {name} is written twice", w.name()),
                )));
            }
            let size = tables::write_tables(vec![table], &output.file(&name))?;
            tables.push((name, size));
        }
    }
    manifest::write(&manifest_path, fingerprint, output.root(), &tables)?;
    Ok((tables, outcome))
}

fn write(
    pipeline: &Pipeline,
    plan: &Plan,
    reports: &mut [SpaceReport],
    output: &Folder,
) -> Result<Vec<(String, u64)>, PipelineError> {
    if plan.spaces.is_empty() {
        // Only pattern databases: no space tables.
        return Ok(Vec::new());
    }
    // The artifacts as the stages of this run built or verified them, not reopened.
    let opened: Vec<std::sync::Arc<OpenSpace>> = reports
        .iter()
        .map(|r| {
            r.open
                .clone()
                .expect("the leader's run hands on every space's artifacts")
        })
        .collect();
    let views: Vec<SpaceView<'_>> = opened
        .iter()
        .zip(&plan.spaces)
        .enumerate()
        .map(|(k, (o, s))| o.view(s, k))
        .collect();
    let summary: Vec<usize> = (0..views.len())
        .filter(|&k| plan.spaces[k].summary)
        .collect();
    for &k in &summary {
        for m in 0..views[k].metrics.len() {
            reports[k].metrics[m].answer = pipeline.section.answer(&views[k], m);
        }
    }
    let columns =
        tables::tag_columns(&summary.iter().map(|&k| &plan.spaces[k]).collect::<Vec<_>>());

    let mut written = Vec::new();
    let (sizes, dist_hist, deg_hist) = space_tables(
        plan,
        reports,
        &views,
        &summary,
        &columns,
        output,
        &mut written,
    )?;
    let summary_reports: Vec<&SpaceReport> = summary.iter().map(|&k| &reports[k]).collect();
    let records = pipeline.section.records(&views);
    let extras = pipeline.section.extras(&views);
    let mut summary_table = tables::summary(&summary_reports, &columns);
    for column in &extras.summary {
        let by_row: std::collections::HashMap<(usize, usize), u64> =
            column.values.iter().copied().collect();
        let values = summary
            .iter()
            .flat_map(|&k| (0..views[k].metrics.len()).map(move |m| (k, m)))
            .map(|key| by_row.get(&key).copied())
            .collect();
        summary_table = summary_table.opt_u64(column.name, values);
    }
    let mut files: Vec<(String, Vec<Table>)> = vec![
        ("component_sizes.parquet".into(), sizes),
        ("distance_histogram.parquet".into(), dist_hist),
        ("degree_histogram.parquet".into(), deg_hist),
        ("summary.parquet".into(), vec![summary_table]),
        (
            "records.parquet".into(),
            vec![tables::records(&records, &views)],
        ),
    ];
    for (name, table) in extras.tables {
        files.push((name, vec![table]));
    }
    // The tables over every space, side by side.
    let sizes: Vec<u64> = files
        .par_iter_mut()
        .map(|(name, parts)| tables::write_tables(std::mem::take(parts), &output.file(name)))
        .collect::<Result<_, _>>()?;
    written.extend(files.into_iter().map(|(name, _)| name).zip(sizes));
    Ok(written)
}

/// Each summary space's per-position tables (written now, listed in `written`) and its rows of
/// the component-size, distance and degree tables (returned, written with the others'). The
/// spaces are taken side by side: a universe's hundreds of small ones would leave a core idle
/// one by one.
#[allow(clippy::type_complexity)]
fn space_tables(
    plan: &Plan,
    reports: &[SpaceReport],
    views: &[SpaceView<'_>],
    summary: &[usize],
    columns: &[(&'static str, huarong_core::table::Value)],
    output: &Folder,
    written: &mut Vec<(String, u64)>,
) -> Result<(Vec<Table>, Vec<Table>, Vec<Table>), PipelineError> {
    let per_space: Vec<SpaceTables> = summary
        .par_iter()
        .map(|&k| one_space_tables(&views[k], &plan.spaces[k], &reports[k], columns, output))
        .collect::<Result<_, _>>()?;
    let (mut sizes, mut dist_hist, mut deg_hist) = (Vec::new(), Vec::new(), Vec::new());
    for t in per_space {
        written.extend(t.written);
        sizes.push(t.sizes);
        dist_hist.push(t.distances);
        deg_hist.push(t.degrees);
    }
    Ok((sizes, dist_hist, deg_hist))
}

/// One summary space's share of the export: its per-position tables as written (name, bytes)
/// and its rows of the component-size, distance and degree tables.
struct SpaceTables {
    written: Vec<(String, u64)>,
    sizes: Table,
    distances: Table,
    degrees: Table,
}

fn one_space_tables(
    view: &SpaceView<'_>,
    spec: &huarong_core::driver::SpaceSpec,
    report: &SpaceReport,
    columns: &[(&'static str, huarong_core::table::Value)],
    output: &Folder,
) -> Result<SpaceTables, PipelineError> {
    let goals = &report.goals.mask;
    let id = &report.space_id;
    // The two per-position tables are independent: written side by side.
    let states = format!("states-{id}.parquet");
    let components = format!("components-{id}.parquet");
    let shared = tables::SharedIds::new(view);
    // The component-size rows go with the components table (the shorter of the two).
    let (s, (c, sizes)) = rayon::join(
        || {
            spec.states_table
                .then(|| tables::write_states(view, goals, &shared, &output.file(&states)))
                .transpose()
        },
        || {
            let goal_counts = tables::GoalCounts::new(view, goals, &shared);
            let c = spec
                .components_table
                .then(|| tables::write_components(view, &goal_counts, &output.file(&components)))
                .transpose();
            (c, tables::component_sizes(view, &goal_counts, columns))
        },
    );
    let mut written = Vec::new();
    if let Some(size) = s? {
        written.push((states, size));
    }
    if let Some(size) = c? {
        written.push((components, size));
    }
    let (distances, degrees) = tables::histograms(report, columns);
    Ok(SpaceTables {
        written,
        sizes,
        distances,
        degrees,
    })
}
