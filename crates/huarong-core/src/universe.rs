//! A *universe*: a family's census over many independent units of work (Rush Hour: every layout
//! of a board, class by class), each searched in memory and never stored. A
//! [`crate::driver::Plan`] lists universes beside its spaces. The pipeline cuts the units into
//! *chunks* of about [`Universe::chunk_work`] ([`chunks`]), keeps each chunk's census as an
//! artifact as soon as it is done (a killed run resumes from the chunks it finished), spreads
//! the chunks over the processes of a timely run by their work ([`assign`]), and merges them
//! into one census, which must cover every unit exactly once ([`Census::units`]). A census
//! is the family's own type behind [`Census`]: the pipeline keeps and sends its bytes
//! ([`Census::encode`], [`Universe::decode`]) and never looks inside.

use std::any::Any;
use std::ops::Range;

use crate::{Fingerprint, Table};

/// Why a census could not be computed, merged or read.
#[derive(Debug, thiserror::Error)]
pub enum CensusError {
    /// The family refused or failed the work (a unit too large for the run's bound, a distance
    /// past what the census stores).
    #[error("{0}")]
    Refused(String),
    /// Bytes that are not a census of this universe.
    #[error("not a census of this universe: {0}")]
    Corrupt(String),
    /// A unit needs more states than the run's bound (`max_states`).
    #[error(
        "a {unit} of {size} states, over the run's bound of {bound} states (max_states): \
         refused before any {unit} is searched"
    )]
    TooLarge {
        unit: &'static str,
        size: u64,
        bound: u64,
    },
    /// Two censuses merged that both count some units.
    #[error("two censuses both count units {0:?}: a unit is counted once")]
    Overlap(Range<u64>),
}

impl CensusError {
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            CensusError::Refused(_) | CensusError::TooLarge { .. } => crate::ErrorKind::Refused,
            CensusError::Corrupt(_) | CensusError::Overlap(_) => crate::ErrorKind::Corrupt,
        }
    }
}

/// A census over independent units; see the module documentation.
pub trait Universe: Send + Sync + std::fmt::Debug {
    /// Names the universe (e.g. `rush-hour-6x6-w2`): the folder of its artifacts.
    fn id(&self) -> String;

    /// Everything that decides the result (board size, walls, the algorithm's version): the
    /// artifacts' fingerprint.
    fn parameters(&self, key: &mut Fingerprint);

    /// Units of work (Rush Hour: classes).
    fn units(&self) -> usize;

    /// Every unit's work, in the unit of [`Universe::chunk_work`] (Rush Hour: the layouts its
    /// search holds in memory, 0 for a class counted with its mirror image), measured without
    /// searching. It is also the memory a unit needs: one over the run's state bound is
    /// refused before any unit is searched.
    fn work(&self) -> Vec<u64>;

    /// The work of one chunk: about a minute or less on one machine, so that a killed run
    /// loses little.
    fn chunk_work(&self) -> u64;

    /// What a unit is called in messages (Rush Hour: `class`).
    fn unit_name(&self) -> &'static str {
        "unit"
    }

    /// What the work is counted in, in messages (Rush Hour: `layouts`).
    fn work_name(&self) -> &'static str {
        "work"
    }

    /// Per unit, its *pace*: a number such that units whose paces share a power of two take
    /// about the same time per unit of work (Rush Hour: a class's layouts per row combination
    /// — a class of many short rows of few layouts each takes several times longer per layout
    /// than one of few long rows). The projection samples and times each such group of units on
    /// its own. `work` is [`Universe::work`]'s; by default a unit's pace is its work.
    fn paces(&self, work: &[u64]) -> Vec<u64> {
        work.to_vec()
    }

    /// The census of exactly `units` (any order, no unit twice), on the rayon pool;
    /// `progress(unit, work)` is called as each unit finishes, with its work, on the thread
    /// that ran it (the projection times each unit from its thread's unit before).
    fn run(
        &self,
        units: &[usize],
        progress: &(dyn Fn(usize, u64) + Sync),
    ) -> Result<Box<dyn Census>, CensusError>;

    /// The census of no unit (what merging starts from).
    fn empty(&self) -> Box<dyn Census>;

    /// Reads a census back from [`Census::encode`]'s bytes; [`CensusError::Corrupt`] if they
    /// are not a census of this universe.
    fn decode(&self, bytes: &[u8]) -> Result<Box<dyn Census>, CensusError>;

    /// The census of all `parts` together, the same however the units were split;
    /// [`CensusError::Overlap`] if two parts count a unit. Merged in pairs, level by level, so
    /// that each part is merged about log₂(parts) times: one after another, the census so far
    /// (millions of puzzles) would be merged again for every one of hundreds of chunks.
    fn merge(&self, parts: Vec<Box<dyn Census>>) -> Result<Box<dyn Census>, CensusError> {
        let mut level = vec![self.empty()];
        level.extend(parts);
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut pairs = level.into_iter();
            while let Some(mut a) = pairs.next() {
                if let Some(b) = pairs.next() {
                    a.merge(b)?;
                }
                next.push(a);
            }
            level = next;
        }
        Ok(level.pop().expect("the empty census at least"))
    }
}

/// A census of some units of a [`Universe`], in its family's own type.
pub trait Census: Send + Sync + std::fmt::Debug {
    /// Its bytes, which [`Universe::decode`] reads back: what is kept as an artifact and sent
    /// between processes, the same however the units were split.
    fn encode(&self) -> Vec<u8>;

    /// The units it counts, as sorted disjoint ranges.
    fn units(&self) -> Vec<Range<u64>>;

    /// Adds `other`'s units to it; [`CensusError::Overlap`] if both count a unit,
    /// [`CensusError::Corrupt`] if `other` is another universe's.
    fn merge(&mut self, other: Box<dyn Census>) -> Result<(), CensusError>;

