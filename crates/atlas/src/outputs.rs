//! A finished output folder read from outside a run (the Python package's `Outputs`): the
//! pipeline that made it, its spaces, and each space's tables as slices over its verified,
//! memory-mapped artifacts.
//!
//! The folder is vouched for by its export: the pipeline's export fingerprint (over every
//! space's artifact checksums, as the run's export computed it) must equal the manifest's.
//! Each artifact read afterwards is verified in full (magic, version, kind, size, payload
//! checksum — hashed once per `Outputs`, [`huarong_store::artifact::Hashed`]) and must carry
//! the checksum the export covered, so a table changed since is refused, never misread.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use huarong_core::Puzzle;
use huarong_core::driver::{Plan, SpaceSpec};
use huarong_store::artifact::{Artifact, Expect, Hashed};
use huarong_store::{StageError, shards};
use rayon::prelude::*;

use crate::folder::Folder;
use crate::manifest;
use crate::space::{self, Kind};
use huarong_core::ErrorKind;
use huarong_core::driver::Families;
use pipeline_config::{ConfigError, Pipeline};

/// Why an output folder or one of its tables cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum OutputsError {
    #[error(
        "{0}: no {file} — not a finished pipeline output folder (`huarong run` writes one)",
        file = manifest::FILE
    )]
    NotAnOutput(PathBuf),
    #[error(
        "{dir}: which pipeline made it? None of {tried} exists; pass the pipeline file \
         (Outputs(folder, pipeline=\"pipelines/NAME.toml\"))"
    )]
    NoPipeline { dir: PathBuf, tried: String },
    #[error(
        "{dir} was not made by {pipeline} as it is now (the export fingerprints differ: another \
         pipeline, an edited one, or artifacts changed since); rerun it or pass the right pipeline"
    )]
    NotMadeBy { dir: PathBuf, pipeline: PathBuf },
    #[error("no space {space:?} in {dir}; its spaces: {known}")]
    UnknownSpace {
        space: String,
        dir: PathBuf,
        known: String,
    },
    #[error("space {space} has no metric {metric:?}; its metrics: {known}")]
    UnknownMetric {
        space: String,
        metric: String,
        known: String,
    },
    #[error("{0}: changed since its export (another payload checksum); rerun the pipeline")]
    Changed(PathBuf),
    #[error("{file}: {why} (`huarong run` rebuilds it; `huarong verify` checks every file)")]
    Unverified { file: PathBuf, why: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Stage(#[from] StageError),
}

impl OutputsError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            OutputsError::NotAnOutput(_) | OutputsError::NoPipeline { .. } => ErrorKind::NotFound,
            OutputsError::NotMadeBy { .. }
            | OutputsError::Changed(_)
            | OutputsError::Unverified { .. } => ErrorKind::Corrupt,
            OutputsError::UnknownSpace { .. } | OutputsError::UnknownMetric { .. } => {
                ErrorKind::Invalid
            }
            OutputsError::Config(e) => e.kind(),
            OutputsError::Stage(e) => e.kind(),
        }
    }
}

impl From<huarong_store::ArtifactError> for OutputsError {
    fn from(e: huarong_store::ArtifactError) -> Self {
        OutputsError::Stage(e.into())
    }
}

/// One column of a space: over its artifact's memory map, or gathered (the parts of a
/// multi-process run, interleaved; a ranked space's codes, computed; a one-component table's
/// ids, all 0 and not stored).
#[derive(Debug)]
pub enum Values<T> {
    Mapped { artifact: Artifact, section: usize },
    Owned(Vec<T>),
}

impl<T: bytemuck::Pod> Values<T> {
    pub fn as_slice(&self) -> &[T] {
        match self {
            Values::Mapped { artifact, section } => artifact.section(*section),
            Values::Owned(v) => v,
        }
    }

    /// Whether the values are the artifact's own bytes, mapped (no copy).
    pub fn is_mapped(&self) -> bool {
        matches!(self, Values::Mapped { .. })
    }

