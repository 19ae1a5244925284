//! The one trait every stage is generic over.
//!
//! A puzzle describes a *state space*: states are encoded as `u64` codes, and every stage works on
//! codes and dense indices (`u32`, the position of a code in the state table). Two kinds of space
//! exist:
//!
//! * **ranked** spaces ([`Puzzle::ranking`] is `Some`) have a perfect ranking ([`Ranking`]):
//!   dense index ↔ code without any hash map, and the state table lists the codes in index order;
//! * **explored** spaces are "whatever is reachable from [`Puzzle::starts`]"; the enumerate stage
//!   discovers them and stores the codes sorted, so that a binary search ranks a code.

use crate::fingerprint::Fingerprint;

/// Where the distances stage starts its breadth-first search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistanceSources {
    /// Multi-source BFS from every goal state (distance *to* the goal; needs an undirected graph).
    Goals,
    /// BFS from the start states (depth *from* the start).
    Starts,
}

/// A space that *covers* a smaller base space in one metric: state `i` is base state
/// `i / fiber` carrying label `i % fiber`, and every base arc `e` (`u → targets[e]`) lifts to
/// the arcs `(u, l) → (targets[e], σ_e(l))` for every label `l`, where `σ_e` is a permutation
/// of the labels (`shifts[shift_of_arc[e] · fiber ..][..fiber]`). Huarong Dao's labeled space is
/// one: a labeled move is an unlabeled move with the moved kind's labels shifted.
///
/// A cover is the whole move graph in a few megabytes: the graph stage stores it instead of the
/// lifted CSR, and the later stages read off it what the base graph already knows (components
/// from the base components and the labels' orbits, distances from the base distances when
/// the sources are whole fibers). Base rows list strictly increasing targets (so lifted rows
/// are sorted and free of duplicates), and the cover of an undirected puzzle has each arc's
/// reverse with the inverse permutation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cover {
    /// Labels per base state.
    pub fiber: u32,
    /// The base graph's rows: arcs `offsets[u]..offsets[u + 1]` leave base state `u`.
    pub offsets: Vec<u32>,
    /// The base state each arc enters.
    pub targets: Vec<u32>,
    /// Which permutation of `shifts` each arc carries the labels by.
    pub shift_of_arc: Vec<u32>,
    /// The distinct label permutations, `fiber` entries each, one after another.
    pub shifts: Vec<u32>,
}

/// Moves that carry a range of consecutive indices onto another, offset for offset
/// ([`Puzzle::block_shifts`]): state `from + r` has the neighbour `to + r` for every `r < len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shift {
    pub from: u64,
    pub to: u64,
    pub len: u64,
}

/// Moves known as whole ranges of states ([`Shift`]s): a search can reach those neighbours a
/// range at a time, as bits of a bitmap copied along.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockShifts {
    pub shifts: Vec<Shift>,
}

impl BlockShifts {
    /// Whether the move `u → v` is one of these (a scan of every shift: for tests and
    /// fallbacks, not for a search's inner loop).
    pub fn carries(&self, u: u32, v: u32) -> bool {
        let (u, v) = (u as u64, v as u64);
        self.shifts
            .iter()
            .any(|s| (s.from..s.from + s.len).contains(&u) && v == u - s.from + s.to)
    }
}

/// A perfect ranking of a space's states, the capability of a ranked space
/// ([`Puzzle::ranking`]): every index in `0..states()` is one state's, every state has one.
pub trait Ranking: Sync + Send {
    /// The number of states.
    fn states(&self) -> u64;

    /// The code of the state with dense index `index` (below [`Ranking::states`]).
    fn unrank(&self, index: u64) -> u64;

    /// The dense index of `code`, or `None` if it is not a state of this space.
    fn rank(&self, code: u64) -> Option<u64>;
}

/// A state space the pipeline stages can enumerate, connect and measure.
pub trait Puzzle: Sync + Send {
    /// Short puzzle name, e.g. `huarong`.
    fn name(&self) -> &'static str;

    /// Identifies this state space among the puzzle's spaces, e.g. `h1v4s4-labeled`. Part of every
    /// artifact fingerprint and of the output folder name.
    fn space_id(&self) -> String;

