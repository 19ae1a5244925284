//! Moves over dense indices: the capability a family with more structure than its successors
//! offers the graph, components and distances stages ([`Puzzle::indexed_moves`]).
//!
//! Every puzzle can list a state's neighbours by index the slow way: generate the successor
//! codes ([`Puzzle::successors`]) and look each one up. A family that knows more — a labeled
//! space that covers an unlabeled one, tiles whose moves rank by a digit's change, metrics that
//! share their moves — implements [`IndexedMoves`] for the fast paths it has and leaves the
//! others at their defaults. The stages ask [`indexed_moves`], which hands them the family's
//! capability or, for a family without one, the slow way behind the same trait, so a stage
//! has one code path and a family writes no method it does not speed up.

use crate::puzzle::{BlockShifts, Cover, Puzzle};

/// Maps a state's code to its dense index (`None`: not a state of the space).
pub type Lookup<'a> = dyn Fn(u64) -> Option<u32> + Sync + 'a;

/// Maps a dense index to its state's code.
pub type CodeOf<'a> = dyn Fn(u32) -> u64 + Sync + 'a;

/// A family's moves over dense indices; see the module documentation. Only
/// [`IndexedMoves::neighbor_indices`] is required; every other method has a default built on
/// it (or none: `None`, `false`, the metric itself), which tests compare the overrides against.
pub trait IndexedMoves: Sync + Send {
    /// Appends the dense indices of the neighbours of state `index` (whose code is `code`) in
    /// `metric`: the same states, in the same order, as [`successor_indices`] gives.
    fn neighbor_indices(
        &self,
        index: u64,
        code: u64,
        metric: usize,
        lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    );

    /// Calls `f(u, v)` for every neighbour `v` of every state `u` of `indices` (increasing), in
    /// any order and possibly more than once: what a breadth-first search over rows it
    /// generates needs. The default asks [`IndexedMoves::neighbor_indices`] state by state; a
    /// family whose consecutive states share most of their decoding (the sliding tiles'
    /// unranking) overrides it to decode each only where it differs from the last.
    fn each_neighbor_index(
        &self,
        indices: &[u32],
        metric: usize,
        code: &CodeOf<'_>,
        lookup: &Lookup<'_>,
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

    /// [`IndexedMoves::each_neighbor_index`] without the moves of
    /// [`IndexedMoves::block_shifts`]. The default generates every neighbour and leaves out
    /// those; a family overrides it to not generate them at all.
    fn each_other_neighbor_index(
        &self,
        indices: &[u32],
        metric: usize,
        code: &CodeOf<'_>,
        lookup: &Lookup<'_>,
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
    /// neighbour and keeps the larger ones; a family that can tell which moves lead up in its
    /// ranking generates only those.
    fn neighbor_indices_above(
        &self,
        index: u64,
        code: u64,
        metric: usize,
        lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        let start = out.len();
        self.neighbor_indices(index, code, metric, lookup, out);
        keep_above(out, start, index);
    }

    /// [`IndexedMoves::neighbor_indices`] in several metrics at once: appends state `index`'s
    /// neighbours in `metrics[k]` to `outs[k]`. The default asks for each metric in turn; a
    /// family whose metrics share their moves (Huarong Dao's step moves are straight moves, its
    /// straight moves piece moves) overrides it to generate and rank each successor once. The
    /// graph stage uses it to build several metrics' graphs in one pass.
    fn neighbor_indices_in(
        &self,
        index: u64,
        code: u64,
        metrics: &[usize],
        lookup: &Lookup<'_>,
        outs: &mut [Vec<u32>],
    ) {
        for (&metric, out) in metrics.iter().zip(outs) {
            self.neighbor_indices(index, code, metric, lookup, out);
        }
    }

    /// Whether [`IndexedMoves::neighbor_indices_above_in`] generates the moves that lead up in
    /// the ranking for less than all of them cost: the graph stage then builds an undirected
    /// graph's rows from those, each edge ranked once, and their mirror images. `false` (the
    /// default): it asks for every neighbour.
    fn ranks_above(&self) -> bool {
        false
    }

    /// [`IndexedMoves::neighbor_indices_in`], only the neighbours with a larger index than
    /// `index` ([`IndexedMoves::neighbor_indices_above`] in several metrics at once). The
    /// default generates every neighbour and keeps the larger ones.
    fn neighbor_indices_above_in(
        &self,
        index: u64,
        code: u64,
        metrics: &[usize],
        lookup: &Lookup<'_>,
        outs: &mut [Vec<u32>],
    ) {
        let starts: Vec<usize> = outs.iter().map(Vec::len).collect();
        self.neighbor_indices_in(index, code, metrics, lookup, outs);
        for (out, start) in outs.iter_mut().zip(starts) {
            keep_above(out, start, index);
        }
    }

    /// The number of distinct neighbours of state `index`, if the family knows it without
    /// generating them (the graph stage then skips a generation pass). `None` by default.
    fn distinct_degree(&self, index: u64, code: u64, metric: usize) -> Option<usize> {
        let _ = (index, code, metric);
        None
    }

    /// How many states have each number of distinct neighbours (index = degree), if the family
    /// knows it without visiting the states (a ranked space whose degree follows from where its
    /// index lies); it must agree with [`IndexedMoves::distinct_degree`]. `None` by default.
    fn degree_counts(&self, metric: usize) -> Option<Vec<u64>> {
        let _ = metric;
        None
    }

    /// The space as a cover of a smaller base space in `metric` ([`Cover`]), when it is one:
    /// the graph stage then stores the cover instead of the lifted graph (undirected puzzles
    /// only). Its rows must be the ones [`IndexedMoves::neighbor_indices`] gives, which the
    /// graph stage's tests check. `None` by default.
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
}

/// Appends the dense indices of the successors of `code` in `metric`, generated as codes
/// ([`Puzzle::successors`]) and looked up one by one: the slow way every puzzle has.
pub fn successor_indices<P: Puzzle + ?Sized>(
    puzzle: &P,
    code: u64,
    metric: usize,
    lookup: &Lookup<'_>,
    out: &mut Vec<u32>,
) {
    let mut codes = Vec::new();
    puzzle.successors(code, metric, &mut codes);
    out.extend(
        codes
            .into_iter()
            .map(|c| lookup(c).expect("successor of a state must be a state of the same space")),
    );
}

/// A puzzle's moves over dense indices the slow way ([`successor_indices`]), every fast path
/// at its default: what [`indexed_moves`] gives for a family without the capability.
pub struct BySuccessors<'a, P: ?Sized>(pub &'a P);

impl<P: Puzzle + ?Sized> IndexedMoves for BySuccessors<'_, P> {
    fn neighbor_indices(
        &self,
        _index: u64,
        code: u64,
        metric: usize,
        lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        successor_indices(self.0, code, metric, lookup, out);
    }
}

