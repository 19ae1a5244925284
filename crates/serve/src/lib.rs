//! `huarong serve`: one page (embedded; plain JavaScript and SVG) and the JSON API it uses to
//! play any position of a registered family — a Huarong Dao layout, a bundled puzzle file or a
//! pasted one — with every legal move shown with the distance it leads to.
//!
//! The answers come from [`pipeline::play::Atlas`]: the pipelines' distance tables when they
//! hold the position's space, otherwise the position's component explored on the spot. The API
//! is documented in `docs/SERVE.md`. Bad input is a 400 with `{"error": …}`; nothing a request
//! carries can panic the server (the work runs on blocking threads; a panic there would be a
//! 500, not a crash).

pub mod client;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use huarong_core::ErrorKind;
use huarong_core::driver::{Families, SolveRequest};
use huarong_core::picture::{Cell, Picture};
use pipeline::play::{Atlas, Cancel, Position, Solution, Source};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Largest request body (a pasted puzzle file), and largest puzzle text in a query.
pub const BODY_LIMIT: usize = 64 * 1024;

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("reading the puzzle folder {path}: {source}")]
    Puzzles {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A puzzle file offered on the page.
#[derive(Debug, Clone)]
pub struct Bundled {
    /// The file name without `.toml`: how requests name it.
    pub id: String,
    /// The puzzle's own name.
    pub name: String,
    path: String,
    text: String,
}

/// What the page offers to pick: the families' named positions and the bundled puzzle files.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub named: Vec<(&'static str, &'static str, &'static str)>,
    pub puzzles: BTreeMap<String, Bundled>,
    /// Files of the folder no family reads, with why.
    pub skipped: Vec<(String, String)>,
    /// The puzzle databases of the table roots whose rows are layouts the page plays
    /// (`klotski_puzzles.parquet`), for the page's puzzles view.
    pub databases: Vec<Database>,
}

/// A puzzle database's rows, as text (`GET /api/puzzles`).
#[derive(Debug, Clone)]
pub struct Database {
    /// The output folder and the file.
    pub root: PathBuf,
    pub file: String,
    /// Column names (types dropped).
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Rows in the file (more than `rows` holds if it was cut at [`DATABASE_ROWS`]).
    pub total: usize,
}

/// Most rows of one database the server keeps (the Klotski universe's has about a thousand).
pub const DATABASE_ROWS: usize = 100_000;

/// Most rows one `/api/puzzles` answer lists.
pub const PUZZLES_LIMIT: usize = 1000;

