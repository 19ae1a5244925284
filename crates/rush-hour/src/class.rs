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

mod sweep;

use std::collections::HashMap;

use crate::board::{Board, EXIT_ROW, Kind, Piece};

pub(crate) use sweep::{Bits, UNREACHED};

/// Most pieces in one line (rows and columns have fewer than `N ≤ 6` covered cells).
const MAX_LINE: usize = 3;
/// Most arrangements of one line (22 on a free line of 6 cells).
const MAX_ARRANGEMENTS: usize = 22;

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

/// The columns of one wall set, left to right.
#[derive(Debug)]
pub(crate) struct Columns(Vec<Column>);

/// One column of a wall set: every arrangement, and for each pattern of cells the rows cover
/// in it, the arrangements left and their ranks.
#[derive(Debug)]
pub(crate) struct Column {
    pub set: LineSet,
    /// `valid[p]`: the arrangements free of the cells `p` (line bits).
    valid: Vec<Vec<u8>>,
    /// `rank[p * len + a]`: `a`'s position in `valid[p]` (`u8::MAX`: not there).
    rank: Vec<u8>,
    /// Its arrangements grouped by the free segment each piece lies in.
    segments: Segments,
    /// What a layout's rank in it tells without decoding the arrangement.
    pub(crate) ranked: Ranked,
    /// `without[a * MAX_LINE + i]`: arrangement `a` without its `i`-th piece.
    without: Vec<u8>,
}

/// One column's moves and signatures by rank: index `p * len + ρ` is the arrangement of rank
/// `ρ` among those free of pattern `p` (`len` the column's arrangements).
#[derive(Debug, Default)]
pub(crate) struct Ranked {
    pub len: usize,
    /// Its vertical slides that cross no cell of `p`, as rank differences:
    /// `delta[first[i]..first[i + 1]]`.
    pub first: Vec<u32>,
    pub delta: Vec<i8>,
    /// The ranks those slides reach, as bits (index `i` as above).
    pub reach: Vec<u32>,
    /// Its signature ([`Segments`]).
    pub sig: Vec<u8>,
    /// At `i * n + k`: its rank under `p` with cell `k` toggled, `u8::MAX` when it covers `k`.
    pub toggled: Vec<u8>,
    /// Its cells (board bits).
    pub mask: Vec<u64>,
    /// Under pattern `p`, each signature with the ranks that have it (bits):
    /// `groups[group_first[p]..group_first[p + 1]]`.
    pub group_first: Vec<u32>,
    pub groups: Vec<(u8, u32)>,
}

impl Ranked {
    fn new(
        n: usize,
        c: usize,
        set: &LineSet,
        valid: &[Vec<u8>],
        rank: &[u8],
        segments: &Segments,
    ) -> Ranked {
        let len = set.len();
        let mut ranked = Ranked {
            len,
            first: vec![0],
            group_first: Vec::with_capacity(valid.len() + 1),
            sig: vec![u8::MAX; valid.len() * len],
            toggled: vec![u8::MAX; valid.len() * len * n],
            mask: vec![0; valid.len() * len],
            ..Ranked::default()
        };
        for (p, list) in valid.iter().enumerate() {
            for rho in 0..len {
                let i = p * len + rho;
                if let Some(&a) = list.get(rho) {
                    let a = a as usize;
                    for slide in set.slides(a) {
                        let to = slide.to as usize;
                        if line_bits(n, true, c, slide.swept) as usize & p == 0 {
                            ranked
                                .delta
                                .push((rank[p * len + to] as i16 - rho as i16) as i8);
                        }
                    }
                    ranked.sig[i] = segments.sig[p * len + a];
                    ranked.mask[i] = set.arrangements[a].mask;
                    for k in 0..n {
                        let q = p ^ 1 << k;
                        if set.arrangements[a].line >> k & 1 == 0 {
                            ranked.toggled[i * n + k] = rank[q * len + a];
                        }
                    }
                }
                let from = *ranked.first.last().expect("a first entry") as usize;
                let reach = ranked.delta[from..]
                    .iter()
                    .fold(0u32, |m, &d| m | 1 << (rho as i32 + d as i32));
                ranked.reach.push(reach);
                ranked.first.push(ranked.delta.len() as u32);
            }
            ranked.group_first.push(ranked.groups.len() as u32);
            let from = ranked.groups.len();
            for rho in 0..list.len() {
                let sig = ranked.sig[p * len + rho];
                match ranked.groups[from..].iter_mut().find(|(s, _)| *s == sig) {
                    Some((_, bits)) => *bits |= 1 << rho,
                    None => ranked.groups.push((sig, 1 << rho)),
                }
            }
        }
        ranked.group_first.push(ranked.groups.len() as u32);
        ranked
    }
}

