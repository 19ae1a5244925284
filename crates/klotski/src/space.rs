//! The unlabeled and labeled state spaces of a piece set, with perfect rankings.
//!
//! * [`Unlabeled`]: every position with same-shaped pieces identical. Its codes are generated in
//!   increasing order by a depth-first tiling of the board, so a state's rank is a binary search
//!   in one sorted array (O(log n), no hash map).
//! * [`Labeled`]: every position with the pieces of each kind told apart. A labeled position is an
//!   unlabeled one plus one permutation per kind (the labels of that kind's pieces in scan order):
//!   `rank = canonical_rank · h!·v!·s! + (rank_h · v! + rank_v) · s! + rank_s` (Lehmer ranks). Its
//!   code is `canonical_code << 28 | permutation index`, so codes increase with ranks too.

use std::sync::OnceLock;

use huarong_core::indexed::Lookup;
use huarong_core::{Cover, DistanceSources, Fingerprint, IndexedMoves, Puzzle, Ranking};

use crate::bits::Decoder;
use crate::board::{Board, CELLS, COLS, Kind, Metric, Move, PieceSet, mask_at};
use crate::notation;
use crate::perm::{self, SlotShift};

/// Bits of a labeled code holding the permutation index.
pub const LABEL_BITS: u32 = 28;

/// Version of the code encoding and ranking of both spaces (part of every fingerprint): bump it
/// when codes or ranks change meaning, so old state tables are rebuilt.
const ENCODING_VERSION: u64 = 1;

/// A space that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpaceError {
    #[error(
        "the labeled space of {set} is too large: {states} states (at most 2^32 - 1 fit a dense u32 index)"
    )]
    TooLarge { set: PieceSet, states: u128 },
}

/// All positions of one piece set, same-shaped pieces identical.
#[derive(Debug, Clone)]
pub struct Unlabeled {
    set: PieceSet,
    codes: Vec<u64>,
    /// `buckets[k]..buckets[k + 1]`: the ranks of the codes whose [`bucket`] is `k` (a ranking
    /// probe then binary-searches a handful of codes instead of the whole table).
    buckets: Vec<u32>,
}

/// Bits of a code's symbols that pick its bucket.
const BUCKET_BITS: u32 = 12;

/// The bucket of a code: Cao Cao's index and the first symbols. Monotonic in the code, so
/// sorted codes fill buckets in order.
#[inline]
fn bucket(code: u64) -> usize {
    ((code >> 32) as usize) << BUCKET_BITS | (code as u32 >> (32 - BUCKET_BITS)) as usize
}

/// Calls `f` with the positions one move from `code` in `metric`, generated on bitboards into a
/// buffer kept per thread.
fn with_successors(code: u64, metric: usize, f: impl FnOnce(&[crate::bits::Bits])) {
    thread_local!(static NEXT: std::cell::RefCell<Vec<crate::bits::Bits>> = Default::default());
    NEXT.with_borrow_mut(|next| {
        next.clear();
        crate::bits::Bits::from_code(code).successors(Metric::from_index(metric), next);
        f(next)
    });
}

impl Unlabeled {
    /// Enumerates the space (a depth-first tiling; codes come out sorted).
    pub fn new(set: PieceSet) -> Self {
        let mut codes = Vec::new();
        for cao in 0..12u64 {
            let (r, c) = ((cao / 3) as i32, (cao % 3) as i32);
            let occ = mask_at(Kind::Cao, r, c).expect("Cao anchor fits");
            let mut t = Tiler {
                left: [set.empty_cells(), set.s, set.v, set.h],
                prefix: cao << 32,
                out: &mut codes,
            };
            t.fill(occ, 0, 0, 0);
        }
        debug_assert!(codes.windows(2).all(|w| w[0] < w[1]));
        let mut buckets = vec![0u32; (12 << BUCKET_BITS) + 1];
        for &c in &codes {
            buckets[bucket(c) + 1] += 1;
        }
        for k in 1..buckets.len() {
            buckets[k] += buckets[k - 1];
        }
        Unlabeled {
            set,
            codes,
            buckets,
        }
    }

