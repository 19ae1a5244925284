//! One space's folder, `<output>/<space id>/`: the one owner of what it holds. Every other
//! module asks here — the run for where to write, `verify` for what each file must be, `prune`
//! for what to keep, the export for the space's checksum, and every reader (export, verify,
//! solve, play) for the opened artifacts:
//!
//! - the kinds of artifact a space holds, declared once ([`Kind`]): each one's file name,
//!   whether it is one per metric, whether a multi-process run writes it in parts, the kinds
//!   its fingerprint takes the checksums of, and that fingerprint; everything below walks it:
//! - the files a space's folder holds ([`artifact_names`], [`present`]) and the fingerprint
//!   chain the next run expects ([`expected`]: each artifact's, from the artifacts upstream of
//!   it as far as those are current);
//! - the opener ([`OpenSpace`]): the state table and, per metric, the graph, components and
//!   distances, verified.
//!
//! A new stage adds its kind here (a variant and its arms) and its artifact to [`OpenMetric`].

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

use crate::folder::Folder;

/// File names of the artifacts beside the spaces' (a space's own are its [`Kind`]s').
pub mod files {
    /// A pattern database, alone in its abstraction's folder.
    pub const PATTERN: &str = "pattern.bin";

    /// A universe's census, alone in its universe's folder.
    pub const UNIVERSE: &str = "universe.bin";
}

/// A kind of artifact of a space, declared once: the listing, the fingerprint chain, the disk
/// a run needs and the readers' presence check walk [`Kind::ALL`]; the opener takes each kind's
/// file name from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The state table (one for every metric).
    States,
    /// A metric's move graph.
    Graph,
    /// A metric's connected components.
    Components,
    /// A metric's distances to the goals (or from the starts).
    Distances,
}

/// What a kind's fingerprint is computed from: the checksums of the kinds it takes
/// ([`Kind::inputs`], as far as they are current) and the distance sources.
#[derive(Debug, Clone, Copy, Default)]
pub struct Upstream<'a> {
    pub states: Option<u64>,
    pub graph: Option<u64>,
    /// The distance stage's sources (dense indices), read off the state table.
    pub sources: Option<&'a [u32]>,
}

impl Upstream<'_> {
    /// The checksum of the current artifact of `kind`, an input of the kind being fingerprinted.
    pub fn checksum(&self, kind: Kind) -> Option<u64> {
        match kind {
            Kind::States => self.states,
            Kind::Graph => self.graph,
            Kind::Components | Kind::Distances => None,
        }
    }
}

impl Kind {
    /// Every kind, in the order a run builds them.
    pub const ALL: [Kind; 4] = [Kind::States, Kind::Graph, Kind::Components, Kind::Distances];

    /// Its file in the space's folder, for `metric` (a metric's name; ignored by the state table).
    pub fn file(self, metric: &str) -> String {
        match self {
            Kind::States => "states.bin".to_owned(),
            Kind::Graph => format!("graph-{metric}.csr"),
            Kind::Components => format!("components-{metric}.bin"),
            Kind::Distances => format!("distances-{metric}.bin"),
        }
    }

    /// Its artifact in the space folder `dir`, for `metric` (as [`Kind::file`]).
    pub fn path(self, dir: &Path, metric: &str) -> PathBuf {
        dir.join(self.file(metric))
    }

    /// Whether a space has one per metric (else one for all).
    pub fn per_metric(self) -> bool {
        self != Kind::States
    }

    /// Whether a multi-process run writes it as parts ([`huarong_store::shards`]).
    pub fn in_parts(self) -> bool {
        matches!(self, Kind::Components | Kind::Distances)
    }

