//! The 4 × 5 board, its pieces, compact codes and moves.

use std::fmt;

pub const COLS: usize = 4;
pub const ROWS: usize = 5;
pub const CELLS: usize = COLS * ROWS;
/// Cao Cao's anchor (top-left cell) in the goal position: rows 3–4, columns 1–2.
pub const GOAL_ANCHOR: u8 = 3 * COLS as u8 + 1;

/// The four piece shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// 2 × 2 Cao Cao.
    Cao,
    /// 2 wide × 1 high general.
    Horizontal,
    /// 1 wide × 2 high general.
    Vertical,
    /// 1 × 1 soldier.
    Soldier,
}

impl Kind {
    /// Width and height in cells.
    pub const fn dims(self) -> (u8, u8) {
        match self {
            Kind::Cao => (2, 2),
            Kind::Horizontal => (2, 1),
            Kind::Vertical => (1, 2),
            Kind::Soldier => (1, 1),
        }
    }

    /// The unlabeled notation letter.
    pub const fn letter(self) -> char {
        match self {
            Kind::Cao => 'C',
            Kind::Horizontal => 'H',
            Kind::Vertical => 'V',
            Kind::Soldier => 'S',
        }
    }

    pub const fn noun(self) -> &'static str {
        match self {
            Kind::Cao => "Cao Cao",
            Kind::Horizontal => "horizontal general",
            Kind::Vertical => "vertical general",
            Kind::Soldier => "soldier",
        }
    }

    /// The labelled kinds in the order their permutation ranks are combined.
    pub const LABELED: [Kind; 3] = [Kind::Horizontal, Kind::Vertical, Kind::Soldier];

    /// Position in [`Kind::LABELED`].
    pub const fn labeled_slot(self) -> Option<usize> {
        match self {
            Kind::Cao => None,
            Kind::Horizontal => Some(0),
            Kind::Vertical => Some(1),
            Kind::Soldier => Some(2),
        }
    }

    // Cell part codes: the anchor part and the other parts of each kind.
    const fn anchor_code(self) -> u8 {
        match self {
            Kind::Soldier => SOLDIER,
            Kind::Vertical => V_TOP,
            Kind::Horizontal => H_LEFT,
            Kind::Cao => CAO_TL,
        }
    }
}

// Cell contents.
const EMPTY: u8 = 0;
const SOLDIER: u8 = 1;
const V_TOP: u8 = 2;
const V_BOTTOM: u8 = 3;
const H_LEFT: u8 = 4;
const H_RIGHT: u8 = 5;
const CAO_TL: u8 = 6;
const CAO_REST: u8 = 7;

/// The bitmask of the cells a piece of `kind` anchored at row `r`, column `c` covers, if it fits.
#[inline]
pub fn mask_at(kind: Kind, r: i32, c: i32) -> Option<u32> {
    let (w, h) = kind.dims();
    let (w, h) = (w as i32, h as i32);
    if r < 0 || c < 0 || r + h > ROWS as i32 || c + w > COLS as i32 {
        return None;
    }
    let mut m = 0u32;
    for dr in 0..h {
        for dc in 0..w {
            m |= 1 << ((r + dr) * COLS as i32 + c + dc);
        }
    }
    Some(m)
}

/// A piece on the board: its shape, top-left cell and label (0 when unlabeled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    pub kind: Kind,
    pub anchor: u8,
    pub label: u8,
}

impl Piece {
    pub fn row(&self) -> i32 {
        (self.anchor / COLS as u8) as i32
    }

    pub fn col(&self) -> i32 {
        (self.anchor % COLS as u8) as i32
    }

    pub fn mask(&self) -> u32 {
        mask_at(self.kind, self.row(), self.col()).expect("a placed piece fits the board")
    }
}

/// A piece set `(h, v, s)`: one Cao Cao, `h` horizontal and `v` vertical generals, `s` soldiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceSet {
    pub h: u8,
    pub v: u8,
    pub s: u8,
}

/// A piece set that cannot exist on the board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PieceSetError {
    #[error("piece set {0:?} is not of the form h<N>v<N>s<N> (e.g. h1v4s4)")]
    Syntax(String),
    #[error("piece set h{h}v{v}s{s} leaves {empty} empty cells; at least 2 are needed")]
    TooFull { h: u8, v: u8, s: u8, empty: i32 },
}

