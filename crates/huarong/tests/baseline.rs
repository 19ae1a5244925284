//! Outputs stay what they were: every pipeline's artifacts (their payloads; headers carry
//! fingerprints, which change by design when the fingerprint encoding does) and Parquet files
//! (whole files) against checksums recorded in `tests/checksums/` by the build before the puzzle
//! registry replaced the per-puzzle run and export paths.
//!
//! Recorded anew once, for export version 6 (2026-12-03: `index` and `component` columns
//! delta-encoded): the 15 Parquet files that changed were each read back with polars next to
//! the previous build's and found equal (schema and every row), every other file was still the
//! same bytes. That recording also took in what had been listed here as documented changes:
//! `component_sizes.parquet` for every pipeline (export version 4) and the states tables' code
//! columns (version 5).
//!
//! A documented change is listed in `EXPECTED_CHANGES` with the reason. To record anew (only
//! for a documented change): `HUARONG_RECORD_CHECKSUMS=1 cargo test --release -p huarong --test
//! baseline`, which writes the recordings and then fails (a recording is never a pass); run it
//! again without the variable to compare.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;
use common::root;

/// `file -> checksum` for every artifact (header's payload checksum, after full verification)
/// and Parquet file (xxh3 of the file) under `dir`, the output of `pipeline`.
fn checksums(pipeline: &str, dir: &Path) -> BTreeMap<String, String> {
    let spaces = pipeline::Pipeline::load(registry::families(), &root().join(pipeline))
        .unwrap()
        .section
        .spaces()
        .spaces;
    let mut out = BTreeMap::new();
    for (rel, bytes) in common::snapshot(dir) {
        let name = rel.to_string_lossy().into_owned();
        let ext = rel.extension().and_then(|e| e.to_str()).unwrap_or("");
        let value = match ext {
            "bin" | "csr" => {
                let path = dir.join(&rel);
                let h = huarong_store::Artifact::peek_header(&path).unwrap();
                let expect = huarong_store::Expect {
                    kind: &h.kind,
                    fingerprint: None,
                };
                let artifact = huarong_store::Artifact::open(&path, expect).unwrap();
                let space = rel.parent().and_then(|p| p.to_str()).unwrap_or("");
                let puzzle = spaces
                    .iter()
                    .find(|s| s.puzzle.space_id() == space)
                    .map(|s| s.puzzle.as_ref());
                format!("payload {:016x}", recorded_form(&artifact, puzzle))
            }
            "parquet" => format!("file {:016x}", xxhash_rust::xxh3::xxh3_64(&bytes)),
            _ => continue,
        };
        out.insert(name, value);
    }
    out
}

/// The payload checksum of an artifact in the form the recording has: a graph whose offsets
/// are `u32` (graph format 2, while the arcs fit), stored as a cover (format 3) or regenerated
/// by the later stages (the unlabeled Huarong Dao spaces since 2026-12-03) is written again as
/// the recording's CSR with `u64` offsets, so its arcs are still compared with the recorded
/// ones.
///
/// A ranked space's state table (format 2) stores no codes: they are computed by its puzzle
/// and hashed as the recording's table of codes. A table of one component (components format
/// 2) stores no ids: they are all 0, and hashed as the recording's ids; a table stored as a
/// reference to another metric's is hashed as that table's ids and sizes.
fn recorded_form(
    artifact: &huarong_store::Artifact,
    puzzle: Option<&dyn huarong_core::Puzzle>,
) -> u64 {
    let h = artifact.header();
    if h.kind == "states" && h.sections.len() == 2 {
        let table = enumerate::StateTable::open_with(artifact.path(), h.fingerprint).unwrap();
        let codes = table
            .codes(puzzle.expect("a computed table's space"))
            .to_vec();
        return rewritten("states", h.fingerprint, &[&codes[..]], &[]);
    }
    if h.kind == "components" && h.sections[0].len == 0 {
        // Every id 0, or (three sections) another metric's table of the folder, read back.
        let table = components::Components::open_with(artifact.path(), h.fingerprint).unwrap();
        let (ids, sizes) = (table.ids().to_vec(), table.sizes());
        let dir = tempfile::tempdir().unwrap();
        let shape = [
            huarong_store::Section::of::<u32>(ids.len() as u64),
            huarong_store::Section::of::<u64>(sizes.len() as u64),
        ];
        let path = dir.path().join("rewritten");
        let w = huarong_store::ArtifactWriter::create(&path, &h.kind, h.fingerprint, "", &shape)
            .unwrap();
        w.write(0, 0, &ids).unwrap();
        w.write(1, 0, sizes).unwrap();
        return w.finish().unwrap().checksum;
    }
    let narrow = h.sections.len() == 2 && h.sections[0].elem_size == 4;
    let regenerated = h.sections.len() == 1;
    if h.kind != "csr" || !(narrow || regenerated || h.sections.len() == 3) {
        return h.checksum;
    }
    let csr = graph::Csr::open_with(artifact.path(), h.fingerprint, false).unwrap();
    let (mut offsets, mut targets) = (vec![0u64], Vec::new());
    if regenerated {
        // Rows the later stages generate again (graph-<metric>.csr beside states.bin).
        use graph::Rows;
        let puzzle = puzzle.expect("a regenerated graph's space");
        let stem = artifact.path().file_stem().unwrap().to_str().unwrap();
        let metric = stem.strip_prefix("graph-").unwrap();
        let m = huarong_core::metric_index(puzzle, metric).unwrap();
        let dir = artifact.path().parent().unwrap();
        let states = enumerate::StateTable::open(&dir.join("states.bin"), puzzle).unwrap();
        let rows = csr.rows(puzzle, &states, m);
        let mut buf = Vec::new();
        for u in 0..csr.node_count() as u32 {
            targets.extend_from_slice(rows.row(u, &mut buf));
            offsets.push(targets.len() as u64);
        }
    } else {
        for u in 0..csr.node_count() as u32 {
            targets.extend(csr.neighbor_iter(u));
            offsets.push(targets.len() as u64);
        }
    }
    rewritten("csr", h.fingerprint, &[&offsets[..]], &[&targets[..]])
}

