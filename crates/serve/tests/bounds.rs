//! The server under heavy requests (docs/RELIABILITY.md, "Bounds"): explorations admitted
//! against the memory budget (beyond it a 503 with `Retry-After`, at once), identical ones in
//! flight shared, and an exploration stopped when every client waiting for it hangs up.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pipeline::play::Atlas;
use serve::{App, Catalog};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The fifteen puzzle's board without tile 3 (two blanks, so not the sliding tiles that IDA*
/// solves): its component (about 10^13 positions) never fits, so exploring it runs until the
/// limit or until nobody waits for it.
fn fifteen(board: &str) -> String {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../puzzles/fifteen-korf-1.toml"
    ))
    .unwrap()
    .replace("EDF7\nBC95\n6.21\n48A3", &board.replace('3', "."))
    .replace(".123\n", ".12.\n");
    serde_json::json!({ "text": text }).to_string()
}

/// Sends a POST to `/api/position` and returns the open connection (the answer unread).
async fn post(addr: SocketAddr, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/position HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(body.as_bytes()).await.unwrap();
    s
}

/// The whole answer of a `Connection: close` request, as text.
async fn answer(mut s: TcpStream) -> String {
    let mut out = Vec::new();
    tokio::time::timeout(
        serve::DEADLINE + Duration::from_secs(10),
        s.read_to_end(&mut out),
    )
    .await
    .expect("answered in time")
    .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// Serves `app` on a free loopback port.
async fn start(app: Arc<App>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve::serve(listener, app, std::future::pending()));
    addr
}

/// Waits (up to `within`) until `done` holds.
async fn until(within: Duration, done: impl Fn() -> bool) -> bool {
    let t = Instant::now();
    while t.elapsed() < within {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heavy_explorations_are_admitted_shared_and_cancelled() {
    // A limit no exploration reaches in this test, and a budget for one exploration of it.
    let limit = 100_000_000;
    let app = Arc::new(App {
        atlas: Atlas::new(registry::families(), Vec::new(), limit).with_budget(2 * limit * 40),
        catalog: Catalog::default(),
    });
    assert_eq!(app.atlas.max_running(), 1);
    let addr = start(app.clone()).await;
    let atlas = || app.atlas.explorations();

    // A starts the one exploration the budget admits.
    let a = post(addr, &fifteen("EDF7\nBC95\n6.21\n48A3")).await;
    assert!(until(Duration::from_secs(10), || atlas().0 == 1).await);
    // B, another start, is refused at once: 503, Retry-After, a JSON error.
    let t = Instant::now();
    let b = answer(post(addr, &fifteen("EDF7\nBC95\n.621\n48A3")).await).await;
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(b.starts_with("HTTP/1.1 503"), "{b}");
    assert!(b.to_ascii_lowercase().contains("retry-after: 1"), "{b}");
    assert!(b.contains("explorations are running"), "{b}");
    // C asks the same as A: it joins A's exploration instead of starting one.
    let c = post(addr, &fifteen("EDF7\nBC95\n6.21\n48A3")).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(atlas(), (1, 1), "one exploration for A and C");
    // A hangs up: C still waits, the exploration goes on.
    drop(a);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(atlas().0, 1, "C still waits for it");
    // C hangs up too: nobody waits, the exploration stops (long before its limit).
    drop(c);
    assert!(
        until(Duration::from_secs(10), || atlas().0 == 0).await,
        "the exploration did not stop: {:?}",
        atlas()
    );
    // The server goes on: B's start is admitted now (and stopped by hanging up again).
    let d = post(addr, &fifteen("EDF7\nBC95\n.621\n48A3")).await;
    assert!(until(Duration::from_secs(10), || atlas() == (1, 2)).await);
    drop(d);
    assert!(until(Duration::from_secs(10), || atlas().0 == 0).await);
}

/// A client that trickles its headers is cut off after `serve::HEADER_TIMEOUT`, and the server
/// goes on answering others meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickled_headers_are_cut_off() {
    let addr = start(Arc::new(App {
        atlas: Atlas::new(registry::families(), Vec::new(), 1000),
        catalog: Catalog::default(),
    }))
    .await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"GET /api/catalog HTTP/1.1\r\nHost: te")
        .await
        .unwrap();
    let t = Instant::now();
    // Meanwhile an ordinary request is answered.
    let mut c = serve::client::Connection::open(addr).await.unwrap();
    let (status, _) = c.get("/api/catalog").await.unwrap();
    assert_eq!(status, 200);
    let mut rest = Vec::new();
    let limit = serve::HEADER_TIMEOUT + Duration::from_secs(5);
    let closed = tokio::time::timeout(limit, slow.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "still open after {limit:?}");
    assert!(t.elapsed() >= serve::HEADER_TIMEOUT - Duration::from_secs(1));
}

/// A client that sends its headers but trickles its body gets a 503 at `serve::DEADLINE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_body_meets_the_deadline() {
    let addr = start(Arc::new(App {
        atlas: Atlas::new(registry::families(), Vec::new(), 1000),
        catalog: Catalog::default(),
    }))
    .await;
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(
        b"POST /api/position HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\nConnection: close\r\n\r\n{\"layout\"",
    )
    .await
    .unwrap();
    let t = Instant::now();
    let text = answer(slow).await;
    assert!(t.elapsed() >= serve::DEADLINE - Duration::from_secs(1));
    assert!(text.starts_with("HTTP/1.1 503"), "{text}");
    assert!(text.contains("took longer than"), "{text}");
}