    /// Its summary row: `(column, value)`.
    fn summary(&self) -> Vec<(&'static str, u64)>;

    /// Its Parquet tables: `(file name, table)`.
    fn tables(&self) -> Vec<(String, Table)>;

    /// Itself, for [`Census::merge`] to take another census of its own type back.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// The units cut into consecutive chunks of about `target` work each (at least one unit a
/// chunk): the same cut on every machine and every run, whatever the split over processes.
pub fn chunks(work: &[u64], target: u64) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut sum) = (0, 0u64);
    for (k, &w) in work.iter().enumerate() {
        if sum > 0 && sum + w > target {
            out.push(start..k);
            (start, sum) = (k, 0);
        }
        sum += w;
    }
    if start < work.len() {
        out.push(start..work.len());
    }
    out
}

/// Chunks (given their work) spread over `parts` processes by work, not by index: the largest
/// first, each to the process with the least work so far (ties to the lower index). Returns
/// each chunk's process.
pub fn assign(chunk_work: &[u64], parts: usize) -> Vec<usize> {
    let parts = parts.max(1);
    let mut order: Vec<usize> = (0..chunk_work.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(chunk_work[i]), i));
    let mut load = vec![0u64; parts];
    let mut owner = vec![0usize; chunk_work.len()];
    for i in order {
        let p = (0..parts).min_by_key(|&p| (load[p], p)).expect("a part");
        load[p] += chunk_work[i];
        owner[i] = p;
    }
    owner
}

/// `units` as sorted disjoint ranges (consecutive units joined); `None` if a unit is listed
/// twice.
pub fn ranges_of(units: &[usize]) -> Option<Vec<Range<u64>>> {
    let mut sorted: Vec<u64> = units.iter().map(|&u| u as u64).collect();
    sorted.sort_unstable();
    let mut out: Vec<Range<u64>> = Vec::new();
    for u in sorted {
        match out.last_mut() {
            Some(r) if r.end > u => return None,
            Some(r) if r.end == u => r.end += 1,
            _ => out.push(u..u + 1),
        }
    }
    Some(out)
}

/// The union of two sorted lists of disjoint ranges, joined where they touch; the first
/// overlap found otherwise.
pub fn union(a: &[Range<u64>], b: &[Range<u64>]) -> Result<Vec<Range<u64>>, Range<u64>> {
    let mut all: Vec<Range<u64>> = a.iter().chain(b).cloned().collect();
    all.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::new();
    for r in all {
        match out.last_mut() {
            Some(last) if last.end > r.start => {
                return Err(r.start..last.end.min(r.end));
            }
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn chunks_cover_every_unit_once_in_order(
            work in proptest::collection::vec(0u64..100, 0..200),
            target in 1u64..500,
        ) {
            let cut = chunks(&work, target);
            let flat: Vec<usize> = cut.iter().flat_map(|r| r.clone()).collect();
            prop_assert_eq!(flat, (0..work.len()).collect::<Vec<_>>());
            for r in &cut {
                prop_assert!(!r.is_empty());
                let sum: u64 = work[r.clone()].iter().sum();
                // Within the target, or one unit of work alone over it.
                let positive = work[r.clone()].iter().filter(|&&w| w > 0).count();
                prop_assert!(sum <= target || positive == 1);
            }
            // Each chunk as full as the next chunk's first unit allows.
            for pair in cut.windows(2) {
                let sum: u64 = work[pair[0].clone()].iter().sum();
                prop_assert!(sum + work[pair[1].start] > target);
            }
        }

        #[test]
        fn assignment_is_balanced_by_work(
            work in proptest::collection::vec(1u64..1000, 1..100),
            parts in 1usize..6,
        ) {
            let owner = assign(&work, parts);
            let mut load = vec![0u64; parts];
            for (i, &p) in owner.iter().enumerate() {
                prop_assert!(p < parts);
                load[p] += work[i];
            }
            // Greedy on the largest first: no part exceeds the mean by more than the largest
            // chunk.
            let total: u64 = work.iter().sum();
            let largest = *work.iter().max().unwrap();
            for &l in &load {
                prop_assert!(l * parts as u64 <= total + largest * parts as u64);
            }
        }

        #[test]
        fn ranges_and_unions_agree_with_sets(
            a in proptest::collection::btree_set(0usize..300, 0..100),
            b in proptest::collection::btree_set(0usize..300, 0..100),
        ) {
            let ra = ranges_of(&a.iter().copied().collect::<Vec<_>>()).unwrap();
            let rb = ranges_of(&b.iter().copied().collect::<Vec<_>>()).unwrap();
            let back: Vec<usize> = ra.iter().flat_map(|r| r.start as usize..r.end as usize).collect();
            prop_assert_eq!(back, a.iter().copied().collect::<Vec<_>>());
            match union(&ra, &rb) {
                Ok(u) => {
                    prop_assert!(a.is_disjoint(&b));
                    let all: Vec<usize> = u.iter().flat_map(|r| r.start as usize..r.end as usize).collect();
                    prop_assert_eq!(all, a.union(&b).copied().collect::<Vec<_>>());
                    prop_assert!(u.windows(2).all(|w| w[0].end < w[1].start));
                }
                Err(overlap) => {
                    prop_assert!(a.contains(&(overlap.start as usize)));
                    prop_assert!(b.contains(&(overlap.start as usize)));
                }
            }
        }
    }

    #[test]
    fn a_unit_listed_twice_has_no_ranges() {
        assert_eq!(ranges_of(&[3, 1, 3]), None);
        assert_eq!(ranges_of(&[3, 1, 2, 7]), Some(vec![1..4, 7..8]));
    }
}