impl PieceSet {
    /// The classic set: Guan Yu, four vertical generals, four soldiers.
    pub const CLASSIC: PieceSet = PieceSet { h: 1, v: 4, s: 4 };

    pub fn new(h: u8, v: u8, s: u8) -> Result<Self, PieceSetError> {
        let empty = CELLS as i32 - 4 - 2 * h as i32 - 2 * v as i32 - s as i32;
        if empty < 2 {
            return Err(PieceSetError::TooFull { h, v, s, empty });
        }
        Ok(PieceSet { h, v, s })
    }

    /// Every valid piece set (one 2 × 2, at least two empty cells).
    pub fn all() -> Vec<PieceSet> {
        let mut out = Vec::new();
        for h in 0..=7 {
            for v in 0..=7 {
                for s in 0..=14 {
                    if let Ok(p) = PieceSet::new(h, v, s) {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    pub fn empty_cells(&self) -> u8 {
        (CELLS as u8) - 4 - 2 * self.h - 2 * self.v - self.s
    }

    /// Number of symbols after Cao Cao in a compact code (pieces plus empty cells).
    pub fn symbols(&self) -> u32 {
        (self.h + self.v + self.s + self.empty_cells()) as u32
    }

    pub fn count(&self, kind: Kind) -> u8 {
        match kind {
            Kind::Cao => 1,
            Kind::Horizontal => self.h,
            Kind::Vertical => self.v,
            Kind::Soldier => self.s,
        }
    }
}

impl fmt::Display for PieceSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "h{}v{}s{}", self.h, self.v, self.s)
    }
}

impl std::str::FromStr for PieceSet {
    type Err = PieceSetError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || PieceSetError::Syntax(text.to_owned());
        let rest = text.strip_prefix('h').ok_or_else(bad)?;
        let (h, rest) = rest.split_once('v').ok_or_else(bad)?;
        let (v, s) = rest.split_once('s').ok_or_else(bad)?;
        let num = |x: &str| x.parse::<u8>().map_err(|_| bad());
        PieceSet::new(num(h)?, num(v)?, num(s)?)
    }
}

/// The three move metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// One piece slides one cell.
    Step,
    /// One piece slides any number of cells in one direction.
    Straight,
    /// One piece moves anywhere it reaches by unit slides of that piece alone.
    Piece,
}

impl Metric {
    pub const ALL: [Metric; 3] = [Metric::Step, Metric::Straight, Metric::Piece];
    pub const NAMES: [&'static str; 3] = ["step", "straight", "piece"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<Metric> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self::ALL[i])
    }

    pub fn from_index(i: usize) -> Metric {
        Self::ALL[i]
    }
}

/// A move: the piece as it was, and its new anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub piece: Piece,
    pub to: u8,
}

/// A position: every cell's content and the label of the piece covering it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    cells: [u8; CELLS],
    labels: [u8; CELLS],
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", crate::notation::render_labeled(self))
    }
}

const DIRS: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

impl Board {
    /// A board holding `pieces`, which must fit and not overlap (checked by the callers that take
    /// untrusted input, e.g. the notation parser).
    pub fn from_pieces(pieces: &[Piece]) -> Board {
        let mut b = Board {
            cells: [EMPTY; CELLS],
            labels: [0; CELLS],
        };
        for p in pieces {
            b.place(*p);
        }
        b
    }

    fn place(&mut self, p: Piece) {
        let a = p.anchor as usize;
        let part = |i: usize| -> u8 {
            match (p.kind, i) {
                (k, 0) => k.anchor_code(),
                (Kind::Vertical, _) => V_BOTTOM,
                (Kind::Horizontal, _) => H_RIGHT,
                _ => CAO_REST,
            }
        };
        let cells: &[usize] = match p.kind {
            Kind::Soldier => &[0],
            Kind::Vertical => &[0, COLS],
            Kind::Horizontal => &[0, 1],
            Kind::Cao => &[0, 1, COLS, COLS + 1],
        };
        for (i, &d) in cells.iter().enumerate() {
            self.cells[a + d] = part(i);
            self.labels[a + d] = p.label;
        }
    }

