//! The heavy stages on **timely-dataflow**: level-synchronous breadth-first search and connected
//! components by label propagation, over states partitioned by dense index across workers
//! (`index % peers`), in one process (`workers` threads) or several (a host list).
//!
//! Each worker owns the states `i ≡ worker (mod peers)`, generates their moves from the puzzle
//! trait (no global graph), and sends one message per neighbour to the neighbour's owner. A round
//! is one timely epoch: its messages are all delivered when the probe passes it. After each round
//! every worker tells every other worker how many states it changed, so all stop together. At
//! the end the owners send their values to worker 0 (of process 0), which returns the whole
//! vector; the caller writes the same artifact as the local stage — distances are unique and
//! component ids are the smallest member's, so the bytes are identical.

use std::cell::RefCell;
use std::rc::Rc;

use enumerate::StateTable;
use huarong_core::{Puzzle, StageError, UNREACHABLE};
use timely::dataflow::InputHandle;
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};

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

/// Messages of one run, for `docs/SCALING.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Per round: messages sent by all workers to owners (each [`MESSAGE_BYTES`] serialized).
    pub messages_per_round: Vec<u64>,
    /// Messages sent to worker 0 to gather the result.
    pub gathered: u64,
}

/// Bytes of one message on the wire, `(key: u32, a: u32, b: u32, tag: u8, epoch: u32)`, as
/// bincode writes it.
pub const MESSAGE_BYTES: u64 = 17;

/// `(routing key, a, b, tag)`: the key is a state index (its owner receives it) or a worker.
type Msg = (u32, u32, u32, u8);
/// A message with the epoch it was sent in: a fast worker's next-epoch messages can arrive while
/// a slow one is still finishing the current epoch, so receivers sort them by epoch.
type Wire = (u32, u32, u32, u8, u32);
const VISIT: u8 = 0;
const COUNT: u8 = 1;
const SENT: u8 = 2;
const FINAL: u8 = 3;

/// One worker's side of a round-based computation over its own states.
trait Protocol {
    /// Messages of round 0.
    fn start(&mut self, out: &mut Vec<Msg>);
    /// Takes the visits delivered in `round`; returns how many states changed.
    fn receive(&mut self, round: u32, msgs: &[Msg]) -> u64;
    /// Messages of the next round (from the states that just changed).
    fn send(&mut self, out: &mut Vec<Msg>);
    /// This worker's `(index, value)` pairs.
    fn results(&self) -> Vec<(u32, u32)>;
}

/// The puzzle, its state table and the metric, shared by the workers of this process.
struct Space<'a, P: ?Sized> {
    puzzle: &'a P,
    states: &'a StateTable,
    metric: usize,
    ranked: bool,
}

