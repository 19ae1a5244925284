//! A new kind of work is one `impl Work`: this test declares a toy node — every summary space's
//! per-state degree table in each metric, `<space>/degrees-<metric>.bin`, exported as
//! `degrees.parquet` — and hands it to the run, `verify` and the export without any other edit
//! of the pipeline. The run builds it after the stages and reuses it, prune keeps it (and removes
//! it once the pipeline no longer makes it), `verify` expects it, and the export's fingerprint
//! covers it.

use std::collections::HashMap;
use std::path::Path;

use graph::Rows;
use huarong_core::driver::Plan;
use huarong_core::{Fingerprint, Outcome, Table};
use huarong_store::{ArtifactWriter, Expect, Section, StageError};
use pipeline::folder::Folder;
use pipeline::run::RunOptions;
use pipeline::space::{Expected, OpenSpace};
use pipeline::work::{self, Done, Work};
use pipeline::{Pipeline, PipelineError, SpaceReport, run_pipeline, run_pipeline_with};

const KIND: &str = "degrees";

/// The toy node: a `u8` per state, its number of moves.
#[derive(Debug)]
struct Degrees;

/// Its file and fingerprint for one metric of a space whose graph has checksum `csr`.
fn node(space: &str, metric: &str, csr: u64) -> (String, u64) {
    let mut fp = Fingerprint::new(KIND, 1);
    fp.add_u64(csr);
    (format!("{space}/degrees-{metric}.bin"), fp.finish())
}

/// The degree of every state of one metric of an opened space.
fn degrees(spec: &huarong_core::driver::SpaceSpec, open: &OpenSpace, k: usize) -> Vec<u8> {
    let m = spec.metrics[k];
    let rows = open.metrics[k]
        .csr
        .rows(spec.puzzle.as_ref(), &open.states, m);
    let mut buf = Vec::new();
    (0..rows.node_count() as u32)
        .map(|u| rows.row(u, &mut buf).len() as u8)
        .collect()
}

impl Work for Degrees {
    fn name(&self) -> &'static str {
        "degree tables"
    }

    fn expected(&self, plan: &Plan, output: &Folder, out: &mut HashMap<String, Expected>) {
        for spec in plan.spaces.iter().filter(|s| s.summary) {
            let Ok(open) =
                OpenSpace::open(spec.puzzle.as_ref(), &output.space(spec), &spec.metrics)
            else {
                continue;
            };
            for m in &open.metrics {
                let (file, fp) = node(&spec.puzzle.space_id(), &m.name, m.csr.checksum());
                out.insert(file, Expected::Fingerprint(fp));
            }
        }
    }

    fn run(
        &self,
        plan: &Plan,
        spaces: &[SpaceReport],
        output: &Folder,
        opts: &RunOptions,
    ) -> Result<Done, PipelineError> {
        let mut checksums = Vec::new();
        let mut artifacts = Vec::new();
        let mut report = Vec::new();
        for (spec, space) in plan.spaces.iter().zip(spaces).filter(|(s, _)| s.summary) {
            let open = space.open.as_ref().expect("the run's artifacts");
            for (k, m) in open.metrics.iter().enumerate() {
                let (file, fingerprint) = node(&space.space_id, &m.name, m.csr.checksum());
                let expect = Expect {
                    kind: KIND,
                    fingerprint: Some(fingerprint),
                };
                let (artifact, outcome) = huarong_store::reuse_or_build(
                    &output.file(&file),
                    expect,
                    opts.force,
                    |path| {
                        let values = degrees(spec, open, k);
                        let sections = [Section::of::<u8>(values.len() as u64)];
                        let w = ArtifactWriter::create(path, KIND, fingerprint, &file, &sections)?;
                        w.write(0, 0, &values)?;
                        Ok(w.finish()?)
                    },
                )?;
                checksums.push((file.clone(), artifact.header().checksum));
                report.push((file.clone(), outcome, artifact.section::<u8>(0).to_vec()));
                artifacts.push(file);
            }
        }
        Ok(Done::new(checksums, artifacts, report))
    }

    fn on_disk(&self, plan: &Plan, output: &Folder) -> Result<Vec<(String, u64)>, StageError> {
        let mut out = HashMap::new();
        self.expected(plan, output, &mut out);
        let mut files: Vec<String> = out.into_keys().collect();
        files.sort();
        files
            .into_iter()
            .map(|f| {
                Ok((
                    f.clone(),
                    huarong_store::Artifact::peek_header(&output.file(&f))?.checksum,
                ))
            })
            .collect()
    }

    fn tables(&self, _plan: &Plan, done: &Done) -> Result<Vec<(String, Table)>, PipelineError> {
        let report: &Vec<(String, Outcome, Vec<u8>)> = done.report().unwrap();
        let rows: Vec<(&String, usize, u8)> = report
            .iter()
            .flat_map(|(f, _, d)| d.iter().enumerate().map(move |(i, &v)| (f, i, v)))
            .collect();
        let table = Table::new()
            .str("table", rows.iter().map(|r| r.0.clone()).collect())
            .u64("index", rows.iter().map(|r| r.1 as u64).collect())
            .u32("degree", rows.iter().map(|r| r.2 as u32).collect());
        Ok(vec![("degrees.parquet".into(), table)])
    }
}

