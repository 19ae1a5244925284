//! Stage 3, **components**: which states can reach which.
//!
//! Undirected graphs get connected components from a lock-free parallel union-find: every arc
//! `u → v` with `u < v` links the larger root under the smaller one by compare-and-swap, so each
//! set's root is its smallest member. Directed graphs get strongly connected components from
//! petgraph's Tarjan SCC run directly on the CSR. Either way components are numbered by their
//! smallest member, so ids are deterministic. A graph stored as a cover gets the same table from
//! its base graph and the labels' classes ([`cover`]), never visiting a lifted arc.
//!
//! The artifact has two sections: the component id of every state (`u32`) and the size of every
//! component (`u64`); a table of one component leaves the ids out (every id is 0). A metric whose
//! components are another metric's ([`huarong_core::IndexedMoves::same_components_as`]) stores no
//! table at all, only which table of the same folder it is (two more sections: that table's
//! fingerprint and payload checksum, and its file name), and reads as that table.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

pub mod cover;
pub use cover::cover_components;

use graph::{Csr, Rows};
use huarong_core::{Fingerprint, Outcome, Reporter};
use huarong_store::shards::Opened;
use huarong_store::{Artifact, ArtifactWriter, Expect, Header, Section, StageError};
use rayon::prelude::*;

/// Artifact kind of component tables.
pub const KIND: &str = "components";
/// Version 2: a table of one component stores no ids.
const VERSION: u32 = 2;
const CHUNK: usize = 1 << 14;

/// The fingerprint of the components of `csr`.
pub fn fingerprint(csr: &Csr) -> u64 {
    fingerprint_of(csr.checksum(), csr.is_directed())
}

/// [`fingerprint`] from what determines the components: the stage and its version, the graph's
/// payload checksum and whether its arcs are one-way.
pub fn fingerprint_of(csr_checksum: u64, directed: bool) -> u64 {
    Fingerprint::new("components", VERSION)
        .add_u64(csr_checksum)
        .add_bool(directed)
        .finish()
}

/// A verified component table: one artifact, or the parts a multi-process run wrote
/// ([`huarong_store::shards`]; part `k` holds the ids of states `k, k + W, …`, part 0 also the
/// sizes), read back into index order.
#[derive(Debug)]
pub struct Components {
    table: Table,
}

#[derive(Debug)]
enum Table {
    Whole(Artifact),
    /// A table of one component, stored as its size alone (no ids section: every id is 0);
    /// the ids read as zeros that occupy no memory until read.
    One {
        artifact: Artifact,
        zeros: Vec<u32>,
    },
    Parts {
        ids: Vec<u32>,
        sizes: Vec<u64>,
        checksum: u64,
        /// Each part's file name and checksum.
        listed: Vec<(String, u64)>,
    },
    /// Another metric's table of the same folder, named by a reference artifact (which stores
    /// no ids and no sizes): the same bytes a copy would hold, so the same payload checksum.
    Same {
        source: Box<Components>,
        /// The reference's own file name and checksum.
        listed: (String, u64),
    },
}

/// Sections of a table stored as another one's ([`Table::Same`]): empty ids and sizes, then
/// the source's fingerprint, payload checksum, file name length and file name (bytes packed
/// eight to a `u64`, little-endian).
const SAME_SECTIONS: usize = 3;

impl Components {
    pub fn open(path: &Path, csr: &Csr) -> Result<Self, StageError> {
        Self::open_with(path, fingerprint(csr))
    }

    /// Opens the table at `path`, or its parts when only they are there, which must carry
    /// `fingerprint` (the parts: theirs as parts of it).
    pub fn open_with(path: &Path, fingerprint: u64) -> Result<Self, StageError> {
        let opened = match huarong_store::shards::open(path, KIND, fingerprint)? {
            Opened::Whole(artifact) => return Components::whole(artifact),
            Opened::Parts(parts) => parts,
        };
        let ids: Vec<u32> = huarong_store::shards::interleave_section(&opened, 0, path)?;
        let sizes = opened[0].section::<u64>(1).to_vec();
        if ids.iter().any(|&c| c as usize >= sizes.len()) {
            return Err(StageError::Invalid(format!(
                "{}: a part names a component its part 0 does not size",
                path.display()
            )));
        }
        Ok(Components {
            table: Table::Parts {
                ids,
                sizes,
                checksum: huarong_store::shards::checksum(&opened),
                listed: opened.iter().map(Artifact::listed).collect(),
            },
        })
    }

