//! The **patterns** stage: a pattern database, the breadth-first distances of a ranked abstract
//! space ([`huarong_core::Abstraction`]) from its goal, the fewest pattern moves of every
//! placement, into one memory-mapped, checksummed artifact.
//!
//! A search state is a placement and the blank's region among its free cells. The search is
//! level-synchronous and parallel over the placements in index order, keeping 2 bits per
//! placement and cell (32 bits, 64 past 16 cells, two 64-bit words past 32; [`codes`]): 0
//! unvisited, then the level's parity (1 or 2) for the cells of a region reached on the current
//! or next level, 3 once its moves are expanded. A region is claimed by one compare-and-swap of
//! its lowest cell's word, so no state is expanded twice; the placement's distance is the level
//! of its first claimed region (one byte, written on that level only). A chunk of placements is
//! scanned on a level only if something in it was claimed on the level before. Memory: 5 bytes
//! per placement on boards of at most 16 cells (2.6 GB for the 518,918,400 placements of the
//! fifteen puzzle's 8-tile group), 9 up to 32 cells (1.1 GB for a 6-tile group of the
//! twenty-four puzzle), 17 up to 64 (770 MB for a 5-tile group of the thirty-five puzzle).
//!
//! The artifact (kind `pattern`) holds `[placements, largest value, bits per value]`, the
//! number of placements at each value, and the values: 4 bits each when every placement is
//! reached and below 16, else a byte ([`Values`]; 255 = not reached). Its fingerprint covers
//! the abstraction's parameters ([`fingerprint`]), so a changed board, goal or group rebuilds
//! it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use huarong_core::abstraction::Values;
use huarong_core::{Abstraction, Fingerprint, Outcome, Reporter};
use huarong_store::{Artifact, ArtifactWriter, Expect, Section, StageError, reuse_or_build};
use rayon::prelude::*;

use codes::{Claim, Codes, Wide};

mod codes;

/// Artifact kind of pattern databases.
pub const KIND: &str = "pattern";
const VERSION: u32 = 1;
/// A placement no search state reached.
pub const UNREACHED: u8 = u8::MAX;
/// Placements per chunk (the unit of parallel work and of the skip flags).
const CHUNK: usize = 1 << 12;

/// The fingerprint of `a`'s database: the stage and its version, the abstraction's
/// parameters.
pub fn fingerprint<A: Abstraction + ?Sized>(a: &A) -> u64 {
    let mut fp = Fingerprint::new("patterns", VERSION);
    a.parameters(&mut fp);
    fp.finish()
}

/// A verified pattern database.
#[derive(Debug)]
pub struct Database {
    artifact: Artifact,
    /// The values copied to anonymous memory ([`Database::load_resident`]).
    resident: Option<memmap2::MmapMut>,
}

/// Databases smaller than this are searched where they are mapped: they fit the caches' reach.
pub const RESIDENT_FROM: usize = 32 << 20;

impl Database {
    /// Opens and verifies the database of `a` at `path`.
    pub fn open<A: Abstraction + ?Sized>(path: &Path, a: &A) -> Result<Self, StageError> {
        Self::open_with(path, fingerprint(a), a.len())
    }

    /// Opens and verifies a database that must carry `fingerprint` and hold `len` values.
    pub fn open_with(path: &Path, fingerprint: u64, len: u64) -> Result<Self, StageError> {
        let artifact = Artifact::open(
            path,
            Expect {
                kind: KIND,
                fingerprint: Some(fingerprint),
            },
        )?;
        Self::checked(artifact, len)
    }

    fn checked(artifact: Artifact, len: u64) -> Result<Self, StageError> {
        let bad =
            |why: String| StageError::Invalid(format!("{}: {why}", artifact.path().display()));
        let meta: &[u64] = artifact.section(0);
        if meta.len() != 3 {
            return Err(bad(format!("a header of {} numbers, not 3", meta.len())));
        }
        let (n, max, bits) = (meta[0], meta[1], meta[2]);
        if n != len {
            return Err(bad(format!("{n} placements, not {len}")));
        }
        let bytes = artifact.section::<u8>(2).len() as u64;
        let want = match bits {
            4 => n.div_ceil(2),
            8 => n,
            _ => return Err(bad(format!("{bits} bits per value, not 4 or 8"))),
        };
        if bytes != want {
            return Err(bad(format!("{bytes} bytes of values, not {want}")));
        }
        let counts: &[u64] = artifact.section(1);
        if counts.len() as u64 != max + 1 || counts.iter().sum::<u64>() > n {
            return Err(bad("counts that do not match the values".into()));
        }
        Ok(Database {
            artifact,
            resident: None,
        })
    }

