//! OmniGravity (UVALive 4856 / UVa 12282): an 8×8 board with obstacles and four labelled 2×2
//! pieces `A B C D`. Enabling gravity in one of four directions slides every piece as far as it
//! goes (board edge, obstacle or another piece), resolved to a fixed point. A move is one
//! gravity; the graph is **directed** (gravity does not undo itself).
//!
//! A state is the four pieces' top-left cells (`8·r + c`, 0-based), 6 bits each:
//! `A | B << 6 | C << 12 | D << 18`. The obstacles belong to the puzzle, not the state.
//!
//! Pure: no IO. [`judge`] parses and answers the judge's input text; [`reference`] is a plain,
//! independent implementation for tests and benchmarks.

pub mod driver;
pub mod judge;
pub mod reference;

pub use huarong_core::SplitMix;
use huarong_core::{DistanceSources, Fingerprint, Puzzle};

/// Version of the state encoding (part of every fingerprint): bump it when codes change meaning.
const ENCODING_VERSION: u64 = 1;

pub const SIDE: usize = 8;
pub const PIECES: usize = 4;
/// Piece letters in state order.
pub const LETTERS: [u8; PIECES] = *b"ABCD";

/// Gravity directions, in successor order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gravity {
    Up,
    Down,
    Left,
    Right,
}

impl Gravity {
    pub const ALL: [Gravity; 4] = [Gravity::Up, Gravity::Down, Gravity::Left, Gravity::Right];
}

/// The cells of a 2×2 piece whose top-left cell is `p`.
#[inline]
fn piece_mask(p: u8) -> u64 {
    0x303u64 << p
}

/// The top-left cells of a state.
#[inline]
pub fn decode(code: u64) -> [u8; PIECES] {
    std::array::from_fn(|k| (code >> (6 * k) & 63) as u8)
}

#[inline]
pub fn encode(pieces: [u8; PIECES]) -> u64 {
    pieces
        .iter()
        .enumerate()
        .fold(0, |acc, (k, &p)| acc | (p as u64) << (6 * k))
}

/// A board: obstacles and the start position of the pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    /// Obstacle cells, bit `8·r + c`.
    pub obstacles: u64,
    /// Top-left cell of each piece `A B C D`.
    pub pieces: [u8; PIECES],
}

/// A board that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("expected 8 rows, found {0}")]
    Rows(usize),
    #[error("row {row}: expected 8 cells, found {found}")]
    RowLength { row: usize, found: usize },
    #[error("row {row}, column {column}: unknown character {ch:?} (use A B C D . #)")]
    Char { row: usize, column: usize, ch: char },
    #[error("piece {piece}: {cells} cells, a piece is a 2x2 square of 4")]
    Count { piece: char, cells: usize },
    #[error(
        "piece {piece}: its cells do not form a 2x2 square (top-left at row {row}, column {column})"
    )]
    Shape {
        piece: char,
        row: usize,
        column: usize,
    },
}

impl Board {
    /// Reads 8 rows of 8 cells (`A B C D . #`), given as separate strings.
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Result<Board, BoardError> {
        if rows.len() != SIDE {
            return Err(BoardError::Rows(rows.len()));
        }
        let mut obstacles = 0u64;
        let mut cells: [u64; PIECES] = [0; PIECES];
        for (r, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.as_ref().chars().collect();
            if chars.len() != SIDE {
                return Err(BoardError::RowLength {
                    row: r + 1,
                    found: chars.len(),
                });
            }
            for (c, &ch) in chars.iter().enumerate() {
                let bit = 1u64 << (r * SIDE + c);
                match ch {
                    '.' => {}
                    '#' => obstacles |= bit,
                    'A'..='D' => cells[ch as usize - 'A' as usize] |= bit,
                    _ => {
                        return Err(BoardError::Char {
                            row: r + 1,
                            column: c + 1,
                            ch,
                        });
                    }
                }
            }
        }
        let mut pieces = [0u8; PIECES];
        for k in 0..PIECES {
            let piece = LETTERS[k] as char;
            let n = cells[k].count_ones() as usize;
            if n != 4 {
                return Err(BoardError::Count { piece, cells: n });
            }
            let p = cells[k].trailing_zeros() as u8;
            let (row, column) = (p as usize / SIDE + 1, p as usize % SIDE + 1);
            if row == SIDE || column == SIDE || cells[k] != piece_mask(p) {
                return Err(BoardError::Shape { piece, row, column });
            }
            pieces[k] = p;
        }
        Ok(Board { obstacles, pieces })
    }

    /// Reads a board written as 8 rows separated by `/` or whitespace.
    pub fn parse(text: &str) -> Result<Board, BoardError> {
        let rows: Vec<&str> = text
            .split(|c: char| c == '/' || c.is_whitespace())
            .filter(|r| !r.is_empty())
            .collect();
        Board::from_rows(&rows)
    }

