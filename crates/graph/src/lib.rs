//! Stage 2, **graph**: the full move graph of a space in one metric, as a memory-mapped CSR.
//!
//! The artifact has two sections: `offsets` (`u64`, one per state plus one) and `targets` (`u32`
//! dense indices). Node `u`'s neighbours are `targets[offsets[u]..offsets[u + 1]]`, sorted
//! ascending and free of duplicates, so the bytes are the same whatever the thread count.
//!
//! Spaces up to 4M states (`ONE_PASS_STATES`) are built in one parallel pass: each chunk of states
//! keeps its sorted neighbour lists in memory, then the offsets are laid out and every chunk is
//! written in place. Larger spaces take two parallel passes over the states, holding nothing
//! graph-sized: count the neighbours (to lay out the offsets), then generate them again straight
//! into their place in the targets — generating twice costs less than holding every neighbour
//! list in memory once more.
//!
//! [`Csr`] implements petgraph's visit traits, so petgraph's algorithms run on it directly.

use std::path::Path;

use enumerate::StateTable;
use fixedbitset::FixedBitSet;
use huarong_core::{
    Artifact, ArtifactWriter, Expect, Fingerprint, Header, Outcome, Puzzle, Reporter, Section,
    StageError, reuse_or_build,
};
use petgraph::visit::{
    Data, EdgeRef, GraphBase, GraphProp, IntoEdgeReferences, IntoNeighbors, IntoNodeIdentifiers,
    NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
};
use rayon::prelude::*;

/// Artifact kind of move graphs.
pub const KIND: &str = "csr";
const VERSION: u32 = 1;
const CHUNK: usize = 1 << 14;

/// The fingerprint of the graph of `puzzle` in `metric` built over the state table whose
/// payload checksum is `states_checksum`: the stage and its version, the puzzle's name, space id
/// and parameters, the metric's name, the table's checksum and whether arcs are one-way.
pub fn fingerprint<P: Puzzle + ?Sized>(puzzle: &P, metric: usize, states_checksum: u64) -> u64 {
    let mut fp = Fingerprint::new("graph", VERSION);
    huarong_core::add_space(&mut fp, puzzle);
    fp.add_str(puzzle.metrics()[metric])
        .add_u64(states_checksum)
        .add_bool(puzzle.directed());
    fp.finish()
}

/// A verified move graph in compressed sparse row form.
#[derive(Debug)]
pub struct Csr {
    artifact: Artifact,
    directed: bool,
}

impl Csr {
    /// Opens and verifies the graph of `puzzle` in `metric` at `path`.
    pub fn open<P: Puzzle + ?Sized>(
        path: &Path,
        puzzle: &P,
        metric: usize,
        states: &StateTable,
    ) -> Result<Self, StageError> {
        Self::open_with(
            path,
            fingerprint(puzzle, metric, states.checksum()),
            puzzle.directed(),
        )
    }

    /// Opens and verifies a graph that must carry `fingerprint`.
    pub fn open_with(path: &Path, fingerprint: u64, directed: bool) -> Result<Self, StageError> {
        let expect = Expect {
            kind: KIND,
            fingerprint: Some(fingerprint),
        };
        Ok(Csr {
            artifact: Artifact::open(path, expect)?,
            directed,
        })
    }

    pub fn offsets(&self) -> &[u64] {
        self.artifact.section(0)
    }

    pub fn targets(&self) -> &[u32] {
        self.artifact.section(1)
    }

    /// Number of states.
    pub fn node_count(&self) -> usize {
        self.offsets().len() - 1
    }

    /// Number of stored (directed) adjacency entries.
    pub fn arc_count(&self) -> u64 {
        self.targets().len() as u64
    }

    /// Edges as `summary.parquet` counts them: undirected edges, or arcs for a directed puzzle.
    pub fn edge_count(&self) -> u64 {
        if self.directed {
            self.arc_count()
        } else {
            self.arc_count() / 2
        }
    }

