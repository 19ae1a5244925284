//! `huarong inspect`: what a pipeline's output folder holds, for any puzzle — the summary, the
//! records and the size of every Parquet table, read back from the files themselves.

use std::path::{Path, PathBuf};

use atlas::folder::Folder;
use export::TextTable;

/// The readable contents of an output folder.
#[derive(Debug, Clone)]
pub struct Inspection {
    /// `summary.parquet` and the first records, when the folder has spaces.
    pub summary: Option<TextTable>,
    pub records: Option<TextTable>,
    /// `patterns.parquet`, when the folder has pattern databases.
    pub patterns: Option<TextTable>,
    /// The first rows of each puzzle database (`*_puzzles.parquet`: `klotski_puzzles.parquet`,
    /// `rush_puzzles.parquet`), by file name.
    pub databases: Vec<(String, TextTable)>,
    /// Every Parquet file: name, rows, columns, bytes.
    pub tables: Vec<TableSize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSize {
    pub file: String,
    pub rows: usize,
    pub columns: usize,
    pub bytes: u64,
}

/// Why an output folder cannot be inspected.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    #[error(
        "{0}: no summary.parquet or patterns.parquet — not a pipeline output folder (run \
         `huarong run` first)"
    )]
    NotAnOutput(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A table the export manifest does not vouch for (changed, truncated, unlisted): never
    /// read, since a Parquet reader may misread corrupt bytes silently.
    #[error("{file}: {problem} (`huarong run` rebuilds it; `huarong verify` checks every file)")]
    Unverified { file: PathBuf, problem: String },
    #[error(transparent)]
    Parquet(#[from] export::ExportError),
}

/// Refuses an output folder whose tables the export manifest does not vouch for.
fn verified(dir: &Path) -> Result<(), InspectError> {
    let io = |source| InspectError::Io {
        path: dir.to_owned(),
        source,
    };
    let folder = Folder::new(dir);
    let checks = crate::manifest::verify_tables(dir).map_err(io)?;
    if !folder.manifest().is_file() {
        return Err(InspectError::Unverified {
            file: folder.manifest(),
            problem: "missing: no finished export vouches for the tables".into(),
        });
    }
    if let Some(bad) = checks.iter().find(|c| c.problem.is_some()) {
        return Err(InspectError::Unverified {
            file: folder.file(&bad.file),
            problem: bad.problem.clone().unwrap_or_default(),
        });
    }
    Ok(())
}

/// The puzzle databases of the output folder `dir` (`*_puzzles.parquet`, e.g.
/// `klotski_puzzles.parquet`), each with at most `rows` rows, once the export manifest vouches for
/// the folder's tables; none if it has none.
pub fn databases(dir: &Path, rows: usize) -> Result<Vec<(String, TextTable)>, InspectError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let io = |source| InspectError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with("_puzzles.parquet"))
        .collect();
    if files.is_empty() {
        return Ok(Vec::new());
    }
    verified(dir)?;
    files.sort();
    files
        .iter()
        .map(|f| {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((name, export::read_text(f, rows)?))
        })
        .collect()
}

/// Reads the summary, the first `rows` records and puzzles of each database, and the size of
/// every table in `dir`.
pub fn inspect(dir: &Path, rows: usize) -> Result<Inspection, InspectError> {
    let folder = Folder::new(dir);
    let summary_path = folder.file("summary.parquet");
    let patterns_path = folder.file("patterns.parquet");
    if !summary_path.is_file() && !patterns_path.is_file() {
        return Err(InspectError::NotAnOutput(dir.to_owned()));
    }
    verified(dir)?;
    let io = |source| InspectError::Io {
        path: dir.to_owned(),
        source,
    };
    let summary = summary_path
        .is_file()
        .then(|| export::read_text(&summary_path, usize::MAX))
        .transpose()?;
    // A universe's folder has a summary but no records.
    let records_path = folder.file("records.parquet");
    let records = (summary.is_some() && records_path.is_file())
        .then(|| export::read_text(&records_path, rows))
        .transpose()?;
    let patterns = patterns_path
        .is_file()
        .then(|| export::read_text(&patterns_path, usize::MAX))
        .transpose()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    let mut tables = Vec::new();
    let mut databases = Vec::new();
    for f in files {
        let file = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let t = export::read_text(&f, 0)?;
        if file.ends_with("_puzzles.parquet") {
            databases.push((file.clone(), export::read_text(&f, rows)?));
        }
        let bytes = std::fs::metadata(&f).map_err(io)?.len();
        tables.push(TableSize {
            file,
            rows: t.total_rows,
            columns: t.columns.len(),
            bytes,
        });
    }
    Ok(Inspection {
        summary,
        records,
        patterns,
        databases,
        tables,
    })
}
