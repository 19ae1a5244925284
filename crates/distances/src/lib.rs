//! Stage 4, **distances**: breadth-first distances over a move graph, in parallel.
//!
//! A level-synchronous, direction-optimizing BFS: while the frontier is small it expands top-down
//! (each frontier state claims its unvisited neighbours by compare-and-swap); once the frontier
//! outnumbers the states not yet reached it switches bottom-up (each unvisited state looks for a
//! neighbour on the current level), which needs no atomics contention and touches every edge at
//! most once per level. The switch compares with the states not yet reached, not with all of
//! them: a bottom-up level reads the whole row of every state of another component, at every
//! level, and the puzzles here have long searches (a hundred levels and more) over spaces with
//! many unsolvable components (the Klotski universe's distances took 4.8 s of stage time this
//! way, 10.1 s when a frontier of 1/24 of the states switched). On a directed graph the two
//! directions differ: depth *from* the starts runs every level top-down along the arcs;
//! distance *to* the goals follows the arcs backwards, which is exactly a bottom-up level over
//! the forward arcs (does one of my arcs enter the frontier?), so every level runs bottom-up
//! and no transposed graph is built.
//!
//! A graph whose rows are regenerated rather than stored ([`graph::Regenerated`]) runs every
//! level top-down, each state's row generated once, when it is on the frontier; the search
//! keeps one visited bit per state (its random accesses hit a bitmap 16 times smaller than the
//! distances) and writes each level's distances in one sequential sweep of its frontier.
//!
//! A graph stored as a cover whose sources are whole fibers gets its distances from one
//! search of the base graph ([`cover_bfs`]).
//!
//! Sources are every goal state (distance *to* the goal, the question for Huarong Dao) or the
//! puzzle's start states (depth *from* the start), as the puzzle says. The artifact holds one
//! `u16` per state, [`UNREACHABLE`] where no source is reachable; its fingerprint covers the
//! source states themselves, so a changed goal or start rebuilds it.

use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

use enumerate::StateTable;
use graph::{CoverView, Csr, CsrView, Rows};
use huarong_core::{DistanceSources, Fingerprint, Outcome, Puzzle, Reporter, Shift, UNREACHABLE};
use huarong_store::shards::Opened;
use huarong_store::{Artifact, ArtifactWriter, Expect, Section, StageError, reuse_or_build};
use rayon::prelude::*;

/// Artifact kind of distance tables.
pub const KIND: &str = "distances";
const VERSION: u32 = 1;
const CHUNK: usize = 1 << 14;

/// The fingerprint of the distances over `csr` from `puzzle`'s sources.
pub fn fingerprint<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
) -> Result<u64, StageError> {
    let src = sources(puzzle, states)?;
    Ok(fingerprint_of(
        puzzle.distance_sources(),
        &src,
        states.checksum(),
        csr.checksum(),
        csr.is_directed(),
    ))
}

/// [`fingerprint`] from what determines the distances: the stage and its version, the state
/// table's and the graph's checksums, whether arcs are one-way, the kind of sources and the
/// source states themselves (so a changed goal or start rebuilds, an unchanged one does not).
pub fn fingerprint_of(
    kind: DistanceSources,
    sources: &[u32],
    states_checksum: u64,
    csr_checksum: u64,
    directed: bool,
) -> u64 {
    let mut fp = Fingerprint::new("distances", VERSION);
    fp.add_u64(states_checksum)
        .add_u64(csr_checksum)
        .add_bool(directed)
        .add_str(match kind {
            DistanceSources::Goals => "goals",
            DistanceSources::Starts => "starts",
        })
        .add_u32s(sources);
    fp.finish()
}

/// The bytes a distance table of `states` states holds: one `u16` a state, the header aside.
pub fn table_bytes(states: u64) -> u64 {
    states.saturating_mul(2)
}

/// A verified distance table: one artifact, or the parts a multi-process run wrote
/// ([`huarong_store::shards`]; part `k` holds the distances of states `k, k + W, …`), read back
/// into index order.
#[derive(Debug)]
pub struct Distances {
    table: Table,
}

#[derive(Debug)]
enum Table {
    Whole(Artifact),
    Parts {
        values: Vec<u16>,
        checksum: u64,
        /// Each part's file name and checksum.
        listed: Vec<(String, u64)>,
    },
}

