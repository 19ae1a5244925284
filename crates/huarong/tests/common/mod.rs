#![allow(dead_code)] // each test binary uses some of the helpers
//! Helpers shared by the binary's integration tests: running `huarong`, locating the bundled
//! pipelines, reading a run's stage log, and comparing whole output folders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `huarong` with `args` (and `COLUMNS` unset, so pictures have their default width).
pub fn huarong(args: &[&str]) -> Output {
    huarong_with(args, &[])
}

/// Runs `huarong` with `args` and extra environment variables.
pub fn huarong_with(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_huarong"));
    c.args(args).env_remove("COLUMNS");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run huarong")
}

/// Runs `huarong` and asserts it succeeded; returns its stderr (the stage log).
pub fn ok(args: &[&str]) -> String {
    let o = huarong(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The path of a bundled pipeline, e.g. `pipeline("solitaire.toml")`.
pub fn pipeline(name: &str) -> String {
    root()
        .join("pipelines")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// One line of a run's stage log: space, stage, seconds, outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct StageLine {
    pub space: String,
    pub stage: String,
    pub seconds: f64,
    pub outcome: String,
}

impl StageLine {
    pub fn reused(&self) -> bool {
        self.outcome == "verified, reused"
    }
}

/// The stage lines of a run's log, in order.
pub fn stage_log(stderr: &str) -> Vec<StageLine> {
    stderr
        .lines()
        .filter_map(|l| {
            let (head, outcome) = l.split_once(" s  ")?;
            let mut words: Vec<&str> = head.split_whitespace().collect();
            let seconds: f64 = words.pop()?.parse().ok()?;
            if words.len() < 2 {
                return None;
            }
            let space = words.remove(0).to_owned();
            Some(StageLine {
                space,
                stage: words.join(" "),
                seconds,
                outcome: outcome.to_owned(),
            })
        })
        .collect()
}

/// Every file under `dir` (relative path → bytes).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The two folders hold the same files with the same bytes.
pub fn assert_same_outputs(a: &Path, b: &Path, what: &str) {
    let (sa, sb) = (snapshot(a), snapshot(b));
    let names = |s: &BTreeMap<PathBuf, Vec<u8>>| s.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&sa), names(&sb), "{what}: the same files");
    for (name, bytes) in &sa {
        assert!(sb[name] == *bytes, "{what}: {} differs", name.display());
    }
}

/// Whether `b` is `a` with one tile slid into the blank from an adjacent cell: two positions of
/// sliding tiles written as rows of `cols` cells joined by '/', '.' the blank.
pub fn one_move(a: &str, b: &str, cols: usize) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (
        a.replace('/', "").chars().collect(),
        b.replace('/', "").chars().collect(),
    );
    let blank = |v: &[char]| v.iter().position(|&c| c == '.').unwrap();
    let (x, y) = (blank(&a), blank(&b));
    let adjacent = (x / cols == y / cols && x.abs_diff(y) == 1) || x.abs_diff(y) == cols;
    let mut swapped = a.clone();
    swapped.swap(x, y);
    adjacent && swapped == b
}

/// The positions of a bundled instances file (`puzzles/korf-100.txt`: a position, then after
/// '#' its number and published optimum, `# 1: 57 moves`) and their optima.
pub fn published_optima(file: &str) -> Vec<(String, u64)> {
    std::fs::read_to_string(root().join(file))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (pos, rest) = l.split_once('#').unwrap();
            let moves = rest.split(": ").nth(1).unwrap().split(' ').next().unwrap();
            (pos.trim().to_owned(), moves.parse().unwrap())
        })
        .collect()
}

/// A pipeline file in `dir` that builds only the pattern databases `groups` (a TOML list of
/// tile letters) of the bundled puzzle `puzzle` into `dir/pdb`: the file and the folder.
pub fn pattern_pipeline(dir: &Path, puzzle: &str, groups: &str) -> (PathBuf, PathBuf) {
    let out = dir.join("pdb");
    let file = dir.join("pdb.toml");
    std::fs::write(
        &file,
        format!(
            "name = \"pdb\"\noutput = \"{}\"\n[sliding]\npuzzles = [\"{}\"]\nmetrics = [\"step\"]\n\
             patterns = {groups}\nspaces = false\n",
            out.display(),
            root().join(puzzle).display()
        ),
    )
    .unwrap();
    (file, out)
}