impl<'a, P: Puzzle + ?Sized> Space<'a, P> {
    /// The space of an undirected puzzle (directed ones keep their strongly connected
    /// components and backward distances on the local engine).
    fn new(puzzle: &'a P, states: &'a StateTable, metric: usize) -> Result<Self, StageError> {
        if puzzle.directed() {
            return Err(StageError::Invalid(
                "the timely engine runs undirected puzzles only".into(),
            ));
        }
        Ok(Space {
            puzzle,
            states,
            metric,
            ranked: puzzle.ranked_len().is_some(),
        })
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    fn neighbours(&self, i: u32, out: &mut Vec<u32>) {
        out.clear();
        let code = if self.ranked {
            self.puzzle.unrank(i as u64)
        } else {
            self.states.codes()[i as usize]
        };
        let lookup = |c: u64| -> Option<u32> {
            if self.ranked {
                self.puzzle.rank(c).map(|r| r as u32)
            } else {
                self.states.lookup(c)
            }
        };
        self.puzzle
            .neighbor_indices(i as u64, code, self.metric, &lookup, out);
    }
}

/// Runs the protocol `make(worker, peers)` on every worker until a round changes nothing; the
/// gathered values (indexed by state) come back on process 0.
fn run_rounds<'a, P, W>(
    cluster: &Cluster,
    space: &Space<'a, P>,
    make: impl Fn(&'static Space<'static, P>, usize, usize) -> W + Send + Sync + 'static,
) -> Result<Option<(Vec<u32>, Traffic)>, StageError>
where
    P: Puzzle + ?Sized + 'static,
    W: Protocol,
{
    let n = space.len();
    // SAFETY: the workers only use `space` until `join` below returns, and `WorkerGuards`
    // joins every worker thread when dropped (also on an early return or a panic), so the
    // borrowed puzzle and state table outlive every use.
    let shared: &'static Space<'static, P> =
        unsafe { std::mem::transmute::<&Space<'a, P>, &'static Space<'static, P>>(space) };
    let guards = timely::execute(cluster.config(), move |worker| {
        let (me, peers) = (worker.index(), worker.peers());
        let mut input = InputHandle::new();
        let received: Rc<RefCell<Vec<Wire>>> = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&received);
        let probe = worker.dataflow(|scope| {
            scope
                .input_from(&mut input)
                .container::<Vec<Wire>>()
                .exchange(|m: &Wire| m.0 as u64)
                .inspect(move |m: &Wire| sink.borrow_mut().push(*m))
                .probe()
                .0
        });
        let mut epoch = 0u32;
        let mut exchange = |batch: &mut Vec<Msg>, worker: &mut timely::worker::Worker| {
            for (k, a, b, t) in batch.drain(..) {
                input.send((k, a, b, t, epoch));
            }
            let now = epoch;
            epoch += 1;
            input.advance_to(epoch);
            while probe.less_than(input.time()) {
                worker.step();
            }
            // This epoch's messages; later epochs' stay buffered.
            let mut all = received.borrow_mut();
            let mine: Vec<Msg> = all
                .iter()
                .filter(|m| m.4 == now)
                .map(|m| (m.0, m.1, m.2, m.3))
                .collect();
            all.retain(|m| m.4 != now);
            mine
        };
        let mut protocol = make(shared, me, peers);
        let mut traffic = Traffic::default();
        let mut out = Vec::new();
        protocol.start(&mut out);
        let mut round = 0u32;
        loop {
            let sent = out.len() as u64;
            let msgs = exchange(&mut out, worker);
            let changes = protocol.receive(round, &msgs);
            // Every worker learns the totals of changes and messages.
            let mut counts: Vec<Msg> = (0..peers as u32)
                .flat_map(|w| {
                    [
                        (w, changes.min(u32::MAX as u64) as u32, 0, COUNT),
                        (w, sent.min(u32::MAX as u64) as u32, 0, SENT),
                    ]
                })
                .collect();
            let totals = exchange(&mut counts, worker);
            let sum = |tag| -> u64 {
                totals
                    .iter()
                    .filter(|m| m.3 == tag)
                    .map(|m| m.1 as u64)
                    .sum()
            };
            traffic.messages_per_round.push(sum(SENT));
            if sum(COUNT) == 0 {
                break;
            }
            round += 1;
            protocol.send(&mut out);
        }
        let mut finals: Vec<Msg> = protocol
            .results()
            .into_iter()
            .map(|(i, v)| (0, i, v, FINAL))
            .collect();
        traffic.gathered = finals.len() as u64;
        let got = exchange(&mut finals, worker);
        (me == 0).then(|| {
            let mut values = vec![0u32; n];
            for m in got {
                values[m.1 as usize] = m.2;
            }
            (values, traffic)
        })
    })
    .map_err(|e| StageError::Invalid(format!("timely dataflow: {e}")))?;
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

/// The states `worker` owns: `worker, worker + peers, …`.
fn owned(n: usize, worker: usize, peers: usize) -> impl Iterator<Item = u32> {
    (worker..n).step_by(peers).map(|i| i as u32)
}

struct Bfs<'s, P: ?Sized + 'static> {
    space: &'s Space<'static, P>,
    peers: usize,
    worker: usize,
    /// Distance of each owned state (`i / peers`).
    dist: Vec<u16>,
    frontier: Vec<u32>,
    sources: Vec<u32>,
    buf: Vec<u32>,
}

impl<P: Puzzle + ?Sized + 'static> Bfs<'_, P> {
    fn visits(&mut self, from: &[u32], out: &mut Vec<Msg>) {
        let start = out.len();
        for &u in from {
            self.space.neighbours(u, &mut self.buf);
            out.extend(self.buf.iter().map(|&v| (v, v, 0, VISIT)));
        }
        // One message per distinct target and round.
        out[start..].sort_unstable();
        let mut keep = start;
        for k in start..out.len() {
            if k == start || out[k].0 != out[keep - 1].0 {
                out[keep] = out[k];
                keep += 1;
            }
        }
        out.truncate(keep);
    }
}

impl<P: Puzzle + ?Sized + 'static> Protocol for Bfs<'_, P> {
    fn start(&mut self, out: &mut Vec<Msg>) {
        let mine: Vec<u32> = self
            .sources
            .iter()
            .copied()
            .filter(|&s| s as usize % self.peers == self.worker)
            .collect();
        for &s in &mine {
            self.dist[s as usize / self.peers] = 0;
        }
        self.visits(&mine, out);
    }

    fn receive(&mut self, round: u32, msgs: &[Msg]) -> u64 {
        self.frontier.clear();
        for m in msgs.iter().filter(|m| m.3 == VISIT) {
            let d = &mut self.dist[m.1 as usize / self.peers];
            if *d == UNREACHABLE {
                *d = (round + 1) as u16;
                self.frontier.push(m.1);
            }
        }
        self.frontier.len() as u64
    }

    fn send(&mut self, out: &mut Vec<Msg>) {
        let frontier = std::mem::take(&mut self.frontier);
        self.visits(&frontier, out);
        self.frontier = frontier;
    }

    fn results(&self) -> Vec<(u32, u32)> {
        owned(self.space.len(), self.worker, self.peers)
            .map(|i| (i, self.dist[i as usize / self.peers] as u32))
            .collect()
    }
}

/// Breadth-first distances from `sources` (dense indices) over the moves of `puzzle` in
/// `metric`: the whole vector on process 0, `None` on the others.
pub fn distances<P: Puzzle + ?Sized + 'static>(
    puzzle: &P,
    states: &StateTable,
    metric: usize,
    sources: &[u32],
    cluster: &Cluster,
) -> Result<Option<(Vec<u16>, Traffic)>, StageError> {
    let space = Space::new(puzzle, states, metric)?;
    let sources = sources.to_vec();
    let n = space.len();
    let out = run_rounds(cluster, &space, move |space, worker, peers| Bfs {
        space,
        peers,
        worker,
        dist: vec![UNREACHABLE; (n + peers - 1 - worker) / peers],
        frontier: Vec::new(),
        sources: sources.clone(),
        buf: Vec::new(),
    })?;
    Ok(out.map(|(v, t)| (v.into_iter().map(|d| d as u16).collect(), t)))
}

