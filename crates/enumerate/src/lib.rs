//! Stage 1, **enumerate**: every state of a space into the state table, a memory-mapped artifact
//! holding one `u64` code per dense index, in increasing code order.
//!
//! A ranked space's table is computed, not stored: its codes are the puzzle's
//! [`Puzzle::unrank`] of each index, so its artifact holds only the number of states (two
//! sections: that count, and an empty marker) and readers ask [`StateTable::codes`] with the
//! puzzle. Explored spaces are discovered by a breadth-first search from the puzzle's start states and then sorted (for
//! undirected moves level by level against the two levels before, for directed ones against
//! everything seen). Either way
//! the table is sorted, so [`StateTable::lookup`] ranks a code by binary search.

use std::path::Path;

use huarong_core::{Fingerprint, Outcome, Puzzle, Reporter};
use huarong_store::{
    Artifact, ArtifactWriter, Expect, Header, Section, StageError, reuse_or_build,
};
use rayon::prelude::*;

/// Artifact kind of state tables.
pub const KIND: &str = "states";
/// Version 2: a ranked space's table holds its length only.
const VERSION: u32 = 2;

/// The fingerprint a state table of `puzzle` must carry: the stage and its version, the
/// puzzle's name, space id and parameters, and for an explored space its start states.
pub fn fingerprint<P: Puzzle + ?Sized>(puzzle: &P) -> u64 {
    let mut fp = Fingerprint::new("enumerate", VERSION);
    huarong_core::add_space(&mut fp, puzzle);
    if puzzle.ranked_len().is_none() {
        let mut starts = puzzle.starts();
        starts.sort_unstable();
        starts.dedup();
        fp.add_list(starts.len());
        for s in starts {
            fp.add_u64(s);
        }
    }
    fp.finish()
}

/// A verified state table: an explored space's codes, or a ranked space's length.
#[derive(Debug)]
pub struct StateTable {
    artifact: Artifact,
}

/// Whether a verified state table is a ranked space's (its length and the empty marker).
fn is_computed(artifact: &Artifact) -> bool {
    artifact.header().sections.len() == 2
}

impl StateTable {
    /// Opens and verifies the state table of `puzzle` at `path`.
    pub fn open<P: Puzzle + ?Sized>(path: &Path, puzzle: &P) -> Result<Self, StageError> {
        Self::open_with(path, fingerprint(puzzle))
    }

    /// Opens and verifies a state table that must carry `fingerprint`.
    pub fn open_with(path: &Path, fingerprint: u64) -> Result<Self, StageError> {
        let expect = Expect {
            kind: KIND,
            fingerprint: Some(fingerprint),
        };
        Self::new(Artifact::open(path, expect)?)
    }

    /// A table from its verified artifact (of kind [`KIND`] with the space's fingerprint),
    /// after checking its sections have a table's shape.
    pub fn from_artifact(artifact: Artifact) -> Result<Self, StageError> {
        Self::new(artifact)
    }

    fn new(artifact: Artifact) -> Result<Self, StageError> {
        let h = artifact.header();
        let shape: Vec<(u32, u64)> = h.sections.iter().map(|s| (s.elem_size, s.len)).collect();
        if !matches!(shape[..], [(8, _)] | [(8, 1), (1, 0)]) {
            return Err(StageError::Invalid(format!(
                "{}: not a state table (sections {:?})",
                artifact.path().display(),
                h.sections
            )));
        }
        Ok(StateTable { artifact })
    }

    /// The codes in index order (increasing): stored, or computed by `puzzle`, whose space
    /// this table must be (ranked tables store no codes).
    pub fn codes<'a, P: Puzzle + ?Sized>(&'a self, puzzle: &'a P) -> huarong_core::Codes<'a> {
        match self.stored() {
            Some(codes) => huarong_core::Codes::Stored(codes),
            None => huarong_core::Codes::Ranked {
                ranking: ranking_of(puzzle),
                len: self.len(),
            },
        }
    }

    /// The stored codes of an explored space (`None` for a ranked space's computed table).
    pub fn stored(&self) -> Option<&[u64]> {
        (!is_computed(&self.artifact)).then(|| self.artifact.section(0))
    }

