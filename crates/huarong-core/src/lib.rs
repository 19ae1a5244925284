//! Shared foundation of the huarong pipeline: the [`Puzzle`] trait every stage is generic over,
//! the checksummed, memory-mapped [`artifact`] format, and progress reporting.

pub mod artifact;
pub mod progress;
pub mod puzzle;
pub mod stage;

pub use artifact::{Artifact, ArtifactError, ArtifactWriter, Expect, Fingerprint, Header, Section};
pub use progress::{Progress, Reporter};
pub use puzzle::{DistanceSources, Puzzle, metric_index};
pub use stage::{Outcome, StageError, reuse_or_build};

/// How many times each value occurs: `counts[v]` for every value `v` the iterator yields
/// (counted in parallel, one growing vector per worker, merged at the end).
pub fn tally<I>(values: I) -> Vec<u64>
where
    I: rayon::iter::ParallelIterator<Item = usize>,
{
    use rayon::iter::ParallelIterator;
    values
        .fold(Vec::new, |mut h: Vec<u64>, v| {
            if h.len() <= v {
                h.resize(v + 1, 0);
            }
            h[v] += 1;
            h
        })
        .reduce(Vec::new, |mut a, b| {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            a
        })
}

/// Marks "no distance" (unreachable from the sources) in distance arrays.
pub const UNREACHABLE: u16 = u16::MAX;
