//! Connected components of a graph stored as a cover ([`graph::CoverView`]), from its base graph
//! and the labels, without visiting a lifted arc.
//!
//! Walk each base component `C` breadth-first from its smallest state `r`, carrying for every
//! base state `v` the map `ρ_v` from a label at `v` to the label at `r` the tree path brings it
//! to (`ρ_r` is the identity). Tree arcs keep root labels; every other arc `u → t` with
//! permutation `σ` joins root labels `ρ_u(l)` and `ρ_t(σ(l))` for every `l`. So the lifted
//! components over `C` are the classes of root labels under those joins (a union-find of
//! `fiber` entries per base component), and the component of `(v, l)` is the class of `ρ_v(l)`.
//! Every lifted component meets `r`'s fiber, so its smallest member is `(r, smallest label of
//! the class)`: components numbered by smallest member count up by base component, then by
//! class in order of its smallest label, and a component's size is `|C|` times its class's.

use graph::CoverView;
use rayon::prelude::*;

/// Every state's component id and every component's size, as [`crate::ids_and_sizes`] of a
/// union-find over the lifted rows gives them.
pub fn cover_components(cover: &CoverView<'_>) -> (Vec<u32>, Vec<u64>) {
    let (n, f) = (cover.base_len(), cover.fiber as usize);
    // `out[v·f + l]` holds ρ_v(l) until the last pass turns it into the root.
    let mut out = vec![0u32; n * f];
    // Per base state: its base component; per base component and root label: the id of the
    // lifted component; per lifted component: its size.
    let mut comp = vec![u32::MAX; n];
    let (mut id_of, mut sizes): (Vec<u32>, Vec<u64>) = (Vec::new(), Vec::new());
    let mut components = 0u32;
    // 0: unseen, 1: queued, 2: its arcs done.
    let mut seen = vec![0u8; n];
    let mut parent = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::new();
    let mut classes = Classes::new(f);
    for r in 0..n {
        if seen[r] != 0 {
            continue;
        }
        let c = components;
        components += 1;
        let mut members = 0u64;
        classes.reset();
        for (l, x) in out[r * f..][..f].iter_mut().enumerate() {
            *x = l as u32;
        }
        seen[r] = 1;
        comp[r] = c;
        queue.push_back(r);
        while let Some(u) = queue.pop_front() {
            seen[u] = 2;
            members += 1;
            for e in cover.base_row(u) {
                let t = cover.targets[e] as usize;
                let sigma = cover.shift(e);
                match seen[t] {
                    0 => {
                        // A tree arc: ρ_t(σ(l)) = ρ_u(l).
                        let (from, to) = two_blocks(&mut out, u, t, f);
                        for (l, &x) in from.iter().enumerate() {
                            to[sigma[l] as usize] = x;
                        }
                        seen[t] = 1;
                        comp[t] = c;
                        parent[t] = u as u32;
                        queue.push_back(t);
                    }
                    // Still queued: its own pass sees this arc's reverse, with `u` done.
                    1 => {}
                    _ if parent[u] as usize == t || classes.count == 1 => {}
                    _ => {
                        for l in 0..f {
                            let a = out[u * f + l];
                            let b = out[t * f + sigma[l] as usize];
                            classes.join(a, b);
                        }
                    }
                }
            }
        }
        // Classes in order of their smallest label, which is their root.
        let least = classes.least();
        let first = sizes.len() as u32;
        let mut class_size = Vec::new();
        let mut ordinal = vec![0u32; f];
        for (x, &root) in least.iter().enumerate() {
            if root as usize == x {
                ordinal[x] = class_size.len() as u32;
                class_size.push(0u64);
            }
            class_size[ordinal[root as usize] as usize] += 1;
        }
        sizes.extend(class_size.iter().map(|&k| k * members));
        id_of.extend(least.iter().map(|&root| first + ordinal[root as usize]));
    }
    out.par_chunks_mut(f).enumerate().for_each(|(v, block)| {
        let id_of = &id_of[comp[v] as usize * f..][..f];
        for x in block {
            *x = id_of[*x as usize];
        }
    });
    (out, sizes)
}

/// The blocks of base states `u` and `t` (`u != t`) of `out`, the first to read, the second to
/// write.
fn two_blocks(out: &mut [u32], u: usize, t: usize, f: usize) -> (&[u32], &mut [u32]) {
    if u < t {
        let (lo, hi) = out.split_at_mut(t * f);
        (&lo[u * f..][..f], &mut hi[..f])
    } else {
        let (lo, hi) = out.split_at_mut(u * f);
        (&hi[..f], &mut lo[t * f..][..f])
    }
}

/// A union-find over the root labels of one base component, counting its classes.
struct Classes {
    parent: Vec<u32>,
    count: usize,
}

impl Classes {
    fn new(f: usize) -> Self {
        Classes {
            parent: (0..f as u32).collect(),
            count: f,
        }
    }

    fn reset(&mut self) {
        for (i, p) in self.parent.iter_mut().enumerate() {
            *p = i as u32;
        }
        self.count = self.parent.len();
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }

    /// Joins the classes of `a` and `b` under the smaller root.
    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            self.parent[hi as usize] = lo;
            self.count -= 1;
        }
    }

    /// The smallest label of every label's class (roots are the smallest members).
    fn least(&mut self) -> Vec<u32> {
        (0..self.parent.len() as u32)
            .map(|x| self.find(x))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::Cover;
    use proptest::prelude::*;

    /// A random undirected cover: `n` base states, random edges (no loops, no parallel
    /// edges), each with a random permutation of `f` labels one way and its inverse back.
    fn cover(n: usize, f: usize, edges: &[(usize, usize, u64)]) -> Cover {
        let mut rows: Vec<Vec<(u32, Vec<u32>)>> = vec![Vec::new(); n];
        for &(a, b, seed) in edges {
            let (a, b) = (a % n, b % n);
            if a == b || rows[a].iter().any(|(t, _)| *t as usize == b) {
                continue;
            }
            let mut perm: Vec<u32> = (0..f as u32).collect();
            let mut s = seed;
            for i in (1..f).rev() {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                perm.swap(i, (s >> 33) as usize % (i + 1));
            }
            let mut inv = vec![0u32; f];
            for (l, &x) in perm.iter().enumerate() {
                inv[x as usize] = l as u32;
            }
            rows[a].push((b as u32, perm));
            rows[b].push((a as u32, inv));
        }
        let mut c = Cover {
            fiber: f as u32,
            offsets: vec![0],
            ..Cover::default()
        };
        for row in &mut rows {
            row.sort_by_key(|(t, _)| *t);
            for (t, perm) in row.iter() {
                c.targets.push(*t);
                c.shift_of_arc.push((c.shifts.len() / f) as u32);
                c.shifts.extend(perm);
            }
            c.offsets.push(c.targets.len() as u32);
        }
        c
    }

    proptest! {
        /// The same table as a union-find over every lifted arc.
        #[test]
        fn cover_components_equal_union_find_over_the_lifted_arcs(
            n in 1usize..40,
            f in 1usize..7,
            edges in proptest::collection::vec((0usize..40, 0usize..40, any::<u64>()), 0..60),
        ) {
            let c = cover(n, f, &edges);
            let view = CoverView::of(&c);
            prop_assert_eq!(view.check(), Ok(()));
            prop_assert_eq!(
                cover_components(&view),
                crate::ids_and_sizes(crate::union_find_roots(&view, |_| {}))
            );
        }
    }
}