    pub fn len(&self) -> usize {
        match self.stored() {
            Some(codes) => codes.len(),
            None => self.artifact.section::<u64>(0)[0] as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The dense index of a code of `puzzle`'s space, this table's.
    pub fn lookup<P: Puzzle + ?Sized>(&self, puzzle: &P, code: u64) -> Option<u32> {
        self.codes(puzzle).index_of(code)
    }

    /// The code of state `i` of `puzzle`'s space, this table's.
    #[inline]
    pub fn code<P: Puzzle + ?Sized>(&self, puzzle: &P, i: usize) -> u64 {
        match self.stored() {
            Some(codes) => codes[i],
            None => ranking_of(puzzle).unrank(i as u64),
        }
    }

    /// The payload checksum (downstream fingerprints include it).
    pub fn checksum(&self) -> u64 {
        self.artifact.header().checksum
    }

    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }

    /// The verified artifact itself (its map outlives the table).
    pub fn into_artifact(self) -> Artifact {
        self.artifact
    }
}

/// Builds (or reuses) the state table of `puzzle` at `path`.
pub fn run<P: Puzzle + ?Sized>(
    puzzle: &P,
    path: &Path,
    force: bool,
    reporter: &Reporter,
) -> Result<(StateTable, Outcome), StageError> {
    run_bounded(puzzle, path, force, u32::MAX as u64, reporter)
}

/// [`run`], exploring at most `limit` states: an explored space that has more stops with an
/// error as soon as a level passes the bound, instead of growing until memory runs out.
pub fn run_bounded<P: Puzzle + ?Sized>(
    puzzle: &P,
    path: &Path,
    force: bool,
    limit: u64,
    reporter: &Reporter,
) -> Result<(StateTable, Outcome), StageError> {
    let fp = fingerprint(puzzle);
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let label = format!("{} {} states", puzzle.name(), puzzle.space_id());
    let (artifact, outcome) =
        reuse_or_build(path, expect, force, |path| match puzzle.ranked_len() {
            Some(n) => write_ranked(n, path, fp, &label),
            None => write_explored(puzzle, path, fp, &label, limit, reporter),
        })?;
    Ok((StateTable::new(artifact)?, outcome))
}

/// The ranking of the space whose table stores no codes: a ranked space, as the table's
/// fingerprint (the space's name, id and parameters) says; an explored space's table stores them.
#[inline]
fn ranking_of<P: Puzzle + ?Sized>(puzzle: &P) -> &dyn huarong_core::Ranking {
    puzzle
        .ranking()
        .expect("a table without codes is a ranked space's: its fingerprint names the space")
}

fn write_ranked(n: u64, path: &Path, fp: u64, label: &str) -> Result<Header, StageError> {
    if n > u32::MAX as u64 {
        return Err(StageError::Invalid(format!(
            "{label}: {n} states do not fit a u32 dense index"
        )));
    }
    let sections = [Section::of::<u64>(1), Section::of::<u8>(0)];
    let w = ArtifactWriter::create(path, KIND, fp, label, &sections)?;
    w.write(0, 0, &[n])?;
    Ok(w.finish()?)
}

fn write_explored<P: Puzzle + ?Sized>(
    puzzle: &P,
    path: &Path,
    fp: u64,
    label: &str,
    limit: u64,
    reporter: &Reporter,
) -> Result<Header, StageError> {
    let bar = reporter.bar(0, format!("explore {}", puzzle.space_id()));
    let starts = puzzle.starts();
    let metrics = puzzle.explore_metrics();
    let explored = explore_from(puzzle, &starts, &metrics, limit, |n| bar.inc(n), &|| true);
    bar.finish();
    let codes = explored.map_err(|stopped| {
        let found = match stopped {
            Stopped::Limit(found) => found,
            Stopped::Cancelled => unreachable!("the stage always keeps going"),
        };
        StageError::Invalid(format!(
            "{label}: stopped exploring at {found} states, over the run's bound of {limit} \
             (max_states)"
        ))
    })?;
    if codes.len() as u64 > u32::MAX as u64 {
        return Err(StageError::Invalid(format!(
            "{label}: {} states do not fit a u32 dense index",
            codes.len()
        )));
    }
    let w = ArtifactWriter::create(
        path,
        KIND,
        fp,
        label,
        &[Section::of::<u64>(codes.len() as u64)],
    )?;
    w.write(0, 0, &codes)?;
    Ok(w.finish()?)
}

/// Every state reachable from the puzzle's starts (along [`Puzzle::explore_metrics`]), sorted.
pub fn explore<P: Puzzle + ?Sized>(puzzle: &P, progress: impl Fn(u64)) -> Vec<u64> {
    let starts = puzzle.starts();
    explore_from(
        puzzle,
        &starts,
        &puzzle.explore_metrics(),
        u64::MAX,
        progress,
        &|| true,
    )
    .expect("no limit to exceed, nobody to stop it")
}

/// Why [`explore_from`] stopped before it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// More states than the limit: this many found so far.
    Limit(u64),
    /// `keep_going` said no (whoever asked went away).
    Cancelled,
}

/// Every state reachable from `starts` by the moves of `metrics`, sorted — the search of
/// [`explore`], also for a single component (`huarong serve` explores a position's). It stops
/// at the end of the level that passes `limit` states, or after any level at which
/// `keep_going` says no.
pub fn explore_from<P: Puzzle + ?Sized>(
    puzzle: &P,
    starts: &[u64],
    metrics: &[usize],
    limit: u64,
    progress: impl Fn(u64),
    keep_going: &dyn Fn() -> bool,
) -> Result<Vec<u64>, Stopped> {
    let mut starts = starts.to_vec();
    starts.sort_unstable();
    starts.dedup();
    if puzzle.directed() {
        explore_directed(puzzle, starts, metrics, limit, progress, keep_going)
    } else {
        explore_layers(puzzle, starts, metrics, limit, progress, keep_going)
    }
}

