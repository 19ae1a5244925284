//! Data pages encoded here rather than by the Parquet writer, byte for byte as it would encode
//! them, where its generic iterators were much of an export's time (about a fifth of the main
//! job's, single-threaded):
//! - a run of consecutive row numbers, delta-encoded (an `index` column: every delta is 1, so
//!   every block is the same two bytes);
//! - the keys of a dictionary-encoded integer column and their definition levels, in the
//!   RLE / bit-packing hybrid with the runs the writer picks ([`hybrid`]).
//!
//! The tests here compare pages with the writer's; those in `lib.rs` whole files with the ones
//! polars's own `ParquetWriter` writes.

use polars_arrow::array::{Array, PrimitiveArray};
use polars_arrow::bitmap::Bitmap;
use polars_parquet::parquet::CowBuffer;
use polars_parquet::parquet::metadata::Descriptor;
use polars_parquet::parquet::page::{DataPage, DataPageHeader, DictPage, Page};
use polars_parquet::parquet::schema::Repetition;
use polars_parquet::parquet::schema::types::PrimitiveType;
use polars_parquet::parquet::statistics::{ParquetStatistics, PrimitiveStatistics};
use polars_parquet::parquet::types::NativeType as _;
use polars_parquet::write::Encoding;

/// The writer's page size when none is set: a column is cut into pages of about this many
/// bytes of its values (and validity) in memory.
const PAGE_BYTES: usize = 1 << 20;

/// The rows `(offset, length)` of each page of a column of `rows` rows taking `bytes` bytes in
/// memory, as the writer cuts them.
pub(crate) fn page_ranges(rows: usize, bytes: usize) -> impl Iterator<Item = (usize, usize)> {
    let bytes_per_row = if rows == 0 {
        0
    } else {
        (bytes as f64 / rows as f64) as usize
    };
    let per_page = (PAGE_BYTES / (bytes_per_row + 1)).max(1);
    (0..rows)
        .step_by(per_page)
        .map(move |offset| (offset, (offset + per_page).min(rows) - offset))
}

