//! A universe's census survives being killed: the 5 × 5 Rush Hour universe with up to two walls
//! (43,616 classes, in chunks of about 10 million layouts) killed at several random moments and
//! started again each time ends with the bytes of a run that was never interrupted, having
//! reused the chunks finished before each kill; `verify` accepts the finished chunks of a
//! killed run and names the census as missing.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

mod common;
use common::{assert_same_outputs, stage_log};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_huarong")
}

fn run(pipeline: &Path, out: &Path) -> String {
    let o = Command::new(bin())
        .args([
            "run",
            pipeline.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The chunk files in `dir`.
fn chunks(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("chunk-") && n.ends_with(".bin"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_killed_census_resumes_from_its_chunks_to_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let pipeline = tmp.path().join("rush-5.toml");
    std::fs::write(
        &pipeline,
        "name = \"rush-5\"\noutput = \"unused\"\n[rush-hour]\nsize = 5\nmax_walls = 2\n\
         chunk_layouts = 10000000\n",
    )
    .unwrap();
    let whole = tmp.path().join("whole");
    let started = Instant::now();
    run(&pipeline, &whole);
    let full = started.elapsed();
    // A finished folder holds the census alone: its chunks are merged and removed.
    assert!(chunks(&whole.join("rush-hour-5x5-w2")).is_empty());

    let out = tmp.path().join("killed");
    let census = out.join("rush-hour-5x5-w2");
    // Moments within the run's time, from a seed printed on failure.
    let seed = std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut kept = 0;
    for kill in 0..3 {
        // Each rerun has less left to do: the moments shrink with the kills.
        let fraction = (0.15 + (next() % 400) as f64 / 1000.0) / (kill + 1) as f64;
        let at = full.mul_f64(fraction);
        let before = chunks(&census);
        let mut child = Command::new(bin())
            .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(at);
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap();
        child.wait().unwrap();
        let after = chunks(&census);
        // No finished chunk is lost by a kill, unless the census they make is written (the
        // chunks are removed once merged).
        let merged = census.join("universe.bin").exists();
        assert!(
            merged || before.iter().all(|c| after.contains(c)),
            "seed {seed:#x}, kill {kill} at {at:?}: chunks {before:?} then {after:?}"
        );
        kept = after.len();
        if finished || merged {
            break;
        }
        if !after.is_empty() {
            // The finished chunks verify; the census is missing.
            let o = Command::new(bin())
                .arg("verify")
                .arg(&out)
                .args(["--pipeline", pipeline.to_str().unwrap()])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(!o.status.success(), "{text}");
            for c in &after {
                assert!(
                    text.contains(&format!("ok   rush-hour-5x5-w2/{c}")),
                    "{text}"
                );
            }
            assert!(
                text.contains("rush-hour-5x5-w2/universe.bin: missing"),
                "{text}"
            );
        }
    }
    let merged = census.join("universe.bin").exists();
    let log = run(&pipeline, &out);
    if kept > 0 && !merged {
        assert!(
            log.contains(&format!(" {kept} of ")) && log.contains("chunks done by an earlier run"),
            "seed {seed:#x}: {kept} chunks kept, but the log says\n{log}"
        );
    }
    assert!(
        stage_log(&log)
            .iter()
            .any(|l| l.stage == "census" && l.reused() == merged),
        "{log}"
    );
    assert_same_outputs(&whole, &out, &format!("seed {seed:#x}: resumed"));
}
