//! Bitboard positions for searches that visit many states one by one (the cold solver).
//!
//! A position is four masks: soldier cells, vertical and horizontal anchors, Cao Cao's anchor.
//! For each piece, the anchors where it would fit (its own cells counted as free) form a mask,
//! and its moves are that mask's neighbours of its anchor (`step`), rays from it (`straight`),
//! or its flood fill (`piece`): unit slides between two fitting anchors are exactly the legal
//! ones. Tests check every move against [`Board::moves`].

use crate::board::{Board, CELLS, COLS, Kind, Metric, Piece, mask_at};

const FULL: u32 = (1 << CELLS) - 1;
const COL0: u32 = 0x11111;
const COL3: u32 = COL0 << 3;

/// A position as bitmasks (labels dropped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bits {
    soldiers: u32,
    /// Anchors (top cells) of vertical generals.
    verticals: u32,
    /// Anchors (left cells) of horizontal generals.
    horizontals: u32,
    cao: u8,
}

/// Anchors where a piece of `kind` fits entirely inside `free`.
#[inline]
fn fitting(kind: Kind, free: u32) -> u32 {
    match kind {
        Kind::Soldier => free,
        Kind::Vertical => free & (free >> COLS),
        Kind::Horizontal => free & (free >> 1) & !COL3,
        Kind::Cao => {
            let two = free & (free >> 1) & !COL3;
            two & (two >> COLS)
        }
    }
}

/// The anchors next to those in `m` (one unit slide away), without wrapping rows.
#[inline]
fn neighbours(m: u32) -> u32 {
    ((m << 1) & !COL0) | ((m >> 1) & !COL3) | (m << COLS) | (m >> COLS)
}

/// Anchors one unit slide from `from` where the piece fits (`step` moves).
#[inline]
fn step_targets(from: u32, fit: u32) -> u32 {
    neighbours(from) & fit
}

/// Anchors reached by sliding from `from` in one direction through fitting anchors
/// (`straight` moves).
#[inline]
fn straight_targets(from: u32, fit: u32) -> u32 {
    let mut t = 0;
    let dirs: [fn(u32) -> u32; 4] = [
        |m| (m << 1) & !COL0,
        |m| (m >> 1) & !COL3,
        |m| m << COLS,
        |m| m >> COLS,
    ];
    for step in dirs {
        let mut ray = step(from) & fit;
        while ray != 0 {
            t |= ray;
            ray = step(ray) & fit;
        }
    }
    t
}

/// Anchors reached from `from` by unit slides through fitting anchors (`piece` moves): the
/// flood fill of `from`, without it.
#[inline]
fn piece_targets(from: u32, fit: u32) -> u32 {
    let mut reach = from;
    loop {
        let next = (reach | neighbours(reach)) & (fit | from);
        if next == reach {
            break;
        }
        reach = next;
    }
    reach & !from
}

/// The cells of a piece of `kind` placed at `anchor` (it fits: a state's pieces do), by shifts
/// of the anchor's bit.
#[inline]
fn cells(kind: Kind, anchor: u32) -> u32 {
    let bit = 1u32 << anchor;
    let m = match kind {
        Kind::Soldier => bit,
        Kind::Vertical => bit | bit << COLS,
        Kind::Horizontal => bit | bit << 1,
        Kind::Cao => (bit | bit << 1) | (bit | bit << 1) << COLS,
    };
    debug_assert_eq!(
        Some(m),
        mask_at(
            kind,
            (anchor / COLS as u32) as i32,
            (anchor % COLS as u32) as i32
        )
    );
    m
}

/// The 2-bit symbols of the cells in `starts`, lowest cell first from the top of the word:
/// `hi` and `lo` give each cell's high and low bit.
#[inline]
fn symbols(starts: u32, lo: u32, hi: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2 (checked just above).
        return unsafe { symbols_bmi2(starts, lo, hi) };
    }
    symbols_portable(starts, lo, hi)
}

/// [`symbols`] one cell at a time.
#[inline]
fn symbols_portable(mut starts: u32, lo: u32, hi: u32) -> u32 {
    let mut acc = 0u32;
    let mut n = 0;
    while starts != 0 {
        let i = starts.trailing_zeros();
        starts &= starts - 1;
        acc = (acc << 2) | ((hi >> i) & 1) << 1 | ((lo >> i) & 1);
        n += 1;
    }
    if n == 0 { 0 } else { acc << (32 - 2 * n) }
}

