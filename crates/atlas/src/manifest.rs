//! The export manifest: which Parquet files an export wrote, from which inputs.
//!
//! Parquet files carry no artifact header, so the export records its fingerprint (see
//! [`crate::fingerprint::fingerprint`]) and each file's size and xxh3 in `export.manifest`, written
//! last and atomically:
//!
//! ```text
//! huarong export manifest 2
//! fingerprint <16 hex digits>
//! <file> <bytes> <xxh3, 16 hex digits>     one line per table
//! ```
//!
//! A rerun whose fingerprint matches and whose files all hash the same skips the export.

use std::fmt::Write as _;
use std::path::Path;

use huarong_store::artifact::{Artifact, hash_file};

use crate::IoError;

/// The manifest's file name inside a pipeline's output folder.
pub const FILE: &str = "export.manifest";
/// Version of the manifest format (its first line).
pub const MANIFEST_VERSION: u32 = 2;
const HEADER: &str = "huarong export manifest 2";

/// Why a manifest cannot be used to skip the export.
#[derive(Debug)]
pub enum Unusable {
    /// There is none (first run).
    Missing,
    /// Stale inputs or a changed, missing or corrupt file (the reason).
    Invalid(String),
}

/// The tables a valid manifest lists, if it matches `fingerprint` and every file verifies.
pub fn verify(path: &Path, fingerprint: u64) -> Result<Vec<(String, u64)>, Unusable> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Unusable::Missing),
        Err(e) => return Err(Unusable::Invalid(format!("{}: {e}", path.display()))),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Err(Unusable::Invalid(format!(
            "{FILE} is not a version {MANIFEST_VERSION} manifest"
        )));
    }
    let stored = lines
        .next()
        .and_then(|l| l.strip_prefix("fingerprint "))
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    if stored != Some(fingerprint) {
        return Err(Unusable::Invalid(
            "stale: built from other inputs or by another version".into(),
        ));
    }
    let mut tables = Vec::new();
    for line in lines {
        let parts: Vec<&str> = line.split(' ').collect();
        let [name, size, hash] = parts[..] else {
            return Err(Unusable::Invalid(format!(
                "malformed manifest line {line:?}"
            )));
        };
        if let Some(why) = check_listed(&dir.join(name), size, hash) {
            return Err(Unusable::Invalid(format!(
                "{name} is missing or changed: {why}"
            )));
        }
        tables.push((name.to_owned(), size.parse().unwrap_or(0)));
    }
    Ok(tables)
}

/// Writes the manifest atomically.
pub fn write(
    path: &Path,
    fingerprint: u64,
    dir: &Path,
    tables: &[(String, u64)],
) -> Result<(), IoError> {
    let io = |source| IoError {
        path: path.to_owned(),
        source,
    };
    let mut text = format!("{HEADER}\nfingerprint {fingerprint:016x}\n");
    for (name, size) in tables {
        let h = hash_file(&dir.join(name)).map_err(io)?;
        writeln!(text, "{name} {size} {h:016x}").expect("writing to a String");
    }
    huarong_store::atomic::write(path, text.as_bytes()).map_err(io)
}

/// The manifest's fingerprint line, if it has one.
pub fn stored_fingerprint(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    (lines.next() == Some(HEADER)).then_some(())?;
    lines
        .next()
        .and_then(|l| l.strip_prefix("fingerprint "))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
}

/// The tables a manifest lists (name, size, xxh3 as text), without checking them.
fn listed_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().skip(2)
}

/// The result of checking one file of an output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    /// Path relative to the output folder.
    pub file: String,
    /// `None` if the file verifies, else what is wrong.
    pub problem: Option<String>,
}