impl Catalog {
    /// The named positions of `families` and every puzzle file in `dir` that one of them reads.
    pub fn load(families: Families, dir: Option<&Path>) -> Result<Self, ServeError> {
        let mut catalog = Catalog::default();
        for driver in families.drivers() {
            if let Some(solver) = driver.solver() {
                for (name, position) in solver.named() {
                    catalog.named.push((driver.name(), name, position));
                }
            }
        }
        let Some(dir) = dir else {
            return Ok(catalog);
        };
        let fail = |source| ServeError::Puzzles {
            path: dir.to_owned(),
            source,
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(fail)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        files.sort();
        for file in files {
            let id = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(&file).map_err(fail)?;
            let path = file.to_string_lossy().into_owned();
            let request = SolveRequest {
                puzzle: Some((&path, &text)),
                ..Default::default()
            };
            match pipeline::solve::instance(families, &request) {
                Ok(instance) => {
                    let name = instance.describe().1;
                    catalog.puzzles.insert(
                        id.clone(),
                        Bundled {
                            id,
                            name,
                            path,
                            text,
                        },
                    );
                }
                Err(e) => catalog.skipped.push((path, e.to_string())),
            }
        }
        Ok(catalog)
    }
}

impl Catalog {
    /// Adds the puzzle databases found in `roots` whose rows carry a `layout`; a folder whose
    /// tables its manifest does not vouch for is skipped, with why.
    pub fn with_databases(mut self, roots: &[PathBuf]) -> Self {
        for root in roots {
            match pipeline::inspect::databases(root, DATABASE_ROWS) {
                Ok(found) => {
                    for (file, table) in found {
                        let columns: Vec<String> = table
                            .columns
                            .iter()
                            .map(|c| c.split(" (").next().unwrap_or(c).to_owned())
                            .collect();
                        if columns.iter().any(|c| c == "layout") {
                            self.databases.push(Database {
                                root: root.clone(),
                                file,
                                columns,
                                rows: table.rows,
                                total: table.total_rows,
                            });
                        }
                    }
                }
                Err(e) => self
                    .skipped
                    .push((root.display().to_string(), e.to_string())),
            }
        }
        self
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub struct App {
    pub atlas: Atlas,
    pub catalog: Catalog,
}

/// The longest a request may take, reading its body included: past it the client gets a 503
/// and any exploration only it waited for stops.
pub const DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

/// What a 503 asks the client to wait before trying again, in seconds.
const RETRY_AFTER: &str = "1";

/// The page and the API.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api/catalog", get(catalog))
        .route("/api/puzzles", get(puzzles))
        // A body can be trickled: POSTs are read within the deadline (GETs carry none, and
        // their work past the event loop gets the deadline in `answer`).
        .route(
            "/api/position",
            get(|State(app): State<Arc<App>>, q| by_query(app, q, Kind::Position)).merge(
                post(|State(app): State<Arc<App>>, j| by_json(app, j, Kind::Position))
                    .layer(axum::middleware::from_fn(deadline)),
            ),
        )
        .route(
            "/api/solve",
            get(|State(app): State<Arc<App>>, q| by_query(app, q, Kind::Solve)).merge(
                post(|State(app): State<Arc<App>>, j| by_json(app, j, Kind::Solve))
                    .layer(axum::middleware::from_fn(deadline)),
            ),
        )
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such page or API".into()) })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(app)
}

/// A request with a body within [`DEADLINE`], a trickled body included (dropping the handler
/// cancels its work, see [`answer`]).
async fn deadline(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    match tokio::time::timeout(DEADLINE, next.run(request)).await {
        Ok(response) => response,
        Err(_) => busy(format!(
            "the request took longer than {} s",
            DEADLINE.as_secs()
        )),
    }
}

/// The one mapping of an error's kind to an HTTP status: the request's fault (wrong input, or a
/// search that gave up within the server's bound) 400, what it names not there 404, the server
/// busy or the answer no longer wanted 503, the server's own files or system failing 500.
fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Invalid | ErrorKind::GaveUp | ErrorKind::Refused => StatusCode::BAD_REQUEST,
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        ErrorKind::Busy | ErrorKind::Cancelled => StatusCode::SERVICE_UNAVAILABLE,
        ErrorKind::Corrupt | ErrorKind::System => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// 503 with `Retry-After`: nothing is wrong with the request, the server cannot take it now.
fn busy(message: String) -> Response {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, message);
    response.headers_mut().insert(
        header::RETRY_AFTER,
        header::HeaderValue::from_static(RETRY_AFTER),
    );
    response
}

/// Cancels its token when dropped: a handler future dropped because the client hung up (or its
/// deadline passed) stops the work it started.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn error(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// What a request names: exactly one of a layout, a bundled puzzle file (by id) or a pasted
/// puzzle file; for a puzzle, optionally a position other than its board; and the metric.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ask {
    pub layout: Option<String>,
    pub puzzle: Option<String>,
    pub text: Option<String>,
    pub position: Option<String>,
    pub metric: Option<String>,
}

async fn catalog(State(app): State<Arc<App>>) -> Response {
    let named: Vec<Value> = app
        .catalog
        .named
        .iter()
        .map(|(family, name, position)| {
            json!({ "family": family, "name": name, "layout": position })
        })
        .collect();
    let puzzles: Vec<Value> = app
        .catalog
        .puzzles
        .values()
        .map(|b| json!({ "id": b.id, "name": b.name }))
        .collect();
    let databases: Vec<Value> = app
        .catalog
        .databases
        .iter()
        .map(|d| json!({ "file": d.file, "root": d.root, "rows": d.total }))
        .collect();
    axum::Json(json!({ "named": named, "puzzles": puzzles, "databases": databases }))
        .into_response()
}

/// `h2v10s0` after `h2v9s0`: runs of digits compare as numbers.
fn natural(text: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let letters = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (word, tail) = rest.split_at(letters);
        let digits = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (number, tail) = tail.split_at(digits);
        key.push((word.to_owned(), number.parse().unwrap_or(0)));
        rest = tail;
    }
    key
}

