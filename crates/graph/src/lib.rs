//! Stage 2, **graph**: the full move graph of a space in one metric, as a memory-mapped CSR —
//! or, for a puzzle whose moves are cheaper to generate than to read back
//! ([`Puzzle::stores_graph`] is false), only its degree histogram, the later stages generating
//! each row again when they need it.
//!
//! A stored graph has two sections: `offsets` (one per state plus one: `u32` while the arcs fit
//! in 32 bits, `u64` beyond) and `targets` (`u32` dense indices). Node `u`'s neighbours are
//! `targets[offsets[u]..offsets[u + 1]]`, sorted ascending and free of duplicates, so the bytes
//! are the same whatever the thread count. A regenerated graph has one section of `u64`: its
//! own fingerprint (so its checksum, which the later stages' fingerprints carry, changes with
//! every input), the number of states, then how many states have each degree.
//!
//! Spaces up to 4M states (`ONE_PASS_STATES`) are built in one parallel pass: each chunk of states
//! keeps its sorted neighbour lists in memory, then the offsets are laid out and every chunk is
//! written in place. An undirected puzzle whose ranks follow its codes
//! ([`IndexedMoves::ranks_above`]) is asked only for the neighbours above each state, and the rows
//! are completed by those lists' mirror images: every edge is ranked once, not twice. Larger
//! spaces take two parallel passes over the states, holding nothing graph-sized: count the
//! neighbours (to lay out the offsets), then generate them again straight into their place in
//! the targets — generating twice costs less than holding every neighbour list in memory once
//! more.
//!
//! A graph that is not stored, of a space that fits one pass, is still generated in that one
//! pass (every metric's rows at once) and its rows are held in memory for the same run's later
//! stages ([`Csr::has_rows`]): they cost the moves once, and nothing is written but the degree
//! histogram.
//!
//! The later stages read rows through [`Rows`]: a stored or held graph's [`CsrView`], or
//! [`Moves`], which regenerates them for a graph opened again that is not stored. A stored or
//! held [`Csr`] implements petgraph's visit traits, so petgraph's algorithms run on it directly.

use std::path::Path;

pub mod cover;
pub use cover::{CoverView, Lifted};

use enumerate::StateTable;
use fixedbitset::FixedBitSet;
use huarong_core::indexed::{Indexed, Lookup};
use huarong_core::{
    BlockShifts, Fingerprint, IndexedMoves, Outcome, Puzzle, Reporter, indexed_moves,
};
use huarong_store::{
    Artifact, ArtifactWriter, Expect, Header, Section, StageError, reuse_or_build,
};
use petgraph::visit::{
    Data, EdgeRef, GraphBase, GraphProp, IntoEdgeReferences, IntoNeighbors, IntoNodeIdentifiers,
    NodeCompactIndexable, NodeCount, NodeIndexable, Visitable,
};
use rayon::prelude::*;

/// Artifact kind of move graphs.
pub const KIND: &str = "csr";
/// Version 3: covers ([`IndexedMoves::cover`]); 2: `u32` offsets while the arcs fit, graphs the
/// later stages regenerate.
const VERSION: u32 = 3;
const CHUNK: usize = 1 << 14;

/// The fingerprint of the graph of `puzzle` in `metric` built over the state table whose
/// payload checksum is `states_checksum`: the stage and its version, the puzzle's name, space id
/// and parameters, the metric's name, the table's checksum, whether arcs are one-way and
/// whether the graph is stored or regenerated.
pub fn fingerprint<P: Puzzle + ?Sized>(puzzle: &P, metric: usize, states_checksum: u64) -> u64 {
    let mut fp = Fingerprint::new("graph", VERSION);
    huarong_core::add_space(&mut fp, puzzle);
    fp.add_str(puzzle.metrics()[metric])
        .add_u64(states_checksum)
        .add_bool(puzzle.directed())
        .add_bool(puzzle.stores_graph())
        .add_bool(covers(puzzle, metric));
    fp.finish()
}

/// Whether a cover artifact's record and row section fit: labels within a `u32`, the rows
/// splitting as the record says (`base + 1` offsets, then as many targets as permutation ids).
fn cover_fits(artifact: &Artifact) -> bool {
    let info: &[u64] = artifact.section(0);
    let rows = artifact.header().sections[1].len;
    info[1] <= u32::MAX as u64
        && info[2]
            .checked_add(1)
            .is_some_and(|o| o <= rows && (rows - o).is_multiple_of(2))
}

/// Whether the graph of `puzzle` in `metric` is stored as its cover ([`IndexedMoves::cover`]; undirected
/// puzzles that store their graph).
fn covers<P: Puzzle + ?Sized>(puzzle: &P, metric: usize) -> bool {
    cover_of(puzzle, metric).is_some()
}

fn cover_of<P: Puzzle + ?Sized>(puzzle: &P, metric: usize) -> Option<huarong_core::Cover> {
    (!puzzle.directed() && puzzle.stores_graph())
        .then(|| indexed_moves(puzzle).cover(metric))
        .flatten()
}

/// How a graph's artifact holds its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Offsets and targets: the rows themselves.
    Stored,
    /// A cover of a base graph ([`CoverView`]): rows lifted from the base rows.
    Covered,
    /// Only the degree histogram: the rows are generated from the moves ([`Regenerated`]).
    Regenerated,
}