    /// A verified whole table: ids and sizes, or the size of its one component (at most a
    /// `u32` index's worth of states).
    fn whole(artifact: Artifact) -> Result<Self, StageError> {
        if artifact.header().sections.len() == SAME_SECTIONS {
            return Components::same(artifact);
        }
        let sizes: &[u64] = artifact.section(1);
        let table = match (artifact.header().sections[0].len, sizes) {
            (0, &[n]) if n > u32::MAX as u64 => {
                return Err(StageError::Invalid(format!(
                    "{}: one component of {n} states, more than a u32 index holds",
                    artifact.path().display()
                )));
            }
            (0, &[n]) if n > 0 => Table::One {
                zeros: vec![0; n as usize],
                artifact,
            },
            _ => Table::Whole(artifact),
        };
        Ok(Components { table })
    }

    /// A table stored as another of its folder: that table, verified against the fingerprint
    /// and payload checksum recorded with its name (a name only: no folder, never itself a
    /// reference).
    fn same(artifact: Artifact) -> Result<Self, StageError> {
        let path = artifact.path().to_owned();
        let invalid = |why: String| StageError::Invalid(format!("{}: {why}", path.display()));
        let shape: Vec<(u32, u64)> = artifact
            .header()
            .sections
            .iter()
            .map(|s| (s.elem_size, s.len))
            .collect();
        if !matches!(shape[..], [(4, 0), (8, 0), (8, 3..)]) {
            return Err(invalid(format!("not a reference's sections: {shape:?}")));
        }
        let &[fingerprint, checksum, len, ref packed @ ..] = artifact.section::<u64>(2) else {
            unreachable!("three words at least, checked above");
        };
        let bytes: Vec<u8> = packed.iter().flat_map(|w| w.to_le_bytes()).collect();
        let name = usize::try_from(len)
            .ok()
            .and_then(|len| bytes.get(..len))
            .and_then(|b| std::str::from_utf8(b).ok())
            .filter(|n| {
                n.starts_with("components-") && !n.contains(['/', '\\']) && !n.contains("..")
            })
            .ok_or_else(|| invalid("the table it refers to is not named as one".into()))?;
        let expect = Expect {
            kind: KIND,
            fingerprint: Some(fingerprint),
        };
        let source = Artifact::open(&path.with_file_name(name), expect)
            .map_err(|e| invalid(format!("the table it is, {name}: {e}")))?;
        if source.header().checksum != checksum {
            return Err(invalid(format!("{name} changed since")));
        }
        if source.header().sections.len() == SAME_SECTIONS {
            return Err(invalid(format!("{name} is itself a reference")));
        }
        let source = Box::new(Components::whole(source)?);
        Ok(Components {
            table: Table::Same {
                source,
                listed: artifact.listed(),
            },
        })
    }

    /// The table stored whole in `artifact`, already verified (a reference: the table it names,
    /// verified in turn).
    pub fn from_artifact(artifact: Artifact) -> Result<Self, StageError> {
        Components::whole(artifact)
    }

    /// The artifact whose section 0 holds the ids, when one does (a reference: its source's);
    /// else the table back (parts, or one component whose ids are not stored).
    pub fn into_ids_artifact(self) -> Result<Artifact, Box<Self>> {
        match self.table {
            Table::Whole(artifact) => Ok(artifact),
            Table::Same { source, listed } => source.into_ids_artifact().map_err(|source| {
                Box::new(Components {
                    table: Table::Same { source, listed },
                })
            }),
            table => Err(Box::new(Components { table })),
        }
    }

    /// Component id of every state; ids count up in order of the components' smallest members.
    pub fn ids(&self) -> &[u32] {
        match &self.table {
            Table::Whole(a) => a.section(0),
            Table::One { zeros, .. } => zeros,
            Table::Parts { ids, .. } => ids,
            Table::Same { source, .. } => source.ids(),
        }
    }

    /// Size of every component.
    pub fn sizes(&self) -> &[u64] {
        match &self.table {
            Table::Whole(a) | Table::One { artifact: a, .. } => a.section(1),
            Table::Parts { sizes, .. } => sizes,
            Table::Same { source, .. } => source.sizes(),
        }
    }

    /// Where the table is stored whole, as one artifact: its path, fingerprint and payload
    /// checksum (`None` for parts).
    fn stored(&self) -> Option<(&Path, u64, u64)> {
        match &self.table {
            Table::Whole(a) | Table::One { artifact: a, .. } => {
                Some((a.path(), a.header().fingerprint, a.header().checksum))
            }
            Table::Parts { .. } => None,
            Table::Same { source, .. } => source.stored(),
        }
    }

