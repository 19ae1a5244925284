//! Shared foundation of the huarong pipeline: the [`Puzzle`] trait every stage is generic over,
//! the [`driver`] traits through which a puzzle family enters the pipeline and the command line,
//! the checksummed, memory-mapped [`artifact`] format and its [`atomic`] writes, tables as data
//! ([`table`]), and progress reporting through a front end's [`Report`]. No puzzle knowledge,
//! no printing.

pub mod artifact;
pub mod atomic;
pub mod driver;
pub mod picture;
pub mod progress;
pub mod puzzle;
pub mod stage;
pub mod table;

pub use artifact::{Artifact, ArtifactError, ArtifactWriter, Expect, Fingerprint, Header, Section};
pub use progress::{Bar, Progress, Report, Reporter};
pub use puzzle::{DistanceSources, Puzzle, add_space, metric_index};
pub use stage::{Outcome, StageError, reuse_or_build};
pub use table::{Column, Table, Value};

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

/// SplitMix64: a tiny deterministic generator for sampled and generated cases (reproducible
/// from its seed on every platform).
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Marks "no distance" (unreachable from the sources) in distance arrays.
pub const UNREACHABLE: u16 = u16::MAX;
