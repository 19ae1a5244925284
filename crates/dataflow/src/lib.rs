//! The heavy stages on **timely-dataflow**: connected components and breadth-first distances over
//! states partitioned by dense index across workers (`index % peers`), in one process (`workers`
//! threads) or several (a host list). Each worker reads the move graph's rows of its own states
//! only.
//!
//! **Components.** The workers of a process share one atomic union-find forest over all states
//! (the larger root linked under the smaller, so every root is its tree's smallest member); each
//! worker joins the edges `u–v` of its own states `u` with `v > u` (on the rayon pool), so every
//! edge is joined by exactly one worker. Then the processes' forests are merged in ⌈log₂ P⌉
//! rounds: in round `r` the process `p ≡ 2^r (mod 2^(r+1))` sends the pairs `(state, root)` of
//! its forest (sorted, delta-varint encoded, a root written only when it changes) to process
//! `p − 2^r`, which joins them into its own. Process 0 ends with every component, each rooted at
//! its smallest member: the local stage's ids, byte for byte.
//!
//! **Distances.** Level-synchronous BFS. Each round is one depth: a worker expands its frontier
//! and sends each other worker one batch of the newly reached states that worker owns, as sorted
//! local indices, delta-varint or bitmap encoded (whichever is smaller); a worker sends a state at
//! most once (a bitmap of what it has sent). Every batch carries the sender's frontier size, so
//! all workers see together when a level reaches nothing and stop in the same round. The owners
//! then send their distances to worker 0 ([`distances`]), or each writes the part of the table
//! holding its own states ([`distance_parts`]; components likewise: [`component_parts`], process
//! 0 numbering the components and sending every worker its states' ids).
//!
//! A round is one timely epoch; its batches are all delivered when the probe passes it. Several
//! processes connect over TCP with [`connect`] (timely's own setup polls once a second).

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use graph::Rows;
use huarong_core::UNREACHABLE;
use huarong_store::StageError;
use rayon::prelude::*;
use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

/// Where the dataflow runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// Worker threads per process.
    pub workers: usize,
    /// This process's index; process 0 collects the results (and writes the artifacts).
    pub process: usize,
    /// `host:port` of every process; empty (or one) for a single process.
    pub hosts: Vec<String>,
}

impl Cluster {
    /// One process with `workers` threads.
    pub fn local(workers: usize) -> Cluster {
        Cluster {
            workers: workers.max(1),
            process: 0,
            hosts: Vec::new(),
        }
    }

    /// Whether this process collects the results.
    pub fn is_leader(&self) -> bool {
        self.process == 0
    }

    /// Workers in all processes.
    pub fn peers(&self) -> usize {
        self.workers.max(1) * self.hosts.len().max(1)
    }

    fn config(&self) -> timely::Config {
        let communication = if self.hosts.len() > 1 {
            timely::CommunicationConfig::Cluster {
                threads: self.workers.max(1),
                process: self.process,
                addresses: self.hosts.clone(),
                report: false,
                zerocopy: false,
            }
        } else if self.workers > 1 {
            timely::CommunicationConfig::Process(self.workers)
        } else {
            timely::CommunicationConfig::Thread
        };
        timely::Config {
            communication,
            worker: timely::WorkerConfig::default(),
        }
    }
}

/// Bytes of one run, for `docs/SCALING.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Per round: payload bytes all workers sent to other workers (a process's own workers
    /// included; the merge rounds of components, the levels of distances).
    pub bytes_per_round: Vec<u64>,
    /// Payload bytes sent to worker 0 to gather the result.
    pub gathered: u64,
}

impl Traffic {
    pub fn total(&self) -> u64 {
        self.bytes_per_round.iter().sum::<u64>() + self.gathered
    }
}

/// `(to worker, from worker, epoch, payload)`. A fast worker's next-epoch batches can arrive
/// while a slow one is still finishing the current epoch, so receivers pick theirs by epoch.
type Wire = (u32, u32, u32, Payload);

/// A batch's bytes, serialized as one byte string (serde writes a plain `Vec<u8>` element by
/// element, which made a 100 MB batch take half a second).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Payload(Vec<u8>);

