//! Every layout's distance to the nearest goal of its class: one breadth-first search from all
//! the goals at once, a byte per layout, level by level.
//!
//! A level's layouts are found by scanning a bit per layout, set as each is reached, over the
//! row combinations the level before gave layouts (the frontier is kept as those combinations
//! and those bits; a combination's bits are cleared once it is expanded). Its layouts are
//! expanded a *run* at a time: the layouts of one row combination that differ only in the last
//! column's rank, consecutive indices. Every column but the last has one rank along a run, so a
//! vertical move of one of those columns, and a horizontal move's effect on them ([`Step`]), is
//! the same for the whole run: it maps the run onto a run of the target, and one look at the
//! target's bits settles all the run's layouts at once. Only the last column's moves are
//! looked up per layout ([`Ranked`]: moves as rank differences, ranks with a cell toggled,
//! cells and signatures by rank). A row combination's runs are gathered as their vertical moves
//! are made; each horizontal move then goes over all of them, what it does to each rank of each
//! other column worked out once ([`StepTables`]), not once a run.
//!
//! Whether a target is reached is asked of a bit per layout, not of its byte: the moves' targets
//! are scattered over the class, and the bits of a class of millions of layouts stay in the
//! core's cache where its bytes do not. A byte is written only when its layout is reached.

use super::{Class, Combo, MAX_ARRANGEMENTS, Ranked, turn};

/// A layout no goal reaches (a distance byte).
pub const UNREACHED: u8 = u8::MAX;

/// A horizontal move of one row combination: where it leads and the columns it touches.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// The row combination after the move, its first layout and its columns' weights.
    to: u32,
    offset: u32,
    weight: [u32; 6],
    row: u8,
    /// Columns whose cell in the row the piece newly covers or frees (their rank changes).
    toggled: u8,
    /// Cells the piece passes over or newly covers: no vertical piece may be there.
    swept: u64,
    /// The last column's ranks whose arrangement leaves those cells free (bits).
    fits: u32,
}

/// The eight bytes of `bits` from byte `at`, as one word (bit `i` of byte `at + j` is bit
/// `8j + i`).
#[inline]
fn word(bits: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bits[at..at + 8].try_into().expect("eight bytes"))
}

/// The bits `start..start + len` (`len ≤ 32`) of `seen` (bit `t` is bit `t % 8` of byte
/// `t / 8`), which has eight bytes past its last bit's: one unaligned word holds them.
#[inline]
fn reached(seen: &[u8], start: usize, len: usize) -> u32 {
    ((word(seen, start / 8) >> (start % 8)) & ((1u64 << len) - 1)) as u32
}

/// Sets the bits `new` (`len ≤ 32`) from bit `start` of `bits`, as [`reached`] reads them.
#[inline]
fn set(bits: &mut [u8], start: usize, new: u32) {
    let at = start / 8;
    let word = word(bits, at) | (new as u64) << (start % 8);
    bits[at..at + 8].copy_from_slice(&word.to_le_bytes());
}

/// `x / radix` for `x · radix < 2³²`, by a multiplication: `(x · ⌈2³² / radix⌉) >> 32` is
/// exact there (the error `x · (m · radix − 2³²) / 2³²` stays below 1).
#[inline]
fn divide(x: u32, magic: u64) -> u32 {
    ((x as u64 * magic) >> 32) as u32
}

/// The first bit at or after `from` and before `end` set in `bits` (as [`reached`] reads
/// them: eight bytes past the last bit's).
#[inline]
fn next_set(bits: &[u8], mut from: usize, end: usize) -> Option<usize> {
    while from < end {
        let w = word(bits, from / 8) >> (from % 8);
        if w != 0 {
            let at = from + w.trailing_zeros() as usize;
            return (at < end).then_some(at);
        }
        from += 64 - from % 8;
    }
    None
}

