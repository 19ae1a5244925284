//! Stage 5, **export**: tables as Parquet, through polars — the only crate that depends on it.
//!
//! The crate knows nothing of puzzles or artifacts: callers hand it named, typed columns
//! ([`Table`], plain data from `huarong-core`) and it writes them atomically (temporary file,
//! then rename, the shared [`huarong_store::atomic`] protocol). Large tables are streamed in
//! batches ([`TableWriter`]), one row group or more per batch, so memory stays bounded by the
//! batch size.

use std::collections::HashMap;
use std::fs::{self, File};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

pub use huarong_core::table::{Column as TableColumn, Table};
use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_arrow::array::{BooleanArray, PrimitiveArray};
use polars_arrow::bitmap::Bitmap;
use polars_arrow::datatypes::ArrowDataType;
use polars_parquet::parquet::CowBuffer;
use polars_parquet::parquet::schema::types::PrimitiveType as PrimitiveTypeInfo;
use polars_parquet::write::{
    CompressedDataPage, CompressedPage, CompressionOptions, Descriptor, Encoding, FieldInfo, Page,
    ParquetType, Version, WriteOptions, array_to_columns, compress,
};
use rayon::prelude::*;

mod pages;

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

impl ExportError {
    pub fn kind(&self) -> huarong_core::ErrorKind {
        use huarong_core::ErrorKind;
        match self {
            ExportError::Io { source, .. } => ErrorKind::of_io(source),
            ExportError::Polars { .. } | ExportError::Ragged { .. } => ErrorKind::System,
            ExportError::Unreadable { .. } => ErrorKind::Corrupt,
        }
    }
}

/// A polars frame of a [`Table`] (every column the same length).
fn frame(table: Table) -> Result<DataFrame, ExportError> {
    let height = table.height();
    let mut columns: Vec<Column> = Vec::with_capacity(table.columns.len());
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
            TableColumn::Bool(v) => {
                let values = packed(&v, |&b| b);
                let array = BooleanArray::new(ArrowDataType::Boolean, values, None);
                BooleanChunked::with_chunk(name, array).into_column()
            }
            TableColumn::U32(v) => UInt32Chunked::from_vec(name, v).into_column(),
            TableColumn::OptU32(v) => Column::new(name, v),
            TableColumn::PackedU32(v) => {
                // The values move in as they are; nulls become a validity bitmap.
                let valid = packed(&v, |&x| x != huarong_core::table::NULL_U32);
                let valid = (valid.unset_bits() > 0).then_some(valid);
                UInt32Chunked::from_vec_validity(name, v, valid).into_column()
            }
            TableColumn::U64(v) => UInt64Chunked::from_vec(name, v).into_column(),
            TableColumn::OptU64(v) => Column::new(name, v),
            TableColumn::Index(rows) => UInt32Chunked::from_vec(name, rows.collect()).into_column(),
            // The earlier column's buffers, shared.
            TableColumn::Copy { of, .. } => match columns.get(of) {
                Some(earlier) => earlier.clone().with_name(name),
                None => {
                    return Err(ExportError::Polars {
                        path: PathBuf::new(),
                        source: PolarsError::ColumnNotFound(
                            format!("{name} copies column {of}, not an earlier one").into(),
                        ),
                    });
                }
            },
        });
    }
    DataFrame::new(height, columns).map_err(|source| ExportError::Polars {
        path: PathBuf::new(),
        source,
    })
}