    /// Writes into `key` everything besides the name and space id that decides the states, their
    /// codes and the moves: a board's obstacles, options, the version of the code encoding.
    /// The enumerate and graph fingerprints include it, so changing any of it rebuilds them.
    ///
    /// Not needed here: the goal (the distances stage fingerprints its source states, the
    /// export the pipeline section) and an explored space's starts (enumerate adds them).
    fn parameters(&self, key: &mut Fingerprint);

    /// The move metrics this puzzle's graph can be built in (indices are the `metric` arguments).
    fn metrics(&self) -> &'static [&'static str];

    /// Whether moves are one-way (the graph is directed).
    fn directed(&self) -> bool {
        false
    }

    /// The space's ranking when it is ranked; `None` (the default) for an explored space,
    /// whose states the enumerate stage discovers from [`Puzzle::starts`].
    fn ranking(&self) -> Option<&dyn Ranking> {
        None
    }

    /// `Some(n)` for a ranked space of `n` states; `None` for an explored space.
    fn ranked_len(&self) -> Option<u64> {
        self.ranking().map(|r| r.states())
    }

    /// The number of states when it is known before any work (`u64::MAX` when it is known to
    /// be at least that): a ranked space's length, or a count the model can tell of an
    /// explored space (e.g. the sliding tiles beyond the ranked sizes, n!/2). A run refuses a
    /// space that cannot fit before it starts ([`Puzzle::ranked_len`] by default).
    fn size_hint(&self) -> Option<u64> {
        self.ranked_len()
    }

    /// The metrics whose moves the enumerate stage follows to discover an explored space: all
    /// of them by default. A puzzle whose metrics all reach the same states may name the
    /// cheapest (the state table is the same, so its fingerprint does not depend on it).
    fn explore_metrics(&self) -> Vec<usize> {
        (0..self.metrics().len()).collect()
    }

    /// Start states of an explored space (and of [`DistanceSources::Starts`]).
    fn starts(&self) -> Vec<u64> {
        Vec::new()
    }

    /// Appends the codes of every state one move away from `code` in `metric`.
    fn successors(&self, code: u64, metric: usize, out: &mut Vec<u64>);

    /// Whether `code` is a goal state.
    fn is_goal(&self, code: u64) -> bool;

    /// Every goal state's code, when the puzzle can list them without testing each state (a
    /// ranked space whose goal is one position, say); `None`, the default, has the stages
    /// test every state with [`Puzzle::is_goal`]. A listed code need not be a state of the
    /// space (it is then no goal of it).
    fn goal_codes(&self) -> Option<Vec<u64>> {
        None
    }

    /// A human-readable rendering of a state (the puzzle's notation).
    fn render(&self, code: u64) -> String;

    /// The code of a state written as [`Puzzle::render`] writes it; an error names what is
    /// wrong (or that the position is not in this space).
    fn parse(&self, text: &str) -> Result<u64, crate::InputError>;

    /// Where distances are measured from.
    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Goals
    }

    /// Whether the graph stage stores the move graph (the default), or records only its degree
    /// histogram and the later stages generate each row again from the moves when they need
    /// it: for an undirected puzzle whose moves cost less to generate than a stored graph costs
    /// to write and read back (the sliding tiles, whose ranks are computed), or whose graph
    /// nothing reads back (the unlabeled Huarong Dao spaces). A space small enough for the
    /// graph stage's one pass has its rows held in memory for the run's later stages either way.
    /// Part of the graph's fingerprint.
    fn stores_graph(&self) -> bool {
        true
    }

    /// The space as a cover of a smaller base space in `metric` ([`Cover`]), when it is one:
    /// the graph stage then stores the cover instead of the lifted graph (undirected puzzles
    /// only). Its rows must be the ones [`Puzzle::neighbor_indices`] gives, which the graph
    /// stage's tests check. `None` by default.
    fn cover(&self, metric: usize) -> Option<Cover> {
        let _ = metric;
        None
    }

    /// A metric whose graph has the same connected components as `metric`'s (`metric` itself by
    /// default): the components stage then copies that metric's table instead of computing the
    /// same one again. Huarong Dao's three metrics join the same positions (a straight or piece
    /// move is a sequence of step moves of one piece, and every step move is one of each).
    fn same_components_as(&self, metric: usize) -> usize {
        metric
    }

    /// The number of distinct neighbours of state `index`, if the puzzle knows it without
    /// generating them (the graph stage then skips a generation pass). `None` by default.
    fn distinct_degree(&self, index: u64, code: u64, metric: usize) -> Option<usize> {
        let _ = (index, code, metric);
        None
    }

    /// How many states have each number of distinct neighbours (index = degree), if the puzzle
    /// knows it without visiting the states (a ranked space whose degree follows from where
    /// its index lies); it must agree with [`Puzzle::distinct_degree`]. `None` by default.
    fn degree_counts(&self, metric: usize) -> Option<Vec<u64>> {
        let _ = metric;
        None
    }

    /// Appends the dense indices of the neighbours of state `index` (whose code is `code`).
    ///
    /// `lookup` maps a code to its dense index. The default generates successor codes and looks
    /// each one up; puzzles with more structure (e.g. a labeled space covering an unlabeled one)
    /// override it with something faster, which tests compare against this default.
    fn neighbor_indices(
        &self,
        index: u64,
        code: u64,
        metric: usize,
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        out: &mut Vec<u32>,
    ) {
        let _ = index;
        let mut codes = Vec::new();
        self.successors(code, metric, &mut codes);
        out.extend(
            codes.into_iter().map(|c| {
                lookup(c).expect("successor of a state must be a state of the same space")
            }),
        );
    }

    /// Calls `f(u, v)` for every neighbour `v` of every state `u` of `indices` (increasing), in
    /// any order and possibly more than once: what a breadth-first search over rows it
    /// generates needs. The default asks [`Puzzle::neighbor_indices`] state by state (the code
    /// from `code`); a puzzle whose consecutive states share most of their decoding (the
    /// sliding tiles' unranking) overrides it to decode each only where it differs from the last.
    fn each_neighbor_index(
        &self,
        indices: &[u32],
        metric: usize,
        code: &(dyn Fn(u32) -> u64 + Sync),
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        f: &mut dyn FnMut(u32, u32),
    ) {
        let mut out = Vec::new();
        for &u in indices {
            out.clear();
            self.neighbor_indices(u as u64, code(u), metric, lookup, &mut out);
            for &v in &out {
                f(u, v);
            }
        }
    }

    /// Moves that carry a whole range of consecutive indices onto another, offset for offset
    /// ([`BlockShifts`]: the sliding tiles' sideways moves, which keep the tiles' order, and
    /// the vertical ones that change only high Lehmer digits). A search can then reach those
    /// neighbours a range at a time. `None` (the default): no such moves are known.
    fn block_shifts(&self, metric: usize) -> Option<BlockShifts> {
        let _ = metric;
        None
    }

    /// [`Puzzle::each_neighbor_index`] without the moves of [`Puzzle::block_shifts`]. The
    /// default generates every neighbour and leaves out those; a puzzle overrides it to not
    /// generate them at all.
    fn each_other_neighbor_index(
        &self,
        indices: &[u32],
        metric: usize,
        code: &(dyn Fn(u32) -> u64 + Sync),
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        f: &mut dyn FnMut(u32, u32),
    ) {
        match self.block_shifts(metric) {
            None => self.each_neighbor_index(indices, metric, code, lookup, f),
            Some(shifts) => self.each_neighbor_index(indices, metric, code, lookup, &mut |u, v| {
                if !shifts.carries(u, v) {
                    f(u, v);
                }
            }),
        }
    }

    /// The neighbours of state `index` with a larger index (an undirected graph's edges, each
    /// seen once: what a union-find needs), appended to `out`. The default generates every
    /// neighbour and keeps the larger ones; a puzzle that can tell which moves lead up in its
    /// ranking generates only those.
    fn neighbor_indices_above(
        &self,
        index: u64,
        code: u64,
        metric: usize,
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        out: &mut Vec<u32>,
    ) {
        let start = out.len();
        self.neighbor_indices(index, code, metric, lookup, out);
        keep_above(out, start, index);
    }

    /// [`Puzzle::neighbor_indices`] in several metrics at once: appends state `index`'s
    /// neighbours in `metrics[k]` to `outs[k]`. The default asks for each metric in turn; a
    /// puzzle whose metrics share their moves (Huarong Dao's step moves are straight moves, its
    /// straight moves piece moves) overrides it to generate and rank each successor once. The
    /// graph stage uses it to build several metrics' graphs in one pass.
    fn neighbor_indices_in(
        &self,
        index: u64,
        code: u64,
        metrics: &[usize],
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        outs: &mut [Vec<u32>],
    ) {
        for (&metric, out) in metrics.iter().zip(outs) {
            self.neighbor_indices(index, code, metric, lookup, out);
        }
    }

    /// Whether [`Puzzle::neighbor_indices_above_in`] generates the moves that lead up in the
    /// ranking for less than all of them cost: the graph stage then builds an undirected
    /// graph's rows from those, each edge ranked once, and their mirror images. `false` (the
    /// default): it asks for every neighbour.
    fn ranks_above(&self) -> bool {
        false
    }

    /// [`Puzzle::neighbor_indices_in`], only the neighbours with a larger index than `index`
    /// ([`Puzzle::neighbor_indices_above`] in several metrics at once). The default generates
    /// every neighbour and keeps the larger ones.
    fn neighbor_indices_above_in(
        &self,
        index: u64,
        code: u64,
        metrics: &[usize],
        lookup: &(dyn Fn(u64) -> Option<u32> + Sync),
        outs: &mut [Vec<u32>],
    ) {
        let starts: Vec<usize> = outs.iter().map(Vec::len).collect();
        self.neighbor_indices_in(index, code, metrics, lookup, outs);
        for (out, start) in outs.iter_mut().zip(starts) {
            keep_above(out, start, index);
        }
    }
}

