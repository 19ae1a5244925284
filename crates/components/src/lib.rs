//! Stage 3, **components**: which states can reach which.
//!
//! Undirected graphs get connected components from a lock-free parallel union-find: every arc
//! `u → v` with `u < v` links the larger root under the smaller one by compare-and-swap, so each
//! set's root is its smallest member. Directed graphs get strongly connected components from
//! petgraph's Tarjan SCC run directly on the CSR. Either way components are numbered by their
//! smallest member, so ids are deterministic.
//!
//! The artifact has two sections: the component id of every state (`u32`) and the size of every
//! component (`u64`).

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use graph::Csr;
use huarong_core::{
    Artifact, ArtifactWriter, Expect, Fingerprint, Header, Outcome, Reporter, Section, StageError,
    reuse_or_build,
};
use rayon::prelude::*;

/// Artifact kind of component tables.
pub const KIND: &str = "components";
const VERSION: u32 = 1;
const CHUNK: usize = 1 << 14;

/// The fingerprint of the components of `csr`.
pub fn fingerprint(csr: &Csr) -> u64 {
    Fingerprint::new("components", VERSION)
        .add_u64(csr.checksum())
        .add_u64(csr.is_directed() as u64)
        .finish()
}

/// A verified component table.
#[derive(Debug)]
pub struct Components {
    artifact: Artifact,
}

impl Components {
    pub fn open(path: &Path, csr: &Csr) -> Result<Self, StageError> {
        let expect = Expect {
            kind: KIND,
            fingerprint: Some(fingerprint(csr)),
        };
        Ok(Components {
            artifact: Artifact::open(path, expect)?,
        })
    }

    /// Component id of every state; ids count up in order of the components' smallest members.
    pub fn ids(&self) -> &[u32] {
        self.artifact.section(0)
    }

    /// Size of every component.
    pub fn sizes(&self) -> &[u64] {
        self.artifact.section(1)
    }

    pub fn count(&self) -> usize {
        self.sizes().len()
    }

    pub fn checksum(&self) -> u64 {
        self.artifact.header().checksum
    }
}

/// Builds (or reuses) the components of `csr` at `path`.
pub fn run(
    csr: &Csr,
    path: &Path,
    label: &str,
    force: bool,
    reporter: Reporter,
) -> Result<(Components, Outcome), StageError> {
    let fp = fingerprint(csr);
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let (artifact, outcome) = reuse_or_build(path, expect, force, |path| {
        let bar = reporter.bar(csr.node_count() as u64, format!("components {label}"));
        let roots = if csr.is_directed() {
            scc_roots(csr)
        } else {
            union_find_roots(csr, |n| bar.inc(n))
        };
        bar.finish();
        write(roots, path, fp, label)
    })?;
    Ok((Components { artifact }, outcome))
}

/// For every node, the smallest member of its connected component (parallel union-find).
pub fn union_find_roots(csr: &Csr, progress: impl Fn(u64) + Sync) -> Vec<u32> {
    let g = csr.view();
    let n = g.node_count();
    let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|k| {
        let end = ((k + 1) * CHUNK).min(n);
        for u in (k * CHUNK) as u32..end as u32 {
            for &v in g.neighbors(u) {
                if v > u {
                    union(&parent, u, v);
                }
            }
        }
        progress((end - k * CHUNK) as u64);
    });
    // Flatten in place: every entry ends up pointing at its root.
    (0..n as u32).into_par_iter().for_each(|u| {
        let r = find(&parent, u);
        parent[u as usize].store(r, Ordering::Relaxed);
    });
    parent.into_iter().map(AtomicU32::into_inner).collect()
}

