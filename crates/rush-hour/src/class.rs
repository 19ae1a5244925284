//! A class of layouts with a dense ranking: the walls and, in every row, the sequence of
//! horizontal piece lengths (and which side of each wall each piece is on). Pieces never leave
//! their line nor pass each other or a wall, so every move stays inside the class; the columns'
//! vertical pieces vary inside it (each column's sequence is again fixed along a move, so a
//! cluster lies inside one column sequence too).
//!
//! A layout is ranked as: the row arrangements in mixed radix (the *row combination*, whose
//! cells decide which arrangements each column may take), then, after the number of layouts of
//! all smaller row combinations, each column's arrangement as its rank among the arrangements
//! that row combination leaves it, in mixed radix. Every index in `0..len` is a layout and
//! every layout has one index.

use std::collections::HashMap;

use crate::board::{Board, EXIT_ROW, Kind, Piece};

/// Most pieces in one line (rows and columns have fewer than `N ≤ 6` covered cells).
const MAX_LINE: usize = 3;

/// One arrangement of a line's pieces.
#[derive(Debug, Clone)]
pub(crate) struct Arrangement {
    /// Cells covered, as board bits.
    pub mask: u64,
    /// Cells covered along the line (bit `k` = the line's `k`-th cell).
    pub line: u8,
    pub starts: [u8; MAX_LINE],
    pub lens: [u8; MAX_LINE],
    pub pieces: u8,
}

/// A piece of an arrangement slid to another place.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slide {
    /// The arrangement it gives.
    pub to: u32,
    /// Cells the piece newly covers or passes over (they must be free).
    pub swept: u64,
    /// Which piece of the line moved.
    pub piece: u8,
}

/// The arrangements a line may take, with their slides.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineSet {
    pub arrangements: Vec<Arrangement>,
    slides: Vec<Slide>,
    first: Vec<u32>,
}

impl LineSet {
    pub fn slides(&self, a: usize) -> &[Slide] {
        &self.slides[self.first[a] as usize..self.first[a + 1] as usize]
    }

    pub fn len(&self) -> usize {
        self.arrangements.len()
    }
}

/// Cell `k` of row `r` (horizontal) or column `r` (vertical).
fn cell(n: usize, vertical: bool, line: usize, k: usize) -> usize {
    if vertical { k * n + line } else { line * n + k }
}

/// Every arrangement of pieces of lengths 2 and 3 along one line of `n` cells avoiding the
/// cells in `blocked` (line bits), covering fewer than `n - blocked cells counted` cells.
pub(crate) fn arrangements(
    n: usize,
    vertical: bool,
    line: usize,
    blocked: u8,
    budget: usize,
) -> Vec<Arrangement> {
    fn rec(
        n: usize,
        pos: usize,
        blocked: u8,
        budget: usize,
        cur: &mut Vec<(u8, u8)>,
        out: &mut Vec<Vec<(u8, u8)>>,
    ) {
        if pos >= n {
            out.push(cur.clone());
            return;
        }
        rec(n, pos + 1, blocked, budget, cur, out);
        for len in 2..=3usize {
            let span = ((1u16 << len) - 1) << pos;
            if pos + len <= n && len <= budget && span as u8 & blocked == 0 && cur.len() < MAX_LINE
            {
                cur.push((pos as u8, len as u8));
                rec(n, pos + len, blocked, budget - len, cur, out);
                cur.pop();
            }
        }
    }
    let mut raw = Vec::new();
    rec(n, 0, blocked, budget, &mut Vec::new(), &mut raw);
    raw.sort();
    raw.into_iter()
        .map(|pieces| {
            let mut a = Arrangement {
                mask: 0,
                line: 0,
                starts: [0; MAX_LINE],
                lens: [0; MAX_LINE],
                pieces: pieces.len() as u8,
            };
            for (i, &(s, len)) in pieces.iter().enumerate() {
                a.starts[i] = s;
                a.lens[i] = len;
                for k in s..s + len {
                    a.line |= 1 << k;
                    a.mask |= 1u64 << cell(n, vertical, line, k as usize);
                }
            }
            a
        })
        .collect()
}

/// The segment (between walls) each piece of `a` is in, with its length: arrangements with the
/// same key are one class's.
pub(crate) fn pattern(a: &Arrangement, blocked: u8) -> Vec<(u8, u8)> {
    (0..a.pieces as usize)
        .map(|i| {
            let below = blocked & ((1u16 << a.starts[i]) - 1) as u8;
            (below.count_ones() as u8, a.lens[i])
        })
        .collect()
}