impl serde::Serialize for Payload {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Payload {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Payload;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Payload, E> {
                Ok(Payload(v.to_vec()))
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Payload, E> {
                Ok(Payload(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Payload, A::Error> {
                let mut v = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element()? {
                    v.push(b);
                }
                Ok(Payload(v))
            }
        }
        deserializer.deserialize_byte_buf(Bytes)
    }
}

/// One worker's side of the rounds: send batches to workers, get this epoch's batches back.
struct Mailbox {
    input: InputHandle<u32, timely::container::CapacityContainerBuilder<Vec<Wire>>>,
    probe: ProbeHandle<u32>,
    received: Rc<RefCell<Vec<Wire>>>,
    epoch: u32,
    me: u32,
}

impl Mailbox {
    fn new(worker: &mut timely::worker::Worker) -> Self {
        let mut input = InputHandle::new();
        let received: Rc<RefCell<Vec<Wire>>> = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&received);
        let probe = worker.dataflow(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Wire>>()
                .exchange(|m: &Wire| m.0 as u64)
                .inspect(move |m: &Wire| sink.borrow_mut().push(m.clone()))
                .probe()
                .0
        });
        Mailbox {
            input,
            probe,
            received,
            epoch: 0,
            me: worker.index() as u32,
        }
    }

    /// Sends `(to, payload)` batches, finishes the epoch and returns the `(from, payload)`
    /// batches sent to this worker in it.
    fn exchange(
        &mut self,
        worker: &mut timely::worker::Worker,
        batches: Vec<(u32, Vec<u8>)>,
    ) -> Vec<(u32, Vec<u8>)> {
        for (to, payload) in batches {
            self.input.send((to, self.me, self.epoch, Payload(payload)));
        }
        let now = self.epoch;
        self.epoch += 1;
        self.input.advance_to(self.epoch);
        while self.probe.less_than(self.input.time()) {
            worker.step();
        }
        let mut all = self.received.borrow_mut();
        let (mine, later): (Vec<Wire>, Vec<Wire>) = all.drain(..).partition(|m| m.2 == now);
        *all = later;
        let mut mine: Vec<(u32, Vec<u8>)> = mine.into_iter().map(|m| (m.1, m.3.0)).collect();
        mine.sort_by_key(|m| m.0);
        mine
    }
}

/// Runs `body(worker, mailbox)` on every worker; the value worker 0 returns comes back.
fn run_workers<T: Send + 'static>(
    cluster: &Cluster,
    body: impl Fn(&mut timely::worker::Worker, &mut Mailbox) -> Option<T> + Send + Sync + 'static,
) -> Result<Option<T>, StageError> {
    let failed = |e: String| StageError::Invalid(format!("timely dataflow: {e}"));
    let (builders, others) = allocators(cluster).map_err(failed)?;
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |worker| {
            let mut mailbox = Mailbox::new(worker);
            body(worker, &mut mailbox)
        },
    )
    .map_err(failed)?;
    let mut leader = None;
    for r in guards.join() {
        match r {
            Ok(Some(v)) => leader = Some(v),
            Ok(None) => {}
            Err(e) => return Err(StageError::Invalid(format!("timely worker failed: {e}"))),
        }
    }
    Ok(leader)
}

/// The communication of one dataflow. Several processes connect with [`connect`]: timely's own
/// setup polls for connections once a second, which cost up to a second per dataflow.
fn allocators(
    cluster: &Cluster,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    if cluster.hosts.len() <= 1 {
        return cluster.config().communication.try_build();
    }
    let threads = cluster.workers.max(1);
    let sockets = connect(&cluster.hosts, cluster.process)
        .map_err(|e| format!("connecting the processes: {e}"))?;
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (tcp, guard) =
        initialize_networking_from_sockets(local, sockets, cluster.process, threads, hooks)
            .map_err(|e| format!("starting the network threads: {e}"))?;
    Ok((
        tcp.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// One TCP connection to every other process: process `me` listens on its own address for the
/// processes after it and connects to those before it (retrying every few milliseconds for up to
/// two minutes while they start), each connection announcing the connector's index.
fn connect(hosts: &[String], me: usize) -> std::io::Result<Vec<Option<TcpStream>>> {
    let listener = (me + 1 < hosts.len())
        .then(|| TcpListener::bind(&hosts[me]))
        .transpose()?;
    let mut sockets: Vec<Option<TcpStream>> = hosts.iter().map(|_| None).collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for (k, host) in hosts.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(host) {
                Ok(s) => break s,
                Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
                Err(e) => return Err(e),
            }
        };
        stream.set_nodelay(true)?;
        stream.write_all(&(me as u64).to_le_bytes())?;
        sockets[k] = Some(stream);
    }
    if let Some(listener) = listener {
        for _ in me + 1..hosts.len() {
            let (mut stream, _) = listener.accept()?;
            stream.set_nodelay(true)?;
            let mut index = [0u8; 8];
            stream.read_exact(&mut index)?;
            let k = u64::from_le_bytes(index) as usize;
            if k <= me || k >= hosts.len() || sockets[k].is_some() {
                return Err(std::io::Error::other(format!(
                    "unexpected connection from process {k}"
                )));
            }
            sockets[k] = Some(stream);
        }
    }
    Ok(sockets)
}

/// The graph, borrowed for the workers' lifetime.
///
/// SAFETY of the `'static`: `run_workers` returns only after `join` has ended every worker
/// thread (`WorkerGuards` also joins them when dropped, on an early return or a panic), so no
/// worker uses the graph after the caller's borrow ends.
fn shared<'a>(rows: &'a (dyn Rows + 'a)) -> Result<&'static (dyn Rows + 'static), StageError> {
    if rows.is_directed() {
        return Err(StageError::Invalid(
            "the timely engine runs undirected puzzles only".into(),
        ));
    }
    Ok(unsafe { std::mem::transmute::<&'a (dyn Rows + 'a), &'static (dyn Rows + 'static)>(rows) })
}