    pub fn is_directed(&self) -> bool {
        self.directed
    }

    #[inline]
    pub fn neighbors(&self, u: u32) -> &[u32] {
        let o = self.offsets();
        &self.targets()[o[u as usize] as usize..o[u as usize + 1] as usize]
    }

    /// How many states have each out-degree (`counts[d]` states have `d` moves).
    pub fn degree_histogram(&self) -> Vec<u64> {
        let o = self.offsets();
        huarong_core::tally(self.node_count(), |u| Some((o[u + 1] - o[u]) as usize))
    }

    /// Plain slices of the two sections, for hot loops.
    pub fn view(&self) -> CsrView<'_> {
        CsrView {
            offsets: self.offsets(),
            targets: self.targets(),
        }
    }

    #[inline]
    pub fn degree(&self, u: u32) -> usize {
        let o = self.offsets();
        (o[u as usize + 1] - o[u as usize]) as usize
    }

    pub fn checksum(&self) -> u64 {
        self.artifact.header().checksum
    }

    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }
}

/// The offsets and targets of a [`Csr`] as plain slices.
#[derive(Debug, Clone, Copy)]
pub struct CsrView<'a> {
    pub offsets: &'a [u64],
    pub targets: &'a [u32],
}

impl<'a> CsrView<'a> {
    #[inline]
    pub fn neighbors(&self, u: u32) -> &'a [u32] {
        let (a, b) = (self.offsets[u as usize], self.offsets[u as usize + 1]);
        &self.targets[a as usize..b as usize]
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }
}

/// Neighbour indices of state `i`, sorted and deduplicated.
fn neighbors_of<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
    metric: usize,
    i: usize,
    out: &mut Vec<u32>,
) {
    out.clear();
    puzzle.neighbor_indices(i as u64, code_of(puzzle, states, i), metric, lookup, out);
    out.sort_unstable();
    out.dedup();
}

/// The code of state `i`: unranked for ranked spaces (leaving the table's pages untouched),
/// read from the table otherwise.
#[inline]
fn code_of<P: Puzzle + ?Sized>(puzzle: &P, states: &StateTable, i: usize) -> u64 {
    if puzzle.ranked_len().is_some() {
        puzzle.unrank(i as u64)
    } else {
        states.codes()[i]
    }
}

/// Builds (or reuses) the graph of `puzzle` in `metric` at `path`.
pub fn run<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    metric: usize,
    path: &Path,
    force: bool,
    reporter: &Reporter,
) -> Result<(Csr, Outcome), StageError> {
    let fp = fingerprint(puzzle, metric, states.checksum());
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let label = format!(
        "{} {} {}",
        puzzle.name(),
        puzzle.space_id(),
        puzzle.metrics()[metric]
    );
    let (artifact, outcome) = reuse_or_build(path, expect, force, |path| {
        let target = Target {
            metric,
            path,
            fp,
            label,
        };
        write(puzzle, states, &target, reporter)
    })?;
    Ok((
        Csr {
            artifact,
            directed: puzzle.directed(),
        },
        outcome,
    ))
}

/// The verified graph of `puzzle` in `metric` at `path`, or the outcome building it will have
/// (with `force`, or when it is missing, stale or corrupt).
pub fn reuse<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    metric: usize,
    path: &Path,
    force: bool,
) -> Result<Csr, Outcome> {
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fingerprint(puzzle, metric, states.checksum())),
    };
    huarong_core::try_reuse(path, expect, force).map(|artifact| Csr {
        artifact,
        directed: puzzle.directed(),
    })
}

/// Whether [`build_many`] builds several graphs of a space of `states` states in one pass.
pub fn one_pass(states: usize) -> bool {
    states <= ONE_PASS_STATES
}