/// Sets (`on`) or clears the bits `from..end` of `bits`.
fn fill(bits: &mut [u8], from: usize, end: usize, on: bool) {
    if from >= end {
        return;
    }
    let (first, last) = (from / 8, (end - 1) / 8);
    let put = |byte: &mut u8, mask: u8| {
        if on {
            *byte |= mask;
        } else {
            *byte &= !mask;
        }
    };
    let low = u8::MAX << (from % 8);
    let high = u8::MAX >> (7 - (end - 1) % 8);
    if first == last {
        put(&mut bits[first], low & high);
    } else {
        put(&mut bits[first], low);
        bits[first + 1..last].fill(if on { u8::MAX } else { 0 });
        put(&mut bits[last], high);
    }
}

/// A search's bits per layout, kept from one search to the next: reached, at the level being
/// expanded, and at the next one.
#[derive(Debug, Default)]
pub(crate) struct Bits {
    seen: Vec<u8>,
    front: Vec<u8>,
    fresh: Vec<u8>,
}

impl Class<'_> {
    /// Every horizontal move of each row combination (free of walls and horizontal pieces):
    /// `steps[first[k]..first[k + 1]]`.
    fn steps(&self) -> (Vec<u32>, Vec<Step>) {
        let n = self.n;
        let tail = &self.columns[n - 1].ranked;
        let mut first = Vec::with_capacity(self.combos.len() + 1);
        let mut steps = Vec::new();
        first.push(0);
        for (k, combo) in self.combos.iter().enumerate() {
            let tail_at = combo.pattern[n - 1] as usize * tail.len;
            for r in 0..n {
                let set = &self.rows[r];
                let from = k / self.row_weight[r] as usize % set.len();
                let old = self.column_bits(set.arrangements[from].line);
                for slide in set.slides(from) {
                    if slide.swept & combo.cover != 0 {
                        continue;
                    }
                    let to = slide.to as usize;
                    let new = self.column_bits(set.arrangements[to].line);
                    let k2 =
                        (k as i64 + (to as i64 - from as i64) * self.row_weight[r] as i64) as u32;
                    let next = &self.combos[k2 as usize];
                    steps.push(Step {
                        to: k2,
                        offset: next.offset as u32,
                        weight: next.weight,
                        row: r as u8,
                        toggled: old ^ new,
                        swept: slide.swept,
                        fits: (0..combo.radix[n - 1] as usize)
                            .filter(|&i| tail.mask[tail_at + i] & slide.swept == 0)
                            .fold(0u32, |m, i| m | 1 << i),
                    });
                }
            }
            first.push(steps.len() as u32);
        }
        (first, steps)
    }

    /// The distances to the goals: `dist` gets one byte per layout, [`UNREACHED`] for the
    /// layouts of clusters without a goal, and `farthest` one per block, its layouts' largest
    /// (the level that reached its last layout; [`UNREACHED`] for a block no goal reaches).
    /// Returns the number of layouts at each distance; `None` if some layout is 255 or more
    /// moves from its goals.
    /// `sizes` holds each block's layouts ([`Class::block_sizes`]), or 0 for a block known to
    /// be out of reach (its cluster has no goal): a row combination or block whose layouts in
    /// reach are all reached is not searched further. `bits` are the search's bits per layout,
    /// kept to be reused.
    pub(crate) fn goal_distances(
        &self,
        sizes: &[u32],
        dist: &mut Vec<u8>,
        bits: &mut Bits,
        farthest: &mut Vec<u8>,
    ) -> Option<Vec<u64>> {
        assert!((1..=6).contains(&self.n), "at most 6 columns");
        let len = self.len as usize;
        let (first, steps) = self.steps();
        dist.clear();
        dist.resize(len, UNREACHED);
        for b in [&mut bits.seen, &mut bits.front, &mut bits.fresh] {
            b.clear();
            b.resize(len / 8 + 9, 0);
        }
        farthest.clear();
        farthest.reserve(self.blocks as usize);
        let mut search = Search {
            class: self,
            dist,
            seen: &mut bits.seen,
            front: &mut bits.front,
            fresh: &mut bits.fresh,
            // Reciprocals of every radix a combination has (at most a column's arrangements).
            magic: (0..=u8::MAX as u64)
                .map(|r| if r == 0 { 0 } else { (1u64 << 32).div_ceil(r) })
                .collect(),
            unreached: (0..self.combos.len())
                .map(|k| self.combo_blocks(k).map(|b| sizes[b]).sum())
                .collect(),
            open: Vec::with_capacity(self.blocks as usize),
            farthest,
            live: Vec::new(),
            runs: Vec::new(),
            tables: None,
            found: 0,
            level: vec![UNREACHED; self.combos.len()],
            next: Vec::new(),
        };
        search.open.extend_from_slice(sizes);
        search.farthest.resize(sizes.len(), UNREACHED);
        for k in self.goal_combos() {
            // A goal's block is all goals (both lie in one row combination).
            for b in self.combo_blocks(k as usize) {
                search.open[b] = 0;
                search.farthest[b] = 0;
            }
            let (start, end) = (
                self.combos[k as usize].offset as usize,
                self.end(k as usize),
            );
            search.dist[start..end].fill(0);
            fill(search.seen, start, end, true);
            fill(search.fresh, start, end, true);
            search.level[k as usize] = 0;
            search.unreached[k as usize] = 0;
            search.next.push(k);
        }
        let mut levels = Vec::new();
        let mut d = 0u8;
        let mut current = Vec::new();
        while !search.next.is_empty() {
            if d == UNREACHED - 1 {
                return None;
            }
            search.found = 0;
            // Each row combination with a layout at distance `d` (in order, for locality),
            // from that layout on.
            std::mem::swap(&mut current, &mut search.next);
            search.next.clear();
            current.sort_unstable();
            std::mem::swap(&mut search.front, &mut search.fresh);
            for &k in &current {
                let k = k as usize;
                let (from, end) = (self.combos[k].offset as usize, self.end(k));
                let Some(s) = next_set(search.front, from, end) else {
                    continue;
                };
                let moves = &steps[first[k] as usize..first[k + 1] as usize];
                // The board's size as a constant: the column loops unrolled, unchecked.
                match self.n {
                    1 => search.expand_combo::<1>(k, s, d, moves),
                    2 => search.expand_combo::<2>(k, s, d, moves),
                    3 => search.expand_combo::<3>(k, s, d, moves),
                    4 => search.expand_combo::<4>(k, s, d, moves),
                    5 => search.expand_combo::<5>(k, s, d, moves),
                    _ => search.expand_combo::<6>(k, s, d, moves),
                }
                fill(search.front, from, end, false);
            }
            levels.push(search.found);
            d += 1;
        }
        Some(levels)
    }

    /// One past the last layout of row combination `k`.
    fn end(&self, k: usize) -> usize {
        self.combos.get(k + 1).map_or(self.len, |c| c.offset) as usize
    }
}