/// Checks every Parquet file listed in the export manifest of `dir` (size, xxh3), and reports the
/// manifest itself when it is there but not one, and Parquet files of `dir` it does not list.
/// Every reader of the tables asks this first: a table a finished export did not write, or whose
/// bytes changed since, is never read.
pub fn verify_tables(dir: &Path) -> std::io::Result<Vec<FileCheck>> {
    let mut out = Vec::new();
    let mut listed = std::collections::HashSet::new();
    let manifest = dir.join(FILE);
    if manifest.exists() {
        let text = std::fs::read_to_string(&manifest)?;
        if !text.starts_with(HEADER) {
            out.push(FileCheck {
                file: FILE.to_owned(),
                problem: Some(format!("not a version {MANIFEST_VERSION} manifest")),
            });
        }
        for line in listed_lines(&text) {
            let parts: Vec<&str> = line.split(' ').collect();
            let problem = match parts[..] {
                [name, size, hash] => {
                    listed.insert(name.to_owned());
                    check_listed(&dir.join(name), size, hash)
                }
                _ => Some(format!("malformed {FILE} line {line:?}")),
            };
            out.push(FileCheck {
                file: parts[0].to_owned(),
                problem,
            });
        }
    }
    let mut unlisted: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".parquet") && !listed.contains(n))
        .collect();
    unlisted.sort();
    out.extend(unlisted.into_iter().map(|file| FileCheck {
        file,
        problem: Some(format!(
            "not listed in {FILE}: not written by a finished export"
        )),
    }));
    Ok(out)
}

/// Checks one table the manifest in `dir` lists (size and xxh3): `Err` says why it cannot be
/// read — not listed, missing or changed (the reader's [`crate::outputs::OutputsError`] carries
/// it).
pub(crate) fn check_table(dir: &Path, name: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join(FILE)).map_err(|e| format!("{FILE}: {e}"))?;
    if !text.starts_with(HEADER) {
        return Err(format!(
            "{FILE} is not a version {MANIFEST_VERSION} manifest"
        ));
    }
    let line = listed_lines(&text)
        .find(|l| l.split(' ').next() == Some(name))
        .ok_or_else(|| format!("not listed in {FILE}"))?;
    match line.split(' ').collect::<Vec<_>>()[..] {
        [_, size, hash] => match check_listed(&dir.join(name), size, hash) {
            None => Ok(()),
            Some(why) => Err(why),
        },
        _ => Err(format!("malformed {FILE} line {line:?}")),
    }
}

/// What is wrong with a file the manifest lists with `size` and `hash`, if anything.
fn check_listed(file: &Path, size: &str, hash: &str) -> Option<String> {
    match std::fs::metadata(file) {
        Err(e) => Some(format!("listed in {FILE} but unreadable: {e}")),
        Ok(m) if m.len().to_string() != size => {
            Some(format!("size {} but {FILE} says {size}", m.len()))
        }
        Ok(_) => match hash_file(file) {
            Ok(h) if format!("{h:016x}") == hash => None,
            Ok(h) => Some(format!("xxh3 {h:016x} but {FILE} says {hash}")),
            Err(e) => Some(e.to_string()),
        },
    }
}

/// Checks every artifact (header, size, checksum) under `dir` and its tables
/// ([`verify_tables`]).
pub fn verify_dir(dir: &Path) -> std::io::Result<Vec<FileCheck>> {
    let mut out = verify_tables(dir)?;
    let mut entries: Vec<_> = walk(dir)?;
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let problem = match ext {
            "bin" | "csr" => match Artifact::peek_header(&path) {
                Err(e) => Some(e.to_string()),
                Ok(h) => {
                    let expect = huarong_store::Expect {
                        kind: &h.kind,
                        fingerprint: None,
                    };
                    Artifact::open(&path, expect).err().map(|e| e.to_string())
                }
            },
            // Parquet in a space's folder is nobody's (the export writes the top level).
            "parquet" if path.parent() != Some(dir) => Some(format!(
                "not listed in {FILE}: not written by a finished export"
            )),
            _ => continue,
        };
        out.push(FileCheck { file: rel, problem });
    }
    Ok(out)
}

fn walk(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            out.extend(walk(&path)?);
        } else {
            out.push(path);
        }
    }
    Ok(out)
}