/// The payload checksum of an artifact of `kind` with these `u64` sections, then these `u32`
/// sections, written as the recording's build wrote it.
fn rewritten(kind: &str, fingerprint: u64, wide: &[&[u64]], narrow: &[&[u32]]) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let sections: Vec<huarong_store::Section> = wide
        .iter()
        .map(|s| huarong_store::Section::of::<u64>(s.len() as u64))
        .chain(
            narrow
                .iter()
                .map(|s| huarong_store::Section::of::<u32>(s.len() as u64)),
        )
        .collect();
    let w = huarong_store::ArtifactWriter::create(
        &dir.path().join("rewritten"),
        kind,
        fingerprint,
        "",
        &sections,
    )
    .unwrap();
    for (k, s) in wide.iter().enumerate() {
        w.write(k, 0, s).unwrap();
    }
    for (k, s) in narrow.iter().enumerate() {
        w.write(wide.len() + k, 0, s).unwrap();
    }
    w.finish().unwrap().checksum
}

/// Documented changes since the recording: (recording, file, why). A listed file may be absent
/// from the recording (new) or differ from it; every other file must match. Empty since the
/// re-recording of export version 6 (see the module doc).
const EXPECTED_CHANGES: &[(&str, &str, &str)] = &[];

fn run_and_compare(pipeline: &str, record: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_huarong"))
        .args(["run", pipeline, "-q", "-o"])
        .arg(scratch.path())
        .current_dir(root())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = checksums(pipeline, scratch.path());
    let file = root().join("tests/checksums").join(record);
    if std::env::var_os("HUARONG_RECORD_CHECKSUMS").is_some() {
        // Recording is never a pass: it writes, then fails, so a run with the variable left
        // set cannot hide a changed output.
        let text: String = got.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        panic!(
            "{pipeline}: {} checksums recorded in {}; unset HUARONG_RECORD_CHECKSUMS to compare",
            got.len(),
            file.display()
        );
    }
    let recorded: BTreeMap<String, String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap();
            (k.to_owned(), v.to_owned())
        })
        .collect();
    let changed = |name: &str| {
        EXPECTED_CHANGES
            .iter()
            .any(|(r, f, _)| *r == record && *f == name)
    };
    let mut problems = Vec::new();
    for (name, sum) in &recorded {
        match got.get(name) {
            None => problems.push(format!("{name}: missing")),
            Some(s) if s != sum && !changed(name) => {
                problems.push(format!("{name}: {s}, recorded {sum}"))
            }
            Some(_) => {}
        }
    }
    for name in got
        .keys()
        .filter(|n| !recorded.contains_key(*n) && !changed(n))
    {
        problems.push(format!("{name}: not in the recording"));
    }
    assert!(problems.is_empty(), "{pipeline}:\n{}", problems.join("\n"));
}

#[test]
fn small_pipelines_give_the_recorded_outputs() {
    for (pipeline, record) in [
        ("pipelines/huarong-canonical.toml", "huarong-canonical.txt"),
        ("pipelines/solitaire.toml", "solitaire.txt"),
        ("pipelines/omnigravity.toml", "omnigravity.txt"),
        ("pipelines/square-destroyer.toml", "square-destroyer.txt"),
        (
            "tests/pipelines/klotski-universe-mini.toml",
            "klotski-universe-mini.txt",
        ),
    ] {
        run_and_compare(pipeline, record);
    }
}

/// The main job (0.42 GB of artifacts and tables, a few seconds).
#[test]
fn main_job_gives_the_recorded_outputs() {
    run_and_compare("pipelines/huarong.toml", "huarong.txt");
}
