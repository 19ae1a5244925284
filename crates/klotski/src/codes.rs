//! dnomd343/klotski's position codes, the names its users paste around: the **CommonCode** and
//! the **ShortCode** of an (unlabeled) layout.
//!
//! * CommonCode: 36 bits, written as 9 hexadecimal digits (trailing zeros may be dropped). The
//!   top 4 bits are the 2 × 2 block's top-left cell (`4·row + column`, 0–14); then every other
//!   cell in reading order that is empty or starts a piece, 2 bits each from bit 31 down:
//!   `00` empty, `01` horizontal general, `10` vertical general, `11` soldier; the bits after
//!   the last cell are zero. 横刀立马 is `1A9BF0C00`.
//! * ShortCode: the position's index among all [`POSITIONS`] positions of the universe (one
//!   2 × 2 block, at least two empty cells, any generals and soldiers) sorted by CommonCode,
//!   written as 5 digits of [`SHORT_DIGITS`], most significant first. 横刀立马 is `4WVE1`.
//!
//! Our own compact code ([`Board::code`]) has the same layout of bits but numbers the block's
//! cell `3·row + column` and the pieces in another order, so the CommonCode is a relabelling of
//! it. The ShortCode needs the rank among all codes: [`Counts`] holds, for every block cell,
//! how many ways there are to fill the rest of the board from any point of the reading-order
//! walk (a few thousand numbers, computed in microseconds), so a code is ranked or unranked in
//! one walk of at most 18 cells without any table of positions.

use std::sync::LazyLock;

use crate::board::{Board, CELLS, COLS, Kind, Piece};

/// Positions in the universe, as dnomd343/klotski counts them (`SHORT_CODE_LIMIT`).
pub const POSITIONS: u32 = 29_334_498;

/// The ShortCode's 32 digits (no `0`, `I`, `L`, `O`).
pub const SHORT_DIGITS: &[u8; 32] = b"123456789ABCDEFGHJKMNPQRSTUVWXYZ";

/// A code that names no position, or a string that is no code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("CommonCode {0:?}: expected 1 to 9 hexadecimal digits")]
    CommonSyntax(String),
    #[error("CommonCode {code:09X}: {why}")]
    Common { code: u64, why: String },
    #[error("ShortCode {text:?}: {why}")]
    ShortSyntax { text: String, why: String },
    #[error("ShortCode {0}: out of range (the universe has 29,334,498 positions, 0 to 29,334,497)")]
    ShortRange(u32),
}

// The 2-bit symbols of a CommonCode, in their numeric (and sort) order.
const EMPTY: u32 = 0;
const HORIZONTAL: u32 = 1;
const VERTICAL: u32 = 2;
const SOLDIER: u32 = 3;

/// The cells a symbol placed at `addr` covers on a board whose filled cells are `mask`, if it
/// fits.
fn cover(symbol: u32, addr: usize, mask: u32) -> Option<u32> {
    let m = match symbol {
        EMPTY | SOLDIER => 1 << addr,
        HORIZONTAL if addr % COLS != COLS - 1 => 0b11 << addr,
        VERTICAL if addr + COLS < CELLS => (1 | 1 << COLS) << addr,
        _ => return None,
    };
    (m & mask == 0).then_some(m)
}

/// The block's cells for a head (its top-left cell), if the head is a place it fits.
fn block(head: u64) -> Option<u32> {
    let head = head as usize;
    (head < 16 && head % COLS != COLS - 1).then(|| 0b11_0011 << head)
}

/// The first unfilled cell at or after `addr` (`CELLS` when the board is full).
fn next_free(mask: u32, addr: usize) -> usize {
    let rest = !mask & ((1 << CELLS) - 1) & (u32::MAX << addr);
    if rest == 0 {
        CELLS
    } else {
        rest.trailing_zeros() as usize
    }
}

