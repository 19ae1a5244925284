//! What goes into each table of `docs/OUTPUTS.md`, for every puzzle alike: the rows are read
//! off a space's artifacts through [`SpaceView`]s, the columns a family adds come from its
//! [`SpaceSpec::tags`]. The `export` crate decides how Parquet is written.

use std::path::Path;

use export::TableWriter;
use huarong_core::UNREACHABLE;
use huarong_core::driver::{Record, SpaceSpec, SpaceView, StateKey};
use huarong_core::table::{Table, Value};
use huarong_store::StageError;
use rayon::prelude::*;

use atlas::farthest::representatives_of;

use crate::run::SpaceReport;

/// Rows per batch when streaming a states table.
const BATCH: usize = 1 << 20;

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Stage(#[from] huarong_store::StageError),
    #[error(transparent)]
    Parquet(#[from] export::ExportError),
}

impl ExportError {
    pub fn kind(&self) -> huarong_core::ErrorKind {
        match self {
            ExportError::Stage(e) => e.kind(),
            ExportError::Parquet(e) => e.kind(),
        }
    }
}

fn distance(d: u16) -> Option<u32> {
    (d != UNREACHABLE).then_some(d as u32)
}

/// The family columns of a section: `piece_set` and `labeled` always (the summary's contract;
/// `""` and `false` where a family sets neither), then any other tags of its first space.
pub fn tag_columns(specs: &[&SpaceSpec]) -> Vec<(&'static str, Value)> {
    let mut cols = vec![
        ("piece_set", Value::Str(String::new())),
        ("labeled", Value::Bool(false)),
    ];
    if let Some(first) = specs.first() {
        for (name, v) in &first.tags {
            if !cols.iter().any(|(n, _)| n == name) {
                cols.push((name, default_like(v)));
            }
        }
    }
    cols
}

fn default_like(v: &Value) -> Value {
    match v {
        Value::Str(_) => Value::Str(String::new()),
        Value::Bool(_) => Value::Bool(false),
        Value::U64(_) => Value::U64(0),
    }
}

fn tag_value(tags: &[(&'static str, Value)], name: &str, default: &Value) -> Value {
    tags.iter()
        .find(|(n, _)| *n == name)
        .map_or_else(|| default.clone(), |(_, v)| v.clone())
}

/// Appends the tag columns, each value repeated over `n` rows.
fn with_tags(
    mut t: Table,
    columns: &[(&'static str, Value)],
    tags: &[(&'static str, Value)],
    n: usize,
) -> Table {
    for (name, default) in columns {
        t = t.column(name, tag_value(tags, name, default).repeat(n));
    }
    t
}

/// `summary.parquet`: one row per (summary space, metric).
pub fn summary(spaces: &[&SpaceReport], columns: &[(&'static str, Value)]) -> Table {
    let rows: Vec<_> = spaces
        .iter()
        .flat_map(|s| s.metrics.iter().map(move |m| (*s, m)))
        .collect();
    let col = |f: &dyn Fn(&SpaceReport, &crate::run::MetricStats) -> u64| -> Vec<u64> {
        rows.iter().map(|(s, m)| f(s, m)).collect()
    };
    let mut t = Table::new().str(
        "puzzle",
        rows.iter().map(|(s, _)| s.puzzle.clone()).collect(),
    );
    for (name, default) in columns {
        let values: Vec<Value> = rows
            .iter()
            .map(|(s, _)| tag_value(&s.tags, name, default))
            .collect();
        t = t.column(name, concat(&values));
    }
    t.str(
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
    .opt_u64("answer", rows.iter().map(|(_, m)| m.answer).collect())
}

/// The universes' tables: one summary row per universe (`summary.parquet` when the pipeline has
/// no spaces, else `universes.parquet`: `universe` and the family's counts), then each one's
/// own tables (two universes may not write the same file).
pub fn universes(
    reports: &[crate::run::UniverseReport],
    as_summary: bool,
) -> Result<Vec<(String, Table)>, StageError> {
    let invalid = |e: String| StageError::Invalid(e);
    let mut summary = Table::new().str("universe", reports.iter().map(|u| u.id.clone()).collect());
    if let Some(first) = reports.first() {
        for (k, (name, _)) in first.summary.iter().enumerate() {
            let values = reports
                .iter()
                .map(|u| u.summary.get(k).filter(|(n, _)| n == name).map(|(_, v)| *v))
                .collect::<Option<Vec<u64>>>()
                .ok_or_else(|| invalid("universes with other summary columns".into()))?;
            summary = summary.u64(name, values);
        }
    }
    let name = if as_summary {
        "summary.parquet"
    } else {
        "universes.parquet"
    };
    let mut out = vec![(name.to_owned(), summary)];
    for report in reports {
        let tables = report.result.tables();
        for (file, table) in tables {
            if out.iter().any(|(f, _)| *f == file) {
                return Err(invalid(format!("two universes write {file}")));
            }
            out.push((file, table));
        }
    }
    Ok(out)
}

/// `patterns.parquet` (one row per pattern database: its id, placements, how many the search
/// reached, the largest value, the sum of the values — the mean is `sum / reached` — and the
/// bits per stored value) and `pattern_histogram.parquet` (placements per value).
pub fn patterns(reports: &[crate::run::PatternReport]) -> (Table, Table) {
    let list = Table::new()
        .str("pattern", reports.iter().map(|p| p.id.clone()).collect())
        .u64("placements", reports.iter().map(|p| p.placements).collect())
        .u64(
            "reached",
            reports.iter().map(|p| p.counts.iter().sum()).collect(),
        )
        .u32("max", reports.iter().map(|p| p.max as u32).collect())
        .u64(
            "sum",
            reports
                .iter()
                .map(|p| {
                    p.counts
                        .iter()
                        .enumerate()
                        .map(|(v, &c)| v as u64 * c)
                        .sum()
                })
                .collect(),
        )
        .u32("bits", reports.iter().map(|p| p.bits).collect());
    let rows: Vec<(&str, u32, u64)> = reports
        .iter()
        .flat_map(|p| {
            p.counts
                .iter()
                .enumerate()
                .map(move |(v, &c)| (p.id.as_str(), v as u32, c))
        })
        .collect();
    let histogram = Table::new()
        .str("pattern", rows.iter().map(|r| r.0.to_owned()).collect())
        .u32("value", rows.iter().map(|r| r.1).collect())
        .u64("placements", rows.iter().map(|r| r.2).collect());
    (list, histogram)
}

/// A column of values of one type.
fn concat(values: &[Value]) -> huarong_core::Column {
    use huarong_core::Column;
    match values.first() {
        Some(Value::Bool(_)) => Column::Bool(
            values
                .iter()
                .map(|v| matches!(v, Value::Bool(true)))
                .collect(),
        ),
        Some(Value::U64(_)) => Column::U64(
            values
                .iter()
                .map(|v| if let Value::U64(x) = v { *x } else { 0 })
                .collect(),
        ),
        _ => Column::Str(
            values
                .iter()
                .map(|v| match v {
                    Value::Str(s) => s.clone(),
                    Value::Bool(b) => b.to_string(),
                    Value::U64(x) => x.to_string(),
                })
                .collect(),
        ),
    }
}

/// `records.parquet`: the family's records with their layout, space, piece set, moves and
/// component size.
pub fn records(records: &[Record], views: &[SpaceView<'_>]) -> Table {
    let view = |r: &Record| &views[r.space];
    let metric = |r: &Record| &views[r.space].metrics[r.metric];
    Table::new()
        .str("name", records.iter().map(|r| r.name.clone()).collect())
        .str(
            "layout",
            records
                .par_iter()
                .map(|r| view(r).puzzle().render(view(r).codes.get(r.state as usize)))
                .collect(),
        )
        .str(
            "space",
            records
                .iter()
                .map(|r| view(r).puzzle().space_id())
                .collect(),
        )
        .str(
            "piece_set",
            records
                .iter()
                .map(|r| match view(r).spec.tag("piece_set") {
                    Some(Value::Str(s)) => s.clone(),
                    _ => String::new(),
                })
                .collect(),
        )
        .str(
            "metric",
            records.iter().map(|r| metric(r).name.to_owned()).collect(),
        )
        .opt_u32(
            "moves",
            records
                .iter()
                .map(|r| metric(r).distance(r.state))
                .collect(),
        )
        .u64(
            "component_size",
            records
                .iter()
                .map(|r| metric(r).component_size(r.state))
                .collect(),
        )
}

/// `states-<space>.parquet`: one row per state, streamed in batches; each batch's columns are
/// built (in parallel) while the previous batch is encoded.
pub fn write_states(
    view: &SpaceView<'_>,
    goals: &[bool],
    shared: &SharedIds,
    path: &Path,
) -> Result<u64, ExportError> {
    let n = view.codes.len();
    let mut w = TableWriter::create(path)?;
    let batch_at = |start| states_batch(view, goals, shared, start);
    let mut pending = (n > 0).then(|| batch_at(0));
    let mut start = 0;
    while let Some(batch) = pending.take() {
        start += BATCH;
        let (written, next) =
            rayon::join(|| w.write(batch), || (start < n).then(|| batch_at(start)));
        written?;
        pending = next;
    }
    Ok(w.finish()?)
}

/// The rows `start..start + BATCH` of a states table.
fn states_batch(view: &SpaceView<'_>, goals: &[bool], shared: &SharedIds, start: usize) -> Table {
    let end = (start + BATCH).min(view.codes.len());
    let puzzle = view.puzzle();
    let mut t = Table::new().index("index", start as u32..end as u32);
    t = match view.spec.key {
        StateKey::Layout => t.str(
            "layout",
            (start..end)
                .into_par_iter()
                .map(|i| puzzle.render(view.codes.get(i)))
                .collect(),
        ),
        StateKey::Block { name, per } => {
            // Runs of `per` equal blocks, not a division per row.
            let mut blocks = Vec::with_capacity(end - start);
            let mut i = start as u64;
            while i < end as u64 {
                let run_end = ((i / per + 1) * per).min(end as u64);
                blocks.resize(blocks.len() + (run_end - i) as usize, (i / per) as u32);
                i = run_end;
            }
            t.u32(name, blocks)
        }
    };
    for &(name, text) in &view.spec.code_columns {
        t = t.str(
            name,
            (start..end)
                .into_par_iter()
                .map(|i| text(view.codes.get(i)))
                .collect(),
        );
    }
    t = t.bool("goal", goals[start..end].to_vec());
    let metrics = &view.metrics;
    // Metrics whose moves join the same positions have the same ids: held once.
    for (j, (m, &first)) in metrics.iter().zip(&shared.0).enumerate() {
        let name = format!("component_{}", m.name);
        t = if first == j {
            t.u32(&name, m.components[start..end].to_vec())
        } else {
            t.copy(&name, &format!("component_{}", metrics[first].name))
        };
    }
    for m in &view.metrics {
        t = t.packed_u32(
            &format!("distance_{}", m.name),
            m.distances[start..end]
                .par_iter()
                .map(|&d| {
                    if d == UNREACHABLE {
                        huarong_core::table::NULL_U32
                    } else {
                        d as u32
                    }
                })
                .collect(),
        );
    }
    t
}

/// Goal states per component of each metric, counted once per distinct table of component ids
/// (metrics whose moves join the same positions share theirs: Huarong Dao's three).
#[derive(Debug)]
pub struct GoalCounts {
    /// Per metric, the first metric with the same component ids.
    first: SharedIds,
    /// The counts of each metric that is its own `first`.
    counts: Vec<Option<Vec<u64>>>,
}

impl GoalCounts {
    pub fn new(view: &SpaceView<'_>, goals: &[bool], shared: &SharedIds) -> Self {
        let metrics = &view.metrics;
        let first = shared.clone();
        let counts = metrics
            .par_iter()
            .enumerate()
            .map(|(j, m)| {
                (first.0[j] == j).then(|| goal_states(m.components, goals, m.component_sizes.len()))
            })
            .collect();
        GoalCounts { first, counts }
    }

    /// Metric `j`'s goal states per component.
    fn of(&self, j: usize) -> &[u64] {
        self.counts[self.first.0[j]]
            .as_deref()
            .expect("the first metric of a component table counts its goals")
    }
}

/// `components-<space>.parquet`: one row per (metric, component).
pub fn write_components(
    view: &SpaceView<'_>,
    goal_counts: &GoalCounts,
    path: &Path,
) -> Result<u64, ExportError> {
    let puzzle = view.puzzle();
    let metrics = &view.metrics;
    let first = &goal_counts.first.0;
    // One pass over each distinct table of component ids, for all metrics sharing it.
    let mut best: Vec<Vec<u32>> = vec![Vec::new(); metrics.len()];
    let groups: Vec<(usize, Vec<usize>)> = (0..metrics.len())
        .filter(|&j| first[j] == j)
        .map(|j| (j, (j..metrics.len()).filter(|&i| first[i] == j).collect()))
        .collect();
    let found: Vec<Vec<Vec<u32>>> = groups
        .par_iter()
        .map(|(j, members)| {
            let distances: Vec<&[u16]> = members.iter().map(|&i| metrics[i].distances).collect();
            let m = &metrics[*j];
            representatives_of(m.components, &distances, m.component_sizes.len())
        })
        .collect();
    for ((_, members), found) in groups.iter().zip(found) {
        for (&i, b) in members.iter().zip(found) {
            best[i] = b;
        }
    }
    // Each representative rendered once: a metric sharing its components with an earlier one
    // takes that one's layout where their representatives agree.
    let mut layouts: Vec<Vec<String>> = Vec::with_capacity(metrics.len());
    for (j, best_j) in best.iter().enumerate() {
        let earlier = (first[j] != j).then(|| (&best[first[j]], &layouts[first[j]]));
        let rendered = best_j
            .par_iter()
            .enumerate()
            .map(|(c, &i)| match earlier {
                Some((b, l)) if b[c] == i => l[c].clone(),
                _ => puzzle.render(view.codes.get(i as usize)),
            })
            .collect();
        layouts.push(rendered);
    }
    let tables: Vec<Table> = metrics
        .iter()
        .zip(best)
        .zip(layouts)
        .enumerate()
        .map(|(j, ((m, best), layouts))| {
            let k = m.component_sizes.len();
            let max_distance: Vec<Option<u32>> = best
                .iter()
                .map(|&i| distance(m.distances[i as usize]))
                .collect();
            let goal_states = goal_counts.of(j).to_vec();
            Table::new()
                .str("metric", vec![m.name.to_owned(); k])
                .index("component", 0..k as u32)
                .u64("size", m.component_sizes.to_vec())
                .u64("goal_states", goal_states)
                .opt_u32("max_distance", max_distance)
                .str("representative", layouts)
        })
        .collect();
    let mut w = TableWriter::create(path)?;
    for t in tables {
        w.write(t)?;
    }
    Ok(w.finish()?)
}

/// Per metric of a space, the first metric with the same table of component ids (often the
/// same slice): metrics whose moves join the same positions share theirs. Compared once per
/// space, for its states table and its goal counts.
#[derive(Debug, Clone)]
pub struct SharedIds(Vec<usize>);

impl SharedIds {
    pub fn new(view: &SpaceView<'_>) -> Self {
        let ids: Vec<&[u32]> = view.metrics.iter().map(|m| m.components).collect();
        SharedIds(first_same(&ids))
    }
}

/// Per table of component ids, the first of `ids` equal to it, compared by chunks in parallel.
fn first_same(ids: &[&[u32]]) -> Vec<usize> {
    let same = |a: &[u32], b: &[u32]| {
        std::ptr::eq(a, b)
            || a.len() == b.len()
                && (a.par_chunks(1 << 16).zip(b.par_chunks(1 << 16))).all(|(x, y)| x == y)
    };
    (0..ids.len())
        .map(|j| (0..j).find(|&i| same(ids[i], ids[j])).unwrap_or(j))
        .collect()
}

/// Goal states per component.
fn goal_states(ids: &[u32], goals: &[bool], k: usize) -> Vec<u64> {
    let mut counts = vec![0u64; k];
    for i in crate::run::goal_indices(goals) {
        counts[ids[i as usize] as usize] += 1;
    }
    counts
}

/// `component_sizes.parquet` rows of one space: per metric and component size, how many
/// components have that size and how many of those hold a goal.
pub fn component_sizes(
    view: &SpaceView<'_>,
    goal_counts: &GoalCounts,
    columns: &[(&'static str, Value)],
) -> Table {
    let (mut metric, mut size, mut count, mut with_goal) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (j, m) in view.metrics.iter().enumerate() {
        let goal_states = goal_counts.of(j);
        let mut by_size: std::collections::BTreeMap<u64, (u64, u64)> = Default::default();
        for (c, &sz) in m.component_sizes.iter().enumerate() {
            let e = by_size.entry(sz).or_default();
            e.0 += 1;
            e.1 += u64::from(goal_states[c] > 0);
        }
        for (sz, (n, g)) in by_size {
            metric.push(m.name.to_owned());
            size.push(sz);
            count.push(n);
            with_goal.push(g);
        }
    }
    let n = metric.len();
    let t = Table::new().str("space", vec![view.puzzle().space_id(); n]);
    with_tags(t, columns, &view.spec.tags, n)
        .str("metric", metric)
        .u64("size", size)
        .u64("components", count)
        .u64("goal_components", with_goal)
}

/// `distance_histogram.parquet` and `degree_histogram.parquet` rows of one space.
pub fn histograms(report: &SpaceReport, columns: &[(&'static str, Value)]) -> (Table, Table) {
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
        let t = Table::new().str("space", vec![report.space_id.clone(); n]);
        with_tags(t, columns, &report.tags, n)
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

#[cfg(test)]
mod tests {
    use super::*;
    use atlas::farthest::representatives;

    #[test]
    fn goals_are_counted_per_component_at_their_indices_only() {
        // Goals in the first and third blocks of the parallel scan, none in the second, one
        // at the very end; the ids elsewhere are out of range and must not be read.
        let n = 3 * (1 << 16) + 5;
        let mut goals = vec![false; n];
        let mut ids = vec![u32::MAX; n];
        for (i, c) in [(0, 1), (70, 0), (2 * (1 << 16) + 3, 1), (n - 1, 2)] {
            goals[i] = true;
            ids[i] = c;
        }
        assert_eq!(
            crate::run::goal_indices(&goals),
            vec![0, 70, 2 * (1 << 16) + 3, n as u32 - 1]
        );
        assert_eq!(goal_states(&ids, &goals, 4), vec![1, 2, 1, 0]);
        assert!(crate::run::goal_indices(&[false; 10]).is_empty());
    }

    #[test]
    fn equal_tables_of_component_ids_are_found_whether_shared_or_copied() {
        // Longer than one chunk of the parallel comparison; a copy, a table differing in its
        // last id only, and one of another length.
        let a: Vec<u32> = (0..200_000u32).map(|i| i / 7).collect();
        let copy = a.clone();
        let mut last = a.clone();
        *last.last_mut().unwrap() += 1;
        let short = &a[..199_999];
        assert_eq!(first_same(&[&a, &a, &copy]), vec![0, 0, 0]);
        assert_eq!(first_same(&[&a, &last, &copy, short]), vec![0, 1, 0, 3]);
        assert_eq!(first_same(&[&last, &a, &last]), vec![0, 1, 0]);
    }

    #[test]
    fn representatives_are_the_farthest_solvable_members_else_the_smallest() {
        let ids = [0, 0, 1, 1, 0, 2];
        let d = [3, 7, UNREACHABLE, UNREACHABLE, 7, 0];
        assert_eq!(representatives(&ids, &d, 3), vec![1, 2, 5]);
        // Several tables over the same ids in one pass (in chunks of three): each as alone.
        let tables: Vec<Vec<u16>> = (0..5u16)
            .map(|t| {
                (0..6u16)
                    .map(|i| {
                        if (i + t) % 4 == 0 {
                            UNREACHABLE
                        } else {
                            (i * 7 + t) % 5
                        }
                    })
                    .collect()
            })
            .collect();
        let refs: Vec<&[u16]> = tables.iter().map(|t| &t[..]).collect();
        let alone: Vec<Vec<u32>> = refs.iter().map(|t| representatives(&ids, t, 3)).collect();
        assert_eq!(representatives_of(&ids, &refs, 3), alone);
        assert_eq!(
            goal_states(&ids, &[true, false, false, true, true, false], 3),
            vec![2, 1, 0]
        );
    }
}