impl Distances {
    pub fn open<P: Puzzle + ?Sized>(
        path: &Path,
        puzzle: &P,
        states: &StateTable,
        csr: &Csr,
    ) -> Result<Self, StageError> {
        Self::open_with(path, fingerprint(puzzle, states, csr)?)
    }

    /// Opens and verifies a distance table that must carry `fingerprint` (or its parts, when
    /// only they are there).
    pub fn open_with(path: &Path, fingerprint: u64) -> Result<Self, StageError> {
        let opened = match huarong_store::shards::open(path, KIND, fingerprint)? {
            Opened::Whole(artifact) => {
                return Ok(Distances {
                    table: Table::Whole(artifact),
                });
            }
            Opened::Parts(parts) => parts,
        };
        let values = huarong_store::shards::interleave_section(&opened, 0, path)?;
        Ok(Distances {
            table: Table::Parts {
                values,
                checksum: huarong_store::shards::checksum(&opened),
                listed: opened.iter().map(Artifact::listed).collect(),
            },
        })
    }

    /// Distance of every state; [`UNREACHABLE`] where none.
    pub fn values(&self) -> &[u16] {
        match &self.table {
            Table::Whole(a) => a.section(0),
            Table::Parts { values, .. } => values,
        }
    }

    /// How many states lie at each distance (index = distance).
    pub fn histogram(&self) -> Vec<u64> {
        histogram(self.values())
    }

    /// The payload checksum (of the parts' checksums, for parts).
    pub fn checksum(&self) -> u64 {
        match &self.table {
            Table::Whole(a) => a.header().checksum,
            Table::Parts { checksum, .. } => *checksum,
        }
    }

    /// The files the table is stored as in its folder (one, or the parts), each with the
    /// payload checksum its header carries.
    pub fn listed(&self) -> Vec<(String, u64)> {
        match &self.table {
            Table::Whole(a) => vec![a.listed()],
            Table::Parts { listed, .. } => listed.clone(),
        }
    }
}

/// Writes part `k` of `count` of the distance table at `path` whose fingerprint is
/// `fingerprint`: the distances of states `k, k + count, …`.
pub fn write_part(
    path: &Path,
    fingerprint: u64,
    label: &str,
    (k, count): (usize, usize),
    values: &[u16],
) -> Result<(), StageError> {
    let (dir, name) = huarong_store::shards::split(path);
    let fp = huarong_store::shards::part_fingerprint(fingerprint, k, count);
    let part = dir.join(huarong_store::shards::part_name(name, k, count));
    let w = ArtifactWriter::create(
        &part,
        KIND,
        fp,
        label,
        &[Section::of::<u16>(values.len() as u64)],
    )?;
    w.write(0, 0, values)?;
    w.finish()?;
    Ok(())
}

/// How many states lie at each finite distance.
pub fn histogram(values: &[u16]) -> Vec<u64> {
    huarong_core::tally(values.len(), |i| {
        let d = values[i];
        (d != UNREACHABLE).then_some(d as usize)
    })
}

/// The BFS sources of `puzzle` as dense indices, sorted.
pub fn sources<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
) -> Result<Vec<u32>, StageError> {
    match puzzle.distance_sources() {
        DistanceSources::Goals => Ok(match puzzle.goal_codes() {
            Some(codes) => {
                let mut list: Vec<u32> = codes
                    .into_iter()
                    .filter_map(|code| states.lookup(puzzle, code))
                    .collect();
                list.sort_unstable();
                list.dedup();
                list
            }
            None => (0..states.len() as u32)
                .into_par_iter()
                .filter(|&i| puzzle.is_goal(states.code(puzzle, i as usize)))
                .collect(),
        }),
        DistanceSources::Starts => starts(puzzle, states),
    }
}

/// [`sources`] when the caller already knows which states are goals (`goals[i]` for state `i`).
pub fn sources_given<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    goals: &[bool],
) -> Result<Vec<u32>, StageError> {
    match puzzle.distance_sources() {
        DistanceSources::Goals => {
            if goals.len() != states.len() {
                return Err(StageError::Invalid(format!(
                    "{} goal flags for {} states",
                    goals.len(),
                    states.len()
                )));
            }
            // Goals are few (one of 239.5M in the eleven puzzle): a block is read for any
            // flag (a loop without an early exit, vectorised) before its flags are looked at.
            const BLOCK: usize = 1 << 14;
            Ok(goals
                .par_chunks(BLOCK)
                .enumerate()
                .flat_map_iter(|(k, block)| {
                    let any = block.iter().fold(false, |a, &g| a | g);
                    let block = if any { block } else { &[][..] };
                    (block.iter().enumerate())
                        .filter(|&(_, &g)| g)
                        .map(move |(j, _)| (k * BLOCK + j) as u32)
                })
                .collect())
        }
        DistanceSources::Starts => starts(puzzle, states),
    }
}

