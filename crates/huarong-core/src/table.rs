//! Tables as data: named, typed columns of equal length. Puzzles and the pipeline build them;
//! the `export` crate writes them as Parquet. Nothing here knows a file format.

/// The null of [`Column::PackedU32`].
pub const NULL_U32: u32 = u32::MAX;

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Str(Vec<String>),
    Bool(Vec<bool>),
    U32(Vec<u32>),
    /// Nullable (`None` is null).
    OptU32(Vec<Option<u32>>),
    /// Nullable, packed: [`NULL_U32`] is null (large columns, e.g. a distance per position).
    PackedU32(Vec<u32>),
    U64(Vec<u64>),
    OptU64(Vec<Option<u64>>),
    /// Consecutive `u32` values, e.g. a table's row numbers (`index`, `component`): computed,
    /// not stored, and written delta-encoded (a few bytes a page rather than four a row).
    Index(std::ops::Range<u32>),
    /// The values of the earlier column at position `of` in the table (`len` of them), under
    /// another name: written without a second copy in memory, e.g. the component ids of metrics
    /// whose moves join the same positions.
    Copy {
        of: usize,
        len: usize,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::OptU32(v) => v.len(),
            Column::PackedU32(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::OptU64(v) => v.len(),
            Column::Index(r) => r.len(),
            Column::Copy { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A single value, e.g. a space's tag (`piece_set`, `labeled`) repeated down a column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(String),
    Bool(bool),
    U64(u64),
}

impl Value {
    /// A column holding this value `n` times.
    pub fn repeat(&self, n: usize) -> Column {
        match self {
            Value::Str(s) => Column::Str(vec![s.clone(); n]),
            Value::Bool(b) => Column::Bool(vec![*b; n]),
            Value::U64(x) => Column::U64(vec![*x; n]),
        }
    }
}

/// Named columns, built column by column.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    pub fn column(mut self, name: &str, column: Column) -> Self {
        self.columns.push((name.to_owned(), column));
        self
    }

    pub fn str(self, name: &str, values: Vec<String>) -> Self {
        self.column(name, Column::Str(values))
    }

    pub fn bool(self, name: &str, values: Vec<bool>) -> Self {
        self.column(name, Column::Bool(values))
    }

    pub fn u32(self, name: &str, values: Vec<u32>) -> Self {
        self.column(name, Column::U32(values))
    }

    pub fn opt_u32(self, name: &str, values: Vec<Option<u32>>) -> Self {
        self.column(name, Column::OptU32(values))
    }

    /// A nullable `u32` column where [`NULL_U32`] marks the nulls.
    pub fn packed_u32(self, name: &str, values: Vec<u32>) -> Self {
        self.column(name, Column::PackedU32(values))
    }

    pub fn u64(self, name: &str, values: Vec<u64>) -> Self {
        self.column(name, Column::U64(values))
    }

    pub fn opt_u64(self, name: &str, values: Vec<Option<u64>>) -> Self {
        self.column(name, Column::OptU64(values))
    }

    /// A `u32` column of the consecutive values `rows` (see [`Column::Index`]).
    pub fn index(self, name: &str, rows: std::ops::Range<u32>) -> Self {
        self.column(name, Column::Index(rows))
    }

    /// A column holding what the earlier column `earlier` holds (see [`Column::Copy`]).
    ///
    /// # Panics
    /// If the table has no column `earlier` (a mistake in the code building it).
    pub fn copy(self, name: &str, earlier: &str) -> Self {
        let of = (self.columns.iter())
            .position(|(n, _)| n == earlier)
            .unwrap_or_else(|| panic!("a copy of {earlier:?}, which the table does not have"));
        let len = self.columns[of].1.len();
        self.column(name, Column::Copy { of, len })
    }

    /// Number of rows (0 for a table without columns).
    pub fn height(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}