/// Every process's `mine` on process 0, in process order (`None` on the others): one round in
/// which each process's first worker sends its bytes to worker 0.
pub fn gather(cluster: &Cluster, mine: Vec<u8>) -> Result<Option<Vec<Vec<u8>>>, StageError> {
    let workers = cluster.workers.max(1) as u32;
    let processes = cluster.hosts.len().max(1);
    let mine = Arc::new(std::sync::Mutex::new(Some(mine)));
    let gathered = run_workers(cluster, move |worker, mailbox| {
        // Only the process's first worker takes its bytes: the others send nothing.
        let first = (worker.index() as u32).is_multiple_of(workers);
        let taken = if first {
            mine.lock().ok().and_then(|mut m| m.take())
        } else {
            None
        };
        let batch = taken.map(|bytes| vec![(0, bytes)]).unwrap_or_default();
        let received = mailbox.exchange(worker, batch);
        (worker.index() == 0).then(|| {
            // One batch from each process's first worker, or the gathering failed.
            let senders: Vec<u32> = received.iter().map(|(from, _)| *from).collect();
            let expected: Vec<u32> = (0..processes as u32).map(|p| p * workers).collect();
            if senders != expected {
                return Err(senders);
            }
            Ok(received.into_iter().map(|(_, b)| b).collect())
        })
    })?;
    match gathered {
        None => Ok(None),
        Some(Ok(all)) => Ok(Some(all)),
        Some(Err(senders)) => Err(StageError::Invalid(format!(
            "timely dataflow: gathering from {processes} processes received batches from workers \
             {senders:?}, not one from each process's first worker"
        ))),
    }
}

/// For every state, the smallest member of its connected component: the whole vector on process
/// 0, `None` on the others.
pub fn component_roots(
    rows: &dyn Rows,
    cluster: &Cluster,
) -> Result<Option<(Vec<u32>, Traffic)>, StageError> {
    let gathered = merged_forest(rows, cluster, None)?;
    Ok(gathered.map(|(roots, traffic)| (roots.expect("gathered"), traffic)))
}

/// Writes one part of a component table: `((k, W), ids of states k, k + W, …, sizes)` (sizes
/// only for part 0, empty otherwise).
pub type ComponentPart =
    dyn Fn((usize, usize), &[u32], &[u64]) -> Result<(), StageError> + Send + Sync;

/// Components with the table written in parts ([`huarong_store::shards`]): after the merge,
/// process 0 numbers the components and sends every worker the ids of its own states; each
/// worker writes its part with `write` (on its own process), then all wait for every part.
/// The traffic on process 0 (`None` elsewhere); the ids sent are `Traffic::gathered`.
pub fn component_parts(
    rows: &dyn Rows,
    cluster: &Cluster,
    write: Arc<ComponentPart>,
) -> Result<Option<Traffic>, StageError> {
    Ok(merged_forest(rows, cluster, Some(write))?.map(|(_, traffic)| traffic))
}

