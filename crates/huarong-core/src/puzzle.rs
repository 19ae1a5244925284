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
use crate::indexed::IndexedMoves;

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
/// ([`IndexedMoves::block_shifts`]): state `from + r` has the neighbour `to + r` for every `r < len`.
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

    /// The family's moves over dense indices ([`IndexedMoves`]), when it has faster ones than
    /// its successors looked up one by one; `None` (the default): the stages use
    /// [`crate::indexed::BySuccessors`]. Ask [`crate::indexed_moves`], which picks.
    fn indexed_moves(&self) -> Option<&dyn IndexedMoves> {
        None
    }
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