/// The state of one search, level to level.
#[derive(Debug)]
struct Search<'a, 'c> {
    class: &'a Class<'c>,
    dist: &'a mut [u8],
    /// A bit per layout: reached; at the level being expanded; at the next.
    seen: &'a mut [u8],
    front: &'a mut [u8],
    fresh: &'a mut [u8],
    magic: Vec<u64>,
    /// Per row combination and per block: its layouts in reach not reached yet.
    unreached: Vec<u32>,
    open: Vec<u32>,
    /// Per block: the distance of its last layout reached.
    farthest: &'a mut Vec<u8>,
    /// The moves of the row combination being expanded that lead to one with layouts left.
    live: Vec<Step>,
    /// The runs of the row combination being expanded with layouts at the level.
    runs: Vec<Run>,
    tables: Option<Box<StepTables>>,
    /// Layouts reached on this level.
    found: u64,
    /// Per row combination: the last distance given to one of its layouts.
    level: Vec<u8>,
    /// The row combinations with layouts at the next distance (none twice).
    next: Vec<u32>,
}

impl Search<'_, '_> {
    /// Gives the layouts `new` (bits from `base`), which have no distance yet, distance `d`;
    /// `combo` is their row combination; their blocks count them ([`Search::count`]).
    #[inline]
    fn settle(&mut self, base: usize, mut new: u32, d: u8, combo: usize) {
        set(self.seen, base, new);
        set(self.fresh, base, new);
        self.unreached[combo] -= new.count_ones();
        while new != 0 {
            let i = new.trailing_zeros() as usize;
            new &= new - 1;
            self.dist[base + i] = d;
        }
        if self.level[combo] != d {
            self.level[combo] = d;
            self.next.push(combo as u32);
        }
    }