/// A puzzle's [`IndexedMoves`]: its family's capability, or the slow way
/// ([`BySuccessors`]). Dereferences to the trait.
pub enum Indexed<'a, P: ?Sized> {
    Family(&'a dyn IndexedMoves),
    Generic(BySuccessors<'a, P>),
}

/// The moves over dense indices the stages use for `puzzle` ([`Indexed`]).
pub fn indexed_moves<P: Puzzle + ?Sized>(puzzle: &P) -> Indexed<'_, P> {
    match puzzle.indexed_moves() {
        Some(moves) => Indexed::Family(moves),
        None => Indexed::Generic(BySuccessors(puzzle)),
    }
}

impl<'a, P: Puzzle + ?Sized> std::ops::Deref for Indexed<'a, P> {
    type Target = dyn IndexedMoves + 'a;

    fn deref(&self) -> &Self::Target {
        match self {
            Indexed::Family(moves) => *moves,
            Indexed::Generic(slow) => slow,
        }
    }
}

impl<P: ?Sized> std::fmt::Debug for BySuccessors<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BySuccessors")
    }
}

impl<P: ?Sized> std::fmt::Debug for Indexed<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Indexed::Family(_) => "Indexed::Family",
            Indexed::Generic(_) => "Indexed::Generic",
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fingerprint, InputError};

    /// States `0..n` on a cycle, each a move from its two neighbours; the fast variant says so
    /// over indices and claims a cover-free, block-free space with one degree.
    struct Cycle {
        n: u64,
        fast: bool,
    }

    impl Puzzle for Cycle {
        fn name(&self) -> &'static str {
            "cycle"
        }
        fn space_id(&self) -> String {
            format!("cycle-{}", self.n)
        }
        fn parameters(&self, _key: &mut Fingerprint) {}
        fn metrics(&self) -> &'static [&'static str] {
            &["step"]
        }
        fn successors(&self, code: u64, _metric: usize, out: &mut Vec<u64>) {
            out.extend([(code + 1) % self.n, (code + self.n - 1) % self.n]);
        }
        fn is_goal(&self, code: u64) -> bool {
            code == 0
        }
        fn render(&self, code: u64) -> String {
            code.to_string()
        }
        fn parse(&self, text: &str) -> Result<u64, InputError> {
            text.parse().map_err(|_| "not a number".into())
        }
        fn indexed_moves(&self) -> Option<&dyn IndexedMoves> {
            self.fast.then_some(self as &dyn IndexedMoves)
        }
    }

    impl IndexedMoves for Cycle {
        fn neighbor_indices(
            &self,
            index: u64,
            _code: u64,
            _metric: usize,
            _lookup: &Lookup<'_>,
            out: &mut Vec<u32>,
        ) {
            out.extend([
                ((index + 1) % self.n) as u32,
                ((index + self.n - 1) % self.n) as u32,
            ]);
        }
        fn distinct_degree(&self, _index: u64, _code: u64, _metric: usize) -> Option<usize> {
            Some(2)
        }
    }

    #[test]
    fn the_family_capability_or_the_successors_give_the_same_rows() {
        let lookup = |c: u64| Some(c as u32);
        for fast in [false, true] {
            let cycle = Cycle { n: 7, fast };
            let moves = indexed_moves(&cycle);
            assert_eq!(matches!(moves, Indexed::Family(_)), fast);
            let mut row = Vec::new();
            moves.neighbor_indices(3, 3, 0, &lookup, &mut row);
            assert_eq!(row, [4, 2]);
            row.clear();
            moves.neighbor_indices_above(6, 6, 0, &lookup, &mut row);
            assert_eq!(row, [] as [u32; 0], "6's neighbours 0 and 5 are below it");
            let mut outs = vec![Vec::new()];
            moves.neighbor_indices_above_in(0, 0, &[0], &lookup, &mut outs);
            assert_eq!(outs, [vec![1, 6]]);
            let mut arcs = Vec::new();
            moves.each_other_neighbor_index(&[0, 5], 0, &|u| u as u64, &lookup, &mut |u, v| {
                arcs.push((u, v))
            });
            assert_eq!(arcs, [(0, 1), (0, 6), (5, 6), (5, 4)]);
            assert_eq!(moves.distinct_degree(1, 1, 0), fast.then_some(2));
            assert_eq!((moves.cover(0), moves.block_shifts(0)), (None, None));
            assert_eq!(moves.same_components_as(0), 0);
        }
    }
}