/// What `/api/puzzles` is asked: rows whose columns hold these values, from `offset`, at most
/// `limit` (default 100, at most [`PUZZLES_LIMIT`]).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzlesAsk {
    pub metric: Option<String>,
    pub piece_set: Option<String>,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

/// The puzzle databases' rows (most moves first, as written), filtered, with the values each
/// filter can take.
async fn puzzles(
    State(app): State<Arc<App>>,
    ask: Result<Query<PuzzlesAsk>, QueryRejection>,
) -> Response {
    let ask = match ask {
        Ok(Query(ask)) => ask,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let limit = ask.limit.unwrap_or(100);
    if limit > PUZZLES_LIMIT {
        return error(
            StatusCode::BAD_REQUEST,
            format!("limit {limit}: at most {PUZZLES_LIMIT} rows an answer"),
        );
    }
    let offset = ask.offset.unwrap_or(0);
    let filters = [("metric", &ask.metric), ("piece_set", &ask.piece_set)];
    let mut out = Vec::new();
    for d in &app.catalog.databases {
        let column = |name: &str| d.columns.iter().position(|c| c == name);
        let wanted: Vec<(usize, &String)> = filters
            .iter()
            .filter_map(|(name, value)| Some((column(name)?, value.as_ref()?)))
            .collect();
        let distinct = |name: &str| -> Vec<&String> {
            let Some(k) = column(name) else {
                return Vec::new();
            };
            let mut values: Vec<&String> = d.rows.iter().map(|r| &r[k]).collect();
            values.sort_by_key(|v| natural(v));
            values.dedup();
            values
        };
        let matching: Vec<&Vec<String>> = d
            .rows
            .iter()
            .filter(|r| wanted.iter().all(|(k, v)| &r[*k] == *v))
            .collect();
        out.push(json!({
            "file": d.file,
            "root": d.root,
            "columns": d.columns,
            "matching": matching.len(),
            "rows": matching.iter().skip(offset).take(limit).collect::<Vec<_>>(),
            "metrics": distinct("metric"),
            "piece_sets": distinct("piece_set"),
        }));
    }
    axum::Json(json!({ "databases": out })).into_response()
}

/// A request named by query parameters.
async fn by_query(app: Arc<App>, ask: Result<Query<Ask>, QueryRejection>, kind: Kind) -> Response {
    match ask {
        Ok(Query(ask)) => answer(app, ask, kind).await,
        Err(e) => error(StatusCode::BAD_REQUEST, e.body_text()),
    }
}

/// A request named by a JSON body.
async fn by_json(
    app: Arc<App>,
    ask: Result<axum::Json<Ask>, JsonRejection>,
    kind: Kind,
) -> Response {
    match ask {
        Ok(axum::Json(ask)) => answer(app, ask, kind).await,
        Err(e) => error(e.status(), e.body_text()),
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Position,
    /// A position, if it is quick.
    Ready,
    Solve,
}

/// Answers a position at once when the tables are open (or its component explored): a few
/// microseconds; anything else runs on a blocking thread (opening tables, exploring, solving).
async fn answer(app: Arc<App>, ask: Ask, kind: Kind) -> Response {
    let reply = |r: Result<String, (StatusCode, String)>| match r {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err((StatusCode::SERVICE_UNAVAILABLE, message)) => busy(message),
        Err((status, message)) => error(status, message),
    };
    let cancel = Cancel::new();
    if let Kind::Position = kind
        && let Some(ready) = compute(&app, &ask, Kind::Ready, &cancel).transpose()
    {
        return reply(ready);
    }
    let _guard = CancelOnDrop(cancel.clone());
    let work = tokio::task::spawn_blocking(move || compute(&app, &ask, kind, &cancel));
    // Past the deadline the guard drops here and cancels the work.
    let Ok(work) = tokio::time::timeout(DEADLINE, work).await else {
        return busy(format!(
            "the request took longer than {} s",
            DEADLINE.as_secs()
        ));
    };
    match work {
        Ok(Ok(body)) => reply(Ok(body.expect("work is allowed off the event loop"))),
        Ok(Err(e)) => reply(Err(e)),
        Err(_) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request failed inside the server".into(),
        ),
    }
}

/// The answer to `ask`; `Ok(None)` only for [`Kind::Ready`] when the answer needs work.
fn compute(
    app: &App,
    ask: &Ask,
    kind: Kind,
    cancel: &Cancel,
) -> Result<Option<String>, (StatusCode, String)> {
    let bad = |m: String| (StatusCode::BAD_REQUEST, m);
    let given = [&ask.layout, &ask.puzzle, &ask.text]
        .iter()
        .filter(|x| x.is_some())
        .count();
    if given != 1 {
        return Err(bad(
            "give exactly one of layout, puzzle (a bundled file) or text (a puzzle file)".into(),
        ));
    }
    if ask.text.as_ref().is_some_and(|t| t.len() > BODY_LIMIT) {
        return Err(bad(format!("the puzzle text is over {BODY_LIMIT} bytes")));
    }
    let bundled = match &ask.puzzle {
        Some(id) => Some(app.catalog.puzzles.get(id).ok_or_else(|| {
            (
                StatusCode::NOT_FOUND,
                format!("no bundled puzzle {id:?} (GET /api/catalog lists them)"),
            )
        })?),
        None => None,
    };
    if ask.layout.is_some() && ask.position.is_some() {
        return Err(bad(
            "position goes with a puzzle; a layout is itself the position".into(),
        ));
    }
    let request = SolveRequest {
        position: ask.layout.as_deref().or(ask.position.as_deref()),
        puzzle: match (bundled, &ask.text) {
            (Some(b), _) => Some((b.path.as_str(), b.text.as_str())),
            (None, Some(t)) => Some(("pasted.toml", t.as_str())),
            _ => None,
        },
        goal: None,
    };
    let status = |e: pipeline::solve::Error| (status_of(e.kind()), e.to_string());
    let metric = ask.metric.as_deref();
    Ok(match kind {
        Kind::Position => Some(position_json(
            &app.atlas
                .position_for(&request, metric, cancel)
                .map_err(status)?,
        )),
        Kind::Ready => app
            .atlas
            .position_if_ready(&request, metric)
            .map_err(status)?
            .map(|p| position_json(&p)),
        Kind::Solve => Some(solve_json(
            &app.atlas
                .solve_for(&request, metric, cancel)
                .map_err(status)?,
        )),
    })
}

/// A picture as JSON: `cells` row-major, `-1` empty, `-2` wall, else the piece's index.
#[derive(Debug, Serialize)]
pub struct PictureJson {
    rows: usize,
    cols: usize,
    cells: Vec<i32>,
    pieces: Vec<LookJson>,
    exit: Option<[usize; 2]>,
}

#[derive(Debug, Serialize)]
struct LookJson {
    label: char,
    class: u16,
}

impl From<&Picture> for PictureJson {
    fn from(p: &Picture) -> Self {
        PictureJson {
            rows: p.rows,
            cols: p.cols,
            cells: p
                .cells
                .iter()
                .map(|c| match c {
                    Cell::Empty => -1,
                    Cell::Wall => -2,
                    Cell::Piece(k) => *k as i32,
                })
                .collect(),
            pieces: p
                .pieces
                .iter()
                .map(|l| LookJson {
                    label: l.label,
                    class: l.class,
                })
                .collect(),
            exit: p.exit.as_ref().map(|r| [r.start, r.end]),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
enum SourceJson<'a> {
    Tables(std::borrow::Cow<'a, str>),
    Explored(u64),
    Searched(bool),
    Patterns {
        databases: &'a [String],
        nodes: u64,
        generated: u64,
    },
}

impl<'a> From<&'a Source> for SourceJson<'a> {
    fn from(s: &'a Source) -> Self {
        match s {
            Source::Tables(dir) => SourceJson::Tables(dir.to_string_lossy()),
            Source::Explored(n) => SourceJson::Explored(*n),
            Source::Searched => SourceJson::Searched(true),
            Source::Patterns { databases, nodes } => SourceJson::Patterns {
                databases,
                nodes: nodes.expanded,
                generated: nodes.generated,
            },
        }
    }
}

/// How a move changes the distance.
fn change(from: Option<u16>, to: Option<u16>) -> &'static str {
    match (from, to) {
        (_, None) => "unsolvable",
        (None, Some(_)) => "closer",
        (Some(a), Some(b)) if b < a => "closer",
        (Some(a), Some(b)) if b == a => "same",
        _ => "farther",
    }
}

#[derive(Debug, Serialize)]
struct MoveJson<'a> {
    position: &'a str,
    distance: Option<u16>,
    change: &'static str,
    piece: Option<u16>,
    cells: &'a [usize],
}

#[derive(Debug, Serialize)]
struct ComponentJson<'a> {
    size: u64,
    farthest: &'a str,
    farthest_distance: Option<u16>,
}