fn starts<P: Puzzle + ?Sized>(puzzle: &P, states: &StateTable) -> Result<Vec<u32>, StageError> {
    let mut out = Vec::new();
    for code in puzzle.starts() {
        out.push(states.lookup(puzzle, code).ok_or_else(|| {
            StageError::Invalid(format!(
                "start state {} is not in the state table",
                puzzle.render(code)
            ))
        })?);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Builds (or reuses) the distance table at `path`.
#[allow(clippy::too_many_arguments)]
pub fn run<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
    rows: &impl Rows,
    path: &Path,
    label: &str,
    force: bool,
    reporter: &Reporter,
) -> Result<(Distances, Outcome), StageError> {
    let src = sources(puzzle, states)?;
    run_from(
        puzzle, states, csr, rows, &src, path, label, force, reporter,
    )
}

/// [`run`] from sources the caller computed (with [`sources`] or [`sources_given`]).
#[allow(clippy::too_many_arguments)]
pub fn run_from<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
    rows: &impl Rows,
    src: &[u32],
    path: &Path,
    label: &str,
    force: bool,
    reporter: &Reporter,
) -> Result<(Distances, Outcome), StageError> {
    run_with(puzzle, states, csr, src, path, label, force, |src| {
        // Distances *to* the goals of a directed graph follow the arcs backwards.
        let reverse = csr.is_directed() && puzzle.distance_sources() == DistanceSources::Goals;
        let bar = reporter.bar(csr.node_count() as u64, format!("distances {label}"));
        let progress = |visited| bar.set_position(visited);
        let by_cover = if reverse { None } else { csr.cover() };
        let dist = if reverse {
            // A directed graph is always stored.
            bfs_reverse(&csr.view(), src, progress)?
        } else if let Some(dist) = by_cover.and_then(|c| cover_bfs(&c, src).transpose()) {
            dist?
        } else if csr.has_rows() {
            // The same rows as plain slices: no dispatch on the graph's form per row.
            bfs(&csr.view(), src, progress)?
        } else {
            bfs(rows, src, progress)?
        };
        bar.finish();
        Ok(dist)
    })
}

/// [`run_from`] with the distances computed by `compute` from the sources (dense indices),
/// e.g. on another engine; the artifact is the same.
#[allow(clippy::too_many_arguments)]
pub fn run_with<P: Puzzle + ?Sized>(
    puzzle: &P,
    states: &StateTable,
    csr: &Csr,
    src: &[u32],
    path: &Path,
    label: &str,
    force: bool,
    compute: impl FnOnce(&[u32]) -> Result<Vec<u16>, StageError>,
) -> Result<(Distances, Outcome), StageError> {
    let fp = fingerprint_of(
        puzzle.distance_sources(),
        src,
        states.checksum(),
        csr.checksum(),
        csr.is_directed(),
    );
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let (artifact, outcome) = reuse_or_build(path, expect, force, |path| {
        let dist = compute(src)?;
        if dist.len() != states.len() {
            return Err(StageError::Invalid(format!(
                "{label}: {} distances for {} states",
                dist.len(),
                states.len()
            )));
        }
        let w = ArtifactWriter::create(
            path,
            KIND,
            fp,
            label,
            &[Section::of::<u16>(dist.len() as u64)],
        )?;
        w.write(0, 0, &dist)?;
        Ok(w.finish()?)
    })?;
    Ok((
        Distances {
            table: Table::Whole(artifact),
        },
        outcome,
    ))
}

/// Parallel direction-optimizing BFS from `sources` over an undirected graph (top-down only
/// when its rows are regenerated: a bottom-up level would generate the row of every unvisited
/// state); `progress` gets the visited count per level.
pub fn bfs(
    rows: &impl Rows,
    sources: &[u32],
    progress: impl Fn(u64),
) -> Result<Vec<u16>, StageError> {
    level_bfs(rows, sources, false, progress)
}