    pub fn piece_set(&self) -> PieceSet {
        self.set
    }

    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// All codes in rank order.
    pub fn codes(&self) -> &[u64] {
        &self.codes
    }

    /// The rank of an unlabeled code.
    pub fn index_of(&self, code: u64) -> Option<u32> {
        let k = bucket(code);
        if k + 1 >= self.buckets.len() {
            return None;
        }
        let (lo, hi) = (self.buckets[k] as usize, self.buckets[k + 1] as usize);
        self.codes[lo..hi]
            .binary_search(&code)
            .ok()
            .map(|i| (lo + i) as u32)
    }

    /// The rank of a board of this piece set (labels ignored).
    pub fn index_of_board(&self, board: &Board) -> Option<u32> {
        self.index_of(board.code())
    }

    pub fn board(&self, index: u32) -> Board {
        Board::from_code(self.codes[index as usize], self.set).expect("stored codes are valid")
    }

    /// `code`'s successors in each of `metrics`, ranked, appended to `outs` (sorted and
    /// distinct: one piece's move never gives the position another piece's move gives) — only
    /// those whose code is larger when `above` ([`crate::bits::Bits::each_successor_above_in`]:
    /// the others are not even generated). Each successor is generated and ranked once
    /// for all of `metrics` ([`crate::bits::Bits::each_successor_in`]), the successors sorted
    /// once by rank, then handed to the metrics whose move reaches them.
    fn ranked_successors(&self, code: u64, metrics: &[usize], above: bool, outs: &mut [Vec<u32>]) {
        let wanted = metrics.iter().fold(0u8, |w, &m| w | 1 << m);
        // The graph stage hands each thread a run of states in increasing order.
        thread_local!(static DECODER: std::cell::RefCell<Decoder> = Default::default());
        thread_local!(static KEYS: std::cell::RefCell<Vec<u64>> = Default::default());
        let bits = DECODER.with_borrow_mut(|d| d.decode(code));
        KEYS.with_borrow_mut(|keys| {
            keys.clear();
            let mut key =
                |b: crate::bits::Bits, reached: u8| keys.push(b.code() << 8 | u64::from(reached));
            if above {
                bits.each_successor_above_in(wanted, &mut key);
            } else {
                bits.each_successor_in(wanted, &mut key);
            }
            self.rank_keys(keys);
            sort_small(keys);
            for &key in keys.iter() {
                let (rank, reached) = ((key >> 8) as u32, key as u8);
                for (&m, out) in metrics.iter().zip(outs.iter_mut()) {
                    if reached >> m & 1 != 0 {
                        out.push(rank);
                    }
                }
            }
        });
    }

    /// Replaces the code in each of `keys` (`code << 8 | metrics`) by its rank.
    fn rank_keys(&self, keys: &mut [u64]) {
        for key in keys {
            let rank = self
                .index_of(*key >> 8)
                .expect("a successor of a state is a state of the same space");
            *key = u64::from(rank) << 8 | (*key & 0xff);
        }
    }
}

/// Sorts a handful of keys (by insertion).
fn sort_small(keys: &mut [u64]) {
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
    }
}

struct Tiler<'a> {
    /// Remaining empty cells, soldiers, verticals, horizontals (indexed by symbol).
    left: [u8; 4],
    prefix: u64,
    out: &'a mut Vec<u64>,
}

impl Tiler<'_> {
    fn fill(&mut self, occ: u32, from: usize, syms: u32, n: u32) {
        let Some(i) = (from..CELLS).find(|&i| occ & (1 << i) == 0) else {
            if self.left == [0; 4] {
                let s = if n == 0 { 0 } else { syms << (32 - 2 * n) };
                self.out.push(self.prefix | s as u64);
            }
            return;
        };
        let (r, c) = ((i / COLS) as i32, (i % COLS) as i32);
        for sym in 0..4u32 {
            if self.left[sym as usize] == 0 {
                continue;
            }
            let m = match sym {
                0 => 1 << i,
                1 => 1 << i,
                2 => match mask_at(Kind::Vertical, r, c) {
                    Some(m) => m,
                    None => continue,
                },
                _ => match mask_at(Kind::Horizontal, r, c) {
                    Some(m) => m,
                    None => continue,
                },
            };
            if m & occ != 0 {
                continue;
            }
            self.left[sym as usize] -= 1;
            self.fill(occ | m, i + 1, (syms << 2) | sym, n + 1);
            self.left[sym as usize] += 1;
        }
    }
}

