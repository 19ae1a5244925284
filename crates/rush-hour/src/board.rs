//! One Rush Hour layout: its pieces, its notation (Fogleman's: `N·N` characters row-major), its
//! moves, and a bounded breadth-first solver over layouts (used to test minimality and by the
//! plain reference).

use std::collections::HashSet;
use std::fmt;

use thiserror::Error;

/// The row whose right end is the exit (the third from the top).
pub const EXIT_ROW: usize = 2;
/// Board sizes the universe takes.
pub const SIZES: std::ops::RangeInclusive<usize> = 4..=6;
/// The red car's letter.
pub const RED: char = 'A';

/// What a piece is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Slides along its row.
    Horizontal,
    /// Slides along its column.
    Vertical,
    /// A fixed 1×1 cell.
    Wall,
}

/// A piece: its kind, its first (top or left) cell `r·N + c` and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    pub kind: Kind,
    pub cell: u8,
    pub len: u8,
}

impl Piece {
    fn stride(&self, n: usize) -> usize {
        match self.kind {
            Kind::Vertical => n,
            _ => 1,
        }
    }

    /// The cells it covers as a bit mask (bit `r·N + c`).
    pub fn mask(&self, n: usize) -> u64 {
        let s = self.stride(n);
        (0..self.len as usize).fold(0, |m, k| m | 1u64 << (self.cell as usize + k * s))
    }
}

/// Why a text is not a Rush Hour layout.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum BoardError {
    #[error("a board is N·N characters for N in 4..=6; this one has {0}")]
    Length(usize),
    #[error("row {row}, column {column}: {ch:?} is not `.` (or `o`), `x` or a letter")]
    Character { row: usize, column: usize, ch: char },
    #[error("piece {0}: its cells are not a straight line of 2 or 3 cells")]
    Shape(char),
    #[error("no red car `A`")]
    NoRedCar,
    #[error("the red car `A` must be a horizontal car (2 cells) in row {EXIT_ROW}")]
    RedCar,
    #[error("row {0}: only walls may share the exit row with the red car, and only left of it")]
    ExitRow(usize),
    #[error("row {0}: its horizontal pieces and walls cover the whole row")]
    RowFull(usize),
    #[error("column {0}: its vertical pieces cover the whole column")]
    ColumnFull(usize),
}

/// A layout on an `N × N` board. `pieces[0]` is the red car; the others follow in reading
/// order of their first cells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    n: usize,
    pieces: Vec<Piece>,
}

impl Board {
    /// A layout from its pieces, checked against the rules (red car, full rows and columns).
    pub fn new(n: usize, mut pieces: Vec<Piece>) -> Result<Board, BoardError> {
        if !SIZES.contains(&n) {
            return Err(BoardError::Length(n * n));
        }
        let red = pieces.first().copied().ok_or(BoardError::NoRedCar)?;
        if red.kind != Kind::Horizontal || red.len != 2 || red.cell as usize / n != EXIT_ROW {
            return Err(BoardError::RedCar);
        }
        pieces[1..].sort_by_key(|p| p.cell);
        let mut row_cover = vec![0usize; n];
        let mut col_cover = vec![0usize; n];
        for (i, p) in pieces.iter().enumerate() {
            let (r, c) = (p.cell as usize / n, p.cell as usize % n);
            match p.kind {
                Kind::Vertical => col_cover[c] += p.len as usize,
                _ => row_cover[r] += p.len as usize,
            }
            if i > 0 && r == EXIT_ROW {
                let left_wall = p.kind == Kind::Wall && p.cell < red.cell;
                if p.kind != Kind::Vertical && !left_wall {
                    return Err(BoardError::ExitRow(r));
                }
            }
        }
        if let Some(r) = row_cover.iter().position(|&k| k >= n) {
            return Err(BoardError::RowFull(r));
        }
        if let Some(c) = col_cover.iter().position(|&k| k >= n) {
            return Err(BoardError::ColumnFull(c));
        }
        Ok(Board { n, pieces })
    }

