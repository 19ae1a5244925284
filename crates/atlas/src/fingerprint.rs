//! The export's fingerprint: what a finished output folder's `export.manifest` must carry for its
//! tables to be the ones its pipeline, as it is now, writes over its artifacts. The batch export
//! writes it; every reader ([`crate::outputs`]) checks it.
//!
//! It covers everything that can change a byte of a table: the export's own version
//! ([`VERSION`]), the pipeline section as written and the files it read
//! ([`Pipeline::section_key`]), and the id and artifact checksums of every space, pattern
//! database and universe.

use std::path::Path;

use huarong_core::Fingerprint;
use huarong_core::driver::Plan;
use huarong_store::StageError;
use pipeline_config::Pipeline;

use crate::space;

/// The export's algorithm version: bump it whenever the same inputs give other table bytes.
/// 4: one export path for every puzzle (the registry); `component_sizes.parquet` for all.
/// 5: a states table's code columns (Huarong Dao: `common_code`, `short_code`).
/// 6: `index` and `component` columns delta-encoded (the same values).
/// 7: the Klotski database (`klotski_puzzles.parquet`, the summary's new columns).
pub const VERSION: u32 = 7;

/// The fingerprint the export of `pipeline` over `plan`'s spaces in `output` must carry (the
/// spaces' artifact headers are read, not verified: the stages just did that).
pub fn fingerprint(pipeline: &Pipeline, plan: &Plan, output: &Path) -> Result<u64, StageError> {
    let checksums = plan
        .spaces
        .iter()
        .map(|spec| space::checksum(&space::dir(output, spec), spec))
        .collect::<Result<Vec<u64>, _>>()?;
    let patterns = plan
        .patterns
        .iter()
        .map(|a| space::pattern_dir(output, a.as_ref()).join(space::files::PATTERN))
        .collect::<Vec<_>>();
    let universes = plan
        .universes
        .iter()
        .map(|u| space::universe_dir(output, u.as_ref()).join(space::files::UNIVERSE))
        .collect::<Vec<_>>();
    let peek = |paths: Vec<std::path::PathBuf>| {
        paths
            .iter()
            .map(|path| {
                Ok(huarong_store::Artifact::peek_header(path)
                    .map_err(huarong_store::StageError::from)?
                    .checksum)
            })
            .collect::<Result<Vec<u64>, StageError>>()
    };
    Ok(fingerprint_of(
        pipeline,
        plan,
        &checksums,
        &peek(patterns)?,
        &peek(universes)?,
    ))
}

/// [`fingerprint`] from each space's artifact checksum ([`space::checksum_of`]), each
/// pattern database's and each universe's.
pub fn fingerprint_of(
    pipeline: &Pipeline,
    plan: &Plan,
    checksums: &[u64],
    patterns: &[u64],
    universes: &[u64],
) -> u64 {
    let mut fp = Fingerprint::new("export", VERSION);
    fp.add_u64(pipeline.section_key);
    fp.add_list(plan.spaces.len());
    for (spec, &checksum) in plan.spaces.iter().zip(checksums) {
        fp.add_str(&spec.puzzle.space_id()).add_u64(checksum);
    }
    // Pipelines without pattern databases keep their fingerprints.
    if !plan.patterns.is_empty() {
        fp.add_list(plan.patterns.len());
        for (a, &checksum) in plan.patterns.iter().zip(patterns) {
            fp.add_str(&a.id()).add_u64(checksum);
        }
    }
    if !plan.universes.is_empty() {
        fp.add_list(plan.universes.len());
        for (u, &checksum) in plan.universes.iter().zip(universes) {
            fp.add_str(&u.id()).add_u64(checksum);
        }
    }
    fp.finish()
}