impl Puzzle for Unlabeled {
    fn name(&self) -> &'static str {
        "huarong"
    }

    fn space_id(&self) -> String {
        format!("{}-unlabeled", self.set)
    }

    /// The space id names the piece set; the rest is the encoding's version.
    fn parameters(&self, key: &mut Fingerprint) {
        key.add_u64(ENCODING_VERSION);
    }

    fn metrics(&self) -> &'static [&'static str] {
        &Metric::NAMES
    }

    fn ranking(&self) -> Option<&dyn Ranking> {
        Some(self)
    }

    /// Not stored: the graph stage generates every metric's rows in one pass and holds them for
    /// the run's later stages (the 203 piece sets' graphs would be 3.9 GB on disk that nothing
    /// reads again); a reopened graph's rows are generated again.
    fn stores_graph(&self) -> bool {
        false
    }

    /// Moves on bitboards ([`crate::bits`]), decoded from and encoded to compact codes directly
    /// (`tests/properties.rs` checks them against the board model's moves).
    fn successors(&self, code: u64, metric: usize, out: &mut Vec<u64>) {
        with_successors(code, metric, |next| {
            out.extend(next.iter().map(|b| b.code()))
        });
    }

    fn is_goal(&self, code: u64) -> bool {
        code >> 32 == GOAL_CAO_INDEX
    }

    fn render(&self, code: u64) -> String {
        notation::render(&Board::from_code(code, self.set).expect("valid code"))
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        let parsed = notation::parse(text).map_err(|e| e.to_string())?;
        let set = parsed.board.piece_set();
        if set != self.set {
            return Err(format!("piece set {set}, not this space's {}", self.set).into());
        }
        Ok(parsed.board.code())
    }

    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Goals
    }

    fn indexed_moves(&self) -> Option<&dyn IndexedMoves> {
        Some(self)
    }
}

impl IndexedMoves for Unlabeled {
    /// The default's work without its per-call vector and dynamic lookup: this runs once per
    /// state and metric in the graph stage (the universe's 29M states).
    fn neighbor_indices(
        &self,
        _index: u64,
        code: u64,
        metric: usize,
        _lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        with_successors(code, metric, |next| {
            out.extend(next.iter().map(|b| {
                self.index_of(b.code())
                    .expect("a successor of a state is a state of the same space")
            }))
        });
    }

    /// Each successor generated and ranked once for all of `metrics`
    /// ([`Unlabeled::ranked_successors`]); every metric's list comes sorted and distinct, so the
    /// graph stage sorts nothing.
    fn neighbor_indices_in(
        &self,
        _index: u64,
        code: u64,
        metrics: &[usize],
        _lookup: &Lookup<'_>,
        outs: &mut [Vec<u32>],
    ) {
        self.ranked_successors(code, metrics, false, outs);
    }

    /// Ranks follow codes (the state table is sorted), so a successor leads up in the ranking
    /// exactly when its code is larger, which its move tells: the others are not generated.
    fn ranks_above(&self) -> bool {
        true
    }

    fn neighbor_indices_above_in(
        &self,
        _index: u64,
        code: u64,
        metrics: &[usize],
        _lookup: &Lookup<'_>,
        outs: &mut [Vec<u32>],
    ) {
        self.ranked_successors(code, metrics, true, outs);
    }

    /// Every metric joins the positions step moves join (`tests` in the components crate).
    fn same_components_as(&self, _metric: usize) -> usize {
        Metric::Step as usize
    }
}

