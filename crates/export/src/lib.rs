//! Stage 5, **export**: tables as Parquet, through polars — the only crate that depends on it.
//!
//! The crate knows nothing of puzzles or artifacts: callers hand it named, typed columns
//! ([`Table`], plain data from `huarong-core`) and it writes them atomically (temporary file,
//! then rename, the shared [`huarong_core::atomic`] protocol). Large tables are streamed in
//! batches ([`TableWriter`]), one row group or more per batch, so memory stays bounded by the
//! batch size.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

pub use huarong_core::table::{Column as TableColumn, Table};
use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_arrow::bitmap::Bitmap;
use polars_parquet::write::{
    CompressedPage, CompressionOptions, Encoding, ParquetType, Version, WriteOptions,
    array_to_columns, compress,
};
use rayon::prelude::*;

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
    #[error("{path}: not a readable Parquet table ({why})")]
    Unreadable { path: PathBuf, why: String },
    #[error("table column {name:?} has {found} rows, expected {expected}")]
    Ragged {
        name: String,
        found: usize,
        expected: usize,
    },
}

/// A polars frame of a [`Table`] (every column the same length).
fn frame(table: Table) -> Result<DataFrame, ExportError> {
    let height = table.height();
    let mut columns = Vec::with_capacity(table.columns.len());
    for (name, c) in table.columns {
        if c.len() != height {
            return Err(ExportError::Ragged {
                name,
                found: c.len(),
                expected: height,
            });
        }
        let name = PlSmallStr::from(name.as_str());
        columns.push(match c {
            TableColumn::Str(v) => Column::new(name, v),
            TableColumn::Bool(v) => Column::new(name, v),
            TableColumn::U32(v) => UInt32Chunked::from_vec(name, v).into_column(),
            TableColumn::OptU32(v) => Column::new(name, v),
            TableColumn::PackedU32(v) => {
                // The values move in as they are; nulls become a validity bitmap.
                let valid: Bitmap = v
                    .iter()
                    .map(|&x| x != huarong_core::table::NULL_U32)
                    .collect();
                let valid = (valid.unset_bits() > 0).then_some(valid);
                UInt32Chunked::from_vec_validity(name, v, valid).into_column()
            }
            TableColumn::U64(v) => UInt64Chunked::from_vec(name, v).into_column(),
            TableColumn::OptU64(v) => Column::new(name, v),
        });
    }
    DataFrame::new(height, columns).map_err(|source| ExportError::Polars {
        path: PathBuf::new(),
        source,
    })
}

/// Writes `table` as one Parquet file at `path`, atomically; returns its size in bytes.
pub fn write(table: Table, path: &Path) -> Result<u64, ExportError> {
    let mut w = TableWriter::create(path)?;
    w.write(table)?;
    w.finish()
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
    // polars panics on some corrupt files (e.g. a bad thrift field) instead of returning an
    // error; callers check the export manifest first, and this turns what slips through into
    // an error naming the file rather than a crash.
    std::panic::catch_unwind(|| read_text_unguarded(path, limit)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the Parquet reader failed".into());
        Err(ExportError::Unreadable {
            path: path.to_owned(),
            why,
        })
    })
}

fn read_text_unguarded(path: &Path, limit: usize) -> Result<TextTable, ExportError> {
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
///
/// Each batch becomes one row group. Its columns are encoded (dictionary or plain, statistics)
/// and compressed in parallel, one column per task, exactly as polars would encode them one
/// after the other, then appended to the file in order.
pub struct TableWriter {
    tmp: PathBuf,
    dest: PathBuf,
    file: Option<File>,
    batched: Option<Batched>,
}

/// The open file and how its columns are encoded.
struct Batched {
    /// Buffered: the Parquet writer emits its metadata a few bytes at a time (577,144 writes
    /// for the Klotski universe's tables unbuffered); its footer flushes the buffer.
    writer: polars::io::parquet::write::BatchedWriter<BufWriter<File>>,
    /// The Parquet type of every column.
    types: Vec<ParquetType>,
    /// The encodings polars picks for every column's leaves.
    encodings: Vec<Vec<Encoding>>,
}

/// What `ParquetWriter` with zstd and full statistics writes (its other options default).
fn options() -> WriteOptions {
    WriteOptions {
        statistics: StatisticsOptions::full(),
        compression: CompressionOptions::Zstd(None),
        version: Version::V1,
        data_page_size: None,
    }
}

/// Every page of one column of a row group, encoded and compressed.
fn column_pages(
    array: &ArrayRef,
    type_: &ParquetType,
    encodings: &[Encoding],
) -> PolarsResult<Vec<Vec<CompressedPage>>> {
    let options = options();
    array_to_columns(array, type_.clone(), options, encodings)?
        .into_iter()
        .map(|leaf| {
            leaf.map(|page| Ok(compress(page?, Vec::new(), options.compression)?))
                .collect()
        })
        .collect()
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
        let tmp = huarong_core::atomic::temp_path(path);
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
        let df = frame(table).map_err(|e| match e {
            ExportError::Polars { source, .. } => self.polars_err(source),
            other => other,
        })?;
        if self.batched.is_none() {
            let file = self
                .file
                .take()
                .expect("file is open until the first batch");
            let batched = Batched::new(file, &df).map_err(|e| self.polars_err(e))?;
            self.batched = Some(batched);
        }
        let res = self.batched.as_mut().unwrap().write(&df);
        res.map_err(|e| self.polars_err(e))
    }

    /// Finishes the file and renames it into place; returns its size in bytes.
    pub fn finish(mut self) -> Result<u64, ExportError> {
        let Some(writer) = self.batched.take() else {
            return Err(self.polars_err(PolarsError::NoData("no rows were written".into())));
        };
        let res = writer.writer.finish();
        let size = res.map_err(|e| self.polars_err(e))?;
        huarong_core::atomic::commit(None, &self.tmp, &self.dest).map_err(|source| {
            ExportError::Io {
                path: self.dest.clone(),
                source,
            }
        })?;
        self.file = None;
        self.tmp = PathBuf::new();
        Ok(size)
    }
}

impl Batched {
    fn new(file: File, first: &DataFrame) -> PolarsResult<Self> {
        let mut writer = ParquetWriter::new(BufWriter::with_capacity(1 << 20, file))
            .with_compression(ParquetCompression::Zstd(None))
            .with_statistics(options().statistics)
            .batched(first.schema())?;
        let types = writer.parquet_schema().fields().to_vec();
        let arrow = first.schema().to_arrow(CompatLevel::newest());
        let encodings = get_encodings(&arrow).iter().cloned().collect();
        Ok(Batched {
            writer,
            types,
            encodings,
        })
    }

    fn write(&mut self, df: &DataFrame) -> PolarsResult<()> {
        for batch in df.iter_chunks(CompatLevel::newest(), false) {
            if batch.is_empty() {
                continue;
            }
            let columns: Vec<Vec<Vec<CompressedPage>>> = batch
                .columns()
                .par_iter()
                .zip(&self.types)
                .zip(&self.encodings)
                .map(|((array, type_), encodings)| column_pages(array, type_, encodings))
                .collect::<PolarsResult<_>>()?;
            let leaves: Vec<Vec<CompressedPage>> = columns.into_iter().flatten().collect();
            self.writer.write_row_group(batch.len() as u64, &leaves)?;
        }
        Ok(())
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
            write(t, &dir.path().join("x.parquet")),
            Err(ExportError::Ragged { .. })
        ));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
