//! The judge's I/O (UVa 1603): `T`, then per case a line `n` and a line `k m1 … mk` (the
//! removed matches, unsorted; k may be 0). Output: the fewest further removals, one per line.
//! Input is read as whitespace-separated tokens; every error names the case and line.

use crate::{Grid, MAX_N, search};

/// One case: the grid side and the remaining matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub n: usize,
    pub present: u64,
}

/// Judge input that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    #[error("line {line}: expected the number of cases, found {found}")]
    Count { line: usize, found: String },
    #[error("case {case}: input ends before its {what}")]
    Truncated { case: usize, what: &'static str },
    #[error("case {case}, line {line}: {what} {token:?} is not a number")]
    NotANumber {
        case: usize,
        line: usize,
        what: &'static str,
        token: String,
    },
    #[error("case {case}, line {line}: grid size {n} is outside 1..={MAX_N}")]
    Size { case: usize, line: usize, n: u64 },
    #[error("case {case}, line {line}: {k} removed matches, but an n = {n} grid has {matches}")]
    TooMany {
        case: usize,
        line: usize,
        k: u64,
        n: usize,
        matches: usize,
    },
    #[error("case {case}, line {line}: match {m} is outside 1..={matches} (n = {n})")]
    Match {
        case: usize,
        line: usize,
        m: u64,
        n: usize,
        matches: usize,
    },
    #[error("case {case}, line {line}: match {m} is removed twice")]
    Twice { case: usize, line: usize, m: u64 },
    #[error("line {line}: unexpected {token:?} after the last case ({cases} announced)")]
    Trailing {
        line: usize,
        token: String,
        cases: usize,
    },
}

/// Parses the whole judge input.
pub fn parse(input: &str) -> Result<Vec<Case>, JudgeError> {
    let mut tokens = input
        .lines()
        .enumerate()
        .flat_map(|(i, l)| l.split_whitespace().map(move |t| (i + 1, t)));
    let count = match tokens.next() {
        None => {
            return Err(JudgeError::Count {
                line: 1,
                found: "nothing".into(),
            });
        }
        Some((line, t)) => t.parse::<usize>().map_err(|_| JudgeError::Count {
            line,
            found: format!("{t:?}"),
        })?,
    };
    let mut cases = Vec::new();
    for case in 1..=count {
        let mut number = |what: &'static str| -> Result<(usize, u64), JudgeError> {
            let (line, t) = tokens.next().ok_or(JudgeError::Truncated { case, what })?;
            let v = t.parse::<u64>().map_err(|_| JudgeError::NotANumber {
                case,
                line,
                what,
                token: t.to_owned(),
            })?;
            Ok((line, v))
        };
        let (line, n) = number("grid size")?;
        if !(1..=MAX_N as u64).contains(&n) {
            return Err(JudgeError::Size { case, line, n });
        }
        let n = n as usize;
        let matches = 2 * n * (n + 1);
        let (line, k) = number("number of removed matches")?;
        if k > matches as u64 {
            return Err(JudgeError::TooMany {
                case,
                line,
                k,
                n,
                matches,
            });
        }
        let mut present = (1u64 << matches) - 1;
        for _ in 0..k {
            let (line, m) = number("removed match")?;
            if !(1..=matches as u64).contains(&m) {
                return Err(JudgeError::Match {
                    case,
                    line,
                    m,
                    n,
                    matches,
                });
            }
            let bit = 1u64 << (m - 1);
            if present & bit == 0 {
                return Err(JudgeError::Twice { case, line, m });
            }
            present &= !bit;
        }
        cases.push(Case { n, present });
    }
    if let Some((line, token)) = tokens.next() {
        return Err(JudgeError::Trailing {
            line,
            token: token.to_owned(),
            cases: count,
        });
    }
    Ok(cases)
}

/// The judge's output for its input.
pub fn run(input: &str) -> Result<String, JudgeError> {
    let cases = parse(input)?;
    let grids: Vec<Grid> = (1..=MAX_N).map(Grid::new).collect();
    let mut out = String::new();
    for c in cases {
        out.push_str(&search::solve(&grids[c.n - 1], c.present).to_string());
        out.push('\n');
    }
    Ok(out)
}

/// Judge input for `cases`.
pub fn input_for(cases: &[Case]) -> String {
    let mut s = format!("{}\n", cases.len());
    for c in cases {
        let g = Grid::new(c.n);
        s.push_str(&format!("{}\n{}\n", c.n, g.render(c.present)));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statement's sample (UVa 1603).
    const SAMPLE_IN: &str = "2\n2\n0\n3\n3 12 17 23\n";
    const SAMPLE_OUT: &str = "3\n3\n";

    #[test]
    fn sample() {
        assert_eq!(run(SAMPLE_IN).unwrap(), SAMPLE_OUT);
    }

    #[test]
    fn errors_name_case_and_line() {
        let msg = |s: &str| run(s).unwrap_err().to_string();
        assert_eq!(
            msg(""),
            "line 1: expected the number of cases, found nothing"
        );
        assert_eq!(
            msg("two"),
            "line 1: expected the number of cases, found \"two\""
        );
        assert_eq!(
            msg("2\n2\n0\n3\n3 12 17"),
            "case 2: input ends before its removed match"
        );
        assert_eq!(
            msg("1\n6\n0\n"),
            "case 1, line 2: grid size 6 is outside 1..=5"
        );
        assert_eq!(
            msg("1\n0\n0\n"),
            "case 1, line 2: grid size 0 is outside 1..=5"
        );
        assert_eq!(
            msg("1\n2\n3 1 13 2\n"),
            "case 1, line 3: match 13 is outside 1..=12 (n = 2)"
        );
        assert_eq!(
            msg("1\n1\n5 1 2 3 4 1\n"),
            "case 1, line 3: 5 removed matches, but an n = 1 grid has 4"
        );
        assert_eq!(
            msg("1\n2\n2 7 7\n"),
            "case 1, line 3: match 7 is removed twice"
        );
        assert_eq!(
            msg("1\n2\n1 x\n"),
            "case 1, line 3: removed match \"x\" is not a number"
        );
        assert_eq!(
            msg("1\n2\n0\n5\n"),
            "line 4: unexpected \"5\" after the last case (1 announced)"
        );
        assert_eq!(
            msg("1\n2\n-1\n"),
            "case 1, line 3: number of removed matches \"-1\" is not a number"
        );
    }

    #[test]
    fn input_roundtrip() {
        let cases = parse(SAMPLE_IN).unwrap();
        assert_eq!(parse(&input_for(&cases)).unwrap(), cases);
    }
}