/// [`symbols`] with BMI2: gather the start cells' bits (`pext`), interleave them into 2-bit
/// groups (`pdep`, cell `j` at bits `2j, 2j + 1`), then reverse the group order (reverse every
/// bit, then swap each group's two bits back).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn symbols_bmi2(starts: u32, lo: u32, hi: u32) -> u32 {
    use std::arch::x86_64::{_pdep_u32, _pext_u32};
    let pairs = _pdep_u32(_pext_u32(lo, starts), 0x5555_5555)
        | _pdep_u32(_pext_u32(hi, starts), 0xAAAA_AAAA);
    let r = pairs.reverse_bits();
    ((r >> 1) & 0x5555_5555) | ((r & 0x5555_5555) << 1)
}

/// Decodes codes met in increasing order (a chunk of a space's states) for less than
/// [`Bits::from_code`]: consecutive codes share most of their symbols, so the position after
/// each symbol of the last code is kept and a code is decoded from its first new symbol.
#[derive(Debug, Clone, Default)]
pub struct Decoder {
    last: u64,
    /// Symbols of `last` (0: nothing kept).
    symbols: usize,
    /// Before each symbol of `last`: the position so far and the cells it covers.
    before: [(Bits, u32); 17],
}

impl Decoder {
    /// The position of `code`, as [`Bits::from_code`] gives it (any order works; codes in
    /// increasing order decode fastest).
    #[inline]
    pub fn decode(&mut self, code: u64) -> Bits {
        // Symbols shared with the last code (one fewer if all are: its state before the last
        // symbol is kept, not after).
        let mut k = if self.symbols > 0 && code >> 32 == self.last >> 32 {
            let same = ((code ^ self.last) as u32).leading_zeros() as usize / 2;
            same.min(self.symbols - 1)
        } else {
            0
        };
        let (mut b, mut occ) = if k == 0 {
            Bits::with_cao_of(code)
        } else {
            self.before[k]
        };
        let mut syms = (code as u32).checked_shl(2 * k as u32).unwrap_or(0);
        while occ != FULL {
            self.before[k] = (b, occ);
            b.place(&mut occ, syms >> 30);
            syms <<= 2;
            k += 1;
        }
        self.last = code;
        self.symbols = k;
        b
    }
}

impl Bits {
    pub fn from_board(board: &Board) -> Bits {
        let mut b = Bits {
            soldiers: 0,
            verticals: 0,
            horizontals: 0,
            cao: 0,
        };
        for p in board.pieces() {
            let bit = 1 << p.anchor;
            match p.kind {
                Kind::Soldier => b.soldiers |= bit,
                Kind::Vertical => b.verticals |= bit,
                Kind::Horizontal => b.horizontals |= bit,
                Kind::Cao => b.cao = p.anchor,
            }
        }
        b
    }

    /// The position of a compact unlabeled code (see [`Board::code`]); the code must be valid
    /// (a state of its space).
    #[inline]
    pub fn from_code(code: u64) -> Bits {
        let (mut b, mut occ) = Bits::with_cao_of(code);
        let mut syms = code as u32;
        while occ != FULL {
            b.place(&mut occ, syms >> 30);
            syms <<= 2;
        }
        b
    }

    /// Cao Cao alone where `code` has him, and the cells he covers.
    #[inline]
    fn with_cao_of(code: u64) -> (Bits, u32) {
        let cao = (code >> 32) as u32;
        let cao = ((cao / 3) * COLS as u32 + cao % 3) as u8;
        let b = Bits {
            soldiers: 0,
            verticals: 0,
            horizontals: 0,
            cao,
        };
        (b, cells(Kind::Cao, cao as u32))
    }

    /// One symbol of a code decoded onto this position: the piece or empty cell at the first
    /// cell of `occ` not yet covered (the decoding step of [`Bits::from_code`]).
    #[inline]
    fn place(&mut self, occ: &mut u32, sym: u32) {
        let bit = 1u32 << (!*occ & FULL).trailing_zeros();
        match sym {
            0 => *occ |= bit,
            1 => {
                self.soldiers |= bit;
                *occ |= bit;
            }
            2 => {
                self.verticals |= bit;
                *occ |= bit | bit << COLS;
            }
            _ => {
                self.horizontals |= bit;
                *occ |= bit | bit << 1;
            }
        }
    }

