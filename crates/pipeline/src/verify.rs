//! `huarong verify`: every artifact (header, size, checksum) and every Parquet file (against the
//! export manifest) of an output folder — and, given the pipeline that writes the folder,
//! whether each is *current*: built from that pipeline's inputs (its fingerprint is the one the
//! next run expects), present, and still part of the pipeline.

use std::collections::HashMap;
use std::path::Path;

use atlas::folder::Folder;
use huarong_store::artifact::Artifact;

use crate::manifest::{self, FileCheck};
use crate::space::{self, Expected};
use crate::{Pipeline, export};

/// Checks every file under `dir`; with `pipeline`, stale, missing and left-over files are bad
/// too (the pipeline's spaces and the [`crate::work::built_in`] kinds of work).
pub fn verify(dir: &Path, pipeline: Option<&Pipeline>) -> std::io::Result<Vec<FileCheck>> {
    verify_with(dir, pipeline, &crate::work::built_in())
}

/// [`verify`] with the kinds of work `works` beside the spaces.
pub fn verify_with(
    dir: &Path,
    pipeline: Option<&Pipeline>,
    works: &[Box<dyn crate::work::Work>],
) -> std::io::Result<Vec<FileCheck>> {
    let mut checks = manifest::verify_dir(dir)?;
    let Some(pipeline) = pipeline else {
        return Ok(checks);
    };
    let plan = pipeline.section.spaces();
    let folder = Folder::new(dir);
    let mut expected: HashMap<String, Expected> = HashMap::new();
    for spec in &plan.spaces {
        space::expected(&folder.space(spec), spec, &mut expected);
    }
    for w in works {
        w.expected(&plan, &folder, &mut expected);
    }
    let export_problem = match export::fingerprint(pipeline, &plan, &folder, works) {
        Err(_) => Some("stale: the export's input artifacts are missing or bad".to_owned()),
        Ok(fp) => match manifest::stored_fingerprint(&folder.manifest()) {
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
                Some(Expected::Fingerprint(fp) | Expected::Optional(fp)) => {
                    match Artifact::peek_header(&folder.file(&c.file)) {
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
    let mut missing: Vec<&String> = expected
        .iter()
        .filter(|(f, e)| !seen.contains(*f) && !matches!(e, Expected::Optional(_)))
        .map(|(f, _)| f)
        .collect();
    missing.sort();
    for file in missing {
        checks.push(FileCheck {
            file: file.clone(),
            problem: Some("missing: the pipeline builds it".into()),
        });
    }
    Ok(checks)
}
