//! A Rush Hour universe split over timely processes and workers gives the local run's bytes,
//! whatever the split: 1 × 1, 1 × 2, 2 × 1, 2 × 2 and 3 × 1 (processes × workers) on the 4 × 4
//! board with up to two walls and on the 5 × 5 board without walls. Each process writes into its
//! own folder, as on separate machines; process 0's holds the census and the Parquet files.
//!
//! (A split of two workers per process once lost a process's classes: the census gathered on
//! process 0 held 0 of 256 classes on the 5 × 5 board, with exit 0.)

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::assert_same_outputs;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_huarong")
}

/// Runs `pipeline` on `processes` processes of `workers` workers each over loopback (process `p`
/// into `out/p`), bounded in time; every process must succeed.
fn run_split(pipeline: &Path, out: &Path, processes: usize, workers: usize, port: u16) {
    let hosts = out.join("hosts.txt");
    std::fs::create_dir_all(out).unwrap();
    let list: String = (0..processes)
        .map(|p| format!("127.0.0.1:{}\n", port + p as u16))
        .collect();
    std::fs::write(&hosts, list).unwrap();
    let mut children: Vec<_> = (0..processes)
        .map(|p| {
            Command::new(bin())
                .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
                .arg(out.join(p.to_string()))
                .args(["--engine", "timely", "-w", &workers.to_string()])
                .args(["-n", &processes.to_string(), "-p", &p.to_string(), "-h"])
                .arg(&hosts)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for (p, c) in children.iter_mut().enumerate() {
        loop {
            if let Some(status) = c.try_wait().unwrap() {
                let mut err = String::new();
                use std::io::Read;
                c.stderr.take().unwrap().read_to_string(&mut err).unwrap();
                assert!(status.success(), "process {p} of {processes}: {err}");
                break;
            }
            if Instant::now() > deadline {
                for c in &mut children {
                    let _ = c.kill();
                }
                panic!("{processes} x {workers}: not finished within 120 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn every_split_of_a_universe_gives_the_local_census() {
    let tmp = tempfile::tempdir().unwrap();
    let base = 21_000 + (std::process::id() % 15_000) as u16;
    let mut port = base;
    for (name, text) in [
        // Small chunks, so that every process has several to do.
        (
            "rush-4-w2",
            "[rush-hour]\nsize = 4\nmax_walls = 2\nchunk_layouts = 20000\n",
        ),
        (
            "rush-5-w0",
            "[rush-hour]\nsize = 5\nmax_walls = 0\nchunk_layouts = 500000\n",
        ),
    ] {
        let pipeline = tmp.path().join(format!("{name}.toml"));
        std::fs::write(
            &pipeline,
            format!("name = \"{name}\"\noutput = \"unused\"\n{text}"),
        )
        .unwrap();
        let local = tmp.path().join(format!("{name}-local"));
        let o = Command::new(bin())
            .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
            .arg(&local)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for (processes, workers) in [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)] {
            let out = tmp.path().join(format!("{name}-{processes}x{workers}"));
            if processes == 1 {
                let o = Command::new(bin())
                    .args(["run", pipeline.to_str().unwrap(), "-q", "-o"])
                    .arg(out.join("0"))
                    .args(["--engine", "timely", "-w", &workers.to_string()])
                    .output()
                    .unwrap();
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            } else {
                run_split(&pipeline, &out, processes, workers, port);
                port += processes as u16;
            }
            let what = format!("{name}, {processes} processes x {workers} workers");
            assert_same_outputs(&local, &out.join("0"), &what);
            // And the folder is current for `verify`.
            let o = Command::new(bin())
                .args(["verify"])
                .arg(out.join("0"))
                .args(["--pipeline", pipeline.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}