struct Labels<'s, P: ?Sized + 'static> {
    space: &'s Space<'static, P>,
    peers: usize,
    worker: usize,
    /// Smallest index seen in each owned state's component (`i / peers`).
    label: Vec<u32>,
    changed: Vec<u32>,
    buf: Vec<u32>,
}

impl<P: Puzzle + ?Sized + 'static> Labels<'_, P> {
    fn spread(&mut self, from: &[u32], out: &mut Vec<Msg>) {
        for &u in from {
            let l = self.label[u as usize / self.peers];
            self.space.neighbours(u, &mut self.buf);
            out.extend(self.buf.iter().map(|&v| (v, v, l, VISIT)));
        }
    }
}

impl<P: Puzzle + ?Sized + 'static> Protocol for Labels<'_, P> {
    fn start(&mut self, out: &mut Vec<Msg>) {
        let all: Vec<u32> = owned(self.space.len(), self.worker, self.peers).collect();
        self.spread(&all, out);
    }

    fn receive(&mut self, _round: u32, msgs: &[Msg]) -> u64 {
        self.changed.clear();
        for m in msgs.iter().filter(|m| m.3 == VISIT) {
            let l = &mut self.label[m.1 as usize / self.peers];
            if m.2 < *l {
                *l = m.2;
                self.changed.push(m.1);
            }
        }
        self.changed.sort_unstable();
        self.changed.dedup();
        self.changed.len() as u64
    }

    fn send(&mut self, out: &mut Vec<Msg>) {
        let changed = std::mem::take(&mut self.changed);
        self.spread(&changed, out);
        self.changed = changed;
    }

    fn results(&self) -> Vec<(u32, u32)> {
        owned(self.space.len(), self.worker, self.peers)
            .map(|i| (i, self.label[i as usize / self.peers]))
            .collect()
    }
}

/// For every state, the smallest member of its connected component (label propagation): the
/// whole vector on process 0, `None` on the others.
pub fn component_roots<P: Puzzle + ?Sized + 'static>(
    puzzle: &P,
    states: &StateTable,
    metric: usize,
    cluster: &Cluster,
) -> Result<Option<(Vec<u32>, Traffic)>, StageError> {
    let space = Space::new(puzzle, states, metric)?;
    let n = space.len();
    run_rounds(cluster, &space, move |space, worker, peers| {
        let size = (n + peers - 1 - worker) / peers;
        Labels {
            space,
            peers,
            worker,
            label: (0..size).map(|k| (worker + k * peers) as u32).collect(),
            changed: Vec::new(),
            buf: Vec::new(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use huarong_core::Reporter;

    /// The timely stages write byte-identical artifacts to the local ones, with 1 and 2 workers.
    fn agree<P: Puzzle + 'static>(p: &P, metrics: &[usize]) {
        let dir = tempfile::tempdir().unwrap();
        let q = &Reporter::quiet();
        let (states, _) = enumerate::run(p, &dir.path().join("s"), false, q).unwrap();
        for &m in metrics {
            let (csr, _) = graph::run(p, &states, m, &dir.path().join("g"), true, q).unwrap();
            let local_c = dir.path().join("c-local");
            let local_d = dir.path().join("d-local");
            components::run(&csr, &local_c, "t", true, q).unwrap();
            distances::run(p, &states, &csr, &local_d, "t", true, q).unwrap();
            for workers in [1, 2] {
                let cluster = Cluster::local(workers);
                let (c, d) = (dir.path().join("c"), dir.path().join("d"));
                components::run_with(&csr, &c, "t", true, || {
                    let (roots, _) = component_roots(p, &states, m, &cluster)?.unwrap();
                    Ok(roots)
                })
                .unwrap();
                let src = distances::sources(p, &states).unwrap();
                distances::run_with(p, &states, &csr, &src, &d, "t", true, |src| {
                    let (dist, traffic) = distances(p, &states, m, src, &cluster)?.unwrap();
                    assert!(!traffic.messages_per_round.is_empty());
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
            }
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
}