    /// The compact unlabeled code of this position (the inverse of [`Bits::from_code`]).
    #[inline]
    pub fn code(&self) -> u64 {
        let cao_cells = cells(Kind::Cao, self.cao as u32);
        // Cells that start a symbol: every cell except Cao Cao's and the second halves of
        // generals.
        let halves = self.verticals << COLS | self.horizontals << 1;
        let starts = FULL & !cao_cells & !halves;
        // Symbol bits per cell: low bit for soldiers (1) and horizontals (3), high bit for
        // verticals (2) and horizontals (3); empty cells are 0.
        let lo = self.soldiers | self.horizontals;
        let hi = self.verticals | self.horizontals;
        let syms = symbols(starts, lo, hi);
        let cao = (self.cao as u64 / COLS as u64) * 3 + self.cao as u64 % COLS as u64;
        (cao << 32) | syms as u64
    }

    /// An injective key: soldiers (20 bits), vertical anchors (16), horizontal anchors (20),
    /// Cao Cao's anchor (5).
    #[inline]
    pub fn key(&self) -> u64 {
        self.soldiers as u64
            | (self.verticals as u64) << 20
            | (self.horizontals as u64) << 36
            | (self.cao as u64) << 56
    }

    #[inline]
    fn occupied(&self) -> u32 {
        self.soldiers
            | self.verticals
            | self.verticals << COLS
            | self.horizontals
            | self.horizontals << 1
            | cells(Kind::Cao, self.cao as u32)
    }

    #[inline]
    pub fn is_goal(&self) -> bool {
        self.cao == crate::board::GOAL_ANCHOR
    }

    /// Every position one move away in `metric`.
    pub fn successors(&self, metric: Metric, out: &mut Vec<Bits>) {
        self.each_piece(|kind, from, fit| {
            let mut targets = match metric {
                Metric::Step => step_targets(from, fit),
                Metric::Straight => straight_targets(from, fit),
                Metric::Piece => piece_targets(from, fit),
            };
            while targets != 0 {
                let to = targets & targets.wrapping_neg();
                targets &= targets - 1;
                out.push(self.moved(kind, from, to));
            }
        });
    }

    /// Every position one move away in any of the metrics in `wanted` (bit `m` for
    /// [`Metric`] `m`), each once, with the metrics whose move reaches it. A piece's step
    /// targets lie among its straight targets, and those among its piece targets, so a
    /// position is generated once however many metrics ask for it.
    pub fn successors_in(&self, wanted: u8, out: &mut Vec<(Bits, u8)>) {
        self.each_successor_in(wanted, |b, metrics| out.push((b, metrics)));
    }

    /// [`Bits::successors_in`] handed to `f` one by one, with no list in between.
    #[inline]
    pub fn each_successor_in(&self, wanted: u8, f: impl FnMut(Bits, u8)) {
        self.successors_where(wanted, false, f);
    }

    /// [`Bits::each_successor_in`], only the positions whose [`Bits::code`] is larger than
    /// this one's — told from the move alone, no code computed. The codes of a move's two ends
    /// agree up to the lower of its two anchors (no other piece moves, and every cell of a
    /// piece lies at or after its anchor); there the code shows Cao Cao's anchor itself (its
    /// index is the code's high part), and for any other piece its first symbol: the moved
    /// piece's (non-zero) at its new anchor where that comes first, an empty cell (zero) at its
    /// old anchor where that does. So Cao Cao's moves to a later anchor lead up, and every
    /// other piece's moves to an earlier one.
    #[inline]
    pub fn each_successor_above_in(&self, wanted: u8, f: impl FnMut(Bits, u8)) {
        self.successors_where(wanted, true, f);
    }

