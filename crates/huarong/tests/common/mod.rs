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