    pub fn count(&self) -> usize {
        self.sizes().len()
    }

    /// The payload checksum (of the parts' checksums, for parts).
    pub fn checksum(&self) -> u64 {
        match &self.table {
            Table::Whole(a) | Table::One { artifact: a, .. } => a.header().checksum,
            Table::Parts { checksum, .. } => *checksum,
            Table::Same { source, .. } => source.checksum(),
        }
    }

    /// The files the table is stored as in its folder (one, a reference, or the parts), each
    /// with the payload checksum its header carries.
    pub fn listed(&self) -> Vec<(String, u64)> {
        match &self.table {
            Table::Whole(a) | Table::One { artifact: a, .. } => vec![a.listed()],
            Table::Parts { listed, .. } => listed.clone(),
            Table::Same { listed, .. } => vec![listed.clone()],
        }
    }
}

/// Builds (or reuses) the components of `csr` at `path`, reading its rows from `rows` (the
/// graph's [`Csr::rows`], or its [`Csr::view`] when it is stored).
pub fn run(
    csr: &Csr,
    rows: &impl Rows,
    path: &Path,
    label: &str,
    force: bool,
    reporter: &Reporter,
) -> Result<(Components, Outcome), StageError> {
    run_after(csr, rows, None, path, label, force, reporter)
}

/// Writes (or reuses) the components of `csr` at `path` as a copy of `from`, the table of
/// another metric of the same space whose graph has the same connected components
/// ([`huarong_core::IndexedMoves::same_components_as`]): the same bytes a union-find would give.
pub fn run_copying(
    csr: &Csr,
    from: &Components,
    path: &Path,
    label: &str,
    force: bool,
) -> Result<(Components, Outcome), StageError> {
    let n = csr.node_count();
    if from.ids().len() != n {
        return Err(StageError::Invalid(format!(
            "{label}: another metric's {} component ids for {n} states",
            from.ids().len()
        )));
    }
    let fp = fingerprint(csr);
    // Stored as a reference to `from` where it is one artifact of the same folder.
    let source = from
        .stored()
        .filter(|(p, _, _)| p.parent() == path.parent())
        .and_then(|(p, fp, checksum)| Some((p.file_name()?.to_str()?.to_owned(), fp, checksum)));
    build_with(fp, path, force, |path| match &source {
        Some((name, source_fp, checksum)) => {
            let mut words = vec![*source_fp, *checksum, name.len() as u64];
            words.extend(name.as_bytes().chunks(8).map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            }));
            let w = ArtifactWriter::create(
                path,
                KIND,
                fp,
                label,
                &[
                    Section::of::<u32>(0),
                    Section::of::<u64>(0),
                    Section::of::<u64>(words.len() as u64),
                ],
            )?;
            w.write(2, 0, &words)?;
            Ok(w.finish()?)
        }
        None => {
            let ids: &[u32] = if from.count() == 1 { &[] } else { from.ids() };
            write_table(ids, from.sizes(), path, fp, label)
        }
    })
}

/// What a breadth-first search of the same undirected graph found: the distances from
/// `sources` ([`huarong_core::UNREACHABLE`] where none), so every reached state is in a
/// component holding a source.
#[derive(Debug, Clone, Copy)]
pub struct Reached<'a> {
    pub sources: &'a [u32],
    pub distances: &'a [u16],
}

/// [`run`] after the distances stage: with one source, every state its search reached is in
/// its component, so the union-find runs over the unreached states' rows only (none at all
/// when the search reached every state: the sliding tiles' single goal).
pub fn run_after(
    csr: &Csr,
    rows: &impl Rows,
    reached: Option<Reached<'_>>,
    path: &Path,
    label: &str,
    force: bool,
    reporter: &Reporter,
) -> Result<(Components, Outcome), StageError> {
    build(csr, path, label, force, || {
        if let Some(cover) = csr.cover() {
            return Ok(cover_components(&cover));
        }
        let bar = reporter.bar(csr.node_count() as u64, format!("components {label}"));
        let one_source = reached.filter(|r| {
            let one = r
                .sources
                .first()
                .is_some_and(|&s| r.sources.iter().all(|&t| t == s));
            one && r.distances.len() == csr.node_count()
        });
        let roots = if csr.is_directed() {
            // A directed graph is always stored.
            scc_roots(csr)
        } else if let Some(r) = one_source {
            return Ok(beside_one_source(rows, r.distances, |n| bar.inc(n)));
        } else if csr.has_rows() {
            // The same rows as plain slices: no dispatch on the graph's form per row.
            union_find_roots(&csr.view(), |n| bar.inc(n))
        } else {
            union_find_roots(rows, |n| bar.inc(n))
        };
        bar.finish();
        Ok(ids_and_sizes(roots))
    })
}