/// A stored graph's offsets: `u32` while the arcs fit in 32 bits, `u64` beyond.
#[derive(Debug, Clone, Copy)]
pub enum Offsets<'a> {
    Narrow(&'a [u32]),
    Wide(&'a [u64]),
}

impl Offsets<'_> {
    /// Offset `i`.
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        match self {
            Offsets::Narrow(o) => o[i] as usize,
            Offsets::Wide(o) => o[i] as usize,
        }
    }

    /// The half-open range of row `u` in the targets.
    #[inline]
    pub fn row(&self, u: usize) -> std::ops::Range<usize> {
        match self {
            Offsets::Narrow(o) => o[u] as usize..o[u + 1] as usize,
            Offsets::Wide(o) => o[u] as usize..o[u + 1] as usize,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Offsets::Narrow(o) => o.len(),
            Offsets::Wide(o) => o.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A verified move graph: stored in compressed sparse row form, or regenerated (see the crate
/// documentation).
#[derive(Debug)]
pub struct Csr {
    artifact: Artifact,
    directed: bool,
    /// The rows of a graph that is not stored, when this run's graph stage generated them
    /// ([`Held`]).
    held: Option<Held>,
}

/// The rows of a graph that is not stored, generated once by this run's graph stage and held
/// in memory for the later stages of the same run: a space small enough for one pass
/// ([`one_pass`]) costs its moves once instead of once per stage and search level. A graph
/// reopened from its artifact has none; its rows are regenerated ([`Regenerated`]).
#[derive(Debug)]
struct Held {
    offsets: HeldOffsets,
    targets: Vec<u32>,
}

#[derive(Debug)]
enum HeldOffsets {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Held {
    /// The rows of each chunk's degrees and neighbour lists, in state order.
    fn new<'a>(chunks: impl Iterator<Item = (&'a [u32], &'a [u32])> + Clone) -> Held {
        let arcs: usize = chunks.clone().map(|(_, t)| t.len()).sum();
        let mut targets = Vec::with_capacity(arcs);
        for (_, chunk) in chunks.clone() {
            targets.extend_from_slice(chunk);
        }
        let degrees = chunks.flat_map(|(d, _)| d.iter().copied());
        let offsets = if narrow(arcs as u64) {
            HeldOffsets::Narrow(running(degrees))
        } else {
            HeldOffsets::Wide(running(degrees))
        };
        Held { offsets, targets }
    }

    fn offsets(&self) -> Offsets<'_> {
        match &self.offsets {
            HeldOffsets::Narrow(o) => Offsets::Narrow(o),
            HeldOffsets::Wide(o) => Offsets::Wide(o),
        }
    }
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
        Self::new(Artifact::open(path, expect)?, directed)
    }

    /// A graph from its verified artifact, after checking the sections have a graph's shape.
    fn new(artifact: Artifact, directed: bool) -> Result<Self, StageError> {
        let h = artifact.header();
        let shape = h.sections.iter().map(|s| s.elem_size).collect::<Vec<_>>();
        let info_ok = || {
            let info: &[u64] = artifact.section(0);
            info.len() >= 2 && info[0] == h.fingerprint
        };
        let ok = match shape[..] {
            [4 | 8, 4] => h.sections[0].len >= 1,
            [8] => info_ok(),
            [8, 4, 4] => info_ok() && h.sections[0].len == 3 && cover_fits(&artifact),
            _ => false,
        };
        if !ok {
            return Err(StageError::Invalid(format!(
                "{}: not a move graph (sections {:?})",
                artifact.path().display(),
                h.sections
            )));
        }
        let csr = Csr {
            artifact,
            directed,
            held: None,
        };
        if let Some(cover) = csr.cover() {
            let bad = |why: String| {
                StageError::Invalid(format!(
                    "{}: not a cover: {why}",
                    csr.artifact.path().display()
                ))
            };
            if directed {
                return Err(bad("a directed graph is stored whole".into()));
            }
            cover.check().map_err(bad)?;
        }
        Ok(csr)
    }

    /// How the artifact holds the rows.
    pub fn form(&self) -> Form {
        match self.artifact.header().sections.len() {
            2 => Form::Stored,
            3 => Form::Covered,
            _ => Form::Regenerated,
        }
    }

    /// Whether the rows are stored as a CSR (`false`: a cover, or regenerated, [`Moves`]).
    pub fn is_stored(&self) -> bool {
        self.form() == Form::Stored
    }

    /// Whether the rows are at hand as a CSR: stored, or held from this run's graph stage
    /// ([`Csr::view`], [`Csr::neighbors`] read them).
    pub fn has_rows(&self) -> bool {
        self.is_stored() || self.held.is_some()
    }

    /// The cover of a graph stored as one.
    pub fn cover(&self) -> Option<CoverView<'_>> {
        (self.form() == Form::Covered).then(|| {
            let info: &[u64] = self.artifact.section(0);
            let rows: &[u32] = self.artifact.section(1);
            let (offsets, arcs) = rows.split_at(info[2] as usize + 1);
            let (targets, shift_of_arc) = arcs.split_at(arcs.len() / 2);
            CoverView {
                fiber: info[1] as u32,
                offsets,
                targets,
                shift_of_arc,
                shifts: self.artifact.section(2),
            }
        })
    }

    /// A regenerated graph's record: fingerprint, states, degree histogram.
    fn info(&self) -> Option<&[u64]> {
        (self.form() == Form::Regenerated).then(|| self.artifact.section(0))
    }

    /// The offsets of a stored or held graph (empty for another form).
    pub fn offsets(&self) -> Offsets<'_> {
        if let Some(held) = &self.held {
            return held.offsets();
        }
        match self.artifact.header().sections[..] {
            [o, _] if o.elem_size == 4 => Offsets::Narrow(self.artifact.section(0)),
            [_, _] => Offsets::Wide(self.artifact.section(0)),
            _ => Offsets::Narrow(&[]),
        }
    }

    /// The targets of a stored or held graph (empty for another form).
    pub fn targets(&self) -> &[u32] {
        if let Some(held) = &self.held {
            &held.targets
        } else if self.is_stored() {
            self.artifact.section(1)
        } else {
            &[]
        }
    }

    /// Number of states.
    pub fn node_count(&self) -> usize {
        if let Some(c) = self.cover() {
            return c.node_count();
        }
        match self.info() {
            Some(info) => info[1] as usize,
            None => self.offsets().len() - 1,
        }
    }

    /// Number of (directed) adjacency entries.
    pub fn arc_count(&self) -> u64 {
        if let Some(c) = self.cover() {
            return c.arc_count();
        }
        match self.info() {
            Some(info) => info[2..]
                .iter()
                .enumerate()
                .map(|(d, &c)| d as u64 * c)
                .sum(),
            None => self.targets().len() as u64,
        }
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

    /// The neighbours of `u` in a stored or held graph (panics on a regenerated one: use
    /// [`Csr::rows`]).
    #[inline]
    pub fn neighbors(&self, u: u32) -> &[u32] {
        &self.targets()[self.offsets().row(u as usize)]
    }

    /// How many states have each out-degree (`counts[d]` states have `d` moves).
    pub fn degree_histogram(&self) -> Vec<u64> {
        if let Some(c) = self.cover() {
            return c.degree_histogram();
        }
        match self.info() {
            Some(info) => info[2..].to_vec(),
            None => {
                let o = self.offsets();
                huarong_core::tally(self.node_count(), |u| Some(o.row(u).len()))
            }
        }
    }

    /// Plain slices of a stored graph's two sections (or of its held rows), for hot loops.
    pub fn view(&self) -> CsrView<'_> {
        CsrView {
            offsets: self.offsets(),
            targets: self.targets(),
            directed: self.directed,
        }
    }

    /// The rows of this graph of `puzzle` in `metric` over `states`: read from the CSR when it is
    /// stored or held, lifted from the base rows of a cover, generated from the moves otherwise.
    pub fn rows<'a, P: Puzzle + ?Sized>(
        &'a self,
        puzzle: &'a P,
        states: &'a StateTable,
        metric: usize,
    ) -> Moves<'a, P> {
        if self.held.is_some() {
            return Moves::Stored(self.view());
        }
        match self.form() {
            Form::Stored => Moves::Stored(self.view()),
            Form::Covered => Moves::Covered(self.cover().expect("a covered graph")),
            Form::Regenerated => Moves::Regenerated(Regenerated::new(puzzle, states, metric)),
        }
    }

    /// The neighbours of `u` in any form but a regenerated one (which needs its puzzle:
    /// [`Csr::rows`]), in increasing order.
    pub fn neighbor_iter(&self, u: u32) -> Neighbors<'_> {
        match self.cover() {
            Some(c) => Neighbors::Lifted(c.lifted(u)),
            None => Neighbors::Stored(self.neighbors(u).iter().copied()),
        }
    }

    pub fn checksum(&self) -> u64 {
        self.artifact.header().checksum
    }

    /// Drops the rows held from this run's graph stage ([`Csr::has_rows`] stays true only for
    /// a stored graph): what a reader would have reopening the artifact.
    pub fn release_rows(&mut self) {
        self.held = None;
    }

    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }
}