/// The answer of `/api/position`.
#[derive(Debug, Serialize)]
struct PositionJson<'a> {
    position: &'a str,
    /// The position's other names (Huarong Dao: `common_code`, `short_code`), by name.
    codes: std::collections::BTreeMap<&'static str, &'a str>,
    metric: &'a str,
    metrics: &'a [&'static str],
    distance: Option<u16>,
    solvable: bool,
    goal: bool,
    picture: PictureJson,
    moves: Vec<MoveJson<'a>>,
    component: ComponentJson<'a>,
    source: SourceJson<'a>,
}

fn position_json(p: &Position) -> String {
    let body = PositionJson {
        position: &p.position,
        codes: p.codes.iter().map(|(k, v)| (*k, v.as_str())).collect(),
        metric: &p.metric,
        metrics: &p.metrics,
        distance: p.distance,
        solvable: p.distance.is_some(),
        goal: p.goal,
        picture: (&p.picture).into(),
        moves: p
            .moves
            .iter()
            .map(|m| MoveJson {
                position: &m.position,
                distance: m.distance,
                change: change(p.distance, m.distance),
                piece: m.piece,
                cells: &m.cells,
            })
            .collect(),
        component: ComponentJson {
            size: p.component.size,
            farthest: &p.component.farthest,
            farthest_distance: p.component.farthest_distance,
        },
        source: (&p.source).into(),
    };
    serde_json::to_string(&body).expect("plain data serializes")
}