/// A line set from arrangements of one line, with every slide that stays in the set without
/// crossing a blocked cell.
pub(crate) fn line_set(
    n: usize,
    vertical: bool,
    line: usize,
    blocked: u8,
    arrangements: Vec<Arrangement>,
) -> LineSet {
    let index: HashMap<([u8; MAX_LINE], [u8; MAX_LINE]), u32> = arrangements
        .iter()
        .enumerate()
        .map(|(i, a)| ((a.starts, a.lens), i as u32))
        .collect();
    let mut slides = Vec::new();
    let mut first = vec![0u32];
    for a in &arrangements {
        for i in 0..a.pieces as usize {
            let (s, len) = (a.starts[i] as usize, a.lens[i] as usize);
            for t in 0..=n.saturating_sub(len) {
                if t == s {
                    continue;
                }
                let mut starts = a.starts;
                starts[i] = t as u8;
                let Some(&to) = index.get(&(starts, a.lens)) else {
                    continue;
                };
                let (lo, hi) = (s.min(t), s.max(t) + len);
                let mut swept_line = 0u8;
                for k in lo..hi {
                    swept_line |= 1 << k;
                }
                swept_line &= !a.line;
                if swept_line & blocked != 0 {
                    continue;
                }
                let swept = (0..n)
                    .filter(|&k| swept_line >> k & 1 == 1)
                    .fold(0u64, |m, k| m | 1u64 << cell(n, vertical, line, k));
                slides.push(Slide {
                    to,
                    swept,
                    piece: i as u8,
                });
            }
        }
        first.push(slides.len() as u32);
    }
    LineSet {
        arrangements,
        slides,
        first,
    }
}

/// The columns of one wall set: every arrangement of each column, and for each pattern of
/// cells the rows cover in it, the arrangements left and their ranks.
#[derive(Debug)]
pub(crate) struct Columns {
    pub sets: Vec<LineSet>,
    /// `valid[c][p]`: the arrangements of column `c` free of the cells `p` (line bits).
    valid: Vec<Vec<Vec<u8>>>,
    /// `rank[c][p * len_c + a]`: `a`'s position in `valid[c][p]` (`u8::MAX`: not there).
    rank: Vec<Vec<u8>>,
}

impl Columns {
    pub fn new(n: usize, walls: u64) -> Columns {
        let mut sets = Vec::new();
        let mut valid = Vec::new();
        let mut rank = Vec::new();
        for c in 0..n {
            let blocked = line_bits(n, true, c, walls);
            let set = line_set(
                n,
                true,
                c,
                blocked,
                arrangements(n, true, c, blocked, n - 1),
            );
            let len = set.len();
            let mut v = Vec::new();
            let mut r = vec![u8::MAX; (1 << n) * len];
            for p in 0..1usize << n {
                let list: Vec<u8> = (0..len)
                    .filter(|&a| set.arrangements[a].line as usize & p == 0)
                    .map(|a| a as u8)
                    .collect();
                for (k, &a) in list.iter().enumerate() {
                    r[p * len + a as usize] = k as u8;
                }
                v.push(list);
            }
            sets.push(set);
            valid.push(v);
            rank.push(r);
        }
        Columns { sets, valid, rank }
    }
}

/// The cells of `mask` on one line, as line bits.
pub(crate) fn line_bits(n: usize, vertical: bool, line: usize, mask: u64) -> u8 {
    (0..n).fold(0u8, |b, k| {
        b | ((mask >> cell(n, vertical, line, k) & 1) as u8) << k
    })
}

/// One row combination's numbers.
#[derive(Debug, Clone, Copy)]
struct Combo {
    /// Cells of the horizontal pieces and walls.
    cover: u64,
    /// Layouts of all smaller combinations.
    offset: u64,
    /// Per column: the pattern of covered cells, the arrangements left, the mixed-radix weight.
    pattern: [u8; 6],
    radix: [u8; 6],
    weight: [u32; 6],
}

/// A class (the walls and every row's arrangements of one pattern), ranked densely.
#[derive(Debug)]
pub struct Class<'a> {
    n: usize,
    walls: u64,
    rows: Vec<LineSet>,
    /// Mixed-radix weights of the rows (row 0 most significant).
    row_weight: Vec<u32>,
    columns: &'a Columns,
    combos: Vec<Combo>,
    len: u64,
}

/// A layout of a class, decoded.
#[derive(Debug, Clone, Copy)]
pub struct State {
    combo: u32,
    rows: [u8; 6],
    cols: [u8; 6],
    ranks: [u8; 6],
    /// Cells of the vertical pieces.
    vertical: u64,
}

/// Which piece of a class moved: a row's `i`-th piece or a column's ([`row_piece`],
/// [`column_piece`]); below 64, so a set of them is a `u64`.
pub type PieceId = u8;

/// The id of row `r`'s `i`-th piece (at most [`MAX_LINE`] a line, four ids a line).
fn row_piece(r: usize, i: usize) -> PieceId {
    (r * 4 + i) as PieceId
}