    /// Counts the layouts `new` (bits of the last column's ranks), reached at distance `d`, in
    /// their blocks: `head` is the block but for the last column's signature, `weight` that
    /// signature's weight and `groups` the last column's ranks by signature. A block's last
    /// layout gives its largest distance.
    #[inline]
    fn count(&mut self, new: u32, head: u32, weight: u32, groups: &[(u8, u32)], d: u8) {
        for &(sig, ranks) in groups {
            let count = (new & ranks).count_ones();
            if count == 0 {
                continue;
            }
            let b = (head + sig as u32 * weight) as usize;
            self.open[b] -= count;
            if self.open[b] == 0 {
                self.farthest[b] = d;
            }
        }
    }

    /// Expands every layout at distance `d` of row combination `k`, from layout `first` (the
    /// first of them) on: each run's vertical moves as the run is met, then each horizontal
    /// move over all the runs met (its numbers worked out once, not once a run).
    fn expand_combo<const N: usize>(&mut self, k: usize, first: usize, d: u8, steps: &[Step]) {
        let class = self.class;
        let last = N - 1;
        let combo = &class.combos[k];
        let offset = combo.offset as usize;
        let end = class.end(k);
        let run_len = combo.radix[last] as usize;
        // The moves to a row combination with layouts left (none is gained during a level).
        let mut live = std::mem::take(&mut self.live);
        live.clear();
        live.extend(
            steps
                .iter()
                .filter(|step| self.unreached[step.to as usize] > 0),
        );
        let mut runs = std::mem::take(&mut self.runs);
        runs.clear();
        let mut tables = self.tables.take().unwrap_or_default();
        // The other columns' ranks along run `run`.
        let decode = |run: usize, magic: &[u64]| {
            let mut ranks = [0u8; 6];
            let mut rest = run as u32;
            for c in (0..last).rev() {
                let radix = combo.radix[c] as u32;
                let q = divide(rest, magic[radix as usize]);
                ranks[c] = (rest - q * radix) as u8;
                rest = q;
            }
            ranks
        };
        let mut run = (first - offset) / run_len;
        let mut ranks = decode(run, &self.magic);
        // Per other column, the ranks the runs have (bits); the last column's ranks at the level.
        let mut used = [0u32; 6];
        let mut any = 0u32;
        loop {
            let start = offset + run * run_len;
            let hits = reached(self.front, start, run_len);
            let cells = self.expand_vertical::<N>(k, combo, start, ranks, hits, d);
            if !live.is_empty() {
                runs.push(Run { hits, ranks, cells });
                any |= hits;
                for c in 0..last {
                    used[c] |= 1 << ranks[c];
                }
            }
            // The next run with a layout at distance `d`.
            let Some(at) = next_set(self.front, start + run_len, end) else {
                break;
            };
            // A layout's run: its place in the row combination over the run length (below
            // 22⁶ < 2²⁷ layouts, so the product stays below 2³²).
            let to = divide((at - offset) as u32, self.magic[run_len]) as usize;
            if to - run <= 2 {
                for _ in run..to {
                    // The other columns' odometer, one run on.
                    turn(&mut ranks, &combo.radix[..last]);
                }
            } else {
                ranks = decode(to, &self.magic);
            }
            run = to;
        }
        for step in live.iter().filter(|step| any & step.fits != 0) {
            self.expand_step::<N>(combo, step, &runs, &used, &mut tables, d);
        }
        self.live = live;
        self.runs = runs;
        self.tables = Some(tables);
    }

