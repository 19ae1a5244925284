//! The timely engine from the command line: 1 and 2 workers in one process, and 2 processes
//! over loopback, write byte-identical outputs (artifacts and Parquet) to the local engine's —
//! the two processes their components and distances as parts, one per worker, which read back
//! into the local engine's tables.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{assert_same_outputs, pipeline};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_huarong")
}

fn run(args: &[&str]) {
    let o = Command::new(bin()).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn timely_workers_and_processes_match_the_local_engine() {
    let root = tempfile::tempdir().unwrap();
    // Ports of this test run (two processes per pipeline).
    let base = 20_000 + (std::process::id() % 20_000) as u16;
    // The last: labeled spaces, whose graphs are stored as covers.
    for (k, p) in [
        "huarong-canonical.toml",
        "solitaire.toml",
        "../tests/pipelines/labeled-small.toml",
        // A universe: its classes split over the processes, the census gathered on the first.
        "../tests/pipelines/rush-hour-small.toml",
    ]
    .iter()
    .enumerate()
    {
        let local = root.path().join(format!("{k}-local"));
        run(&["run", &pipeline(p), "-q", "-o", local.to_str().unwrap()]);
        for workers in ["1", "2"] {
            let d = root.path().join(format!("{k}-timely-{workers}"));
            run(&[
                "run",
                &pipeline(p),
                "-q",
                "-o",
                d.to_str().unwrap(),
                "--engine",
                "timely",
                "-w",
                workers,
            ]);
            assert_same_outputs(&local, &d, &format!("{p}, {workers} workers"));
        }
        // Two processes over loopback, one worker each, bounded in time.
        let hosts = root.path().join(format!("{k}-hosts.txt"));
        let port = base + 2 * k as u16;
        std::fs::write(
            &hosts,
            format!("127.0.0.1:{port}\n127.0.0.1:{}\n", port + 1),
        )
        .unwrap();
        let d = root.path().join(format!("{k}-two-processes"));
        let mut children: Vec<_> = ["0", "1"]
            .iter()
            .map(|i| {
                Command::new(bin())
                    .args([
                        "run",
                        &pipeline(p),
                        "-q",
                        "-o",
                        d.to_str().unwrap(),
                        "--engine",
                        "timely",
                        "-w",
                        "1",
                        "-n",
                        "2",
                        "-p",
                        i,
                        "-h",
                        hosts.to_str().unwrap(),
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let deadline = Instant::now() + Duration::from_secs(120);
        for c in &mut children {
            loop {
                if let Some(status) = c.try_wait().unwrap() {
                    assert!(status.success(), "{p}: a process failed");
                    break;
                }
                if Instant::now() > deadline {
                    for c in &mut children {
                        let _ = c.kill();
                    }
                    panic!("{p}: two processes did not finish within 120 s");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        assert_same_parts(&local, &d, 2, &format!("{p}, 2 processes"));
        // The readers take the parts: verify finds everything current, solve reads the tables.
        run(&["verify", d.to_str().unwrap(), "--pipeline", &pipeline(p)]);
        if k == 0 {
            let o = Command::new(bin())
                .args([
                    "solve",
                    "VCCV/VCCV/VHHV/VSSV/S..S",
                    "--tables",
                    d.to_str().unwrap(),
                ])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            assert_eq!(text.lines().next(), Some("81"), "{text}");
        }
        // The local engine over the same folder writes whole tables and removes the parts.
        run(&["run", &pipeline(p), "-q", "-o", d.to_str().unwrap()]);
        assert_same_outputs(&local, &d, &format!("{p}, local after 2 processes"));
    }
}

/// `parts` holds what `whole` holds, but components and distances tables as `count` parts
/// (worker `k`'s part: the values of states `k, k + count, …`, part 0 of a component table also
/// the sizes; fingerprints derived from the whole table's), which interleave into the whole
/// table's values; every other file the same bytes but the export manifest (its fingerprint
/// covers the artifacts by name).
fn assert_same_parts(whole: &std::path::Path, parts: &std::path::Path, count: usize, what: &str) {
    use huarong_store::{Artifact, Expect, shards};
    let (sw, sp) = (common::snapshot(whole), common::snapshot(parts));
    let (mut seen, mut split) = (0, 0);
    for (name, bytes) in &sw {
        let file = name.file_name().unwrap().to_str().unwrap();
        if file == "export.manifest" {
            assert!(sp.contains_key(name), "{what}: {file}");
            seen += 1;
            continue;
        }
        // Spaces built for records only run on the leader alone: their tables are whole.
        if sp.contains_key(name) {
            assert!(sp[name] == *bytes, "{what}: {} differs", name.display());
            seen += 1;
            continue;
        }
        assert!(
            file.starts_with("components-") || file.starts_with("distances-"),
            "{what}: no {}",
            name.display()
        );
        split += 1;
        let open = |p: &std::path::Path| {
            let h = Artifact::peek_header(p).unwrap();
            let expect = Expect {
                kind: &h.kind,
                fingerprint: None,
            };
            Artifact::open(p, expect).unwrap()
        };
        let w = open(&whole.join(name));
        let ps: Vec<Artifact> = (0..count)
            .map(|k| {
                let rel = name.with_file_name(shards::part_name(file, k, count));
                assert!(sp.contains_key(&rel), "{what}: no {}", rel.display());
                seen += 1;
                let a = open(&parts.join(&rel));
                let fp = shards::part_fingerprint(w.header().fingerprint, k, count);
                assert_eq!(a.header().fingerprint, fp, "{what}: {}", rel.display());
                a
            })
            .collect();
        if file.starts_with("components-") {
            let ids: Vec<&[u32]> = ps.iter().map(|a| a.section(0)).collect();
            // Read back: a whole table of one component stores its size alone (every id is
            // 0), one whose metric has another's components refers to that table.
            let table =
                components::Components::open_with(&whole.join(name), w.header().fingerprint)
                    .unwrap();
            assert_eq!(
                shards::interleave(&ids).unwrap(),
                table.ids(),
                "{what}: {file}"
            );
            assert_eq!(
                ps[0].section::<u64>(1),
                table.sizes(),
                "{what}: {file} sizes"
            );
        } else {
            let d: Vec<&[u16]> = ps.iter().map(|a| a.section(0)).collect();
            assert_eq!(
                shards::interleave(&d).unwrap(),
                w.section::<u16>(0),
                "{what}: {file}"
            );
        }
    }
    assert_eq!(seen, sp.len(), "{what}: no other files");
    // A universe has no per-state tables: its census is gathered whole on process 0.
    let universe = sw.keys().any(|n| n.ends_with("universe.bin"));
    assert!(split > 0 || universe, "{what}: some tables are in parts");
}