/// A graph's rows as the stages after the graph stage read them.
pub trait Rows: Sync {
    /// Number of states.
    fn node_count(&self) -> usize;

    /// The sorted, distinct neighbours of `u`: a slice of the stored graph, or generated into
    /// `buf`.
    fn row<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32];

    /// The part of `u`'s row above `u` (sorted): each undirected edge once.
    fn row_above<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        let row = self.row(u, buf);
        &row[row.partition_point(|&v| v <= u)..]
    }

    /// Calls `f(u, v)` for every neighbour `v` of every state `u` of `states` (increasing), in
    /// any order, possibly more than once (a search marking what it reaches needs no more).
    fn each_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        let mut buf = Vec::new();
        for &u in states {
            for &v in self.row(u, &mut buf) {
                f(u, v);
            }
        }
    }

    /// Moves that carry whole blocks of indices onto one another ([`IndexedMoves::block_shifts`]);
    /// `None` (the default) when none are known.
    fn block_shifts(&self) -> Option<BlockShifts> {
        None
    }

    /// [`Rows::each_neighbor`] without the moves of [`Rows::block_shifts`].
    fn each_other_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        match self.block_shifts() {
            None => self.each_neighbor(states, f),
            Some(shifts) => self.each_neighbor(states, &mut |u, v| {
                if !shifts.carries(u, v) {
                    f(u, v);
                }
            }),
        }
    }

    /// Whether a row is read from memory, or as cheaply (`false`: each costs a move generation,
    /// so a breadth-first search should not ask for rows it can do without).
    fn is_stored(&self) -> bool;

    /// Whether arcs are one-way (rows list successors only).
    fn is_directed(&self) -> bool;
}

/// The offsets and targets of a stored [`Csr`] as plain slices.
#[derive(Debug, Clone, Copy)]
pub struct CsrView<'a> {
    pub offsets: Offsets<'a>,
    pub targets: &'a [u32],
    pub directed: bool,
}

impl<'a> CsrView<'a> {
    #[inline]
    pub fn neighbors(&self, u: u32) -> &'a [u32] {
        &self.targets[self.offsets.row(u as usize)]
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }
}

impl Rows for CsrView<'_> {
    fn node_count(&self) -> usize {
        CsrView::node_count(self)
    }

    #[inline]
    fn row<'a>(&'a self, u: u32, _buf: &'a mut Vec<u32>) -> &'a [u32] {
        self.neighbors(u)
    }

    fn is_stored(&self) -> bool {
        true
    }

    fn is_directed(&self) -> bool {
        self.directed
    }
}

/// The rows of a graph that is not stored, generated from the puzzle's moves on demand (the
/// same sorted, distinct lists the graph stage would have stored).
pub struct Regenerated<'a, P: ?Sized> {
    puzzle: &'a P,
    /// The puzzle's moves over indices, asked for once.
    moves: Indexed<'a, P>,
    states: &'a StateTable,
    metric: usize,
}

impl<P: ?Sized> std::fmt::Debug for Regenerated<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Regenerated")
            .field("states", &self.states.len())
            .field("metric", &self.metric)
            .finish()
    }
}

impl<'a, P: Puzzle + ?Sized> Regenerated<'a, P> {
    pub fn new(puzzle: &'a P, states: &'a StateTable, metric: usize) -> Self {
        Regenerated {
            puzzle,
            moves: indexed_moves(puzzle),
            states,
            metric,
        }
    }
}

impl<P: Puzzle + ?Sized> Rows for Regenerated<'_, P> {
    fn node_count(&self) -> usize {
        self.states.len()
    }

    #[inline]
    fn row<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        let lookup = lookup_in(self.puzzle, self.states);
        neighbors_of(
            self.puzzle,
            &*self.moves,
            self.states,
            &lookup,
            self.metric,
            u as usize,
            buf,
        );
        buf
    }

    /// Only the moves that lead up in the ranking ([`IndexedMoves::neighbor_indices_above`]).
    #[inline]
    fn row_above<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        let lookup = lookup_in(self.puzzle, self.states);
        buf.clear();
        let code = code_of(self.puzzle, self.states, u as usize);
        self.moves
            .neighbor_indices_above(u as u64, code, self.metric, &lookup, buf);
        buf.sort_unstable();
        buf.dedup();
        buf
    }

    /// The puzzle's moves of many states at once ([`IndexedMoves::each_neighbor_index`]).
    fn each_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        let lookup = lookup_in(self.puzzle, self.states);
        let code = |u: u32| code_of(self.puzzle, self.states, u as usize);
        self.moves
            .each_neighbor_index(states, self.metric, &code, &lookup, f);
    }

    fn block_shifts(&self) -> Option<BlockShifts> {
        self.moves.block_shifts(self.metric)
    }

    fn each_other_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        let lookup = lookup_in(self.puzzle, self.states);
        let code = |u: u32| code_of(self.puzzle, self.states, u as usize);
        self.moves
            .each_other_neighbor_index(states, self.metric, &code, &lookup, f);
    }

    fn is_stored(&self) -> bool {
        false
    }

    fn is_directed(&self) -> bool {
        self.puzzle.directed()
    }
}

