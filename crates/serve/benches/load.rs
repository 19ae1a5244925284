//! Load test of `/api/position` on loopback: 200 concurrent keep-alive connections, each asking
//! for positions of the classic Huarong Dao space in turn, a fixed number of requests (it stops
//! by itself). Reported: latency percentiles and throughput, from the distance tables and — the
//! baseline in the same run — from explored components (no tables), plus one connection alone.
//!
//! The server runs with one worker thread (the load generator takes the machine's other core),
//! and with two for comparison.
//!
//! `cargo bench -p serve --bench load` (release; about half a minute).

use std::collections::{BTreeSet, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pipeline::play::Atlas;
mod common;

use serve::client::{Connection, encode};
use serve::{App, Catalog};

const CONNECTIONS: usize = 200;
const PER_CONNECTION: usize = 100;
const POSITIONS: usize = 5000;

fn server(roots: Vec<std::path::PathBuf>, workers: usize) -> (SocketAddr, tokio::runtime::Runtime) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    let app = App {
        atlas: Atlas::new(registry::families(), roots, 5_000_000),
        catalog: Catalog::default(),
    };
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(serve::serve(
        listener,
        Arc::new(app),
        std::future::pending(),
    ));
    (addr, rt)
}

fn target(layout: &str) -> String {
    format!("/api/position?layout={}&metric=piece", encode(layout))
}

/// Positions of the 横刀立马 component, breadth first through the API itself.
async fn positions(addr: SocketAddr) -> Vec<String> {
    let mut c = Connection::open(addr).await.unwrap();
    let start = "VCCV/VCCV/VHHV/VSSV/S..S".to_owned();
    let mut seen = BTreeSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut out = Vec::new();
    while let Some(p) = queue.pop_front() {
        let (status, body) = c.get(&target(&p)).await.unwrap();
        assert_eq!(status, 200, "{body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        for m in json["moves"].as_array().unwrap() {
            let next = m["position"].as_str().unwrap().to_owned();
            if seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
        out.push(p);
        if out.len() == POSITIONS {
            break;
        }
    }
    out
}

/// Every request's latency, with `connections` connections of `per` requests each.
async fn run(
    addr: SocketAddr,
    targets: Arc<Vec<String>>,
    connections: usize,
    per: usize,
) -> (Vec<Duration>, Duration) {
    let began = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..connections {
        let targets = targets.clone();
        tasks.push(tokio::spawn(async move {
            let mut c = Connection::open(addr).await.unwrap();
            let mut lat = Vec::with_capacity(per);
            for i in 0..per {
                let t = &targets[(k * 7919 + i * 104_729) % targets.len()];
                let t0 = Instant::now();
                let (status, _) = c.get(t).await.unwrap();
                lat.push(t0.elapsed());
                assert_eq!(status, 200);
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    (all, began.elapsed())
}

fn report(name: &str, mut lat: Vec<Duration>, wall: Duration) {
    lat.sort();
    let q = |f: f64| lat[((lat.len() as f64 * f) as usize).min(lat.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "{name:<34} {:>7} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>9.0}",
        lat.len(),
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        lat.len() as f64 / wall.as_secs_f64()
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    common::classic_tables(dir.path());
    // The load generator below takes one of the machine's two cores: the server gets the other
    // (`huarong serve --threads 1`); the default (a thread per core) is measured too.
    let (with, _a) = server(vec![dir.path().to_owned()], 1);
    let (with2, _b) = server(vec![dir.path().to_owned()], 2);
    let (without, _c) = server(Vec::new(), 1);
    let clients = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    clients.block_on(async {
        let targets = Arc::new(
            positions(with)
                .await
                .iter()
                .map(|p| target(p))
                .collect::<Vec<_>>(),
        );
        println!(
            "/api/position, {} positions of the 横刀立马 component, piece metric",
            targets.len()
        );
        println!(
            "{:<34} {:>7} {:>8} {:>8} {:>8} {:>8} {:>9}",
            "", "requests", "p50 ms", "p90 ms", "p99 ms", "max ms", "req/s"
        );
        // Warm both servers (tables opened, the component explored once).
        for addr in [with, with2, without] {
            run(addr, targets.clone(), 4, 50).await;
        }
        let (lat, wall) = run(with, targets.clone(), 1, 2000).await;
        report("tables, 1 connection", lat, wall);
        let (lat, wall) = run(with, targets.clone(), CONNECTIONS, PER_CONNECTION).await;
        report("tables, 200 concurrent", lat, wall);
        let (lat, wall) = run(with2, targets.clone(), CONNECTIONS, PER_CONNECTION).await;
        report("tables, 200 concurrent, 2 threads", lat, wall);
        let (lat, wall) = run(without, targets.clone(), CONNECTIONS, PER_CONNECTION).await;
        report("explored, 200 concurrent", lat, wall);
    });
}
