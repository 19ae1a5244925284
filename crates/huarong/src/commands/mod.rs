//! One module per command, as ruff keeps them: each has its arguments (`Args`) and `run`, which
//! wires the library crates together and says what to print. Output goes through [`emit`] and
//! [`crate::report::warn`], which a closed pipe cannot turn into a panic.

pub mod inspect;
pub mod judge;
pub mod puzzles;
pub mod render;
pub mod run;
pub mod serve;
pub mod solve;
pub mod verify;

use std::path::PathBuf;

/// Writes to stdout; a closed pipe (e.g. `| head`) is not an error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// The folders `--tables` names, each of which must be there (a typo must not turn a table
/// lookup into a silent search); without any, every folder under outputs/.
pub fn table_roots(tables: Vec<PathBuf>) -> anyhow::Result<Vec<PathBuf>> {
    if tables.is_empty() {
        return Ok(pipeline::solve::default_roots());
    }
    for dir in &tables {
        anyhow::ensure!(
            dir.is_dir(),
            "--tables {}: no such folder (it must hold pipeline outputs, e.g. outputs/huarong)",
            dir.display()
        );
    }
    Ok(tables)
}

/// A position's other names (`Instance::codes`: a layout's CommonCode and ShortCode) as
/// `, common_code 1A9BF0C00, short_code 4WVE1`, to follow its text or move count.
pub fn other_names(instance: &dyn huarong_core::driver::Instance) -> String {
    instance
        .codes()
        .iter()
        .map(|(name, value)| format!(", {name} {value}"))
        .collect()
}