    /// The artifact file mapped, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Values::Mapped { artifact, .. } => Some(artifact.path()),
            Values::Owned(_) => None,
        }
    }
}

/// An output folder and the pipeline that made it.
#[derive(Debug)]
pub struct Outputs {
    folder: Folder,
    pipeline: PathBuf,
    plan: Plan,
    /// `<space id>/<artifact>` → the payload checksum the export covered.
    vouched: HashMap<String, u64>,
    /// The artifacts this reader hashed, not hashed again while unchanged.
    hashed: Hashed,
}

impl Outputs {
    /// Opens `dir`, made by `pipeline` — or, when `None`, by `pipelines/<folder name>.toml`
    /// found in the working directory or one of its parents (the layout of this repository:
    /// `pipelines/huarong.toml` → `outputs/huarong/`).
    pub fn open(
        families: Families,
        dir: &Path,
        pipeline: Option<&Path>,
    ) -> Result<Outputs, OutputsError> {
        let folder = Folder::new(dir);
        let stored = manifest::stored_fingerprint(&folder.manifest())
            .ok_or_else(|| OutputsError::NotAnOutput(dir.to_owned()))?;
        // The files a pipeline names (puzzle files) are relative to the directory it is run
        // from: the working directory for a given pipeline, the one holding `pipelines/` for a
        // found one.
        let (pipeline, base) = match pipeline {
            Some(p) => (p.to_owned(), PathBuf::from(".")),
            None => find_pipeline(dir)?,
        };
        let loaded = load(families, &pipeline, &base)?;
        let plan = loaded.section.spaces();
        let fingerprint = crate::fingerprint::fingerprint(&loaded, &plan, &folder);
        if fingerprint.ok() != Some(stored) {
            return Err(OutputsError::NotMadeBy {
                dir: dir.to_owned(),
                pipeline,
            });
        }
        let mut vouched = HashMap::new();
        for spec in &plan.spaces {
            let id = spec.puzzle.space_id();
            for (name, checksum) in space::artifacts(&folder.space(spec), spec)? {
                vouched.insert(format!("{id}/{name}"), checksum);
            }
        }
        Ok(Outputs {
            folder,
            pipeline,
            plan,
            vouched,
            hashed: Hashed::default(),
        })
    }

    pub fn dir(&self) -> &Path {
        self.folder.root()
    }

    /// The pipeline file that made the folder.
    pub fn pipeline(&self) -> &Path {
        &self.pipeline
    }

    /// The spaces of the summary, in plan order.
    pub fn spaces(&self) -> Vec<String> {
        self.summary_specs().map(|s| s.puzzle.space_id()).collect()
    }