#[inline]
fn find(parent: &[AtomicU32], mut x: u32) -> u32 {
    loop {
        let p = parent[x as usize].load(Ordering::Relaxed);
        if p == x {
            return x;
        }
        let g = parent[p as usize].load(Ordering::Relaxed);
        if g != p {
            // Path halving; losing the race is harmless.
            let _ = parent[x as usize].compare_exchange_weak(
                p,
                g,
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
        }
        x = p;
    }
}

#[inline]
fn union(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        a = find(parent, a);
        b = find(parent, b);
        if a == b {
            return;
        }
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        // Only a root is ever re-parented, and only under a smaller root.
        if parent[hi as usize]
            .compare_exchange(hi, lo, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// For every node, the smallest member of its strongly connected component.
///
/// Tarjan's algorithm with an explicit call stack (petgraph's recursive Tarjan overflows the
/// thread stack on long paths; the tests cross-check the two on small graphs).
pub fn scc_roots(csr: &Csr) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let g = csr.view();
    let n = g.node_count();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut roots = vec![0u32; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut calls: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    for s in 0..n as u32 {
        if index[s as usize] != NONE {
            continue;
        }
        index[s as usize] = counter;
        low[s as usize] = counter;
        counter += 1;
        stack.push(s);
        on_stack[s as usize] = true;
        calls.push((s, 0));
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let nb = g.neighbors(v);
            if *pos < nb.len() {
                let w = nb[*pos];
                *pos += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p as usize] = low[p as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let at = stack
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("v is on the stack");
                let members = stack.split_off(at);
                let min = *members.iter().min().expect("non-empty");
                for w in members {
                    on_stack[w as usize] = false;
                    roots[w as usize] = min;
                }
            }
        }
    }
    roots
}

/// Renumbers roots by smallest member (in place: `roots` becomes the ids) and writes ids and
/// sizes.
fn write(mut roots: Vec<u32>, path: &Path, fp: u64, label: &str) -> Result<Header, StageError> {
    // A root is its component's smallest member, so it comes before every other member: one
    // pass numbers the roots in order and gives each member its root's id. `roots[r]` for an
    // earlier root `r` already holds that id.
    let mut sizes: Vec<u64> = Vec::new();
    for i in 0..roots.len() {
        let r = roots[i] as usize;
        let id = if r == i {
            sizes.push(0);
            sizes.len() as u32 - 1
        } else {
            roots[r]
        };
        roots[i] = id;
        sizes[id as usize] += 1;
    }
    let w = ArtifactWriter::create(
        path,
        KIND,
        fp,
        label,
        &[
            Section::of::<u32>(roots.len() as u64),
            Section::of::<u64>(sizes.len() as u64),
        ],
    )?;
    w.write(0, 0, &roots)?;
    w.write(1, 0, &sizes)?;
    Ok(w.finish()?)
}

/// Simple, obviously correct references for tests and benchmarks.
pub mod reference {
    use graph::Csr;

    /// Component id of every node (numbered by smallest member) by sequential BFS labelling.
    pub fn component_ids(csr: &Csr) -> Vec<u32> {
        let n = csr.node_count();
        let mut ids = vec![u32::MAX; n];
        let mut next = 0;
        let mut queue = std::collections::VecDeque::new();
        for s in 0..n {
            if ids[s] != u32::MAX {
                continue;
            }
            ids[s] = next;
            queue.push_back(s as u32);
            while let Some(u) = queue.pop_front() {
                for &v in csr.neighbors(u) {
                    if ids[v as usize] == u32::MAX {
                        ids[v as usize] = next;
                        queue.push_back(v);
                    }
                }
            }
            next += 1;
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use klotski::{PieceSet, Unlabeled};

    #[test]
    fn matches_reference_and_petgraph() {
        let dir = tempfile::tempdir().unwrap();
        for set in ["h1v4s4", "h2v3s2", "h0v4s4"] {
            let u = Unlabeled::new(set.parse::<PieceSet>().unwrap());
            let q = Reporter::quiet();
            let (states, _) = enumerate::run(&u, &dir.path().join("s"), true, q).unwrap();
            for metric in 0..3 {
                let (g, _) =
                    graph::run(&u, &states, metric, &dir.path().join("g"), true, q).unwrap();
                let (c, _) = run(&g, &dir.path().join("c"), set, true, q).unwrap();
                assert_eq!(c.ids(), &reference::component_ids(&g)[..], "{set} {metric}");
                assert_eq!(c.count(), petgraph::algo::connected_components(&g));
                assert_eq!(c.sizes().iter().sum::<u64>(), u.len() as u64);
                // Strongly connected components of a symmetric graph are its components.
                assert_eq!(scc_roots(&g), union_find_roots(&g, |_| {}));
                if u.len() < 100_000 {
                    // petgraph's recursive Tarjan needs a deep stack.
                    let petgraph_sccs = std::thread::scope(|s| {
                        std::thread::Builder::new()
                            .stack_size(1 << 30)
                            .spawn_scoped(s, || petgraph::algo::tarjan_scc(&g).len())
                            .unwrap()
                            .join()
                            .unwrap()
                    });
                    assert_eq!(petgraph_sccs, c.count());
                }
            }
        }
    }
}