/// The id of column `c`'s `i`-th piece, after every row's.
fn column_piece(c: usize, i: usize) -> PieceId {
    (32 + c * 4 + i) as PieceId
}

impl<'a> Class<'a> {
    /// The class of `rows` (one line set per row, each of one pattern) over `columns`.
    pub(crate) fn new(n: usize, walls: u64, rows: Vec<LineSet>, columns: &'a Columns) -> Class<'a> {
        let mut row_weight = vec![1u32; n];
        for r in (0..n.saturating_sub(1)).rev() {
            row_weight[r] = row_weight[r + 1] * rows[r + 1].len() as u32;
        }
        let count: usize = rows.iter().map(|s| s.len()).product();
        let mut combos = Vec::with_capacity(count);
        let mut offset = 0u64;
        for k in 0..count {
            let mut rest = k as u32;
            let mut cover = walls;
            for r in 0..n {
                let a = rest / row_weight[r];
                rest %= row_weight[r];
                cover |= rows[r].arrangements[a as usize].mask;
            }
            let mut combo = Combo {
                cover,
                offset,
                pattern: [0; 6],
                radix: [0; 6],
                weight: [0; 6],
            };
            let mut w = 1u64;
            for c in (0..n).rev() {
                let p = line_bits(n, true, c, cover);
                let radix = columns.valid[c][p as usize].len();
                combo.pattern[c] = p;
                combo.radix[c] = radix as u8;
                combo.weight[c] = w as u32;
                w *= radix as u64;
            }
            offset += w;
            combos.push(combo);
        }
        Class {
            n,
            walls,
            rows,
            row_weight,
            columns,
            combos,
            len: offset,
        }
    }

    /// Number of layouts.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No layouts at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Layout `s` decoded.
    pub fn decode(&self, s: u32) -> State {
        let s = s as u64;
        let k = self.combos.partition_point(|c| c.offset <= s) - 1;
        let combo = &self.combos[k];
        let mut state = State {
            combo: k as u32,
            rows: [0; 6],
            cols: [0; 6],
            ranks: [0; 6],
            vertical: 0,
        };
        let mut rest = k as u32;
        for r in 0..self.n {
            state.rows[r] = (rest / self.row_weight[r]) as u8;
            rest %= self.row_weight[r];
        }
        let local = (s - combo.offset) as u32;
        for c in 0..self.n {
            let rank = (local / combo.weight[c]) % combo.radix[c] as u32;
            state.ranks[c] = rank as u8;
            let a = self.columns.valid[c][combo.pattern[c] as usize][rank as usize];
            state.cols[c] = a;
            state.vertical |= self.columns.sets[c].arrangements[a as usize].mask;
        }
        state
    }

    /// Every goal layout (the red car on the exit cells), in rank order.
    pub fn goals(&self) -> impl Iterator<Item = u32> + '_ {
        let exit = &self.rows[EXIT_ROW];
        let weight = self.row_weight[EXIT_ROW] as usize;
        let goal = exit
            .arrangements
            .iter()
            .position(|a| a.starts[a.pieces as usize - 1] as usize == self.n - 2);
        let ends = self
            .combos
            .iter()
            .map(|c| c.offset)
            .skip(1)
            .chain([self.len]);
        self.combos
            .iter()
            .zip(ends)
            .enumerate()
            .filter(move |(k, _)| Some(k / weight % exit.len()) == goal)
            .flat_map(|(_, (c, end))| c.offset as u32..end as u32)
    }

    /// Whether the red car of `state` is on the exit cells.
    pub fn is_goal(&self, state: &State) -> bool {
        let red = &self.rows[EXIT_ROW].arrangements[state.rows[EXIT_ROW] as usize];
        red.starts[red.pieces as usize - 1] as usize == self.n - 2
    }

    /// Cells of the vertical pieces.
    pub fn vertical_mask(&self, state: &State) -> u64 {
        state.vertical
    }

    /// Cells of the horizontal pieces (the walls left out).
    pub fn horizontal_mask(&self, state: &State) -> u64 {
        self.combos[state.combo as usize].cover & !self.walls
    }

