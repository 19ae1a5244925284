//! Kinds of work beside the spaces' stages, each declared once as a [`Work`]: what it refuses up
//! front, the disk it needs, the artifacts the next run expects of it, how it is built, the
//! checksums the export's fingerprint covers and the tables it adds. The run, `verify`, prune
//! and the export walk the list ([`built_in`], or the run's own: [`crate::run_pipeline_with`])
//! and name no kind: a new kind of work is one `impl Work` (and its family's code).

use std::any::Any;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use atlas::folder::Folder;
use huarong_core::Table;
use huarong_core::driver::Plan;
use huarong_store::StageError;

use crate::run::{self, PatternReport, RunOptions, SpaceReport, UniverseReport};
use crate::space::{self, Expected};
use crate::{PipelineError, census, tables};

/// One kind of work of a plan (all of it: every pattern database, every census).
pub trait Work: Send + Sync {
    /// What it is, for messages (`pattern databases`).
    fn name(&self) -> &'static str;

    /// Refuses, before any work, what cannot fit the run's bound on states (`bound`).
    fn check_fits(&self, _plan: &Plan, _bound: u64) -> Result<(), PipelineError> {
        Ok(())
    }

    /// The files a run has yet to write, each with at least the bytes it takes (those that are
    /// there are reused or replaced by one of about their size).
    fn least_new_bytes(&self, _plan: &Plan, _output: &Folder) -> Vec<(PathBuf, u64)> {
        Vec::new()
    }

    /// What the next run expects of each of its artifacts, keyed by the path relative to the
    /// output folder.
    fn expected(&self, plan: &Plan, output: &Folder, out: &mut HashMap<String, Expected>);

    /// Builds, or reuses, all of it, after the spaces' stages (`spaces`: their reports, in plan
    /// order, with their artifacts). A follower of a multi-process run does its share, or
    /// nothing, and returns [`Done::nothing`].
    fn run(
        &self,
        plan: &Plan,
        spaces: &[SpaceReport],
        output: &Folder,
        opts: &RunOptions,
    ) -> Result<Done, PipelineError>;

    /// Each item's id and checksum as its artifacts on disk say now (`verify`: the export's
    /// fingerprint of the folder); an error when one is missing or unreadable.
    fn on_disk(&self, plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError>;

    /// Its Parquet tables (file name, table), written by the export.
    fn tables(&self, plan: &Plan, done: &Done) -> Result<Vec<(String, Table)>, PipelineError>;
}

/// What a run made of one kind of work.
#[derive(Debug, Clone)]
pub struct Done {
    /// Each item's id and the checksum of its artifacts, in plan order: the export's
    /// fingerprint covers them.
    pub checksums: Vec<(String, u64)>,
    /// Its artifacts, relative to the output folder: prune keeps them.
    pub artifacts: Vec<String>,
    /// Its own report, for the programs ([`Done::report`]).
    report: Arc<dyn Any + Send + Sync>,
}

impl Done {
    pub fn new<R: Any + Send + Sync + std::fmt::Debug>(
        checksums: Vec<(String, u64)>,
        artifacts: Vec<String>,
        report: R,
    ) -> Self {
        Done {
            checksums,
            artifacts,
            report: Arc::new(report),
        }
    }

    /// What a kind of work made whose report is a list of items, each with its id and its one
    /// artifact (path relative to the output folder, checksum).
    pub fn of_items<R: Any + Send + Sync + std::fmt::Debug>(
        items: Vec<R>,
        of: impl Fn(&R) -> (&String, &(String, u64)),
    ) -> Self {
        let checksums = items.iter().map(|r| (of(r).0.clone(), of(r).1.1)).collect();
        let artifacts = items.iter().map(|r| of(r).1.0.clone()).collect();
        Done::new(checksums, artifacts, items)
    }

    /// Nothing made (a follower's share, or no such work in the plan).
    pub fn nothing() -> Self {
        Done::new(Vec::new(), Vec::new(), ())
    }

    /// The report of the work that made it, if it is an `R`.
    pub fn report<R: Any>(&self) -> Option<&R> {
        self.report.downcast_ref()
    }
}

/// The kinds of work every run walks, in this order (the export's fingerprint lists each that
/// has items in it): the kinds a pipeline file can plan, as readers fingerprint them
/// (`atlas::fingerprint::PLANNED`: pattern databases, then censuses).
pub fn built_in() -> Vec<Box<dyn Work>> {
    vec![Box::new(Patterns), Box::new(Censuses)]
}

/// The pattern databases of the plan (`Plan::patterns`).
#[derive(Debug)]
pub struct Patterns;

impl Work for Patterns {
    fn name(&self) -> &'static str {
        "pattern databases"
    }

