#![allow(dead_code)] // each test binary uses some of the helpers
//! Helpers shared by the integration tests that compare whole output folders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