    /// The layouts `hits` (bits of the last column's ranks) at distance `d` of the run at
    /// `start` of row combination `k`, whose other columns have ranks `ranks`: counted as
    /// reached (the level), then their vertical moves. Returns the cells of the other
    /// columns' pieces.
    fn expand_vertical<const N: usize>(
        &mut self,
        k: usize,
        combo: &Combo,
        start: usize,
        ranks: [u8; 6],
        hits: u32,
        d: u8,
    ) -> u64 {
        let last = N - 1;
        let (ranked, tail_at, run_len) = rankings::<N>(self.class, combo);
        let tail = &ranked[last];
        self.found += hits.count_ones() as u64;
        // What the other columns decide: their index in the rank tables, their cells and the
        // block but for the last column's signature.
        let mut at = [0usize; 6];
        let mut cells = 0u64;
        let mut prefix = combo.block_offset as u32;
        for c in 0..last {
            let col = &ranked[c];
            let i = combo.pattern[c] as usize * col.len + ranks[c] as usize;
            at[c] = i;
            cells |= col.mask[i];
            prefix += col.sig[i] as u32 * combo.block_weight[c];
        }
        if self.unreached[k] == 0 {
            return cells;
        }
        // Vertical moves stay in the layout's block (and keep each column's signature): only
        // the layouts of blocks with layouts left move vertically, and a target's block is its
        // source's.
        let mut open = 0u32;
        let p = combo.pattern[last] as usize;
        let groups = &tail.groups[tail.group_first[p] as usize..tail.group_first[p + 1] as usize];
        let weight = combo.block_weight[last];
        for &(sig, ranks) in groups {
            if self.open[(prefix + sig as u32 * weight) as usize] > 0 {
                open |= ranks;
            }
        }
        let open = hits & open;
        if open == 0 {
            return cells;
        }
        // The other columns': a run onto a run.
        for c in 0..last {
            let col = &ranked[c];
            let w = combo.weight[c] as isize;
            for &delta in &col.delta[col.first[at[c]] as usize..col.first[at[c] + 1] as usize] {
                let base = (start as isize + delta as isize * w) as usize;
                let new = open & !reached(self.seen, base, run_len);
                if new != 0 {
                    self.settle(base, new, d + 1, k);
                    self.count(new, prefix, weight, groups, d + 1);
                }
            }
        }
        // The last column's: within the run, target by target.
        let mut targets = 0u32;
        let mut bits = open;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            targets |= tail.reach[tail_at + i];
        }
        let new = targets & !reached(self.seen, start, run_len);
        if new != 0 {
            self.settle(start, new, d + 1, k);
            self.count(new, prefix, weight, groups, d + 1);
        }
        cells
    }

    /// Horizontal move `step` of row combination `combo` from the layouts at distance `d` of
    /// `runs` (whose other columns have the ranks `used`): each run onto a run of the target
    /// row combination.
    fn expand_step<const N: usize>(
        &mut self,
        combo: &Combo,
        step: &Step,
        runs: &[Run],
        used: &[u32; 6],
        tables: &mut StepTables,
        d: u8,
    ) {
        let class = self.class;
        let n = N;
        let last = N - 1;
        let (ranked, tail_at, _) = rankings::<N>(class, combo);
        let tail = &ranked[last];
        let r = step.row as usize;
        // Per other column and rank the runs have: its part of the target run's first layout
        // after the move (not read for a rank that blocks the piece: the run is passed over).
        let StepTables { moved, part } = tables;
        for c in 0..last {
            let col = &ranked[c];
            let at = combo.pattern[c] as usize * col.len;
            let toggled = step.toggled >> c & 1 == 1;
            let mut ranks = used[c];
            while ranks != 0 {
                let rho = ranks.trailing_zeros() as usize;
                ranks &= ranks - 1;
                let m = if toggled {
                    col.toggled[(at + rho) * n + r]
                } else {
                    rho as u8
                };
                moved[c][rho] = m;
                part[c][rho] = m as u64 * step.weight[c] as u64;
            }
        }
        let to = step.to as usize;
        let next = &class.combos[to];
        // The target's block but for the last column's signature, asked once a layout is
        // reached, and the last column's ranks by signature there.
        let head = |ranks: &[u8; 6]| {
            let mut b = next.block_offset as u32;
            for c in 0..last {
                let col = &ranked[c];
                let m = moved[c][ranks[c] as usize] as usize;
                b += col.sig[next.pattern[c] as usize * col.len + m] as u32 * next.block_weight[c];
            }
            b
        };
        let p = next.pattern[last] as usize;
        let groups = &tail.groups[tail.group_first[p] as usize..tail.group_first[p + 1] as usize];
        let weight = next.block_weight[last];
        let keeps_tail = step.toggled >> last & 1 == 0;
        for run in runs {
            let mut bits = run.hits & step.fits;
            // The other columns' pieces must leave the swept cells free.
            if bits == 0 || run.cells & step.swept != 0 {
                continue;
            }
            let mut base = step.offset as u64;
            for c in 0..last {
                base += part[c][run.ranks[c] as usize];
            }
            let base = base as usize;
            // The last column keeps its rank (the run onto a run) or each layout's changes.
            let targets = if keeps_tail {
                bits
            } else {
                let mut targets = 0u32;
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    targets |= 1 << tail.toggled[(tail_at + i) * n + r];
                }
                targets
            };
            let new = targets & !reached(self.seen, base, MAX_ARRANGEMENTS);
            if new != 0 {
                self.settle(base, new, d + 1, to);
                self.count(new, head(&run.ranks), weight, groups, d + 1);
            }
        }
    }
}

