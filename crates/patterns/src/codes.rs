//! The 2-bit cell codes of one placement during the search: cell `c` in bits `2c` and `2c + 1`
//! of a 32-bit word on boards of at most 16 cells, of a 64-bit word up to 32, of two 64-bit
//! words up to 64 (cells 0–31 in the first, 32–63 in the second).
//!
//! A region is claimed by a compare-and-swap of the word holding its lowest cell, so exactly
//! one claim of a region wins. On two words the rest of the region is then or-ed into the
//! other word: no other claim writes those cells (the regions of a placement are disjoint and
//! each is claimed through its lowest cell), and the level's scan reads only the codes the
//! level before wrote.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// What a claim of a region found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// The region was reached before: nothing changed.
    Taken,
    /// Claimed; no region of the placement had been reached: its first.
    First,
    /// Claimed; another region of the placement had been reached before.
    Again,
    /// Claimed; whether it is the placement's first is not known from the codes (the other
    /// word may hold a region claimed at the same level): the caller asks the distances.
    Unsure,
}

pub(crate) trait Codes: Copy + Send + Sync {
    type Atomic: Send + Sync;
    /// Cells a word holds.
    const CELLS: usize;
    const ZERO: Self;
    /// Code 1 on the cells of `m`: the goal's region before the search.
    fn start(m: u64) -> Self;
    /// `v` seen as atomics.
    fn atomics(v: &mut [Self]) -> &[Self::Atomic];
    /// The cells whose code is `code` (1 or 2).
    fn cells_with(a: &Self::Atomic, code: u32) -> u64;
    /// Code `code` (1 or 2) on the cells of region `r` unless its lowest cell has a code.
    fn claim(a: &Self::Atomic, r: u64, code: u32) -> Claim;
    /// Code 3 on the cells of `m` (regions whose moves are expanded).
    fn done(a: &Self::Atomic, m: u64);
}

/// The cells of `x` (even bits, one per cell) whose code is `code` (1 or 2), still spread.
#[inline]
fn spread_cells_with<W>(x: W, code: u32, even: W) -> W
where
    W: Copy
        + std::ops::BitAnd<Output = W>
        + std::ops::Not<Output = W>
        + std::ops::Shr<u32, Output = W>,
{
    let lo = x & even;
    let hi = (x >> 1) & even;
    if code == 1 { lo & !hi } else { hi & !lo }
}

macro_rules! one_word {
    ($word:ty, $atomic:ty, $cells:expr, $spread:expr, $gather:expr) => {
        impl Codes for $word {
            type Atomic = $atomic;
            const CELLS: usize = $cells;
            const ZERO: Self = 0;
            #[inline]
            fn start(m: u64) -> Self {
                $spread(m)
            }
            fn atomics(v: &mut [Self]) -> &[Self::Atomic] {
                // SAFETY: the atomic has the same size, alignment and bit validity as the
                // word; the slice borrows `v` exclusively for as long as it lives.
                unsafe { std::slice::from_raw_parts(v.as_mut_ptr().cast::<$atomic>(), v.len()) }
            }
            #[inline]
            fn cells_with(a: &$atomic, code: u32) -> u64 {
                let x = a.load(Ordering::Relaxed);
                $gather(spread_cells_with(x, code, <$word>::MAX / 3))
            }
            #[inline]
            fn claim(a: &$atomic, r: u64, code: u32) -> Claim {
                let at = r.trailing_zeros();
                let bits = $spread(r) * code as $word;
                let mut w = a.load(Ordering::Relaxed);
                loop {
                    if (w >> (2 * at)) & 3 != 0 {
                        return Claim::Taken;
                    }
                    match a.compare_exchange_weak(w, w | bits, Ordering::Relaxed, Ordering::Relaxed)
                    {
                        Ok(_) => return if w == 0 { Claim::First } else { Claim::Again },
                        Err(x) => w = x,
                    }
                }
            }
            #[inline]
            fn done(a: &$atomic, m: u64) {
                a.fetch_or($spread(m) * 3, Ordering::Relaxed);
            }
        }
    };
}

one_word!(u32, AtomicU32, 16, spread16, gather16);
one_word!(u64, AtomicU64, 32, spread32, gather32);

/// Two 64-bit words: cells 0–31, then 32–63.
pub(crate) type Wide = [u64; 2];