    /// The start state's code.
    pub fn start(&self) -> u64 {
        encode(self.pieces)
    }

    /// The state after enabling `gravity` in state `code`, resolved to a fixed point.
    pub fn gravity(&self, code: u64, gravity: Gravity) -> u64 {
        let mut p = decode(code);
        // Pieces nearest the wall the gravity pulls toward move first, so a piece never waits
        // on one that has not moved yet; the outer loop checks the fixed point anyway.
        let key = |q: u8| -> i32 {
            let (r, c) = ((q / 8) as i32, (q % 8) as i32);
            match gravity {
                Gravity::Up => r,
                Gravity::Down => -r,
                Gravity::Left => c,
                Gravity::Right => -c,
            }
        };
        let mut order = [0usize, 1, 2, 3];
        order.sort_by_key(|&k| key(p[k]));
        let mut occupied = self.obstacles;
        for &q in &p {
            occupied |= piece_mask(q);
        }
        loop {
            let mut moved = false;
            for &k in &order {
                occupied &= !piece_mask(p[k]);
                while let Some(q) = step(p[k], gravity) {
                    if piece_mask(q) & occupied != 0 {
                        break;
                    }
                    p[k] = q;
                    moved = true;
                }
                occupied |= piece_mask(p[k]);
            }
            if !moved {
                return encode(p);
            }
        }
    }

    /// Renders a state as 8 rows joined by `/`.
    pub fn render(&self, code: u64) -> String {
        let mut grid = [[b'.'; SIDE]; SIDE];
        for (r, row) in grid.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                if self.obstacles >> (r * SIDE + c) & 1 != 0 {
                    *cell = b'#';
                }
            }
        }
        for (k, &p) in decode(code).iter().enumerate() {
            let (r, c) = (p as usize / SIDE, p as usize % SIDE);
            for (dr, dc) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                grid[r + dr][c + dc] = LETTERS[k];
            }
        }
        grid.iter()
            .map(|r| String::from_utf8(r.to_vec()).expect("ASCII"))
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The judge's answer: how many distinct static states are reachable by enabling gravity at
    /// least once (the start counts only if some gravity produces it).
    pub fn count_reachable(&self) -> u64 {
        let mut seen = std::collections::HashSet::new();
        let mut queue = vec![self.start()];
        let mut count = 0;
        while let Some(s) = queue.pop() {
            for g in Gravity::ALL {
                let t = self.gravity(s, g);
                if seen.insert(t) {
                    count += 1;
                    queue.push(t);
                }
            }
        }
        count
    }
}

/// The top-left cell one step toward `gravity`, if the piece stays on the board.
#[inline]
fn step(p: u8, gravity: Gravity) -> Option<u8> {
    let (r, c) = (p / 8, p % 8);
    match gravity {
        Gravity::Up => (r > 0).then(|| p - 8),
        Gravity::Down => (r < 6).then(|| p + 8),
        Gravity::Left => (c > 0).then(|| p - 1),
        Gravity::Right => (c < 6).then(|| p + 1),
    }
}

/// One board's state space: everything reachable from its start.
#[derive(Debug, Clone)]
pub struct OmniGravity {
    name: String,
    board: Board,
}