#[derive(Debug, Serialize)]
struct StepJson<'a> {
    position: &'a str,
    picture: PictureJson,
}

/// The answer of `/api/solve`.
#[derive(Debug, Serialize)]
struct SolveJson<'a> {
    solvable: bool,
    moves: Option<usize>,
    path: Option<Vec<StepJson<'a>>>,
    source: SourceJson<'a>,
}

fn solve_json(s: &Solution) -> String {
    let body = SolveJson {
        solvable: s.path.is_some(),
        moves: s.path.as_ref().map(|p| p.layouts.len() - 1),
        path: s.path.as_ref().map(|p| {
            p.layouts
                .iter()
                .zip(&p.pictures)
                .map(|(l, pic)| StepJson {
                    position: l,
                    picture: pic.into(),
                })
                .collect()
        }),
        source: (&s.source).into(),
    };
    serde_json::to_string(&body).expect("plain data serializes")
}
/// Binds `addr`, tells `ready` the bound address (port 0 picks a free one), and serves on
/// `threads` worker threads (`None`: one per core) until Ctrl-C.
pub fn run(
    addr: std::net::SocketAddr,
    app: App,
    threads: Option<usize>,
    ready: impl FnOnce(std::net::SocketAddr),
) -> std::io::Result<()> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = threads {
        builder.worker_threads(n.max(1));
    }
    let runtime = builder.enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        ready(listener.local_addr()?);
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        serve(listener, Arc::new(app), stop).await
    })
}

/// How long a client may take to send a request's headers: a connection that trickles them
/// is closed (each connection would otherwise be held forever).
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `app` on `listener` until `shutdown` completes. Each connection is served by hyper
/// with [`HEADER_TIMEOUT`] for its headers; [`DEADLINE`] bounds each request after that.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let router = router(app);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => tcp,
                // Out of file descriptors and the like: wait, then accept again.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        // Answers are single small writes: send each at once.
        let _ = tcp.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        tokio::spawn(async move {
            // A connection's errors (a reset, a header timeout) end that connection only.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                .await;
        });
    }
}
