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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

#[inline]
fn cells(kind: Kind, anchor: u32) -> u32 {
    let a = anchor as i32;
    mask_at(kind, a / COLS as i32, a % COLS as i32).expect("a placed piece fits")
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
                let from = 1u32 << a;
                let free = (!occ & FULL) | cells(kind, a);
                let fit = fitting(kind, free);
                let mut targets = match metric {
                    Metric::Step => neighbours(from) & fit,
                    Metric::Straight => {
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
                    Metric::Piece => {
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
                };
                while targets != 0 {
                    let to = targets & targets.wrapping_neg();
                    targets &= targets - 1;
                    let mut b = *self;
                    match kind {
                        Kind::Soldier => b.soldiers ^= from | to,
                        Kind::Vertical => b.verticals ^= from | to,
                        Kind::Horizontal => b.horizontals ^= from | to,
                        Kind::Cao => b.cao = to.trailing_zeros() as u8,
                    }
                    out.push(b);
                }
            }
        }
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