    fn remove(&mut self, p: Piece) {
        let mut m = p.mask();
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            self.cells[i] = EMPTY;
            self.labels[i] = 0;
            m &= m - 1;
        }
    }

    /// The pieces in scan order of their anchors (row by row, left to right).
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        (0..CELLS).filter_map(move |i| {
            let kind = match self.cells[i] {
                SOLDIER => Kind::Soldier,
                V_TOP => Kind::Vertical,
                H_LEFT => Kind::Horizontal,
                CAO_TL => Kind::Cao,
                _ => return None,
            };
            Some(Piece {
                kind,
                anchor: i as u8,
                label: self.labels[i],
            })
        })
    }

    /// Bitmask of occupied cells.
    pub fn occupied(&self) -> u32 {
        let mut m = 0;
        for (i, &c) in self.cells.iter().enumerate() {
            if c != EMPTY {
                m |= 1 << i;
            }
        }
        m
    }

    /// The kind of piece covering a cell, if any.
    pub fn kind_at(&self, cell: usize) -> Option<Kind> {
        match self.cells[cell] {
            EMPTY => None,
            SOLDIER => Some(Kind::Soldier),
            V_TOP | V_BOTTOM => Some(Kind::Vertical),
            H_LEFT | H_RIGHT => Some(Kind::Horizontal),
            _ => Some(Kind::Cao),
        }
    }

    /// The label of the piece covering a cell (0 for empty cells).
    pub fn label_at(&self, cell: usize) -> u8 {
        self.labels[cell]
    }

    /// The piece set of this board.
    pub fn piece_set(&self) -> PieceSet {
        let mut set = PieceSet { h: 0, v: 0, s: 0 };
        for p in self.pieces() {
            match p.kind {
                Kind::Horizontal => set.h += 1,
                Kind::Vertical => set.v += 1,
                Kind::Soldier => set.s += 1,
                Kind::Cao => {}
            }
        }
        set
    }

    /// Cao Cao's anchor cell.
    pub fn cao_anchor(&self) -> u8 {
        self.cells.iter().position(|&c| c == CAO_TL).unwrap_or(0) as u8
    }

    pub fn is_goal(&self) -> bool {
        self.cells[GOAL_ANCHOR as usize] == CAO_TL
    }

    /// The left-right mirror image (labels ride along).
    pub fn mirror(&self) -> Board {
        let pieces: Vec<Piece> = self
            .pieces()
            .map(|p| {
                let (w, _) = p.kind.dims();
                let c = COLS as u8 - p.col() as u8 - w;
                Piece {
                    anchor: p.row() as u8 * COLS as u8 + c,
                    ..p
                }
            })
            .collect();
        Board::from_pieces(&pieces)
    }

    /// Appends every move in `metric`, piece by piece in scan order, targets in increasing order.
    pub fn moves(&self, metric: Metric, out: &mut Vec<Move>) {
        let occ = self.occupied();
        for piece in self.pieces() {
            let free = !occ | piece.mask();
            let fits = |r: i32, c: i32| mask_at(piece.kind, r, c).is_some_and(|m| m & !free == 0);
            let (r0, c0) = (piece.row(), piece.col());
            let start = out.len();
            match metric {
                Metric::Step => {
                    for (dr, dc) in DIRS {
                        if fits(r0 + dr, c0 + dc) {
                            out.push(Move {
                                piece,
                                to: ((r0 + dr) * COLS as i32 + c0 + dc) as u8,
                            });
                        }
                    }
                }
                Metric::Straight => {
                    for (dr, dc) in DIRS {
                        let (mut r, mut c) = (r0 + dr, c0 + dc);
                        while fits(r, c) {
                            out.push(Move {
                                piece,
                                to: (r * COLS as i32 + c) as u8,
                            });
                            r += dr;
                            c += dc;
                        }
                    }
                }
                Metric::Piece => {
                    let mut seen = 1u32 << piece.anchor;
                    let mut stack = vec![(r0, c0)];
                    while let Some((r, c)) = stack.pop() {
                        for (dr, dc) in DIRS {
                            let (nr, nc) = (r + dr, c + dc);
                            if fits(nr, nc) {
                                let a = nr * COLS as i32 + nc;
                                if seen & (1 << a) == 0 {
                                    seen |= 1 << a;
                                    stack.push((nr, nc));
                                }
                            }
                        }
                    }
                    seen &= !(1 << piece.anchor);
                    while seen != 0 {
                        let a = seen.trailing_zeros() as u8;
                        out.push(Move { piece, to: a });
                        seen &= seen - 1;
                    }
                }
            }
            out[start..].sort_by_key(|m| m.to);
        }
    }

    /// The first position one move away (in move order) that satisfies `pred`.
    pub fn successor_where(&self, metric: Metric, pred: impl Fn(&Board) -> bool) -> Option<Board> {
        let mut moves = Vec::new();
        self.moves(metric, &mut moves);
        moves.iter().map(|m| self.apply(m)).find(|b| pred(b))
    }

    /// The board after `mv`.
    pub fn apply(&self, mv: &Move) -> Board {
        let mut b = *self;
        b.remove(mv.piece);
        b.place(Piece {
            anchor: mv.to,
            ..mv.piece
        });
        b
    }

    /// The compact unlabeled code: Cao Cao's anchor index (row·3 + column) in bits 32–35, then one
    /// 2-bit symbol per uncovered cell in scan order (0 empty, 1 soldier, 2 vertical, 3
    /// horizontal), left-aligned in bits 0–31. Codes of one piece set sort in scan order.
    pub fn code(&self) -> u64 {
        let mut acc = 0u32;
        let mut n = 0;
        let mut cao = 0;
        for (i, &c) in self.cells.iter().enumerate() {
            let sym = match c {
                EMPTY => 0,
                SOLDIER => 1,
                V_TOP => 2,
                H_LEFT => 3,
                CAO_TL => {
                    cao = (i / COLS) * 3 + i % COLS;
                    continue;
                }
                _ => continue,
            };
            acc = (acc << 2) | sym;
            n += 1;
        }
        let syms = if n == 0 { 0 } else { acc << (32 - 2 * n) };
        ((cao as u64) << 32) | syms as u64
    }

    /// Decodes a compact unlabeled code of piece set `set` (labels all 0); `None` if the code is
    /// not a valid position of that set.
    pub fn from_code(code: u64, set: PieceSet) -> Option<Board> {
        let cao = (code >> 32) as usize;
        if cao >= 12 {
            return None;
        }
        let n = set.symbols();
        let syms = code as u32;
        if n < 16 && syms << (2 * n) != 0 {
            return None;
        }
        let mut b = Board {
            cells: [EMPTY; CELLS],
            labels: [0; CELLS],
        };
        b.place(Piece {
            kind: Kind::Cao,
            anchor: ((cao / 3) * COLS + cao % 3) as u8,
            label: 0,
        });
        let mut occ = b.occupied();
        let mut used = 0;
        let mut counts = [0u8; 4];
        for i in 0..CELLS {
            if occ & (1 << i) != 0 {
                continue;
            }
            if used == n {
                return None;
            }
            let sym = (syms >> (30 - 2 * used)) & 3;
            used += 1;
            let (r, c) = ((i / COLS) as i32, (i % COLS) as i32);
            let kind = match sym {
                0 => {
                    counts[0] += 1;
                    occ |= 1 << i;
                    continue;
                }
                1 => Kind::Soldier,
                2 => Kind::Vertical,
                _ => Kind::Horizontal,
            };
            let m = mask_at(kind, r, c)?;
            if m & occ != 0 {
                return None;
            }
            occ |= m;
            counts[sym as usize] += 1;
            b.place(Piece {
                kind,
                anchor: i as u8,
                label: 0,
            });
        }
        let ok = used == n
            && counts == [set.empty_cells(), set.s, set.v, set.h]
            && occ == (1 << CELLS) - 1;
        ok.then_some(b)
    }

    /// Per labelled kind, the labels of its pieces in scan order.
    pub fn label_sequences(&self) -> [Vec<u8>; 3] {
        let mut seqs: [Vec<u8>; 3] = Default::default();
        for p in self.pieces() {
            if let Some(k) = p.kind.labeled_slot() {
                seqs[k].push(p.label);
            }
        }
        seqs
    }

    /// The same position with labels assigned per kind in scan order from `seqs`.
    pub fn with_labels<S: AsRef<[u8]>>(&self, seqs: &[S; 3]) -> Board {
        let mut next = [0usize; 3];
        let mut b = Board {
            cells: [EMPTY; CELLS],
            labels: [0; CELLS],
        };
        for p in self.pieces() {
            let label = match p.kind.labeled_slot() {
                Some(k) => {
                    next[k] += 1;
                    seqs[k].as_ref()[next[k] - 1]
                }
                None => 0,
            };
            b.place(Piece { label, ..p });
        }
        b
    }

    /// The same position with every label 0 (the unlabeled view).
    pub fn unlabeled(&self) -> Board {
        Board {
            cells: self.cells,
            labels: [0; CELLS],
        }
    }
}