/// Parallel BFS along the arcs *backwards*: the distance of every state to the nearest of
/// `sources` (for directed graphs; every level runs bottom-up over the forward arcs, so no
/// transposed graph is needed).
pub fn bfs_reverse(
    g: &CsrView<'_>,
    sources: &[u32],
    progress: impl Fn(u64),
) -> Result<Vec<u16>, StageError> {
    level_bfs(g, sources, true, progress)
}

/// The distances over a cover ([`graph::CoverView`]) from `sources` that are whole fibers (every
/// label of each source's base state; `None` otherwise): every state is as far as its base
/// state, since a base path lifts to a path from any label into a source fiber and a lifted
/// path projects onto a base path. One breadth-first search of the base graph, then each
/// base distance written over its fiber.
pub fn cover_bfs(cover: &CoverView<'_>, sources: &[u32]) -> Result<Option<Vec<u16>>, StageError> {
    let f = cover.fiber as usize;
    // The stage's sources come sorted and distinct; anything else is put in that order.
    let list: std::borrow::Cow<'_, [u32]> = if sources.windows(2).all(|w| w[0] < w[1]) {
        sources.into()
    } else {
        let mut list = sources.to_vec();
        list.sort_unstable();
        list.dedup();
        list.into()
    };
    let whole = list.len().is_multiple_of(f)
        && list.chunks(f).all(|c| {
            (c[0] as usize).is_multiple_of(f) && c[f - 1] as usize == c[0] as usize + f - 1
        });
    if !whole {
        return Ok(None);
    }
    let base_sources: Vec<u32> = list.chunks(f).map(|c| c[0] / f as u32).collect();
    let base = CsrView {
        offsets: graph::Offsets::Narrow(cover.offsets),
        targets: cover.targets,
        directed: false,
    };
    let near = bfs(&base, &base_sources, |_| {})?;
    let mut dist = vec![UNREACHABLE; cover.node_count()];
    dist.par_chunks_mut(f)
        .zip(near.par_iter())
        .for_each(|(block, &d)| block.fill(d));
    Ok(Some(dist))
}

/// `reverse`: `g` is directed and distances are measured to the sources.
fn level_bfs(
    g: &impl Rows,
    sources: &[u32],
    reverse: bool,
    progress: impl Fn(u64),
) -> Result<Vec<u16>, StageError> {
    if !g.is_stored() && !reverse {
        return bitmap_bfs(g, sources, progress);
    }
    let n = g.node_count();
    let dist: Vec<AtomicU16> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU16::new(UNREACHABLE))
        .collect();
    let mut list: Vec<u32> = sources.to_vec();
    list.sort_unstable();
    list.dedup();
    for &s in &list {
        dist[s as usize].store(0, Ordering::Relaxed);
    }
    // The frontier is a list (top-down) or a bitmap (bottom-up: 1 bit per state, small enough
    // to stay in cache while every unvisited state probes its neighbours in it).
    let mut frontier = Frontier::List(list);
    let words = n.div_ceil(64);
    let mut visited = frontier.len() as u64;
    let mut level: u16 = 0;
    while frontier.len() > 0 {
        if level == UNREACHABLE - 1 {
            return Err(StageError::Invalid(format!(
                "distances exceed {} levels",
                UNREACHABLE - 1
            )));
        }
        let next_level = level + 1;
        // Bottom-up asks "has v an arc into the frontier?": the forward search on a symmetric
        // graph, or the backward search on a directed one.
        let unvisited = n.saturating_sub(visited as usize);
        let bottom_up =
            reverse || (!g.is_directed() && g.is_stored() && frontier.len() > unvisited);
        frontier = if bottom_up {
            let cur = frontier.into_bits(words);
            let mut next = vec![0u64; words];
            let found: usize = next
                .par_chunks_mut(CHUNK / 64)
                .enumerate()
                .map_init(Vec::new, |buf, (k, out)| {
                    let mut found = 0;
                    for v in (k * CHUNK) as u32..((k + 1) * CHUNK).min(n) as u32 {
                        if dist[v as usize].load(Ordering::Relaxed) != UNREACHABLE {
                            continue;
                        }
                        if g.row(v, buf)
                            .iter()
                            .any(|&u| cur[u as usize >> 6] >> (u & 63) & 1 != 0)
                        {
                            dist[v as usize].store(next_level, Ordering::Relaxed);
                            out[(v as usize >> 6) - k * (CHUNK / 64)] |= 1 << (v & 63);
                            found += 1;
                        }
                    }
                    found
                })
                .sum();
            Frontier::Bits(next, found)
        } else {
            let cur = frontier.into_list();
            let next: Vec<u32> = cur
                .par_chunks(CHUNK / 16)
                .flat_map_iter(|chunk| {
                    let (mut local, mut buf) = (Vec::new(), Vec::new());
                    for &u in chunk {
                        for &v in g.row(u, &mut buf) {
                            // A load and a store, not a compare-and-swap: two tasks may both
                            // find `v` new and list it twice — the same distance, and a
                            // frontier state met twice is expanded twice, nothing else.
                            let d = &dist[v as usize];
                            if d.load(Ordering::Relaxed) == UNREACHABLE {
                                d.store(next_level, Ordering::Relaxed);
                                local.push(v);
                            }
                        }
                    }
                    local
                })
                .collect();
            Frontier::List(next)
        };
        // (A state listed twice counts twice: `visited` may run ahead of the truth.)
        visited += frontier.len() as u64;
        progress(visited.min(n as u64));
        level = next_level;
    }
    Ok(dist.into_iter().map(AtomicU16::into_inner).collect())
}