/// The union-find over every worker's states, the forests merged at process 0; then either the
/// roots gathered there (`write` is `None`) or the component table written in parts.
#[allow(clippy::type_complexity)]
fn merged_forest(
    rows: &dyn Rows,
    cluster: &Cluster,
    write: Option<Arc<ComponentPart>>,
) -> Result<Option<(Option<Vec<u32>>, Traffic)>, StageError> {
    let failure: Arc<std::sync::Mutex<Option<StageError>>> = Arc::default();
    let failed = Arc::clone(&failure);
    let csr = shared(rows)?;
    let n = csr.node_count();
    let threads = cluster.workers.max(1);
    let processes = cluster.hosts.len().max(1);
    // One forest per process, shared by its workers.
    let parent: Arc<Vec<AtomicU32>> =
        Arc::new((0..n as u32).into_par_iter().map(AtomicU32::new).collect());
    let result = run_workers(cluster, move |worker, mailbox| {
        let (me, peers) = (worker.index(), worker.peers());
        let (process, local) = (me / threads, me % threads);
        // This worker's states `me + k·peers`, in parallel chunks.
        let owned = (n + peers - 1 - me) / peers;
        (0..owned.div_ceil(CHUNK))
            .into_par_iter()
            .for_each_init(Vec::new, |buf, c| {
                for k in c * CHUNK..((c + 1) * CHUNK).min(owned) {
                    let u = (me + k * peers) as u32;
                    for &v in csr.row_above(u, buf) {
                        components::union(&parent, u, v);
                    }
                }
            });
        // An empty round: every worker has joined its edges before any forest is sent.
        mailbox.exchange(worker, Vec::new());
        let mut traffic = Traffic::default();
        let mut step = 1;
        while step < processes {
            let mut out = Vec::new();
            if local == 0 && process % (2 * step) == step {
                let to = ((process - step) * threads) as u32;
                out.extend(encode_forest(&parent).into_iter().map(|seg| (to, seg)));
            }
            traffic
                .bytes_per_round
                .push(out.iter().map(|b| b.1.len() as u64).sum());
            let got = mailbox.exchange(worker, out);
            got.par_iter()
                .for_each(|(_, seg)| join_segment(&parent, seg));
            step *= 2;
        }
        traffic.bytes_per_round = sum_over_workers(worker, mailbox, &traffic.bytes_per_round);
        let roots = || -> Vec<u32> {
            (0..n as u32)
                .into_par_iter()
                .map(|i| components::find(&parent, i))
                .collect()
        };
        let Some(write) = &write else {
            return (me == 0).then(|| (Some(roots()), traffic));
        };
        // Process 0 numbers the components and sends every other worker its states' ids.
        let (mut mine, mut sizes) = (Vec::new(), Vec::new());
        let mut out: Vec<(u32, Vec<u8>)> = Vec::new();
        if me == 0 {
            let (ids, all_sizes) = components::ids_and_sizes(roots());
            for w in 1..peers {
                let part = huarong_store::shards::part_of(&ids, w, peers);
                out.push((w as u32, encode_ids(&part)));
            }
            mine = huarong_store::shards::part_of(&ids, 0, peers);
            sizes = all_sizes;
        }
        traffic.gathered = out.iter().map(|b| b.1.len() as u64).sum();
        for (_, bytes) in mailbox.exchange(worker, out) {
            mine = decode_ids(&bytes);
        }
        if let Err(e) = write((me, peers), &mine, &sizes) {
            failed.lock().expect("no panic holds it").get_or_insert(e);
        }
        // Every part is written before any process goes on.
        mailbox.exchange(worker, Vec::new());
        (me == 0).then_some((None, traffic))
    });
    if let Some(e) = failure.lock().expect("no panic holds it").take() {
        return Err(e);
    }
    result
}

/// A part's component ids in runs of equal ids, each run as two varints: the zigzag difference
/// of its id from the run before's, and its length minus one (nearby states share components:
/// a space of one component sends a few bytes).
fn encode_ids(ids: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut prev = 0i64;
    for run in ids.chunk_by(|a, b| a == b) {
        let d = run[0] as i64 - prev;
        put_varint(&mut out, ((d << 1) ^ (d >> 63)) as u64);
        put_varint(&mut out, run.len() as u64 - 1);
        prev = run[0] as i64;
    }
    out
}

fn decode_ids(bytes: &[u8]) -> Vec<u32> {
    let (mut ids, mut at, mut prev) = (Vec::new(), 0, 0i64);
    while at < bytes.len() {
        let z = get_varint(bytes, &mut at);
        prev += ((z >> 1) as i64) ^ -((z & 1) as i64);
        let len = get_varint(bytes, &mut at) as usize + 1;
        ids.extend(std::iter::repeat_n(prev as u32, len));
    }
    ids
}