impl Ranking for Unlabeled {
    fn states(&self) -> u64 {
        self.codes.len() as u64
    }

    fn unrank(&self, index: u64) -> u64 {
        self.codes[index as usize]
    }

    fn rank(&self, code: u64) -> Option<u64> {
        self.index_of(code).map(u64::from)
    }
}

/// Cao Cao's anchor index (row·3 + column) in the goal position.
const GOAL_CAO_INDEX: u64 = 3 * 3 + 1;

/// One edge of the unlabeled graph, annotated with how labels shift along it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LiftEdge {
    target: u32,
    /// Index into [`Kind::LABELED`], or 3 for Cao Cao (no labels shift).
    kind: u8,
    from: u8,
    to: u8,
}

#[derive(Debug)]
struct Lift {
    offsets: Vec<u32>,
    edges: Vec<LiftEdge>,
}

/// All positions of one piece set with the pieces of each kind told apart.
#[derive(Debug)]
pub struct Labeled {
    base: Unlabeled,
    /// `h!`, `v!`, `s!`.
    fact: [u32; 3],
    /// Labeled states per unlabeled state: `h!·v!·s!`.
    per_canonical: u32,
    shifts: [SlotShift; 3],
    lifts: [OnceLock<Lift>; 3],
    /// Per metric, the cover ([`IndexedMoves::cover`]): built once, as every stage and the export
    /// open the graph through it.
    covers: [OnceLock<Cover>; 3],
}

impl Labeled {
    pub fn new(set: PieceSet) -> Result<Self, SpaceError> {
        Self::over(Unlabeled::new(set))
    }

    /// The labeled space over an already enumerated unlabeled one.
    pub fn over(base: Unlabeled) -> Result<Self, SpaceError> {
        let set = base.set;
        let counts = [set.h as usize, set.v as usize, set.s as usize];
        let too_large = |states| SpaceError::TooLarge { set, states };
        let fact_big: Vec<u128> = counts
            .iter()
            .map(|&n| (1..=n as u128).product::<u128>())
            .collect();
        let per: u128 = fact_big.iter().product();
        let states = per * base.len() as u128;
        if per >= 1 << LABEL_BITS || states >= u32::MAX as u128 {
            return Err(too_large(states));
        }
        Ok(Labeled {
            fact: [fact_big[0] as u32, fact_big[1] as u32, fact_big[2] as u32],
            per_canonical: per as u32,
            shifts: counts.map(SlotShift::new),
            lifts: Default::default(),
            covers: Default::default(),
            base,
        })
    }

    pub fn base(&self) -> &Unlabeled {
        &self.base
    }

    /// Labeled states per unlabeled state (`h!·v!·s!`).
    pub fn per_canonical(&self) -> u32 {
        self.per_canonical
    }