/// Words of the frontier bitmap per parallel task of [`bitmap_bfs`].
const TASK_WORDS: usize = 256;

/// Target words of one task of the block shifts ([`shift_groups`]).
const SPAN_WORDS: u64 = 4096;

/// The block shifts of a space of `n` states cut where their targets cross a span of
/// [`SPAN_WORDS`] bitmap words, grouped by span: a group's pieces write its span only, so the
/// groups can run in parallel with plain reads and writes. `None` if a shift leaves the space.
fn shift_groups(shifts: &[Shift], n: u64) -> Option<Vec<Vec<Shift>>> {
    let span = SPAN_WORDS * 64;
    let mut pieces = Vec::with_capacity(shifts.len());
    for s in shifts {
        if s.from.checked_add(s.len)? > n || s.to.checked_add(s.len)? > n {
            return None;
        }
        let mut done = 0;
        while done < s.len {
            let to = s.to + done;
            let len = (span - to % span).min(s.len - done);
            pieces.push(Shift {
                from: s.from + done,
                to,
                len,
            });
            done += len;
        }
    }
    pieces.sort_by_key(|p| p.to);
    Some(
        pieces
            .chunk_by(|a, b| a.to / span == b.to / span)
            .map(<[Shift]>::to_vec)
            .collect(),
    )
}

/// `k ≤ 64` bits of `words` from bit `at` on, as the low bits of a word.
#[inline]
fn read_bits(words: &[u64], at: u64, k: u64) -> u64 {
    let (w, b) = ((at / 64) as usize, at % 64);
    let mut bits = words[w] >> b;
    if b + k > 64 {
        bits |= words[w + 1] << (64 - b);
    }
    if k < 64 { bits & ((1 << k) - 1) } else { bits }
}

/// ORs the bits of `frontier` from `s.from` on into those of `visited` from `s.to` on, `s.len`
/// of them, a target word at a time (plain reads and writes: the caller owns those words).
fn or_shifted(frontier: &[u64], visited: &[AtomicU64], s: &Shift) {
    if (s.from | s.to | s.len).is_multiple_of(64) {
        // Whole words onto whole words.
        let (from, to, words) = ((s.from / 64) as usize, (s.to / 64) as usize, s.len / 64);
        let from = &frontier[from..][..words as usize];
        for (&f, t) in from.iter().zip(&visited[to..]) {
            if f != 0 {
                t.store(t.load(Ordering::Relaxed) | f, Ordering::Relaxed);
            }
        }
        return;
    }
    let mut done = 0;
    while done < s.len {
        let to = s.to + done;
        let offset = to % 64;
        let take = (64 - offset).min(s.len - done);
        let bits = read_bits(frontier, s.from + done, take);
        if bits != 0 {
            let w = &visited[(to / 64) as usize];
            w.store(
                w.load(Ordering::Relaxed) | bits << offset,
                Ordering::Relaxed,
            );
        }
        done += take;
    }
}