/// One column's arrangements under each pattern `p` of covered cells, grouped by their
/// *signature*: the free segment (a maximal run of cells outside `p`) each of its pieces lies
/// in. With the rows fixed, a column's pieces slide freely inside their segments and never
/// leave them, so the arrangements of one signature are exactly one connected set of
/// vertical moves; a signature of every column is a *block* of the class.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    /// `sig[p * len + a]`: `a`'s signature under `p` (`u8::MAX`: `a` meets `p`).
    sig: Vec<u8>,
    /// Pattern `p`'s signatures are `first[p]..first[p + 1]` (global signature ids).
    first: Vec<u32>,
    /// Per global signature: how many arrangements have it.
    size: Vec<u32>,
    /// Per global signature `g` of pattern `p` and cell `k`: `toggled[next[g·n + k]..next[g·n
    /// + k + 1]]` are the signatures under `p` with cell `k` toggled of `g`'s arrangements that
    /// are free of `k` — one (the merged segments) when `k` is in `p`, every split when it is
    /// not (none: no arrangement of `g` leaves `k` free).
    next: Vec<u32>,
    toggled: Vec<u8>,
}

impl Segments {
    fn new(n: usize, set: &LineSet) -> Segments {
        let len = set.len();
        let patterns = 1usize << n;
        // The signature of `a` under `p`: each piece's segment and length, 5 bits a piece.
        let key = |p: usize, a: &Arrangement| -> Option<u32> {
            if a.line as usize & p != 0 {
                return None;
            }
            let mut key = 0u32;
            for i in 0..a.pieces as usize {
                let s = a.starts[i] as usize;
                // Segments starting at or before the piece's first cell, less one.
                let starts = (0..=s)
                    .filter(|&k| p >> k & 1 == 0 && (k == 0 || p >> (k - 1) & 1 == 1))
                    .count() as u32;
                key |= ((starts - 1) << 2 | a.lens[i] as u32) << (5 * i);
            }
            Some(key | (a.pieces as u32) << 16)
        };
        let mut seg = Segments {
            sig: vec![u8::MAX; patterns * len],
            first: vec![0],
            ..Segments::default()
        };
        for p in 0..patterns {
            let mut keys: Vec<u32> = Vec::new();
            for (i, a) in set.arrangements.iter().enumerate() {
                if let Some(k) = key(p, a) {
                    let id = match keys.iter().position(|&x| x == k) {
                        Some(id) => id,
                        None => {
                            keys.push(k);
                            seg.size.push(0);
                            keys.len() - 1
                        }
                    };
                    seg.sig[p * len + i] = id as u8;
                    let g = seg.first[p] as usize + id;
                    seg.size[g] += 1;
                }
            }
            seg.first.push(seg.size.len() as u32);
        }
        seg.next.push(0);
        for p in 0..patterns {
            for id in 0..(seg.first[p + 1] - seg.first[p]) as usize {
                for k in 0..n {
                    let q = p ^ 1 << k;
                    let mut out: Vec<u8> = Vec::new();
                    for (i, a) in set.arrangements.iter().enumerate() {
                        if seg.sig[p * len + i] as usize == id && a.line >> k & 1 == 0 {
                            let to = seg.sig[q * len + i];
                            if !out.contains(&to) {
                                out.push(to);
                            }
                        }
                    }
                    out.sort_unstable();
                    seg.toggled.extend_from_slice(&out);
                    seg.next.push(seg.toggled.len() as u32);
                }
            }
        }
        seg
    }