    /// The kinds whose checksums its fingerprint takes.
    pub fn inputs(self) -> &'static [Kind] {
        match self {
            Kind::States => &[],
            Kind::Graph => &[Kind::States],
            Kind::Components => &[Kind::Graph],
            Kind::Distances => &[Kind::States, Kind::Graph],
        }
    }

    /// What its artifact for `metric` (an index into the puzzle's metrics) must carry: the
    /// fingerprint computed from `upstream`, or, when an input is not current, why not.
    pub fn expected(self, puzzle: &dyn Puzzle, metric: usize, upstream: &Upstream<'_>) -> Expected {
        match self.fingerprint(puzzle, metric, upstream) {
            Ok(fp) => Expected::Fingerprint(fp),
            Err(why) => Expected::InputNotCurrent(why),
        }
    }

    fn fingerprint(
        self,
        puzzle: &dyn Puzzle,
        metric: usize,
        upstream: &Upstream<'_>,
    ) -> Result<u64, String> {
        let name = puzzle.metrics()[metric];
        let checksum = |kind: Kind| {
            debug_assert!(
                self.inputs().contains(&kind),
                "{kind:?} is not an input of {self:?}"
            );
            upstream.checksum(kind).ok_or_else(|| {
                format!(
                    "its input {}/{} is missing or not current",
                    puzzle.space_id(),
                    kind.file(name)
                )
            })
        };
        Ok(match self {
            Kind::States => enumerate::fingerprint(puzzle),
            Kind::Graph => graph::fingerprint(puzzle, metric, checksum(Kind::States)?),
            Kind::Components => {
                components::fingerprint_of(checksum(Kind::Graph)?, puzzle.directed())
            }
            Kind::Distances => {
                let (states, csr) = (checksum(Kind::States)?, checksum(Kind::Graph)?);
                let sources = upstream
                    .sources
                    .ok_or("its source states are not in the state table")?;
                distances_fingerprint(puzzle, sources, states, csr)
            }
        })
    }

    /// At least the bytes its artifact takes, where that is known before it is built: a
    /// distance table's 2 bytes a state (`states`, the space's size hint).
    pub fn least_bytes(self, states: u64) -> Option<u64> {
        (self == Kind::Distances).then(|| distances::table_bytes(states))
    }
}

/// Every artifact of `spec`'s space: each kind of [`Kind::ALL`], once or per metric of the
/// spec, as (kind, metric index).
pub fn nodes(spec: &SpaceSpec) -> Vec<(Kind, usize)> {
    let mut out = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| !k.per_metric()) {
        out.push((kind, 0));
    }
    for &m in &spec.metrics {
        for kind in Kind::ALL.into_iter().filter(|k| k.per_metric()) {
            out.push((kind, m));
        }
    }
    out
}

/// The artifact kind of a universe's census.
pub const UNIVERSE_KIND: &str = "universe";

/// The fingerprint of a universe's census: what decides its bytes.
pub fn universe_fingerprint(universe: &dyn huarong_core::Universe) -> u64 {
    let mut fp = huarong_core::Fingerprint::new("universe", 1);
    fp.add_str(&universe.id());
    universe.parameters(&mut fp);
    fp.finish()
}

/// What the next run expects of a pattern database (keyed as [`expected`]'s).
pub fn expected_pattern(abstraction: &dyn Abstraction, out: &mut HashMap<String, Expected>) {
    out.insert(
        format!("{}/{}", abstraction.id(), files::PATTERN),
        Expected::Fingerprint(patterns::fingerprint(abstraction)),
    );
}