/// The components when `distances` come from a search from one source: the reached states
/// are one component (its root the smallest of them), the rest get a union-find over their own
/// rows (an undirected graph's rows never leave a component).
fn beside_one_source(
    rows: &impl Rows,
    distances: &[u16],
    progress: impl Fn(u64) + Sync,
) -> (Vec<u32>, Vec<u64>) {
    let n = rows.node_count();
    let reached = |u: usize| distances[u] != huarong_core::UNREACHABLE;
    let Some(first) = (0..n).into_par_iter().find_first(|&u| reached(u)) else {
        return ids_and_sizes(union_find_roots(rows, progress));
    };
    let count = distances
        .par_iter()
        .filter(|&&d| d != huarong_core::UNREACHABLE)
        .count();
    if count == n {
        progress(n as u64);
        // Zeros no page of which is touched: a table of one component stores no ids.
        return (vec![0; n], vec![n as u64]);
    }
    let parent: Vec<AtomicU32> = (0..n as u32)
        .into_par_iter()
        .map(|u| AtomicU32::new(if reached(u as usize) { first as u32 } else { u }))
        .collect();
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .for_each_init(Vec::new, |buf, k| {
            let end = ((k + 1) * CHUNK).min(n);
            for u in (k * CHUNK) as u32..end as u32 {
                if !reached(u as usize) {
                    for &v in rows.row_above(u, buf) {
                        union(&parent, u, v);
                    }
                }
            }
            progress((end - k * CHUNK) as u64);
        });
    let roots: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .map(|u| find(&parent, u))
        .collect();
    ids_and_sizes(roots)
}

/// [`run`] with the roots (every state's smallest component member) computed by `roots`, e.g.
/// on another engine; the artifact is the same.
pub fn run_with(
    csr: &Csr,
    path: &Path,
    label: &str,
    force: bool,
    roots: impl FnOnce() -> Result<Vec<u32>, StageError>,
) -> Result<(Components, Outcome), StageError> {
    build(csr, path, label, force, || Ok(ids_and_sizes(roots()?)))
}

/// Builds (or reuses) the table from the ids and sizes `table` computes.
fn build(
    csr: &Csr,
    path: &Path,
    label: &str,
    force: bool,
    table: impl FnOnce() -> Result<(Vec<u32>, Vec<u64>), StageError>,
) -> Result<(Components, Outcome), StageError> {
    let fp = fingerprint(csr);
    build_with(fp, path, force, |path| {
        let (ids, sizes) = table()?;
        if ids.len() != csr.node_count() {
            return Err(StageError::Invalid(format!(
                "{label}: {} component ids for {} states",
                ids.len(),
                csr.node_count()
            )));
        }
        // One component: its size says it all (the eleven puzzles' 958 MB of zeros).
        let ids: &[u32] = if sizes.len() == 1 { &[] } else { &ids };
        write_table(ids, &sizes, path, fp, label)
    })
}

/// Reuses the table at `path` if it verifies against `fp` and reads back (a reference's table
/// too), else writes it with `write`.
fn build_with(
    fp: u64,
    path: &Path,
    force: bool,
    write: impl FnOnce(&Path) -> Result<Header, StageError>,
) -> Result<(Components, Outcome), StageError> {
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let outcome = match huarong_store::try_reuse(path, expect, force) {
        Ok(artifact) => match Components::whole(artifact) {
            Ok(table) => return Ok((table, Outcome::Reused)),
            Err(e) => Outcome::Rebuilt(e.to_string()),
        },
        Err(outcome) => outcome,
    };
    let written = write(path)?;
    let artifact = Artifact::open_written(path, &written)?;
    Ok((Components::whole(artifact)?, outcome))
}