    /// The metrics a space was run in.
    pub fn metrics(&self, space: &str) -> Result<Vec<&'static str>, OutputsError> {
        let spec = self.spec(space)?;
        Ok(spec
            .metrics
            .iter()
            .map(|&m| spec.puzzle.metrics()[m])
            .collect())
    }

    /// The puzzle of a space (to render or rank its codes).
    pub fn puzzle(&self, space: &str) -> Result<&dyn Puzzle, OutputsError> {
        Ok(self.spec(space)?.puzzle.as_ref())
    }

    fn summary_specs(&self) -> impl Iterator<Item = &SpaceSpec> {
        self.plan.spaces.iter().filter(|s| s.summary)
    }

    fn spec(&self, space: &str) -> Result<&SpaceSpec, OutputsError> {
        self.summary_specs()
            .find(|s| s.puzzle.space_id() == space)
            .ok_or_else(|| OutputsError::UnknownSpace {
                space: space.to_owned(),
                dir: self.folder.root().to_owned(),
                known: self.spaces().join(", "),
            })
    }

    fn metric_name(&self, space: &str, metric: &str) -> Result<&'static str, OutputsError> {
        let known = self.metrics(space)?;
        known
            .iter()
            .find(|&&m| m == metric)
            .copied()
            .ok_or_else(|| OutputsError::UnknownMetric {
                space: space.to_owned(),
                metric: metric.to_owned(),
                known: known.join(", "),
            })
    }

    /// Opens one artifact of `space` (whole, or each of its parts), verified and vouched for.
    fn open_artifact(
        &self,
        space: &str,
        name: &str,
        kind: &str,
    ) -> Result<Vec<Artifact>, OutputsError> {
        let sdir = self.folder.space_named(space);
        let names = match shards::parts_of(&sdir, name) {
            None => vec![name.to_owned()],
            Some(parts) => (0..parts.len())
                .map(|k| shards::part_name(name, k, parts.len()))
                .collect(),
        };
        names
            .iter()
            .map(|n| {
                let path = sdir.join(n);
                let expect = Expect {
                    kind,
                    fingerprint: None,
                };
                let artifact = Artifact::open_for_use_remembered(&path, expect, &self.hashed)?;
                if self.vouched.get(&format!("{space}/{n}")) != Some(&artifact.header().checksum) {
                    return Err(OutputsError::Changed(path));
                }
                Ok(artifact)
            })
            .collect()
    }

    /// The Parquet table `name` (`summary`, `states-<space>`, …; `.parquet` optional), after
    /// checking the manifest vouches for its bytes.
    pub fn table(&self, name: &str) -> Result<PathBuf, OutputsError> {
        let file = if name.ends_with(".parquet") {
            name.to_owned()
        } else {
            format!("{name}.parquet")
        };
        let path = self.folder.file(&file);
        manifest::check_table(self.folder.root(), &file).map_err(|why| {
            OutputsError::Unverified {
                file: path.clone(),
                why,
            }
        })?;
        Ok(path)
    }

    /// How many states `space` has: an explored space's table says so in its header (its
    /// codes are not hashed for that); a ranked space's small table is opened.
    pub fn len(&self, space: &str) -> Result<usize, OutputsError> {
        let path = Kind::States.path(&self.folder.space_named(space), "");
        let header = Artifact::peek_header(&path)?;
        if let [codes] = &header.sections[..] {
            return Ok(codes.len as usize);
        }
        Ok(self.open_states(space)?.len())
    }

    fn open_states(&self, space: &str) -> Result<enumerate::StateTable, OutputsError> {
        let spec = self.spec(space)?;
        let path = Kind::States.path(&self.folder.space_named(space), "");
        let expect = Expect {
            kind: enumerate::KIND,
            fingerprint: Some(enumerate::fingerprint(spec.puzzle.as_ref())),
        };
        let artifact = Artifact::open_for_use_remembered(&path, expect, &self.hashed)?;
        let table = enumerate::StateTable::from_artifact(artifact)?;
        if self
            .vouched
            .get(&format!("{space}/{}", Kind::States.file("")))
            != Some(&table.checksum())
        {
            return Err(OutputsError::Changed(path));
        }
        Ok(table)
    }

    /// The distance of every state in `metric` (`u16`, 65535 where no goal is reachable).
    pub fn distances(&self, space: &str, metric: &str) -> Result<Values<u16>, OutputsError> {
        let metric = self.metric_name(space, metric)?;
        let n = self.len(space)?;
        let name = Kind::Distances.file(metric);
        let parts = self.open_artifact(space, &name, distances::KIND)?;
        self.column(space, &name, parts, n)
    }

    /// The component id of every state in `metric` (`u32`, numbered by smallest member).
    pub fn components(&self, space: &str, metric: &str) -> Result<Values<u32>, OutputsError> {
        let metric = self.metric_name(space, metric)?;
        let n = self.len(space)?;
        let name = Kind::Components.file(metric);
        let mut parts = self.open_artifact(space, &name, components::KIND)?;
        if parts.len() == 1 {
            // Whole: its own ids, another metric's (a reference to that table, followed), or
            // one component's zeros (not stored).
            let whole = parts.pop().expect("one part");
            let table = components::Components::from_artifact(whole)?;
            return match table.into_ids_artifact() {
                Ok(ids) => {
                    let file = ids.path().file_name().map(|f| f.to_string_lossy());
                    let key = format!("{space}/{}", file.unwrap_or_default());
                    if self.vouched.get(&key) != Some(&ids.header().checksum) {
                        return Err(OutputsError::Changed(ids.path().to_owned()));
                    }
                    self.column(space, &name, vec![ids], n)
                }
                Err(table) => self.sized(space, &name, Values::Owned(table.ids().to_vec()), n),
            };
        }
        self.column(space, &name, parts, n)
    }

    /// Section 0 of a whole artifact or its interleaved parts, checked to hold `n` values.
    fn column<T: bytemuck::Pod + Default>(
        &self,
        space: &str,
        name: &str,
        mut parts: Vec<Artifact>,
        n: usize,
    ) -> Result<Values<T>, OutputsError> {
        let path = self.folder.space_named(space).join(name);
        let values = if parts.len() == 1 {
            Values::Mapped {
                artifact: parts.pop().expect("one part"),
                section: 0,
            }
        } else {
            Values::Owned(shards::interleave_section(&parts, 0, &path)?)
        };
        self.sized(space, name, values, n)
    }

    /// `values` of the artifact `name`, checked to be `n`.
    fn sized<T: bytemuck::Pod>(
        &self,
        space: &str,
        name: &str,
        values: Values<T>,
        n: usize,
    ) -> Result<Values<T>, OutputsError> {
        let path = self.folder.space_named(space).join(name);
        if values.as_slice().len() != n {
            return Err(StageError::Invalid(format!(
                "{}: {} values for {n} states",
                path.display(),
                values.as_slice().len()
            ))
            .into());
        }
        Ok(values)
    }

    /// The code of every state, increasing: an explored space's stored table, or a ranked
    /// space's codes computed by its puzzle (its artifact stores only the count).
    pub fn codes(&self, space: &str) -> Result<Values<u64>, OutputsError> {
        let puzzle = self.puzzle(space)?;
        let table = self.open_states(space)?;
        if table.stored().is_some() {
            return Ok(Values::Mapped {
                artifact: table.into_artifact(),
                section: 0,
            });
        }
        let codes = table.codes(puzzle);
        Ok(Values::Owned(
            (0..codes.len())
                .into_par_iter()
                .map(|i| codes.get(i))
                .collect(),
        ))
    }
}

