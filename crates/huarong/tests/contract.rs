//! The contract every registered puzzle family keeps, checked through the registry so that a
//! new family is covered the day it is added (the test fails until it has a case here):
//!
//! * **No stale reuse.** For every key of its pipeline section (every key its `example()`
//!   shows) and the pipeline's own keys: change it, rerun into the old folder without
//!   `--force`, and the folder is byte-identical to a fresh run of the changed file — while the
//!   stages the change does not touch are reused (the log says which were rebuilt).
//! * **Notation.** `parse(render(state)) == state` for sampled states of every space.
//! * **Moves.** In undirected spaces every move can be undone.
//! * **Threads.** One and two threads write byte-identical folders.

use std::collections::BTreeSet;
use std::path::Path;

use huarong_core::Puzzle;
use pipeline::Pipeline;

mod common;
use common::{assert_same_outputs, ok, stage_log};

/// A change to a pipeline and what it may rebuild.
struct Case {
    /// Key paths the change touches (`boards.name` for a key of an array of tables).
    keys: &'static [&'static str],
    /// The section (and head) after the change (`@ROOT@` is the test's folder).
    text: String,
    /// Files the section reads, rewritten in place for this case (name, contents).
    files: Vec<(&'static str, String)>,
    /// `(space prefix, stage prefix)` of the stage lines that must not be reused; every other
    /// stage line must be. Each pattern must match at least one line.
    rebuilt: &'static [(&'static str, &'static str)],
}

