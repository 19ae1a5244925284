//! An output folder's layout: where everything a run writes lives, said once.
//!
//! ```text
//! <root>/
//!   <space id>/            a space's artifacts (space::Kind: states, graph, components, distances)
//!   <abstraction id>/      a pattern database (pattern.bin)
//!   <universe id>/         a universe's census (universe.bin, and its chunks while it runs)
//!   *.parquet              the export's tables
//!   export.manifest        the export's manifest: every table's size and checksum
//! ```
//!
//! Readers (`inspect`, `serve`, Python's `Outputs`) and the run (which also holds the folder's
//! lock and sweeps its temporaries: `pipeline::folder`) ask a [`Folder`] for paths and build
//! none themselves.

use std::path::{Path, PathBuf};

use huarong_core::driver::SpaceSpec;
use huarong_core::{Abstraction, Puzzle, Universe};

use crate::space::files;

/// An output folder; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    root: PathBuf,
}

impl Folder {
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder { root: root.into() }
    }

    /// The folder itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of a space's artifacts: `<root>/<space id>/`.
    pub fn space(&self, spec: &SpaceSpec) -> PathBuf {
        self.space_of(spec.puzzle.as_ref())
    }

    /// [`Folder::space`] of a puzzle's space.
    pub fn space_of(&self, puzzle: &dyn Puzzle) -> PathBuf {
        self.space_named(&puzzle.space_id())
    }

    /// [`Folder::space`] of the space with id `id`.
    pub fn space_named(&self, id: &str) -> PathBuf {
        self.root.join(id)
    }

    /// The folder of a pattern database: `<root>/<abstraction id>/`.
    pub fn patterns(&self, abstraction: &dyn Abstraction) -> PathBuf {
        self.root.join(abstraction.id())
    }

    /// A pattern database's artifact ([`files::PATTERN`] in [`Folder::patterns`]).
    pub fn pattern_file(&self, abstraction: &dyn Abstraction) -> PathBuf {
        self.patterns(abstraction).join(files::PATTERN)
    }

    /// The folder of a universe's census: `<root>/<universe id>/`.
    pub fn universe(&self, universe: &dyn Universe) -> PathBuf {
        self.root.join(universe.id())
    }

    /// A universe's census artifact ([`files::UNIVERSE`] in [`Folder::universe`]).
    pub fn universe_file(&self, universe: &dyn Universe) -> PathBuf {
        self.universe(universe).join(files::UNIVERSE)
    }

    /// A file by its path relative to the folder: an export table (`name` with its
    /// `.parquet`), or an artifact as the manifest, a run's report or `verify` names it.
    pub fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The export's manifest.
    pub fn manifest(&self) -> PathBuf {
        self.root.join(crate::manifest::FILE)
    }
}
