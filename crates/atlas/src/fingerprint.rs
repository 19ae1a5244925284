//! The export's fingerprint: what a finished output folder's `export.manifest` must carry for its
//! tables to be the ones its pipeline, as it is now, writes over its artifacts. The batch export
//! writes it; every reader ([`crate::outputs`]) checks it.
//!
//! It covers everything that can change a byte of a table: the export's own version
//! ([`VERSION`]), the pipeline section as written and the files it read
//! ([`Pipeline::section_key`]), and the id and artifact checksums of every space, pattern
//! database and universe.

use huarong_core::Fingerprint;
use huarong_core::driver::Plan;
use huarong_store::StageError;
use pipeline_config::Pipeline;

use crate::folder::Folder;
use crate::space;

/// The export's algorithm version: bump it whenever the same inputs give other table bytes.
/// 4: one export path for every puzzle (the registry); `component_sizes.parquet` for all.
/// 5: a states table's code columns (Huarong Dao: `common_code`, `short_code`).
/// 6: `index` and `component` columns delta-encoded (the same values).
/// 7: the Klotski database (`klotski_puzzles.parquet`, the summary's new columns).
pub const VERSION: u32 = 7;

/// Each item's id and checksum, as the folder's headers say, of one kind of work beside the
/// spaces.
pub type OnDisk = fn(&Plan, &Folder) -> Result<Vec<(String, u64)>, StageError>;

/// The kinds of work a pipeline file can plan beside its spaces (a section's `Plan`: pattern
/// databases, universes' censuses), by name, in the export fingerprint's order, each with its
/// items on disk: what a reader recomputes a folder's fingerprint from. The batch side builds
/// them (`pipeline::work::built_in`, the same names in the same order: its tests check it).
pub const PLANNED: [(&str, OnDisk); 2] = [
    ("pattern databases", patterns_on_disk),
    ("censuses", universes_on_disk),
];

/// The fingerprint the export of `pipeline` over `plan`'s spaces in `output` must carry (the
/// spaces' artifact headers are read, not verified: the stages just did that), with the
/// artifacts of the kinds of work a pipeline file can plan ([`PLANNED`]).
pub fn fingerprint(pipeline: &Pipeline, plan: &Plan, output: &Folder) -> Result<u64, StageError> {
    let others = PLANNED
        .iter()
        .map(|(_, on_disk)| on_disk(plan, output))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(fingerprint_of(
        pipeline,
        plan,
        &spaces_on_disk(plan, output)?,
        &others,
    ))
}

/// Each pattern database's id and checksum as its header under `output` says.
pub fn patterns_on_disk(plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError> {
    let paths = plan
        .patterns
        .iter()
        .map(|a| (a.id(), output.pattern_file(a.as_ref())));
    peek(paths)
}

/// Each universe's id and its census's checksum as its header under `output` says.
pub fn universes_on_disk(plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError> {
    let paths = plan
        .universes
        .iter()
        .map(|u| (u.id(), output.universe_file(u.as_ref())));
    peek(paths)
}

/// Each id with the payload checksum its artifact's header carries (read, not verified).
fn peek(
    paths: impl Iterator<Item = (String, std::path::PathBuf)>,
) -> Result<Vec<(String, u64)>, StageError> {
    paths
        .map(|(id, path)| Ok((id, huarong_store::Artifact::peek_header(&path)?.checksum)))
        .collect()
}

/// Each space's artifact checksum ([`space::checksum`]) as its folder under `output` holds it now.
pub fn spaces_on_disk(plan: &Plan, output: &Folder) -> Result<Vec<u64>, StageError> {
    plan.spaces
        .iter()
        .map(|spec| space::checksum(&output.space(spec), spec))
        .collect()
}

/// [`fingerprint`] from each space's artifact checksum ([`space::checksum_of`]) and, per kind
/// of work beside the spaces, each item's id and checksum (a kind without items adds nothing).
pub fn fingerprint_of(
    pipeline: &Pipeline,
    plan: &Plan,
    checksums: &[u64],
    others: &[Vec<(String, u64)>],
) -> u64 {
    let mut fp = Fingerprint::new("export", VERSION);
    fp.add_u64(pipeline.section_key);
    fp.add_list(plan.spaces.len());
    for (spec, &checksum) in plan.spaces.iter().zip(checksums) {
        fp.add_str(&spec.puzzle.space_id()).add_u64(checksum);
    }
    // Pipelines without such work keep their fingerprints.
    for items in others.iter().filter(|items| !items.is_empty()) {
        fp.add_list(items.len());
        for (id, checksum) in items {
            fp.add_str(id).add_u64(*checksum);
        }
    }
    fp.finish()
}