/// Keeps, of `out[start..]`, the neighbours with a larger index than `index` (in order).
fn keep_above(out: &mut Vec<u32>, start: usize, index: u64) {
    let mut keep = start;
    for k in start..out.len() {
        if out[k] as u64 > index {
            out[keep] = out[k];
            keep += 1;
        }
    }
    out.truncate(keep);
}

/// A space's state codes in index order: a state table's (sorted), or computed by a ranked
/// space's [`Ranking::unrank`] (whose state table stores only its length).
#[derive(Clone, Copy)]
pub enum Codes<'a> {
    Stored(&'a [u64]),
    Ranked {
        ranking: &'a dyn Ranking,
        len: usize,
    },
}

impl std::fmt::Debug for Codes<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Codes::Stored(c) => f.debug_tuple("Stored").field(&c.len()).finish(),
            Codes::Ranked { len, .. } => f.debug_struct("Ranked").field("len", len).finish(),
        }
    }
}

impl Codes<'_> {
    pub fn len(&self) -> usize {
        match self {
            Codes::Stored(c) => c.len(),
            Codes::Ranked { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The code of state `i` (below [`Codes::len`]).
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        match self {
            Codes::Stored(c) => c[i],
            Codes::Ranked { ranking, .. } => ranking.unrank(i as u64),
        }
    }

    /// Every code, in index order.
    pub fn to_vec(&self) -> Vec<u64> {
        match self {
            Codes::Stored(c) => c.to_vec(),
            Codes::Ranked { ranking, len } => (0..*len as u64).map(|i| ranking.unrank(i)).collect(),
        }
    }

    /// The dense index of `code`, if it is a state: a binary search of the stored codes, or
    /// the space's rank.
    pub fn index_of(&self, code: u64) -> Option<u32> {
        match self {
            Codes::Stored(c) => c.binary_search(&code).ok().map(|i| i as u32),
            Codes::Ranked { ranking, len } => ranking
                .rank(code)
                .filter(|&i| i < *len as u64)
                .map(|i| i as u32),
        }
    }
}

/// Adds what identifies `puzzle`'s space to a fingerprint: its name, space id and
/// [`Puzzle::parameters`].
pub fn add_space<P: Puzzle + ?Sized>(key: &mut Fingerprint, puzzle: &P) {
    key.add_str(puzzle.name()).add_str(&puzzle.space_id());
    puzzle.parameters(key);
}

/// Looks up the index of a metric name.
pub fn metric_index<P: Puzzle + ?Sized>(puzzle: &P, name: &str) -> Option<usize> {
    puzzle.metrics().iter().position(|m| *m == name)
}