/// For every head, how many ways complete a partly filled board (module docs).
#[derive(Debug)]
pub struct Counts {
    /// `[head][addr][window][spaces]`: the board filled below `addr`, the cells `addr..addr+4`
    /// as `window` (block cells included), `spaces` empty cells so far (2 meaning "2 or more").
    table: Vec<u32>,
    /// Positions with a smaller head, per head (17 entries).
    offsets: [u32; 17],
}

const WINDOW: usize = 16;

impl Counts {
    fn index(head: u64, addr: usize, window: u32, spaces: u32) -> usize {
        ((head as usize * CELLS + addr) * WINDOW + window as usize) * 3 + spaces as usize
    }

    fn build() -> Counts {
        let mut counts = Counts {
            table: vec![u32::MAX; 16 * CELLS * WINDOW * 3],
            offsets: [0; 17],
        };
        for head in 0..16u64 {
            let n = match block(head) {
                Some(b) => counts.fill(head, b, next_free(b, 0), 0),
                None => 0,
            };
            counts.offsets[head as usize + 1] = counts.offsets[head as usize] + n;
        }
        counts
    }

    /// Completions of the board `mask` (filled below `addr`, `addr` free) by memoised recursion.
    fn fill(&mut self, head: u64, mask: u32, addr: usize, spaces: u32) -> u32 {
        if addr >= CELLS {
            return u32::from(spaces >= 2);
        }
        let key = Self::index(head, addr, (mask >> addr) & 0xF, spaces);
        if self.table[key] != u32::MAX {
            return self.table[key];
        }
        let mut n = 0;
        for symbol in EMPTY..=SOLDIER {
            if let Some(m) = cover(symbol, addr, mask) {
                let spaces = (spaces + u32::from(symbol == EMPTY)).min(2);
                n += self.fill(head, mask | m, next_free(mask | m, addr), spaces);
            }
        }
        self.table[key] = n;
        n
    }

    /// Completions after placing nothing more: the memoised value (filled by [`Counts::build`]
    /// for every state a valid walk reaches).
    fn get(&self, head: u64, mask: u32, addr: usize, spaces: u32) -> u32 {
        if addr >= CELLS {
            return u32::from(spaces >= 2);
        }
        self.table[Self::index(head, addr, (mask >> addr) & 0xF, spaces.min(2))]
    }

    /// Positions whose head is `head`.
    pub fn with_head(&self, head: usize) -> u32 {
        self.offsets[head + 1] - self.offsets[head]
    }

    /// All positions (the published [`POSITIONS`], re-derived).
    pub fn total(&self) -> u32 {
        self.offsets[16]
    }
}

static COUNTS: LazyLock<Counts> = LazyLock::new(Counts::build);

/// The completion counts (built on first use).
pub fn counts() -> &'static Counts {
    &COUNTS
}

/// The CommonCode of a board (its labels ignored).
pub fn common_code(board: &Board) -> u64 {
    from_compact(board.code())
}

/// The CommonCode of one of our compact unlabeled codes ([`Board::code`]): the same bits but
/// for the block's cell number and two piece symbols swapped.
pub fn from_compact(ours: u64) -> u64 {
    let cao = ours >> 32;
    let head = (cao / 3) * COLS as u64 + cao % 3;
    // Ours: 0 empty, 1 soldier, 2 vertical, 3 horizontal. Theirs swaps 1 and 3.
    let syms = ours as u32;
    let range = syms ^ ((syms & 0x5555_5555) << 1);
    head << 32 | range as u64
}

