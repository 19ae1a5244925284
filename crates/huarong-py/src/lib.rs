//! `huarong._native`: the Python extension behind `python/huarong/__init__.py`.
//!
//! Everything here is a thin conversion to the library crates: positions are solved through
//! the one solve path (`atlas::play::Atlas`, as `huarong solve` and `serve` do), output
//! folders are read through `atlas::outputs` (verified, vouched for by their export), and
//! dnomd343/klotski's codes come from `klotski::codes`. A table is handed to Python as a
//! [`Mapping`] over the artifact's memory map with numpy's array interface (read-only), so
//! `numpy.asarray` gives an array over the file's pages with no copy and no unsafe code.
//! Errors become `ValueError`, `FileNotFoundError` or `RuntimeError` with the library's
//! message; nothing panics across the boundary (pyo3 turns a panic into an exception, and none
//! is expected).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use atlas::outputs::{Outputs, OutputsError, Values};
use atlas::play::Atlas;
use huarong_core::ErrorKind;
use huarong_core::driver::SolveRequest;
use pyo3::exceptions::{PyFileNotFoundError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One atlas per (table roots, state bound), kept for the process: the tables it opened and
/// the components it explored answer the next call at once.
fn atlas(roots: Vec<PathBuf>, limit: u64) -> Arc<Atlas> {
    type Atlases = HashMap<(Vec<PathBuf>, u64), Arc<Atlas>>;
    static ATLASES: LazyLock<Mutex<Atlases>> = LazyLock::new(Default::default);
    ATLASES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry((roots.clone(), limit))
        .or_insert_with(|| Arc::new(Atlas::new(registry::families(), roots, limit)))
        .clone()
}

/// The table roots: the given folders, else every folder under `outputs/` (as `huarong solve`).
fn roots(tables: Option<Vec<PathBuf>>) -> Vec<PathBuf> {
    tables.unwrap_or_else(atlas::solve::default_roots)
}

/// The puzzle file of a request: a path that exists is read, anything else is the file's text.
fn puzzle_file(path_or_text: &str) -> PyResult<(String, String)> {
    let path = Path::new(path_or_text);
    let looks_like_path = !path_or_text.contains('\n') && path_or_text.len() < 4096;
    if looks_like_path && path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| PyValueError::new_err(format!("{path_or_text}: {e}")))?;
        return Ok((path_or_text.to_owned(), text));
    }
    if looks_like_path && path_or_text.ends_with(".toml") {
        return Err(PyFileNotFoundError::new_err(format!(
            "{path_or_text}: no such puzzle file"
        )));
    }
    Ok(("pasted.toml".to_owned(), path_or_text.to_owned()))
}

/// The one mapping of an error's kind to a Python exception: a missing file or folder is a
/// `FileNotFoundError`; a search that gave up, work refused for now or the system failing a
/// `RuntimeError`; wrong input or a damaged or stale file a `ValueError`.
fn py_error(kind: ErrorKind, message: String) -> PyErr {
    match kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
        ErrorKind::GaveUp | ErrorKind::Busy | ErrorKind::Cancelled | ErrorKind::System => {
            PyRuntimeError::new_err(message)
        }
        ErrorKind::Invalid | ErrorKind::Corrupt | ErrorKind::Refused => {
            PyValueError::new_err(message)
        }
    }
}

fn solve_error(e: atlas::solve::Error) -> PyErr {
    let kind = e.kind();
    let message = match kind {
        ErrorKind::GaveUp => format!("{e} (raise max_states)"),
        _ => e.to_string(),
    };
    py_error(kind, message)
}

