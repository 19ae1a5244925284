//! The export stage's content: turns a run's artifacts into the Parquet tables of
//! `docs/OUTPUTS.md`.
//!
//! This module decides *what* goes into each table (it reads artifacts through the stage
//! crates); the `export` crate decides *how* Parquet is written.

use std::path::Path;

use components::Components;
use distances::Distances;
use enumerate::StateTable;
use export::{Table, TableWriter};
use graph::Csr;
use huarong_core::{Puzzle, UNREACHABLE};
use rayon::prelude::*;

use crate::run::{SpaceReport, files};

/// Rows per batch when streaming a states table.
const BATCH: usize = 1 << 20;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Stage(#[from] huarong_core::StageError),
    #[error(transparent)]
    Parquet(#[from] export::ExportError),
}

/// The artifacts of one space in the metrics of a run, reopened and verified.
#[derive(Debug)]
pub struct OpenSpace {
    pub states: StateTable,
    pub metrics: Vec<OpenMetric>,
}

/// One metric's artifacts.
#[derive(Debug)]
pub struct OpenMetric {
    pub name: String,
    pub csr: Csr,
    pub components: Components,
    pub distances: Distances,
}

impl OpenSpace {
    /// Opens (and verifies) the artifacts of `puzzle` in `dir` for `metrics`.
    pub fn open<P: Puzzle + ?Sized>(
        puzzle: &P,
        dir: &Path,
        metrics: &[usize],
    ) -> Result<Self, huarong_core::StageError> {
        let states = StateTable::open(&dir.join(files::STATES), puzzle)?;
        let mut out = Vec::new();
        for &m in metrics {
            let name = puzzle.metrics()[m];
            let csr = Csr::open(&dir.join(files::graph(name)), puzzle, m, &states)?;
            let components = Components::open(&dir.join(files::components(name)), &csr)?;
            let distances =
                Distances::open(&dir.join(files::distances(name)), puzzle, &states, &csr)?;
            out.push(OpenMetric {
                name: name.to_owned(),
                csr,
                components,
                distances,
            });
        }
        Ok(OpenSpace {
            states,
            metrics: out,
        })
    }
}

/// How a states table identifies its positions.
#[derive(Debug, Clone, Copy)]
pub enum StateColumns {
    /// A `layout` string per state (the puzzle's rendering).
    Layout,
    /// A `canonical` column: the unlabeled index, `index / per` (labeled Huarong Dao spaces).
    Canonical { per: u64 },
}

fn distance(d: u16) -> Option<u32> {
    (d != UNREACHABLE).then_some(d as u32)
}

/// `summary.parquet`: one row per (space, metric).
pub fn write_summary(spaces: &[SpaceReport], path: &Path) -> Result<u64, ExportError> {
    let rows: Vec<_> = spaces
        .iter()
        .flat_map(|s| s.metrics.iter().map(move |m| (s, m)))
        .collect();
    let col = |f: &dyn Fn(&SpaceReport, &crate::run::MetricStats) -> u64| -> Vec<u64> {
        rows.iter().map(|(s, m)| f(s, m)).collect()
    };
    let table = Table::new()
        .str(
            "puzzle",
            rows.iter().map(|(s, _)| s.puzzle.clone()).collect(),
        )
        .str(
            "piece_set",
            rows.iter().map(|(s, _)| s.piece_set.clone()).collect(),
        )
        .bool("labeled", rows.iter().map(|(s, _)| s.labeled).collect())
        .str(
            "space",
            rows.iter().map(|(s, _)| s.space_id.clone()).collect(),
        )
        .str(
            "metric",
            rows.iter().map(|(_, m)| m.metric.clone()).collect(),
        )
        .u64("states", col(&|s, _| s.states))
        .u64("goal_states", col(&|s, _| s.goal_states))
        .u64("edges", col(&|_, m| m.edges))
        .u64("components", col(&|_, m| m.components))
        .u64("goal_components", col(&|_, m| m.goal_components))
        .u64("solvable_states", col(&|_, m| m.solvable_states))
        .u32(
            "max_distance",
            rows.iter().map(|(_, m)| m.max_distance).collect(),
        )
        .u64("max_distance_states", col(&|_, m| m.max_distance_states))
        .opt_u64("answer", rows.iter().map(|(s, _)| s.answer).collect());
    Ok(table.write(path)?)
}

/// A row of `records.parquet`.
#[derive(Debug, Clone)]
pub struct Record {
    pub name: String,
    /// The state space the layout belongs to.
    pub space: String,
    pub layout: String,
    pub piece_set: String,
    pub metric: String,
    pub moves: Option<u32>,
    pub component_size: u64,
}

/// `records.parquet`.
pub fn write_records(records: &[Record], path: &Path) -> Result<u64, ExportError> {
    let table = Table::new()
        .str("name", records.iter().map(|r| r.name.clone()).collect())
        .str("layout", records.iter().map(|r| r.layout.clone()).collect())
        .str("space", records.iter().map(|r| r.space.clone()).collect())
        .str(
            "piece_set",
            records.iter().map(|r| r.piece_set.clone()).collect(),
        )
        .str("metric", records.iter().map(|r| r.metric.clone()).collect())
        .opt_u32("moves", records.iter().map(|r| r.moves).collect())
        .u64(
            "component_size",
            records.iter().map(|r| r.component_size).collect(),
        );
    Ok(table.write(path)?)
}

/// `states-<space>.parquet`: one row per state, streamed in batches.
pub fn write_states<P: Puzzle + ?Sized>(
    puzzle: &P,
    space: &OpenSpace,
    goals: &[bool],
    columns: StateColumns,
    path: &Path,
) -> Result<u64, ExportError> {
    let n = space.states.len();
    let mut w = TableWriter::create(path)?;
    for start in (0..n).step_by(BATCH) {
        let end = (start + BATCH).min(n);
        let mut t = Table::new().u32("index", (start as u32..end as u32).collect());
        t = match columns {
            StateColumns::Layout => t.str(
                "layout",
                space.states.codes()[start..end]
                    .par_iter()
                    .map(|&c| puzzle.render(c))
                    .collect(),
            ),
            StateColumns::Canonical { per } => t.u32(
                "canonical",
                (start..end).map(|i| (i as u64 / per) as u32).collect(),
            ),
        };
        t = t.bool("goal", goals[start..end].to_vec());
        for m in &space.metrics {
            t = t.u32(
                &format!("component_{}", m.name),
                m.components.ids()[start..end].to_vec(),
            );
        }
        for m in &space.metrics {
            t = t.opt_u32(
                &format!("distance_{}", m.name),
                m.distances.values()[start..end]
                    .iter()
                    .map(|&d| distance(d))
                    .collect(),
            );
        }
        w.write(t)?;
    }
    Ok(w.finish()?)
}

/// `components-<space>.parquet`: one row per (metric, component).
pub fn write_components<P: Puzzle + ?Sized>(
    puzzle: &P,
    space: &OpenSpace,
    goals: &[bool],
    path: &Path,
) -> Result<u64, ExportError> {
    let mut w = TableWriter::create(path)?;
    for m in &space.metrics {
        let k = m.components.count();
        let mut goal_states = vec![0u64; k];
        let mut best: Vec<(u16, u32)> = vec![(0, u32::MAX); k];
        for (i, (&c, &d)) in m
            .components
            .ids()
            .iter()
            .zip(m.distances.values())
            .enumerate()
        {
            let c = c as usize;
            goal_states[c] += goals[i] as u64;
            // The representative: the farthest solvable member, else the smallest member.
            let key = if d == UNREACHABLE { 0 } else { d };
            if best[c].1 == u32::MAX || key > best[c].0 {
                best[c] = (key, i as u32);
            }
        }
        let codes = space.states.codes();
        let max_distance: Vec<Option<u32>> = best
            .iter()
            .map(|&(_, i)| distance(m.distances.values()[i as usize]))
            .collect();
        w.write(
            Table::new()
                .str("metric", vec![m.name.clone(); k])
                .u32("component", (0..k as u32).collect())
                .u64("size", m.components.sizes().to_vec())
                .u64("goal_states", goal_states)
                .opt_u32("max_distance", max_distance)
                .str(
                    "representative",
                    best.par_iter()
                        .map(|&(_, i)| puzzle.render(codes[i as usize]))
                        .collect(),
                ),
        )?;
    }
    Ok(w.finish()?)
}

/// `component_sizes.parquet` rows of one space: per metric and component size, how many
/// components have that size and how many of those hold a goal.
pub fn component_sizes(report: &SpaceReport, space: &OpenSpace, goals: &[bool]) -> Table {
    let (mut metric, mut size, mut count, mut with_goal) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for m in &space.metrics {
        let ids = m.components.ids();
        let mut has_goal = vec![false; m.components.count()];
        for (i, &g) in goals.iter().enumerate() {
            if g {
                has_goal[ids[i] as usize] = true;
            }
        }
        let mut by_size: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
        for (c, &sz) in m.components.sizes().iter().enumerate() {
            let e = by_size.entry(sz).or_default();
            e.0 += 1;
            e.1 += has_goal[c] as u64;
        }
        for (sz, (n, g)) in by_size {
            metric.push(m.name.clone());
            size.push(sz);
            count.push(n);
            with_goal.push(g);
        }
    }
    let n = metric.len();
    Table::new()
        .str("space", vec![report.space_id.clone(); n])
        .str("piece_set", vec![report.piece_set.clone(); n])
        .bool("labeled", vec![report.labeled; n])
        .str("metric", metric)
        .u64("size", size)
        .u64("components", count)
        .u64("goal_components", with_goal)
}

/// `distance_histogram.parquet` and `degree_histogram.parquet` rows of one space.
pub fn histograms(report: &SpaceReport) -> (Table, Table) {
    let table = |value: &str, pick: fn(&crate::run::MetricStats) -> &Vec<u64>| {
        let (mut metric, mut x, mut states) = (Vec::new(), Vec::new(), Vec::new());
        for m in &report.metrics {
            for (v, &count) in pick(m).iter().enumerate() {
                if count > 0 {
                    metric.push(m.metric.clone());
                    x.push(v as u32);
                    states.push(count);
                }
            }
        }
        let n = metric.len();
        Table::new()
            .str("space", vec![report.space_id.clone(); n])
            .str("piece_set", vec![report.piece_set.clone(); n])
            .bool("labeled", vec![report.labeled; n])
            .str("metric", metric)
            .u32(value, x)
            .u64("states", states)
    };
    (
        table("distance", |m| &m.distance_histogram),
        table("degree", |m| &m.degree_histogram),
    )
}

/// Concatenates tables with the same columns into one file.
pub fn write_tables(tables: Vec<Table>, path: &Path) -> Result<u64, ExportError> {
    let mut w = TableWriter::create(path)?;
    for t in tables {
        w.write(t)?;
    }
    Ok(w.finish()?)
}
