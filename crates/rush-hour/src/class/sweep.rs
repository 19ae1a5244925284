//! Every layout's distance to the nearest goal of its class: one breadth-first search from all
//! the goals at once, a byte per layout, level by level.
//!
//! A level is found by scanning the distance bytes for its value (memchr), so no frontier is
//! stored; each of its layouts is expanded from its ranks alone. The ranks come from the index
//! by multiplying with per-radix reciprocals; a vertical move is a rank difference times the
//! column's weight ([`Ranked::delta`]); a horizontal move's row change is the same for every
//! layout of the row combination ([`Step`]), and only the columns it crosses are looked up
//! again ([`Ranked::toggled`]).

use super::{Class, Ranked};

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
}

/// A layout a horizontal move reaches, and its row combination.
#[derive(Debug, Clone, Copy)]
struct Target {
    layout: u32,
    combo: u32,
}

/// Targets gathered before their distances are looked at.
const FLUSH: usize = 1024;

/// `x / radix` for `x · radix < 2³²`, by a multiplication: `(x · ⌈2³² / radix⌉) >> 32` is
/// exact there (the error `x · (m · radix − 2³²) / 2³²` stays below 1).
#[inline]
fn divide(x: u32, magic: u64) -> u32 {
    ((x as u64 * magic) >> 32) as u32
}

impl Class<'_> {
    /// Every horizontal move of each row combination (free of walls and horizontal pieces):
    /// `steps[first[k]..first[k + 1]]`.
    fn steps(&self) -> (Vec<u32>, Vec<Step>) {
        let n = self.n;
        let mut first = Vec::with_capacity(self.combos.len() + 1);
        let mut steps = Vec::new();
        first.push(0);
        for (k, combo) in self.combos.iter().enumerate() {
            for r in 0..n {
                let set = &self.rows[r];
                let from = k / self.row_weight[r] as usize % set.len();
                let old = set.arrangements[from].line;
                for slide in set.slides(from) {
                    if slide.swept & combo.cover != 0 {
                        continue;
                    }
                    let to = slide.to as usize;
                    let new = set.arrangements[to].line;
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
                    });
                }
            }
            first.push(steps.len() as u32);
        }
        (first, steps)
    }

    /// The distances to the goals: `dist` gets one byte per layout, [`UNREACHED`] for the
    /// layouts of clusters without a goal; `expanded(d, block)` is called for every layout at
    /// distance `d` (levels in increasing order) with its block. Returns the number of layouts
    /// at each distance; `None` if some layout is 255 or more moves from its goals.
    pub(crate) fn goal_distances(
        &self,
        dist: &mut Vec<u8>,
        mut expanded: impl FnMut(u8, u32),
    ) -> Option<Vec<u64>> {
        let len = self.len as usize;
        let (first, steps) = self.steps();
        // Reciprocals of every radix a combination has (at most a column's arrangements).
        let magic: Vec<u64> = (0..=u8::MAX as u64)
            .map(|r| if r == 0 { 0 } else { (1u64 << 32).div_ceil(r) })
            .collect();
        dist.clear();
        dist.resize(len, UNREACHED);
        let mut levels = vec![0u64];
        // Per row combination: its layouts not reached yet.
        let mut unreached: Vec<u32> = (0..self.combos.len())
            .map(|k| (self.end(k) - self.combos[k].offset as usize) as u32)
            .collect();
        // Per block: its layouts not reached yet.
        let mut open: Vec<u32> = Vec::with_capacity(self.blocks as usize);
        self.for_each_block(|size, goal| open.push(if goal { 0 } else { size as u32 }));
        for k in self.goal_combos() {
            let start = self.combos[k as usize].offset as usize;
            let end = self.end(k as usize);
            dist[start..end].fill(0);
            levels[0] += (end - start) as u64;
            unreached[k as usize] = 0;
        }
        let mut search = Search {
            dist,
            unreached,
            open,
            live: Vec::new(),
            partial: Vec::new(),
            targets: Vec::with_capacity(FLUSH + 64),
            found: 0,
        };
        let mut d = 0u8;
        while levels[d as usize] > 0 {
            if d == UNREACHED - 1 {
                return None;
            }
            search.found = 0;
            // Each row combination with a layout at distance `d`, from that layout on.
            let mut k = 0usize;
            let mut pos = 0usize;
            while let Some(i) = memchr::memchr(d, &search.dist[pos..]) {
                let s = pos + i;
                while self.end(k) <= s {
                    k += 1;
                }
                self.expand_combo(
                    k,
                    s,
                    d,
                    &steps[first[k] as usize..first[k + 1] as usize],
                    &magic,
                    &mut search,
                    &mut expanded,
                );
                pos = self.end(k);
            }
            search.reach(self, &magic, d + 1);
            levels.push(search.found);
            d += 1;
        }
        levels.pop();
        Some(levels)
    }

    /// Expands every layout at distance `d` of row combination `k`, from layout `first` (the
    /// first of them) on. The layouts come in runs of the last column's ranks; what the other
    /// columns decide — their ranks, cells, block and each horizontal move's target but for the
    /// last column — is worked out once a run.
    #[allow(clippy::too_many_arguments)]
    fn expand_combo(
        &self,
        k: usize,
        first: usize,
        d: u8,
        steps: &[Step],
        magic: &[u64],
        search: &mut Search<'_>,
        expanded: &mut impl FnMut(u8, u32),
    ) {
        let n = self.n;
        assert!((1..=6).contains(&n));
        let last = n - 1;
        let ranked: &[Ranked] = &self.columns.ranked;
        let combo = &self.combos[k];
        let offset = combo.offset as usize;
        let end = self.end(k);
        let run_len = combo.radix[last] as usize;
        let tail = &ranked[last];
        let tail_at = combo.pattern[last] as usize * tail.len;
        // The moves to a row combination with layouts left (none is gained during a level).
        search.live.clear();
        search
            .live
            .extend(steps.iter().filter(|s| search.unreached[s.to as usize] > 0));
        // The run's ranks of the other columns.
        let decode = |run: usize| {
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
        let mut ranks = decode(run);
        loop {
            let start = offset + run * run_len;
            let mut hits = 0u32;
            for (i, &b) in search.dist[start..start + run_len].iter().enumerate() {
                hits |= ((b == d) as u32) << i;
            }
            // What the other columns decide.
            let mut at = [0usize; 6];
            let mut cells = 0u64;
            let mut block = combo.block_offset as u32;
            for c in 0..last {
                let col = &ranked[c];
                let i = combo.pattern[c] as usize * col.len + ranks[c] as usize;
                at[c] = i;
                cells |= col.mask[i];
                block += col.sig[i] as u32 * combo.block_weight[c];
            }
            search.partial.clear();
            for step in &search.live {
                let mut t = u32::MAX;
                if step.swept & cells == 0 {
                    let r = step.row as usize;
                    t = step.offset;
                    for c in 0..last {
                        let mut rank = ranks[c];
                        if step.toggled >> c & 1 == 1 {
                            rank = ranked[c].toggled[at[c] * n + r];
                        }
                        t += rank as u32 * step.weight[c];
                    }
                }
                search.partial.push(t);
            }
            while hits != 0 {
                let i = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                let s = start + i;
                let al = tail_at + i;
                at[last] = al;
                let own = tail.mask[al];
                let block = block + tail.sig[al] as u32 * combo.block_weight[last];
                expanded(d, block);
                // Vertical moves stay in the block: none if it is all reached.
                if search.open[block as usize] > 0 {
                    for (c, col) in ranked.iter().enumerate().take(n) {
                        let w = combo.weight[c] as i64;
                        let moves = col.first[at[c]] as usize..col.first[at[c] + 1] as usize;
                        for &delta in &col.delta[moves] {
                            let t = (s as i64 + delta as i64 * w) as usize;
                            if search.dist[t] == UNREACHED {
                                search.dist[t] = d + 1;
                                search.found += 1;
                                search.unreached[k] -= 1;
                                search.open[block as usize] -= 1;
                            }
                        }
                    }
                }
                for (step, &partial) in search.live.iter().zip(&search.partial) {
                    if partial == u32::MAX || step.swept & own != 0 {
                        continue;
                    }
                    let mut rank = i as u32;
                    if step.toggled >> last & 1 == 1 {
                        rank = tail.toggled[al * n + step.row as usize] as u32;
                    }
                    search.targets.push(Target {
                        layout: partial + rank * step.weight[last],
                        combo: step.to,
                    });
                }
                if search.targets.len() >= FLUSH {
                    search.reach(self, magic, d + 1);
                }
            }
            // The next run with a layout at distance `d`.
            let next = start + run_len;
            let Some(j) = memchr::memchr(d, &search.dist[next..end]) else {
                break;
            };
            let to = (next + j - offset) / run_len;
            if to - run <= 2 {
                for _ in run..to {
                    // The odometer of the other columns, one run on.
                    let mut c = last;
                    while c > 0 {
                        c -= 1;
                        ranks[c] += 1;
                        if ranks[c] < combo.radix[c] {
                            break;
                        }
                        ranks[c] = 0;
                    }
                }
            } else {
                ranks = decode(to);
            }
            run = to;
        }
    }

    /// One past the last layout of row combination `k`.
    fn end(&self, k: usize) -> usize {
        self.combos.get(k + 1).map_or(self.len, |c| c.offset) as usize
    }
}