/// One walk over a CommonCode: each step's cell, symbol and the board before it.
fn walk(code: u64, mut step: impl FnMut(usize, u32, u32, u32)) -> Result<(), CodeError> {
    let fail = |why: String| CodeError::Common { code, why };
    if code >> 36 != 0 {
        return Err(fail("more than 36 bits".into()));
    }
    let head = code >> 32;
    let mut mask = block(head).ok_or_else(|| {
        fail(format!(
            "the 2x2 block's top-left cell {head} (row {}, column {}) leaves the board",
            head / 4 + 1,
            head % 4 + 1
        ))
    })?;
    let mut range = code as u32;
    let mut spaces = 0;
    let mut addr = next_free(mask, 0);
    while addr < CELLS {
        let symbol = range >> 30;
        let m = cover(symbol, addr, mask).ok_or_else(|| {
            let noun = if symbol == HORIZONTAL {
                Kind::Horizontal.noun()
            } else {
                Kind::Vertical.noun()
            };
            fail(format!(
                "a {noun} at row {}, column {} does not fit",
                addr / COLS + 1,
                addr % COLS + 1
            ))
        })?;
        step(addr, symbol, mask, spaces);
        spaces += u32::from(symbol == EMPTY);
        mask |= m;
        range <<= 2;
        addr = next_free(mask, addr);
    }
    if range != 0 {
        return Err(fail("bits are left after the board is full".into()));
    }
    if spaces < 2 {
        return Err(fail(format!(
            "only {spaces} empty cell(s): a position needs at least 2"
        )));
    }
    Ok(())
}

/// The unlabeled board of a CommonCode, or what is wrong with the code.
pub fn board_of_common(code: u64) -> Result<Board, CodeError> {
    let head = (code >> 32) as u8;
    let mut pieces = vec![Piece {
        kind: Kind::Cao,
        anchor: head,
        label: 0,
    }];
    walk(code, |addr, symbol, _, _| {
        let kind = match symbol {
            HORIZONTAL => Kind::Horizontal,
            VERTICAL => Kind::Vertical,
            SOLDIER => Kind::Soldier,
            _ => return,
        };
        pieces.push(Piece {
            kind,
            anchor: addr as u8,
            label: 0,
        });
    })?;
    Ok(Board::from_pieces(&pieces))
}

/// The ShortCode (rank) of a valid CommonCode.
pub fn short_code(common: u64) -> Result<u32, CodeError> {
    let counts = counts();
    let head = common >> 32;
    let mut rank = counts.offsets.get(head as usize).copied().unwrap_or(0);
    walk(common, |addr, symbol, mask, spaces| {
        for smaller in EMPTY..symbol {
            if let Some(m) = cover(smaller, addr, mask) {
                let spaces = spaces + u32::from(smaller == EMPTY);
                rank += counts.get(head, mask | m, next_free(mask | m, addr), spaces);
            }
        }
    })?;
    Ok(rank)
}

/// The CommonCode of a ShortCode.
pub fn common_of_short(short: u32) -> Result<u64, CodeError> {
    let counts = counts();
    if short >= counts.total() {
        return Err(CodeError::ShortRange(short));
    }
    let head = (0..16)
        .rfind(|&h| counts.offsets[h] <= short && counts.with_head(h) > 0)
        .expect("offsets start at 0");
    let mut rest = short - counts.offsets[head];
    let head = head as u64;
    let mut mask = block(head).expect("a head with positions fits");
    let mut addr = next_free(mask, 0);
    let (mut range, mut shift, mut spaces) = (0u32, 30, 0);
    while addr < CELLS {
        let (symbol, m) = (EMPTY..=SOLDIER)
            .filter_map(|s| cover(s, addr, mask).map(|m| (s, m)))
            .find(|&(s, m)| {
                let n = counts.get(
                    head,
                    mask | m,
                    next_free(mask | m, addr),
                    spaces + u32::from(s == EMPTY),
                );
                if rest < n {
                    true
                } else {
                    rest -= n;
                    false
                }
            })
            .expect("a rank below the total has a completion");
        range |= symbol << shift;
        shift -= 2;
        spaces += u32::from(symbol == EMPTY);
        mask |= m;
        addr = next_free(mask, addr);
    }
    Ok(head << 32 | range as u64)
}

/// A CommonCode as 9 hexadecimal digits; `shorten` drops the trailing zeros.
pub fn format_common(code: u64, shorten: bool) -> String {
    let full = format!("{code:09X}");
    if !shorten || code == 0 {
        return full;
    }
    full.trim_end_matches('0').to_owned()
}