/// A graph's rows either way ([`Csr::rows`]).
#[derive(Debug)]
pub enum Moves<'a, P: ?Sized> {
    Stored(CsrView<'a>),
    Covered(CoverView<'a>),
    Regenerated(Regenerated<'a, P>),
}

impl<P: Puzzle + ?Sized> Rows for Moves<'_, P> {
    fn node_count(&self) -> usize {
        match self {
            Moves::Stored(g) => g.node_count(),
            Moves::Covered(g) => g.node_count(),
            Moves::Regenerated(g) => g.node_count(),
        }
    }

    #[inline]
    fn row<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        match self {
            Moves::Stored(g) => g.neighbors(u),
            Moves::Covered(g) => g.row(u, buf),
            Moves::Regenerated(g) => g.row(u, buf),
        }
    }

    #[inline]
    fn row_above<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        match self {
            Moves::Stored(g) => g.row_above(u, buf),
            Moves::Covered(g) => g.row_above(u, buf),
            Moves::Regenerated(g) => g.row_above(u, buf),
        }
    }

    fn each_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        match self {
            Moves::Stored(g) => g.each_neighbor(states, f),
            Moves::Covered(g) => g.each_neighbor(states, f),
            Moves::Regenerated(g) => g.each_neighbor(states, f),
        }
    }

    fn block_shifts(&self) -> Option<BlockShifts> {
        match self {
            Moves::Regenerated(g) => g.block_shifts(),
            _ => None,
        }
    }

    fn each_other_neighbor(&self, states: &[u32], f: &mut dyn FnMut(u32, u32)) {
        match self {
            Moves::Regenerated(g) => g.each_other_neighbor(states, f),
            _ => self.each_neighbor(states, f),
        }
    }

    fn is_stored(&self) -> bool {
        !matches!(self, Moves::Regenerated(_))
    }

    fn is_directed(&self) -> bool {
        match self {
            Moves::Stored(g) => g.directed,
            Moves::Covered(_) => false,
            Moves::Regenerated(g) => g.is_directed(),
        }
    }
}

/// Neighbour indices of state `i`, sorted and deduplicated.
fn neighbors_of<P: Puzzle + ?Sized>(
    puzzle: &P,
    moves: &dyn IndexedMoves,
    states: &StateTable,
    lookup: &Lookup<'_>,
    metric: usize,
    i: usize,
    out: &mut Vec<u32>,
) {
    out.clear();
    moves.neighbor_indices(i as u64, code_of(puzzle, states, i), metric, lookup, out);
    out.sort_unstable();
    out.dedup();
}

/// The code of state `i`: unranked for ranked spaces, read from the table otherwise.
#[inline]
fn code_of<P: Puzzle + ?Sized>(puzzle: &P, states: &StateTable, i: usize) -> u64 {
    states.code(puzzle, i)
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
    let mut held = None;
    let (artifact, outcome) = reuse_or_build(path, expect, force, |path| {
        let target = Target {
            metric,
            path,
            fp,
            label,
        };
        let (header, rows) = write(puzzle, states, &target, reporter)?;
        held = rows;
        Ok(header)
    })?;
    let mut csr = Csr::new(artifact, puzzle.directed())?;
    csr.held = held;
    Ok((csr, outcome))
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
    let artifact = huarong_store::try_reuse(path, expect, force)?;
    Csr::new(artifact, puzzle.directed()).map_err(|e| Outcome::Rebuilt(e.to_string()))
}

/// Whether [`build_many`] builds several graphs of a space of `states` states in one pass.
pub fn one_pass(states: usize) -> bool {
    states <= ONE_PASS_STATES
}

/// Builds the graphs of `puzzle` in each `(metric, path)` of `graphs`: in one pass over the
/// states, each successor generated once for all the metrics that reach it
/// ([`IndexedMoves::neighbor_indices_in`]), when the space is small enough ([`one_pass`]); one
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
    let covered = graphs.iter().any(|&(m, _)| covers(puzzle, m));
    let names: Vec<&str> = graphs.iter().map(|&(m, _)| puzzle.metrics()[m]).collect();
    let bar = || {
        reporter.bar(
            2 * states.len() as u64,
            format!("graph {} {}", puzzle.space_id(), names.join(",")),
        )
    };
    let lookup = lookup_in(puzzle, states);
    let built: Vec<(Header, Option<Held>)> =
        if one_pass(states.len()) && puzzle.stores_graph() && !covered {
            write_one_pass(puzzle, states, &targets, &lookup, &bar())?
                .into_iter()
                .map(|h| (h, None))
                .collect()
        } else if holds(puzzle, states.len()) {
            hold_one_pass(puzzle, states, &targets, &lookup, &bar())?
        } else {
            targets
                .iter()
                .map(|t| write(puzzle, states, t, reporter))
                .collect::<Result<_, _>>()?
        };
    targets
        .iter()
        .zip(built)
        .map(|(t, (h, held))| {
            let mut csr = Csr::new(Artifact::open_written(t.path, &h)?, puzzle.directed())?;
            csr.held = held;
            Ok(csr)
        })
        .collect()
}

/// Whether the graphs of `puzzle` over `states` states are generated in one pass and held in
/// memory for the run ([`Held`]): not stored, undirected, small enough for one pass.
fn holds<P: Puzzle + ?Sized>(puzzle: &P, states: usize) -> bool {
    !puzzle.stores_graph() && !puzzle.directed() && one_pass(states)
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
    move |code: u64| -> Option<u32> { states.lookup(puzzle, code) }
}