/// An optimal solution: `{"moves", "path", "metric", "source"}` and the position's codes.
#[pyfunction]
#[pyo3(signature = (position=None, metric=None, goal=None, puzzle=None, tables=None, max_states=50_000_000))]
fn solve<'py>(
    py: Python<'py>,
    position: Option<String>,
    metric: Option<String>,
    goal: Option<String>,
    puzzle: Option<String>,
    tables: Option<Vec<PathBuf>>,
    max_states: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let file = puzzle.as_deref().map(puzzle_file).transpose()?;
    let (solution, codes) = py
        .detach(|| {
            let request = SolveRequest {
                position: position.as_deref(),
                puzzle: file.as_ref().map(|(p, t)| (p.as_str(), t.as_str())),
                goal: goal.as_deref(),
            };
            let instance = atlas::solve::instance(registry::families(), &request)?;
            let atlas = atlas(roots(tables), max_states);
            let solution = atlas.solve_instance(instance.as_ref(), metric.as_deref())?;
            Ok::<_, atlas::solve::Error>((solution, instance.codes()))
        })
        .map_err(solve_error)?;
    let out = PyDict::new(py);
    let path = solution.path.as_ref();
    out.set_item("moves", path.map(|p| p.layouts.len() - 1))?;
    out.set_item("path", path.map(|p| p.layouts.clone()).unwrap_or_default())?;
    out.set_item("metric", &solution.metric)?;
    let source = match &solution.source {
        atlas::solve::Source::Tables(_) => "tables",
        atlas::solve::Source::Explored(_) => "explored",
        atlas::solve::Source::Searched => "search",
        atlas::solve::Source::Patterns { .. } => "patterns",
    };
    out.set_item("source", source)?;
    for (name, value) in codes {
        out.set_item(name, value)?;
    }
    Ok(out)
}

/// The positions one move away, in the family's move order.
#[pyfunction]
#[pyo3(signature = (position=None, metric="piece", puzzle=None))]
fn moves(position: Option<String>, metric: &str, puzzle: Option<String>) -> PyResult<Vec<String>> {
    let file = puzzle.as_deref().map(puzzle_file).transpose()?;
    let request = SolveRequest {
        position: position.as_deref(),
        puzzle: file.as_ref().map(|(p, t)| (p.as_str(), t.as_str())),
        goal: None,
    };
    let instance = atlas::solve::instance(registry::families(), &request).map_err(solve_error)?;
    let steps = instance
        .moves(metric)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(steps.into_iter().map(|s| s.position).collect())
}

/// A Huarong Dao board from a layout, a CommonCode or a ShortCode.
fn board(text: &str) -> PyResult<klotski::Board> {
    klotski::codes::read_layout(text)
        .map(|p| p.board)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// dnomd343/klotski's CommonCode (9 hex digits) of a layout (or of a code).
#[pyfunction]
#[pyo3(signature = (layout, shorten=false))]
fn common_code(layout: &str, shorten: bool) -> PyResult<String> {
    let code = klotski::codes::common_code(&board(layout)?);
    Ok(klotski::codes::format_common(code, shorten))
}

/// dnomd343/klotski's ShortCode (5 characters) of a layout (or of a code).
#[pyfunction]
fn short_code(layout: &str) -> PyResult<String> {
    let common = klotski::codes::common_code(&board(layout)?);
    let short =
        klotski::codes::short_code(common).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(klotski::codes::format_short(short))
}

/// The unlabeled layout a CommonCode or ShortCode names.
#[pyfunction]
fn layout(code: &str) -> PyResult<String> {
    match klotski::codes::read(code) {
        Some(read) => read
            .map(|b| klotski::render(&b))
            .map_err(|e| PyValueError::new_err(e.to_string())),
        None => Err(PyValueError::new_err(format!(
            "{code:?} is neither a CommonCode (1 to 9 hex digits) nor a ShortCode (5 \
             characters of 123456789ABCDEFGHJKMNPQRSTUVWXYZ)"
        ))),
    }
}

fn outputs_error(e: OutputsError) -> PyErr {
    py_error(e.kind(), e.to_string())
}

/// The values a [`Mapping`] holds.
#[derive(Debug)]
enum Held {
    U16(Values<u16>),
    U32(Values<u32>),
    U64(Values<u64>),
}

impl Held {
    fn bytes(&self) -> &[u8] {
        match self {
            Held::U16(v) => bytemuck::cast_slice(v.as_slice()),
            Held::U32(v) => bytemuck::cast_slice(v.as_slice()),
            Held::U64(v) => bytemuck::cast_slice(v.as_slice()),
        }
    }

    fn dtype(&self) -> &'static str {
        match self {
            Held::U16(_) => "uint16",
            Held::U32(_) => "uint32",
            Held::U64(_) => "uint64",
        }
    }

    fn is_mapped(&self) -> bool {
        match self {
            Held::U16(v) => v.is_mapped(),
            Held::U32(v) => v.is_mapped(),
            Held::U64(v) => v.is_mapped(),
        }
    }

    fn path(&self) -> Option<&Path> {
        match self {
            Held::U16(v) => v.path(),
            Held::U32(v) => v.path(),
            Held::U64(v) => v.path(),
        }
    }
}