/// Reads 1 to 9 hexadecimal digits (either case) as a CommonCode, missing digits zero.
pub fn parse_common(text: &str) -> Result<u64, CodeError> {
    let ok = (1..=9).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit());
    if !ok {
        return Err(CodeError::CommonSyntax(text.to_owned()));
    }
    let value = u64::from_str_radix(text, 16).expect("hex digits");
    Ok(value << (4 * (9 - text.len())))
}

/// A ShortCode as its 5 characters.
pub fn format_short(short: u32) -> String {
    let mut out = [b'1'; 5];
    let mut n = short;
    for c in out.iter_mut().rev() {
        *c = SHORT_DIGITS[(n % 32) as usize];
        n /= 32;
    }
    String::from_utf8(out.to_vec()).expect("ASCII")
}

/// Reads 5 ShortCode characters (either case).
pub fn parse_short(text: &str) -> Result<u32, CodeError> {
    let fail = |why: String| CodeError::ShortSyntax {
        text: text.to_owned(),
        why,
    };
    if text.chars().count() != 5 {
        return Err(fail("expected 5 characters".into()));
    }
    let mut n = 0u32;
    for (i, ch) in text.chars().enumerate() {
        let up = ch.to_ascii_uppercase() as u32;
        let digit = SHORT_DIGITS
            .iter()
            .position(|&d| d as u32 == up)
            .ok_or_else(|| {
                fail(format!(
                    "character {} ({ch:?}) is not one of 123456789ABCDEFGHJKMNPQRSTUVWXYZ",
                    i + 1
                ))
            })?;
        n = n * 32 + digit as u32;
    }
    if n >= POSITIONS {
        return Err(CodeError::ShortRange(n));
    }
    Ok(n)
}

/// A code as a position's text may give one: exactly 5 characters of the ShortCode alphabet
/// is a ShortCode; else 1 to 9 hexadecimal digits is a CommonCode (so a CommonCode whose
/// shortened form has 5 digits is written with a trailing `0`, as in `1A9BF0`); else 5
/// letters and digits are a ShortCode with a wrong character (the error names it); `None` for
/// anything else (a layout).
pub fn read(text: &str) -> Option<Result<Board, CodeError>> {
    let text = text.trim();
    let short_shaped = text.len() == 5
        && text
            .bytes()
            .all(|b| SHORT_DIGITS.contains(&b.to_ascii_uppercase()));
    if short_shaped {
        return Some(
            parse_short(text)
                .and_then(common_of_short)
                .and_then(board_of_common),
        );
    }
    let hex_shaped = (1..=9).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit());
    if hex_shaped {
        return Some(parse_common(text).and_then(board_of_common));
    }
    // Five letters and digits that are neither: a mistyped ShortCode (say which character).
    let code_shaped = text.len() == 5 && text.bytes().all(|b| b.is_ascii_alphanumeric());
    code_shaped.then(|| {
        parse_short(text)
            .and_then(common_of_short)
            .and_then(board_of_common)
    })
}

/// A position's text as `huarong solve` and `serve` read it: a code ([`read`]) or a layout
/// (labeled or not); the message says which it was taken for and what is wrong.
pub fn read_layout(text: &str) -> Result<crate::Parsed, huarong_core::InputError> {
    match read(text) {
        Some(board) => Ok(crate::Parsed {
            board: board.map_err(|e| format!("invalid code {:?}: {e}", text.trim()))?,
            labeled: false,
        }),
        None => crate::parse(text).map_err(|e| format!("invalid layout {text:?}: {e}").into()),
    }
}

/// The CommonCode of a compact unlabeled code, as 9 hex digits.
pub fn common_text(compact: u64) -> String {
    format_common(from_compact(compact), false)
}

/// The ShortCode of a compact unlabeled code (of a valid position), as 5 characters.
pub fn short_text(compact: u64) -> String {
    let short = short_code(from_compact(compact)).expect("a position's CommonCode is valid");
    format_short(short)
}

/// The two codes of a board, as text: (CommonCode, ShortCode).
pub fn codes(board: &Board) -> (String, String) {
    let compact = board.code();
    (common_text(compact), short_text(compact))
}