impl Codes for Wide {
    type Atomic = [AtomicU64; 2];
    const CELLS: usize = 64;
    const ZERO: Self = [0, 0];
    fn start(m: u64) -> Self {
        [spread32(m), spread32(m >> 32)]
    }
    fn atomics(v: &mut [Self]) -> &[Self::Atomic] {
        // SAFETY: `[AtomicU64; 2]` has the same size, alignment and bit validity as
        // `[u64; 2]`; the slice borrows `v` exclusively for as long as it lives.
        unsafe { std::slice::from_raw_parts(v.as_mut_ptr().cast::<[AtomicU64; 2]>(), v.len()) }
    }
    #[inline]
    fn cells_with(a: &Self::Atomic, code: u32) -> u64 {
        let half = |w: &AtomicU64| {
            gather32(spread_cells_with(
                w.load(Ordering::Relaxed),
                code,
                u64::MAX / 3,
            ))
        };
        half(&a[0]) | half(&a[1]) << 32
    }
    #[inline]
    fn claim(a: &Self::Atomic, r: u64, code: u32) -> Claim {
        let at = r.trailing_zeros();
        let (h, cell) = ((at / 32) as usize, at % 32);
        let parts = [spread32(r) * code as u64, spread32(r >> 32) * code as u64];
        let mut w = a[h].load(Ordering::Relaxed);
        loop {
            if (w >> (2 * cell)) & 3 != 0 {
                return Claim::Taken;
            }
            match a[h].compare_exchange_weak(w, w | parts[h], Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(x) => w = x,
            }
        }
        // The region's lowest cell is in word `h`, so only the second word can hold more of it.
        if h == 0 && parts[1] != 0 {
            a[1].fetch_or(parts[1], Ordering::Relaxed);
        }
        if w != 0 { Claim::Again } else { Claim::Unsure }
    }
    #[inline]
    fn done(a: &Self::Atomic, m: u64) {
        for (h, w) in a.iter().enumerate() {
            let bits = spread32(m >> (32 * h)) * 3;
            if bits != 0 {
                w.fetch_or(bits, Ordering::Relaxed);
            }
        }
    }
}

/// Spreads the 16 low bits of `m` to the even bits of a 32-bit word (bit `c` → bit `2c`).
#[inline]
fn spread16(m: u64) -> u32 {
    let mut x = m as u32 & 0xFFFF;
    x = (x | (x << 8)) & 0x00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333;
    (x | (x << 1)) & 0x5555_5555
}

/// The even bits of `x` packed down (bit `2c` → bit `c`): [`spread16`]'s inverse.
#[inline]
fn gather16(x: u32) -> u64 {
    let mut x = x & 0x5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF;
    ((x | (x >> 8)) & 0x0000_FFFF) as u64
}

/// Spreads the 32 low bits of `m` to the even bits of a 64-bit word.
#[inline]
fn spread32(m: u64) -> u64 {
    let mut x = m & 0xFFFF_FFFF;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// [`spread32`]'s inverse.
#[inline]
fn gather32(x: u64) -> u64 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    (x | (x >> 16)) & 0x0000_0000_FFFF_FFFF
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claiming a region marks exactly its cells; a second claim through any of its cells'
    /// lowest finds it taken; expanding it leaves no cell of it at a level's code.
    fn claims<W: Codes>(regions: &[u64]) {
        let mut v = vec![W::ZERO];
        let a = &W::atomics(&mut v)[0];
        let mut all = 0u64;
        for (i, &r) in regions.iter().enumerate() {
            let code = 1 + (i % 2) as u32;
            let claim = W::claim(a, r, code);
            let want = if i == 0 { Claim::First } else { Claim::Again };
            // One word tells; two tell only from the word of the region's lowest cell.
            if W::CELLS <= 32 {
                assert_eq!(claim, want, "{r:#x}");
            } else {
                assert!(claim == want || claim == Claim::Unsure, "{r:#x}: {claim:?}");
            }
            assert_eq!(W::claim(a, r, 3 - code), Claim::Taken, "{r:#x}");
            all |= r;
            let with: u64 = W::cells_with(a, 1) | W::cells_with(a, 2);
            assert_eq!(with, all);
            assert_eq!(W::cells_with(a, code) & r, r);
        }
        W::done(a, all);
        assert_eq!(W::cells_with(a, 1) | W::cells_with(a, 2), 0);
        for &r in regions {
            assert_eq!(W::claim(a, r, 1), Claim::Taken);
        }
    }

    #[test]
    fn regions_are_claimed_once_in_every_word_width() {
        claims::<u32>(&[0x1, 0x8000, 0x0ff0, 0x7000]);
        claims::<u64>(&[0x1, 0x8000_0000, 0x00ff_ff00, 0x7000_0000]);
        // Regions within each word and across the two.
        claims::<Wide>(&[
            0x1,
            0x8_0000_0000,
            0x7_f000_0000,
            0x0000_00f0,
            0x8000_0000_0000_0000,
        ]);
        // A region of the second word claimed after one of the first: its word was empty.
        let mut v = vec![Wide::ZERO];
        let a = &Wide::atomics(&mut v)[0];
        assert_eq!(Wide::claim(a, 0x1, 1), Claim::Unsure);
        assert_eq!(Wide::claim(a, 0x2, 1), Claim::Again);
        assert_eq!(Wide::claim(a, 1 << 40, 2), Claim::Unsure);
    }

    #[test]
    fn the_start_is_the_goal_region_at_code_one() {
        for m in [0x1u64, 0x0f0f, 0xffff] {
            let mut v = vec![u32::start(m)];
            assert_eq!(u32::cells_with(&u32::atomics(&mut v)[0], 1), m);
        }
        for m in [0x1u64, 0xffff_ffff, 0x1234_5678] {
            let mut v = vec![u64::start(m)];
            assert_eq!(u64::cells_with(&u64::atomics(&mut v)[0], 1), m);
        }
        for m in [0x1u64, 0xf_ffff_ffff, 0x8000_0001_0000_0000, u64::MAX] {
            let mut v = vec![Wide::start(m)];
            assert_eq!(Wide::cells_with(&Wide::atomics(&mut v)[0], 1), m);
            assert_eq!(Wide::cells_with(&Wide::atomics(&mut v)[0], 2), 0);
        }
    }
}