/// Builds the graphs of `puzzle` in each `(metric, path)` of `graphs`: in one pass over the
/// states, each successor generated once for all the metrics that reach it
/// ([`Puzzle::neighbor_indices_in`]), when the space is small enough ([`one_pass`]); one
/// after the other otherwise. The artifacts are the same as [`run`]'s.
pub fn build_many<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    graphs: &[(usize, &Path)],
    reporter: &Reporter,
) -> Result<Vec<Csr>, StageError> {
    let targets: Vec<Target<'_>> = graphs
        .iter()
        .map(|&(metric, path)| Target::new(puzzle, states, metric, path))
        .collect();
    let headers = if one_pass(states.len()) {
        let names: Vec<&str> = graphs.iter().map(|&(m, _)| puzzle.metrics()[m]).collect();
        let bar = reporter.bar(
            2 * states.len() as u64,
            format!("graph {} {}", puzzle.space_id(), names.join(",")),
        );
        write_one_pass(puzzle, states, &targets, &lookup_in(puzzle, states), &bar)?
    } else {
        targets
            .iter()
            .map(|t| write(puzzle, states, t, reporter))
            .collect::<Result<_, _>>()?
    };
    targets
        .iter()
        .zip(&headers)
        .map(|(t, h)| {
            Ok(Csr {
                artifact: Artifact::open_written(t.path, h)?,
                directed: puzzle.directed(),
            })
        })
        .collect()
}

/// One graph to write: its metric, file, fingerprint and label.
struct Target<'a> {
    metric: usize,
    path: &'a Path,
    fp: u64,
    label: String,
}

impl<'a> Target<'a> {
    fn new<P: Puzzle + ?Sized>(
        puzzle: &P,
        states: &StateTable,
        metric: usize,
        path: &'a Path,
    ) -> Self {
        Target {
            metric,
            path,
            fp: fingerprint(puzzle, metric, states.checksum()),
            label: format!(
                "{} {} {}",
                puzzle.name(),
                puzzle.space_id(),
                puzzle.metrics()[metric]
            ),
        }
    }
}

/// Code → dense index: the puzzle's ranking for ranked spaces, the state table otherwise.
fn lookup_in<'a, P: Puzzle + ?Sized>(
    puzzle: &'a P,
    states: &'a StateTable,
) -> impl Fn(u64) -> Option<u32> + Sync + 'a {
    let ranked = puzzle.ranked_len().is_some();
    move |code: u64| -> Option<u32> {
        if ranked {
            puzzle.rank(code).map(|i| i as u32)
        } else {
            states.lookup(code)
        }
    }
}