    pub fn len(&self) -> u64 {
        self.base.len() as u64 * self.per_canonical as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The unlabeled index of a labeled index.
    pub fn canonical_index(&self, index: u64) -> u32 {
        (index / self.per_canonical as u64) as u32
    }

    fn split(&self, r: u32) -> [u32; 3] {
        let [_, fv, fs] = self.fact;
        [r / (fv * fs), (r / fs) % fv, r % fs]
    }

    fn join(&self, p: [u32; 3]) -> u32 {
        let [_, fv, fs] = self.fact;
        (p[0] * fv + p[1]) * fs + p[2]
    }

    /// The code of a labeled board.
    pub fn code_of(&self, board: &Board) -> u64 {
        let seqs = board.label_sequences();
        let ranks = [
            perm::rank(&seqs[0]),
            perm::rank(&seqs[1]),
            perm::rank(&seqs[2]),
        ];
        (board.code() << LABEL_BITS) | self.join(ranks) as u64
    }

    /// The labeled board of a code.
    pub fn board_of(&self, code: u64) -> Option<Board> {
        let r = (code & ((1 << LABEL_BITS) - 1)) as u32;
        if r >= self.per_canonical {
            return None;
        }
        let board = Board::from_code(code >> LABEL_BITS, self.base.set)?;
        let parts = self.split(r);
        let counts = [self.base.set.h, self.base.set.v, self.base.set.s];
        // At most 16 pieces of a kind (`perm::unrank`'s bound), on the stack.
        let mut seqs = [[0u8; 16]; 3];
        for k in 0..3 {
            perm::unrank(parts[k], &mut seqs[k][..counts[k] as usize]);
        }
        let seqs: [&[u8]; 3] = std::array::from_fn(|k| &seqs[k][..counts[k] as usize]);
        Some(board.with_labels(&seqs))
    }

    /// The unlabeled graph of `metric` with each move's label shift (see [`IndexedMoves::cover`]).
    fn build_cover(&self, metric: Metric) -> Cover {
        let lift = self.lift(metric);
        let key = |e: &LiftEdge| (e.kind, e.from, e.to);
        let mut ids = std::collections::BTreeMap::new();
        for e in &lift.edges {
            let next = ids.len() as u32;
            ids.entry(key(e)).or_insert(next);
        }
        let per = self.per_canonical;
        let mut shifts = vec![0u32; ids.len() * per as usize];
        for (&(kind, from, to), &id) in &ids {
            let perm = &mut shifts[(id * per) as usize..][..per as usize];
            for (l, out) in perm.iter_mut().enumerate() {
                let mut p = self.split(l as u32);
                if kind < 3 {
                    let k = kind as usize;
                    p[k] = self.shifts[k].apply(from, to, p[k]);
                }
                *out = self.join(p);
            }
        }
        let (mut targets, mut shift_of_arc) = (Vec::new(), Vec::new());
        for c in 0..self.base.len() {
            let (lo, hi) = (lift.offsets[c] as usize, lift.offsets[c + 1] as usize);
            let mut row: Vec<&LiftEdge> = lift.edges[lo..hi].iter().collect();
            row.sort_unstable_by_key(|e| e.target);
            targets.extend(row.iter().map(|e| e.target));
            shift_of_arc.extend(row.iter().map(|e| ids[&key(e)]));
        }
        Cover {
            fiber: per,
            offsets: lift.offsets.clone(),
            targets,
            shift_of_arc,
            shifts,
        }
    }

    fn lift(&self, metric: Metric) -> &Lift {
        self.lifts[metric as usize].get_or_init(|| {
            let mut offsets = vec![0u32];
            let mut edges = Vec::new();
            let mut moves = Vec::new();
            for i in 0..self.base.len() as u32 {
                let board = self.base.board(i);
                moves.clear();
                board.moves(metric, &mut moves);
                for mv in &moves {
                    edges.push(lift_edge(&self.base, &board, mv));
                }
                offsets.push(edges.len() as u32);
            }
            Lift { offsets, edges }
        })
    }
}

fn lift_edge(base: &Unlabeled, board: &Board, mv: &Move) -> LiftEdge {
    let target = base
        .index_of_board(&board.apply(mv))
        .expect("a move stays in the space");
    let Some(kind) = mv.piece.kind.labeled_slot() else {
        return LiftEdge {
            target,
            kind: 3,
            from: 0,
            to: 0,
        };
    };
    let same: Vec<u8> = board
        .pieces()
        .filter(|p| p.kind == mv.piece.kind)
        .map(|p| p.anchor)
        .collect();
    let from = same.iter().filter(|&&a| a < mv.piece.anchor).count() as u8;
    let to = same
        .iter()
        .filter(|&&a| a != mv.piece.anchor && a < mv.to)
        .count() as u8;
    LiftEdge {
        target,
        kind: kind as u8,
        from,
        to,
    }
}

impl Puzzle for Labeled {
    fn name(&self) -> &'static str {
        "huarong"
    }

    fn space_id(&self) -> String {
        format!("{}-labeled", self.base.set)
    }

    fn parameters(&self, key: &mut Fingerprint) {
        key.add_u64(ENCODING_VERSION);
    }