    #[inline(always)]
    fn successors_where(&self, wanted: u8, above: bool, mut f: impl FnMut(Bits, u8)) {
        self.each_piece(|kind, from, fit| {
            // A piece with no unit slide has no move in any metric.
            let step = step_targets(from, fit);
            if step == 0 {
                return;
            }
            // Unit slides ⊆ straight slides ⊆ piece moves: where the piece's moves are its unit
            // slides (it cannot go further), so are its straight slides.
            let piece = if wanted & 4 != 0 {
                piece_targets(from, fit)
            } else {
                0
            };
            let straight = match wanted & 2 != 0 {
                false => 0,
                true if piece == step => step,
                true => straight_targets(from, fit),
            };
            let sets = [if wanted & 1 != 0 { step } else { 0 }, straight, piece];
            let mut targets = sets[0] | sets[1] | sets[2];
            if above {
                // `from` is one bit: the anchors before it, or after it.
                let before = from - 1;
                targets &= if kind == Kind::Cao {
                    !(before | from)
                } else {
                    before
                };
            }
            while targets != 0 {
                let to = targets & targets.wrapping_neg();
                targets &= targets - 1;
                let metrics = (sets[0] & to != 0) as u8
                    | ((sets[1] & to != 0) as u8) << 1
                    | ((sets[2] & to != 0) as u8) << 2;
                f(self.moved(kind, from, to), metrics);
            }
        });
    }

    /// Calls `f` with every piece's kind, anchor bit and the anchors where it fits.
    #[inline]
    fn each_piece(&self, mut f: impl FnMut(Kind, u32, u32)) {
        let occ = self.occupied();
        let kinds = [
            (Kind::Soldier, self.soldiers),
            (Kind::Vertical, self.verticals),
            (Kind::Horizontal, self.horizontals),
            (Kind::Cao, 1 << self.cao),
        ];
        for (kind, mut anchors) in kinds {
            while anchors != 0 {
                let a = anchors.trailing_zeros();
                anchors &= anchors - 1;
                let free = (!occ & FULL) | cells(kind, a);
                f(kind, 1u32 << a, fitting(kind, free));
            }
        }
    }

    /// This position with the piece of `kind` at anchor bit `from` moved to anchor bit `to`.
    #[inline]
    fn moved(&self, kind: Kind, from: u32, to: u32) -> Bits {
        let mut b = *self;
        match kind {
            Kind::Soldier => b.soldiers ^= from | to,
            Kind::Vertical => b.verticals ^= from | to,
            Kind::Horizontal => b.horizontals ^= from | to,
            Kind::Cao => b.cao = to.trailing_zeros() as u8,
        }
        b
    }

    /// The unlabeled board of this position.
    pub fn board(&self) -> Board {
        let mut pieces = Vec::new();
        for (kind, mut m) in [
            (Kind::Soldier, self.soldiers),
            (Kind::Vertical, self.verticals),
            (Kind::Horizontal, self.horizontals),
            (Kind::Cao, 1 << self.cao),
        ] {
            while m != 0 {
                pieces.push(Piece {
                    kind,
                    anchor: m.trailing_zeros() as u8,
                    label: 0,
                });
                m &= m - 1;
            }
        }
        Board::from_pieces(&pieces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoder gives every code's position as `from_code` does, whether the codes come in
    /// order (each decoded from the last one's symbols) or not.
    #[test]
    fn the_decoder_decodes_as_from_code() {
        for set in ["h1v1s6", "h2v2s4", "h0v0s2", "h5v0s2", "h0v4s6"] {
            let u = crate::Unlabeled::new(set.parse().unwrap());
            let mut d = Decoder::default();
            for &c in u.codes() {
                assert_eq!(d.decode(c), Bits::from_code(c), "{set} {c:#x}");
            }
            let mut rng = huarong_core::SplitMix(7);
            for _ in 0..20_000 {
                let c = u.codes()[rng.next_u64() as usize % u.len()];
                assert_eq!(d.decode(c), Bits::from_code(c), "{set} {c:#x}");
            }
        }
    }

    /// The BMI2 encoder and the portable one agree on random start masks (at most 16 cells:
    /// Cao Cao covers 4 of the 20) and symbol bits.
    #[test]
    fn both_symbol_encoders_agree() {
        let mut rng = huarong_core::SplitMix(1603);
        for _ in 0..200_000 {
            let mut starts = rng.next_u64() as u32 & FULL;
            while starts.count_ones() > 16 {
                starts &= starts - 1;
            }
            let (lo, hi) = (rng.next_u64() as u32, rng.next_u64() as u32);
            let portable = symbols_portable(starts, lo, hi);
            assert_eq!(symbols(starts, lo, hi), portable, "{starts:020b}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("bmi2") {
                // SAFETY: checked just above.
                assert_eq!(unsafe { symbols_bmi2(starts, lo, hi) }, portable);
            }
        }
    }
}