    /// Reads Fogleman's notation: `N·N` characters row-major, `.` or `o` empty, `x` a wall,
    /// `A` the red car, other letters the other pieces (line breaks and spaces ignored).
    pub fn parse(text: &str) -> Result<Board, BoardError> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        let n = SIZES
            .clone()
            .find(|&n| n * n == chars.len())
            .ok_or(BoardError::Length(chars.len()))?;
        let mut cells: Vec<(char, Vec<usize>)> = Vec::new();
        let mut pieces = Vec::new();
        for (i, &ch) in chars.iter().enumerate() {
            match ch {
                '.' | 'o' => {}
                'x' => pieces.push(Piece {
                    kind: Kind::Wall,
                    cell: i as u8,
                    len: 1,
                }),
                c if c.is_ascii_uppercase() => match cells.iter_mut().find(|(l, _)| *l == c) {
                    Some((_, v)) => v.push(i),
                    None => cells.push((c, vec![i])),
                },
                _ => {
                    return Err(BoardError::Character {
                        row: i / n,
                        column: i % n,
                        ch,
                    });
                }
            }
        }
        let red = cells
            .iter()
            .position(|(l, _)| *l == RED)
            .ok_or(BoardError::NoRedCar)?;
        let red = cells.remove(red);
        let mut out = vec![line(n, &red)?];
        if out[0].kind != Kind::Horizontal {
            return Err(BoardError::RedCar);
        }
        for piece in &cells {
            out.push(line(n, piece)?);
        }
        // Walls were pushed first: keep the red car at the front.
        let mut all = out;
        all.extend(pieces);
        Board::new(n, all)
    }

    /// The board size `N`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The red car, then the other pieces in reading order of their first cells.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// Cells covered by horizontal pieces (the red car too).
    pub fn horizontal_mask(&self) -> u64 {
        self.mask_of(Kind::Horizontal)
    }

    /// Cells covered by vertical pieces.
    pub fn vertical_mask(&self) -> u64 {
        self.mask_of(Kind::Vertical)
    }

    /// The walls' cells.
    pub fn wall_mask(&self) -> u64 {
        self.mask_of(Kind::Wall)
    }

    fn mask_of(&self, kind: Kind) -> u64 {
        self.pieces
            .iter()
            .filter(|p| p.kind == kind)
            .fold(0, |m, p| m | p.mask(self.n))
    }

    /// Number of walls.
    pub fn walls(&self) -> usize {
        self.pieces.iter().filter(|p| p.kind == Kind::Wall).count()
    }

    /// The red car on the two exit cells.
    pub fn is_goal(&self) -> bool {
        self.pieces[0].cell as usize == EXIT_ROW * self.n + self.n - 2
    }

    /// A lower bound on the moves to a goal: none at a goal, else the red car's move and one
    /// move of every piece on a cell between it and the exit (each must leave it).
    pub fn lower_bound(&self) -> u32 {
        if self.is_goal() {
            return 0;
        }
        let n = self.n;
        let red = self.pieces[0].cell as usize;
        let ahead = (red + 2..(EXIT_ROW + 1) * n).fold(0u64, |m, c| m | 1u64 << c);
        let blockers = self.pieces[1..]
            .iter()
            .filter(|p| p.mask(n) & ahead != 0)
            .count();
        1 + blockers as u32
    }

    /// Whether no other moving piece's line (its row if horizontal, its column if vertical)
    /// crosses a cell of piece `i`: then no piece ever enters those cells, with piece `i` there
    /// or not, and without it the same moves are left (so the layout needs as many).
    pub fn crossed_by_none(&self, i: usize) -> bool {
        let n = self.n;
        let cells = self.pieces[i].mask(n);
        let row = (1u64 << n) - 1;
        let column = (0..n).fold(0u64, |m, r| m | 1u64 << (r * n));
        self.pieces.iter().enumerate().all(|(j, p)| {
            let line = match p.kind {
                Kind::Wall => return true,
                Kind::Horizontal => row << (p.cell as usize / n * n),
                Kind::Vertical => column << (p.cell as usize % n),
            };
            j == i || line & cells == 0
        })
    }

    /// The same layout without piece `i` (not the red car).
    pub fn without(&self, i: usize) -> Board {
        assert!(i > 0, "the red car stays");
        let mut pieces = self.pieces.clone();
        pieces.remove(i);
        Board { n: self.n, pieces }
    }

    /// Every layout one move away: a piece slid any number of cells along its line, with the
    /// piece's index.
    pub fn moves(&self) -> Vec<(usize, Board)> {
        let n = self.n;
        let occupied = self.pieces.iter().fold(0, |m, p| m | p.mask(n));
        let mut out = Vec::new();
        for (i, p) in self.pieces.iter().enumerate() {
            if p.kind == Kind::Wall {
                continue;
            }
            let own = p.mask(n);
            let others = occupied & !own;
            let (s, len) = (p.stride(n) as isize, p.len as isize);
            let (r, c) = (p.cell as isize / n as isize, p.cell as isize % n as isize);
            for dir in [-1isize, 1] {
                for k in 1.. {
                    let shift = dir * k;
                    let (first, last) = match p.kind {
                        Kind::Horizontal => (c + shift, c + shift + len - 1),
                        _ => (r + shift, r + shift + len - 1),
                    };
                    if first < 0 || last >= n as isize {
                        break;
                    }
                    let cell = p.cell as isize + shift * s;
                    let moved = Piece {
                        cell: cell as u8,
                        ..*p
                    };
                    if moved.mask(n) & others != 0 {
                        break;
                    }
                    let mut pieces = self.pieces.clone();
                    pieces[i] = moved;
                    out.push((i, Board { n, pieces }));
                }
            }
        }
        out
    }

    /// The layout upside down (rows `r` and `N − 1 − r` swapped): a layout again when the exit
    /// row is the middle one (`N = 5`).
    pub fn mirrored(&self) -> Board {
        let n = self.n;
        assert_eq!(
            n - 1 - EXIT_ROW,
            EXIT_ROW,
            "only a board whose exit row is the middle one"
        );
        let pieces = self
            .pieces
            .iter()
            .map(|p| {
                let (r, c) = (p.cell as usize / n, p.cell as usize % n);
                let bottom = if p.kind == Kind::Vertical {
                    r + p.len as usize - 1
                } else {
                    r
                };
                Piece {
                    cell: ((n - 1 - bottom) * n + c) as u8,
                    ..*p
                }
            })
            .collect();
        Board::new(n, pieces).expect("a mirrored layout follows the rules")
    }

    /// The layout as a sliding-block puzzle file (`huarong solve --puzzle`, `serve`): walls
    /// `#`, the red car `A` distinct and bound for the exit cells, lengthwise motion.
    pub fn puzzle_file(&self, name: &str) -> String {
        let n = self.n;
        let rows = |text: String| -> String {
            let t: Vec<char> = text
                .chars()
                .map(|c| if c == 'x' { '#' } else { c })
                .collect();
            t.chunks(n)
                .map(|r| r.iter().collect::<String>() + "\n")
                .collect()
        };
        let mut goal = vec!['.'; n * n];
        goal[EXIT_ROW * n + n - 2] = RED;
        goal[EXIT_ROW * n + n - 1] = RED;
        format!(
            "# Rush Hour {board} (Fogleman's notation)\nname = {name:?}\nboard = \"\"\"\n{}\"\"\"\n\
             goal = \"\"\"\n{}\"\"\"\nmoves = \"lengthwise\"\ndistinct = \"A\"\n",
            rows(self.to_string()),
            rows(goal.into_iter().collect()),
            board = self,
        )
    }

    /// Fewest moves to a goal if it is at most `limit`; `None` if more (or unsolvable).
    /// Breadth-first over the layouts, each one key: the moving pieces' first cells, 6 bits
    /// each (at most 18 pieces move on 36 cells), the red car lowest; a move rewrites one field.
    /// A layout whose lower bound added to its depth passes the limit is not kept: no goal
    /// within the limit lies beyond it. The bound is [`Board::lower_bound`]'s (the red car's
    /// move and one per piece ahead of it) and one more when a piece ahead of the red car is
    /// held in the exit row both ways (each way needs a cell another piece or a wall covers,
    /// or lies past the edge): that other piece, never one ahead, moves first.
    pub fn moves_within(&self, limit: u32) -> Option<u32> {
        if self.is_goal() {
            return Some(0);
        }
        let n = self.n;
        let goal = (EXIT_ROW * n + n - 2) as isize;
        let walls = self.wall_mask();
        // The red car is the first piece, so the first mover.
        let movers: Vec<&Piece> = self
            .pieces
            .iter()
            .filter(|p| p.kind != Kind::Wall)
            .collect();
        // A piece's cells at cell c: its shape at cell 0 shifted (places are checked to fit).
        let shape: Vec<u64> = movers
            .iter()
            .map(|p| Piece { cell: 0, ..**p }.mask(n))
            .collect();
        let start = movers
            .iter()
            .enumerate()
            .fold(0u128, |key, (i, p)| key | u128::from(p.cell) << (6 * i));
        // The exit row's cells, and how many of some cells are in it, by a table (the build
        // targets no particular processor, so `count_ones` is no single instruction).
        let exit_row = ((1u64 << n) - 1) << (EXIT_ROW * n);
        let covered = |cells: u64| ONES[(cells >> (EXIT_ROW * n)) as usize & 63] as u32;
        // Per mover: its stride and length, and per first cell its place along its line.
        let (strides, lens): (Vec<isize>, Vec<usize>) = movers
            .iter()
            .map(|p| (p.stride(n) as isize, p.len as usize))
            .unzip();
        let place: [[u8; 64]; 2] = [
            std::array::from_fn(|at| (at % n) as u8),
            std::array::from_fn(|at| (at / n) as u8),
        ];
        // Per vertical piece and first cell: the cells it must pass over to leave the exit row
        // upwards and downwards (`IMPOSSIBLE` where the board's edge stops it).
        let escapes: Vec<(usize, Vec<(u64, u64)>)> = movers
            .iter()
            .enumerate()
            .filter(|(_, p)| p.kind == Kind::Vertical)
            .map(|(i, p)| {
                let len = p.len as usize;
                let ways = (0..n * n)
                    .map(|at| {
                        let (top, c) = (at / n, at % n);
                        let column = |rows: std::ops::Range<usize>| {
                            rows.fold(0u64, |m, r| m | 1u64 << (r * n + c))
                        };
                        // Up: all of it above the exit row (its top at EXIT_ROW - len).
                        let up = if len <= EXIT_ROW && top <= EXIT_ROW {
                            column(EXIT_ROW - len..top)
                        } else {
                            IMPOSSIBLE
                        };
                        // Down: all of it below (its top at EXIT_ROW + 1).
                        let down = if EXIT_ROW + len < n && top + len <= n {
                            column(top + len..EXIT_ROW + 1 + len)
                        } else {
                            IMPOSSIBLE
                        };
                        (up, down)
                    })
                    .collect();
                (i, ways)
            })
            .collect();
        // Whether a piece ahead of the red car (at `red`) is held in the exit row both ways by
        // another piece (or a wall or the edge): that piece too must move first, one move more
        // than the red car's and one per piece ahead.
        let held = |key: u128, occ: u64, ahead: u64| {
            escapes.iter().any(|(i, ways)| {
                let at = (key >> (6 * i)) as usize & 63;
                let cells = shape[*i] << at;
                let (up, down) = ways[at];
                let occ = occ | IMPOSSIBLE;
                cells & ahead != 0 && up & occ != 0 && down & occ != 0
            })
        };
        let occupied_at = |key: u128| {
            (0..movers.len()).fold(walls, |m, i| {
                m | shape[i] << ((key >> (6 * i)) as usize & 63)
            })
        };
        // The layout's own bound, as its moves' are bounded below.
        let occupied = occupied_at(start);
        let red = self.pieces[0].cell as usize;
        let ahead = exit_row & !((2u64 << (red + 1)) - 1);
        let bound = 1 + covered(occupied & ahead) + held(start, occupied, ahead) as u32;
        if bound > limit {
            return None;
        }
        SEARCH.with_borrow_mut(|search| {
            let SearchScratch { seen, level, next } = search;
            seen.clear();
            level.clear();
            next.clear();
            seen.insert(start);
            level.push((start, occupied, u8::MAX));
            for d in 0..limit {
                for &(key, occupied, last) in level.iter() {
                    for (i, p) in movers.iter().enumerate() {
                        // The piece that moved last moving again reaches only layouts one
                        // move from the layout before (the cells it passes are free there
                        // too), all seen or pruned already.
                        if i == last as usize {
                            continue;
                        }
                        let at = (key >> (6 * i)) as usize & 63;
                        let others = occupied & !(shape[i] << at);
                        let (s, len) = (strides[i], lens[i]);
                        let vertical = (p.kind != Kind::Horizontal) as usize;
                        let pos = place[vertical][at] as usize;
                        let field = !(63u128 << (6 * i));
                        // The red car's cell after the move, for the lower bound.
                        let red = if i == 0 { 0 } else { key as usize & 63 };
                        // Towards the top or left, then towards the bottom or right.
                        for step in [-1isize, 1] {
                            let mut q = pos as isize;
                            loop {
                                q += step;
                                if q < 0 || q as usize + len > n {
                                    break;
                                }
                                let cell = at as isize + (q - pos as isize) * s;
                                let placed = shape[i] << cell;
                                if placed & others != 0 {
                                    break;
                                }
                                if i == 0 && cell == goal {
                                    return Some(d + 1);
                                }
                                // Pruned when its lower bound (the red car's move, one for
                                // each piece ahead of it and one if one of those is held)
                                // passes the limit.
                                let occ = others | placed;
                                let red = if i == 0 { cell as usize } else { red };
                                let ahead = exit_row & !((2u64 << (red + 1)) - 1);
                                let bound = d + 2 + covered(occ & ahead);
                                if bound > limit {
                                    continue;
                                }
                                let moved = key & field | (cell as u128) << (6 * i);
                                if bound == limit && held(moved, occ, ahead) {
                                    continue;
                                }
                                if seen.insert(moved) {
                                    next.push((moved, occ, i as u8));
                                }
                            }
                        }
                    }
                }
                if next.is_empty() {
                    return None;
                }
                std::mem::swap(level, next);
                next.clear();
            }
            None
        })
    }
}

