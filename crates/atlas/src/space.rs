//! One space's folder, `<output>/<space id>/`: the one owner of what it holds. Every other
//! module asks here — the run for where to write, `verify` for what each file must be, `prune`
//! for what to keep, the export for the space's checksum, and every reader (export, verify,
//! solve, play) for the opened artifacts:
//!
//! - the file names ([`files`]) and whether a table is whole or in the parts of a multi-process
//!   run ([`artifact_names`], [`present`]);
//! - the fingerprint chain ([`expected`]): what each artifact must carry, computed from the
//!   artifacts upstream of it, and the distance fingerprint in one place
//!   ([`distances_fingerprint`]);
//! - the opener ([`OpenSpace`]): the state table and, per metric, the graph, components and
//!   distances, verified.
//!
//! A new stage adds its file name and its fingerprint here, and nowhere else in this crate.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use components::Components;
use distances::Distances;
use enumerate::StateTable;
use graph::Csr;
use huarong_core::driver::{MetricView, SpaceSpec, SpaceView};
use huarong_core::{Abstraction, Puzzle};
use huarong_store::artifact::Artifact;
use huarong_store::{StageError, shards};

/// File names of a space's artifacts inside its folder.
pub mod files {
    pub const STATES: &str = "states.bin";

    pub fn graph(metric: &str) -> String {
        format!("graph-{metric}.csr")
    }

    pub fn components(metric: &str) -> String {
        format!("components-{metric}.bin")
    }

    pub fn distances(metric: &str) -> String {
        format!("distances-{metric}.bin")
    }

    /// A pattern database, alone in its abstraction's folder.
    pub const PATTERN: &str = "pattern.bin";

    /// A universe's census, alone in its universe's folder.
    pub const UNIVERSE: &str = "universe.bin";
}

/// The artifact kind of a universe's census.
pub const UNIVERSE_KIND: &str = "universe";

/// The folder of a universe's census: `<output>/<universe id>/`.
pub fn universe_dir(output: &Path, universe: &dyn huarong_core::Universe) -> PathBuf {
    output.join(universe.id())
}

/// The fingerprint of a universe's census: what decides its bytes.
pub fn universe_fingerprint(universe: &dyn huarong_core::Universe) -> u64 {
    let mut fp = huarong_core::Fingerprint::new("universe", 1);
    fp.add_str(&universe.id());
    universe.parameters(&mut fp);
    fp.finish()
}

/// The folder of a pattern database: `<output>/<abstraction id>/`.
pub fn pattern_dir(output: &Path, abstraction: &dyn Abstraction) -> PathBuf {
    output.join(abstraction.id())
}

/// What the next run expects of a pattern database (keyed as [`expected`]'s).
pub fn expected_pattern(abstraction: &dyn Abstraction, out: &mut HashMap<String, Expected>) {
    out.insert(
        format!("{}/{}", abstraction.id(), files::PATTERN),
        Expected::Fingerprint(patterns::fingerprint(abstraction)),
    );
}

