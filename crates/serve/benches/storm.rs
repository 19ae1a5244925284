//! The hostile load test of docs/RELIABILITY.md ("Bounds"), on loopback, bounded in count and
//! time (it stops by itself):
//!
//! - 200 heavy requests at once: pasted fifteen puzzles without tile 3 (two blanks, so not the
//!   sliding tiles that the pattern databases or the tiles' size test answer at once: a
//!   sliding-block puzzle whose component, about 10^13 positions, never fits), 160 from other
//!   starts and 40 repeating one of them (shared with the request in flight); each is explored
//!   to `--max-states` (5,000,000) and answered 400, or refused with 503 beyond the memory
//!   budget (2048 MiB, the default);
//!   every tenth client hangs up after a second;
//! - ordinary requests all the while: 4 keep-alive connections asking positions of the
//!   横刀立马 component from the classic tables;
//! - 5 connections trickling their headers, a byte every 500 ms.
//!
//! The server runs in this process with one worker thread (the defaults of `huarong serve`
//! otherwise). Printed: the process's peak RSS against the budget, the ordinary requests'
//! latency percentiles during the storm, the heavy answers by status, whether the trickling
//! connections were cut off, and a last ordinary request after the storm.
//!
//! `cargo bench -p serve --bench storm` (release; about half a minute).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pipeline::play::Atlas;
mod common;

use serve::client::{Connection, encode};
use serve::{App, Catalog};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HEAVY: usize = 200;
const ORDINARY_CONNECTIONS: usize = 4;
const TRICKLERS: usize = 5;
const MAX_STATES: u64 = 5_000_000;
const BUDGET_MIB: u64 = 2048;

/// This process's resident set now and at its peak, in MiB (VmRSS, VmHWM).
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .unwrap_or(0)
            / 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// `n` starts of the fifteen puzzle without tile 3 (random walks of the blank from Korf's
/// instance 1, every fifth a repeat of the start before it), as pasted puzzle files.
fn heavy_bodies(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../puzzles/fifteen-korf-1.toml"),
    )
    .unwrap();
    let start: Vec<u8> = b"EDF7BC956.2148A3".to_vec();
    let mut seen = std::collections::BTreeSet::new();
    let mut out: Vec<String> = Vec::new();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let (mut board, mut blank) = (start.clone(), 9usize);
    while out.len() < n {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let (r, c) = (blank / 4, blank % 4);
        let to = match rng % 4 {
            0 if r > 0 => blank - 4,
            1 if r < 3 => blank + 4,
            2 if c > 0 => blank - 1,
            3 if c < 3 => blank + 1,
            _ => continue,
        };
        board.swap(blank, to);
        blank = to;
        if seen.insert(board.clone()) {
            let rows: Vec<String> = board
                .chunks(4)
                .map(|r| String::from_utf8(r.to_vec()).unwrap().replace('3', "."))
                .collect();
            let pasted = text
                .replace("EDF7\nBC95\n6.21\n48A3", &rows.join("\n"))
                .replace(".123\n", ".12.\n");
            let body = serde_json::json!({ "text": pasted }).to_string();
            if out.len() % 5 == 4 {
                out.push(out[out.len() - 1].clone());
            }
            if out.len() < n {
                out.push(body);
            }
        }
    }
    out
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    common::classic_tables(dir.path());
    let server = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let app = Arc::new(App {
        atlas: Atlas::new(
            registry::families(),
            vec![dir.path().to_owned()],
            MAX_STATES,
        )
        .with_budget(BUDGET_MIB << 20),
        catalog: Catalog::default(),
    });
    let listener = server
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    server.spawn(serve::serve(listener, app.clone(), std::future::pending()));
    let clients = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let bodies = heavy_bodies(HEAVY);
    clients.block_on(storm(addr, bodies, &app));
}