/// Writes the graph of `target`; a graph held in memory ([`holds`]) comes back with its rows.
fn write<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    target: &Target<'_>,
    reporter: &Reporter,
) -> Result<(Header, Option<Held>), StageError> {
    let Target {
        metric,
        path,
        fp,
        ref label,
    } = *target;
    let n = states.len();
    let lookup = lookup_in(puzzle, states);
    let bar = || {
        reporter.bar(
            2 * n as u64,
            format!("graph {} {}", puzzle.space_id(), puzzle.metrics()[metric]),
        )
    };
    let one = std::slice::from_ref(target);
    if holds(puzzle, n) {
        return Ok(hold_one_pass(puzzle, states, one, &lookup, &bar())?.remove(0));
    }
    if !puzzle.stores_graph() {
        return Ok((write_regenerated(puzzle, states, target, reporter)?, None));
    }
    if let Some(cover) = cover_of(puzzle, metric) {
        return Ok((write_cover(&cover, n, target)?, None));
    }
    let bar = bar();

    if one_pass(n) {
        let mut headers = write_one_pass(puzzle, states, one, &lookup, &bar)?;
        return Ok((headers.remove(0), None));
    }

    // Pass 1: the number of arcs leaving each chunk of states.
    let moves = indexed_moves(puzzle);
    let chunks = n.div_ceil(CHUNK);
    let chunk_arcs: Vec<u64> = (0..chunks)
        .into_par_iter()
        .map_init(Vec::new, |buf, k| {
            let mut arcs = 0u64;
            for i in k * CHUNK..((k + 1) * CHUNK).min(n) {
                let code = code_of(puzzle, states, i);
                arcs += match moves.distinct_degree(i as u64, code, metric) {
                    Some(d) => d as u64,
                    None => {
                        neighbors_of(puzzle, &*moves, states, &lookup, metric, i, buf);
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

    let w = ArtifactWriter::create(path, KIND, fp, label, &sections(n, arcs))?;
    write_offsets(&w, 0, &[0u64], arcs)?;

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
                neighbors_of(puzzle, &*moves, states, &lookup, metric, i, buf);
                targets.extend_from_slice(buf);
                at += buf.len() as u64;
                offs.push(at);
            }
            if at != chunk_start[k + 1] {
                return Err(StageError::Invalid(format!(
                    "{label}: neighbour generation is not deterministic (chunk {k})"
                )));
            }
            write_offsets(&w, start as u64 + 1, offs, arcs)?;
            w.write(1, chunk_start[k], targets)?;
            bar.inc((end - start) as u64);
            Ok(())
        },
    )?;
    bar.finish();
    Ok((w.finish()?, None))
}

/// The sections of a stored graph of `n` states and `arcs` arcs: `u32` offsets while `arcs`
/// fits in 32 bits.
fn sections(n: usize, arcs: u64) -> [Section; 2] {
    let offsets = if narrow(arcs) {
        Section::of::<u32>(n as u64 + 1)
    } else {
        Section::of::<u64>(n as u64 + 1)
    };
    [offsets, Section::of::<u32>(arcs)]
}

fn narrow(arcs: u64) -> bool {
    arcs <= u32::MAX as u64
}

/// Writes `offsets` from offset `first` on, in the width [`sections`] chose for `arcs`.
fn write_offsets(
    w: &ArtifactWriter,
    first: u64,
    offsets: &[u64],
    arcs: u64,
) -> Result<(), StageError> {
    if narrow(arcs) {
        let narrow: Vec<u32> = offsets.iter().map(|&o| o as u32).collect();
        w.write(0, first, &narrow)?;
    } else {
        w.write(0, first, offsets)?;
    }
    Ok(())
}

/// Writes a graph as its cover: the fiber, the base rows, each arc's permutation and the
/// permutations, after checking the cover has its shape and spans the `n` states.
fn write_cover(
    cover: &huarong_core::Cover,
    n: usize,
    target: &Target<'_>,
) -> Result<Header, StageError> {
    let view = CoverView::of(cover);
    let bad = |why: String| StageError::Invalid(format!("{}: the cover {why}", target.label));
    view.check().map_err(bad)?;
    if view.node_count() != n {
        return Err(bad(format!(
            "spans {} states, the table {n}",
            view.node_count()
        )));
    }
    // Three sections: the record (fingerprint, labels, base states), the base rows (offsets,
    // then the targets, then each arc's permutation), the permutations.
    let (offsets, arcs) = (cover.offsets.len() as u64, cover.targets.len() as u64);
    let w = ArtifactWriter::create(
        target.path,
        KIND,
        target.fp,
        &target.label,
        &[
            Section::of::<u64>(3),
            Section::of::<u32>(offsets + 2 * arcs),
            Section::of::<u32>(cover.shifts.len() as u64),
        ],
    )?;
    w.write(0, 0, &[target.fp, cover.fiber as u64, offsets - 1])?;
    w.write(1, 0, &cover.offsets)?;
    w.write(1, offsets, &cover.targets)?;
    w.write(1, offsets + arcs, &cover.shift_of_arc)?;
    w.write(2, 0, &cover.shifts)?;
    Ok(w.finish()?)
}

/// Writes the record of a graph the later stages regenerate: its fingerprint, the number of
/// states and the degree histogram ([`IndexedMoves::degree_counts`] where the puzzle counts them
/// for the whole space, else state by state from [`IndexedMoves::distinct_degree`] where it knows
/// them, else by generating each row).
fn write_regenerated<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    target: &Target<'_>,
    reporter: &Reporter,
) -> Result<Header, StageError> {
    if puzzle.directed() {
        return Err(StageError::Invalid(format!(
            "{}: a directed graph must be stored (its components need every row at once)",
            target.label
        )));
    }
    let n = states.len();
    let bar = reporter.bar(
        n as u64,
        format!(
            "graph {} {}",
            puzzle.space_id(),
            puzzle.metrics()[target.metric]
        ),
    );
    let rows = Regenerated::new(puzzle, states, target.metric);
    let moves = indexed_moves(puzzle);
    let counted = moves
        .degree_counts(target.metric)
        .filter(|c| c.iter().sum::<u64>() == n as u64);
    let histogram = counted.unwrap_or_else(|| {
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map_init(Vec::new, |buf, k| {
                let mut counts = Vec::new();
                let end = ((k + 1) * CHUNK).min(n);
                for i in k * CHUNK..end {
                    let d = match moves.distinct_degree(
                        i as u64,
                        code_of(puzzle, states, i),
                        target.metric,
                    ) {
                        Some(d) => d,
                        None => rows.row(i as u32, buf).len(),
                    };
                    if counts.len() <= d {
                        counts.resize(d + 1, 0u64);
                    }
                    counts[d] += 1;
                }
                bar.inc((end - k * CHUNK) as u64);
                counts
            })
            .reduce(Vec::new, |mut a, b| {
                if a.len() < b.len() {
                    a.resize(b.len(), 0);
                }
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            })
    });
    bar.finish();
    write_record(target, n, histogram)
}

/// Writes a regenerated graph's record: its fingerprint, `n` and the degree histogram.
fn write_record(target: &Target<'_>, n: usize, histogram: Vec<u64>) -> Result<Header, StageError> {
    let mut info = vec![target.fp, n as u64];
    info.extend(histogram);
    let w = ArtifactWriter::create(
        target.path,
        KIND,
        target.fp,
        &target.label,
        &[Section::of::<u64>(info.len() as u64)],
    )?;
    w.write(0, 0, &info)?;
    Ok(w.finish()?)
}

/// Graphs of at most this many states are generated in one pass, their neighbour lists held in
/// memory per chunk (at most a few hundred MB); larger ones count first and write in a second
/// pass, holding nothing graph-sized.
const ONE_PASS_STATES: usize = 1 << 22;

/// Writes the graph of every target in one parallel pass over the states ([`one_pass_lists`]),
/// then lays out and writes every artifact.
fn write_one_pass<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    targets: &[Target<'_>],
    lookup: &Lookup<'_>,
    bar: &huarong_core::Progress,
) -> Result<Vec<Header>, StageError> {
    let n = states.len();
    let graphs = one_pass_lists(puzzle, states, targets, lookup, bar);
    let mut headers = Vec::with_capacity(targets.len());
    for (target, held) in targets.iter().zip(graphs) {
        let arcs = held.targets.len() as u64;
        let w = ArtifactWriter::create(
            target.path,
            KIND,
            target.fp,
            &target.label,
            &sections(n, arcs),
        )?;
        // `Held` and `sections` choose the width of the offsets the same way.
        match &held.offsets {
            HeldOffsets::Narrow(o) => w.write(0, 0, o)?,
            HeldOffsets::Wide(o) => w.write(0, 0, o)?,
        }
        w.write(1, 0, &held.targets)?;
        headers.push(w.finish()?);
    }
    bar.finish();
    Ok(headers)
}

/// Generates the graph of every target in one parallel pass, as [`write_one_pass`] does, and
/// holds the rows ([`Held`]); each artifact is the record of a regenerated graph (the degree
/// histogram [`write_regenerated`] would write).
fn hold_one_pass<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    targets: &[Target<'_>],
    lookup: &Lookup<'_>,
    bar: &huarong_core::Progress,
) -> Result<Vec<(Header, Option<Held>)>, StageError> {
    let n = states.len();
    let graphs = one_pass_lists(puzzle, states, targets, lookup, bar);
    let built = targets
        .iter()
        .zip(graphs)
        .map(|(target, held)| {
            let histogram = indexed_moves(puzzle)
                .degree_counts(target.metric)
                .filter(|c| c.iter().sum::<u64>() == n as u64)
                .unwrap_or_else(|| {
                    // Up to the largest degree, as `write_regenerated` counts them.
                    let o = held.offsets();
                    huarong_core::tally(n, |u| Some(o.row(u).len()))
                });
            Ok((write_record(target, n, histogram)?, Some(held)))
        })
        .collect();
    bar.finish();
    built
}

/// Every target's rows (sorted, distinct), generated in one parallel pass, each successor
/// once for all targets ([`IndexedMoves::neighbor_indices_in`]). An undirected puzzle that ranks the
/// moves leading up for less ([`IndexedMoves::ranks_above`]) is asked for those only, and every row
/// is completed by the edges that lead down to it ([`mirrored`]): each edge is generated and
/// ranked once.
fn one_pass_lists<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    targets: &[Target<'_>],
    lookup: &Lookup<'_>,
    bar: &huarong_core::Progress,
) -> Vec<Held> {
    let above = !puzzle.directed() && indexed_moves(puzzle).ranks_above();
    let chunks = chunk_lists(puzzle, states, targets, above, lookup, bar);
    let lists = |t: usize| {
        chunks
            .iter()
            .map(move |c| (c[t].0.as_slice(), c[t].1.as_slice()))
    };
    if above {
        let n = states.len();
        (0..targets.len())
            .into_par_iter()
            .map(|t| mirrored(n, lists(t)))
            .collect()
    } else {
        (0..targets.len()).map(|t| Held::new(lists(t))).collect()
    }
}

/// The width of a row offset (`u32` while the arcs fit in 32 bits, `u64` beyond).
trait Offset: Copy {
    fn of(at: u64) -> Self;
    fn at(self) -> usize;
}

impl Offset for u32 {
    #[inline]
    fn of(at: u64) -> Self {
        at as u32
    }
    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

impl Offset for u64 {
    #[inline]
    fn of(at: u64) -> Self {
        at
    }
    #[inline]
    fn at(self) -> usize {
        self as usize
    }
}

/// The offsets of rows of `degrees`: 0, then each row's end.
fn running<T: Offset>(degrees: impl Iterator<Item = u32>) -> Vec<T> {
    let mut at = 0u64;
    std::iter::once(T::of(0))
        .chain(degrees.map(|d| {
            at += u64::from(d);
            T::of(at)
        }))
        .collect()
}

/// An undirected graph's rows from its edges that lead up (each chunk's degrees and lists, in
/// state order): every row is the states below it that lead up to it, in increasing order as
/// the states are visited, then its own list — so it comes sorted.
fn mirrored<'a>(n: usize, chunks: impl Iterator<Item = (&'a [u32], &'a [u32])> + Clone) -> Held {
    // `counts[u + 1]`: the degree of `u` (its edges up, and those up into it).
    let mut counts = vec![0u32; n + 1];
    let mut u = 0;
    for (ups, lists) in chunks.clone() {
        for (c, &up) in counts[u + 1..u + 1 + ups.len()].iter_mut().zip(ups) {
            *c += up;
        }
        u += ups.len();
        for &v in lists {
            counts[v as usize + 1] += 1;
        }
    }
    let arcs: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let mut rows = vec![0u32; arcs as usize];
    let offsets = if narrow(arcs) {
        let mut cursors = counts;
        starts(&mut cursors);
        scatter(&mut cursors, &mut rows, chunks);
        HeldOffsets::Narrow(cursors)
    } else {
        let mut cursors: Vec<u64> = counts.into_iter().map(u64::from).collect();
        starts(&mut cursors);
        scatter(&mut cursors, &mut rows, chunks);
        HeldOffsets::Wide(cursors)
    };
    Held {
        offsets,
        targets: rows,
    }
}

/// Turns `counts[u + 1]` (row `u`'s length) into row `u`'s start, in place.
fn starts<T: Offset>(counts: &mut [T]) {
    let mut at = 0u64;
    for c in counts.iter_mut().skip(1) {
        let len = c.at() as u64;
        *c = T::of(at);
        at += len;
    }
}

/// Fills `rows` from the edges that lead up, `cursors[u + 1]` starting at row `u`'s start and
/// ending at its end (so `cursors` are then the offsets).
fn scatter<'a, T: Offset>(
    cursors: &mut [T],
    rows: &mut [u32],
    chunks: impl Iterator<Item = (&'a [u32], &'a [u32])>,
) {
    let mut u = 0usize;
    for (ups, lists) in chunks {
        let mut k = 0;
        for &up in ups {
            let list = &lists[k..k + up as usize];
            k += up as usize;
            // Every state below `u` with an edge to it came first: its own list goes last.
            let start = cursors[u + 1].at();
            rows[start..start + list.len()].copy_from_slice(list);
            cursors[u + 1] = T::of((start + list.len()) as u64);
            for &v in list {
                let at = &mut cursors[v as usize + 1];
                rows[at.at()] = u as u32;
                *at = T::of(at.at() as u64 + 1);
            }
            u += 1;
        }
    }
}

