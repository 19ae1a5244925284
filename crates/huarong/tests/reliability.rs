//! Reliability of `huarong run` as a user meets it: every artifact kind rejects truncation and
//! flipped bytes, the thread count does not change any output, and a run killed with SIGKILL in
//! the middle of each stage, then rerun, ends with exactly the outputs of an uninterrupted run.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{assert_same_outputs, huarong_with, pipeline, snapshot};

fn huarong(args: &[&str], threads: Option<&str>) -> Output {
    match threads {
        Some(t) => huarong_with(args, &[("RAYON_NUM_THREADS", t)]),
        None => huarong_with(args, &[]),
    }
}

#[test]
fn every_artifact_kind_rejects_truncation_and_flipped_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    // OmniGravity's spaces are small, directed and explored; its folder has every kind.
    let o = huarong(
        &["run", &pipeline("omnigravity.toml"), "-q", "-o", out],
        None,
    );
    assert!(o.status.success());
    let files = [
        "sample-1/states.bin",
        "sample-1/graph-gravity.csr",
        "sample-1/components-gravity.bin",
        "sample-1/distances-gravity.bin",
        "summary.parquet",
        "states-sample-1.parquet",
    ];
    for f in files {
        let path = dir.path().join(f);
        let good = std::fs::read(&path).unwrap();
        let damaged: [(&str, Vec<u8>); 3] = [
            ("truncated", good[..good.len() - 1].to_vec()),
            ("payload byte flipped", {
                let mut b = good.clone();
                let at = b.len() - 3;
                b[at] ^= 0x40;
                b
            }),
            ("header byte flipped", {
                let mut b = good.clone();
                b[9] ^= 0x01;
                b
            }),
        ];
        for (how, bytes) in damaged {
            std::fs::write(&path, &bytes).unwrap();
            let o = huarong(&["verify", out], None);
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            assert_eq!(o.status.code(), Some(2), "{f} {how}: {text}");
            assert!(text.contains(&format!("BAD  {f}")), "{f} {how}: {text}");
            assert!(text.contains(", 1 bad"), "{f} {how}: {text}");
            // The next run rebuilds it instead of reading it.
            let o = huarong(&["run", &pipeline("omnigravity.toml"), "-o", out], None);
            assert!(o.status.success());
            let log = String::from_utf8_lossy(&o.stderr).into_owned();
            assert!(log.contains("rebuilt"), "{f} {how}: {log}");
            assert_eq!(
                std::fs::read(&path).unwrap(),
                good,
                "{f} {how}: rebuilt identically"
            );
        }
    }
}

#[test]
fn one_or_two_threads_give_identical_outputs() {
    let root = tempfile::tempdir().unwrap();
    for p in [
        "huarong-canonical.toml",
        "solitaire.toml",
        "omnigravity.toml",
    ] {
        let mut dirs = Vec::new();
        for threads in ["1", "2"] {
            let d = root.path().join(format!("{p}-{threads}"));
            let o = huarong(
                &["run", &pipeline(p), "-q", "-o", d.to_str().unwrap()],
                Some(threads),
            );
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            dirs.push(d);
        }
        // Artifacts byte for byte, and the Parquet files (whose bytes follow from content).
        assert_same_outputs(&dirs[0], &dirs[1], p);
    }
}

