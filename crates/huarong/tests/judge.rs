//! `huarong judge`: the judges' sample I/O byte for byte, and malformed input rejected with a
//! message naming the case and line, exit status 2, never a panic.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn judge(puzzle: &str, input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_huarong"))
        .args(["judge", puzzle])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run huarong");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(puzzle: &str, input: &str) -> String {
    let o = judge(puzzle, input.as_bytes());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Asserts exit status 2, no panic, and a message containing `needle`.
fn rejects(puzzle: &str, input: &[u8], needle: &str) {
    let o = judge(puzzle, input);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{puzzle}: {err}");
    assert!(!err.contains("panicked"), "{puzzle}: {err}");
    assert!(o.stdout.is_empty(), "{puzzle}: no partial output");
    assert!(
        err.contains(needle),
        "{puzzle}: expected {needle:?} in {err:?}"
    );
}

/// OmniGravity's sample (seed 002), with its trailing spaces and blank line.
const OMNIGRAVITY_IN: &str = "2  \n....AA..  \n....AA#.  \n...#....  \n.CCBB...  \n.CCBB#..  \n#...##..  \n.#DD#...  \n..DD.##.   \n\nAABBCCDD  \nAABBCCDD\n........  \n........  \n........  \n........  \n........  \n........\n";
/// UVa 1603's sample (the problem statement; seed 001 quotes the solution, not the sample).
const SQUARE_IN: &str = "2\n2\n0\n3\n3 12 17 23\n";
/// HDU 1401's sample (the problem statement).
const SOLITAIRE_IN: &str = "4 4 4 5 5 4 6 5\n2 4 3 3 3 6 4 6\n";

#[test]
fn samples_byte_exact() {
    assert_eq!(
        ok("omnigravity", OMNIGRAVITY_IN),
        "Case 1: 110\nCase 2: 2\n"
    );
    assert_eq!(ok("square-destroyer", SQUARE_IN), "3\n3\n");
    assert_eq!(ok("solitaire", SOLITAIRE_IN), "YES\n");
    // Line breaks are not significant (tokens are read), and Windows line ends are fine.
    assert_eq!(ok("square-destroyer", "2 2 0 3 3 12 17 23"), "3\n3\n");
    assert_eq!(
        ok("solitaire", &SOLITAIRE_IN.replace('\n', "\r\n").repeat(2)),
        "YES\nYES\n"
    );
    assert_eq!(ok("solitaire", ""), "");
}

#[test]
fn hardest_square_destroyer_case() {
    // n = 5 with nothing removed: 14 (OEIS A227116: 1, 3, 6, 9, 14).
    assert_eq!(
        ok("square-destroyer", "5\n1\n0\n2\n0\n3\n0\n4\n0\n5\n0\n"),
        "1\n3\n6\n9\n14\n"
    );
}

#[test]
fn malformed_omnigravity_input() {
    let og = OMNIGRAVITY_IN;
    rejects(
        "omnigravity",
        b"",
        "line 1: expected the number of cases, found nothing",
    );
    rejects(
        "omnigravity",
        b"two\n",
        "expected the number of cases, found \"two\"",
    );
    rejects(
        "omnigravity",
        &og.as_bytes()[..59],
        "case 1: input ends after 5 of its 8 rows",
    );
    rejects(
        "omnigravity",
        og.replacen('2', "3", 1).as_bytes(),
        "case 3: input ends after 0",
    );
    rejects(
        "omnigravity",
        og.replace("..DD.##.", "..DD.##?").as_bytes(),
        "case 1, line 9: row 8, column 8: unknown character '?'",
    );
    rejects(
        "omnigravity",
        og.replace("#...##..", "#...##...").as_bytes(),
        "case 1, line 7: row 6: expected 8 cells, found 9",
    );
    // Wrong piece shapes: a piece of 3 cells, a piece not forming a square.
    rejects(
        "omnigravity",
        og.replacen("....AA..", "....A...", 1).as_bytes(),
        "case 1, line 2: piece A: 3 cells",
    );
    rejects(
        "omnigravity",
        og.replacen("AABBCCDD  \nAABBCCDD", "AABBCCDD  \nBBAACCDD", 1)
            .as_bytes(),
        "case 2, line 11: piece A: its cells do not form a 2x2 square",
    );
    rejects(
        "omnigravity",
        format!("{og}junk").as_bytes(),
        "unexpected \"junk\" after the last case",
    );
    rejects("omnigravity", b"1\n\xff\xfe\n", "it must be text");
}

#[test]
fn malformed_square_destroyer_input() {
    rejects(
        "square-destroyer",
        b"2\n2\n0\n3\n3 12 17",
        "case 2: input ends before its removed match",
    );
    rejects(
        "square-destroyer",
        b"1\n3\n",
        "case 1: input ends before its number of removed matches",
    );
    rejects(
        "square-destroyer",
        b"1\n7\n0\n",
        "case 1, line 2: grid size 7 is outside 1..=5",
    );
    rejects(
        "square-destroyer",
        b"1\n3\n2 25 1\n",
        "case 1, line 3: match 25 is outside 1..=24",
    );
    rejects(
        "square-destroyer",
        b"1\n3\n2 0 1\n",
        "case 1, line 3: match 0 is outside 1..=24",
    );
    rejects(
        "square-destroyer",
        b"1\n3\nx\n",
        "case 1, line 3: number of removed matches \"x\"",
    );
    rejects(
        "square-destroyer",
        b"1\n2\n3 1 1 2\n",
        "match 1 is removed twice",
    );
    rejects(
        "square-destroyer",
        b"1\n2\n99999999999999999999\n",
        "case 1, line 3: number of removed matches \"99999999999999999999\" is not a number",
    );
}

#[test]
fn malformed_solitaire_input() {
    rejects(
        "solitaire",
        b"4 4 4 5 5 4 6 5\n2 4 3 3\n",
        "case 1: input ends after 12 of its 16",
    );
    rejects(
        "solitaire",
        b"4 4 4 5 5 4 6 5\n2 4 3 3 3 6 4 0\n",
        "case 1, line 2: piece 4: column 0",
    );
    rejects(
        "solitaire",
        b"4 4 4 5 5 4 6 5\n2 4 3 3 3 6 4 b\n",
        "case 1, line 2: \"b\" is not a number",
    );
    rejects(
        "solitaire",
        format!("{SOLITAIRE_IN}4 4 4 4 5 4 6 5\n2 4 3 3 3 6 4 6\n").as_bytes(),
        "case 2, line 3: pieces 1 and 2 are both on row 4, column 4",
    );
}

/// An input larger than any contest's (over 64 MiB) is refused, not read into memory whole.
#[test]
fn an_oversized_input_is_refused() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_huarong"))
        .args(["judge", "solitaire"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run huarong");
    let mut stdin = child.stdin.take().unwrap();
    let line = "4 4 4 5 5 4 6 5\n".repeat(1 << 16);
    // The judge stops reading past its limit: the rest of the writes may fail.
    for _ in 0..80 {
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the judge input is over 64 MiB"), "{err}");
}