/// [`one_pass_lists`]' parallel pass, per chunk of states and per target: each state's degree
/// and the chunk's lists — every neighbour, or only those that lead up when `above`.
fn chunk_lists<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    targets: &[Target<'_>],
    above: bool,
    lookup: &Lookup<'_>,
    bar: &huarong_core::Progress,
) -> Vec<Vec<(Vec<u32>, Vec<u32>)>> {
    let n = states.len();
    let metrics: Vec<usize> = targets.iter().map(|t| t.metric).collect();
    let moves = indexed_moves(puzzle);
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let (start, end) = (k * CHUNK, ((k + 1) * CHUNK).min(n));
            // Each state's neighbours are appended to the chunk's lists where they go.
            let mut lists: Vec<Vec<u32>> = vec![Vec::new(); metrics.len()];
            let mut degrees: Vec<Vec<u32>> = vec![Vec::with_capacity(end - start); metrics.len()];
            let mut ends: Vec<usize> = vec![0; metrics.len()];
            for i in start..end {
                let code = code_of(puzzle, states, i);
                if above {
                    moves.neighbor_indices_above_in(i as u64, code, &metrics, lookup, &mut lists);
                } else {
                    moves.neighbor_indices_in(i as u64, code, &metrics, lookup, &mut lists);
                }
                for ((list, degrees), end) in lists.iter_mut().zip(&mut degrees).zip(&mut ends) {
                    let row = &mut list[*end..];
                    if !row.is_sorted_by(|a, b| a < b) {
                        row.sort_unstable();
                        let distinct = dedup_sorted(row);
                        list.truncate(*end + distinct);
                    }
                    degrees.push((list.len() - *end) as u32);
                    *end = list.len();
                }
            }
            bar.inc(2 * (end - start) as u64);
            degrees.into_iter().zip(lists).collect()
        })
        .collect()
}