/// The stages of a run in order ("space stage"), with their wall times, from its log.
fn stage_log(stderr: &str) -> Vec<(String, f64)> {
    common::stage_log(stderr)
        .into_iter()
        .map(|l| (format!("{} {}", l.space, l.stage), l.seconds))
        .collect()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy: run with --release")]
fn sigkill_in_every_stage_then_rerun_gives_the_uninterrupted_outputs() {
    let root = tempfile::tempdir().unwrap();
    // One mid-size piece set (964,656 positions), all metrics, with its states tables: every
    // stage takes long enough to be interrupted.
    let toml = root.path().join("kill.toml");
    std::fs::write(
        &toml,
        "name = \"kill\"\noutput = \"unused\"\n[huarong]\npiece_sets = [\"h1v1s6\"]\n\
         spaces = [\"unlabeled\"]\nmetrics = [\"step\", \"straight\", \"piece\"]\n",
    )
    .unwrap();
    let toml = toml.to_str().unwrap();
    let reference = root.path().join("reference");
    let o = huarong(&["run", toml, "-o", reference.to_str().unwrap()], None);
    assert!(o.status.success());
    let stages = stage_log(&String::from_utf8_lossy(&o.stderr));
    // h1v1s6's enumerate, 3 x (graph, comps, dist), the small record spaces, the export.
    assert!(stages.len() > 11, "{stages:?}");
    assert!(stages.last().unwrap().0.contains("export"));

    let mut interrupted = Vec::new();
    let mut attempted = 0;
    for (k, (stage, secs)) in stages.iter().enumerate() {
        // Every stage long enough to be hit in its middle (h1v1s6's and the export).
        if *secs < 0.02 {
            continue;
        }
        attempted += 1;
        let dir = root.path().join(format!("killed-{k}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_huarong"))
            .args(["run", toml, "-o", dir.to_str().unwrap()])
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        // Wait for the log line of the stage before (the start of this one), then half of this
        // stage's reference time, and kill.
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = 0;
        while seen < k {
            match lines.next() {
                Some(Ok(l)) if !stage_log(&l).is_empty() => seen += 1,
                Some(_) => {}
                None => break,
            }
        }
        let started = Instant::now();
        std::thread::sleep(Duration::from_secs_f64(secs / 2.0));
        let finished_before = child.try_wait().unwrap().is_some();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        eprintln!(
            "{stage}: killed {:.3} s after it started; the run had already ended: {finished_before}",
            started.elapsed().as_secs_f64()
        );
        if !finished_before {
            interrupted.push(stage.clone());
        }
        // A rerun completes and leaves exactly the uninterrupted outputs, no temporaries.
        let o = huarong(&["run", toml, "-o", dir.to_str().unwrap()], None);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let files = snapshot(&dir);
        assert!(
            files.keys().all(|p| !p.to_string_lossy().contains(".tmp-")),
            "killed in {stage}: temporaries left: {:?}",
            files.keys().collect::<Vec<_>>()
        );
        assert_same_outputs(&reference, &dir, &format!("killed in {stage}"));
    }
    eprintln!("interrupted in: {interrupted:?}");
    // At least h1v1s6's graph stage (all three metrics in one pass), its three distance
    // stages and the export (the small record spaces' stages may be too quick to aim at).
    assert!(attempted >= 5, "{stages:?}");
    assert!(
        interrupted.len() * 4 >= attempted * 3,
        "most kills land while the run is still going: {interrupted:?}"
    );
}

/// Two runs into one folder: the second waits for the first (saying so) and then runs, or with
/// `--wait-for-folder 0` is refused at once naming the first; neither breaks the other, and the
/// folder ends current for the run that wrote it last.
#[test]
fn a_second_run_into_a_folder_waits_for_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let slow = dir.path().join("slow.toml");
    std::fs::write(
        &slow,
        "name = \"slow\"\noutput = \"unused\"\n[rush-hour]\nsize = 5\nmax_walls = 2\n",
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_huarong");
    let first = Command::new(bin)
        .args(["run", slow.to_str().unwrap(), "-q", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first run has its lock once its note is there.
    let t = Instant::now();
    while !out.join(".huarong-writer").exists() {
        assert!(t.elapsed().as_secs() < 60, "the first run did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let canonical = pipeline("huarong-canonical.toml");
    let refused = Command::new(bin)
        .args(["run", &canonical, "-o"])
        .arg(&out)
        .args(["--wait-for-folder", "0"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("another run is writing this folder (process ")
            && err.contains("slow.toml")
            && err.contains("refused at once"),
        "{err}"
    );
    let waited = Command::new(bin)
        .args(["run", &canonical, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&waited.stderr);
    assert!(waited.status.success(), "{log}");
    assert!(log.contains("waiting for it"), "{log}");
    let first = first.wait_with_output().unwrap();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    // The second ran after the first: the folder is the canonical pipeline's, and no note is
    // left behind.
    let o = Command::new(bin)
        .arg("verify")
        .arg(&out)
        .args(["--pipeline", &canonical])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(!out.join(".huarong-writer").exists());
}
