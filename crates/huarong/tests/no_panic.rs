//! No panic a user can reach: a closed stderr ends nothing, and a corrupt Parquet file is
//! refused with exit status 2 naming it — never a crash, never a silent 0 over wrong values
//! (docs/RELIABILITY.md).

mod common;

use std::process::{Command, Stdio};

use common::{huarong, ok, pipeline, stderr};

/// `huarong run … 2>&1 >/dev/null | head -1`: the reader of stderr goes away after one line.
/// The run must finish (exit 0, not 101) and leave a complete, verifying folder.
#[test]
fn a_closed_stderr_does_not_stop_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_huarong"))
        .args(["run", &pipeline("solitaire.toml"), "--force", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line of the stage log, then close the pipe.
    {
        use std::io::BufRead;
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "the run died with a closed stderr");
    let o = huarong(&[
        "verify",
        out.to_str().unwrap(),
        "-p",
        &pipeline("solitaire.toml"),
    ]);
    assert!(o.status.success(), "{}", common::stdout(&o));
}

/// The same with stdout closed at once (`| head -0`), for the commands that print.
#[test]
fn a_closed_stdout_does_not_stop_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_huarong"))
        .args(["run", &pipeline("omnigravity.toml"), "-o"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    drop(child.stderr.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
    ok(&["verify", out.to_str().unwrap()]);
}

/// Every byte region of every Parquet file of a small output folder, corrupted one at a time:
/// `inspect` exits 2 naming the file (no panic, no exit 0 over changed values), and so does
/// `verify`; restoring the byte restores exit 0.
#[test]
fn inspect_refuses_every_corrupted_parquet_region() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    ok(&[
        "run",
        &pipeline("omnigravity.toml"),
        "--quiet",
        "-o",
        out.to_str().unwrap(),
    ]);
    let outs = out.to_str().unwrap();
    assert!(huarong(&["inspect", outs]).status.success());
    let mut files: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    let mut tried = 0;
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        // 16 regions from the magic to the footer, plus the last 8 bytes (footer length, magic).
        let n = bytes.len();
        let mut at: Vec<usize> = (0..16).map(|k| k * n / 16).collect();
        at.extend(n - 8..n);
        for &i in &at {
            let mut changed = bytes.clone();
            changed[i] ^= 0x5a;
            std::fs::write(file, &changed).unwrap();
            let o = huarong(&["inspect", outs]);
            let name = file.file_name().unwrap().to_str().unwrap();
            assert_eq!(o.status.code(), Some(2), "{name} byte {i}: {}", stderr(&o));
            assert!(stderr(&o).contains(name), "{name} byte {i}: {}", stderr(&o));
            assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
            assert_eq!(huarong(&["verify", outs]).status.code(), Some(2));
            tried += 1;
        }
        std::fs::write(file, &bytes).unwrap();
    }
    assert_eq!(tried, files.len() * 24);
    assert!(huarong(&["inspect", outs]).status.success());
}

/// A truncated table, one the manifest does not list, and a missing manifest are refused too.
#[test]
fn inspect_refuses_unvouched_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let outs = out.to_str().unwrap();
    ok(&["run", &pipeline("omnigravity.toml"), "--quiet", "-o", outs]);
    let summary = out.join("summary.parquet");
    let bytes = std::fs::read(&summary).unwrap();
    let refused = |why: &str| {
        let o = huarong(&["inspect", outs]);
        assert_eq!(o.status.code(), Some(2), "{why}: {}", stderr(&o));
        stderr(&o)
    };
    std::fs::write(&summary, &bytes[..bytes.len() / 2]).unwrap();
    let e = refused("truncated");
    assert!(e.contains("summary.parquet") && e.contains("size"), "{e}");
    std::fs::write(&summary, &bytes).unwrap();

    std::fs::write(out.join("extra.parquet"), &bytes).unwrap();
    let e = refused("unlisted");
    assert!(e.contains("extra.parquet: not listed"), "{e}");
    std::fs::remove_file(out.join("extra.parquet")).unwrap();

    let manifest = out.join("export.manifest");
    let m = std::fs::read(&manifest).unwrap();
    std::fs::remove_file(&manifest).unwrap();
    let e = refused("no manifest");
    assert!(e.contains("export.manifest: missing"), "{e}");
    std::fs::write(&manifest, &m).unwrap();
    assert!(huarong(&["inspect", outs]).status.success());
}