/// One bit per value, `flag` of it, packed as Arrow packs bits (least significant first) a byte
/// at a time — `Bitmap`'s `FromIterator<bool>` pushes bit by bit (a twentieth of the main
/// job's export went to the validity of its distance columns that way).
fn packed<T>(values: &[T], flag: impl Fn(&T) -> bool) -> Bitmap {
    let byte = |chunk: &[T]| {
        chunk
            .iter()
            .enumerate()
            .fold(0u8, |byte, (j, v)| byte | (u8::from(flag(v)) << j))
    };
    let chunks = values.chunks_exact(8);
    let last = chunks.remainder();
    let mut bytes = Vec::with_capacity(values.len().div_ceil(8));
    bytes.extend(chunks.map(&byte));
    if !last.is_empty() {
        bytes.push(byte(last));
    }
    Bitmap::from_u8_vec(bytes, values.len())
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
        [Encoding::RleDictionary] => dictionary(array.as_ref()),
        _ => None,
    };
    let type_ = types[0].clone();
    type Pages = Box<dyn Iterator<Item = PolarsResult<Page>> + Send>;
    let boxed = |leaves: Vec<polars_parquet::write::DynIter<'static, PolarsResult<Page>>>| {
        leaves.into_iter().map(|l| Box::new(l) as Pages).collect()
    };
    let ours = |pages: Vec<Page>| vec![Box::new(pages.into_iter().map(Ok)) as Pages];
    let leaves: Vec<Pages> = match decided {
        Some(Decided::Dictionary(dictionary)) => match dictionary_pages(&dictionary, &type_) {
            Some(pages) => ours(pages),
            None => boxed(array_to_columns(&dictionary, type_, options, encodings)?),
        },
        Some(Decided::Offsets(distinct)) => {
            match offsets_pages(array.as_ref(), &distinct, &type_) {
                Some(pages) => ours(pages),
                None => {
                    let dictionary = offsets_dictionary(array.as_ref(), &distinct)
                        .expect("offsets are decided for u32 and u64 columns");
                    boxed(array_to_columns(&dictionary, type_, options, encodings)?)
                }
            }
        }
        Some(Decided::Plain) => boxed(array_to_columns(array, type_, options, &[Encoding::Plain])?),
        None => match (encodings, &type_, consecutive(array.as_ref())) {
            ([Encoding::DeltaBinaryPacked], ParquetType::PrimitiveType(t), Some(first)) => {
                match pages::range_pages(first, array.len(), t) {
                    Some(pages) => ours(pages),
                    None => boxed(array_to_columns(array, type_, options, encodings)?),
                }
            }
            _ => boxed(array_to_columns(array, type_, options, encodings)?),
        },
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
                        copy.push(compressed(page)?);
                    }
                }
                Page::Data(data) => {
                    let descriptor = data.descriptor.clone();
                    let num_rows = data.num_rows;
                    let CompressedPage::Data(mut first) = compressed(Page::Data(data))? else {
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

/// The pages of a dictionary array of `u32` keys over `u32` or `u64` values (those
/// [`dictionary`] decides), encoded here ([`pages::dictionary_pages`]).
fn dictionary_pages(dictionary: &ArrayRef, type_: &ParquetType) -> Option<Vec<Page>> {
    use polars_arrow::array::DictionaryArray;
    let ParquetType::PrimitiveType(t) = type_ else {
        return None;
    };
    let d = dictionary.as_any().downcast_ref::<DictionaryArray<u32>>()?;
    let values = d.values().as_any();
    if let Some(v) = values.downcast_ref::<PrimitiveArray<u32>>() {
        Some(pages::dictionary_pages(
            v.values(),
            pages::Keys::Listed(d.keys()),
            t,
        ))
    } else {
        let v = values.downcast_ref::<PrimitiveArray<u64>>()?;
        Some(pages::dictionary_pages(
            v.values(),
            pages::Keys::Listed(d.keys()),
            t,
        ))
    }
}

/// The pages of a column whose dictionary is the run of values `distinct` (see
/// [`Decided::Offsets`]), encoded here.
fn offsets_pages(
    array: &dyn polars_arrow::array::Array,
    distinct: &ArrayRef,
    type_: &ParquetType,
) -> Option<Vec<Page>> {
    fn typed<T: pages::Stored>(
        array: &dyn polars_arrow::array::Array,
        distinct: &ArrayRef,
        t: &PrimitiveTypeInfo,
    ) -> Option<Vec<Page>> {
        let array = array.as_any().downcast_ref::<PrimitiveArray<T>>()?;
        let distinct = distinct.as_any().downcast_ref::<PrimitiveArray<T>>()?;
        let min = *distinct.values().first()?;
        let keys = pages::Keys::Offsets(array, min);
        Some(pages::dictionary_pages(distinct.values(), keys, t))
    }
    let ParquetType::PrimitiveType(t) = type_ else {
        return None;
    };
    typed::<u32>(array, distinct, t).or_else(|| typed::<u64>(array, distinct, t))
}

/// The dictionary array of a column whose dictionary is the run of values `distinct`, its keys
/// stored (for the writer's own encoder).
fn offsets_dictionary(
    array: &dyn polars_arrow::array::Array,
    distinct: &ArrayRef,
) -> Option<ArrayRef> {
    fn typed<T: Dictionary>(
        array: &dyn polars_arrow::array::Array,
        distinct: &ArrayRef,
    ) -> Option<ArrayRef> {
        let array = array.as_any().downcast_ref::<PrimitiveArray<T>>()?;
        let distinct = distinct.as_any().downcast_ref::<PrimitiveArray<T>>()?;
        let min: u64 = (*distinct.values().first()?).into();
        let max = min + distinct.len() as u64 - 1;
        // A null's key is that of its value clamped into the span.
        let keys = (array.values().iter())
            .map(|&v| (v.into().clamp(min, max) - min) as u32)
            .collect();
        match dictionary_array(array, keys, distinct.clone(), array.validity().cloned()) {
            Decided::Dictionary(d) => Some(d),
            _ => None,
        }
    }
    typed::<u32>(array, distinct).or_else(|| typed::<u64>(array, distinct))
}

/// The first value of a `u32` column without nulls holding consecutive values (`None` for any
/// other column, or an empty one).
fn consecutive(array: &dyn polars_arrow::array::Array) -> Option<u32> {
    let a = array.as_any().downcast_ref::<PrimitiveArray<u32>>()?;
    let values = a.values().as_slice();
    let first = *values.first()?;
    let in_order = (values.iter().enumerate()).all(|(i, &v)| v == first.wrapping_add(i as u32));
    (polars_arrow::array::Array::null_count(a) == 0 && in_order).then_some(first)
}

/// `page` compressed as polars's `compress` does it (zstd at its default level), with a zstd
/// context kept per thread: `compress` makes one per page, its tables allocated and zeroed each
/// time (and the output buffer zeroed before zstd writes it). The same bytes: zstd derives a
/// frame's parameters from the level and the input's size alone, whichever context runs it.
fn compressed(page: Page) -> PolarsResult<CompressedPage> {
    use polars_parquet::parquet::page::{CompressedDictPage, DataPageHeader};
    thread_local! {
        static ZSTD: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    let zstd = |input: &[u8]| -> std::io::Result<Vec<u8>> {
        ZSTD.with_borrow_mut(|cx| {
            let cx = match cx {
                Some(cx) => cx,
                None => cx.insert(zstd::bulk::Compressor::new(0)?),
            };
            let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(input.len()));
            cx.compress_to_buffer(input, &mut out)?;
            Ok(out)
        })
    };
    let io = |e: std::io::Error| PolarsError::ComputeError(format!("zstd: {e}").into());
    let compression = options().compression;
    match page {
        Page::Data(data) if matches!(data.header(), DataPageHeader::V1(_)) => {
            let num_rows = data.num_rows.expect("a written page knows its rows");
            let buffer = zstd(data.buffer()).map_err(io)?;
            Ok(CompressedPage::Data(CompressedDataPage::new(
                data.header().clone(),
                CowBuffer::Owned(buffer),
                compression.into(),
                data.buffer().len(),
                data.descriptor.clone(),
                num_rows,
            )))
        }
        Page::Dict(dict) => {
            let buffer = zstd(&dict.buffer).map_err(io)?;
            Ok(CompressedPage::Dict(CompressedDictPage::new(
                CowBuffer::Owned(buffer),
                compression.into(),
                dict.buffer.len(),
                dict.num_values,
                dict.is_sorted,
            )))
        }
        other => Ok(compress(other, Vec::new(), compression)?),
    }
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
    /// Equal slices; one buffer shared by two columns ([`TableColumn::Copy`]) is not compared.
    fn equal<T: PartialEq>(a: Option<&[T]>, b: Option<&[T]>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => std::ptr::eq(a, b) || a == b,
            _ => false,
        }
    }
    use polars_arrow::datatypes::ArrowDataType as Dt;
    match arrays[i].dtype() {
        Dt::UInt32 => equal(values::<u32>(&arrays[i]), values(&arrays[j])),
        Dt::UInt64 => equal(values::<u64>(&arrays[i]), values(&arrays[j])),
        _ => false,
    }
}

/// How the Parquet writer would encode an integer column, decided here instead.
enum Decided {
    /// Its dictionary: the distinct values in order of first appearance, and their keys.
    Dictionary(ArrayRef),
    /// Every value from the least non-null one to the greatest occurs: the dictionary is that
    /// run of values in order (an array of the column's type), and a row's key its value less
    /// the least one — computed as the pages are written, not stored.
    Offsets(ArrayRef),
    /// Too many distinct values for a dictionary to pay.
    Plain,
}

/// The polars Parquet writer's dictionary for an integer column, decided here instead: the same
/// decision and the same dictionary, so the same pages byte for byte, in a fraction of the time
/// (the writer walks a column five times through generic iterators; the main job's distance
/// columns alone, 3 × 37.9M rows with nulls, were a fifth of its export).
///
/// The writer first takes the span of the non-null values. If it is at most 2^16 (its bitmask),
/// the dictionary is the distinct values in increasing order — unless they are over 3/4 of the
/// rows (and more than [`Dictionary::FEW`]), when the column is written plainly. Wider, it
/// estimates the distinct values (HyperLogLog), writes plainly over 3/4, else hashes every value
/// into a dictionary in order of first appearance; here, for columns without nulls, the same
/// estimate (taken over the distinct values, see [`first_seen`]) and a table indexed by
/// `value - min` where the span is under twice the rows, a hash map of integers otherwise.
///
/// `None` where the writer decides as before: other types, no non-null value, or a wide span
/// with nulls.
fn dictionary(array: &dyn polars_arrow::array::Array) -> Option<Decided> {
    use polars_arrow::datatypes::ArrowDataType as Dt;
    match array.dtype() {
        Dt::UInt32 => decide::<u32>(array.as_any().downcast_ref::<PrimitiveArray<u32>>()?),
        Dt::UInt64 => decide::<u64>(array.as_any().downcast_ref::<PrimitiveArray<u64>>()?),
        _ => None,
    }
}

/// The integer types [`dictionary`] decides for.
trait Dictionary: polars_arrow::types::NativeType + Into<u64> {
    /// Up to this many distinct values a narrow column always gets a dictionary (the writer's
    /// `DELTA_THRESHOLD`).
    const FEW: usize;
    /// A value of this type, as a `u64` (one that came from this type).
    fn from_u64(v: u64) -> Self;
}

impl Dictionary for u32 {
    const FEW: usize = 512;
    fn from_u64(v: u64) -> u32 {
        v as u32
    }
}

impl Dictionary for u64 {
    const FEW: usize = 2048;
    fn from_u64(v: u64) -> u64 {
        v
    }
}

/// Values below this are marked in [`decide`]'s first pass over a column.
const SMALL: u64 = 1 << 16;

fn decide<T: Dictionary>(array: &PrimitiveArray<T>) -> Option<Decided> {
    let values = array.values().as_slice();
    let validity = array.validity().filter(|v| v.unset_bits() > 0);
    // One pass: the span of the non-null values (a null's value is anything), and which of
    // them below [`SMALL`] occur — slot `SMALL` marks any above, `SMALL + 1` a null. Stores
    // only, no read of what an earlier row wrote: rows repeating a value do not wait for it.
    let (mut min, mut max) = (u64::MAX, 0u64);
    let mut seen = vec![false; SMALL as usize + 2];
    for_each_marked(values, validity, |v, valid| {
        min = min.min(if valid { v } else { u64::MAX });
        max = max.max(if valid { v } else { 0 });
        seen[if valid { v.min(SMALL) } else { SMALL + 1 } as usize] = true;
    });
    if min > max {
        return None;
    }
    let span = max - min;
    if span < SMALL {
        let distinct: Vec<T> = if max < SMALL {
            (min..=max)
                .filter(|&v| seen[v as usize])
                .map(T::from_u64)
                .collect()
        } else {
            distinct_in_span(values, validity, min, span)
        };
        Some(sorted(array, distinct, min, span))
    } else if validity.is_none() {
        Some(first_seen(array, min, span))
    } else {
        None
    }
}

/// Calls `f` with every value as a `u64` and whether it is valid, 64 values to a validity word
/// (branch-free callers then run without the bit iterator's per-value branches).
#[inline(always)]
fn for_each_marked<T: Dictionary>(
    values: &[T],
    validity: Option<&Bitmap>,
    mut f: impl FnMut(u64, bool),
) {
    let Some(validity) = validity else {
        values.iter().for_each(|&v| f(v.into(), true));
        return;
    };
    let mut words = validity.chunks::<u64>();
    let mut blocks = values.chunks_exact(64);
    for (block, word) in (&mut blocks).zip(&mut words) {
        for (j, &v) in block.iter().enumerate() {
            f(v.into(), word >> j & 1 == 1);
        }
    }
    let last = words.remainder();
    for (j, &v) in blocks.remainder().iter().enumerate() {
        f(v.into(), last >> j & 1 == 1);
    }
}

/// The distinct non-null values of a column whose span from `min` is `span`, in increasing
/// order.
fn distinct_in_span<T: Dictionary>(
    values: &[T],
    validity: Option<&Bitmap>,
    min: u64,
    span: u64,
) -> Vec<T> {
    let mut seen = vec![false; span as usize + 2];
    for_each_marked(values, validity, |v, valid| {
        // A null marks the slot past the span.
        seen[if valid { v - min } else { span + 1 } as usize] = true;
    });
    (0..=span)
        .filter(|&offset| seen[offset as usize])
        .map(|offset| T::from_u64(min + offset))
        .collect()
}

/// The narrow case of [`decide`]: `distinct`, the distinct non-null values in increasing order,
/// as the dictionary, each row's key its value's place among them.
fn sorted<T: Dictionary>(
    array: &PrimitiveArray<T>,
    distinct: Vec<T>,
    min: u64,
    span: u64,
) -> Decided {
    let values = array.values().as_slice();
    if distinct.len() > T::FEW && distinct.len() as f64 / values.len() as f64 >= 0.75 {
        return Decided::Plain;
    }
    let contiguous = distinct.len() as u64 == span + 1;
    let distinct = PrimitiveArray::new(array.dtype().clone(), distinct.into(), None);
    if contiguous {
        return Decided::Offsets(Box::new(distinct));
    }
    // A null's key is that of its value clamped into the span, as the writer has it (the
    // pages leave it out).
    let clamped = |v: T| (v.into().clamp(min, min + span) - min) as u32;
    let mut key_of = vec![0u32; span as usize + 1];
    for (key, &v) in distinct.values().iter().enumerate() {
        key_of[clamped(v) as usize] = key as u32;
    }
    let keys = values
        .iter()
        .map(|&v| key_of[clamped(v) as usize])
        .collect();
    dictionary_array(array, keys, distinct, array.validity().cloned())
}

/// The wide case of [`decide`], for a column without nulls: plain if the writer's estimate of
/// the distinct values is over 3/4 of the rows, else the distinct values in order of first
/// appearance, each row's key its value's place among them.
///
/// The estimate is taken over the distinct values, not every row: a HyperLogLog sketch keeps
/// per register the largest rank hashed to it, so it depends on the set of values alone, not on
/// how often or in what order they come.
fn first_seen<T: Dictionary>(array: &PrimitiveArray<T>, min: u64, span: u64) -> Decided {
    let values = array.values().as_slice();
    let mut distinct: Vec<T> = Vec::new();
    let keys: Vec<u32> = if span < 2 * values.len() as u64 {
        // Dense: a table indexed by `value - min`.
        let mut key_of = vec![u32::MAX; span as usize + 1];
        values
            .iter()
            .map(|&v| {
                let slot = &mut key_of[(v.into() - min) as usize];
                if *slot == u32::MAX {
                    *slot = distinct.len() as u32;
                    distinct.push(v);
                }
                *slot
            })
            .collect()
    } else {
        // Sparse (e.g. component sizes up to millions over a few thousand rows): hashed.
        let mut key_of: HashMap<u64, u32, BuildHasherDefault<Multiply>> = HashMap::default();
        values
            .iter()
            .map(|&v| {
                *key_of.entry(v.into()).or_insert_with(|| {
                    distinct.push(v);
                    distinct.len() as u32 - 1
                })
            })
            .collect()
    };
    let distinct = PrimitiveArray::new(array.dtype().clone(), distinct.into(), None);
    let estimate = polars_compute::cardinality::estimate_cardinality(&distinct);
    if values.len() > 128 && estimate as f64 / values.len() as f64 > 0.75 {
        return Decided::Plain;
    }
    dictionary_array(array, keys, distinct, None)
}

/// A hasher for integer keys: one multiplication, its high half folded into the low bits the
/// table indexes by.
#[derive(Default)]
struct Multiply(u64);

impl Hasher for Multiply {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        let h = (self.0 ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// The dictionary array of `array`'s values as `keys` into `distinct`.
fn dictionary_array<T: Dictionary>(
    array: &PrimitiveArray<T>,
    keys: Vec<u32>,
    distinct: PrimitiveArray<T>,
    validity: Option<Bitmap>,
) -> Decided {
    use polars_arrow::array::DictionaryArray;
    use polars_arrow::datatypes::IntegerType;
    let dtype =
        ArrowDataType::Dictionary(IntegerType::UInt32, Box::new(array.dtype().clone()), false);
    let keys = PrimitiveArray::new(ArrowDataType::UInt32, keys.into(), validity);
    // SAFETY: every key is below `distinct.len()`: the place of a value pushed there, or 0 (a
    // null's clamped value that no row holds; `distinct` has the column's minimum).
    let dictionary =
        unsafe { DictionaryArray::<u32>::try_new_unchecked(dtype, keys, Box::new(distinct)) }
            .expect("a dictionary of u32 keys over the column's own type");
    Decided::Dictionary(Box::new(dictionary))
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
        let tmp = huarong_store::atomic::temp_path(path);
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
        let mut indexes: Vec<bool> = Vec::with_capacity(table.columns.len());
        for (_, c) in &table.columns {
            let index = match c {
                TableColumn::Index(_) => true,
                TableColumn::Copy { of, .. } => indexes.get(*of).copied().unwrap_or(false),
                _ => false,
            };
            indexes.push(index);
        }
        let df = frame(table).map_err(|e| match e {
            ExportError::Polars { source, .. } => self.polars_err(source),
            other => other,
        })?;
        if self.batched.is_none() {
            let file = self
                .file
                .take()
                .expect("file is open until the first batch");
            let batched = Batched::new(file, &df, &indexes).map_err(|e| self.polars_err(e))?;
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
        huarong_store::atomic::commit(None, &self.tmp, &self.dest).map_err(|source| {
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
    /// `indexes`: which columns are [`TableColumn::Index`] (delta-encoded).
    fn new(file: File, first: &DataFrame, indexes: &[bool]) -> PolarsResult<Self> {
        let mut writer = ParquetWriter::new(BufWriter::with_capacity(1 << 20, file))
            .with_compression(ParquetCompression::Zstd(None))
            .with_statistics(options().statistics)
            .batched(first.schema())?;
        let types = writer.parquet_schema().fields().to_vec();
        let arrow = first.schema().to_arrow(CompatLevel::newest());
        let mut encodings: Vec<Vec<Encoding>> = get_encodings(&arrow).iter().cloned().collect();
        for (encoding, &index) in encodings.iter_mut().zip(indexes) {
            if index {
                *encoding = vec![Encoding::DeltaBinaryPacked];
            }
        }
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
                    .index("index", batch * 2..batch * 2 + 2)
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
        assert_eq!(
            idx.into_no_null_iter().collect::<Vec<_>>(),
            (0..6).collect::<Vec<_>>()
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Integer columns get their dictionary (or plain encoding) from [`dictionary`], not from
    /// the Parquet writer, and a column equal to an earlier one gets copies of its pages: the
    /// file must be the one polars's own `ParquetWriter` writes, byte for byte, whichever way
    /// it decides — narrow or wide, with nulls or without, dictionary or plain.
    #[test]
    fn integer_columns_are_written_as_polars_writes_them() {
        let rows = 50_000u32;
        let null = huarong_core::table::NULL_U32;
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
                // Few distinct values over a span under twice the rows (a table, not a hash
                // map, finds them here).
                .u32(
                    "few_dense",
                    (0..rows).map(|i| (i * 13 % 1_000) * 80 + 7).collect(),
                )
                // A narrow span (the writer's own bitmask): a sorted dictionary — every value
                // of the span, values with gaps, values above 2^16.
                .u32("narrow", (0..rows).map(|i| i % 1_000 + 5).collect())
                .u32(
                    "narrow_gaps",
                    (0..rows).map(|i| (i * 7 % 100) * 7).collect(),
                )
                .u64(
                    "narrow_high",
                    (0..rows as u64).map(|i| 100_000 + i % 1_000 * 3).collect(),
                )
                // Narrow and distinct: plain; narrow, u64.
                .u32("narrow_distinct", (0..rows).map(|i| rows - i).collect())
                .u64("narrow_u64", (0..rows as u64).map(|i| i % 3_000).collect())
                // Columns equal to earlier ones (encoded once, their pages copied), and one
                // equal but for its last value.
                .u32(
                    "few_again",
                    (0..rows).map(|i| (i * 7_919 % 97) * 70_001).collect(),
                )
                .u32("narrow_again", (0..rows).map(|i| i % 1_000 + 5).collect())
                .u32(
                    "narrow_but_one",
                    (0..rows)
                        .map(|i| if i + 1 == rows { 7 } else { i % 1_000 + 5 })
                        .collect(),
                )
                // Nulls, wide (the writer decides) and narrow (a distance per position), one
                // with values on both sides of the nulls' placeholder, one whose rows are
                // all but one null, one all null.
                .opt_u32(
                    "nulls",
                    (0..rows)
                        .map(|i| (i % 5 != 0).then_some(i % 300 * 100_000))
                        .collect(),
                )
                .packed_u32(
                    "distance",
                    (0..rows)
                        .map(|i| if i % 7 < 2 { null } else { i * 31 % 127 })
                        .collect(),
                )
                .opt_u32(
                    "narrow_nulls",
                    (0..rows)
                        .map(|i| (i % 3 != 0).then_some(60_000 + i % 5_000))
                        .collect(),
                )
                .packed_u32(
                    "one_value",
                    (0..rows).map(|i| if i == 777 { 9 } else { null }).collect(),
                )
                .packed_u32("no_value", vec![null; rows as usize])
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
        let keys = |d: &ArrayRef| -> (Vec<u32>, usize) {
            let d = d
                .as_any()
                .downcast_ref::<polars_arrow::array::DictionaryArray<u32>>()
                .unwrap();
            (d.keys().values().as_slice().to_vec(), d.values().len())
        };
        let few = array((0..rows).map(|i| (i * 7_919 % 97) * 70_001).collect());
        let Some(Decided::Dictionary(d)) = dictionary(few.as_ref()) else {
            panic!("a dictionary for 97 values over 6.7M");
        };
        // In order of first appearance: the first rows are keys 0, 1, 2.
        assert_eq!((keys(&d).0[..3].to_vec(), keys(&d).1), (vec![0, 1, 2], 97));
        let distinct = array((0..rows).map(|i| i * 3 + 1_000_000).collect());
        assert!(matches!(
            dictionary(distinct.as_ref()),
            Some(Decided::Plain)
        ));
        let narrow = array((0..rows).map(|i| 1_004 - i % 1_000).collect());
        let Some(Decided::Offsets(run)) = dictionary(narrow.as_ref()) else {
            panic!("a run of 1,000 values over 1,000: keys are offsets");
        };
        // Sorted: the dictionary runs from the least value up; as stored keys (the writer's
        // own encoder), the first row holds the largest.
        let values = run.as_any().downcast_ref::<PrimitiveArray<u32>>().unwrap();
        assert_eq!((values.len(), values.value(0)), (1_000, 5));
        let d = offsets_dictionary(narrow.as_ref(), &run).unwrap();
        assert_eq!(
            (keys(&d).0[..2].to_vec(), keys(&d).1),
            (vec![999, 998], 1_000)
        );
        let few_dense = array((0..rows).map(|i| (i * 13 % 1_000) * 80 + 7).collect());
        let Some(Decided::Dictionary(d)) = dictionary(few_dense.as_ref()) else {
            panic!("a dictionary for 1,000 values over 79,920");
        };
        assert_eq!(
            (keys(&d).0[..3].to_vec(), keys(&d).1),
            (vec![0, 1, 2], 1_000)
        );
        let gaps = array((0..rows).map(|i| (i * 7 % 100) * 7).collect());
        let Some(Decided::Dictionary(d)) = dictionary(gaps.as_ref()) else {
            panic!("a dictionary for 100 values over 693");
        };
        // Sorted: rows 0, 1, 2 hold 0, 49, 98 — the 1st, 8th and 15th values.
        assert_eq!(
            (keys(&d).0[..3].to_vec(), keys(&d).1),
            (vec![0, 7, 14], 100)
        );
        let narrow_distinct = array((0..rows).map(|i| rows - i).collect());
        assert!(matches!(
            dictionary(narrow_distinct.as_ref()),
            Some(Decided::Plain)
        ));
        let no_value = frame(Table::new().packed_u32("d", vec![null; 3])).unwrap();
        let no_value = no_value
            .column("d")
            .unwrap()
            .as_materialized_series()
            .to_arrow(0, CompatLevel::newest());
        assert!(dictionary(no_value.as_ref()).is_none());
    }

    /// An index column is written delta-encoded: a million row numbers take a few kB (plainly
    /// 4 MB, 2.7 MB compressed — the main job's states table's `index`, 37.9M rows, was 103 of
    /// its 122 MB) and read back as they were.
    #[test]
    fn index_columns_are_delta_encoded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let rows = 1_000_000u32;
        let size = write(Table::new().index("index", 7..7 + rows), &path).unwrap();
        assert!(size < 20_000, "{size} bytes");
        let df = ParquetReader::new(File::open(&path).unwrap())
            .finish()
            .unwrap();
        let idx = df.column("index").unwrap().u32().unwrap();
        assert!(idx.into_no_null_iter().eq(7..7 + rows));
        assert_eq!(idx.null_count(), 0);
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