/// A family's small base pipeline and its perturbations.
struct Family {
    name: &'static str,
    base: String,
    /// Files the base pipeline reads, written into the test's folder first.
    files: Vec<(&'static str, String)>,
    cases: Vec<Case>,
}

fn bundled(name: &str) -> String {
    std::fs::read_to_string(common::root().join("puzzles").join(name)).unwrap()
}

const HEAD: &str = "name = \"contract\"\noutput = \"unused\"\n";
const EXPORT: (&str, &str) = ("parquet", "export");
/// What adding the `straight` metric rebuilds: its three stages in every space, and the export.
const STRAIGHT_ADDED: &[(&str, &str)] = &[
    ("", "graph straight"),
    ("", "comps straight"),
    ("", "dist straight"),
    EXPORT,
];

fn doc(section: &str) -> String {
    format!("{HEAD}{section}")
}

fn families() -> Vec<Family> {
    let huarong = |sets: &str, spaces: &str, metrics: &str, tables: &str| {
        doc(&format!(
            "[huarong]\npiece_sets = {sets}\nspaces = {spaces}\nmetrics = {metrics}\n\
             state_tables = {tables}\n"
        ))
    };
    let solitaire = |start: &str, goal: &str| {
        doc(&format!(
            "[solitaire]\nstart = \"{start}\"\ngoal = \"{goal}\"\n"
        ))
    };
    let og = |boards: &[(&str, &str)]| {
        doc(&boards
            .iter()
            .map(|(n, b)| format!("[[omnigravity.boards]]\nname = \"{n}\"\nboard = \"{b}\"\n"))
            .collect::<String>())
    };
    let rush_chunked = |size: usize, walls: usize, chunk: u64| {
        doc(&format!(
            "[rush-hour]\nsize = {size}\nmax_walls = {walls}\nchunk_layouts = {chunk}\n"
        ))
    };
    let rush = |size: usize, walls: usize| rush_chunked(size, walls, 5_000);
    let (s1, s2) = (omnigravity::SAMPLES[0].1, omnigravity::SAMPLES[1].1);
    // sample-1 with the obstacle of its third row moved one cell left.
    let s1_moved = s1.replacen("/...#..../", "/..#...../", 1);
    assert_ne!(s1_moved, s1);
    let square = |ex: &str, sym: bool, sampled: &str, samples: u32, seed: u32| {
        doc(&format!(
            "[square-destroyer]\nexhaustive = {ex}\nsymmetric = {sym}\nsampled = {sampled}\n\
             samples = {samples}\nseed = {seed}\n"
        ))
    };
    let sliding_with =
        |stems: &[&str], metrics: &str, tables: &str, patterns: &str, spaces: bool| {
            let files: Vec<String> = stems
                .iter()
                .map(|s| format!("\"@ROOT@/{s}.toml\""))
                .collect();
            doc(&format!(
                "[sliding]\npuzzles = [{}]\nmetrics = {metrics}\nstate_tables = {tables}\n\
             patterns = {patterns}\nspaces = {spaces}\n",
                files.join(", ")
            ))
        };
    let sliding = |stems: &[&str], metrics: &str, tables: &str| {
        sliding_with(stems, metrics, tables, "false", true)
    };
    let (u, l) = ("[\"unlabeled\", \"labeled\"]", "[\"unlabeled\"]");
    let (sp, ssp) = (
        "[\"step\", \"piece\"]",
        "[\"step\", \"straight\", \"piece\"]",
    );
    vec![
        Family {
            name: "huarong",
            base: huarong("[\"h2v1s2\"]", u, sp, "true"),
            files: vec![],
            cases: vec![
                Case {
                    keys: &["piece_sets"],
                    text: huarong("[\"h2v1s2\", \"h1v1s2\"]", u, sp, "true"),
                    files: vec![],
                    rebuilt: &[("h1v1s2-unlabeled", ""), ("h1v1s2-labeled", ""), EXPORT],
                },
                Case {
                    keys: &["spaces"],
                    text: huarong("[\"h2v1s2\"]", l, sp, "true"),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
                Case {
                    keys: &["metrics"],
                    text: huarong("[\"h2v1s2\"]", u, ssp, "true"),
                    files: vec![],
                    rebuilt: STRAIGHT_ADDED,
                },
                Case {
                    keys: &["state_tables"],
                    text: huarong("[\"h2v1s2\"]", u, sp, "false"),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
            ],
        },
        Family {
            name: "solitaire",
            base: solitaire("4 4 4 5 5 4 6 5", "2 4 3 3 3 6 4 6"),
            files: vec![],
            cases: vec![
                Case {
                    keys: &["start"],
                    text: solitaire("4 4 4 5 5 4 6 6", "2 4 3 3 3 6 4 6"),
                    files: vec![],
                    rebuilt: &[("8x8-4", "dist move"), EXPORT],
                },
                // The goal decides only the export (distances run from the start).
                Case {
                    keys: &["goal"],
                    text: solitaire("4 4 4 5 5 4 6 5", "4 4 4 5 5 4 6 5"),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
            ],
        },
        Family {
            name: "rush-hour",
            base: rush(4, 1),
            files: vec![],
            cases: vec![
                Case {
                    keys: &["size"],
                    text: rush(5, 0),
                    files: vec![],
                    rebuilt: &[("rush-hour-", "census"), EXPORT],
                },
                Case {
                    keys: &["max_walls"],
                    text: rush(4, 2),
                    files: vec![],
                    rebuilt: &[("rush-hour-", "census"), EXPORT],
                },
                // The census's bytes do not depend on its chunks: it is reused (the export
                // is keyed by the whole section, so it is written again, the same bytes).
                Case {
                    keys: &["chunk_layouts"],
                    text: rush_chunked(4, 1, 7_000),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
            ],
        },
        Family {
            name: "omnigravity",
            base: og(&[("sample-1", s1), ("sample-2", s2)]),
            files: vec![],
            cases: vec![
                Case {
                    keys: &["boards.board"],
                    text: og(&[("sample-1", &s1_moved), ("sample-2", s2)]),
                    files: vec![],
                    rebuilt: &[("sample-1", ""), EXPORT],
                },
                Case {
                    keys: &["boards.name"],
                    text: og(&[("sample-1", s1), ("second", s2)]),
                    files: vec![],
                    rebuilt: &[("second", ""), EXPORT],
                },
                Case {
                    keys: &["boards"],
                    text: og(&[("sample-1", s1)]),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
            ],
        },
        Family {
            name: "square-destroyer",
            base: square("[1]", true, "[3]", 2, 1),
            files: vec![],
            cases: vec![
                Case {
                    keys: &["exhaustive"],
                    text: square("[1, 2]", true, "[3]", 2, 1),
                    files: vec![],
                    rebuilt: &[("n2", ""), EXPORT],
                },
                Case {
                    keys: &["symmetric"],
                    text: square("[1]", false, "[3]", 2, 1),
                    files: vec![],
                    rebuilt: &[("n1", ""), EXPORT],
                },
                Case {
                    keys: &["sampled"],
                    text: square("[1]", true, "[3, 4]", 2, 1),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
                Case {
                    keys: &["samples"],
                    text: square("[1]", true, "[3]", 3, 1),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
                Case {
                    keys: &["seed"],
                    text: square("[1]", true, "[3]", 2, 2),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
            ],
        },
        Family {
            name: "sliding",
            base: sliding(&["five", "rush"], sp, "true"),
            files: vec![
                ("five.toml", bundled("five.toml")),
                ("rush.toml", bundled("rush-hour-10.toml")),
                ("quzzle.toml", bundled("quzzle.toml")),
            ],
            cases: vec![
                Case {
                    keys: &["puzzles"],
                    text: sliding(&["five", "rush", "quzzle"], sp, "true"),
                    files: vec![],
                    rebuilt: &[("quzzle", ""), EXPORT],
                },
                Case {
                    keys: &["metrics"],
                    text: sliding(&["five", "rush"], ssp, "true"),
                    files: vec![],
                    rebuilt: STRAIGHT_ADDED,
                },
                Case {
                    keys: &["state_tables"],
                    text: sliding(&["five", "rush"], sp, "false"),
                    files: vec![],
                    rebuilt: &[EXPORT],
                },
                // The sliding tiles' pattern databases (the five puzzle's default group, all
                // five tiles); Rush Hour has none.
                Case {
                    keys: &["patterns"],
                    text: sliding_with(&["five", "rush"], sp, "true", "true", true),
                    files: vec![],
                    rebuilt: &[("pattern-2x3-12345", "patterns"), EXPORT],
                },
                // Only the databases: the spaces' artifacts are removed, not rebuilt.
                Case {
                    keys: &["patterns", "spaces"],
                    text: sliding_with(&["five", "rush"], sp, "true", "[\"12\", \"345\"]", false),
                    files: vec![],
                    rebuilt: &[
                        ("pattern-2x3-12", "patterns"),
                        ("pattern-2x3-345", "patterns"),
                        EXPORT,
                    ],
                },
                // A puzzle file edited in place: another goal for the red car. The positions
                // and moves are the same; the distances and the export are rebuilt.
                Case {
                    keys: &["puzzles"],
                    text: sliding(&["five", "rush"], sp, "true"),
                    files: vec![(
                        "rush.toml",
                        bundled("rush-hour-10.toml").replace("....AA\n", "...AA.\n"),
                    )],
                    rebuilt: &[("rush", "dist"), EXPORT],
                },
                // Another board with the same reachable positions (a car one cell over): the
                // explored state table is rebuilt, its bytes are the same, so the graph and
                // everything after it are reused.
                Case {
                    keys: &["puzzles"],
                    text: sliding(&["five", "rush"], sp, "true"),
                    files: vec![(
                        "rush.toml",
                        bundled("rush-hour-10.toml").replacen(
                            "AAIJ.K\n..IJDD\n......\n",
                            "AA.J.K\n..IJDD\n..I...\n",
                            1,
                        ),
                    )],
                    rebuilt: &[("rush", "enumerate"), EXPORT],
                },
                // The tiles are ranked, not explored: a board in the same half of the
                // positions (the blank one cell over) is the same space (only the board's
                // own distance, in the export, changes); two tiles swapped is the other half.
                Case {
                    keys: &["puzzles"],
                    text: sliding(&["five", "rush"], sp, "true"),
                    files: vec![(
                        "five.toml",
                        bundled("five.toml").replacen("45.\n\"\"\"", "4.5\n\"\"\"", 1),
                    )],
                    rebuilt: &[EXPORT],
                },
                Case {
                    keys: &["puzzles"],
                    text: sliding(&["five", "rush"], sp, "true"),
                    files: vec![(
                        "five.toml",
                        bundled("five.toml").replacen("45.\n\"\"\"", "54.\n\"\"\"", 1),
                    )],
                    rebuilt: &[("five", ""), EXPORT],
                },
            ],
        },
    ]
}

/// Dotted key paths of a TOML value (keys of tables inside arrays count as `array.key`).
fn key_paths(value: &toml::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.insert(path.clone());
                key_paths(v, &path, out);
            }
        }
        toml::Value::Array(items) => {
            for item in items {
                key_paths(item, prefix, out);
            }
        }
        _ => {}
    }
}

/// The key paths of a family's section in a pipeline document.
fn section_keys(text: &str, family: &str) -> BTreeSet<String> {
    let doc: toml::Table = toml::from_str(text).unwrap();
    let mut out = BTreeSet::new();
    key_paths(&doc[family], "", &mut out);
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Runs `text` fresh, and over a copy of `base_out` (the base's outputs) without `--force`;
/// both folders must match, and the rerun's log must rebuild exactly what `rebuilt` names.
fn check_case(root: &Path, tag: &str, base_out: &Path, text: &str, rebuilt: &[(&str, &str)]) {
    let file = root.join(format!("{tag}.toml"));
    std::fs::write(&file, text.replace("@ROOT@", root.to_str().unwrap())).unwrap();
    let file = file.to_str().unwrap();
    let (rerun, fresh) = (
        root.join(format!("{tag}-rerun")),
        root.join(format!("{tag}-fresh")),
    );
    copy_dir(base_out, &rerun);
    let log = stage_log(&ok(&["run", file, "-o", rerun.to_str().unwrap()]));
    ok(&["run", file, "-q", "-o", fresh.to_str().unwrap()]);
    assert_same_outputs(&rerun, &fresh, tag);
    let wanted = |l: &common::StageLine| {
        rebuilt
            .iter()
            .any(|(space, stage)| l.space.starts_with(space) && l.stage.starts_with(stage))
    };
    for l in &log {
        assert_eq!(
            !l.reused(),
            wanted(l),
            "{tag}: {} {} was {} ({})",
            l.space,
            l.stage,
            l.outcome,
            if wanted(l) {
                "a change it touches"
            } else {
                "untouched by the change"
            }
        );
    }
    for (space, stage) in rebuilt {
        assert!(
            log.iter()
                .any(|l| l.space.starts_with(space) && l.stage.starts_with(stage)),
            "{tag}: no stage line matches {space:?} {stage:?}"
        );
    }
    // `verify` with the changed pipeline finds the rerun's folder current.
    let o = common::huarong(&["verify", rerun.to_str().unwrap(), "--pipeline", file]);
    assert!(o.status.success(), "{tag}: {}", common::stdout(&o));
}

#[test]
fn every_key_of_every_family_invalidates_exactly_what_it_changes() {
    let families = families();
    for d in registry::families().drivers() {
        assert!(
            families.iter().any(|f| f.name == d.name()),
            "{} has no contract cases: add its base pipeline and one case per key",
            d.name()
        );
    }
    let root = tempfile::tempdir().unwrap();
    for f in &families {
        let driver = registry::families().find(f.name).unwrap();
        let example_keys = section_keys(driver.example(), f.name);
        assert_eq!(
            section_keys(&f.base.replace("@ROOT@", "/tmp"), f.name),
            example_keys,
            "{}: the base pipeline sets every key the example shows",
            f.name
        );
        let perturbed: BTreeSet<String> = f
            .cases
            .iter()
            .flat_map(|c| c.keys.iter().map(|k| k.to_string()))
            .collect();
        assert_eq!(
            perturbed, example_keys,
            "{}: every key is perturbed",
            f.name
        );

        let write_files = |files: &[(&str, String)]| {
            for (name, text) in files {
                std::fs::write(root.path().join(name), text).unwrap();
            }
        };
        write_files(&f.files);
        let base_file = root.path().join(format!("{}.toml", f.name));
        let base = f.base.replace("@ROOT@", root.path().to_str().unwrap());
        std::fs::write(&base_file, base).unwrap();
        let base_out = root.path().join(format!("{}-base", f.name));
        ok(&[
            "run",
            base_file.to_str().unwrap(),
            "-q",
            "-o",
            base_out.to_str().unwrap(),
        ]);
        for (k, c) in f.cases.iter().enumerate() {
            let tag = format!("{}-{}-{}", f.name, k, c.keys.join("+"));
            write_files(&c.files);
            check_case(root.path(), &tag, &base_out, &c.text, c.rebuilt);
            write_files(&f.files);
        }
    }
}

#[test]
fn the_pipelines_own_keys_change_nothing_they_should_not() {
    let root = tempfile::tempdir().unwrap();
    let section = "[solitaire]\nstart = \"4 4 4 5 5 4 6 5\"\ngoal = \"2 4 3 3 3 6 4 6\"\n";
    let base = root.path().join("base.toml");
    std::fs::write(&base, doc(section)).unwrap();
    let base_out = root.path().join("base-out");
    ok(&[
        "run",
        base.to_str().unwrap(),
        "-q",
        "-o",
        base_out.to_str().unwrap(),
    ]);
    // `name` names the run only; the engine never changes a byte (`output` is the folder).
    let renamed = format!("name = \"other\"\noutput = \"unused\"\n{section}");
    check_case(root.path(), "name", &base_out, &renamed, &[]);
    let timely = format!("{HEAD}engine = \"timely\"\nworkers = 1\n{section}");
    check_case(root.path(), "engine+workers", &base_out, &timely, &[]);
    // The bound on states refuses work; it never changes what a run that fits writes.
    let bounded = format!("{HEAD}max_states = 1000000\n{section}");
    check_case(root.path(), "max_states", &base_out, &bounded, &[]);
}

/// Up to `n` states of a space: unranked for ranked spaces, explored otherwise.
fn sample_states(p: &dyn Puzzle, n: usize) -> Vec<u64> {
    match p.ranking() {
        Some(r) => {
            let step = (r.states() / n as u64).max(1);
            (0..r.states())
                .step_by(step as usize)
                .map(|i| r.unrank(i))
                .collect()
        }
        None => {
            let all = enumerate::explore(p, |_| {});
            let step = (all.len() / n).max(1);
            all.into_iter().step_by(step).collect()
        }
    }
}

#[test]
fn notation_round_trips_and_undirected_moves_undo() {
    for f in families() {
        let read = |path: &str| -> std::io::Result<String> {
            f.files
                .iter()
                .find(|(name, _)| path.ends_with(&format!("/{name}")))
                .map(|(_, text)| text.clone())
                .ok_or_else(|| {
                    std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("{path}: not a file of the case"),
                    )
                })
        };
        let p = Pipeline::parse_with(registry::families(), &f.base, &read).unwrap();
        for spec in p.section.spaces().spaces {
            let puzzle = spec.puzzle.as_ref();
            let id = puzzle.space_id();
            let states = sample_states(puzzle, 500);
            assert!(!states.is_empty(), "{id}");
            for &code in &states {
                let text = puzzle.render(code);
                assert_eq!(puzzle.parse(&text), Ok(code), "{id}: {text}");
                if puzzle.directed() {
                    continue;
                }
                for &m in &spec.metrics {
                    let mut next = Vec::new();
                    puzzle.successors(code, m, &mut next);
                    for t in next {
                        let mut back = Vec::new();
                        puzzle.successors(t, m, &mut back);
                        assert!(back.contains(&code), "{id}: {text} -> {}", puzzle.render(t));
                    }
                }
            }
            assert!(puzzle.parse("not a position").is_err(), "{id}");
        }
    }
}

#[test]
fn one_or_two_threads_write_the_same_bytes_for_every_family() {
    let root = tempfile::tempdir().unwrap();
    for f in families() {
        for (name, text) in &f.files {
            std::fs::write(root.path().join(name), text).unwrap();
        }
        let file = root.path().join(format!("{}.toml", f.name));
        let base = f.base.replace("@ROOT@", root.path().to_str().unwrap());
        std::fs::write(&file, base).unwrap();
        let mut dirs = Vec::new();
        for threads in ["1", "2"] {
            let d = root.path().join(format!("{}-{threads}", f.name));
            let o = common::huarong_with(
                &[
                    "run",
                    file.to_str().unwrap(),
                    "-q",
                    "-o",
                    d.to_str().unwrap(),
                ],
                &[("RAYON_NUM_THREADS", threads)],
            );
            assert!(o.status.success(), "{}", common::stderr(&o));
            dirs.push(d);
        }
        assert_same_outputs(&dirs[0], &dirs[1], f.name);
    }
}