fn write<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    target: &Target<'_>,
    reporter: &Reporter,
) -> Result<Header, StageError> {
    let Target {
        metric,
        path,
        fp,
        ref label,
    } = *target;
    let n = states.len();
    let lookup = lookup_in(puzzle, states);
    let bar = reporter.bar(
        2 * n as u64,
        format!("graph {} {}", puzzle.space_id(), puzzle.metrics()[metric]),
    );

    if one_pass(n) {
        let mut headers =
            write_one_pass(puzzle, states, std::slice::from_ref(target), &lookup, &bar)?;
        return Ok(headers.remove(0));
    }

    // Pass 1: the number of arcs leaving each chunk of states.
    let chunks = n.div_ceil(CHUNK);
    let chunk_arcs: Vec<u64> = (0..chunks)
        .into_par_iter()
        .map_init(Vec::new, |buf, k| {
            let mut arcs = 0u64;
            for i in k * CHUNK..((k + 1) * CHUNK).min(n) {
                let code = code_of(puzzle, states, i);
                arcs += match puzzle.distinct_degree(i as u64, code, metric) {
                    Some(d) => d as u64,
                    None => {
                        neighbors_of(puzzle, states, &lookup, metric, i, buf);
                        buf.len() as u64
                    }
                };
            }
            bar.inc((((k + 1) * CHUNK).min(n) - k * CHUNK) as u64);
            arcs
        })
        .collect();
    let mut chunk_start = Vec::with_capacity(chunks + 1);
    chunk_start.push(0u64);
    for a in &chunk_arcs {
        chunk_start.push(chunk_start.last().unwrap() + a);
    }
    let arcs = chunk_start[chunks];

    let w = ArtifactWriter::create(
        path,
        KIND,
        fp,
        label,
        &[Section::of::<u64>(n as u64 + 1), Section::of::<u32>(arcs)],
    )?;
    w.write(0, 0, &[0u64])?;

    // Pass 2: each chunk generates its neighbour lists and writes its own slices of the offsets
    // and targets; nothing the size of the graph is held in memory.
    (0..chunks).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new(), Vec::new()),
        |(buf, offs, targets), k| {
            let (start, end) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
            offs.clear();
            targets.clear();
            let mut at = chunk_start[k];
            for i in start..end {
                neighbors_of(puzzle, states, &lookup, metric, i, buf);
                targets.extend_from_slice(buf);
                at += buf.len() as u64;
                offs.push(at);
            }
            if at != chunk_start[k + 1] {
                return Err(StageError::Invalid(format!(
                    "{label}: neighbour generation is not deterministic (chunk {k})"
                )));
            }
            w.write(0, start as u64 + 1, offs)?;
            w.write(1, chunk_start[k], targets)?;
            bar.inc((end - start) as u64);
            Ok(())
        },
    )?;
    bar.finish();
    Ok(w.finish()?)
}

/// Graphs of at most this many states are generated in one pass, their neighbour lists held in
/// memory per chunk (at most a few hundred MB); larger ones count first and write in a second
/// pass, holding nothing graph-sized.
const ONE_PASS_STATES: usize = 1 << 22;

/// Writes the graph of every target in one parallel pass over the states: each chunk keeps
/// its states' sorted neighbour lists per target, then every artifact is laid out and written.
fn write_one_pass<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    targets: &[Target<'_>],
    lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
    bar: &huarong_core::Progress,
) -> Result<Vec<Header>, StageError> {
    let n = states.len();
    let metrics: Vec<usize> = targets.iter().map(|t| t.metric).collect();
    // Per chunk, per target: each state's degree and the chunk's neighbour lists.
    let chunks: Vec<Vec<(Vec<u64>, Vec<u32>)>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(
            || vec![Vec::new(); metrics.len()],
            |bufs, k| {
                let (start, end) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
                let mut lists = vec![(Vec::with_capacity(end - start), Vec::new()); metrics.len()];
                for i in start..end {
                    bufs.iter_mut().for_each(Vec::clear);
                    let code = code_of(puzzle, states, i);
                    puzzle.neighbor_indices_in(i as u64, code, &metrics, lookup, bufs);
                    for (buf, (degrees, targets)) in bufs.iter_mut().zip(&mut lists) {
                        buf.sort_unstable();
                        buf.dedup();
                        targets.extend_from_slice(buf);
                        degrees.push(buf.len() as u64);
                    }
                }
                bar.inc(2 * (end - start) as u64);
                lists
            },
        )
        .collect();
    let mut headers = Vec::with_capacity(targets.len());
    for (t, target) in targets.iter().enumerate() {
        let arcs: u64 = chunks.iter().map(|c| c[t].1.len() as u64).sum();
        let w = ArtifactWriter::create(
            target.path,
            KIND,
            target.fp,
            &target.label,
            &[Section::of::<u64>(n as u64 + 1), Section::of::<u32>(arcs)],
        )?;
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0u64);
        let mut at = 0u64;
        for chunk in &chunks {
            let (degrees, targets) = &chunk[t];
            w.write(1, at, targets)?;
            for d in degrees {
                at += d;
                offsets.push(at);
            }
        }
        debug_assert_eq!(offsets.len(), n + 1);
        w.write(0, 0, &offsets)?;
        headers.push(w.finish()?);
    }
    bar.finish();
    Ok(headers)
}