#[cfg(test)]
mod tests {
    use super::*;

    // dnomd343/klotski, src/core_test/codec/sample.h and common_code.cc / short_code.cc.
    const HENG_DAO_LI_MA: &str = "VCCV/VCCV/VHHV/VSSV/S..S";

    #[test]
    fn published_examples() {
        let board = crate::parse(HENG_DAO_LI_MA).unwrap().board;
        assert_eq!(common_code(&board), 0x1_A9BF_0C00);
        assert_eq!(short_code(0x1_A9BF_0C00), Ok(4_091_296));
        assert_eq!(format_short(4_091_296), "4WVE1");
        assert_eq!(parse_short("4wve1"), Ok(4_091_296));
        assert_eq!(format_short(0), "11111");
        assert_eq!(common_of_short(4_091_296), Ok(0x1_A9BF_0C00));
        assert_eq!(format_common(0x1_A9BF_0C00, false), "1A9BF0C00");
        assert_eq!(format_common(0x1_A9BF_0C00, true), "1A9BF0C");
        assert_eq!(parse_common("1A9BF0C"), Ok(0x1_A9BF_0C00));
        assert_eq!(board_of_common(0x1_A9BF_0C00), Ok(board));
        assert_eq!(counts().total(), POSITIONS);
        // Invalid: a block in column 4, a block that does not fit, fewer than two spaces,
        // low bits not zero; ShortCodes out of range or with a `0`.
        for bad in [
            0x3_A9BF_0C00u64,
            0x1_D9BF_0C00,
            0x1_A9BF_FC00,
            0x1_A0BF_0C01,
            0x1_2345_6789,
        ] {
            assert!(board_of_common(bad).is_err(), "{bad:09X}");
        }
        assert!(parse_common("0123456789").is_err());
        assert!(parse_common("123J432A9").is_err());
        assert!(parse_short("R50EH").is_err());
        assert!(parse_short("123456").is_err());
        assert!(parse_short("Z9EFV").is_err());
        assert_eq!(
            common_of_short(29_670_987),
            Err(CodeError::ShortRange(29_670_987))
        );
    }

    #[test]
    fn mirrors_match_the_published_ones() {
        // common_code.cc: 1A9BF0C00 is its own left-right mirror, 4FEA13400 mirrors to
        // 6BFA47000.
        for (code, mirror) in [
            (0x1_A9BF_0C00u64, 0x1_A9BF_0C00u64),
            (0x4_FEA1_3400, 0x6_BFA4_7000),
        ] {
            let board = board_of_common(code).unwrap();
            assert_eq!(common_code(&board.mirror()), mirror);
        }
    }

    #[test]
    fn codes_read_as_positions() {
        let board = crate::parse(HENG_DAO_LI_MA).unwrap().board;
        for text in ["1A9BF0C00", "1a9bf0c", "4WVE1", " 4wve1 "] {
            assert_eq!(read(text), Some(Ok(board)), "{text}");
        }
        // Five characters of the ShortCode alphabet are a ShortCode; the CommonCode 1A9BF0000
        // (shortened: 1A9BF) is read when written with one more digit.
        let five = board_of_common(0x1_A9BF_0000).unwrap();
        assert_eq!(read("1A9BF0"), Some(Ok(five)));
        let short = common_of_short(parse_short("1A9BF").unwrap()).unwrap();
        assert_eq!(read("1A9BF"), Some(board_of_common(short)));
        assert_ne!(short, 0x1_A9BF_0000);
        assert!(read(HENG_DAO_LI_MA).is_none());
        let err = read("R50EH").unwrap().unwrap_err().to_string();
        assert!(err.contains("character 3 ('0')"), "{err}");
        let err = read("3A9BF0C00").unwrap().unwrap_err().to_string();
        assert!(err.contains("row 1, column 4"), "{err}");
        let err = read("1A9BFFC00").unwrap().unwrap_err().to_string();
        assert!(
            err.contains("does not fit") || err.contains("empty"),
            "{err}"
        );
    }
}