/// The verified, current database of `abstraction` in `folder`; `Ok(None)` when there is none
/// or it was built for other parameters, an error when it is there but corrupt.
pub fn open_pattern(
    folder: &Folder,
    abstraction: &dyn Abstraction,
) -> Result<Option<patterns::Database>, StageError> {
    let path = folder.pattern_file(abstraction);
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
/// is known before it is built ([`Kind::least_bytes`]: its distance tables, 2 bytes a state in
/// each metric). (The state table, graph and components depend on the puzzle and on what the
/// stages find; they are not counted, so this is a floor, the twin of the run's memory bound.)
pub fn least_bytes(spec: &SpaceSpec) -> Vec<(String, u64)> {
    let Some(n) = spec.puzzle.size_hint() else {
        return Vec::new();
    };
    nodes(spec)
        .into_iter()
        .filter_map(|(kind, m)| {
            let bytes = kind.least_bytes(n)?;
            Some((kind.file(spec.puzzle.metrics()[m]), bytes))
        })
        .collect()
}

/// Whether the table `name` of `dir` is there, whole or as the parts of a multi-process run.
pub fn present(dir: &Path, name: &str) -> bool {
    dir.join(name).exists() || shards::parts_of(dir, name).is_some()
}

/// The artifact files of a space in its folder `dir`, in [`nodes`] order: the state table,
/// then per metric the graph, components and distances (a kind written in parts as its parts
/// where a multi-process run wrote them so, [`huarong_store::shards`]).
pub fn artifact_names(dir: &Path, spec: &SpaceSpec) -> Vec<String> {
    let mut names = Vec::new();
    for (kind, m) in nodes(spec) {
        let name = kind.file(spec.puzzle.metrics()[m]);
        match shards::parts_of(dir, &name).filter(|_| kind.in_parts()) {
            Some(parts) => {
                names.extend((0..parts.len()).map(|k| shards::part_name(&name, k, parts.len())))
            }
            None => names.push(name),
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
    // The state table is opened (verified) for its distance sources.
    let states = StateTable::open(&Kind::States.path(sdir, ""), puzzle).ok();
    let sources = states
        .as_ref()
        .and_then(|s| distances::sources(puzzle, s).ok());
    let mut upstream = Upstream {
        states: states.as_ref().map(StateTable::checksum),
        graph: None,
        sources: sources.as_deref(),
    };
    for (kind, m) in nodes(spec) {
        let name = kind.file(puzzle.metrics()[m]);
        let expected = kind.expected(puzzle, m, &upstream);
        // A graph's checksum is its metric's later kinds' input, if it is current.
        if kind == Kind::Graph {
            upstream.graph = match &expected {
                Expected::Fingerprint(fp) => match Artifact::peek_header(&sdir.join(&name)) {
                    Ok(h) if h.fingerprint == *fp => Some(h.checksum),
                    _ => None,
                },
                _ => None,
            };
        }
        if kind.in_parts() {
            expect_whole_or_parts(sdir, &rel, &name, expected, out);
        } else {
            out.insert(rel(&name), expected);
        }
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
        let states = StateTable::open(&Kind::States.path(dir, ""), puzzle)?;
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
        let states = StateTable::open(&Kind::States.path(dir, ""), puzzle)?;
        Self::open_rest(puzzle, dir, metrics, states, sources)
    }

    /// The current artifacts of `puzzle`'s space under `root` (`<root>/<space id>/`) in one
    /// metric: `Ok(None)` when they are absent, or stale (built for another version of the
    /// puzzle, e.g. an edited puzzle file: never used); an error when they are there but
    /// corrupt.
    pub fn find(
        folder: &Folder,
        puzzle: &dyn Puzzle,
        metric: usize,
    ) -> Result<Option<Self>, StageError> {
        let dir = folder.space_of(puzzle);
        let name = puzzle.metrics()[metric];
        if !Kind::ALL.iter().all(|k| present(&dir, &k.file(name))) {
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
            let csr = Csr::open(&dir.join(Kind::Graph.file(name)), puzzle, m, &states)?;
            let components = Components::open(&dir.join(Kind::Components.file(name)), &csr)?;
            let fingerprint =
                distances_fingerprint(puzzle, sources, states.checksum(), csr.checksum());
            let distances =
                Distances::open_with(&dir.join(Kind::Distances.file(name)), fingerprint)?;
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

    /// Its files in its folder with their checksums, in [`artifact_names`]' order, from the
    /// artifacts themselves (no header read again): what the export's fingerprint and prune
    /// take from a run.
    pub fn listed(&self) -> Vec<(String, u64)> {
        let mut out = vec![self.states.artifact().listed()];
        for m in &self.metrics {
            out.push(m.csr.artifact().listed());
            out.extend(m.components.listed());
            out.extend(m.distances.listed());
        }
        out
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
