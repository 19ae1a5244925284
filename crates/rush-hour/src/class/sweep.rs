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
        let n = self.n;
        let len = self.len as usize;
        let ranked: &[Ranked] = &self.columns.ranked;
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
        let mut hits: Vec<u32> = Vec::new();
        let mut live: Vec<Step> = Vec::new();
        let mut d = 0u8;
        while levels[d as usize] > 0 {
            if d == UNREACHED - 1 {
                return None;
            }
            let before: u64 = unreached.iter().map(|&u| u as u64).sum();
            let mut k = 0usize;
            let mut live_of = usize::MAX;
            const CHUNK: usize = 1 << 16;
            for chunk in (0..len).step_by(CHUNK) {
                hits.clear();
                let bytes = &dist[chunk..len.min(chunk + CHUNK)];
                hits.extend(memchr::memchr_iter(d, bytes).map(|i| (chunk + i) as u32));
                for &s in &hits {
                    if self.end(k) <= s as usize || live_of != k {
                        while self.end(k) <= s as usize {
                            k += 1;
                        }
                        // The moves of this row combination to one with layouts left
                        // (none is gained during the level).
                        live.clear();
                        live.extend(
                            steps[first[k] as usize..first[k + 1] as usize]
                                .iter()
                                .filter(|step| unreached[step.to as usize] > 0),
                        );
                        live_of = k;
                    }
                    let combo = &self.combos[k];
                    // The ranks, last column first.
                    let mut ranks = [0u8; 6];
                    let mut rest = s - combo.offset as u32;
                    for c in (0..n).rev() {
                        let radix = combo.radix[c] as u32;
                        let q = divide(rest, magic[radix as usize]);
                        ranks[c] = (rest - q * radix) as u8;
                        rest = q;
                    }
                    let mut block = combo.block_offset as u32;
                    let mut vertical = 0u64;
                    let mut at = [0usize; 6];
                    for c in 0..n {
                        let i = combo.pattern[c] as usize * ranked[c].len + ranks[c] as usize;
                        at[c] = i;
                        block += ranked[c].sig[i] as u32 * combo.block_weight[c];
                        vertical |= ranked[c].mask[i];
                    }
                    expanded(d, block);
                    // Vertical moves stay in the block: none if it is all reached.
                    if open[block as usize] > 0 {
                        for c in 0..n {
                            let col = &ranked[c];
                            let w = combo.weight[c] as i64;
                            let moves = col.first[at[c]] as usize..col.first[at[c] + 1] as usize;
                            for &delta in &col.delta[moves] {
                                let t = (s as i64 + delta as i64 * w) as usize;
                                if dist[t] == UNREACHED {
                                    dist[t] = d + 1;
                                    unreached[k] -= 1;
                                    open[block as usize] -= 1;
                                }
                            }
                        }
                    }
                    for step in &live {
                        let to = step.to as usize;
                        if step.swept & vertical != 0 {
                            continue;
                        }
                        let r = step.row as usize;
                        let mut t = step.offset;
                        let mut moved = [0u8; 6];
                        for c in 0..n {
                            let mut rank = ranks[c];
                            if step.toggled >> c & 1 == 1 {
                                rank = ranked[c].toggled[at[c] * n + r];
                            }
                            moved[c] = rank;
                            t += rank as u32 * step.weight[c];
                        }
                        if dist[t as usize] == UNREACHED {
                            dist[t as usize] = d + 1;
                            unreached[to] -= 1;
                            let next = &self.combos[to];
                            let mut b = next.block_offset as u32;
                            for c in 0..n {
                                let col = &ranked[c];
                                let i = next.pattern[c] as usize * col.len + moved[c] as usize;
                                b += col.sig[i] as u32 * next.block_weight[c];
                            }
                            open[b as usize] -= 1;
                        }
                    }
                }
            }
            let found: u64 = before - unreached.iter().map(|&u| u as u64).sum::<u64>();
            d += 1;
            levels.push(found);
        }
        levels.pop();
        Some(levels)
    }

    /// One past the last layout of row combination `k`.
    fn end(&self, k: usize) -> usize {
        self.combos.get(k + 1).map_or(self.len, |c| c.offset) as usize
    }
}