fn pipeline() -> Pipeline {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let file = root.join("puzzles/eight.toml");
    let text = format!(
        "name = \"p\"\noutput = \"unused\"\n[sliding]\npuzzles = [\"{}\"]\n\
         metrics = [\"step\"]\nstate_tables = false\n",
        file.display()
    );
    let read = |f: &str| std::fs::read_to_string(f);
    Pipeline::parse_with(registry::families(), &text, &read).unwrap()
}

#[test]
fn a_toy_node_is_built_verified_kept_and_exported_with_no_other_edit() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = pipeline();
    let opts = RunOptions::default();
    let mut works = work::built_in();
    works.push(Box::new(Degrees));

    let first = run_pipeline_with(&pipeline, Some(dir.path()), &opts, &works).unwrap();
    // Built after the stages: the eight puzzle's 181,440 states, each with its moves, whose
    // counts are the run's own degree histogram (2, 3 or 4 moves).
    let made: &Vec<(String, Outcome, Vec<u8>)> = first.works[2].report().unwrap();
    let [(file, outcome, values)] = &made[..] else {
        panic!("one degree table: {made:?}");
    };
    assert_eq!(*outcome, Outcome::Built);
    assert!(dir.path().join(file).is_file(), "{file}");
    let mut histogram = vec![0u64; 5];
    for &d in values {
        histogram[d as usize] += 1;
    }
    assert_eq!(histogram, first.spaces[0].metrics[0].degree_histogram);
    assert_eq!(
        histogram,
        [0, 0, 4 * 181_440 / 9, 4 * 181_440 / 9, 181_440 / 9]
    );
    // Exported beside the spaces' tables.
    assert!(first.tables.iter().any(|(n, _)| n == "degrees.parquet"));
    assert!(dir.path().join("degrees.parquet").is_file());
    // Kept by prune, and expected by verify: nothing is bad.
    let checks = pipeline::verify::verify_with(dir.path(), Some(&pipeline), &works).unwrap();
    let bad: Vec<_> = checks.iter().filter(|c| c.problem.is_some()).collect();
    assert!(bad.is_empty(), "{bad:?}");
    assert!(checks.iter().any(|c| c.file == *file));

    // Run again: reused, and so is the export (its fingerprint covered the node).
    let again = run_pipeline_with(&pipeline, Some(dir.path()), &opts, &works).unwrap();
    let made: &Vec<(String, Outcome, Vec<u8>)> = again.works[2].report().unwrap();
    assert_eq!(made[0].1, Outcome::Reused);
    assert_eq!(again.export_outcome, Outcome::Reused);

    // A verify that does not know the node calls its artifact a leftover.
    let checks = pipeline::verify::verify(dir.path(), Some(&pipeline)).unwrap();
    let problem = |f: &str| {
        checks
            .iter()
            .find(|c| c.file == f)
            .and_then(|c| c.problem.clone())
    };
    assert!(
        problem(file).is_some_and(|p| p.starts_with("left over")),
        "{checks:?}"
    );

    // The pipeline without the node: a fresh export (its fingerprint lists one kind less), and
    // prune removes the node's artifact and table.
    let plain = run_pipeline(&pipeline, Some(dir.path()), &opts).unwrap();
    assert_ne!(plain.export_outcome, Outcome::Reused);
    assert!(!dir.path().join(file).exists());
    assert!(!dir.path().join("degrees.parquet").exists());
    assert!(plain.pruned.iter().any(|p| p == Path::new(file)));
    let checks = pipeline::verify::verify(dir.path(), Some(&pipeline)).unwrap();
    assert!(checks.iter().all(|c| c.problem.is_none()), "{checks:?}");
}