async fn storm(addr: SocketAddr, bodies: Vec<String>, app: &App) {
    // Warm the tables: the ordinary requests are answered from them.
    let targets: Arc<Vec<String>> = Arc::new(
        klotski::named::LAYOUTS
            .iter()
            .filter(|(_, l)| klotski::parse(l).unwrap().board.piece_set().to_string() == "h1v4s4")
            .map(|(_, l)| format!("/api/position?layout={}&metric=piece", encode(l)))
            .collect(),
    );
    let mut warm = Connection::open(addr).await.unwrap();
    for t in targets.iter() {
        assert_eq!(warm.get(t).await.unwrap().0, 200);
    }
    let (before, _) = rss();
    println!(
        "server: 1 worker thread, --max-states {MAX_STATES}, --memory-budget {BUDGET_MIB} MiB \
         ({} explorations at once); RSS before the storm {before} MiB",
        app.atlas.max_running()
    );
    let stop = Arc::new(AtomicBool::new(false));
    let began = Instant::now();
    // Ordinary requests for the whole storm.
    let mut ordinary = Vec::new();
    for k in 0..ORDINARY_CONNECTIONS {
        let (targets, stop) = (targets.clone(), stop.clone());
        ordinary.push(tokio::spawn(async move {
            let mut c = Connection::open(addr).await.unwrap();
            let (mut lat, mut failed) = (Vec::new(), 0);
            let mut i = k;
            while !stop.load(Ordering::Relaxed) {
                let t0 = Instant::now();
                match c.get(&targets[i % targets.len()]).await {
                    Ok((200, _)) => lat.push(t0.elapsed()),
                    _ => failed += 1,
                }
                i += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            (lat, failed)
        }));
    }
    // Trickling connections.
    let mut tricklers = Vec::new();
    for _ in 0..TRICKLERS {
        tricklers.push(tokio::spawn(async move {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            let t0 = Instant::now();
            for &b in b"GET /api/catalog HTTP/1.1\r\nHost: a-very-long-host-name.example\r\n" {
                if s.write_all(&[b]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            let mut rest = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut rest)).await;
            t0.elapsed()
        }));
    }
    // The heavy requests, all at once, each on its own connection; every tenth client hangs
    // up after a second (an exploration nobody waits for any more stops).
    let mut heavy = Vec::new();
    for (k, body) in bodies.into_iter().enumerate() {
        let patience = if k % 10 == 9 { 1 } else { 120 };
        heavy.push(tokio::spawn(async move {
            let t0 = Instant::now();
            let r = tokio::time::timeout(Duration::from_secs(patience), async {
                let mut c = Connection::open(addr).await?;
                c.post("/api/position", &body).await
            })
            .await;
            (r, t0.elapsed())
        }));
    }
    let mut peak = 0;
    let mut statuses = std::collections::BTreeMap::new();
    let mut slowest = Duration::ZERO;
    for h in heavy {
        let (r, took) = h.await.unwrap();
        peak = peak.max(rss().0);
        slowest = slowest.max(took);
        let key = match r {
            Ok(Ok((status, _))) => status.to_string(),
            Ok(Err(e)) => format!("error {:?}", e.kind()),
            Err(_) => "hung up".to_owned(),
        };
        *statuses.entry(key).or_insert(0) += 1;
    }
    let heavy_done = began.elapsed();
    let cut: Vec<Duration> = futures_join(tricklers).await;
    stop.store(true, Ordering::Relaxed);
    let (mut lat, mut failed) = (Vec::new(), 0);
    for o in ordinary {
        let (l, f) = o.await.unwrap();
        lat.extend(l);
        failed += f;
    }
    lat.sort();
    let q = |f: f64| lat[((lat.len() as f64 * f) as usize).min(lat.len() - 1)].as_secs_f64() * 1e3;
    let (_, hwm) = rss();
    println!(
        "heavy: {HEAVY} answered in {:.1} s (slowest {:.1} s): {statuses:?}",
        heavy_done.as_secs_f64(),
        slowest.as_secs_f64()
    );
    println!(
        "ordinary during the storm: {} requests, {failed} failed; p50 {:.2} ms, p99 {:.2} ms, \
         max {:.2} ms",
        lat.len(),
        q(0.5),
        q(0.99),
        q(1.0)
    );
    println!(
        "tricklers cut off after {:?}",
        cut.iter().map(|d| d.as_secs()).collect::<Vec<_>>()
    );
    println!(
        "RSS: peak {hwm} MiB (sampled {peak} MiB) = before + {} MiB, budget {BUDGET_MIB} MiB",
        hwm.saturating_sub(before)
    );
    let mut after = Connection::open(addr).await.unwrap();
    let (status, _) = after.get(&targets[0]).await.unwrap();
    let (running, started) = app.atlas.explorations();
    let admitted = statuses.get("400").copied().unwrap_or(0);
    println!(
        "explorations started: {started} for {admitted} heavy requests answered 400 (the \
         others shared one in flight)"
    );
    println!("after the storm: {status}; explorations running {running}");
}

/// Awaits every task, in order.
async fn futures_join(tasks: Vec<tokio::task::JoinHandle<Duration>>) -> Vec<Duration> {
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}
