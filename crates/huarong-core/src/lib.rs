//! The model every huarong crate shares: the [`Puzzle`] trait every stage is generic over and
//! its capabilities ([`Ranking`], [`IndexedMoves`] with [`Cover`] and [`BlockShifts`]), the [`driver`] traits through
//! which a puzzle family enters the pipeline and the command line, [`Fingerprint`]s, tables as
//! data ([`table`]), error kinds ([`ErrorKind`]) and progress reporting through a front end's
//! [`Report`]. No puzzle knowledge, no printing, no IO: the artifacts are the `huarong-store`
//! crate's.

pub mod abstraction;
pub mod driver;
pub mod failure;
pub mod fingerprint;
pub mod indexed;
pub mod picture;
pub mod progress;
pub mod puzzle;
pub mod table;
pub mod universe;

pub use abstraction::Abstraction;
pub use failure::{ErrorKind, InputError};
pub use fingerprint::Fingerprint;
pub use indexed::{IndexedMoves, indexed_moves};
pub use progress::{Bar, Outcome, Progress, Report, Reporter};
pub use puzzle::{
    BlockShifts, Codes, Cover, DistanceSources, Puzzle, Ranking, Shift, add_space, metric_index,
};
pub use table::{Column, Table, Value};
pub use universe::Universe;

/// How many of the indices `0..n` map to each small number: `counts[k]` is how many `i` have
/// `key(i) == Some(k)` (`None` is not counted). The result ends at the largest key seen (empty
/// if none).
///
/// Parallel over chunks of indices, each counting into a fixed local array (keys below 256 —
/// distances and degrees almost always are) with a growable spill for larger keys.
pub fn tally<F>(n: usize, key: F) -> Vec<u64>
where
    F: Fn(usize) -> Option<usize> + Sync,
{
    use rayon::prelude::*;
    const SMALL: usize = 256;
    const CHUNK: usize = 1 << 16;
    let merged = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut small = [0u32; SMALL];
            let mut large: Vec<u64> = Vec::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                match key(i) {
                    Some(k) if k < SMALL => small[k] += 1,
                    Some(k) => {
                        if large.len() <= k {
                            large.resize(k + 1, 0);
                        }
                        large[k] += 1;
                    }
                    None => {}
                }
            }
            let mut out = large;
            if out.len() < SMALL {
                out.resize(SMALL, 0);
            }
            for (o, &c) in out.iter_mut().zip(&small) {
                *o += c as u64;
            }
            out
        })
        .reduce(Vec::new, |mut a, b| {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            a
        });
    let mut counts = merged;
    while counts.last() == Some(&0) {
        counts.pop();
    }
    counts
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// The chunked count equals a plain sequential count, small keys, spilled keys (≥ 256)
        /// and skipped values alike, and ends at the largest key.
        #[test]
        fn tally_matches_a_plain_count(values in prop::collection::vec(0u16..700, 0..200_000)) {
            let key = |i: usize| (values[i] % 7 != 0).then_some(values[i] as usize);
            let mut plain: Vec<u64> = Vec::new();
            for i in 0..values.len() {
                if let Some(k) = key(i) {
                    if plain.len() <= k {
                        plain.resize(k + 1, 0);
                    }
                    plain[k] += 1;
                }
            }
            prop_assert_eq!(super::tally(values.len(), key), plain);
        }
    }
}