/// The space's kinds of artifact, declared once ([`pipeline::space::Kind`]): the folder holds
/// one file per node, each carrying the fingerprint the declaration computes from its inputs;
/// an input that is gone makes every artifact downstream of it, and only those, not current.
#[test]
fn the_declared_kinds_expect_what_the_run_wrote_and_follow_their_inputs() {
    use pipeline::space::{self, Kind};
    let dir = tempfile::tempdir().unwrap();
    let pipeline = pipeline();
    run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
    let plan = pipeline.section.spaces();
    let spec = &plan.spaces[0];
    let sdir = Folder::new(dir.path()).space(spec);
    let id = spec.puzzle.space_id();
    let names: Vec<String> = space::nodes(spec)
        .iter()
        .map(|&(kind, m)| kind.file(spec.puzzle.metrics()[m]))
        .collect();
    assert_eq!(
        names,
        [
            "states.bin",
            "graph-step.csr",
            "components-step.bin",
            "distances-step.bin"
        ]
    );
    assert_eq!(space::artifact_names(&sdir, spec), names);
    let expected = |out: &mut HashMap<String, Expected>| {
        out.clear();
        space::expected(&sdir, spec, out);
    };
    let mut out = HashMap::new();
    expected(&mut out);
    for name in &names {
        let header = huarong_store::Artifact::peek_header(&sdir.join(name)).unwrap();
        match &out[&format!("{id}/{name}")] {
            Expected::Fingerprint(fp) => assert_eq!(*fp, header.fingerprint, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    let why = |out: &HashMap<String, Expected>, name: &str| match &out[&format!("{id}/{name}")] {
        Expected::InputNotCurrent(why) => Some(why.clone()),
        _ => None,
    };
    // Without the graph: its fingerprint is still known, those of its metric's components
    // and distances are not.
    std::fs::remove_file(sdir.join("graph-step.csr")).unwrap();
    expected(&mut out);
    assert_eq!(why(&out, "graph-step.csr"), None);
    for name in ["components-step.bin", "distances-step.bin"] {
        let why = why(&out, name).unwrap();
        assert!(why.contains(&format!("{id}/graph-step.csr")), "{why}");
    }
    // Without the state table: nothing downstream of it is known either.
    std::fs::remove_file(sdir.join("states.bin")).unwrap();
    expected(&mut out);
    assert_eq!(why(&out, "states.bin"), None);
    for name in ["graph-step.csr", "distances-step.bin"] {
        let why = why(&out, name).unwrap();
        assert!(why.contains(&format!("{id}/states.bin")), "{why}");
    }
    assert_eq!(Kind::Distances.inputs(), [Kind::States, Kind::Graph]);
}

/// The files and checksums a run hands the export in memory are what the folder's headers say:
/// whole tables, a metric's components stored as a reference to another metric's, and the
/// same after a rerun that reuses everything.
#[test]
fn the_run_lists_its_artifacts_as_the_folder_holds_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("tests/pipelines/labeled-small.toml")).unwrap();
    let read = |f: &str| std::fs::read_to_string(f);
    let pipeline = Pipeline::parse_with(registry::families(), &text, &read).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = pipeline.section.spaces();
    for round in ["built", "reused"] {
        let report = run_pipeline(&pipeline, Some(dir.path()), &RunOptions::default()).unwrap();
        let summary: Vec<_> = plan.spaces.iter().filter(|s| s.summary).collect();
        assert_eq!(report.spaces.len(), summary.len());
        for (spec, space) in summary.into_iter().zip(&report.spaces) {
            let sdir = Folder::new(dir.path()).space(spec);
            let on_disk = pipeline::space::artifacts(&sdir, spec).unwrap();
            assert_eq!(space.artifacts, on_disk, "{round}: {}", space.space_id);
            // Three metrics, one table of components: the other two are references to it (the
            // same small payload, so the same checksum; whole copies would all share the
            // table's).
            let components: Vec<u64> = on_disk
                .iter()
                .filter(|(name, _)| name.starts_with("components-"))
                .map(|(_, checksum)| *checksum)
                .collect();
            assert_eq!(components.len(), 3);
            assert!(components[0] != components[1] && components[1] == components[2]);
        }
        let expected = if round == "built" {
            Outcome::Built
        } else {
            Outcome::Reused
        };
        assert_eq!(report.export_outcome, expected);
    }
}