// ---- petgraph integration -------------------------------------------------------------------

impl GraphBase for Csr {
    type NodeId = u32;
    type EdgeId = (u32, u32);
}

impl Data for Csr {
    type NodeWeight = ();
    type EdgeWeight = ();
}

impl NodeCount for Csr {
    fn node_count(&self) -> usize {
        Csr::node_count(self)
    }
}

impl NodeIndexable for Csr {
    fn node_bound(&self) -> usize {
        Csr::node_count(self)
    }

    fn to_index(&self, a: u32) -> usize {
        a as usize
    }

    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

impl NodeCompactIndexable for Csr {}

impl Visitable for Csr {
    type Map = FixedBitSet;

    fn visit_map(&self) -> FixedBitSet {
        FixedBitSet::with_capacity(Csr::node_count(self))
    }

    fn reset_map(&self, map: &mut FixedBitSet) {
        map.clear();
        map.grow(Csr::node_count(self));
    }
}

impl GraphProp for Csr {
    /// The CSR stores every arc; for undirected puzzles both directions are present.
    type EdgeType = petgraph::Directed;
}

impl<'a> IntoNeighbors for &'a Csr {
    type Neighbors = std::iter::Copied<std::slice::Iter<'a, u32>>;

    fn neighbors(self, a: u32) -> Self::Neighbors {
        Csr::neighbors(self, a).iter().copied()
    }
}

impl IntoNodeIdentifiers for &Csr {
    type NodeIdentifiers = std::ops::Range<u32>;

    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..Csr::node_count(self) as u32
    }
}

/// One arc of a [`Csr`], as petgraph sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arc {
    pub source: u32,
    pub target: u32,
}

impl EdgeRef for Arc {
    type NodeId = u32;
    type EdgeId = (u32, u32);
    type Weight = ();

    fn source(&self) -> u32 {
        self.source
    }

    fn target(&self) -> u32 {
        self.target
    }

    fn weight(&self) -> &() {
        &()
    }

    fn id(&self) -> (u32, u32) {
        (self.source, self.target)
    }
}

impl<'a> IntoEdgeReferences for &'a Csr {
    type EdgeRef = Arc;
    type EdgeReferences = Box<dyn Iterator<Item = Arc> + 'a>;

    fn edge_references(self) -> Self::EdgeReferences {
        Box::new((0..Csr::node_count(self) as u32).flat_map(move |u| {
            Csr::neighbors(self, u).iter().map(move |&v| Arc {
                source: u,
                target: v,
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use klotski::{PieceSet, Unlabeled};

    #[test]
    fn graph_is_symmetric_sorted_and_matches_moves() {
        let dir = tempfile::tempdir().unwrap();
        let u = Unlabeled::new(PieceSet::CLASSIC);
        let (states, _) =
            enumerate::run(&u, &dir.path().join("s"), false, &Reporter::quiet()).unwrap();
        for metric in 0..3 {
            let path = dir.path().join(format!("g{metric}"));
            let (g, o) = run(&u, &states, metric, &path, false, &Reporter::quiet()).unwrap();
            assert_eq!(o, Outcome::Built);
            assert_eq!(g.node_count(), 65_880);
            assert_eq!(g.arc_count() % 2, 0);
            for v in (0..g.node_count() as u32).step_by(7) {
                let nb = g.neighbors(v);
                assert!(nb.windows(2).all(|w| w[0] < w[1]));
                for &w in nb {
                    assert!(g.neighbors(w).binary_search(&v).is_ok());
                }
                let mut codes = Vec::new();
                u.successors(states.codes()[v as usize], metric, &mut codes);
                assert_eq!(codes.len(), nb.len());
            }
            let (_, o) = run(&u, &states, metric, &path, false, &Reporter::quiet()).unwrap();
            assert_eq!(o, Outcome::Reused);
        }
    }
}
