//! The judge's I/O (UVa 12282): `T`, then per case 8 rows of 8 characters (blank lines may
//! separate cases; the input is read as whitespace-separated tokens). Output per case:
//! `Case k: X`, X the number of static states reachable by enabling gravity at least once.

use crate::{Board, BoardError, Gravity, SIDE};

/// Judge input that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error("line 1: expected the number of cases, found {0}")]
    Count(String),
    #[error("case {case}: input ends after {rows} of its 8 rows")]
    Truncated { case: usize, rows: usize },
    #[error("case {case}, line {line}: {source}")]
    Board {
        case: usize,
        line: usize,
        #[source]
        source: BoardError,
    },
    #[error("line {line}: unexpected {token:?} after the last case ({cases} announced)")]
    Trailing {
        line: usize,
        token: String,
        cases: usize,
    },
}

/// Parses the whole judge input into boards.
pub fn parse(input: &str) -> Result<Vec<Board>, JudgeError> {
    let mut tokens = input
        .lines()
        .enumerate()
        .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)));
    let count = match tokens.next() {
        None => return Err(JudgeError::Count("nothing".into())),
        Some((_, t)) => t
            .parse::<usize>()
            .map_err(|_| JudgeError::Count(format!("{t:?}")))?,
    };
    let mut boards = Vec::with_capacity(count.min(1 << 16));
    for case in 1..=count {
        let rows: Vec<(usize, &str)> = tokens.by_ref().take(SIDE).collect();
        if rows.len() < SIDE {
            return Err(JudgeError::Truncated {
                case,
                rows: rows.len(),
            });
        }
        let texts: Vec<&str> = rows.iter().map(|r| r.1).collect();
        let board = Board::from_rows(&texts).map_err(|source| {
            // Point at the row the error is about, or the case's first row.
            let row = match &source {
                BoardError::RowLength { row, .. } | BoardError::Char { row, .. } => *row,
                BoardError::Shape { row, .. } => *row,
                _ => 1,
            };
            JudgeError::Board {
                case,
                line: rows[row.clamp(1, SIDE) - 1].0,
                source,
            }
        })?;
        boards.push(board);
    }
    if let Some((line, token)) = tokens.next() {
        return Err(JudgeError::Trailing {
            line,
            token: token.to_owned(),
            cases: count,
        });
    }
    Ok(boards)
}

/// Counts reachable states with a visited bitmap over all 2^24 codes (2 MiB), cleared
/// through the list of states it marked, so cases cost only what they visit.
#[derive(Debug)]
pub struct Solver {
    seen: Vec<u64>,
    stack: Vec<u32>,
    visited: Vec<u32>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver {
            seen: vec![0; (1 << 24) / 64],
            stack: Vec::new(),
            visited: Vec::new(),
        }
    }
}

impl Solver {
    /// The judge's answer for one board.
    pub fn count(&mut self, board: &Board) -> u64 {
        self.stack.clear();
        self.visited.clear();
        self.stack.push(board.start() as u32);
        while let Some(s) = self.stack.pop() {
            for g in Gravity::ALL {
                let t = board.gravity(s as u64, g) as u32;
                let (w, bit) = (t as usize >> 6, 1u64 << (t & 63));
                if self.seen[w] & bit == 0 {
                    self.seen[w] |= bit;
                    self.visited.push(t);
                    self.stack.push(t);
                }
            }
        }
        for &t in &self.visited {
            self.seen[t as usize >> 6] = 0;
        }
        self.visited.len() as u64
    }
}

/// The judge's output for its input.
pub fn run(input: &str) -> Result<String, JudgeError> {
    let boards = parse(input)?;
    let mut solver = Solver::default();
    let mut out = String::new();
    for (k, b) in boards.iter().enumerate() {
        out.push_str(&format!("Case {}: {}\n", k + 1, solver.count(b)));
    }
    Ok(out)
}

/// Judge input for `boards`, in the statement's layout (a blank line before every case).
pub fn input_for(boards: &[Board]) -> String {
    let mut s = format!("{}\n", boards.len());
    for b in boards {
        s.push('\n');
        for row in b.render(b.start()).split('/') {
            s.push_str(row);
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statement's sample, with its trailing spaces and blank lines.
    pub const SAMPLE_IN: &str = "2  \n....AA..  \n....AA#.  \n...#....  \n.CCBB...  \n.CCBB#..  \n#...##..  \n.#DD#...  \n..DD.##.   \n\nAABBCCDD  \nAABBCCDD\n........  \n........  \n........  \n........  \n........  \n........\n";

    #[test]
    fn sample() {
        assert_eq!(run(SAMPLE_IN).unwrap(), "Case 1: 110\nCase 2: 2\n");
    }

    #[test]
    fn errors_name_case_and_line() {
        let e = run("x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: expected the number of cases, found \"x\""
        );
        let e = run(&SAMPLE_IN.replacen("2", "3", 1)).unwrap_err();
        assert_eq!(e.to_string(), "case 3: input ends after 0 of its 8 rows");
        let e = run(&SAMPLE_IN.replacen("2", "1", 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 11: unexpected \"AABBCCDD\" after the last case (1 announced)"
        );
        let e = run(&SAMPLE_IN.replace(".#DD#...", ".#DD#..E")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 1, line 8: row 7, column 8: unknown character 'E' (use A B C D . #)"
        );
        let e = run(&SAMPLE_IN.replace(".CCBB#..", ".CCBB#.")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 1, line 6: row 5: expected 8 cells, found 7"
        );
        let e =
            run(&SAMPLE_IN.replace("AABBCCDD  \nAABBCCDD", "AABBCCDD  \nABABCCDD")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 2, line 11: piece A: its cells do not form a 2x2 square (top-left at row 1, column 1)"
        );
    }
}