    /// Signatures under pattern `p`.
    fn count(&self, p: u8) -> u8 {
        (self.first[p as usize + 1] - self.first[p as usize]) as u8
    }

    /// Arrangements of signature `id` under `p`.
    fn size(&self, p: u8, id: u8) -> u32 {
        self.size[self.first[p as usize] as usize + id as usize]
    }

    /// The signatures under `p` with cell `k` toggled, reached from signature `id` (see
    /// [`Segments::next`]).
    fn toggled(&self, n: usize, p: u8, id: u8, k: usize) -> &[u8] {
        let g = (self.first[p as usize] as usize + id as usize) * n + k;
        &self.toggled[self.next[g] as usize..self.next[g + 1] as usize]
    }
}

impl Columns {
    pub fn new(n: usize, walls: u64) -> Columns {
        let mut columns = Vec::with_capacity(n);
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
            assert!(len <= MAX_ARRANGEMENTS, "a column of at most 6 cells");
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
            let index: HashMap<([u8; MAX_LINE], [u8; MAX_LINE]), u8> = set
                .arrangements
                .iter()
                .enumerate()
                .map(|(i, a)| ((a.starts, a.lens), i as u8))
                .collect();
            let mut less = vec![u8::MAX; len * MAX_LINE];
            for (ai, a) in set.arrangements.iter().enumerate() {
                for i in 0..a.pieces as usize {
                    let (mut starts, mut lens) = ([0u8; MAX_LINE], [0u8; MAX_LINE]);
                    let kept = (0..a.pieces as usize).filter(|&j| j != i);
                    for (to, j) in kept.enumerate() {
                        starts[to] = a.starts[j];
                        lens[to] = a.lens[j];
                    }
                    less[ai * MAX_LINE + i] = index[&(starts, lens)];
                }
            }
            let segments = Segments::new(n, &set);
            columns.push(Column {
                ranked: Ranked::new(n, c, &set, &v, &r, &segments),
                segments,
                set,
                valid: v,
                rank: r,
                without: less,
            });
        }
        Columns(columns)
    }
}

/// `mask`'s cells by column: column `c`'s cells (as line bits) in bits `8c..8c + n`.
pub(crate) fn transposed(n: usize, mask: u64) -> u64 {
    (0..n).fold(0u64, |t, c| {
        t | (line_bits(n, true, c, mask) as u64) << (8 * c)
    })
}

impl Columns {
    /// Per column and pattern of covered cells, the arrangements left.
    pub(crate) fn counts(&self) -> [[u32; 64]; 6] {
        let mut counts = [[0u32; 64]; 6];
        for (c, column) in self.0.iter().enumerate() {
            for (p, v) in column.valid.iter().enumerate() {
                counts[c][p] = v.len() as u32;
            }
        }
        counts
    }
}

/// Layouts of a class, counted without laying it out: per row combination, the product over
/// columns of the arrangements its cells leave each column ([`Columns::counts`]). `rows` holds
/// each row's arrangements [`transposed`], `walls` the walls transposed, so a combination's
/// column patterns are the OR of its rows'.
pub(crate) fn count_layouts(n: usize, walls: u64, rows: &[&[u64]], counts: &[[u32; 64]; 6]) -> u64 {
    fn rec(n: usize, acc: u64, rows: &[&[u64]], counts: &[[u32; 64]; 6]) -> u64 {
        match rows.split_first() {
            None => (0..n)
                .map(|c| counts[c][(acc >> (8 * c) & 0x3f) as usize] as u64)
                .product(),
            Some((row, rest)) => row.iter().map(|&t| rec(n, acc | t, rest, counts)).sum(),
        }
    }
    rec(n, walls, rows, counts)
}