/// The state of one search, level to level.
#[derive(Debug)]
struct Search<'a> {
    dist: &'a mut [u8],
    /// Per row combination and per block: its layouts not reached yet.
    unreached: Vec<u32>,
    open: Vec<u32>,
    /// The moves of the row combination being expanded, and for the run being expanded
    /// their targets but for the last column (`u32::MAX`: a vertical piece is in the way).
    live: Vec<Step>,
    partial: Vec<u32>,
    /// Targets of horizontal moves not looked at yet.
    targets: Vec<Target>,
    /// Layouts reached on this level.
    found: u64,
}

impl Search<'_> {
    /// Gives distance `d` to every target not reached yet, then forgets them. Apart from the
    /// search so that the loads of many targets are in flight at once.
    fn reach(&mut self, class: &Class<'_>, magic: &[u64], d: u8) {
        let n = class.n;
        let ranked: &[Ranked] = &class.columns.ranked;
        for target in &self.targets {
            let t = target.layout as usize;
            if self.dist[t] != UNREACHED {
                continue;
            }
            self.dist[t] = d;
            self.found += 1;
            let to = target.combo as usize;
            self.unreached[to] -= 1;
            // Its block, from its ranks.
            let next = &class.combos[to];
            let mut rest = target.layout - next.offset as u32;
            let mut b = next.block_offset as u32;
            for c in (0..n).rev() {
                let radix = next.radix[c] as u32;
                let q = divide(rest, magic[radix as usize]);
                let col = &ranked[c];
                let i = next.pattern[c] as usize * col.len + (rest - q * radix) as usize;
                b += col.sig[i] as u32 * next.block_weight[c];
                rest = q;
            }
            self.open[b as usize] -= 1;
        }
        self.targets.clear();
    }
}