    fn check_fits(&self, plan: &Plan, bound: u64) -> Result<(), PipelineError> {
        for a in &plan.patterns {
            let bytes = a
                .len()
                .saturating_mul(patterns::build_bytes_per_placement(a.as_ref()));
            let allowed = bound.saturating_mul(run::BYTES_PER_STATE);
            if bytes > allowed {
                return Err(PipelineError::TooLarge(format!(
                    "pattern database {}: {} placements need {:.1} GiB to build, over this run's \
                     {:.1} GiB (max_states {} at {} bytes a state): refused before any work",
                    a.id(),
                    crate::thousands(a.len()),
                    bytes as f64 / (1u64 << 30) as f64,
                    allowed as f64 / (1u64 << 30) as f64,
                    crate::thousands(bound),
                    run::BYTES_PER_STATE
                )));
            }
        }
        Ok(())
    }

    fn least_new_bytes(&self, plan: &Plan, output: &Folder) -> Vec<(PathBuf, u64)> {
        plan.patterns
            .iter()
            .map(|a| {
                let path = output.pattern_file(a.as_ref());
                (path, patterns::least_file_bytes(a.as_ref()))
            })
            .filter(|(path, _)| !path.exists())
            .collect()
    }

    fn expected(&self, plan: &Plan, _output: &Folder, out: &mut HashMap<String, Expected>) {
        for a in &plan.patterns {
            space::expected_pattern(a.as_ref(), out);
        }
    }

    fn run(
        &self,
        plan: &Plan,
        _spaces: &[SpaceReport],
        output: &Folder,
        opts: &RunOptions,
    ) -> Result<Done, PipelineError> {
        if opts.engine.is_follower() {
            return Ok(Done::nothing());
        }
        let reports = plan
            .patterns
            .iter()
            .map(|a| run::run_pattern(a.as_ref(), output, opts))
            .collect::<Result<Vec<PatternReport>, _>>()?;
        Ok(Done::of_items(reports, |p| (&p.id, &p.artifact)))
    }

    fn on_disk(&self, plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError> {
        atlas::fingerprint::patterns_on_disk(plan, output)
    }

    fn tables(&self, _plan: &Plan, done: &Done) -> Result<Vec<(String, Table)>, PipelineError> {
        let reports: &Vec<PatternReport> = done.report().expect("the pattern databases' report");
        if reports.is_empty() {
            return Ok(Vec::new());
        }
        let (list, histogram) = tables::patterns(reports);
        Ok(vec![
            ("patterns.parquet".into(), list),
            ("pattern_histogram.parquet".into(), histogram),
        ])
    }
}

/// The censuses of the plan's universes (`Plan::universes`): chunks, then the merged census.
#[derive(Debug)]
pub struct Censuses;

impl Work for Censuses {
    fn name(&self) -> &'static str {
        "censuses"
    }

    fn expected(&self, plan: &Plan, _output: &Folder, out: &mut HashMap<String, Expected>) {
        for u in &plan.universes {
            census::expected_universe(u.as_ref(), out);
        }
    }

    fn run(
        &self,
        plan: &Plan,
        _spaces: &[SpaceReport],
        output: &Folder,
        opts: &RunOptions,
    ) -> Result<Done, PipelineError> {
        let mut reports = Vec::new();
        for u in &plan.universes {
            // `None` on a follower: its share went to process 0.
            reports.extend(run::run_universe(u.as_ref(), output, opts)?);
        }
        Ok(Done::of_items(reports, |u| (&u.id, &u.artifact)))
    }

    fn on_disk(&self, plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError> {
        atlas::fingerprint::universes_on_disk(plan, output)
    }

    fn tables(&self, plan: &Plan, done: &Done) -> Result<Vec<(String, Table)>, PipelineError> {
        let reports: &Vec<UniverseReport> = done.report().expect("the censuses' report");
        if reports.is_empty() {
            return Ok(Vec::new());
        }
        Ok(tables::universes(reports, plan.spaces.is_empty())?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader recomputes a folder's export fingerprint from the kinds of work a pipeline file
    /// can plan (`atlas::fingerprint::PLANNED`): the run must build those, in that order.
    #[test]
    fn the_built_in_kinds_are_the_ones_a_reader_fingerprints() {
        let built: Vec<&str> = built_in().iter().map(|w| w.name()).collect();
        let planned: Vec<&str> = atlas::fingerprint::PLANNED.iter().map(|k| k.0).collect();
        assert_eq!(built, planned);
    }
}
