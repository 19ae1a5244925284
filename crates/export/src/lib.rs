//! Stage 5, **export**: tables as Parquet, through polars — the only crate that depends on it.
//!
//! The crate knows nothing of puzzles or artifacts: callers hand it named, typed columns
//! ([`Table`]) and it writes them atomically (temporary file, then rename). Large tables are
//! streamed in batches ([`TableWriter`]), one row group or more per batch, so memory stays
//! bounded by the batch size.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use polars::prelude::*;

/// Why a table could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Polars {
        path: PathBuf,
        #[source]
        source: PolarsError,
    },
    #[error("table column {name:?} has {found} rows, expected {expected}")]
    Ragged {
        name: String,
        found: usize,
        expected: usize,
    },
}

/// Named, typed columns of equal length.
#[derive(Debug, Default, Clone)]
pub struct Table {
    columns: Vec<Column>,
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    fn push(mut self, column: Column) -> Self {
        self.columns.push(column);
        self
    }

    pub fn str(self, name: &str, values: Vec<String>) -> Self {
        self.push(Column::new(name.into(), values))
    }

    pub fn bool(self, name: &str, values: Vec<bool>) -> Self {
        self.push(Column::new(name.into(), values))
    }

    pub fn u32(self, name: &str, values: Vec<u32>) -> Self {
        self.push(UInt32Chunked::from_vec(name.into(), values).into_column())
    }

    /// A nullable `u32` column (`None` is null).
    pub fn opt_u32(self, name: &str, values: Vec<Option<u32>>) -> Self {
        self.push(Column::new(name.into(), values))
    }

    pub fn opt_u64(self, name: &str, values: Vec<Option<u64>>) -> Self {
        self.push(Column::new(name.into(), values))
    }

    pub fn u64(self, name: &str, values: Vec<u64>) -> Self {
        self.push(UInt64Chunked::from_vec(name.into(), values).into_column())
    }

    /// Number of rows (0 for a table without columns).
    pub fn height(&self) -> usize {
        self.columns.first().map_or(0, |c| c.len())
    }

    fn frame(self) -> Result<DataFrame, ExportError> {
        let height = self.height();
        for c in &self.columns {
            if c.len() != height {
                return Err(ExportError::Ragged {
                    name: c.name().to_string(),
                    found: c.len(),
                    expected: height,
                });
            }
        }
        DataFrame::new(height, self.columns).map_err(|source| ExportError::Polars {
            path: PathBuf::new(),
            source,
        })
    }

    /// Writes the table as one Parquet file at `path`, atomically; returns its size in bytes.
    pub fn write(self, path: &Path) -> Result<u64, ExportError> {
        let mut w = TableWriter::create(path)?;
        w.write(self)?;
        w.finish()
    }
}

/// The first rows of a Parquet file as text, for people to read (`huarong inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextTable {
    /// Column names with their types, e.g. `states (u64)`.
    pub columns: Vec<String>,
    /// Up to the requested number of rows; nulls are empty strings.
    pub rows: Vec<Vec<String>>,
    /// Rows in the file.
    pub total_rows: usize,
}

/// Reads the first `limit` rows of the Parquet file at `path` as text.
pub fn read_text(path: &Path, limit: usize) -> Result<TextTable, ExportError> {
    let polars_err = |source| ExportError::Polars {
        path: path.to_owned(),
        source,
    };
    let file = File::open(path).map_err(|source| ExportError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut reader = ParquetReader::new(file);
    let total_rows = reader.num_rows().map_err(polars_err)?;
    let df = reader
        .with_slice(Some((0, limit)))
        .finish()
        .map_err(polars_err)?;
    let columns = df
        .columns()
        .iter()
        .map(|c| format!("{} ({})", c.name(), short_type(c.dtype())))
        .collect();
    let mut rows = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let row = df
            .columns()
            .iter()
            .map(|c| match c.get(i) {
                Ok(AnyValue::Null) => String::new(),
                Ok(AnyValue::String(s)) => s.to_owned(),
                Ok(AnyValue::StringOwned(s)) => s.to_string(),
                Ok(v) => v.to_string(),
                Err(e) => format!("<{e}>"),
            })
            .collect();
        rows.push(row);
    }
    Ok(TextTable {
        columns,
        rows,
        total_rows,
    })
}