/// One table's values, read-only (`numpy.asarray` views them; `dtype` says their type).
#[pyclass(frozen, module = "huarong._native")]
#[derive(Debug)]
struct Mapping {
    held: Held,
}

#[pymethods]
impl Mapping {
    /// The numpy dtype of the values.
    #[getter]
    fn dtype(&self) -> &'static str {
        self.held.dtype()
    }

    /// numpy's array interface (version 3): `numpy.asarray` makes a read-only array over
    /// these bytes whose `base` is this object, which keeps the map alive.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        // Artifacts hold values in the machine's byte order.
        let order = if cfg!(target_endian = "little") {
            '<'
        } else {
            '>'
        };
        let size = match self.held {
            Held::U16(_) => 2,
            Held::U32(_) => 4,
            Held::U64(_) => 8,
        };
        let typestr = format!("{order}u{size}");
        let bytes = self.held.bytes();
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("typestr", typestr)?;
        d.set_item("shape", (bytes.len() / size,))?;
        d.set_item("data", (bytes.as_ptr() as usize, true))?;
        Ok(d)
    }

    /// Whether the bytes are the artifact's own, memory-mapped (else gathered: parts of a
    /// multi-process run, a ranked space's computed codes, a one-component table's zeros).
    #[getter]
    fn mapped(&self) -> bool {
        self.held.is_mapped()
    }

    /// The artifact file mapped, if any.
    #[getter]
    fn path(&self) -> Option<PathBuf> {
        self.held.path().map(Path::to_owned)
    }

    /// The address of the first byte (to check an array is over these bytes).
    #[getter]
    fn address(&self) -> usize {
        self.held.bytes().as_ptr() as usize
    }

    #[getter]
    fn nbytes(&self) -> usize {
        self.held.bytes().len()
    }
}

/// A finished output folder (`atlas::outputs::Outputs`).
#[pyclass(frozen, module = "huarong._native")]
#[derive(Debug)]
struct Folder {
    outputs: Outputs,
}

#[pymethods]
impl Folder {
    #[new]
    #[pyo3(signature = (folder, pipeline=None))]
    fn new(py: Python<'_>, folder: PathBuf, pipeline: Option<PathBuf>) -> PyResult<Self> {
        if !folder.is_dir() {
            return Err(PyFileNotFoundError::new_err(format!(
                "{}: no such output folder",
                folder.display()
            )));
        }
        let outputs = py
            .detach(|| Outputs::open(registry::families(), &folder, pipeline.as_deref()))
            .map_err(outputs_error)?;
        Ok(Folder { outputs })
    }

    /// The pipeline file that made the folder.
    #[getter]
    fn pipeline(&self) -> PathBuf {
        self.outputs.pipeline().to_owned()
    }

    fn spaces(&self) -> Vec<String> {
        self.outputs.spaces()
    }

    fn metrics(&self, space: &str) -> PyResult<Vec<&'static str>> {
        self.outputs.metrics(space).map_err(outputs_error)
    }

    /// The path of a Parquet table the manifest vouches for.
    fn table(&self, py: Python<'_>, name: &str) -> PyResult<PathBuf> {
        py.detach(|| self.outputs.table(name))
            .map_err(outputs_error)
    }

    fn distances(&self, py: Python<'_>, space: &str, metric: &str) -> PyResult<Mapping> {
        let v = py
            .detach(|| self.outputs.distances(space, metric))
            .map_err(outputs_error)?;
        Ok(Mapping { held: Held::U16(v) })
    }

    fn components(&self, py: Python<'_>, space: &str, metric: &str) -> PyResult<Mapping> {
        let v = py
            .detach(|| self.outputs.components(space, metric))
            .map_err(outputs_error)?;
        Ok(Mapping { held: Held::U32(v) })
    }

    fn codes(&self, py: Python<'_>, space: &str) -> PyResult<Mapping> {
        let v = py
            .detach(|| self.outputs.codes(space))
            .map_err(outputs_error)?;
        Ok(Mapping { held: Held::U64(v) })
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(moves, m)?)?;
    m.add_function(wrap_pyfunction!(common_code, m)?)?;
    m.add_function(wrap_pyfunction!(short_code, m)?)?;
    m.add_function(wrap_pyfunction!(layout, m)?)?;
    m.add_class::<Mapping>()?;
    m.add_class::<Folder>()?;
    m.add("UNREACHABLE", u16::MAX)?;
    Ok(())
}