/// The rank tables of `class`'s `N` columns, where the last column's start for row combination
/// `combo`'s pattern, and its run length (the last column's arrangements left).
fn rankings<'c, const N: usize>(
    class: &Class<'c>,
    combo: &Combo,
) -> ([&'c Ranked; N], usize, usize) {
    let ranked: [&'c Ranked; N] = std::array::from_fn(|c| &class.columns[c].ranked);
    let tail_at = combo.pattern[N - 1] as usize * ranked[N - 1].len;
    (ranked, tail_at, combo.radix[N - 1] as usize)
}

/// A horizontal move's numbers per other column and rank ([`Search::expand_step`]): kept
/// from move to move, each entry written before it is read.
#[derive(Debug, Default)]
struct StepTables {
    moved: [[u8; MAX_ARRANGEMENTS]; 6],
    part: [[u64; MAX_ARRANGEMENTS]; 6],
}

/// A run with layouts at the level being expanded: those layouts (bits of the last column's
/// ranks), the other columns' ranks and their pieces' cells.
#[derive(Debug, Clone, Copy)]
struct Run {
    hits: u32,
    ranks: [u8; 6],
    cells: u64,
}

#[cfg(test)]
mod tests {
    use super::{fill, next_set, reached};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn next_set_finds_the_first_set_bit_of_a_window(
            bytes in proptest::collection::vec(prop_oneof![Just(0u8), any::<u8>()], 1..=40),
            from in 0usize..400,
            len in 0usize..200,
        ) {
            let mut bits = bytes;
            let count = bits.len() * 8;
            bits.extend([0; 8]);
            let from = from % count;
            let end = (from + len).min(count);
            let plain = (from..end).find(|&t| bits[t / 8] >> (t % 8) & 1 == 1);
            prop_assert_eq!(next_set(&bits, from, end), plain);
        }

        #[test]
        fn fill_sets_or_clears_a_window_and_nothing_else(
            bytes in proptest::collection::vec(any::<u8>(), 1..=40),
            from in 0usize..400,
            len in 0usize..200,
            on: bool,
        ) {
            let count = bytes.len() * 8;
            let from = from % count;
            let end = (from + len).min(count);
            let mut bits = bytes.clone();
            fill(&mut bits, from, end, on);
            for t in 0..count {
                let was = bytes[t / 8] >> (t % 8) & 1;
                let expected = if (from..end).contains(&t) { on as u8 } else { was };
                prop_assert_eq!(bits[t / 8] >> (t % 8) & 1, expected, "bit {}", t);
            }
        }

        #[test]
        fn reached_reads_the_bits_of_a_window(
            bytes in proptest::collection::vec(any::<u8>(), 1..=32),
            start in 0usize..256,
            len in 0usize..=32,
        ) {
            // The table as the search keeps it: eight bytes past its last bit's.
            let mut seen = bytes;
            let bits = seen.len() * 8;
            seen.extend([0; 8]);
            let start = start % bits;
            let len = len.min(bits - start);
            let plain = (0..len)
                .map(|i| start + i)
                .fold(0u32, |m, t| m | ((seen[t / 8] >> (t % 8) & 1) as u32) << (t - start));
            prop_assert_eq!(reached(&seen, start, len), plain);
        }
    }
}