/// Set bits of every 6-bit number.
const ONES: [u8; 64] = {
    let mut ones = [0u8; 64];
    let mut x = 1;
    while x < 64 {
        ones[x] = ones[x >> 1] + (x & 1) as u8;
        x += 1;
    }
    ones
};

/// A cell mask no board has (bit 63 is beyond every board's cells): a way that is always
/// blocked.
const IMPOSSIBLE: u64 = 1 << 63;

/// A search's layouts seen and its two levels (key, occupied cells and the piece that moved
/// last), kept from search to search on each thread: most searches are small, and the census
/// makes millions of them.
#[derive(Debug, Default)]
struct SearchScratch {
    seen: HashSet<u128, Mix>,
    level: Vec<(u128, u64, u8)>,
    next: Vec<(u128, u64, u8)>,
}

thread_local! {
    static SEARCH: std::cell::RefCell<SearchScratch> = std::cell::RefCell::default();
}

/// A multiply-and-rotate hasher for the solver's small keys.
#[derive(Debug, Clone, Copy, Default)]
struct Mix;

impl std::hash::BuildHasher for Mix {
    type Hasher = MixHasher;
    fn build_hasher(&self) -> MixHasher {
        MixHasher(0)
    }
}

#[derive(Debug)]
struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0 ^ self.0 >> 32
    }
    fn write_u128(&mut self, key: u128) {
        let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        self.0 = (self.0.rotate_left(23) ^ folded).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(23) ^ u64::from_le_bytes(b))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
}