/// The successors of a level's states, sorted and deduplicated (in parallel when the level is
/// large enough to pay for it).
fn next_level<P: Puzzle + ?Sized>(puzzle: &P, metrics: &[usize], frontier: &[u64]) -> Vec<u64> {
    const PARALLEL: usize = 4096;
    let expand = |chunk: &[u64]| {
        let mut out = Vec::new();
        for &code in chunk {
            for &metric in metrics {
                puzzle.successors(code, metric, &mut out);
            }
        }
        out
    };
    let mut next: Vec<u64> = if frontier.len() < PARALLEL {
        expand(frontier)
    } else {
        frontier.par_chunks(1024).flat_map_iter(expand).collect()
    };
    if next.len() < PARALLEL {
        next.sort_unstable();
    } else {
        next.par_sort_unstable();
    }
    next.dedup();
    next
}

/// After a level: whether a search that has found `found` states may go on.
fn may_go_on(found: usize, limit: u64, keep_going: &dyn Fn() -> bool) -> Result<(), Stopped> {
    if found as u64 > limit {
        return Err(Stopped::Limit(found as u64));
    }
    if !keep_going() {
        return Err(Stopped::Cancelled);
    }
    Ok(())
}

/// Undirected moves: a breadth-first search by levels, where the neighbours of level `k` lie in
/// levels `k − 1`, `k` and `k + 1` only. So each new level is checked against the two before it
/// (binary search in sorted vectors), never against everything seen; the levels are merged once
/// at the end.
fn explore_layers<P: Puzzle + ?Sized>(
    puzzle: &P,
    starts: Vec<u64>,
    metrics: &[usize],
    limit: u64,
    progress: impl Fn(u64),
    keep_going: &dyn Fn() -> bool,
) -> Result<Vec<u64>, Stopped> {
    let mut current = starts;
    let mut previous: Vec<u64> = Vec::new();
    let mut all = current.clone();
    while !current.is_empty() {
        let mut next = next_level(puzzle, metrics, &current);
        next.retain(|c| previous.binary_search(c).is_err() && current.binary_search(c).is_err());
        progress(next.len() as u64);
        all.extend_from_slice(&next);
        may_go_on(all.len(), limit, keep_going)?;
        previous = std::mem::replace(&mut current, next);
    }
    all.par_sort_unstable();
    Ok(all)
}

/// Directed moves: a level-synchronous search against the sorted set of every state seen
/// (a state can be reached again from any later level).
fn explore_directed<P: Puzzle + ?Sized>(
    puzzle: &P,
    starts: Vec<u64>,
    metrics: &[usize],
    limit: u64,
    progress: impl Fn(u64),
    keep_going: &dyn Fn() -> bool,
) -> Result<Vec<u64>, Stopped> {
    let mut frontier = starts;
    let mut seen = frontier.clone();
    while !frontier.is_empty() {
        let next: Vec<u64> = next_level(puzzle, metrics, &frontier)
            .into_par_iter()
            .filter(|c| seen.binary_search(c).is_err())
            .collect();
        progress(next.len() as u64);
        let mut merged = Vec::with_capacity(seen.len() + next.len());
        let (mut i, mut j) = (0, 0);
        while i < seen.len() && j < next.len() {
            if seen[i] < next[j] {
                merged.push(seen[i]);
                i += 1;
            } else {
                merged.push(next[j]);
                j += 1;
            }
        }
        merged.extend_from_slice(&seen[i..]);
        merged.extend_from_slice(&next[j..]);
        seen = merged;
        may_go_on(seen.len(), limit, keep_going)?;
        frontier = next;
    }
    Ok(seen)
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::Ranking;
    use klotski::{Labeled, PieceSet, Unlabeled};

    #[test]
    fn writes_reuses_and_rebuilds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("states.bin");
        let u = Unlabeled::new(PieceSet::CLASSIC);
        let (t, o) = run(&u, &path, false, &Reporter::quiet()).unwrap();
        assert_eq!(o, Outcome::Built);
        assert_eq!(t.len(), 65_880);
        assert_eq!(t.codes(&u).to_vec(), u.codes());
        assert_eq!(t.lookup(&u, u.codes()[1234]), Some(1234));
        drop(t);
        let (_, o) = run(&u, &path, false, &Reporter::quiet()).unwrap();
        assert_eq!(o, Outcome::Reused);
        // A table of another space at the same path is stale and gets rebuilt.
        let other = Unlabeled::new("h2v3s2".parse().unwrap());
        let (t, o) = run(&other, &path, false, &Reporter::quiet()).unwrap();
        assert!(
            matches!(o, Outcome::Rebuilt(ref why) if why.contains("stale")),
            "{o:?}"
        );
        assert_eq!(t.len(), other.len());
    }

    #[test]
    fn labeled_small_set_is_sorted_and_ranked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("states.bin");
        let l = Labeled::new("h2v1s2".parse().unwrap()).unwrap();
        let (t, _) = run(&l, &path, false, &Reporter::quiet()).unwrap();
        assert_eq!(t.len() as u64, l.len());
        let codes = t.codes(&l).to_vec();
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
        for (i, &c) in codes.iter().enumerate().step_by(101) {
            assert_eq!(l.rank(c), Some(i as u64));
        }
    }
}
