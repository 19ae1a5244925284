//! After a run, the output folder holds exactly what the pipeline produces: Parquet tables that
//! the export did not write (a space or table the pipeline no longer has) and artifacts of
//! spaces or metrics it no longer builds are removed, so the folder equals a fresh run's and
//! `huarong verify` finds nothing unlisted.
//!
//! Only files the pipeline could have written are touched: `*.parquet` directly in the output
//! folder, and files in its space folders that carry the artifact magic. Anything else is left
//! alone; a space folder is removed only when pruning emptied it.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use atlas::folder::Folder;
use huarong_store::artifact::MAGIC;

use crate::manifest;
use crate::run::SpaceReport;
use crate::work::Done;

/// Removes leftovers from `output` (see the module docs) given every space of the run (with
/// the artifacts it listed), what each kind of work made and the tables the export wrote;
/// returns their paths relative to `output`.
pub fn prune(
    output: &Folder,
    spaces: &[SpaceReport],
    done: &[Done],
    tables: &[(String, u64)],
) -> io::Result<Vec<PathBuf>> {
    let mut keep: HashSet<PathBuf> = tables.iter().map(|(n, _)| PathBuf::from(n)).collect();
    keep.extend(
        done.iter()
            .flat_map(|d| d.artifacts.iter().map(PathBuf::from)),
    );
    keep.insert(PathBuf::from(manifest::FILE));
    for space in spaces {
        let dir = PathBuf::from(&space.space_id);
        for (name, _) in &space.artifacts {
            keep.insert(dir.join(name));
        }
    }
    let mut removed = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(output.root())?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let rel = PathBuf::from(entry.file_name());
        if path.is_dir() {
            removed.extend(prune_space_dir(&path, &rel, &keep)?);
        } else if path.extension().is_some_and(|e| e == "parquet") && !keep.contains(&rel) {
            std::fs::remove_file(&path)?;
            removed.push(rel);
        }
    }
    Ok(removed)
}

fn prune_space_dir(dir: &Path, rel: &Path, keep: &HashSet<PathBuf>) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = rel.join(entry.file_name());
        if path.is_file() && !keep.contains(&name) && is_artifact(&path) {
            std::fs::remove_file(&path)?;
            removed.push(name);
        }
    }
    if !removed.is_empty() && std::fs::read_dir(dir)?.next().is_none() {
        std::fs::remove_dir(dir)?;
    }
    Ok(removed)
}

/// Whether the file starts with the artifact magic.
fn is_artifact(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head == MAGIC
}
