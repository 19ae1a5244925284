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
use polars_parquet::parquet::CowBuffer;
use polars_parquet::parquet::schema::types::PrimitiveType as PrimitiveTypeInfo;
use polars_parquet::write::{
    CompressedDataPage, CompressedPage, CompressionOptions, Descriptor, Encoding, FieldInfo, Page,
    ParquetType, Version, WriteOptions, array_to_columns, compress,
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

/// Every page of one column of a row group, encoded and compressed — for each of `types`:
/// columns holding the same values (a puzzle's metrics that share their components) are
/// encoded and compressed once, their pages copied.
fn column_pages(
    array: &ArrayRef,
    types: &[&ParquetType],
    encodings: &[Encoding],
) -> PolarsResult<Vec<Vec<Vec<CompressedPage>>>> {
    let options = options();
    let decided = match encodings {
        [Encoding::RleDictionary] => wide_dictionary(array.as_ref()),
        _ => None,
    };
    let type_ = types[0].clone();
    let leaves = match decided {
        Some(Decided::Dictionary(dictionary)) => {
            array_to_columns(&dictionary, type_, options, encodings)?
        }
        Some(Decided::Plain) => array_to_columns(array, type_, options, &[Encoding::Plain])?,
        None => array_to_columns(array, type_, options, encodings)?,
    };
    let mut out: Vec<Vec<Vec<CompressedPage>>> = types.iter().map(|_| Vec::new()).collect();
    for leaf in leaves {
        let mut pages: Vec<Vec<CompressedPage>> = types.iter().map(|_| Vec::new()).collect();
        for page in leaf {
            match page? {
                // Small (the distinct values): compressed for every copy.
                Page::Dict(dict) => {
                    for copy in &mut pages {
                        let page = Page::Dict(dict.clone());
                        copy.push(compress(page, Vec::new(), options.compression)?);
                    }
                }
                Page::Data(data) => {
                    let descriptor = data.descriptor.clone();
                    let num_rows = data.num_rows;
                    let compressed = compress(Page::Data(data), Vec::new(), options.compression)?;
                    let CompressedPage::Data(mut first) = compressed else {
                        unreachable!("a data page compresses to a data page");
                    };
                    for (copy, type_) in pages[1..].iter_mut().zip(&types[1..]) {
                        let ParquetType::PrimitiveType(primitive) = type_ else {
                            unreachable!("only primitive columns are shared");
                        };
                        let descriptor = Descriptor {
                            primitive_type: primitive.clone(),
                            ..descriptor.clone()
                        };
                        copy.push(CompressedPage::Data(CompressedDataPage::new(
                            first.header().clone(),
                            CowBuffer::Owned(first.slice_mut().to_vec()),
                            first.compression(),
                            first.uncompressed_size(),
                            descriptor,
                            num_rows.unwrap_or_else(|| first.num_values()),
                        )));
                    }
                    pages[0].push(CompressedPage::Data(first));
                }
            }
        }
        for (column, leaf) in out.iter_mut().zip(pages) {
            column.push(leaf);
        }
    }
    Ok(out)
}

/// Whether column `j` of a batch holds what column `i` does, in a Parquet type differing only
/// in its name: one non-null primitive integer column of the same values, so that its pages
/// are the same bytes.
fn same_column(
    arrays: &[ArrayRef],
    types: &[ParquetType],
    encodings: &[Vec<Encoding>],
    i: usize,
    j: usize,
) -> bool {
    use polars_arrow::array::{Array, PrimitiveArray};
    fn values<T: polars_arrow::types::NativeType>(a: &ArrayRef) -> Option<&[T]> {
        let a = a.as_any().downcast_ref::<PrimitiveArray<T>>()?;
        (Array::null_count(a) == 0).then(|| a.values().as_slice())
    }
    let (ParquetType::PrimitiveType(a), ParquetType::PrimitiveType(b)) = (&types[i], &types[j])
    else {
        return false;
    };
    let renamed = PrimitiveTypeInfo {
        field_info: FieldInfo {
            name: a.field_info.name.clone(),
            ..b.field_info.clone()
        },
        ..b.clone()
    };
    if renamed != *a || encodings[i] != encodings[j] || arrays[i].dtype() != arrays[j].dtype() {
        return false;
    }
    use polars_arrow::datatypes::ArrowDataType as Dt;
    match arrays[i].dtype() {
        Dt::UInt32 => values::<u32>(&arrays[i]).is_some_and(|v| Some(v) == values(&arrays[j])),
        Dt::UInt64 => values::<u64>(&arrays[i]).is_some_and(|v| Some(v) == values(&arrays[j])),
        _ => false,
    }
}

/// How the Parquet writer would encode an integer column, decided here instead.
enum Decided {
    /// Its dictionary: the distinct values in order of first appearance, and their keys.
    Dictionary(ArrayRef),
    /// Too many distinct values for a dictionary to pay.
    Plain,
}

/// The polars Parquet writer's dictionary for an integer column whose values span more than
/// its bitmask reaches (2^16): it estimates the distinct values (HyperLogLog), writes the
/// column plainly if they are over 3/4 of the rows, else builds the dictionary by hashing every
/// value. Here the same decision, from the same estimate, and the same dictionary (values in
/// order of first appearance, `u32` keys) from a table indexed by `value - min` instead of a
/// hash map: the same pages, byte for byte, in a fraction of the time (the labeled classic
/// space's three component columns, 37.9M rows each, were a quarter of the main job's export).
///
/// `None` where the writer decides as before: other types, nulls, a span its bitmask covers,
/// or one too wide for the table.
fn wide_dictionary(array: &dyn polars_arrow::array::Array) -> Option<Decided> {
    use polars_arrow::array::PrimitiveArray;
    use polars_arrow::datatypes::ArrowDataType as Dt;
    match array.dtype() {
        Dt::UInt32 => first_seen::<u32>(array.as_any().downcast_ref::<PrimitiveArray<u32>>()?),
        Dt::UInt64 => first_seen::<u64>(array.as_any().downcast_ref::<PrimitiveArray<u64>>()?),
        _ => None,
    }
}

/// Most entries of [`first_seen`]'s table (64 MB of `u32`).
const DENSE_SPAN: u64 = 1 << 24;

fn first_seen<T>(array: &polars_arrow::array::PrimitiveArray<T>) -> Option<Decided>
where
    T: polars_arrow::types::NativeType + Into<u64>,
{
    use polars_arrow::array::{Array, DictionaryArray, PrimitiveArray};
    use polars_arrow::datatypes::{ArrowDataType as Dt, IntegerType};
    let values = array.values().as_slice();
    if values.is_empty() || array.null_count() > 0 {
        return None;
    }
    let (min, max) = values.iter().fold((u64::MAX, 0u64), |(lo, hi), &v| {
        let v: u64 = v.into();
        (lo.min(v), hi.max(v))
    });
    let span = max - min;
    // The writer's bitmask covers spans up to u16::MAX for both types (its dictionary is then
    // sorted, not in order of appearance).
    if span <= u16::MAX as u64 || span >= DENSE_SPAN {
        return None;
    }
    let estimate = polars_compute::cardinality::estimate_cardinality(array);
    if values.len() > 128 && estimate as f64 / values.len() as f64 > 0.75 {
        return Some(Decided::Plain);
    }
    let mut key_of = vec![u32::MAX; span as usize + 1];
    let mut distinct: Vec<T> = Vec::new();
    let keys: Vec<u32> = values
        .iter()
        .map(|&v| {
            let slot = &mut key_of[(v.into() - min) as usize];
            if *slot == u32::MAX {
                *slot = distinct.len() as u32;
                distinct.push(v);
            }
            *slot
        })
        .collect();
    let dtype = Dt::Dictionary(IntegerType::UInt32, Box::new(array.dtype().clone()), false);
    let keys = PrimitiveArray::new(Dt::UInt32, keys.into(), None);
    let distinct = PrimitiveArray::new(array.dtype().clone(), distinct.into(), None);
    let dictionary = DictionaryArray::<u32>::try_new(dtype, keys, Box::new(distinct)).ok()?;
    Some(Decided::Dictionary(Box::new(dictionary)))
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
            let arrays = batch.columns();
            let (types, encodings) = (&self.types, &self.encodings);
            // Each column's first equal column: only those are encoded.
            let first: Vec<usize> = (0..arrays.len())
                .map(|j| {
                    (0..j)
                        .find(|&i| same_column(arrays, types, encodings, i, j))
                        .unwrap_or(j)
                })
                .collect();
            let groups: Vec<Vec<usize>> = (0..arrays.len())
                .filter(|&i| first[i] == i)
                .map(|i| (i..arrays.len()).filter(|&j| first[j] == i).collect())
                .collect();
            let encoded: Vec<Vec<Vec<Vec<CompressedPage>>>> = groups
                .par_iter()
                .map(|group| {
                    let group_types: Vec<&ParquetType> = group.iter().map(|&j| &types[j]).collect();
                    column_pages(&arrays[group[0]], &group_types, &encodings[group[0]])
                })
                .collect::<PolarsResult<_>>()?;
            let mut columns: Vec<Option<Vec<Vec<CompressedPage>>>> =
                (0..arrays.len()).map(|_| None).collect();
            for (group, pages) in groups.iter().zip(encoded) {
                for (&j, pages) in group.iter().zip(pages) {
                    columns[j] = Some(pages);
                }
            }
            let leaves: Vec<Vec<CompressedPage>> =
                columns.into_iter().flatten().flatten().collect();
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

    /// Integer columns whose values span more than 2^16 get their dictionary (or plain
    /// encoding) from [`wide_dictionary`], not from the Parquet writer, and a column equal to
    /// an earlier one gets copies of its pages: the file must be the one polars's own
    /// `ParquetWriter` writes, byte for byte, whichever way it decides.
    #[test]
    fn wide_integer_columns_are_written_as_polars_writes_them() {
        let rows = 50_000u32;
        let table = || {
            Table::new()
                // Few distinct values over a wide span, in no order: a dictionary.
                .u32(
                    "few",
                    (0..rows).map(|i| (i * 7_919 % 97) * 70_001).collect(),
                )
                // Distinct values, wide: plain.
                .u32("distinct", (0..rows).map(|i| i * 3 + 1_000_000).collect())
                // Half distinct, wide, u64: a dictionary.
                .u64(
                    "half",
                    (0..rows as u64)
                        .map(|i| (i / 2) * 1_000 + (1 << 40))
                        .collect(),
                )
                // A narrow span (the writer's own bitmask) and a column with nulls.
                .u32("narrow", (0..rows).map(|i| i % 1_000).collect())
                // Columns equal to earlier ones (encoded once, their pages copied), and one
                // equal but for its last value.
                .u32(
                    "few_again",
                    (0..rows).map(|i| (i * 7_919 % 97) * 70_001).collect(),
                )
                .u32("narrow_again", (0..rows).map(|i| i % 1_000).collect())
                .u32(
                    "narrow_but_one",
                    (0..rows)
                        .map(|i| if i + 1 == rows { 7 } else { i % 1_000 })
                        .collect(),
                )
                .opt_u32(
                    "nulls",
                    (0..rows)
                        .map(|i| (i % 5 != 0).then_some(i % 300 * 100_000))
                        .collect(),
                )
        };
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("ours.parquet");
        write(table(), &ours).unwrap();
        let theirs = dir.path().join("theirs.parquet");
        let mut df = frame(table()).unwrap();
        ParquetWriter::new(File::create(&theirs).unwrap())
            .with_compression(ParquetCompression::Zstd(None))
            .with_statistics(options().statistics)
            .finish(&mut df)
            .unwrap();
        assert_eq!(fs::read(&ours).unwrap(), fs::read(&theirs).unwrap());
        // And the decisions were the ones named above.
        let array = |values: Vec<u32>| -> ArrayRef {
            Box::new(polars_arrow::array::PrimitiveArray::from_vec(values))
        };
        let few = array((0..rows).map(|i| (i * 7_919 % 97) * 70_001).collect());
        let Some(Decided::Dictionary(d)) = wide_dictionary(few.as_ref()) else {
            panic!("a dictionary for 97 values over 6.7M");
        };
        assert_eq!(d.len(), rows as usize);
        let distinct = array((0..rows).map(|i| i * 3 + 1_000_000).collect());
        assert!(matches!(
            wide_dictionary(distinct.as_ref()),
            Some(Decided::Plain)
        ));
        let narrow = array((0..rows).map(|i| i % 1_000).collect());
        assert!(wide_dictionary(narrow.as_ref()).is_none());
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