    fn metrics(&self) -> &'static [&'static str] {
        &Metric::NAMES
    }

    fn ranking(&self) -> Option<&dyn Ranking> {
        Some(self)
    }

    fn successors(&self, code: u64, metric: usize, out: &mut Vec<u64>) {
        let board = self.board_of(code).expect("valid code");
        let mut moves = Vec::new();
        board.moves(Metric::from_index(metric), &mut moves);
        out.extend(moves.iter().map(|m| self.code_of(&board.apply(m))));
    }

    fn is_goal(&self, code: u64) -> bool {
        code >> (32 + LABEL_BITS) == GOAL_CAO_INDEX
    }

    fn render(&self, code: u64) -> String {
        notation::render_labeled(&self.board_of(code).expect("valid code"))
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        let parsed = notation::parse(text).map_err(|e| e.to_string())?;
        let set = parsed.board.piece_set();
        if set != self.base.set {
            return Err(format!("piece set {set}, not this space's {}", self.base.set).into());
        }
        if !parsed.labeled {
            return Err(
                "a labeled space needs a labeled layout (e.g. 1CC2/1CC2/3HH4/3ab4/c..d)".into(),
            );
        }
        Ok(self.code_of(&parsed.board))
    }

    fn indexed_moves(&self) -> Option<&dyn IndexedMoves> {
        Some(self)
    }
}

impl IndexedMoves for Labeled {
    /// As the unlabeled space's: a labeled move is an unlabeled one with labels shifted.
    fn same_components_as(&self, _metric: usize) -> usize {
        Metric::Step as usize
    }

    /// Distinct moves lead to distinct positions (a piece cannot land where another one stands),
    /// so a labeled state has exactly as many neighbours as its canonical state has moves.
    fn distinct_degree(&self, index: u64, _code: u64, metric: usize) -> Option<usize> {
        let lift = self.lift(Metric::from_index(metric));
        let c = (index / self.per_canonical as u64) as usize;
        Some((lift.offsets[c + 1] - lift.offsets[c]) as usize)
    }

    /// The unlabeled graph with each move's label shift: one permutation of the `h!·v!·s!`
    /// labels per distinct (kind, slot from, slot to), the identity for Cao Cao's moves.
    fn cover(&self, metric: usize) -> Option<Cover> {
        let m = Metric::from_index(metric);
        Some(
            self.covers[m as usize]
                .get_or_init(|| self.build_cover(m))
                .clone(),
        )
    }

    /// Labeled moves are unlabeled moves with the moved kind's labels shifted: one table lookup
    /// per edge instead of decoding, moving and re-ranking a board.
    fn neighbor_indices(
        &self,
        index: u64,
        _code: u64,
        metric: usize,
        _lookup: &Lookup<'_>,
        out: &mut Vec<u32>,
    ) {
        let lift = self.lift(Metric::from_index(metric));
        let per = self.per_canonical as u64;
        let c = (index / per) as usize;
        let parts = self.split((index % per) as u32);
        let (lo, hi) = (lift.offsets[c] as usize, lift.offsets[c + 1] as usize);
        for e in &lift.edges[lo..hi] {
            let mut p = parts;
            if e.kind < 3 {
                let k = e.kind as usize;
                p[k] = self.shifts[k].apply(e.from, e.to, p[k]);
            }
            out.push((e.target as u64 * per + self.join(p) as u64) as u32);
        }
    }
}

impl Ranking for Labeled {
    fn states(&self) -> u64 {
        self.len()
    }

    fn unrank(&self, index: u64) -> u64 {
        let per = self.per_canonical as u64;
        (self.base.codes[(index / per) as usize] << LABEL_BITS) | (index % per)
    }

    fn rank(&self, code: u64) -> Option<u64> {
        let r = code & ((1 << LABEL_BITS) - 1);
        if r >= self.per_canonical as u64 {
            return None;
        }
        let c = self.base.index_of(code >> LABEL_BITS)?;
        Some(c as u64 * self.per_canonical as u64 + r)
    }
}
