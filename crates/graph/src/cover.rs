//! A move graph stored as a cover of a smaller base graph ([`huarong_core::Cover`]): the base
//! CSR, the permutation of the labels each base arc carries, and the distinct permutations
//! (three sections: `fingerprint, fiber, base states`; offsets, targets, permutation ids; the
//! permutations).
//! State `u` is base state `u / fiber` with label `u % fiber`; its row is the base row, each
//! target `t` lifted to `t · fiber + σ(u % fiber)`, sorted because the base row is strictly
//! increasing. Huarong Dao's labeled graph (59–66M arcs, 0.6–0.7 GB as a CSR) is 1.5 MB so.

use huarong_core::Cover;

use crate::Rows;

/// A verified cover's sections as plain slices.
#[derive(Debug, Clone, Copy)]
pub struct CoverView<'a> {
    /// Labels per base state.
    pub fiber: u32,
    pub offsets: &'a [u32],
    pub targets: &'a [u32],
    pub shift_of_arc: &'a [u32],
    pub shifts: &'a [u32],
}

impl<'a> CoverView<'a> {
    /// The view of an owned cover.
    pub fn of(cover: &'a Cover) -> Self {
        CoverView {
            fiber: cover.fiber,
            offsets: &cover.offsets,
            targets: &cover.targets,
            shift_of_arc: &cover.shift_of_arc,
            shifts: &cover.shifts,
        }
    }

    /// Number of base states.
    pub fn base_len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of states (base states times labels).
    pub fn node_count(&self) -> usize {
        self.base_len() * self.fiber as usize
    }

    /// Number of arcs of the lifted graph.
    pub fn arc_count(&self) -> u64 {
        self.targets.len() as u64 * self.fiber as u64
    }

    /// The base arcs leaving base state `c`.
    #[inline]
    pub fn base_row(&self, c: usize) -> std::ops::Range<usize> {
        self.offsets[c] as usize..self.offsets[c + 1] as usize
    }

    /// The permutation of the labels along base arc `e`.
    #[inline]
    pub fn shift(&self, e: usize) -> &'a [u32] {
        let f = self.fiber as usize;
        &self.shifts[self.shift_of_arc[e] as usize * f..][..f]
    }

    /// The neighbours of state `u`, in increasing order.
    #[inline]
    pub fn lifted(&self, u: u32) -> Lifted<'a> {
        let f = self.fiber;
        Lifted {
            view: *self,
            arcs: self.base_row((u / f) as usize),
            label: (u % f) as usize,
        }
    }

    /// How many states have each out-degree: every label of a base state has its degree.
    pub fn degree_histogram(&self) -> Vec<u64> {
        let mut counts = huarong_core::tally(self.base_len(), |c| Some(self.base_row(c).len()));
        counts.iter_mut().for_each(|c| *c *= self.fiber as u64);
        counts
    }

    /// Checks the sections have a cover's shape: every target a base state, base rows strictly
    /// increasing, every arc's permutation one of the listed ones and each of those a
    /// permutation of the labels, and the lifted states within a `u32` index. Names the first
    /// thing wrong.
    pub fn check(&self) -> Result<(), String> {
        let (n, f) = (self.base_len(), self.fiber as usize);
        if self.offsets.is_empty() || f == 0 {
            return Err("no base states or no labels".into());
        }
        if (n as u64) * f as u64 > u32::MAX as u64 {
            return Err(format!("{n} base states of {f} labels exceed a u32 index"));
        }
        if self.offsets[0] != 0 || self.offsets[n] as usize != self.targets.len() {
            return Err("the offsets do not span the arcs".into());
        }
        if self.shift_of_arc.len() != self.targets.len() {
            return Err("not one permutation per arc".into());
        }
        if !self.shifts.len().is_multiple_of(f) {
            return Err("the permutations are not whole".into());
        }
        let count = self.shifts.len() / f;
        for c in 0..n {
            let (lo, hi) = (self.offsets[c], self.offsets[c + 1]);
            if lo > hi {
                return Err(format!("base row {c}: offsets decrease"));
            }
            let row = &self.targets[lo as usize..hi as usize];
            if row.iter().any(|&t| t as usize >= n) {
                return Err(format!("base row {c}: a target is not a base state"));
            }
            if row.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("base row {c}: targets not strictly increasing"));
            }
        }
        if self.shift_of_arc.iter().any(|&s| s as usize >= count) {
            return Err("an arc names a permutation that is not there".into());
        }
        let mut seen = vec![false; f];
        for (k, perm) in self.shifts.chunks(f).enumerate() {
            seen.iter_mut().for_each(|s| *s = false);
            for &x in perm {
                if x as usize >= f || std::mem::replace(&mut seen[x as usize], true) {
                    return Err(format!(
                        "permutation {k} is not a permutation of the labels"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The neighbours of one state of a cover, generated from its base row.
#[derive(Debug, Clone)]
pub struct Lifted<'a> {
    view: CoverView<'a>,
    arcs: std::ops::Range<usize>,
    label: usize,
}

impl Iterator for Lifted<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let e = self.arcs.next()?;
        let v = &self.view;
        let f = v.fiber as usize;
        let x = v.shifts[v.shift_of_arc[e] as usize * f + self.label];
        Some(v.targets[e] * v.fiber + x)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.arcs.size_hint()
    }
}

impl ExactSizeIterator for Lifted<'_> {}

impl Rows for CoverView<'_> {
    fn node_count(&self) -> usize {
        CoverView::node_count(self)
    }

    #[inline]
    fn row<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
        buf.clear();
        buf.extend(self.lifted(u));
        buf
    }

    /// A few table lookups per arc, in cache: as cheap as reading a stored row.
    fn is_stored(&self) -> bool {
        true
    }

    fn is_directed(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two base states joined by one edge whose permutation swaps the two labels.
    fn swap_edge() -> Cover {
        Cover {
            fiber: 2,
            offsets: vec![0, 1, 2],
            targets: vec![1, 0],
            shift_of_arc: vec![0, 0],
            shifts: vec![1, 0],
        }
    }

    #[test]
    fn rows_lift_the_base_rows() {
        let c = swap_edge();
        let v = CoverView::of(&c);
        assert_eq!(v.check(), Ok(()));
        assert_eq!(v.node_count(), 4);
        assert_eq!(v.arc_count(), 4);
        // (0, 0) -> (1, 1) = 3; (0, 1) -> (1, 0) = 2.
        assert_eq!(v.lifted(0).collect::<Vec<_>>(), [3]);
        assert_eq!(v.lifted(1).collect::<Vec<_>>(), [2]);
        assert_eq!(v.lifted(3).collect::<Vec<_>>(), [0]);
        assert_eq!(v.degree_histogram(), vec![0, 4]);
    }

    #[test]
    fn malformed_covers_are_named() {
        type Spoil = fn(&mut Cover);
        let cases: [(Spoil, &str); 5] = [
            (|c| c.targets[0] = 2, "not a base state"),
            (|c| c.shifts = vec![0, 0], "not a permutation"),
            (|c| c.shift_of_arc[1] = 1, "not there"),
            (|c| c.offsets[2] = 1, "do not span"),
            (|c| c.fiber = 0, "no labels"),
        ];
        for (spoil, want) in cases {
            let mut c = swap_edge();
            spoil(&mut c);
            let err = CoverView::of(&c).check().unwrap_err();
            assert!(err.contains(want), "{err} (wanted {want})");
        }
    }
}
