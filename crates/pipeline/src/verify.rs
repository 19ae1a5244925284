//! `huarong verify`: every artifact (header, size, checksum) and every Parquet file (against the
//! export manifest) of an output folder — and, given the pipeline that writes the folder,
//! whether each is *current*: built from that pipeline's inputs (its fingerprint is the one the
//! next run expects), present, and still part of the pipeline.

use std::collections::HashMap;
use std::path::Path;

use enumerate::StateTable;
use huarong_core::artifact::Artifact;
use huarong_core::driver::SpaceSpec;

use crate::manifest::{self, FileCheck};
use crate::run::files;
use crate::{Pipeline, export, space_dir};

/// What the pipeline expects of one artifact.
#[derive(Clone)]
enum Expected {
    /// This fingerprint.
    Fingerprint(u64),
    /// Unknown, because an input of it is missing or not current (named): it will be rebuilt.
    InputNotCurrent(String),
}

/// Checks every file under `dir`; with `pipeline`, stale, missing and left-over files are bad
/// too.
pub fn verify(dir: &Path, pipeline: Option<&Pipeline>) -> std::io::Result<Vec<FileCheck>> {
    let mut checks = manifest::verify_dir(dir)?;
    let Some(pipeline) = pipeline else {
        return Ok(checks);
    };
    let plan = pipeline.section.spaces();
    let mut expected: HashMap<String, Expected> = HashMap::new();
    for spec in &plan.spaces {
        expect_space(&space_dir(dir, spec), spec, &mut expected);
    }
    let export_problem = match export::fingerprint(pipeline, &plan, dir) {
        Err(_) => Some("stale: the export's input artifacts are missing or bad".to_owned()),
        Ok(fp) => match manifest::stored_fingerprint(&dir.join(manifest::FILE)) {
            Some(stored) if stored == fp => None,
            Some(stored) => Some(format!(
                "stale: exported from other inputs or by another version \
                 (fingerprint {stored:016x}, expected {fp:016x})"
            )),
            None => Some(format!("no readable {}", manifest::FILE)),
        },
    };
    let mut seen = std::collections::HashSet::new();
    for c in &mut checks {
        seen.insert(c.file.clone());
        if c.problem.is_some() {
            continue;
        }
        let is_artifact = c.file.ends_with(".bin") || c.file.ends_with(".csr");
        c.problem = if is_artifact {
            match expected.get(&c.file) {
                None => {
                    Some("left over: not part of this pipeline (the next run removes it)".into())
                }
                Some(Expected::InputNotCurrent(why)) => Some(format!("stale: {why}")),
                Some(Expected::Fingerprint(fp)) => {
                    match Artifact::peek_header(&dir.join(&c.file)) {
                        Ok(h) if h.fingerprint == *fp => None,
                        Ok(h) => Some(format!(
                            "stale: built from other inputs or parameters \
                             (fingerprint {:016x}, expected {fp:016x})",
                            h.fingerprint
                        )),
                        Err(e) => Some(e.to_string()),
                    }
                }
            }
        } else {
            export_problem.clone()
        };
    }
    let mut missing: Vec<&String> = expected.keys().filter(|f| !seen.contains(*f)).collect();
    missing.sort();
    for file in missing {
        checks.push(FileCheck {
            file: file.clone(),
            problem: Some("missing: the pipeline builds it".into()),
        });
    }
    Ok(checks)
}

/// The fingerprints the next run expects for the artifacts of one space, computed from the
/// artifacts upstream of each, as far as those are current.
fn expect_space(sdir: &Path, spec: &SpaceSpec, out: &mut HashMap<String, Expected>) {
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
            Some(src) => Expected::Fingerprint(distances::fingerprint_of(
                puzzle.distance_sources(),
                src,
                states.checksum(),
                csr_checksum,
                directed,
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
    use huarong_core::shards;
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