/// Every tuple of digits below `radix` (each at least 1), the last digit fastest.
#[inline]
fn odometer(radix: &[u8], mut f: impl FnMut(&[u8; 6])) {
    let mut digits = [0u8; 6];
    loop {
        f(&digits);
        if turn(&mut digits, radix).is_none() {
            return;
        }
    }
}

/// Turns `digits` (below `radix`, the last digit fastest) on by one: the digit that went up
/// (every later one went back to 0), or `None` past the last tuple.
#[inline]
fn turn(digits: &mut [u8; 6], radix: &[u8]) -> Option<usize> {
    let mut c = radix.len();
    while c > 0 {
        c -= 1;
        digits[c] += 1;
        if digits[c] < radix[c] {
            return Some(c);
        }
        digits[c] = 0;
    }
    None
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
    /// Blocks of all smaller combinations, and per column the signatures its pattern leaves
    /// and their mixed-radix weight ([`Segments`]).
    block_offset: u64,
    sig_radix: [u8; 6],
    block_weight: [u32; 6],
}

/// A class (the walls and every row's arrangements of one pattern), ranked densely.
///
/// Its columns are ranked in an order of their own: the column with the most arrangements
/// left (the fewest runs, [`Class::new`]) last, the others left to right. Everything indexed
/// by column below — a combination's numbers, a state's arrangements and ranks, the column
/// bits of a move — is in that order; `order` gives each one's place on the board.
#[derive(Debug)]
pub struct Class<'a> {
    n: usize,
    walls: u64,
    rows: Vec<LineSet>,
    /// Mixed-radix weights of the rows (row 0 most significant).
    row_weight: Vec<u32>,
    /// The columns in ranking order, and the board column of each.
    columns: Vec<&'a Column>,
    pub(crate) order: [u8; 6],
    combos: Vec<Combo>,
    len: u64,
    blocks: u64,
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
        Class::ranked_with(n, walls, rows, columns, None)
    }

    /// The class ranked with board column `last` last, or the column that makes the fewest
    /// runs.
    pub(crate) fn ranked_with(
        n: usize,
        walls: u64,
        rows: Vec<LineSet>,
        columns: &'a Columns,
        last: Option<usize>,
    ) -> Class<'a> {
        let mut row_weight = vec![1u32; n];
        for r in (0..n.saturating_sub(1)).rev() {
            row_weight[r] = row_weight[r + 1] * rows[r + 1].len() as u32;
        }
        let count: usize = rows.iter().map(|s| s.len()).product();
        let covers: Vec<u64> = (0..count)
            .map(|k| {
                let mut rest = k as u32;
                let mut cover = walls;
                for r in 0..n {
                    let a = rest / row_weight[r];
                    rest %= row_weight[r];
                    cover |= rows[r].arrangements[a as usize].mask;
                }
                cover
            })
            .collect();
        // The search goes a run at a time, the layouts that differ in the last column only:
        // the column whose arrangements make the fewest runs goes last (the rightmost on a
        // tie), the others keep their order.
        let radices: Vec<[u64; 6]> = covers
            .iter()
            .map(|&cover| {
                std::array::from_fn(|c| match columns.0.get(c) {
                    Some(column) => {
                        column.valid[line_bits(n, true, c, cover) as usize].len() as u64
                    }
                    None => 1,
                })
            })
            .collect();
        let runs = |c: usize| -> u64 {
            radices
                .iter()
                .map(|r| (0..n).filter(|&o| o != c).map(|o| r[o]).product::<u64>())
                .sum()
        };
        let last = last.unwrap_or_else(|| (0..n).rev().min_by_key(|&c| runs(c)).unwrap_or(0));
        let mut order = [0u8; 6];
        for (i, c) in (0..n).filter(|&c| c != last).chain([last]).enumerate() {
            order[i] = c as u8;
        }
        let columns: Vec<&Column> = order[..n].iter().map(|&c| &columns.0[c as usize]).collect();
        let mut combos = Vec::with_capacity(count);
        let mut offset = 0u64;
        let mut block_offset = 0u64;
        for cover in covers {
            let mut combo = Combo {
                cover,
                offset,
                pattern: [0; 6],
                radix: [0; 6],
                weight: [0; 6],
                block_offset,
                sig_radix: [0; 6],
                block_weight: [0; 6],
            };
            let mut w = 1u64;
            let mut bw = 1u64;
            for c in (0..n).rev() {
                let p = line_bits(n, true, order[c] as usize, cover);
                let radix = columns[c].valid[p as usize].len();
                combo.pattern[c] = p;
                combo.radix[c] = radix as u8;
                combo.weight[c] = w as u32;
                w *= radix as u64;
                let sigs = columns[c].segments.count(p);
                combo.sig_radix[c] = sigs;
                combo.block_weight[c] = bw as u32;
                bw *= sigs as u64;
            }
            offset += w;
            block_offset += bw;
            combos.push(combo);
        }
        Class {
            n,
            walls,
            rows,
            row_weight,
            columns,
            order,
            combos,
            len: offset,
            blocks: block_offset,
        }
    }

    /// Board column bits (bit `c` for column `c`, as a row's line bits give them) in ranking
    /// order.
    fn column_bits(&self, bits: u8) -> u8 {
        (0..self.n).fold(0, |m, i| m | (bits >> self.order[i] & 1) << i)
    }

    /// The index layout `s` would have with the columns ranked left to right: the same order
    /// among the layouts of one class whatever order they are ranked in.
    pub fn board_order_index(&self, s: u32) -> u64 {
        let state = self.decode(s);
        let combo = &self.combos[state.combo as usize];
        let (mut radix, mut rank) = ([1u64; 6], [0u64; 6]);
        for i in 0..self.n {
            radix[self.order[i] as usize] = combo.radix[i] as u64;
            rank[self.order[i] as usize] = state.ranks[i] as u64;
        }
        (0..self.n).fold(0, |s, c| s * radix[c] + rank[c]) + combo.offset
    }

    /// Number of layouts.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No layouts at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of blocks: per row combination, a signature of every column ([`Segments`]).
    /// A block's layouts are connected by vertical moves alone, and no vertical move leaves
    /// its block: the clusters are unions of blocks, joined by horizontal moves
    /// ([`Class::for_each_block_move`]).
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The walls' cells.
    pub fn walls(&self) -> u64 {
        self.walls
    }

    /// Number of row combinations.
    pub fn combos(&self) -> usize {
        self.combos.len()
    }

    /// The layouts of row combination `k`.
    pub fn combo_layouts(&self, k: usize) -> std::ops::Range<usize> {
        let end = self.combos.get(k + 1).map_or(self.len, |c| c.offset) as usize;
        self.combos[k].offset as usize..end
    }

    /// Cells of the horizontal pieces of row combination `k`'s layouts.
    pub fn combo_horizontal_mask(&self, k: usize) -> u64 {
        self.combos[k].cover & !self.walls
    }

    /// The blocks of row combination `k`.
    pub fn combo_blocks(&self, k: usize) -> std::ops::Range<usize> {
        let start = self.combos[k].block_offset as usize;
        let end = self
            .combos
            .get(k + 1)
            .map_or(self.blocks, |c| c.block_offset) as usize;
        start..end
    }

    /// The block of `state`.
    #[inline]
    pub fn block(&self, state: &State) -> u32 {
        let combo = &self.combos[state.combo as usize];
        let mut b = combo.block_offset as u32;
        for c in 0..self.n {
            let len = self.columns[c].set.len();
            let sig = self.columns[c].segments.sig
                [combo.pattern[c] as usize * len + state.cols[c] as usize];
            b += sig as u32 * combo.block_weight[c];
        }
        b
    }

    /// The exit row's arrangement with the red car on the exit cells.
    fn goal_arrangement(&self) -> Option<usize> {
        self.rows[EXIT_ROW]
            .arrangements
            .iter()
            .position(|a| a.starts[a.pieces as usize - 1] as usize == self.n - 2)
    }

    /// Whether the layouts of row combination `k` are goals.
    fn combo_is_goal(&self, k: usize, goal: Option<usize>) -> bool {
        let exit = &self.rows[EXIT_ROW];
        Some(k / self.row_weight[EXIT_ROW] as usize % exit.len()) == goal
    }

    /// Every block in order: its number of layouts and whether they are goals.
    pub fn for_each_block(&self, mut f: impl FnMut(u64, bool)) {
        let n = self.n;
        let goal = self.goal_arrangement();
        for (k, combo) in self.combos.iter().enumerate() {
            let is_goal = self.combo_is_goal(k, goal);
            odometer(&combo.sig_radix[..n], |sig| {
                let size = (0..n).fold(1u64, |m, c| {
                    m * self.columns[c].segments.size(combo.pattern[c], sig[c]) as u64
                });
                f(size, is_goal);
            });
        }
    }

    /// Every block's number of layouts, in block order, into `sizes` (cleared first): what
    /// [`Class::for_each_block`] gives, built a row combination at a time as the product of its
    /// columns' signature sizes, one column after another (one multiplication a block).
    pub fn block_sizes(&self, sizes: &mut Vec<u32>) {
        sizes.clear();
        sizes.reserve(self.blocks as usize);
        for combo in &self.combos {
            let start = sizes.len();
            sizes.push(1);
            for c in 0..self.n {
                let seg = &self.columns[c].segments;
                let p = combo.pattern[c] as usize;
                let of_column = &seg.size[seg.first[p] as usize..seg.first[p + 1] as usize];
                // Each product so far times each of the column's sizes, the column fastest.
                let len = sizes.len() - start;
                let count = of_column.len();
                sizes.resize(start + len * count, 0);
                for i in (0..len).rev() {
                    let x = sizes[start + i];
                    for (j, &size) in of_column.iter().enumerate() {
                        sizes[start + i * count + j] = x * size;
                    }
                }
            }
        }
    }

    /// Pairs of blocks that horizontal moves join (some layout of the first has a move to some
    /// layout of the second), enough to connect what the moves connect: every slide of a piece
    /// one cell to the right. A longer slide passes through layouts one cell apart (the cells
    /// it sweeps are free), and a slide to the left is one to the right seen from its end.
    ///
    /// A row slide is possible from a layout of block `b` when every cell it sweeps is free:
    /// no wall or horizontal piece (the row combination's cover), and in each column it
    /// crosses, an arrangement of the column's signature that leaves the cell free. The
    /// columns are independent, so the target blocks are the product of each column's
    /// outcomes: unchanged where the slide passes, the merged segments where it frees a
    /// cell, every split of the segment where it covers one.
    pub fn for_each_block_move(&self, mut f: impl FnMut(u32, u32)) {
        let n = self.n;
        let mut targets: Vec<u32> = Vec::with_capacity(64);
        // (source part, targets[lo..hi]) per choice of the crossed columns' signatures, and
        // (source, target) per choice of the others'.
        let mut choices: Vec<(u32, u32, u32)> = Vec::new();
        let mut carried: Vec<(u32, u32)> = Vec::new();
        let mut values: Vec<u32> = Vec::new();
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for (k, combo) in self.combos.iter().enumerate() {
            for r in 0..n {
                let set = &self.rows[r];
                let from = k / self.row_weight[r] as usize % set.len();
                let old = self.column_bits(set.arrangements[from].line);
                for slide in set.slides(from) {
                    let to = slide.to as usize;
                    let piece = slide.piece as usize;
                    let shift = set.arrangements[to].starts[piece] as i32
                        - set.arrangements[from].starts[piece] as i32;
                    if shift != 1 || slide.swept & combo.cover != 0 {
                        continue;
                    }
                    let k2 = k + (to - from) * self.row_weight[r] as usize;
                    let next = &self.combos[k2];
                    let new = self.column_bits(set.arrangements[to].line);
                    let crossed = self.column_bits(line_bits(n, false, r, slide.swept)) | old ^ new;
                    // Per crossed column and signature there, what the signature becomes
                    // (times its weight in the target): `values[ranges[at[x] + sig]]`.
                    values.clear();
                    ranges.clear();
                    let mut at = [0usize; 6];
                    let mut columns = [0usize; 6];
                    let mut count = 0;
                    for c in (0..n).filter(|&c| crossed >> c & 1 == 1) {
                        columns[count] = c;
                        count += 1;
                    }
                    let columns = &columns[..count];
                    for (x, &c) in columns.iter().enumerate() {
                        at[x] = ranges.len();
                        let w = next.block_weight[c];
                        for sig in 0..combo.sig_radix[c] {
                            let outcomes =
                                self.columns[c]
                                    .segments
                                    .toggled(n, combo.pattern[c], sig, r);
                            let start = values.len() as u32;
                            if new >> c & 1 == 1 {
                                // Newly covered: every split of the segment.
                                values.extend(outcomes.iter().map(|&o| o as u32 * w));
                            } else if !outcomes.is_empty() {
                                // Passed over (the same pattern after) or freed (the merge).
                                let passed = old >> c & 1 == 0;
                                values.push(if passed { sig } else { outcomes[0] } as u32 * w);
                            }
                            ranges.push((start, values.len() as u32));
                        }
                    }
                    // The crossed columns' signatures that let the slide through: each choice's
                    // part of the source block and its targets' parts of the target block.
                    choices.clear();
                    choices.push((0, 0, 1));
                    targets.clear();
                    targets.push(0);
                    for (x, &c) in columns.iter().enumerate() {
                        let (w, m) = (combo.block_weight[c], choices.len());
                        for i in 0..m {
                            let (src, lo, hi) = choices[i];
                            for sig in 0..combo.sig_radix[c] as u32 {
                                let (a, b) = ranges[at[x] + sig as usize];
                                let first = targets.len() as u32;
                                for t in lo..hi {
                                    for v in a..b {
                                        targets.push(targets[t as usize] + values[v as usize]);
                                    }
                                }
                                if targets.len() as u32 > first {
                                    choices.push((src + sig * w, first, targets.len() as u32));
                                }
                            }
                        }
                        choices.drain(..m);
                    }
                    // The other columns keep their signatures: each of their choices' parts of
                    // the source and the target block.
                    carried.clear();
                    carried.push((combo.block_offset as u32, next.block_offset as u32));
                    for c in (0..n).filter(|&c| crossed >> c & 1 == 0) {
                        let (w, w2, m) =
                            (combo.block_weight[c], next.block_weight[c], carried.len());
                        for sig in 1..combo.sig_radix[c] as u32 {
                            for i in 0..m {
                                let (src, dst) = carried[i];
                                carried.push((src + sig * w, dst + sig * w2));
                            }
                        }
                    }
                    for &(src, dst) in carried.iter() {
                        for &(part, lo, hi) in choices.iter() {
                            for &t in &targets[lo as usize..hi as usize] {
                                f(src + part, dst + t);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every layout of block `b` at distance `d` (`dist` holds each layout's), in rank order:
    /// its index and the cells its vertical pieces cover (as [`Class::vertical_mask`] gives
    /// them).
    pub fn for_each_layout_in_block_at(
        &self,
        b: u32,
        dist: &[u8],
        d: u8,
        mut f: impl FnMut(u32, u64),
    ) {
        let n = self.n;
        let last = n - 1;
        let k = self.combos.partition_point(|c| c.block_offset <= b as u64) - 1;
        let combo = &self.combos[k];
        let local = b - combo.block_offset as u32;
        // Each column's signature in the block (none past the board's columns).
        let sig: [u8; 6] = std::array::from_fn(|c| {
            if c < n {
                (local / combo.block_weight[c] % combo.sig_radix[c] as u32) as u8
            } else {
                0
            }
        });
        // Per other column, the ranks of its arrangements of the block's signature, as each
        // one's index and cells; the last column's as bits.
        let mut ranks = [[(0u32, 0u64); MAX_ARRANGEMENTS]; 6];
        let mut radix = [0u8; 6];
        for c in 0..last {
            let col = &self.columns[c].ranked;
            let at = combo.pattern[c] as usize * col.len;
            for r in 0..combo.radix[c] as usize {
                if col.sig[at + r] == sig[c] {
                    ranks[c][radix[c] as usize] = (r as u32 * combo.weight[c], col.mask[at + r]);
                    radix[c] += 1;
                }
            }
        }
        let tail = &self.columns[last].ranked;
        let tail_at = combo.pattern[last] as usize * tail.len;
        let run_len = combo.radix[last] as usize;
        let tail_ranks = (0..run_len)
            .filter(|&r| tail.sig[tail_at + r] == sig[last])
            .fold(0u32, |m, r| m | 1 << r);
        // The other columns' ranks as an odometer, with the index and cells they give up to
        // each column (`at[c + 1]` through column `c`) kept as the digits turn.
        let mut digits = [0u8; 6];
        let mut at = [(combo.offset as u32, 0u64); 7];
        for c in 0..last {
            let (w, mask) = ranks[c][0];
            at[c + 1] = (at[c].0 + w, at[c].1 | mask);
        }
        loop {
            let (s, vertical) = at[last];
            let mut hits = tail_ranks;
            while hits != 0 {
                let i = hits.trailing_zeros();
                hits &= hits - 1;
                if dist[(s + i) as usize] == d {
                    f(s + i, vertical | tail.mask[tail_at + i as usize]);
                }
            }
            let Some(c) = turn(&mut digits, &radix[..last]) else {
                return;
            };
            for j in c..last {
                let (w, mask) = ranks[j][digits[j] as usize];
                at[j + 1] = (at[j].0 + w, at[j].1 | mask);
            }
        }
    }

    /// The row combinations whose layouts are goals.
    pub fn goal_combos(&self) -> impl Iterator<Item = u32> + '_ {
        let goal = self.goal_arrangement();
        (0..self.combos.len())
            .filter(move |&k| self.combo_is_goal(k, goal))
            .map(|k| k as u32)
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
            let a = self.columns[c].valid[combo.pattern[c] as usize][rank as usize];
            state.cols[c] = a;
            state.vertical |= self.columns[c].set.arrangements[a as usize].mask;
        }
        state
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
            let set = &self.columns[c].set;
            let len = set.len();
            let ranks = &self.columns[c].rank[combo.pattern[c] as usize * len..];
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
                    let len = self.columns[c].set.len();
                    let rank = self.columns[c].rank
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

    /// The index of `state` without piece `id` when that is a vertical piece (the rows, so
    /// the class, stay the same); `None` for a horizontal piece or a wall (`u8::MAX`).
    pub fn without_vertical(&self, state: &State, id: PieceId) -> Option<u32> {
        if id >= 64 {
            return None;
        }
        let id = id.checked_sub(column_piece(0, 0))? as usize;
        let (col, i) = (id / 4, id % 4);
        let combo = &self.combos[state.combo as usize];
        let a = self.columns[col].without[state.cols[col] as usize * MAX_LINE + i];
        let len = self.columns[col].set.len();
        let rank = self.columns[col].rank[combo.pattern[col] as usize * len + a as usize];
        let s = (0..self.n).fold(combo.offset as u32, |s, c| {
            let r = if c == col { rank } else { state.ranks[c] };
            s + r as u32 * combo.weight[c]
        });
        Some(s)
    }

    /// The piece ids of `state` (bit `id`), the red car left out.
    pub fn pieces(&self, state: &State) -> u64 {
        let mut bits = 0u64;
        for r in 0..self.n {
            let a = &self.rows[r].arrangements[state.rows[r] as usize];
            bits |= ((1u64 << a.pieces) - 1) << row_piece(r, 0);
        }
        for c in 0..self.n {
            let a = &self.columns[c].set.arrangements[state.cols[c] as usize];
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
            let a = &self.columns[c].set.arrangements[state.cols[c] as usize];
            for i in 0..a.pieces as usize {
                pieces.push(Piece {
                    kind: Kind::Vertical,
                    cell: (a.starts[i] as usize * n + self.order[c] as usize) as u8,
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