fn short_type(t: &DataType) -> String {
    match t {
        DataType::String => "str".into(),
        DataType::Boolean => "bool".into(),
        DataType::UInt32 => "u32".into(),
        DataType::UInt64 => "u64".into(),
        other => other.to_string(),
    }
}

/// A Parquet file written batch by batch; dropped unfinished, its temporary file is removed.
pub struct TableWriter {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<File>,
    batched: Option<polars::io::parquet::write::BatchedWriter<File>>,
}

impl std::fmt::Debug for TableWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableWriter")
            .field("dest", &self.dest)
            .finish()
    }
}

impl TableWriter {
    pub fn create(path: &Path) -> Result<Self, ExportError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(|source| ExportError::Io {
            path: tmp.clone(),
            source,
        })?;
        Ok(TableWriter {
            tmp,
            dest: path.to_owned(),
            file: Some(file),
            batched: None,
        })
    }

    fn polars_err(&self, source: PolarsError) -> ExportError {
        ExportError::Polars {
            path: self.dest.clone(),
            source,
        }
    }

    /// Appends a batch of rows (every batch must have the same columns).
    pub fn write(&mut self, table: Table) -> Result<(), ExportError> {
        let df = table.frame().map_err(|e| match e {
            ExportError::Polars { source, .. } => self.polars_err(source),
            other => other,
        })?;
        if self.batched.is_none() {
            let file = self
                .file
                .take()
                .expect("file is open until the first batch");
            let writer = ParquetWriter::new(file)
                .with_compression(ParquetCompression::Zstd(None))
                .with_statistics(StatisticsOptions::full())
                .batched(df.schema())
                .map_err(|e| self.polars_err(e))?;
            self.batched = Some(writer);
        }
        let res = self.batched.as_mut().unwrap().write_batch(&df);
        res.map_err(|e| self.polars_err(e))
    }

    /// Finishes the file and renames it into place; returns its size in bytes.
    pub fn finish(mut self) -> Result<u64, ExportError> {
        let Some(writer) = self.batched.take() else {
            return Err(self.polars_err(PolarsError::NoData("no rows were written".into())));
        };
        let res = writer.finish();
        let size = res.map_err(|e| self.polars_err(e))?;
        fs::rename(&self.tmp, &self.dest).map_err(|source| ExportError::Io {
            path: self.dest.clone(),
            source,
        })?;
        self.file = None;
        self.tmp = PathBuf::new();
        Ok(size)
    }
}

impl Drop for TableWriter {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_reads_back_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut w = TableWriter::create(&path).unwrap();
        for batch in 0..3u32 {
            w.write(
                Table::new()
                    .u32("index", vec![batch * 2, batch * 2 + 1])
                    .opt_u32("distance", vec![Some(batch), None])
                    .str("layout", vec!["a".into(), "b".into()])
                    .bool("goal", vec![true, false])
                    .u64("size", vec![7, 8]),
            )
            .unwrap();
        }
        assert!(w.finish().unwrap() > 0);
        let df = ParquetReader::new(File::open(&path).unwrap())
            .finish()
            .unwrap();
        assert_eq!(df.height(), 6);
        assert_eq!(df.column("distance").unwrap().null_count(), 3);
        let idx = df.column("index").unwrap().u32().unwrap();
        assert_eq!(idx.get(5), Some(5));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn ragged_tables_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let t = Table::new().u32("a", vec![1, 2]).u32("b", vec![1]);
        assert!(matches!(
            t.write(&dir.path().join("x.parquet")),
            Err(ExportError::Ragged { .. })
        ));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
