//! The timely engine from the command line: 1 and 2 workers in one process, and 2 processes
//! over loopback, write byte-identical outputs (artifacts and Parquet) to the local engine's.

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
    for (k, p) in ["huarong-canonical.toml", "solitaire.toml"]
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
        assert_same_outputs(&local, &d, &format!("{p}, 2 processes"));
    }
}
