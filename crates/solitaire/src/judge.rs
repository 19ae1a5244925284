//! The judge's I/O (HDU 1401): until end of input, pairs of lines of 8 integers each (start
//! position, then end position, `r1 c1 … r4 c4`, 1-based). Answer `YES` if the end position is
//! reachable in at most 8 moves, else `NO`, one per line.
//!
//! Input is read as whitespace-separated tokens (line breaks are not significant), but every
//! error names the case and the line of the offending token.

use crate::{PositionError, STATES, rank, successors};

/// The judge's move bound.
pub const MAX_MOVES: u32 = 8;

/// One case: start and end positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    pub start: u64,
    pub end: u64,
}

/// Judge input that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error("case {case}, line {line}: {source}")]
    Position {
        case: usize,
        line: usize,
        #[source]
        source: PositionError,
    },
    #[error("case {case}, line {line}: {token:?} is not a number")]
    NotANumber {
        case: usize,
        line: usize,
        token: String,
    },
    #[error(
        "case {case}: input ends after {found} of its 16 numbers (line {line}); each case is a start line and an end line of 8 numbers"
    )]
    Truncated {
        case: usize,
        line: usize,
        found: usize,
    },
}

/// Parses the whole judge input.
pub fn parse(input: &str) -> Result<Vec<Case>, JudgeError> {
    let tokens: Vec<(usize, &str)> = input
        .lines()
        .enumerate()
        .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)))
        .collect();
    let mut cases = Vec::new();
    for (k, chunk) in tokens.chunks(16).enumerate() {
        let case = k + 1;
        if chunk.len() < 16 {
            return Err(JudgeError::Truncated {
                case,
                line: chunk.last().map_or(0, |t| t.0),
                found: chunk.len(),
            });
        }
        let mut positions = [0u64; 2];
        for (half, toks) in chunk.chunks(8).enumerate() {
            let numbers = toks
                .iter()
                .map(|&(line, t)| {
                    t.parse::<i64>().map_err(|_| JudgeError::NotANumber {
                        case,
                        line,
                        token: t.to_owned(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            positions[half] =
                crate::from_numbers(&numbers).map_err(|source| JudgeError::Position {
                    case,
                    line: toks[0].0,
                    source,
                })?;
        }
        cases.push(Case {
            start: positions[0],
            end: positions[1],
        });
    }
    Ok(cases)
}

/// Answers cases with a meet-in-the-middle search: every position within 4 moves of the start is
/// marked, then the search from the end looks for a marked position within 4 moves. Marks are
/// generation stamps over the 635,376 ranks, so nothing is cleared between cases.
#[derive(Debug)]
pub struct Solver {
    forward: Vec<u32>,
    backward: Vec<u32>,
    generation: u32,
    frontier: Vec<u64>,
    next: Vec<u64>,
    buf: Vec<u64>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver {
            forward: vec![0; STATES as usize],
            backward: vec![0; STATES as usize],
            generation: 0,
            frontier: Vec::new(),
            next: Vec::new(),
            buf: Vec::new(),
        }
    }
}

impl Solver {
    /// Whether `end` is reachable from `start` in at most `max_moves` moves.
    pub fn within(&mut self, start: u64, end: u64, max_moves: u32) -> bool {
        self.generation += 1;
        let g = self.generation;
        let (half_f, half_b) = (max_moves.div_ceil(2), max_moves / 2);
        self.expand(start, half_f, |r, forward| {
            forward[r] = g;
            false
        });
        self.expand(end, half_b, |r, forward| forward[r] == g)
    }

    /// BFS from `root` to `depth` levels, calling `visit` with the rank of each position (the
    /// root included) and the forward marks, until it returns true.
    fn expand(
        &mut self,
        root: u64,
        depth: u32,
        mut visit: impl FnMut(usize, &mut [u32]) -> bool,
    ) -> bool {
        self.generation += 1;
        let g = self.generation;
        let mut frontier = std::mem::take(&mut self.frontier);
        let mut next = std::mem::take(&mut self.next);
        let mut buf = std::mem::take(&mut self.buf);
        frontier.clear();
        frontier.push(root);
        let root_rank = rank(root).unwrap() as usize;
        self.backward[root_rank] = g;
        let mut found = visit(root_rank, &mut self.forward);
        let mut level = 0;
        while !found && level < depth && !frontier.is_empty() {
            next.clear();
            for &s in &frontier {
                buf.clear();
                successors(s, &mut buf);
                for &t in &buf {
                    let r = rank(t).unwrap() as usize;
                    if self.backward[r] != g {
                        self.backward[r] = g;
                        next.push(t);
                    }
                }
            }
            for &t in &next {
                if visit(rank(t).unwrap() as usize, &mut self.forward) {
                    found = true;
                    break;
                }
            }
            std::mem::swap(&mut frontier, &mut next);
            level += 1;
        }
        self.frontier = frontier;
        self.next = next;
        self.buf = buf;
        found
    }
}

/// The judge's output for its input.
pub fn run(input: &str) -> Result<String, JudgeError> {
    let cases = parse(input)?;
    let mut solver = Solver::default();
    let mut out = String::new();
    for c in cases {
        out.push_str(if solver.within(c.start, c.end, MAX_MOVES) {
            "YES\n"
        } else {
            "NO\n"
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample() {
        // HDU 1401's sample.
        let input = "4 4 4 5 5 4 6 5\n2 4 3 3 3 6 4 6\n";
        assert_eq!(run(input).unwrap(), "YES\n");
    }

    #[test]
    fn errors_name_case_and_line() {
        let good = "4 4 4 5 5 4 6 5\n2 4 3 3 3 6 4 6\n";
        let e = run(&format!("{good}1 1 1 2\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 2: input ends after 4 of its 16 numbers (line 3); each case is a start line and an end line of 8 numbers"
        );
        let e = run(&format!("{good}1 1 1 2 1 3 1 9\n1 1 1 2 1 3 1 4\n")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 2, line 3: piece 4: column 9 is outside 1..=8"
        );
        let e = run(&format!("{good}1 1 1 2 1 3 1 4\n1 1 1 2 1 3 1 one\n")).unwrap_err();
        assert_eq!(e.to_string(), "case 2, line 4: \"one\" is not a number");
        let e = run("1 1 1 1 1 3 1 4\n1 1 1 2 1 3 1 4\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "case 1, line 1: pieces 1 and 2 are both on row 1, column 1"
        );
        assert_eq!(run("").unwrap(), "");
    }

    #[test]
    fn bounds_are_exact() {
        let mut s = Solver::default();
        let a = crate::parse("1 1 3 3 5 5 7 7").unwrap();
        // One piece walks 1..=9 steps along row 1 (no other piece in the way).
        for k in 1..=7u8 {
            let b = crate::parse(&format!("1 {} 3 3 5 5 7 7", 1 + k)).unwrap();
            assert!(s.within(a, b, k as u32), "{k}");
            assert!(!s.within(a, b, k as u32 - 1), "{k}");
        }
        assert!(s.within(a, a, 0));
    }
}