/// Top-down BFS for rows that cost a move generation each: every state's row is generated once,
/// when it is on the frontier; neighbours are claimed in a visited bitmap (one bit per state);
/// each level's new states are the bits it set, and their distances are written in one sweep.
/// Moves that carry a whole range of states onto another ([`Rows::block_shifts`]) are taken a
/// word at a time: the frontier's bits of one range OR-ed into the visited bits of the other.
fn bitmap_bfs(
    g: &impl Rows,
    sources: &[u32],
    progress: impl Fn(u64),
) -> Result<Vec<u16>, StageError> {
    let n = g.node_count();
    let words = n.div_ceil(64);
    let visited: Vec<AtomicU64> = (0..words)
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    let mut dist = vec![UNREACHABLE; n];
    let mut frontier = vec![0u64; words];
    // The block moves, in groups that write disjoint words.
    let shifts = g
        .block_shifts()
        .and_then(|s| shift_groups(&s.shifts, n as u64));
    for &s in sources {
        frontier[s as usize >> 6] |= 1 << (s & 63);
        visited[s as usize >> 6].fetch_or(1 << (s & 63), Ordering::Relaxed);
        dist[s as usize] = 0;
    }
    let mut count = frontier.iter().map(|w| w.count_ones() as u64).sum::<u64>();
    let mut reached = count;
    // The visited bits as of the level before, updated in place as each level's are read.
    let mut before = frontier.clone();
    let mut level: u16 = 0;
    while count > 0 {
        if level == UNREACHABLE - 1 {
            return Err(StageError::Invalid(format!(
                "distances exceed {} levels",
                UNREACHABLE - 1
            )));
        }
        frontier.par_chunks(TASK_WORDS).enumerate().for_each_init(
            Vec::new,
            |states, (k, chunk)| {
                // The chunk's frontier states in increasing order, their rows generated
                // together (a puzzle decodes consecutive states incrementally).
                states.clear();
                for (j, &word) in chunk.iter().enumerate() {
                    let mut word = word;
                    while word != 0 {
                        states.push(((k * TASK_WORDS + j) * 64) as u32 + word.trailing_zeros());
                        word &= word - 1;
                    }
                }
                let mut claim = |_, v: u32| {
                    let (w, bit) = (&visited[v as usize >> 6], 1u64 << (v & 63));
                    if w.load(Ordering::Relaxed) & bit == 0 {
                        w.fetch_or(bit, Ordering::Relaxed);
                    }
                };
                if shifts.is_some() {
                    g.each_other_neighbor(states, &mut claim);
                } else {
                    g.each_neighbor(states, &mut claim);
                }
            },
        );
        if let Some(groups) = &shifts {
            groups.par_iter().for_each(|pieces| {
                for piece in pieces {
                    or_shifted(&frontier, &visited, piece);
                }
            });
        }
        level += 1;
        // The new frontier: the bits set during this level; their distance is the level.
        count = frontier
            .par_chunks_mut(TASK_WORDS)
            .zip(before.par_chunks_mut(TASK_WORDS))
            .zip(dist.par_chunks_mut(TASK_WORDS * 64))
            .enumerate()
            .map(|(k, ((chunk, before), dist))| {
                let mut found = 0;
                for (j, word) in chunk.iter_mut().enumerate() {
                    let now = visited[k * TASK_WORDS + j].load(Ordering::Relaxed);
                    *word = now & !before[j];
                    before[j] = now;
                    found += word.count_ones() as u64;
                    let mut bits = *word;
                    while bits != 0 {
                        dist[j * 64 + bits.trailing_zeros() as usize] = level;
                        bits &= bits - 1;
                    }
                }
                found
            })
            .sum();
        reached += count;
        progress(reached);
    }
    Ok(dist)
}

/// A BFS frontier: a list of states, or a bitmap with its population count.
enum Frontier {
    List(Vec<u32>),
    Bits(Vec<u64>, usize),
}

impl Frontier {
    fn len(&self) -> usize {
        match self {
            Frontier::List(l) => l.len(),
            Frontier::Bits(_, count) => *count,
        }
    }

    fn into_bits(self, words: usize) -> Vec<u64> {
        match self {
            Frontier::Bits(b, _) => b,
            Frontier::List(l) => {
                let mut b = vec![0u64; words];
                for v in l {
                    b[v as usize >> 6] |= 1 << (v & 63);
                }
                b
            }
        }
    }

    fn into_list(self) -> Vec<u32> {
        match self {
            Frontier::List(l) => l,
            Frontier::Bits(b, _) => b
                .par_iter()
                .enumerate()
                .flat_map_iter(|(w, &word)| {
                    let mut word = word;
                    std::iter::from_fn(move || {
                        (word != 0).then(|| {
                            let bit = word.trailing_zeros();
                            word &= word - 1;
                            (w * 64) as u32 + bit
                        })
                    })
                })
                .collect(),
        }
    }
}