/// Moves the distinct values of sorted `row` to its front; returns how many there are.
fn dedup_sorted(row: &mut [u32]) -> usize {
    let mut kept = 0;
    for k in 0..row.len() {
        if kept == 0 || row[k] != row[kept - 1] {
            row[kept] = row[k];
            kept += 1;
        }
    }
    kept
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

/// The neighbours of a state of a stored or covered [`Csr`] ([`Csr::neighbor_iter`]).
#[derive(Debug, Clone)]
pub enum Neighbors<'a> {
    Stored(std::iter::Copied<std::slice::Iter<'a, u32>>),
    Lifted(Lifted<'a>),
}

impl Iterator for Neighbors<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Neighbors::Stored(i) => i.next(),
            Neighbors::Lifted(i) => i.next(),
        }
    }
}

impl<'a> IntoNeighbors for &'a Csr {
    type Neighbors = Neighbors<'a>;

    fn neighbors(self, a: u32) -> Self::Neighbors {
        self.neighbor_iter(a)
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
            self.neighbor_iter(u).map(move |v| Arc {
                source: u,
                target: v,
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::Ranking;
    use klotski::{PieceSet, Unlabeled};

    /// Offsets are `u32` while the arcs fit in 32 bits and `u64` beyond; a reader takes either,
    /// and refuses sections of another shape.
    #[test]
    fn offsets_of_either_width_read_the_same() {
        assert!(narrow(u32::MAX as u64) && !narrow(u32::MAX as u64 + 1));
        assert_eq!(sections(3, 5)[0], Section::of::<u32>(4));
        assert_eq!(sections(3, 1 << 32)[0], Section::of::<u64>(4));
        let dir = tempfile::tempdir().unwrap();
        let (offsets, targets) = ([0u64, 2, 3, 4], [1u32, 2, 0, 0]);
        let write = |name: &str, wide: bool| {
            let path = dir.path().join(name);
            let arcs = if wide { 1 << 32 } else { 4 };
            let mut shape = sections(3, arcs);
            shape[1] = Section::of::<u32>(4);
            let w = ArtifactWriter::create(&path, KIND, 7, "t", &shape).unwrap();
            write_offsets(&w, 0, &offsets, arcs).unwrap();
            w.write(1, 0, &targets).unwrap();
            w.finish().unwrap();
            Csr::open_with(&path, 7, true).unwrap()
        };
        for (g, wide) in [(write("n", false), false), (write("w", true), true)] {
            assert_eq!(matches!(g.offsets(), Offsets::Wide(_)), wide);
            assert!(g.is_stored());
            assert_eq!(g.node_count(), 3);
            assert_eq!(g.neighbors(0), &[1, 2]);
            assert_eq!(g.neighbors(2), &[0]);
            assert_eq!(g.degree_histogram(), vec![0, 2, 1]);
        }
        let path = dir.path().join("odd");
        let w = ArtifactWriter::create(&path, KIND, 7, "t", &[Section::of::<u16>(3)]).unwrap();
        w.write(0, 0, &[1u16, 2, 3]).unwrap();
        w.finish().unwrap();
        let err = Csr::open_with(&path, 7, false).unwrap_err().to_string();
        assert!(err.contains("not a move graph"), "{err}");
    }

    /// An undirected graph's rows rebuilt from the edges that lead up, handed over in chunks
    /// of every size (empty ones too), are its full rows: sorted, every edge both ways.
    #[test]
    fn mirrored_rows_are_the_full_rows() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in [1usize, 2, 7, 64, 300] {
            let mut full = vec![Vec::<u32>::new(); n];
            for _ in 0..3 * n {
                let (a, b) = ((next() % n as u64) as u32, (next() % n as u64) as u32);
                if a != b && !full[a as usize].contains(&b) {
                    full[a as usize].push(b);
                    full[b as usize].push(a);
                }
            }
            full.iter_mut().for_each(|r| r.sort_unstable());
            // Chunks of 0 to 9 states.
            let mut chunks: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
            let mut u = 0;
            while u < n {
                let len = ((next() % 10) as usize).min(n - u);
                let mut chunk = (Vec::new(), Vec::new());
                for row in &full[u..u + len] {
                    let up: Vec<u32> = row.iter().copied().filter(|&v| v as usize > u).collect();
                    chunk.0.push(up.len() as u32);
                    chunk.1.extend(up);
                    u += 1;
                }
                chunks.push(chunk);
            }
            let held = mirrored(n, chunks.iter().map(|(d, t)| (d.as_slice(), t.as_slice())));
            let offsets = held.offsets();
            assert_eq!(offsets.len(), n + 1);
            for (v, want) in full.iter().enumerate() {
                let row = &held.targets[offsets.row(v)];
                assert_eq!(row, want.as_slice(), "n {n} row {v}");
            }
            assert_eq!(offsets.get(n), held.targets.len());
            // The same rows with wide offsets (the form of graphs past 2^32 arcs).
            let mut wide: Vec<u64> = std::iter::once(0)
                .chain((0..n).map(|v| offsets.row(v).len() as u64))
                .collect();
            let mut rows = vec![0u32; held.targets.len()];
            starts(&mut wide);
            scatter(
                &mut wide,
                &mut rows,
                chunks.iter().map(|(d, t)| (d.as_slice(), t.as_slice())),
            );
            assert_eq!(rows, held.targets, "n {n}");
            assert!((0..=n).all(|v| wide[v] as usize == offsets.get(v)), "n {n}");
        }
    }

    /// A labeled Huarong Dao graph is stored as its cover (a few hundred KB, not the lifted
    /// CSR), and its rows are the moves of the labeled board model, ranked (every 61st row of
    /// two labeled spaces, in every metric), and its degree histogram is its rows'.
    #[test]
    fn a_labeled_graph_is_its_cover_and_its_rows_are_the_board_moves() {
        let dir = tempfile::tempdir().unwrap();
        for set in ["h1v2s2", "h4v0s2"] {
            let l = klotski::Labeled::new(set.parse::<PieceSet>().unwrap()).unwrap();
            let q = &Reporter::quiet();
            let (states, _) = enumerate::run(&l, &dir.path().join("s"), true, q).unwrap();
            for metric in 0..3 {
                let path = dir.path().join(format!("g{metric}"));
                let (g, _) = run(&l, &states, metric, &path, true, q).unwrap();
                assert_eq!(g.form(), Form::Covered, "{set}");
                let mut histogram = Vec::new();
                let mut codes = Vec::new();
                for u in 0..g.node_count() as u32 {
                    let got: Vec<u32> = g.neighbor_iter(u).collect();
                    // The board model is slow: every 61st row.
                    if u % 61 == 0 {
                        codes.clear();
                        l.successors(l.unrank(u as u64), metric, &mut codes);
                        let mut want: Vec<u32> =
                            codes.iter().map(|&c| l.rank(c).unwrap() as u32).collect();
                        want.sort_unstable();
                        assert_eq!(got, want, "{set} metric {metric} row {u}");
                    }
                    if histogram.len() <= got.len() {
                        histogram.resize(got.len() + 1, 0u64);
                    }
                    histogram[got.len()] += 1;
                }
                assert_eq!(g.degree_histogram(), histogram, "{set} metric {metric}");
                assert_eq!(
                    g.arc_count(),
                    histogram
                        .iter()
                        .enumerate()
                        .map(|(d, &c)| d as u64 * c)
                        .sum::<u64>()
                );
            }
        }
    }

    /// An unlabeled Huarong Dao graph is not stored: its artifact is the degree histogram (a
    /// few hundred bytes); the run that builds it holds the rows, the same whether every metric
    /// is built in one pass or one metric alone, and the graph opened again regenerates the
    /// same rows from the moves.
    #[test]
    fn a_graph_not_stored_is_held_for_the_run_and_regenerated_after() {
        let dir = tempfile::tempdir().unwrap();
        let u = Unlabeled::new("h2v2s3".parse().unwrap());
        let q = &Reporter::quiet();
        let (states, _) = enumerate::run(&u, &dir.path().join("s"), false, q).unwrap();
        let paths: Vec<std::path::PathBuf> =
            (0..3).map(|m| dir.path().join(format!("g{m}"))).collect();
        let wanted: Vec<(usize, &Path)> = paths
            .iter()
            .enumerate()
            .map(|(m, p)| (m, p.as_path()))
            .collect();
        let held = build_many(&u, &states, &wanted, q).unwrap();
        let mut buf = Vec::new();
        for (m, g) in held.iter().enumerate() {
            assert_eq!(g.form(), Form::Regenerated);
            assert!(g.has_rows() && !g.is_stored());
            let size = std::fs::metadata(&paths[m]).unwrap().len();
            assert!(size < 1024, "{size} bytes");
            let alone = dir.path().join(format!("alone{m}"));
            let (single, _) = run(&u, &states, m, &alone, true, q).unwrap();
            assert!(single.has_rows());
            assert_eq!(single.checksum(), g.checksum(), "metric {m}");
            let again = Csr::open(&paths[m], &u, m, &states).unwrap();
            assert!(!again.has_rows());
            assert_eq!(again.degree_histogram(), g.degree_histogram());
            assert_eq!(again.arc_count(), g.targets().len() as u64);
            let (rows, mut histogram) = (again.rows(&u, &states, m), Vec::new());
            for v in 0..g.node_count() as u32 {
                let nb = g.neighbors(v);
                assert_eq!(rows.row(v, &mut buf), nb, "metric {m} row {v}");
                assert_eq!(single.neighbors(v), nb, "metric {m} row {v}");
                if histogram.len() <= nb.len() {
                    histogram.resize(nb.len() + 1, 0u64);
                }
                histogram[nb.len()] += 1;
            }
            assert_eq!(g.degree_histogram(), histogram, "metric {m}");
        }
    }

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
                // The targets, from the plain board model (not the bitboards the graph uses).
                let board = u.board(v);
                let mut moves = Vec::new();
                board.moves(klotski::Metric::from_index(metric), &mut moves);
                let mut targets: Vec<u32> = moves
                    .iter()
                    .map(|mv| u.index_of_board(&board.apply(mv)).unwrap())
                    .collect();
                targets.sort_unstable();
                targets.dedup();
                assert_eq!(nb, &targets[..], "row {v}");
            }
            let (_, o) = run(&u, &states, metric, &path, false, &Reporter::quiet()).unwrap();
            assert_eq!(o, Outcome::Reused);
        }
    }
}
