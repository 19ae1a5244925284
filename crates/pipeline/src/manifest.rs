//! The export manifest: which Parquet files an export wrote, from which inputs.
//!
//! Parquet files carry no artifact header, so the export records its fingerprint (a hash of
//! every input artifact's checksum) and each file's size and xxh3 in `export.manifest`, written
//! last and atomically. A rerun whose fingerprint matches and whose files all hash the same
//! skips the export.

use std::fmt::Write as _;
use std::path::Path;

use huarong_core::artifact::{Artifact, hash_file};

use crate::PipelineError;
use crate::run::{SpaceReport, files};

/// The manifest's file name inside a pipeline's output folder.
pub const FILE: &str = "export.manifest";

/// Why a manifest cannot be used to skip the export.
#[derive(Debug)]
pub enum Unusable {
    /// There is none (first run).
    Missing,
    /// Stale inputs or a changed, missing or corrupt file (the reason).
    Invalid(String),
}

/// A hash of the checksums of every artifact of a space (their headers were verified by the
/// stages of this run).
pub fn space_checksum(report: &SpaceReport) -> Result<u64, PipelineError> {
    let mut fp = huarong_core::Fingerprint::new("space", 1);
    let mut names = vec![files::STATES.to_owned()];
    for m in &report.metrics {
        names.push(files::graph(&m.metric));
        names.push(files::components(&m.metric));
        names.push(files::distances(&m.metric));
    }
    for name in names {
        let header = Artifact::peek_header(&report.dir.join(&name))
            .map_err(huarong_core::StageError::from)?;
        fp.add_str(&name).add_u64(header.checksum);
    }
    Ok(fp.finish())
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
    let stored = lines
        .next()
        .and_then(|l| l.strip_prefix("fingerprint "))
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    if stored != Some(fingerprint) {
        return Err(Unusable::Invalid("stale: inputs changed".into()));
    }
    let mut tables = Vec::new();
    for line in lines {
        let parts: Vec<&str> = line.split(' ').collect();
        let [name, size, hash] = parts[..] else {
            return Err(Unusable::Invalid(format!(
                "malformed manifest line {line:?}"
            )));
        };
        let file = dir.join(name);
        let ok = std::fs::metadata(&file).is_ok_and(|m| m.len().to_string() == size)
            && hash_file(&file).is_ok_and(|h| format!("{h:016x}") == hash);
        if !ok {
            return Err(Unusable::Invalid(format!("{name} is missing or changed")));
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
) -> Result<(), PipelineError> {
    let io = |source| PipelineError::Io {
        path: path.to_owned(),
        source,
    };
    let mut text = format!("fingerprint {fingerprint:016x}\n");
    for (name, size) in tables {
        let h = hash_file(&dir.join(name)).map_err(io)?;
        writeln!(text, "{name} {size} {h:016x}").expect("writing to a String");
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// The result of checking one file of an output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCheck {
    /// Path relative to the output folder.
    pub file: String,
    /// `None` if the file verifies, else what is wrong.
    pub problem: Option<String>,
}

/// Checks every artifact (header, size, checksum) and every Parquet file listed in the export
/// manifest (size, xxh3) under `dir`; Parquet files the manifest does not list are reported.
pub fn verify_dir(dir: &Path) -> std::io::Result<Vec<FileCheck>> {
    let mut out = Vec::new();
    let mut listed = std::collections::HashSet::new();
    let manifest = dir.join(FILE);
    if manifest.exists() {
        let text = std::fs::read_to_string(&manifest)?;
        for line in text.lines().skip(1) {
            let parts: Vec<&str> = line.split(' ').collect();
            let problem = match parts[..] {
                [name, size, hash] => {
                    listed.insert(name.to_owned());
                    let file = dir.join(name);
                    match std::fs::metadata(&file) {
                        Err(e) => Some(format!("listed in {FILE} but unreadable: {e}")),
                        Ok(m) if m.len().to_string() != size => {
                            Some(format!("size {} but {FILE} says {size}", m.len()))
                        }
                        Ok(_) => match hash_file(&file) {
                            Ok(h) if format!("{h:016x}") == hash => None,
                            Ok(h) => Some(format!("xxh3 {h:016x} but {FILE} says {hash}")),
                            Err(e) => Some(e.to_string()),
                        },
                    }
                }
                _ => Some(format!("malformed {FILE} line {line:?}")),
            };
            out.push(FileCheck {
                file: parts[0].to_owned(),
                problem,
            });
        }
    }
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
                    let expect = huarong_core::Expect {
                        kind: &h.kind,
                        fingerprint: None,
                    };
                    Artifact::open(&path, expect).err().map(|e| e.to_string())
                }
            },
            "parquet" if !listed.contains(&rel) => Some(format!(
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