    /// Copies the values (from [`RESIDENT_FROM`] bytes) to anonymous memory the kernel is
    /// asked to back with huge pages, 2 MiB on x86-64 instead of 4 KiB: a search's lookups,
    /// scattered over hundreds of megabytes, then rarely miss the address translation cache.
    /// Keeps the mapped file when the system refuses the memory.
    pub fn load_resident(&mut self) {
        let bytes = self.artifact.section::<u8>(2);
        if self.resident.is_some() || bytes.len() < RESIDENT_FROM {
            return;
        }
        let Ok(mut map) = memmap2::MmapMut::map_anon(bytes.len()) else {
            return;
        };
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        map.copy_from_slice(bytes);
        self.resident = Some(map);
    }

    /// The values, one per placement.
    pub fn values(&self) -> Values<'_> {
        let bytes = match &self.resident {
            Some(map) => &map[..],
            None => self.artifact.section::<u8>(2),
        };
        match self.artifact.section::<u64>(0)[2] {
            4 => Values::Nibbles(bytes),
            _ => Values::Bytes(bytes),
        }
    }

    pub fn len(&self) -> u64 {
        self.artifact.section::<u64>(0)[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest value.
    pub fn max(&self) -> u8 {
        self.artifact.section::<u64>(0)[1] as u8
    }

    /// Bits per stored value (4 or 8).
    pub fn bits(&self) -> u32 {
        self.artifact.section::<u64>(0)[2] as u32
    }

    /// How many placements have each value (index = value); the rest were not reached.
    pub fn counts(&self) -> &[u64] {
        self.artifact.section(1)
    }

    /// The mean value over the reached placements (the figure Korf & Felner tabulate).
    pub fn mean(&self) -> f64 {
        let c = self.counts();
        let reached: u64 = c.iter().sum();
        let sum: u64 = c.iter().enumerate().map(|(v, &k)| v as u64 * k).sum();
        sum as f64 / reached.max(1) as f64
    }

    pub fn checksum(&self) -> u64 {
        self.artifact.header().checksum
    }
}

/// Builds `a`'s database at `path`, or reuses the verified one there (unless `force`).
pub fn run<A: Abstraction + ?Sized>(
    a: &A,
    path: &Path,
    force: bool,
    reporter: &Reporter,
) -> Result<(Database, Outcome), StageError> {
    let fp = fingerprint(a);
    let expect = Expect {
        kind: KIND,
        fingerprint: Some(fp),
    };
    let (artifact, outcome) = reuse_or_build(path, expect, force, |path| {
        let values = build(a, reporter)?;
        write(path, fp, &a.id(), &values)
    })?;
    Ok((Database::checked(artifact, a.len())?, outcome))
}

/// Writes `values` (one per placement, [`UNREACHED`] where none) as a pattern database.
fn write(
    path: &Path,
    fingerprint: u64,
    label: &str,
    values: &[u8],
) -> Result<huarong_store::Header, StageError> {
    let counts = huarong_core::tally(values.len(), |i| {
        (values[i] != UNREACHED).then_some(values[i] as usize)
    });
    let max = counts.len().saturating_sub(1) as u64;
    let reached: u64 = counts.iter().sum();
    let nibbles = reached == values.len() as u64 && max < 16;
    let n = values.len() as u64;
    let bytes = if nibbles { n.div_ceil(2) } else { n };
    let w = ArtifactWriter::create(
        path,
        KIND,
        fingerprint,
        label,
        &[
            Section::of::<u64>(3),
            Section::of::<u64>(counts.len() as u64),
            Section::of::<u8>(bytes),
        ],
    )?;
    w.write(0, 0, &[n, max, if nibbles { 4 } else { 8 }])?;
    w.write(1, 0, &counts)?;
    if nibbles {
        const BLOCK: usize = 1 << 20;
        for (b, chunk) in values.chunks(2 * BLOCK).enumerate() {
            let packed: Vec<u8> = chunk
                .chunks(2)
                .map(|p| p[0] | p.get(1).copied().unwrap_or(0) << 4)
                .collect();
            w.write(2, (b * BLOCK) as u64, &packed)?;
        }
    } else {
        w.write(2, 0, values)?;
    }
    Ok(w.finish()?)
}

/// At least the bytes a database of `a` takes on disk: 4 bits a placement (a byte each where
/// its values do not all fit), the header aside.
pub fn least_file_bytes<A: Abstraction + ?Sized>(a: &A) -> u64 {
    a.len().div_ceil(2)
}

/// Bytes of memory per placement while building `a`'s database: its cell codes (4 bytes up to
/// 16 cells, 8 up to 32, 16 up to 64) and its distance byte.
pub fn build_bytes_per_placement<A: Abstraction + ?Sized>(a: &A) -> u64 {
    match a.cells() {
        n if n <= u32::CELLS => 5,
        n if n <= u64::CELLS => 9,
        _ => 17,
    }
}

/// The fewest pattern moves from every placement of `a` to its goal ([`UNREACHED`] where
/// none), by the search the module documentation describes.
pub fn build<A: Abstraction + ?Sized>(a: &A, reporter: &Reporter) -> Result<Vec<u8>, StageError> {
    if a.cells() > huarong_core::abstraction::MAX_CELLS {
        return Err(StageError::Invalid(format!(
            "{}: {} cells, more than the {} a pattern database's regions hold",
            a.id(),
            a.cells(),
            huarong_core::abstraction::MAX_CELLS
        )));
    }
    match a.cells() {
        n if n <= u32::CELLS => build_with::<u32, A>(a, reporter),
        n if n <= u64::CELLS => build_with::<u64, A>(a, reporter),
        _ => build_with::<Wide, A>(a, reporter),
    }
}

fn build_with<W: Codes, A: Abstraction + ?Sized>(
    a: &A,
    reporter: &Reporter,
) -> Result<Vec<u8>, StageError> {
    let n = usize::try_from(a.len())
        .map_err(|_| StageError::Invalid(format!("{}: too many placements", a.id())))?;
    let mut codes = vec![W::ZERO; n];
    let mut dist = vec![UNREACHED; n];
    let (goal, region) = a.goal();
    codes[goal as usize] = W::start(region);
    dist[goal as usize] = 0;
    {
        let words: &[W::Atomic] = W::atomics(&mut codes);
        // SAFETY: `AtomicU8` has the same size, alignment and bit validity as `u8`; the slice
        // borrows the vector exclusively for this block.
        let d: &[AtomicU8] =
            unsafe { std::slice::from_raw_parts(dist.as_mut_ptr().cast::<AtomicU8>(), n) };
        let chunks = n.div_ceil(CHUNK);
        let flags: [Vec<AtomicBool>; 2] =
            std::array::from_fn(|_| (0..chunks).map(|_| AtomicBool::new(false)).collect());
        flags[0][goal as usize / CHUNK].store(true, Ordering::Relaxed);
        let bar = reporter.bar(0, format!("pattern database {}", a.id()));
        let mut level: u32 = 0;
        loop {
            let cur = 1 + level % 2;
            let next = 1 + (level + 1) % 2;
            if level + 1 >= UNREACHED as u32 {
                return Err(StageError::Invalid(format!(
                    "{}: a placement is {} or more moves away, more than a byte holds",
                    a.id(),
                    UNREACHED
                )));
            }
            let (now, later) = (
                &flags[(level % 2) as usize],
                &flags[((level + 1) % 2) as usize],
            );
            let claimed: u64 = (0..chunks)
                .into_par_iter()
                .map(|ch| {
                    if !now[ch].swap(false, Ordering::Relaxed) {
                        return 0;
                    }
                    let mut claimed = 0u64;
                    let mut claim = |q: u64, r: u64| {
                        let q = q as usize;
                        let first = match W::claim(&words[q], r, next) {
                            Claim::Taken => return,
                            Claim::First => true,
                            Claim::Again => false,
                            // Every distance written on this level is this level's.
                            Claim::Unsure => d[q].load(Ordering::Relaxed) == UNREACHED,
                        };
                        if first {
                            d[q].store((level + 1) as u8, Ordering::Relaxed);
                        }
                        let flag = &later[q / CHUNK];
                        if !flag.load(Ordering::Relaxed) {
                            flag.store(true, Ordering::Relaxed);
                        }
                        claimed += 1;
                    };
                    let start = ch * CHUNK;
                    for (p, word) in (start..).zip(&words[start..(start + CHUNK).min(n)]) {
                        let front = W::cells_with(word, cur);
                        if front == 0 {
                            continue;
                        }
                        let done = a.expand(p as u64, front, &mut claim);
                        W::done(word, done);
                    }
                    claimed
                })
                .sum();
            bar.inc(1);
            bar.set_message(format!("level {} · {claimed} states", level + 1));
            if claimed == 0 {
                break;
            }
            level += 1;
        }
        bar.finish();
    }
    Ok(dist)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search with 64-bit cell codes (boards past 16 cells) and with two words (past 32)
    /// gives the 32-bit one's values on boards all hold: the fifteen puzzle's tiles 1-5 and 9, C, F.
    #[test]
    fn both_word_widths_give_the_same_database() {
        let text = "name = \"f\"\nlabeled = true\nboard = \".123\\n4567\\n89AB\\nCDEF\"\n\
                    goal = \".123\\n4567\\n89AB\\nCDEF\"\n";
        let board = sliding::pattern::TileBoard::new(&sliding::parse(text, "f").unwrap()).unwrap();
        for letters in ["12345", "9CF"] {
            let p = sliding::pattern::Pattern::new(&board, letters).unwrap();
            let narrow = build_with::<u32, _>(&p, &Reporter::quiet()).unwrap();
            let wide = build_with::<u64, _>(&p, &Reporter::quiet()).unwrap();
            let two = build_with::<Wide, _>(&p, &Reporter::quiet()).unwrap();
            assert!(narrow.iter().all(|&v| v != UNREACHED), "{letters}");
            assert_eq!(narrow, wide, "{letters}");
            assert_eq!(narrow, two, "{letters}");
        }
    }
}