impl OmniGravity {
    pub fn new(name: impl Into<String>, board: Board) -> Self {
        OmniGravity {
            name: name.into(),
            board,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Whether some gravity leaves `code` where it is (a move to itself, which the graph, having
    /// no self-loops, does not show).
    pub fn is_fixed_point(&self, code: u64) -> bool {
        Gravity::ALL
            .iter()
            .any(|&g| self.board.gravity(code, g) == code)
    }
}

impl Puzzle for OmniGravity {
    fn name(&self) -> &'static str {
        "omnigravity"
    }

    fn space_id(&self) -> String {
        self.name.clone()
    }

    /// The obstacles decide the moves (the start is fingerprinted by the enumerate stage).
    fn parameters(&self, key: &mut Fingerprint) {
        key.add_u64(ENCODING_VERSION).add_u64(self.board.obstacles);
    }

    fn metrics(&self) -> &'static [&'static str] {
        &["gravity"]
    }

    fn directed(&self) -> bool {
        true
    }

    fn starts(&self) -> Vec<u64> {
        vec![self.board.start()]
    }

    /// The states the four gravities lead to, except the state itself.
    fn successors(&self, code: u64, _metric: usize, out: &mut Vec<u64>) {
        for g in Gravity::ALL {
            let t = self.board.gravity(code, g);
            if t != code {
                out.push(t);
            }
        }
    }

    /// OmniGravity has no goal; its question is what is reachable.
    fn is_goal(&self, _code: u64) -> bool {
        false
    }

    fn render(&self, code: u64) -> String {
        self.board.render(code)
    }

    fn parse(&self, text: &str) -> Result<u64, huarong_core::InputError> {
        let board = Board::parse(text).map_err(|e| e.to_string())?;
        if board.obstacles != self.board.obstacles {
            return Err("the obstacles differ from this space's board".into());
        }
        Ok(board.start())
    }

    fn distance_sources(&self) -> DistanceSources {
        DistanceSources::Starts
    }
}

/// The two sample boards of the judge's statement.
pub const SAMPLES: [(&str, &str); 2] = [
    (
        "sample-1",
        "....AA../....AA#./...#..../.CCBB.../.CCBB#../#...##../.#DD#.../..DD.##.",
    ),
    (
        "sample-2",
        "AABBCCDD/AABBCCDD/......../......../......../......../......../........",
    ),
];

/// A deterministic pseudo-random board: each cell an obstacle with probability
/// `obstacle_percent`%, then the four pieces placed on free 2×2 squares.
pub fn random_board(seed: u64, obstacle_percent: u64) -> Board {
    let mut rng = SplitMix(seed);
    loop {
        let mut obstacles = 0u64;
        for cell in 0..64 {
            if rng.next_u64() % 100 < obstacle_percent {
                obstacles |= 1 << cell;
            }
        }
        let mut occupied = obstacles;
        let mut pieces = [0u8; PIECES];
        let mut placed = 0;
        for _ in 0..200 {
            let (r, c) = ((rng.next_u64() % 7) as u8, (rng.next_u64() % 7) as u8);
            let p = r * 8 + c;
            if piece_mask(p) & occupied == 0 {
                occupied |= piece_mask(p);
                pieces[placed] = p;
                placed += 1;
                if placed == PIECES {
                    return Board { obstacles, pieces };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples() {
        let b = Board::parse(SAMPLES[0].1).unwrap();
        assert_eq!(b.render(b.start()), SAMPLES[0].1);
        assert_eq!(b.count_reachable(), 110);
        let b = Board::parse(SAMPLES[1].1).unwrap();
        assert_eq!(b.count_reachable(), 2);
    }

    #[test]
    fn gravity_on_sample_one() {
        let b = Board::parse(SAMPLES[0].1).unwrap();
        // Every piece is already against an obstacle on its right.
        assert_eq!(b.gravity(b.start(), Gravity::Right), b.start());
        let s = b.gravity(b.start(), Gravity::Down);
        assert_eq!(
            b.render(s),
            "......../....AA#./...#AA../...BB.../.CCBB#../#CC.##../.#DD#.../..DD.##."
        );
    }

    #[test]
    fn board_errors_name_the_problem() {
        let ok = SAMPLES[1].1;
        assert_eq!(
            Board::parse(&ok[..69]),
            Err(BoardError::RowLength { row: 8, found: 6 })
        );
        assert!(matches!(
            Board::parse(&ok.replacen('.', "x", 1)),
            Err(BoardError::Char {
                row: 3,
                column: 1,
                ch: 'x'
            })
        ));
        assert!(matches!(
            Board::parse(&ok.replacen("AA", "A.", 1)),
            Err(BoardError::Count {
                piece: 'A',
                cells: 3
            })
        ));
        assert!(matches!(
            Board::parse("AA.A..../A......./......../......../......../......../BBCCDD../BBCCDD.."),
            Err(BoardError::Shape { piece: 'A', .. })
        ));
        assert_eq!(Board::parse("AABB"), Err(BoardError::Rows(1)));
    }

    #[test]
    fn generated_boards_agree_with_the_reference() {
        let mut solver = judge::Solver::default();
        for seed in 0..300 {
            let b = random_board(seed, seed % 35);
            let text = b.render(b.start());
            assert_eq!(Board::parse(&text), Ok(b));
            let rows: Vec<&str> = text.split('/').collect();
            let expected = reference::count_reachable(&rows);
            assert_eq!(b.count_reachable(), expected, "seed {seed}: {text}");
            assert_eq!(solver.count(&b), expected, "seed {seed}: {text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn gravity_reaches_a_fixed_point(seed in 0u64..1_000_000, density in 0u64..40) {
            let b = random_board(seed, density);
            for g in Gravity::ALL {
                let s = b.gravity(b.start(), g);
                proptest::prop_assert_eq!(b.gravity(s, g), s);
                // Pieces stay on free cells and apart.
                let mut occupied = b.obstacles;
                for p in decode(s) {
                    proptest::prop_assert_eq!(piece_mask(p) & occupied, 0);
                    occupied |= piece_mask(p);
                }
            }
        }
    }
}