/// The verified, current database of `abstraction` under `root`; `Ok(None)` when there is none
/// or it was built for other parameters, an error when it is there but corrupt.
pub fn open_pattern(
    root: &Path,
    abstraction: &dyn Abstraction,
) -> Result<Option<patterns::Database>, StageError> {
    let path = pattern_dir(root, abstraction).join(files::PATTERN);
    match Artifact::peek_header(&path) {
        Ok(h) if h.fingerprint == patterns::fingerprint(abstraction) => {
            patterns::Database::open(&path, abstraction).map(Some)
        }
        Ok(_) => Ok(None),
        Err(huarong_store::ArtifactError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// At least the bytes the artifacts of `spec` take in its folder, per file name, where its size
/// is known before it is built: its distance tables, 2 bytes a state in each metric. (The state
/// table, graph and components depend on the puzzle and on what the stages find; they are not
/// counted, so this is a floor, the twin of the run's memory bound.)
pub fn least_bytes(spec: &SpaceSpec) -> Vec<(String, u64)> {
    let Some(n) = spec.puzzle.size_hint() else {
        return Vec::new();
    };
    spec.metrics
        .iter()
        .map(|&m| {
            let metric = spec.puzzle.metrics()[m];
            (files::distances(metric), distances::table_bytes(n))
        })
        .collect()
}

/// The folder of a space's artifacts.
pub fn dir(output: &Path, spec: &SpaceSpec) -> PathBuf {
    output.join(spec.puzzle.space_id())
}

/// Whether the table `name` of `dir` is there, whole or as the parts of a multi-process run.
pub fn present(dir: &Path, name: &str) -> bool {
    dir.join(name).exists() || shards::parts_of(dir, name).is_some()
}

/// The artifact files of a space in its folder `dir`: the state table, then per metric the
/// graph, components and distances (the components and distances as their parts where a
/// multi-process run wrote them so, [`huarong_store::shards`]).
pub fn artifact_names(dir: &Path, spec: &SpaceSpec) -> Vec<String> {
    let mut names = vec![files::STATES.to_owned()];
    for &m in &spec.metrics {
        let metric = spec.puzzle.metrics()[m];
        names.push(files::graph(metric));
        for name in [files::components(metric), files::distances(metric)] {
            match shards::parts_of(dir, &name) {
                Some(parts) => {
                    names.extend((0..parts.len()).map(|k| shards::part_name(&name, k, parts.len())))
                }
                None => names.push(name),
            }
        }
    }
    names
}

/// Every artifact of a space in `dir` ([`artifact_names`]) with its payload checksum, read
/// from its header (the stages of a run have just verified them; the run records this list
/// once, and the export and prune use it).
pub fn artifacts(dir: &Path, spec: &SpaceSpec) -> Result<Vec<(String, u64)>, StageError> {
    artifact_names(dir, spec)
        .into_iter()
        .map(|name| {
            let header = Artifact::peek_header(&dir.join(&name))?;
            Ok((name, header.checksum))
        })
        .collect()
}

/// A hash of the names and payload checksums of a space's [`artifacts`].
pub fn checksum_of(artifacts: &[(String, u64)]) -> u64 {
    let mut fp = huarong_core::Fingerprint::new("space", 2);
    for (name, checksum) in artifacts {
        fp.add_str(name).add_u64(*checksum);
    }
    fp.finish()
}

/// [`checksum_of`] the artifacts `dir` holds now.
pub fn checksum(dir: &Path, spec: &SpaceSpec) -> Result<u64, StageError> {
    Ok(checksum_of(&artifacts(dir, spec)?))
}

/// The fingerprint a space's distance table carries: its puzzle's kind of sources and the
/// source states, the state table's and the graph's checksums, directedness.
pub fn distances_fingerprint<P: Puzzle + ?Sized>(
    puzzle: &P,
    sources: &[u32],
    states_checksum: u64,
    csr_checksum: u64,
) -> u64 {
    distances::fingerprint_of(
        puzzle.distance_sources(),
        sources,
        states_checksum,
        csr_checksum,
        puzzle.directed(),
    )
}

/// What the pipeline expects of one artifact.
#[derive(Debug, Clone)]
pub enum Expected {
    /// This fingerprint.
    Fingerprint(u64),
    /// Unknown, because an input of it is missing or not current (named): it will be rebuilt.
    InputNotCurrent(String),
    /// This fingerprint if the file is there; it may be absent (a chunk of a census: the
    /// run that completes the census needs only the chunks it has not merged yet).
    Optional(u64),
}

/// The fingerprints the next run expects for the artifacts of the space `spec` in `sdir`,
/// computed from the artifacts upstream of each as far as those are current; keyed by the path
/// relative to the output folder (`<space id>/<file>`).
pub fn expected(sdir: &Path, spec: &SpaceSpec, out: &mut HashMap<String, Expected>) {
    let puzzle = spec.puzzle.as_ref();
    let id = puzzle.space_id();
    let rel = |name: &str| format!("{id}/{name}");
    let states_fp = enumerate::fingerprint(puzzle);
    out.insert(rel(files::STATES), Expected::Fingerprint(states_fp));
    let states = StateTable::open_with(&sdir.join(files::STATES), states_fp).ok();
    let sources = states
        .as_ref()
        .and_then(|s| distances::sources(puzzle, s).ok());
    for &m in &spec.metrics {
        let name = puzzle.metrics()[m];
        let (g, c, d) = (
            files::graph(name),
            files::components(name),
            files::distances(name),
        );
        let Some(states) = &states else {
            let why = format!("its input {} is missing or not current", rel(files::STATES));
            for f in [&g, &c, &d] {
                out.insert(rel(f), Expected::InputNotCurrent(why.clone()));
            }
            continue;
        };
        let graph_fp = graph::fingerprint(puzzle, m, states.checksum());
        out.insert(rel(&g), Expected::Fingerprint(graph_fp));
        let csr_checksum = match Artifact::peek_header(&sdir.join(&g)) {
            Ok(h) if h.fingerprint == graph_fp => h.checksum,
            _ => {
                let why = format!("its input {} is missing or not current", rel(&g));
                for f in [&c, &d] {
                    out.insert(rel(f), Expected::InputNotCurrent(why.clone()));
                }
                continue;
            }
        };
        let directed = puzzle.directed();
        let comps = Expected::Fingerprint(components::fingerprint_of(csr_checksum, directed));
        expect_whole_or_parts(sdir, &rel, &c, comps, out);
        let dist = match &sources {
            Some(src) => Expected::Fingerprint(distances_fingerprint(
                puzzle,
                src,
                states.checksum(),
                csr_checksum,
            )),
            None => {
                Expected::InputNotCurrent("its source states are not in the state table".into())
            }
        };
        expect_whole_or_parts(sdir, &rel, &d, dist, out);
    }
}

/// Expects the artifact `name` of `sdir` as a whole file, or as the parts a multi-process run
/// wrote when they are there (each with its part's fingerprint).
fn expect_whole_or_parts(
    sdir: &Path,
    rel: &dyn Fn(&str) -> String,
    name: &str,
    whole: Expected,
    out: &mut HashMap<String, Expected>,
) {
    let Some(parts) = shards::parts_of(sdir, name) else {
        out.insert(rel(name), whole);
        return;
    };
    let count = parts.len();
    for k in 0..count {
        let part = match &whole {
            Expected::Fingerprint(fp) => {
                Expected::Fingerprint(shards::part_fingerprint(*fp, k, count))
            }
            other => other.clone(),
        };
        out.insert(rel(&shards::part_name(name, k, count)), part);
    }
}

/// The artifacts of one space in some of its metrics, opened and verified.
#[derive(Debug)]
pub struct OpenSpace {
    /// The folder they were opened from.
    pub dir: PathBuf,
    pub states: StateTable,
    pub metrics: Vec<OpenMetric>,
}

/// One metric's artifacts.
#[derive(Debug)]
pub struct OpenMetric {
    pub name: String,
    pub csr: Csr,
    pub components: Components,
    pub distances: Distances,
}

impl OpenSpace {
    /// Opens (and verifies) the artifacts of `puzzle` in `dir` for `metrics`.
    pub fn open<P: Puzzle + ?Sized>(
        puzzle: &P,
        dir: &Path,
        metrics: &[usize],
    ) -> Result<Self, StageError> {
        let states = StateTable::open(&dir.join(files::STATES), puzzle)?;
        // The distance sources (a scan over every state for goals) are the same in every metric.
        let sources = distances::sources(puzzle, &states)?;
        Self::open_rest(puzzle, dir, metrics, states, &sources)
    }

    /// [`OpenSpace::open`] when the distance sources are known (a run just computed them).
    pub fn open_from<P: Puzzle + ?Sized>(
        puzzle: &P,
        dir: &Path,
        metrics: &[usize],
        sources: &[u32],
    ) -> Result<Self, StageError> {
        let states = StateTable::open(&dir.join(files::STATES), puzzle)?;
        Self::open_rest(puzzle, dir, metrics, states, sources)
    }

    /// The current artifacts of `puzzle`'s space under `root` (`<root>/<space id>/`) in one
    /// metric: `Ok(None)` when they are absent, or stale (built for another version of the
    /// puzzle, e.g. an edited puzzle file: never used); an error when they are there but
    /// corrupt.
    pub fn find(
        root: &Path,
        puzzle: &dyn Puzzle,
        metric: usize,
    ) -> Result<Option<Self>, StageError> {
        let dir = root.join(puzzle.space_id());
        let name = puzzle.metrics()[metric];
        let needed = [
            files::STATES.to_owned(),
            files::graph(name),
            files::components(name),
            files::distances(name),
        ];
        if !needed.iter().all(|f| present(&dir, f)) {
            return Ok(None);
        }
        match Self::open(puzzle, &dir, &[metric]) {
            Err(StageError::Artifact(huarong_store::ArtifactError::Stale { .. })) => Ok(None),
            other => other.map(Some),
        }
    }

    fn open_rest<P: Puzzle + ?Sized>(
        puzzle: &P,
        dir: &Path,
        metrics: &[usize],
        states: StateTable,
        sources: &[u32],
    ) -> Result<Self, StageError> {
        let mut out = Vec::new();
        for &m in metrics {
            let name = puzzle.metrics()[m];
            let csr = Csr::open(&dir.join(files::graph(name)), puzzle, m, &states)?;
            let components = Components::open(&dir.join(files::components(name)), &csr)?;
            let fingerprint =
                distances_fingerprint(puzzle, sources, states.checksum(), csr.checksum());
            let distances = Distances::open_with(&dir.join(files::distances(name)), fingerprint)?;
            out.push(OpenMetric {
                name: name.to_owned(),
                csr,
                components,
                distances,
            });
        }
        Ok(OpenSpace {
            dir: dir.to_owned(),
            states,
            metrics: out,
        })
    }

    /// The space as plain slices, for a family's answers, records and tables.
    pub fn view<'a>(&'a self, spec: &'a SpaceSpec, index: usize) -> SpaceView<'a> {
        SpaceView {
            spec,
            index,
            codes: self.states.codes(spec.puzzle.as_ref()),
            metrics: self
                .metrics
                .iter()
                .map(|m| MetricView {
                    name: &m.name,
                    targets: m.csr.is_stored().then(|| m.csr.targets()),
                    components: m.components.ids(),
                    component_sizes: m.components.sizes(),
                    distances: m.distances.values(),
                })
                .collect(),
        }
    }
}