/// Appends `value` as an unsigned LEB128 varint.
fn uleb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = value as u8 & 0x7f;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends `value` zigzag-encoded as a varint.
fn zigzag(out: &mut Vec<u8>, value: i64) {
    uleb128(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// The definition levels of `rows` rows without nulls in a version-1 page: their byte length,
/// then one run of `rows` ones — nothing for a required column.
fn all_defined(out: &mut Vec<u8>, type_: &PrimitiveType, rows: usize) {
    if type_.field_info.repetition == Repetition::Required {
        return;
    }
    let mut run = Vec::with_capacity(6);
    uleb128(&mut run, (rows as u64) << 1);
    run.push(1);
    out.extend_from_slice(&(run.len() as u32).to_le_bytes());
    out.extend_from_slice(&run);
}

/// A version-1 data page of `rows` rows.
fn data_page(
    buffer: Vec<u8>,
    rows: usize,
    encoding: Encoding,
    statistics: ParquetStatistics,
    type_: &PrimitiveType,
) -> Page {
    let header = polars_parquet_format::DataPageHeader {
        num_values: rows as i32,
        encoding: encoding.into(),
        definition_level_encoding: Encoding::Rle.into(),
        repetition_level_encoding: Encoding::Rle.into(),
        statistics: Some(statistics),
    };
    Page::Data(DataPage::new(
        DataPageHeader::V1(header),
        CowBuffer::Owned(buffer),
        Descriptor {
            primitive_type: type_.clone(),
            max_def_level: 0,
            max_rep_level: 0,
        },
        rows,
    ))
}

/// The pages of a `u32` column holding `first, first + 1, …` (`rows` values), delta-encoded;
/// `None` past `i32::MAX`, where the writer's deltas between the `i32`s it stores are no longer
/// all 1.
pub(crate) fn range_pages(first: u32, rows: usize, type_: &PrimitiveType) -> Option<Vec<Page>> {
    if first as u64 + rows as u64 > i32::MAX as u64 + 1 {
        return None;
    }
    let pages = page_ranges(rows, rows * 4).map(|(offset, len)| {
        let start = first as i64 + offset as i64;
        let mut buffer = Vec::with_capacity(64 + len / 128);
        all_defined(&mut buffer, type_, len);
        // Blocks of 256 values in one miniblock; the first value stands alone.
        uleb128(&mut buffer, 256);
        uleb128(&mut buffer, 1);
        uleb128(&mut buffer, len as u64);
        zigzag(&mut buffer, if len == 0 { 0 } else { start });
        for _ in 0..len.saturating_sub(1).div_ceil(256) {
            // The least delta, 1; its miniblock's bit width, 0 (no bits follow).
            zigzag(&mut buffer, 1);
            buffer.push(0);
        }
        let statistics = PrimitiveStatistics::<i32> {
            primitive_type: type_.clone(),
            null_count: Some(0),
            distinct_count: None,
            min_value: (len > 0).then_some(start as i32),
            max_value: (len > 0).then(|| (start + len as i64 - 1) as i32),
        };
        data_page(
            buffer,
            len,
            Encoding::DeltaBinaryPacked,
            statistics.serialize(),
            type_,
        )
    });
    Some(pages.collect())
}

/// An integer type a dictionary holds, and how the writer stores it (`u32` as `i32`, `u64` as
/// `i64`: the same bits).
pub(crate) trait Stored: polars_arrow::types::NativeType + Ord {
    /// The Parquet type's value.
    type Parquet: polars_parquet::parquet::types::NativeType;
    fn stored(self) -> Self::Parquet;
    /// The value as a `u64`.
    fn stored_u64(self) -> u64;
}

impl Stored for u32 {
    type Parquet = i32;
    fn stored(self) -> i32 {
        self as i32
    }
    fn stored_u64(self) -> u64 {
        u64::from(self)
    }
}

impl Stored for u64 {
    type Parquet = i64;
    fn stored(self) -> i64 {
        self as i64
    }
    fn stored_u64(self) -> u64 {
        self
    }
}

/// The key of each row of a dictionary-encoded column (a null row's key is ignored).
pub(crate) enum Keys<'a, T: Stored> {
    /// As listed.
    Listed(&'a PrimitiveArray<u32>),
    /// Each row's value less `min`: the dictionary is every value from `min` up, in order, so
    /// the keys need not be stored.
    Offsets(&'a PrimitiveArray<T>, T),
}

impl<T: Stored> Keys<'_, T> {
    fn len(&self) -> usize {
        match self {
            Keys::Listed(k) => k.len(),
            Keys::Offsets(v, _) => v.len(),
        }
    }

    fn validity(&self) -> Option<&Bitmap> {
        match self {
            Keys::Listed(k) => k.validity(),
            Keys::Offsets(v, _) => v.validity(),
        }
    }

    fn null_count(&self) -> usize {
        match self {
            Keys::Listed(k) => k.null_count(),
            Keys::Offsets(v, _) => v.null_count(),
        }
    }
}

/// The pages of a dictionary-encoded column: `distinct` (its dictionary, plain) and the data
/// pages of its `keys`, the place of each row's value in it.
pub(crate) fn dictionary_pages<T: Stored>(
    distinct: &[T],
    keys: Keys<'_, T>,
    type_: &PrimitiveType,
) -> Vec<Page> {
    let mut dict = Vec::with_capacity(distinct.len() * size_of::<T::Parquet>());
    for &v in distinct {
        dict.extend_from_slice(v.stored().to_le_bytes().as_ref());
    }
    let mut pages = vec![Page::Dict(DictPage::new(
        CowBuffer::Owned(dict),
        distinct.len(),
        false,
    ))];
    // Every data page carries the statistics of the whole dictionary.
    let statistics = PrimitiveStatistics::<T::Parquet> {
        primitive_type: type_.clone(),
        null_count: Some(keys.null_count() as i64),
        distinct_count: None,
        min_value: distinct.iter().min().map(|v| v.stored()),
        max_value: distinct.iter().max().map(|v| v.stored()),
    }
    .serialize();
    let validity = keys.validity();
    // The writer's estimate of the keys' bytes: 4 a row (`u32` keys) and their validity.
    let bytes = keys.len() * 4 + validity.map_or(0, |b| b.as_slice().0.len());
    let mut valid = Vec::new();
    for (offset, len) in page_ranges(keys.len(), bytes) {
        // A page's slice keeps its validity only if it has a null, as the writer slices.
        let validity = validity
            .map(|b| b.clone().sliced(offset, len))
            .filter(|b| b.unset_bits() > 0);
        let mut buffer = Vec::new();
        match &validity {
            Some(validity) if type_.field_info.repetition != Repetition::Required => {
                buffer.extend_from_slice(&[0; 4]);
                hybrid_bits(&mut buffer, validity);
                let levels = (buffer.len() - 4) as u32;
                buffer[..4].copy_from_slice(&levels.to_le_bytes());
            }
            _ => all_defined(&mut buffer, type_, len),
        }
        // The keys of the page's non-null rows.
        valid.clear();
        let rows: &[u32] = match (&keys, &validity) {
            (Keys::Listed(k), None) => &k.values()[offset..offset + len],
            (Keys::Listed(k), Some(validity)) => {
                let rows = &k.values()[offset..offset + len];
                only_valid(rows, validity, &mut valid, |k| k);
                &valid
            }
            (&Keys::Offsets(v, min), validity) => {
                let rows = &v.values()[offset..offset + len];
                let key = |v: T| (v.stored_u64() - min.stored_u64()) as u32;
                match validity {
                    Some(validity) => only_valid(rows, validity, &mut valid, key),
                    None => valid.extend(rows.iter().map(|&v| key(v))),
                }
                &valid
            }
        };
        let width = 32 - rows.iter().max().copied().unwrap_or(0).leading_zeros();
        buffer.push(width as u8);
        hybrid(&mut buffer, rows.iter().copied(), width);
        pages.push(data_page(
            buffer,
            len,
            Encoding::RleDictionary,
            statistics.clone(),
            type_,
        ));
    }
    pages
}

/// Appends `key` of each value of `rows` whose bit in `validity` is set to `out`.
fn only_valid<V: Copy>(rows: &[V], validity: &Bitmap, out: &mut Vec<u32>, key: impl Fn(V) -> u32) {
    let mut words = validity.chunks::<u64>();
    let mut blocks = rows.chunks_exact(64);
    for (block, word) in (&mut blocks).zip(&mut words) {
        if word == u64::MAX {
            out.extend(block.iter().map(|&v| key(v)));
        } else if word != 0 {
            out.extend(
                (block.iter().enumerate())
                    .filter(|&(j, _)| word >> j & 1 == 1)
                    .map(|(_, &v)| key(v)),
            );
        }
    }
    let last = words.remainder();
    let block = blocks.remainder();
    out.extend(
        (block.iter().enumerate())
            .filter(|&(j, _)| last >> j & 1 == 1)
            .map(|(_, &v)| key(v)),
    );
}

/// Most values the writer buffers in one literal run.
const MOST_LITERAL: usize = 8 * 1024;

/// A value of the RLE / bit-packing hybrid: how a literal run of them is bit-packed and a
/// repeated one written.
trait Hybrid: Copy + PartialEq + Default {
    fn literal(out: &mut Vec<u8>, run: &[Self], width: u32);
    fn repeated(out: &mut Vec<u8>, count: usize, value: Self, width: u32);
}

impl Hybrid for u32 {
    /// In blocks of 32, each `width` bits a value, least significant first. A last partial
    /// block is packed whole, as many bytes as its groups of 8 take, its tail what the block
    /// before it held (the writer reuses one buffer; readers ignore the tail).
    fn literal(out: &mut Vec<u8>, run: &[u32], width: u32) {
        uleb128(out, ((run.len().div_ceil(8) as u64) << 1) | 1);
        let mut block = [0u32; 32];
        let mut chunks = run.chunks_exact(32);
        for chunk in &mut chunks {
            block.copy_from_slice(chunk);
            pack(out, &block, width, 4 * width as usize);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            block[..rest.len()].copy_from_slice(rest);
            pack(out, &block, width, rest.len().div_ceil(8) * width as usize);
        }
    }

    fn repeated(out: &mut Vec<u8>, count: usize, value: u32, width: u32) {
        uleb128(out, (count as u64) << 1);
        out.extend_from_slice(&value.to_le_bytes()[..width.div_ceil(8) as usize]);
    }
}

impl Hybrid for bool {
    /// A bit a value, least significant first, the last byte padded with zeros.
    fn literal(out: &mut Vec<u8>, run: &[bool], _width: u32) {
        uleb128(out, ((run.len().div_ceil(8) as u64) << 1) | 1);
        out.extend(run.chunks(8).map(|byte| {
            (byte.iter().enumerate()).fold(0u8, |acc, (j, &b)| acc | (u8::from(b) << j))
        }));
    }

    fn repeated(out: &mut Vec<u8>, count: usize, value: bool, _width: u32) {
        uleb128(out, (count as u64) << 1);
        out.push(u8::from(value));
    }
}

/// The first `bytes` bytes of the 32 values of `block` packed `width` bits each, least
/// significant bit first.
fn pack(out: &mut Vec<u8>, block: &[u32; 32], width: u32, bytes: usize) {
    let start = out.len();
    let (mut acc, mut held) = (0u64, 0u32);
    for &v in block {
        acc |= u64::from(v) << held;
        held += width;
        while held >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            held -= 8;
        }
    }
    out.truncate(start + bytes);
}

/// The state of the writer's run-picking encoder.
struct Runs<V: Hybrid> {
    /// Rows equal to `previous` in a row, counting it.
    repeats: usize,
    previous: V,
    /// Values held for a literal run (`filled` of them); the first `literal` are its run so far.
    held: Vec<V>,
    filled: usize,
    literal: usize,
}

impl<V: Hybrid> Runs<V> {
    fn new() -> Self {
        Runs {
            repeats: 0,
            previous: V::default(),
            held: vec![V::default(); MOST_LITERAL],
            filled: 0,
            literal: 0,
        }
    }

    /// The encoder's step for one value: a run of 9 or more equal values is written repeated,
    /// after the literal values before it (taking up to 7 of its own to fill the literal run's
    /// last group of 8); shorter runs join the literal run, written when it reaches
    /// [`MOST_LITERAL`] values.
    #[inline(always)]
    fn push(&mut self, out: &mut Vec<u8>, v: V, width: u32) {
        if v == self.previous {
            self.repeats += 1;
            if self.repeats > 8 {
                return;
            }
            if self.repeats == 8 {
                let padding = (8 - self.literal % 8) % 8;
                self.repeats -= padding;
                self.literal += padding;
            }
        } else if self.repeats > 8 {
            if self.literal > 0 {
                V::literal(out, &self.held[..self.literal], width);
                self.literal = 0;
            }
            V::repeated(out, self.repeats, self.previous, width);
            self.repeats = 1;
            self.filled = 0;
        } else {
            self.literal = self.filled;
            self.repeats = 1;
        }
        if self.filled == MOST_LITERAL {
            V::literal(out, &self.held, width);
            self.repeats = 1;
            self.filled = 0;
            self.literal = 0;
        }
        self.held[self.filled] = v;
        self.previous = v;
        self.filled += 1;
    }

    fn finish(mut self, out: &mut Vec<u8>, width: u32) {
        if self.repeats <= 8 {
            self.literal = self.filled;
        }
        if self.literal > 0 {
            V::literal(out, &self.held[..self.literal], width);
        }
        if self.repeats > 8 {
            V::repeated(out, self.repeats, self.previous, width);
        }
    }
}

/// `values`, `width` bits each, in the RLE / bit-packing hybrid, with the writer's runs.
fn hybrid<V: Hybrid>(out: &mut Vec<u8>, values: impl Iterator<Item = V>, width: u32) {
    let mut runs = Runs::new();
    for v in values {
        runs.push(out, v, width);
    }
    runs.finish(out, width);
}

/// The bits of `bitmap` as [`hybrid`] writes them, 64 equal bits at a time while a repeated
/// run is open (each would return at once).
fn hybrid_bits(out: &mut Vec<u8>, bitmap: &Bitmap) {
    let mut runs = Runs::<bool>::new();
    let mut words = bitmap.chunks::<u64>();
    for word in &mut words {
        let all = match word {
            0 => Some(false),
            u64::MAX => Some(true),
            _ => None,
        };
        if runs.repeats > 8 && all == Some(runs.previous) {
            runs.repeats += 64;
            continue;
        }
        for j in 0..64 {
            runs.push(out, word >> j & 1 == 1, 1);
        }
    }
    let last = words.remainder();
    for j in 0..words.remainder_len() {
        runs.push(out, last >> j & 1 == 1, 1);
    }
    runs.finish(out, 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars_arrow::array::{Array, PrimitiveArray};
    use polars_arrow::datatypes::{ArrowDataType, Field};
    use polars_parquet::write::{ParquetType, WriteOptions, array_to_columns, to_parquet_type};
    use proptest::prelude::*;

    /// A column's Parquet type as the writer derives it (nullable, as polars writes them).
    fn parquet_type(name: &str, dtype: ArrowDataType) -> ParquetType {
        to_parquet_type(&Field::new(name.into(), dtype, true)).unwrap()
    }

    /// The pages polars encodes for `array` — shown, so that pages compare whole.
    fn theirs(array: &dyn Array, type_: &ParquetType, encoding: Encoding) -> Vec<String> {
        let options = WriteOptions {
            statistics: polars::prelude::StatisticsOptions::full(),
            ..crate::options()
        };
        let leaves = array_to_columns(array, type_.clone(), options, &[encoding]).unwrap();
        leaves
            .into_iter()
            .flatten()
            .map(|page| format!("{:?}", page.unwrap()))
            .collect()
    }

    /// Values in runs: `(value, how many)`; rows in runs of validity: `(valid, how many)`.
    fn unrun<T: Copy>(runs: &[(T, usize)]) -> Vec<T> {
        runs.iter()
            .flat_map(|&(v, n)| std::iter::repeat_n(v, n))
            .collect()
    }

    /// Our pages and the writer's for the dictionary array of `keys` (nulls where `validity`
    /// says) over `distinct`.
    fn both(
        keys: Vec<u32>,
        validity: Option<Vec<bool>>,
        distinct: Vec<u32>,
    ) -> (Vec<String>, Vec<String>) {
        use polars_arrow::array::DictionaryArray;
        use polars_arrow::datatypes::IntegerType;
        let type_ = parquet_type("d", ArrowDataType::UInt32);
        let ParquetType::PrimitiveType(primitive) = &type_ else {
            panic!("a u32 column is primitive");
        };
        let validity = validity.map(|v| Bitmap::from_iter(v.iter().copied()));
        let keys = PrimitiveArray::new(ArrowDataType::UInt32, keys.into(), validity);
        let values = PrimitiveArray::from_vec(distinct.clone());
        let dtype =
            ArrowDataType::Dictionary(IntegerType::UInt32, Box::new(ArrowDataType::UInt32), false);
        let dictionary =
            DictionaryArray::<u32>::try_new(dtype, keys.clone(), Box::new(values)).unwrap();
        let ours = dictionary_pages(&distinct, Keys::Listed(&keys), primitive)
            .iter()
            .map(|page| format!("{page:?}"))
            .collect();
        (ours, theirs(&dictionary, &type_, Encoding::RleDictionary))
    }

    /// Our pages for the same keys given as values less the least (a null row's value is
    /// anything), over a dictionary that is a run of values.
    fn as_offsets(keys: &[u32], validity: Option<&[bool]>, min: u32) -> Vec<String> {
        let type_ = parquet_type("d", ArrowDataType::UInt32);
        let ParquetType::PrimitiveType(primitive) = &type_ else {
            panic!("a u32 column is primitive");
        };
        let max = keys.iter().max().copied().unwrap_or(0);
        let distinct: Vec<u32> = (min..=min + max).collect();
        let values: Vec<u32> = (keys.iter().enumerate())
            .map(|(i, &k)| match validity {
                Some(v) if !v[i] => u32::MAX,
                _ => min + k,
            })
            .collect();
        let validity = validity.map(|v| Bitmap::from_iter(v.iter().copied()));
        let values = PrimitiveArray::new(ArrowDataType::UInt32, values.into(), validity);
        dictionary_pages(&distinct, Keys::Offsets(&values, min), primitive)
            .iter()
            .map(|page| format!("{page:?}"))
            .collect()
    }

    /// Run lengths that reach each of the writer's cases: short literal runs, runs around the 8
    /// it repeats from, long runs, and literal stretches past its 8,192-value buffer.
    fn run_length() -> impl Strategy<Value = usize> {
        prop_oneof![4 => 1usize..4, 3 => 6usize..11, 1 => 12usize..300, 1 => 2_000usize..9_000]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Keys and definition levels in the RLE / bit-packing hybrid, page by page, as the
        /// writer encodes them: any widths, runs, nulls (none, some, all of a page).
        #[test]
        fn dictionary_keys_are_encoded_as_the_writer_encodes_them(
            values in proptest::collection::vec((0u32..300, run_length(), any::<bool>()), 1..60),
            valid in proptest::collection::vec((proptest::bool::weighted(0.7), run_length()), 1..60),
            width in 0u32..10,
            nulls in any::<bool>(),
        ) {
            let mask = (1u32 << width) - 1;
            // A run of one value, or as many values that mostly differ from their neighbours.
            let keys: Vec<u32> = (values.iter())
                .flat_map(|&(v, n, noisy)| {
                    (0..n as u32).map(move |i| if noisy { v.wrapping_mul(i + 1) % 307 } else { v })
                })
                .map(|k| k & mask)
                .collect();
            let n = keys.len();
            let validity = nulls.then(|| {
                let mut v = unrun(&valid);
                v.resize(n, true);
                v
            });
            let distinct: Vec<u32> = (0..=mask).map(|k| k * 3 + 1).collect();
            let (ours, theirs) = both(keys.clone(), validity.clone(), distinct);
            prop_assert_eq!(ours, theirs);
            // The same keys as offsets from 1,000 over the run of values they reach.
            let max = keys.iter().max().copied().unwrap_or(0);
            let run: Vec<u32> = (1_000..=1_000 + max).collect();
            let (_, theirs) = both(keys.clone(), validity.clone(), run);
            prop_assert_eq!(as_offsets(&keys, validity.as_deref(), 1_000), theirs);
        }
    }

    #[test]
    fn dictionary_pages_are_cut_as_the_writer_cuts_them() {
        // 600,000 rows: three pages, with nulls in the first and last only.
        let n = 600_000u32;
        let keys: Vec<u32> = (0..n).map(|i| (i / 3 + i % 7) % 1_000).collect();
        let validity: Vec<bool> = (0..n)
            .map(|i| !(i < 1_000 && i % 3 == 0 || i > 500_000 && i % 11 == 0))
            .collect();
        let distinct: Vec<u32> = (0..1_000).collect();
        let (ours, theirs) = both(keys.clone(), Some(validity), distinct.clone());
        assert_eq!(ours.len(), 4, "a dictionary page and three data pages");
        assert!(ours == theirs);
        let (ours, theirs) = both(keys, None, distinct);
        assert!(ours == theirs);
    }

    #[test]
    fn ranges_are_delta_encoded_as_the_writer_encodes_them() {
        let type_ = parquet_type("index", ArrowDataType::UInt32);
        let ParquetType::PrimitiveType(primitive) = &type_ else {
            panic!("a u32 column is primitive");
        };
        // Within a block, across blocks and pages (209,715 rows a page), up to i32::MAX.
        for (first, rows) in [
            (0, 1),
            (7, 2),
            (0, 256),
            (5, 257),
            (3, 513),
            (100, 209_715),
            (0, 209_716),
            (1_000, 1_000_000),
            (i32::MAX as u32 - 10, 11),
        ] {
            let array = PrimitiveArray::from_vec((first..first + rows).collect::<Vec<u32>>());
            let ours: Vec<String> = range_pages(first, rows as usize, primitive)
                .unwrap()
                .iter()
                .map(|page| format!("{page:?}"))
                .collect();
            let theirs = theirs(&array, &type_, Encoding::DeltaBinaryPacked);
            assert_eq!(ours.len(), theirs.len(), "{rows} rows from {first}");
            assert!(ours == theirs, "{rows} rows from {first}");
        }
        // Past i32::MAX the stored deltas wrap: left to the writer.
        assert!(range_pages(i32::MAX as u32 - 10, 12, primitive).is_none());
    }
}