/// Element-wise sums of `values` over all workers (one more round: every worker sends every
/// other one its values as varints).
fn sum_over_workers(
    worker: &mut timely::worker::Worker,
    mailbox: &mut Mailbox,
    values: &[u64],
) -> Vec<u64> {
    let peers = worker.peers() as u32;
    let mut bytes = Vec::new();
    for &v in values {
        put_varint(&mut bytes, v);
    }
    let out = (0..peers)
        .filter(|&w| w != mailbox.me)
        .map(|w| (w, bytes.clone()))
        .collect();
    let mut sums = values.to_vec();
    for (_, b) in mailbox.exchange(worker, out) {
        let mut at = 0;
        for s in &mut sums {
            *s += get_varint(&b, &mut at);
        }
    }
    sums
}

/// Owned states per parallel task of the union phase.
const CHUNK: usize = 1 << 16;

/// States per segment of an encoded forest (segments are encoded and joined in parallel).
const SEGMENT: u32 = 1 << 20;

/// The pairs `(state, root)` of every state not a root, states increasing, in segments of
/// [`SEGMENT`] states (encoded, sent and joined in parallel): each segment's first state, then
/// per pair the state's gap to the previous one, doubled, plus one when the root differs from
/// the previous pair's, followed then by the state's distance to its root (varints).
fn encode_forest(parent: &[AtomicU32]) -> Vec<Vec<u8>> {
    let n = parent.len() as u32;
    (0..n.div_ceil(SEGMENT))
        .into_par_iter()
        .map(|k| {
            let (start, end) = (k * SEGMENT, ((k + 1) * SEGMENT).min(n));
            let mut out = Vec::new();
            put_varint(&mut out, start as u64);
            let (mut prev, mut prev_root) = (start, u32::MAX);
            for i in start..end {
                let r = components::find(parent, i);
                if r != i {
                    let gap = ((i - prev) as u64) << 1;
                    if r == prev_root {
                        put_varint(&mut out, gap);
                    } else {
                        put_varint(&mut out, gap | 1);
                        put_varint(&mut out, (i - r) as u64);
                    }
                    (prev, prev_root) = (i, r);
                }
            }
            out
        })
        .collect()
}

/// Joins the trees of an [`encode_forest`] segment into `parent`.
fn join_segment(parent: &[AtomicU32], bytes: &[u8]) {
    let mut at = 0;
    let (mut prev, mut root) = (get_varint(bytes, &mut at) as u32, 0);
    while at < bytes.len() {
        let head = get_varint(bytes, &mut at);
        let state = prev + (head >> 1) as u32;
        if head & 1 == 1 {
            root = state - get_varint(bytes, &mut at) as u32;
        }
        components::union(parent, state, root);
        prev = state;
    }
}

fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut x, mut shift) = (0u64, 0);
    loop {
        let b = bytes[*at];
        *at += 1;
        x |= ((b & 0x7F) as u64) << shift;
        if b < 0x80 {
            return x;
        }
        shift += 7;
    }
}

/// A batch of a BFS level: the sender's frontier size, then the sorted local indices it reached
/// for the receiver, as varint gaps (tag 0) or as a bitmap from the first one (tag 1), whichever
/// is smaller.
fn encode_level(frontier: usize, sorted: &[u32]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, frontier as u64);
    let Some((&first, &last)) = sorted.first().zip(sorted.last()) else {
        return out;
    };
    let mut gaps = vec![0u8];
    put_varint(&mut gaps, sorted.len() as u64);
    let mut prev = 0;
    for (k, &x) in sorted.iter().enumerate() {
        put_varint(&mut gaps, if k == 0 { x } else { x - prev } as u64);
        prev = x;
    }
    let span = (last - first) as usize + 1;
    if span.div_ceil(8) + 12 < gaps.len() {
        out.push(1);
        put_varint(&mut out, first as u64);
        put_varint(&mut out, span as u64);
        let at = out.len();
        out.resize(at + span.div_ceil(8), 0);
        for &x in sorted {
            let k = (x - first) as usize;
            out[at + k / 8] |= 1 << (k % 8);
        }
    } else {
        out.extend_from_slice(&gaps);
    }
    out
}

/// The sender's frontier size and the local indices of a level batch.
fn decode_level(bytes: &[u8], out: &mut Vec<u32>) -> u64 {
    let mut at = 0;
    let frontier = get_varint(bytes, &mut at);
    if at == bytes.len() {
        return frontier;
    }
    let tag = bytes[at];
    at += 1;
    if tag == 0 {
        let len = get_varint(bytes, &mut at);
        let mut x = 0u32;
        for k in 0..len {
            let g = get_varint(bytes, &mut at) as u32;
            x = if k == 0 { g } else { x + g };
            out.push(x);
        }
    } else {
        let first = get_varint(bytes, &mut at) as u32;
        let span = get_varint(bytes, &mut at) as usize;
        for k in 0..span {
            if bytes[at + k / 8] >> (k % 8) & 1 == 1 {
                out.push(first + k as u32);
            }
        }
    }
    frontier
}