    /// Every layout one move from `state` (index `s`): its index, its state and the piece that
    /// moved.
    #[inline]
    pub fn for_each_neighbor(
        &self,
        state: &State,
        s: u32,
        mut f: impl FnMut(u32, &State, PieceId),
    ) {
        let n = self.n;
        let combo = &self.combos[state.combo as usize];
        let occupied = combo.cover | state.vertical;
        for c in 0..n {
            let set = &self.columns.sets[c];
            let len = set.len();
            let ranks = &self.columns.rank[c][combo.pattern[c] as usize * len..];
            let from = state.cols[c] as usize;
            for slide in set.slides(from) {
                if slide.swept & occupied == 0 {
                    let rank = ranks[slide.to as usize];
                    let delta = (rank as i64 - state.ranks[c] as i64) * combo.weight[c] as i64;
                    let mut next = *state;
                    next.cols[c] = slide.to as u8;
                    next.ranks[c] = rank;
                    next.vertical ^=
                        set.arrangements[from].mask ^ set.arrangements[slide.to as usize].mask;
                    f(
                        (s as i64 + delta) as u32,
                        &next,
                        column_piece(c, slide.piece as usize),
                    );
                }
            }
        }
        for r in 0..n {
            let set = &self.rows[r];
            for slide in set.slides(state.rows[r] as usize) {
                if slide.swept & occupied != 0 {
                    continue;
                }
                let k = state.combo as i64
                    + (slide.to as i64 - state.rows[r] as i64) * self.row_weight[r] as i64;
                let combo = &self.combos[k as usize];
                let mut next = *state;
                next.combo = k as u32;
                next.rows[r] = slide.to as u8;
                let mut local = 0u64;
                for c in 0..n {
                    let len = self.columns.sets[c].len();
                    let rank = self.columns.rank[c]
                        [combo.pattern[c] as usize * len + state.cols[c] as usize];
                    next.ranks[c] = rank;
                    local += rank as u64 * combo.weight[c] as u64;
                }
                f(
                    (combo.offset + local) as u32,
                    &next,
                    row_piece(r, slide.piece as usize),
                );
            }
        }
    }

    /// The piece ids of `state` (bit `id`), the red car left out.
    pub fn pieces(&self, state: &State) -> u64 {
        let mut bits = 0u64;
        for r in 0..self.n {
            let a = &self.rows[r].arrangements[state.rows[r] as usize];
            bits |= ((1u64 << a.pieces) - 1) << row_piece(r, 0);
        }
        for c in 0..self.n {
            let a = &self.columns.sets[c].arrangements[state.cols[c] as usize];
            bits |= ((1u64 << a.pieces) - 1) << column_piece(c, 0);
        }
        let red = &self.rows[EXIT_ROW].arrangements[state.rows[EXIT_ROW] as usize];
        bits & !(1u64 << row_piece(EXIT_ROW, red.pieces as usize - 1))
    }

    /// `mask` (board bits) upside down.
    pub fn rows_reversed(&self, mask: u64) -> u64 {
        let n = self.n;
        let row = (1u64 << n) - 1;
        (0..n).fold(0, |m, r| m | (mask >> (r * n) & row) << ((n - 1 - r) * n))
    }

    /// The layout of `state`, pieces with the class's piece ids.
    pub fn board(&self, state: &State) -> (Board, Vec<PieceId>) {
        let n = self.n;
        let mut pieces = Vec::new();
        let mut ids = Vec::new();
        let red = &self.rows[EXIT_ROW].arrangements[state.rows[EXIT_ROW] as usize];
        let last = red.pieces as usize - 1;
        pieces.push(Piece {
            kind: Kind::Horizontal,
            cell: (EXIT_ROW * n + red.starts[last] as usize) as u8,
            len: 2,
        });
        ids.push(row_piece(EXIT_ROW, last));
        for r in 0..n {
            let a = &self.rows[r].arrangements[state.rows[r] as usize];
            for i in 0..a.pieces as usize {
                if r == EXIT_ROW && i == last {
                    continue;
                }
                pieces.push(Piece {
                    kind: Kind::Horizontal,
                    cell: (r * n + a.starts[i] as usize) as u8,
                    len: a.lens[i],
                });
                ids.push(row_piece(r, i));
            }
        }
        for c in 0..n {
            let a = &self.columns.sets[c].arrangements[state.cols[c] as usize];
            for i in 0..a.pieces as usize {
                pieces.push(Piece {
                    kind: Kind::Vertical,
                    cell: (a.starts[i] as usize * n + c) as u8,
                    len: a.lens[i],
                });
                ids.push(column_piece(c, i));
            }
        }
        let mut w = self.walls;
        while w != 0 {
            pieces.push(Piece {
                kind: Kind::Wall,
                cell: w.trailing_zeros() as u8,
                len: 1,
            });
            ids.push(u8::MAX);
            w &= w - 1;
        }
        // Board::new sorts all but the red car by first cell: sort the ids alike.
        let mut order: Vec<usize> = (1..pieces.len()).collect();
        order.sort_by_key(|&i| pieces[i].cell);
        let sorted_ids = std::iter::once(ids[0])
            .chain(order.iter().map(|&i| ids[i]))
            .collect();
        let board = Board::new(n, pieces).expect("a class's layouts follow the rules");
        (board, sorted_ids)
    }
}