/// For every node, the smallest member of its connected component (parallel union-find).
pub fn union_find_roots(rows: &impl Rows, progress: impl Fn(u64) + Sync) -> Vec<u32> {
    let n = rows.node_count();
    let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .for_each_init(Vec::new, |buf, k| {
            let end = ((k + 1) * CHUNK).min(n);
            for u in (k * CHUNK) as u32..end as u32 {
                for &v in rows.row_above(u, buf) {
                    union(&parent, u, v);
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

/// The root of `x` in a lock-free union-find forest (`parent[r] == r` at roots), halving the path
/// on the way. Safe to call from many threads while others [`union`].
#[inline]
pub fn find(parent: &[AtomicU32], mut x: u32) -> u32 {
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

/// Joins the trees of `a` and `b`, the larger root under the smaller, so every root is the
/// smallest member of its tree (from many threads at once).
#[inline]
pub fn union(parent: &[AtomicU32], a: u32, b: u32) {
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
    let g = csr.view();
    let n = g.node_count();
    let mut t = Tarjan {
        index: vec![Tarjan::NONE; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        calls: Vec::new(),
        counter: 0,
    };
    let mut roots = vec![0u32; n];
    for s in 0..n as u32 {
        if t.index[s as usize] != Tarjan::NONE {
            continue;
        }
        t.enter(s);
        while let Some(&mut (v, ref mut pos)) = t.calls.last_mut() {
            let nb = g.neighbors(v);
            if *pos < nb.len() {
                let w = nb[*pos];
                *pos += 1;
                if t.index[w as usize] == Tarjan::NONE {
                    t.enter(w);
                } else if t.on_stack[w as usize] {
                    t.low[v as usize] = t.low[v as usize].min(t.index[w as usize]);
                }
                continue;
            }
            t.calls.pop();
            if let Some(&(p, _)) = t.calls.last() {
                t.low[p as usize] = t.low[p as usize].min(t.low[v as usize]);
            }
            if t.low[v as usize] == t.index[v as usize] {
                let at = t
                    .stack
                    .iter()
                    .rposition(|&x| x == v)
                    .expect("v is on the stack");
                let members = t.stack.split_off(at);
                let min = *members.iter().min().expect("non-empty");
                for w in members {
                    t.on_stack[w as usize] = false;
                    roots[w as usize] = min;
                }
            }
        }
    }
    roots
}

/// The state of an iterative Tarjan SCC.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<u32>,
    /// The explicit call stack: node and position in its neighbour list.
    calls: Vec<(u32, usize)>,
    counter: u32,
}

impl Tarjan {
    const NONE: u32 = u32::MAX;

    /// Starts visiting `v`.
    fn enter(&mut self, v: u32) {
        self.index[v as usize] = self.counter;
        self.low[v as usize] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack[v as usize] = true;
        self.calls.push((v, 0));
    }
}

/// Component ids (numbered in order of the components' smallest members) and sizes from the
/// roots (every state's smallest component member); `roots` becomes the ids. In parallel: a
/// root's id is the number of roots before it (counted per chunk, then summed), every other
/// state takes its root's id, and sizes are counted per run of equal ids in each chunk.
pub fn ids_and_sizes(roots: Vec<u32>) -> (Vec<u32>, Vec<u64>) {
    let n = roots.len();
    let is_root = |k: usize, j: usize, r: u32| r as usize == k * CHUNK + j;
    let counts: Vec<u32> = roots
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(k, c)| {
            c.iter()
                .enumerate()
                .filter(|&(j, &r)| is_root(k, j, r))
                .count() as u32
        })
        .collect();
    let mut first = Vec::with_capacity(counts.len());
    let mut components = 0u32;
    for c in &counts {
        first.push(components);
        components += c;
    }
    // The same buffer, as atomics: roots get their ids first; then every other state reads its
    // root's (a root is never written in the second pass).
    let ids: Vec<AtomicU32> = roots.into_iter().map(AtomicU32::new).collect();
    let roots_bits: Vec<u64> = ids
        .par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(k, c)| {
            let mut bits = vec![0u64; CHUNK / 64];
            let mut next = first[k];
            for (j, a) in c.iter().enumerate() {
                if is_root(k, j, a.load(Ordering::Relaxed)) {
                    a.store(next, Ordering::Relaxed);
                    next += 1;
                    bits[j / 64] |= 1 << (j % 64);
                }
            }
            bits
        })
        .collect();
    ids.par_chunks(CHUNK).enumerate().for_each(|(k, c)| {
        for (j, a) in c.iter().enumerate() {
            let i = k * CHUNK + j;
            if roots_bits[i / 64] >> (i % 64) & 1 == 0 {
                let r = a.load(Ordering::Relaxed) as usize;
                a.store(ids[r].load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
    });
    let ids: Vec<u32> = ids.into_iter().map(AtomicU32::into_inner).collect();
    let runs: Vec<Vec<(u32, u64)>> = ids
        .par_chunks(CHUNK)
        .map(|c| {
            c.chunk_by(|a, b| a == b)
                .map(|run| (run[0], run.len() as u64))
                .collect()
        })
        .collect();
    let mut sizes = vec![0u64; components as usize];
    for (id, len) in runs.into_iter().flatten() {
        sizes[id as usize] += len;
    }
    debug_assert_eq!(sizes.iter().sum::<u64>(), n as u64);
    (ids, sizes)
}

/// Renumbers roots by smallest member and writes ids and sizes.
fn write_table(
    ids: &[u32],
    sizes: &[u64],
    path: &Path,
    fp: u64,
    label: &str,
) -> Result<Header, StageError> {
    let w = ArtifactWriter::create(
        path,
        KIND,
        fp,
        label,
        &[
            Section::of::<u32>(ids.len() as u64),
            Section::of::<u64>(sizes.len() as u64),
        ],
    )?;
    w.write(0, 0, ids)?;
    w.write(1, 0, sizes)?;
    Ok(w.finish()?)
}

/// Writes part `k` of `count` of the table at `path` whose fingerprint is `fingerprint`: the
/// ids of states `k, k + count, …` and, in part 0 only, every component's size (empty in the
/// others).
pub fn write_part(
    path: &Path,
    fingerprint: u64,
    label: &str,
    (k, count): (usize, usize),
    ids: &[u32],
    sizes: &[u64],
) -> Result<(), StageError> {
    let (dir, name) = huarong_store::shards::split(path);
    let fp = huarong_store::shards::part_fingerprint(fingerprint, k, count);
    let sizes = if k == 0 { sizes } else { &[] };
    let part = dir.join(huarong_store::shards::part_name(name, k, count));
    write_table(ids, sizes, &part, fp, label)?;
    Ok(())
}

/// Simple, obviously correct references for tests and benchmarks.
pub mod reference {
    use graph::Rows;

    /// Component id of every node (numbered by smallest member) by sequential BFS labelling,
    /// over any graph's rows (a stored [`graph::CsrView`], or regenerated ones).
    pub fn component_ids(rows: &impl Rows) -> Vec<u32> {
        let n = rows.node_count();
        let mut ids = vec![u32::MAX; n];
        let mut next = 0;
        let mut queue = std::collections::VecDeque::new();
        let mut buf = Vec::new();
        for s in 0..n {
            if ids[s] != u32::MAX {
                continue;
            }
            ids[s] = next;
            queue.push_back(s as u32);
            while let Some(u) = queue.pop_front() {
                for &v in rows.row(u, &mut buf) {
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

    /// After a search from one source, the reached states are its component and the rest get
    /// their union-find: the same table as a union-find over every row, on random undirected
    /// graphs (sources reaching all, some or only themselves).
    #[test]
    fn components_beside_one_source_equal_a_union_find_over_every_row() {
        let mut rng = huarong_core::SplitMix(77);
        for case in 0..200 {
            let n = 1 + (rng.next_u64() % 60) as usize;
            let mut adj = vec![Vec::new(); n];
            for _ in 0..rng.next_u64() % (2 * n as u64) {
                let (a, b) = (
                    (rng.next_u64() % n as u64) as u32,
                    (rng.next_u64() % n as u64) as u32,
                );
                if a != b && !adj[a as usize].contains(&b) {
                    adj[a as usize].push(b);
                    adj[b as usize].push(a);
                }
            }
            let (mut offsets, mut targets) = (vec![0u32], Vec::new());
            for row in &mut adj {
                row.sort_unstable();
                targets.extend_from_slice(row);
                offsets.push(targets.len() as u32);
            }
            let view = graph::CsrView {
                offsets: graph::Offsets::Narrow(&offsets),
                targets: &targets,
                directed: false,
            };
            let source = (rng.next_u64() % n as u64) as u32;
            let mut dist = vec![huarong_core::UNREACHABLE; n];
            dist[source as usize] = 0;
            let mut queue = std::collections::VecDeque::from([source]);
            while let Some(u) = queue.pop_front() {
                for &v in &adj[u as usize] {
                    if dist[v as usize] == huarong_core::UNREACHABLE {
                        dist[v as usize] = dist[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
            }
            assert_eq!(
                beside_one_source(&view, &dist, |_| {}),
                ids_and_sizes(union_find_roots(&view, |_| {})),
                "case {case}"
            );
        }
    }

    /// A directed toy space: a 5-cycle 0 → 1 → … → 4 → 0, and a tail 9 → 8 → … → 5 → 0.
    struct Toy;

    use huarong_core::Ranking;

    impl huarong_core::Puzzle for Toy {
        fn name(&self) -> &'static str {
            "toy"
        }
        fn space_id(&self) -> String {
            "cycle-and-tail".into()
        }
        fn metrics(&self) -> &'static [&'static str] {
            &["arrow"]
        }
        fn directed(&self) -> bool {
            true
        }
        fn ranking(&self) -> Option<&dyn Ranking> {
            Some(self)
        }

        fn successors(&self, code: u64, _: usize, out: &mut Vec<u64>) {
            out.push(match code {
                0..=3 => code + 1,
                4 | 5 => 0,
                _ => code - 1,
            });
        }
        fn is_goal(&self, code: u64) -> bool {
            code == 0
        }
        fn render(&self, code: u64) -> String {
            code.to_string()
        }
        fn parameters(&self, _: &mut huarong_core::Fingerprint) {}
        fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
            text.parse()
                .map_err(|_| format!("{text:?} is not a state").into())
        }
    }

    impl Ranking for Toy {
        fn states(&self) -> u64 {
            10
        }

        fn unrank(&self, index: u64) -> u64 {
            index
        }

        fn rank(&self, code: u64) -> Option<u64> {
            (code < 10).then_some(code)
        }
    }

    #[test]
    fn directed_graphs_get_strongly_connected_components() {
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        let (states, _) = enumerate::run(&Toy, &dir.path().join("s"), false, q).unwrap();
        let (g, _) = graph::run(&Toy, &states, 0, &dir.path().join("g"), false, q).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.edge_count(), 10);
        let (c, _) = run(&g, &g.view(), &dir.path().join("c"), "toy", false, q).unwrap();
        // The cycle is one component (id 0); each tail state is its own, numbered in order.
        assert_eq!(c.ids(), &[0, 0, 0, 0, 0, 1, 2, 3, 4, 5]);
        assert_eq!(c.sizes(), &[5, 1, 1, 1, 1, 1]);
        assert_eq!(petgraph::algo::tarjan_scc(&g).len(), c.count());
    }

    /// The parallel numbering equals the plain one (ids in order of first appearance), across
    /// many chunks and components of every size.
    #[test]
    fn ids_and_sizes_number_components_by_smallest_member() {
        let mut rng = huarong_core::SplitMix(21);
        for (n, every) in [
            (0usize, 1u64),
            (1, 1),
            (100_000, 3),
            (70_000, 1000),
            (50_000, 1),
        ] {
            let mut roots: Vec<u32> = Vec::with_capacity(n);
            let mut known: Vec<u32> = Vec::new();
            for i in 0..n as u32 {
                if known.is_empty() || rng.next_u64().is_multiple_of(every) {
                    roots.push(i);
                    known.push(i);
                } else {
                    roots.push(known[(rng.next_u64() % known.len() as u64) as usize]);
                }
            }
            let (mut want_ids, mut want_sizes) = (vec![0u32; n], Vec::new());
            let mut id_of = std::collections::HashMap::new();
            for (i, &r) in roots.iter().enumerate() {
                let id = *id_of.entry(r).or_insert_with(|| {
                    want_sizes.push(0u64);
                    want_sizes.len() as u32 - 1
                });
                want_ids[i] = id;
                want_sizes[id as usize] += 1;
            }
            let (ids, sizes) = ids_and_sizes(roots);
            assert_eq!((ids, sizes), (want_ids, want_sizes), "{n} states");
        }
    }

    /// What `IndexedMoves::same_components_as` claims for Huarong Dao: the three metrics' graphs
    /// have the same components, on several unlabeled piece sets and a labeled one.
    #[test]
    fn huarong_daos_three_metrics_have_the_same_components() {
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        let table = |p: &dyn huarong_core::Puzzle, m: usize| {
            let (states, _) = enumerate::run(p, &dir.path().join("s"), true, q).unwrap();
            let (g, _) = graph::run(p, &states, m, &dir.path().join("g"), true, q).unwrap();
            ids_and_sizes(union_find_roots(&g.rows(p, &states, m), |_| {}))
        };
        let mut spaces: Vec<Box<dyn huarong_core::Puzzle>> =
            ["h1v4s4", "h2v3s2", "h0v4s4", "h3v1s2"]
                .iter()
                .map(|s| Box::new(Unlabeled::new(s.parse::<PieceSet>().unwrap())) as _)
                .collect();
        spaces.push(Box::new(
            klotski::Labeled::new("h4v0s2".parse().unwrap()).unwrap(),
        ));
        for p in &spaces {
            let step = table(p.as_ref(), 0);
            for m in 1..3 {
                assert_eq!(
                    huarong_core::indexed_moves(p.as_ref()).same_components_as(m),
                    0
                );
                assert_eq!(table(p.as_ref(), m), step, "{} metric {m}", p.space_id());
            }
        }
    }

    /// A metric whose components are another's is stored as a reference to that table and
    /// reads back as it; a reference whose table changed is rebuilt, and one naming a file
    /// outside its folder is refused.
    #[test]
    fn a_copied_table_is_a_reference_that_reads_back_as_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        let p = Unlabeled::new("h2v3s2".parse::<PieceSet>().unwrap());
        let (states, _) = enumerate::run(&p, &dir.path().join("s"), true, q).unwrap();
        let graph = |m: usize| {
            let path = dir.path().join(format!("g{m}"));
            graph::run(&p, &states, m, &path, true, q).unwrap().0
        };
        let (step, straight) = (graph(0), graph(1));
        let step_path = dir.path().join("components-step.bin");
        let (source, _) = run(&step, &step.view(), &step_path, "step", true, q).unwrap();
        assert!(source.count() > 1, "a table of several components");
        let path = dir.path().join("components-straight.bin");
        let (copy, outcome) = run_copying(&straight, &source, &path, "straight", false).unwrap();
        assert!(matches!(outcome, Outcome::Built));
        assert!(
            std::fs::metadata(&path).unwrap().len() < 512,
            "no table stored"
        );
        let reopened = Components::open(&path, &straight).unwrap();
        for c in [&copy, &reopened] {
            assert_eq!(c.ids(), source.ids());
            assert_eq!(c.sizes(), source.sizes());
            assert_eq!(c.checksum(), source.checksum());
        }
        let (_, outcome) = run_copying(&straight, &source, &path, "straight", false).unwrap();
        assert!(matches!(outcome, Outcome::Reused));
        // The source rewritten with other contents: the reference no longer reads, and is
        // rebuilt rather than reused.
        let mut ids = source.ids().to_vec();
        let other = ids.iter().position(|&c| c != ids[0]).unwrap();
        ids.swap(0, other);
        let sizes = source.sizes().to_vec();
        drop((copy, reopened, source));
        write_table(&ids, &sizes, &step_path, fingerprint(&step), "step").unwrap();
        let err = Components::open(&path, &straight).unwrap_err().to_string();
        assert!(err.contains("changed since"), "{err}");
        let (source, _) = Components::open(&step_path, &step)
            .map(|c| (c, ()))
            .unwrap();
        let (_, outcome) = run_copying(&straight, &source, &path, "straight", false).unwrap();
        assert!(matches!(outcome, Outcome::Rebuilt(_)), "{outcome:?}");
        // A reference naming a file elsewhere.
        let name = "../components-step.bin";
        let mut words = vec![fingerprint(&step), source.checksum(), name.len() as u64];
        words.extend(name.as_bytes().chunks(8).map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        }));
        let shape = [
            Section::of::<u32>(0),
            Section::of::<u64>(0),
            Section::of::<u64>(words.len() as u64),
        ];
        let w = ArtifactWriter::create(&path, KIND, fingerprint(&straight), "x", &shape).unwrap();
        w.write(2, 0, &words).unwrap();
        w.finish().unwrap();
        let err = Components::open(&path, &straight).unwrap_err().to_string();
        assert!(err.contains("not named as one"), "{err}");
    }

    #[test]
    fn matches_reference_and_petgraph() {
        let dir = tempfile::tempdir().unwrap();
        for set in ["h1v4s4", "h2v3s2", "h0v4s4"] {
            let u = Unlabeled::new(set.parse::<PieceSet>().unwrap());
            let q = &Reporter::quiet();
            let (states, _) = enumerate::run(&u, &dir.path().join("s"), true, q).unwrap();
            for metric in 0..3 {
                let (g, _) =
                    graph::run(&u, &states, metric, &dir.path().join("g"), true, q).unwrap();
                let (c, _) = run(&g, &g.view(), &dir.path().join("c"), set, true, q).unwrap();
                assert_eq!(
                    c.ids(),
                    &reference::component_ids(&g.view())[..],
                    "{set} {metric}"
                );
                assert_eq!(c.count(), petgraph::algo::connected_components(&g));
                assert_eq!(c.sizes().iter().sum::<u64>(), u.len() as u64);
                // Strongly connected components of a symmetric graph are its components.
                assert_eq!(scc_roots(&g), union_find_roots(&g.view(), |_| {}));
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