/// Breadth-first distances from `sources` (dense indices) over the undirected graph `csr`: the
/// whole vector on process 0, `None` on the others.
pub fn distances(
    rows: &dyn Rows,
    sources: &[u32],
    cluster: &Cluster,
) -> Result<Option<(Vec<u16>, Traffic)>, StageError> {
    let gathered = search(rows, sources, cluster, None)?;
    Ok(gathered.map(|(all, traffic)| (all.expect("gathered"), traffic)))
}

/// Writes one part of a distance table: `((k, W), distances of states k, k + W, …)`.
pub type DistancePart = dyn Fn((usize, usize), &[u16]) -> Result<(), StageError> + Send + Sync;

/// Distances with the table written in parts ([`huarong_store::shards`]): every worker writes
/// the distances of its own states with `write` (on its own process) instead of sending them to
/// worker 0, then all wait for every part. The traffic on process 0 (`None` elsewhere).
pub fn distance_parts(
    rows: &dyn Rows,
    sources: &[u32],
    cluster: &Cluster,
    write: Arc<DistancePart>,
) -> Result<Option<Traffic>, StageError> {
    Ok(search(rows, sources, cluster, Some(write))?.map(|(_, traffic)| traffic))
}

/// The level-synchronous search; then the distances gathered at worker 0 (`write` is `None`)
/// or written in parts.
#[allow(clippy::type_complexity)]
fn search(
    rows: &dyn Rows,
    sources: &[u32],
    cluster: &Cluster,
    write: Option<Arc<DistancePart>>,
) -> Result<Option<(Option<Vec<u16>>, Traffic)>, StageError> {
    let failure: Arc<std::sync::Mutex<Option<StageError>>> = Arc::default();
    let failed = Arc::clone(&failure);
    let csr = shared(rows)?;
    let n = csr.node_count();
    let sources = Arc::new(sources.to_vec());
    let result = run_workers(cluster, move |worker, mailbox| {
        let (me, peers) = (worker.index(), worker.peers());
        let mut dist = vec![UNREACHABLE; (n + peers - 1 - me) / peers];
        let mut sent = vec![0u64; n.div_ceil(64)];
        let mut frontier: Vec<u32> = sources
            .iter()
            .copied()
            .filter(|&s| s as usize % peers == me)
            .collect();
        for &s in &frontier {
            dist[s as usize / peers] = 0;
            sent[s as usize / 64] |= 1 << (s % 64);
        }
        let mut traffic = Traffic::default();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); peers];
        let mut reached = Vec::new();
        let mut buf = Vec::new();
        for depth in 1u16.. {
            for &u in &frontier {
                for &v in csr.row(u, &mut buf) {
                    let (word, bit) = (v as usize / 64, 1u64 << (v % 64));
                    if sent[word] & bit == 0 {
                        sent[word] |= bit;
                        lists[v as usize % peers].push(v / peers as u32);
                    }
                }
            }
            let mut out = Vec::with_capacity(peers - 1);
            for (w, list) in lists.iter_mut().enumerate() {
                if w != me {
                    list.sort_unstable();
                    out.push((w as u32, encode_level(frontier.len(), list)));
                    list.clear();
                }
            }
            traffic
                .bytes_per_round
                .push(out.iter().map(|b| b.1.len() as u64).sum());
            reached.clear();
            reached.append(&mut lists[me]);
            let mut expanded = frontier.len() as u64;
            for (_, bytes) in mailbox.exchange(worker, out) {
                expanded += decode_level(&bytes, &mut reached);
            }
            if expanded == 0 {
                break;
            }
            frontier.clear();
            for &k in &reached {
                let d = &mut dist[k as usize];
                if *d == UNREACHABLE {
                    *d = depth;
                    frontier.push(me as u32 + k * peers as u32);
                }
            }
        }
        if let Some(write) = &write {
            if let Err(e) = write((me, peers), &dist) {
                failed.lock().expect("no panic holds it").get_or_insert(e);
            }
            // Every part is written before any process goes on (this round also sums the
            // bytes per level).
            traffic.bytes_per_round = sum_over_workers(worker, mailbox, &traffic.bytes_per_round);
            return (me == 0).then_some((None, traffic));
        }
        // Every worker's bytes per level and of the gathering, summed.
        let mine: Vec<u8> = dist.iter().flat_map(|d| d.to_le_bytes()).collect();
        let out = if me == 0 { Vec::new() } else { vec![(0, mine)] };
        let mut counts = traffic.bytes_per_round.clone();
        counts.push(out.iter().map(|b| b.1.len() as u64).sum());
        let mut sums = sum_over_workers(worker, mailbox, &counts);
        traffic.gathered = sums.pop().unwrap_or(0);
        traffic.bytes_per_round = sums;
        let got = mailbox.exchange(worker, out);
        (me == 0).then(|| {
            let mut all = vec![UNREACHABLE; n];
            for (k, &d) in dist.iter().enumerate() {
                all[k * peers] = d;
            }
            for (from, bytes) in got {
                for (k, d) in bytes.chunks_exact(2).enumerate() {
                    all[from as usize + k * peers] = u16::from_le_bytes([d[0], d[1]]);
                }
            }
            (Some(all), traffic)
        })
    });
    if let Some(e) = failure.lock().expect("no panic holds it").take() {
        return Err(e);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::{Puzzle, Reporter};

    /// The timely stages write byte-identical artifacts to the local ones, with 1 and 2 workers.
    fn agree<P: Puzzle + 'static>(p: &P, metrics: &[usize]) {
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        let (states, _) = enumerate::run(p, &dir.path().join("s"), false, q).unwrap();
        for &m in metrics {
            let (csr, _) = graph::run(p, &states, m, &dir.path().join("g"), true, q).unwrap();
            let local_c = dir.path().join("c-local");
            let local_d = dir.path().join("d-local");
            components::run(&csr, &csr.view(), &local_c, "t", true, q).unwrap();
            distances::run(p, &states, &csr, &csr.view(), &local_d, "t", true, q).unwrap();
            for workers in [1, 2, 4] {
                let cluster = Cluster::local(workers);
                let (c, d) = (dir.path().join("c"), dir.path().join("d"));
                components::run_with(&csr, &c, "t", true, || {
                    let (roots, _) = component_roots(&csr.view(), &cluster)?.unwrap();
                    Ok(roots)
                })
                .unwrap();
                let src = distances::sources(p, &states).unwrap();
                distances::run_with(p, &states, &csr, &src, &d, "t", true, |src| {
                    let (dist, traffic) = distances(&csr.view(), src, &cluster)?.unwrap();
                    assert!(!traffic.bytes_per_round.is_empty());
                    Ok(dist)
                })
                .unwrap();
                let same = |a: &std::path::Path, b: &std::path::Path| {
                    std::fs::read(a).unwrap() == std::fs::read(b).unwrap()
                };
                assert!(
                    same(&c, &local_c),
                    "components, metric {m}, {workers} workers"
                );
                assert!(
                    same(&d, &local_d),
                    "distances, metric {m}, {workers} workers"
                );
                // In parts, one per worker: they read back as the local tables.
                let parts = dir.path().join(format!("parts-{m}-{workers}"));
                std::fs::create_dir_all(&parts).unwrap();
                let (pc, pd) = (parts.join("c.bin"), parts.join("d.bin"));
                let cfp = components::fingerprint(&csr);
                let path = pc.clone();
                component_parts(
                    &csr.view(),
                    &cluster,
                    Arc::new(move |part, ids: &[u32], sizes: &[u64]| {
                        components::write_part(&path, cfp, "t", part, ids, sizes)
                    }),
                )
                .unwrap();
                let dfp = distances::fingerprint(p, &states, &csr).unwrap();
                let path = pd.clone();
                distance_parts(
                    &csr.view(),
                    &src,
                    &cluster,
                    Arc::new(move |part, values: &[u16]| {
                        distances::write_part(&path, dfp, "t", part, values)
                    }),
                )
                .unwrap();
                assert_eq!(std::fs::read_dir(&parts).unwrap().count(), 2 * workers);
                let local = components::Components::open(&local_c, &csr).unwrap();
                let read = components::Components::open_with(&pc, cfp).unwrap();
                assert_eq!(
                    read.ids(),
                    local.ids(),
                    "component parts, {workers} workers"
                );
                assert_eq!(read.sizes(), local.sizes());
                let local = distances::Distances::open(&local_d, p, &states, &csr).unwrap();
                let read = distances::Distances::open_with(&pd, dfp).unwrap();
                assert_eq!(
                    read.values(),
                    local.values(),
                    "distance parts, {workers} workers"
                );
                // A part of another table (its fingerprint) is refused.
                assert!(components::Components::open_with(&pc, cfp ^ 1).is_err());
            }
        }
    }

    #[test]
    fn component_ids_round_trip() {
        let mut rng = huarong_core::SplitMix(11);
        let ids: Vec<u32> = (0..10_000)
            .map(|k| match k % 3 {
                0 => (rng.next_u64() >> 32) as u32,
                _ => (k / 7) as u32,
            })
            .chain([0, u32::MAX, 0, u32::MAX])
            .collect();
        assert_eq!(decode_ids(&encode_ids(&ids)), ids);
        assert!(decode_ids(&[]).is_empty());
        // One component: a run.
        assert!(encode_ids(&vec![0; 1 << 20]).len() <= 4);
    }

    /// Level batches decode to what was encoded, through both encodings (sparse lists as
    /// varint gaps, dense ones as bitmaps), and the smaller one is chosen.
    #[test]
    fn level_batches_round_trip_in_the_smaller_encoding() {
        let mut rng = huarong_core::SplitMix(7);
        for density in [1u64, 2, 8, 64, 1000] {
            let mut list: Vec<u32> = (0..5000u32)
                .filter(|_| rng.next_u64().is_multiple_of(density))
                .map(|x| x * 3 + 11)
                .collect();
            list.dedup();
            let bytes = encode_level(42, &list);
            let mut back = Vec::new();
            assert_eq!(decode_level(&bytes, &mut back), 42);
            assert_eq!(back, list, "density 1/{density}");
            // Never much larger than either encoding.
            let span = (list[list.len() - 1] - list[0]) as usize + 1;
            assert!(bytes.len() <= span.div_ceil(8) + 16, "density 1/{density}");
            assert!(
                bytes.len() <= 2 + 10 + 5 * list.len(),
                "density 1/{density}"
            );
        }
        let mut back = Vec::new();
        assert_eq!(decode_level(&encode_level(0, &[]), &mut back), 0);
        assert!(back.is_empty());
    }

    /// A forest sent as segments joins into an empty one with the same roots.
    #[test]
    fn forests_round_trip() {
        let n = 3 * SEGMENT + 17;
        let from: Vec<AtomicU32> = (0..n).map(AtomicU32::new).collect();
        let mut rng = huarong_core::SplitMix(11);
        for _ in 0..200_000 {
            let (a, b) = (rng.next_u64() as u32 % n, rng.next_u64() as u32 % n);
            components::union(&from, a, b);
        }
        let to: Vec<AtomicU32> = (0..n).map(AtomicU32::new).collect();
        for seg in encode_forest(&from) {
            join_segment(&to, &seg);
        }
        for i in 0..n {
            assert_eq!(components::find(&to, i), components::find(&from, i));
        }
    }

    #[test]
    fn unlabeled_classic_matches_the_local_engine() {
        agree(
            &klotski::Unlabeled::new(klotski::PieceSet::CLASSIC),
            &[0, 1, 2],
        );
    }

    #[test]
    fn solitaire_matches_the_local_engine() {
        let start = solitaire::parse("4 4 4 5 5 4 6 5").unwrap();
        let goal = solitaire::parse("2 4 3 3 3 6 4 6").unwrap();
        agree(&solitaire::Solitaire::new(start, goal), &[0]);
    }

    /// Every process's bytes reach process 0, once each and in process order, however many
    /// workers each process has (two workers per process once lost a process's bytes: every
    /// worker took them, and a second worker's take could drop them).
    #[test]
    fn gather_brings_every_process_bytes_once() {
        let base = 30_000 + (std::process::id() % 10_000) as u16 * 3 % 30_000;
        for (round, (processes, workers)) in [(2usize, 2usize), (3, 2), (2, 3), (3, 1)]
            .into_iter()
            .enumerate()
        {
            for repeat in 0..4u16 {
                let port = base + (round as u16 * 4 + repeat) * 3;
                let hosts: Vec<String> = (0..processes)
                    .map(|p| format!("127.0.0.1:{}", port + p as u16))
                    .collect();
                let threads: Vec<_> = (0..processes)
                    .map(|process| {
                        let cluster = Cluster {
                            workers,
                            process,
                            hosts: hosts.clone(),
                        };
                        std::thread::spawn(move || {
                            gather(&cluster, vec![process as u8; 3 + process])
                        })
                    })
                    .collect();
                let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
                let expected: Vec<Vec<u8>> = (0..processes).map(|p| vec![p as u8; 3 + p]).collect();
                for (p, r) in results.into_iter().enumerate() {
                    let r = r.unwrap();
                    if p == 0 {
                        assert_eq!(r, Some(expected.clone()), "{processes} x {workers}");
                    } else {
                        assert_eq!(r, None);
                    }
                }
            }
        }
    }
}