/// A pipeline whose relative file names are relative to `base`.
fn load(families: Families, pipeline: &Path, base: &Path) -> Result<Pipeline, OutputsError> {
    let text = std::fs::read_to_string(pipeline).map_err(|source| ConfigError::Read {
        path: pipeline.to_owned(),
        source,
    })?;
    // Named relative to the pipeline's folder: the error says where it looked.
    let read = |file: &str| {
        let path = base.join(file);
        std::fs::read_to_string(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    };
    Ok(Pipeline::parse_with(families, &text, &read).map_err(|e| ConfigError::of(pipeline, e))?)
}

/// `pipelines/<folder name>.toml` in the working directory or its parents, and that
/// directory.
fn find_pipeline(dir: &Path) -> Result<(PathBuf, PathBuf), OutputsError> {
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let file = format!("pipelines/{name}.toml");
    let cwd = std::env::current_dir().unwrap_or_default();
    let tried: Vec<PathBuf> = cwd.ancestors().map(|a| a.join(&file)).collect();
    cwd.ancestors()
        .zip(&tried)
        .find(|(_, p)| p.is_file())
        .map(|(base, p)| (p.clone(), base.to_owned()))
        .ok_or_else(|| OutputsError::NoPipeline {
            dir: dir.to_owned(),
            tried: tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}