/// Simple, obviously correct references for tests and benchmarks.
pub mod reference {
    use graph::{Csr, Rows};
    use huarong_core::UNREACHABLE;
    use std::collections::VecDeque;

    /// Sequential queue BFS from `sources`, over any graph's rows (a stored
    /// [`graph::CsrView`], or regenerated ones).
    pub fn bfs(rows: &impl Rows, sources: &[u32]) -> Vec<u16> {
        let mut dist = vec![UNREACHABLE; rows.node_count()];
        let mut queue = VecDeque::new();
        let mut buf = Vec::new();
        for &s in sources {
            if dist[s as usize] == UNREACHABLE {
                dist[s as usize] = 0;
                queue.push_back(s);
            }
        }
        while let Some(u) = queue.pop_front() {
            let d = dist[u as usize] + 1;
            for &v in rows.row(u, &mut buf) {
                if dist[v as usize] == UNREACHABLE {
                    dist[v as usize] = d;
                    queue.push_back(v);
                }
            }
        }
        dist
    }

    /// Sequential queue BFS along the arcs backwards (over an explicitly transposed graph).
    pub fn bfs_reverse(csr: &Csr, sources: &[u32]) -> Vec<u16> {
        let n = csr.node_count();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for u in 0..n as u32 {
            for &v in csr.neighbors(u) {
                preds[v as usize].push(u);
            }
        }
        let mut dist = vec![UNREACHABLE; n];
        let mut queue = VecDeque::new();
        for &s in sources {
            if dist[s as usize] == UNREACHABLE {
                dist[s as usize] = 0;
                queue.push_back(s);
            }
        }
        while let Some(v) = queue.pop_front() {
            let d = dist[v as usize] + 1;
            for &u in &preds[v as usize] {
                if dist[u as usize] == UNREACHABLE {
                    dist[u as usize] = d;
                    queue.push_back(u);
                }
            }
        }
        dist
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use klotski::{PieceSet, Unlabeled};

    #[test]
    fn matches_reference_and_petgraph_bfs() {
        let dir = tempfile::tempdir().unwrap();
        for set in ["h1v4s4", "h2v3s2", "h0v4s4", "h3v1s4"] {
            let u = Unlabeled::new(set.parse::<PieceSet>().unwrap());
            let q = &Reporter::quiet();
            let (states, _) = enumerate::run(&u, &dir.path().join("s"), true, q).unwrap();
            for metric in 0..3 {
                let (g, _) =
                    graph::run(&u, &states, metric, &dir.path().join("g"), true, q).unwrap();
                let (d, _) = run(
                    &u,
                    &states,
                    &g,
                    &g.view(),
                    &dir.path().join("d"),
                    set,
                    true,
                    q,
                )
                .unwrap();
                let src = sources(&u, &states).unwrap();
                assert!(!src.is_empty());
                assert_eq!(
                    d.values(),
                    &reference::bfs(&g.view(), &src)[..],
                    "{set} {metric}"
                );
                // petgraph's Bfs from the goals reaches exactly the states with a distance.
                let mut bfs = petgraph::visit::Bfs::new(&g, src[0]);
                bfs.stack.extend(src[1..].iter().copied());
                for &s in &src[1..] {
                    bfs.discovered.insert(s as usize);
                }
                let mut reached = 0;
                while let Some(v) = bfs.next(&g) {
                    assert_ne!(d.values()[v as usize], UNREACHABLE);
                    reached += 1;
                }
                let finite = d.values().iter().filter(|&&x| x != UNREACHABLE).count();
                assert_eq!(reached, finite);
            }
        }
    }

    #[test]
    fn reverse_bfs_on_a_directed_graph_matches_the_reference() {
        // Square Destroyer n = 2: all 4,096 removal sets, a directed acyclic graph whose goal
        // distances run against the arcs.
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        for symmetric in [false, true] {
            let p = square_destroyer::SquareDestroyer::new(2, symmetric);
            let (states, _) = enumerate::run(&p, &dir.path().join("s"), true, q).unwrap();
            let (g, _) = graph::run(&p, &states, 0, &dir.path().join("g"), true, q).unwrap();
            assert!(g.is_directed());
            let (d, _) = run(
                &p,
                &states,
                &g,
                &g.view(),
                &dir.path().join("d"),
                "n2",
                true,
                q,
            )
            .unwrap();
            let src = sources(&p, &states).unwrap();
            assert_eq!(d.values(), &reference::bfs_reverse(&g, &src)[..]);
            // Removing everything leaves no square: every set reaches a goal; the full grid
            // needs 3 removals.
            assert!(d.values().iter().all(|&x| x != UNREACHABLE));
            let full = states.lookup(&p, p.grid().full()).unwrap();
            assert_eq!(d.values()[full as usize], 3);
        }
    }

    /// A grid of `blocks × len` states (state `b·len + r` at row `b`, column `r`): moves along
    /// a row within a block, and from row to row as block shifts (reported or not).
    struct Grid {
        blocks: u32,
        len: u32,
        shifts: bool,
    }

    impl Rows for Grid {
        fn node_count(&self) -> usize {
            (self.blocks * self.len) as usize
        }

        fn row<'a>(&'a self, u: u32, buf: &'a mut Vec<u32>) -> &'a [u32] {
            let (b, r) = (u / self.len, u % self.len);
            buf.clear();
            if b > 0 {
                buf.push(u - self.len);
            }
            if r > 0 {
                buf.push(u - 1);
            }
            if r + 1 < self.len {
                buf.push(u + 1);
            }
            if b + 1 < self.blocks {
                buf.push(u + self.len);
            }
            buf
        }

        fn block_shifts(&self) -> Option<huarong_core::BlockShifts> {
            let len = self.len as u64;
            let shift = |b: u64, x: u64| Shift {
                from: b * len,
                to: x * len,
                len,
            };
            self.shifts.then(|| huarong_core::BlockShifts {
                shifts: (1..self.blocks as u64)
                    .flat_map(|b| [shift(b - 1, b), shift(b, b - 1)])
                    .collect(),
            })
        }

        fn is_stored(&self) -> bool {
            false
        }

        fn is_directed(&self) -> bool {
            false
        }
    }

    /// The word-at-a-time block moves give every state its grid distance (rows plus columns),
    /// as the search without them does, for blocks of whole words and of parts of words.
    #[test]
    fn block_shifts_give_the_same_distances() {
        for (blocks, len) in [(5, 128), (3, 64), (4, 100)] {
            for shifts in [false, true] {
                let g = Grid {
                    blocks,
                    len,
                    shifts,
                };
                let source = 2 * len + 7;
                let d = bitmap_bfs(&g, &[source], |_| {}).unwrap();
                for u in 0..blocks * len {
                    let (b, r) = (u / len, u % len);
                    let want = b.abs_diff(2) + r.abs_diff(7);
                    assert_eq!(d[u as usize] as u32, want, "{blocks}x{len} {shifts} {u}");
                }
            }
        }
    }

    proptest::proptest! {
        /// Shifted ranges at any bit offsets, cut into spans and copied word by word, set the
        /// bits a copy bit by bit sets.
        #[test]
        fn shifted_ranges_copy_bit_for_bit(
            frontier in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..300),
            ranges in proptest::collection::vec(
                (0u64..20_000, 0u64..20_000, 0u64..3_000, proptest::prelude::any::<bool>()),
                0..12,
            ),
        ) {
            let n = frontier.len() as u64 * 64;
            // Some of them whole words.
            let shifts: Vec<Shift> = ranges
                .iter()
                .map(|&(from, to, len, words)| {
                    let round = |x: u64| if words { x / 64 * 64 } else { x };
                    let (from, to) = (round(from % n), round(to % n));
                    let len = round(len.min(n - from).min(n - to));
                    Shift { from, to, len }
                })
                .collect();
            let mut plain = vec![0u64; frontier.len()];
            for s in &shifts {
                for r in 0..s.len {
                    let (u, v) = (s.from + r, s.to + r);
                    plain[(v / 64) as usize] |= (frontier[(u / 64) as usize] >> (u % 64) & 1) << (v % 64);
                }
            }
            let visited: Vec<AtomicU64> = (0..frontier.len()).map(|_| AtomicU64::new(0)).collect();
            for group in shift_groups(&shifts, n).unwrap() {
                for piece in &group {
                    or_shifted(&frontier, &visited, piece);
                }
            }
            let got: Vec<u64> = visited.into_iter().map(AtomicU64::into_inner).collect();
            proptest::prop_assert_eq!(got, plain);
        }
    }
}