/// Fogleman's notation with the letters given in reading order: `A` the red car, `B`, `C`, …
/// the other pieces by their first cells, `x` walls, `.` empty.
impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cells = vec!['.'; self.n * self.n];
        let mut next = b'B';
        // Letters by first cell, whatever order moves left the pieces in.
        let mut order: Vec<usize> = (0..self.pieces.len()).collect();
        order[1..].sort_by_key(|&i| self.pieces[i].cell);
        for i in order {
            let p = &self.pieces[i];
            let ch = match p.kind {
                Kind::Wall => 'x',
                _ if i == 0 => RED,
                _ => {
                    next += 1;
                    (next - 1) as char
                }
            };
            let mut m = p.mask(self.n);
            while m != 0 {
                cells[m.trailing_zeros() as usize] = ch;
                m &= m - 1;
            }
        }
        f.write_str(&cells.into_iter().collect::<String>())
    }
}

/// The piece a letter's cells make.
fn line(n: usize, (letter, cells): &(char, Vec<usize>)) -> Result<Piece, BoardError> {
    let bad = || BoardError::Shape(*letter);
    if !(2..=3).contains(&cells.len()) {
        return Err(bad());
    }
    let first = cells[0];
    let horizontal = cells
        .iter()
        .enumerate()
        .all(|(k, &c)| c == first + k && c / n == first / n);
    let vertical = cells.iter().enumerate().all(|(k, &c)| c == first + k * n);
    let kind = match (horizontal, vertical) {
        (true, _) => Kind::Horizontal,
        (_, true) => Kind::Vertical,
        _ => return Err(bad()),
    };
    Ok(Piece {
        kind,
        cell: first as u8,
        len: cells.len() as u8,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fogleman_notation_round_trips_in_reading_order() {
        // His letters for the 51-move puzzle; ours are the same (reading order).
        let text = "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.";
        let board = Board::parse(text).unwrap();
        assert_eq!(board.to_string(), text);
        assert_eq!(board.n(), 6);
        assert_eq!(board.pieces().len(), 13);
        // His letters out of reading order and `o` for empty: renamed.
        let b = Board::parse("IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM").unwrap();
        assert_eq!(b.to_string(), "BCCx..B..DEEFAAD..F.GHHIJJG..IKKLLLI");
        assert_eq!(b.walls(), 1);
    }

    #[test]
    fn bad_boards_are_named() {
        assert_eq!(Board::parse("...."), Err(BoardError::Length(4)));
        assert_eq!(
            Board::parse("....\n....\nAA?.\n...."),
            Err(BoardError::Character {
                row: 2,
                column: 2,
                ch: '?'
            })
        );
        assert_eq!(
            Board::parse("....\n....\n....\n...."),
            Err(BoardError::NoRedCar)
        );
        assert_eq!(
            Board::parse("AA..\n....\n....\n...."),
            Err(BoardError::RedCar)
        );
        assert_eq!(
            Board::parse("B...\nB...\nAA.x\n...."),
            Err(BoardError::ExitRow(2))
        );
        assert_eq!(
            Board::parse("BBCC\n....\n.AA.\n...."),
            Err(BoardError::RowFull(0))
        );
        assert_eq!(
            Board::parse("B...\nB...\nCAA.\nC..."),
            Err(BoardError::ColumnFull(0))
        );
        assert_eq!(
            Board::parse("B.B.\n....\n.AA.\n...."),
            Err(BoardError::Shape('B'))
        );
    }

    #[test]
    fn moves_slide_one_piece_any_distance() {
        // A truck across the exit row that cannot leave it.
        let b = Board::parse("....\n..B.\nAAB.\n..B.").unwrap();
        let moved: Vec<String> = b.moves().iter().map(|(_, m)| m.to_string()).collect();
        assert_eq!(moved, ["..B.\n..B.\nAAB.\n....".replace('\n', "")]);
        assert_eq!(b.moves_within(10), None);
        let c = Board::parse("..B.\n..B.\nAA..\n....").unwrap();
        assert_eq!(c.moves_within(10), Some(1));
        let d = Board::parse("....\n..B.\nAAB.\n....").unwrap();
        assert_eq!(d.moves_within(10), Some(2));
        assert_eq!(d.moves_within(1), None);
    }

    #[test]
    fn a_piece_no_line_crosses_is_never_in_the_way() {
        // The wall (piece 1) and the car C (piece 3) share no line with a moving piece; C's
        // row crosses the truck B (piece 2), B's column the car D (piece 4).
        let b = Board::parse("x..B\nCC.B\nAA.B\n..DD").unwrap();
        let kinds: Vec<Kind> = b.pieces().iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::Horizontal,
                Kind::Wall,
                Kind::Vertical,
                Kind::Horizontal,
                Kind::Horizontal
            ]
        );
        let crossed: Vec<bool> = (1..5).map(|i| b.crossed_by_none(i)).collect();
        assert_eq!(crossed, [true, false, true, false]);
        // Over the 4 x 4 layouts with up to two walls, removing such a piece leaves the fewest
        // moves as they were (or the layout as unsolvable).
        let mut checked = 0;
        for b in crate::reference::all_layouts(4, 2) {
            for i in (1..b.pieces().len()).filter(|&i| b.crossed_by_none(i)) {
                assert_eq!(b.without(i).moves_within(40), b.moves_within(40), "{b} {i}");
                checked += 1;
            }
        }
        assert!(checked > 100_000, "{checked} pieces on no other line");
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_moves() {
        // Along every layout within three moves of two database puzzles (Fogleman's rush.txt:
        // 51 and 60 moves), the bound is at most the fewest moves, and a blocker counts.
        for text in [
            "xCCoLMooJoLMAAJoLNHIDDDNHIoKEExooKGG",
            "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
        ] {
            let start = Board::parse(text).unwrap();
            let mut level = vec![start];
            for _ in 0..3 {
                let mut next = Vec::new();
                for b in &level {
                    let moves = b
                        .moves_within(70)
                        .expect("a database puzzle's cluster is solvable");
                    assert!(
                        b.lower_bound() <= moves,
                        "{b}: {} > {moves}",
                        b.lower_bound()
                    );
                    next.extend(b.moves().into_iter().map(|(_, m)| m));
                }
                level = next;
            }
        }
        let d = Board::parse("....\n..B.\nAAB.\n....").unwrap();
        assert_eq!((d.lower_bound(), d.moves_within(10)), (2, Some(2)));
        let goal = Board::parse("..B.\n..B.\n..AA\n....").unwrap();
        assert_eq!(goal.lower_bound(), 0);
    }
}
