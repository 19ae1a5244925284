//! Sliding-block puzzles in the pipeline and on the command line: the `[sliding]` section (one
//! space per puzzle file, named by its stem; the sliding tiles ranked densely, other puzzles
//! explored from their board; `answer` is the board's own distance to the goal), and
//! `huarong solve --puzzle FILE` / `huarong render --puzzle FILE`.

use huarong_core::abstraction::{Database, Values};
use huarong_core::driver::SectionError;
use huarong_core::driver::{
    Driver, Informed, Instance, Nodes, Plan, Section, SectionInput, SolveError, SolveRequest,
    SolvedPath, Solver, SpaceSpec, SpaceView, Step,
};
use huarong_core::picture::Picture;
use huarong_core::table::Value;
use huarong_core::{InputError, Puzzle, metric_index};
use serde::Deserialize;

use crate::ida::{self, Heuristic};
use crate::large::{LargeTiles, Position};
use crate::pattern::{Pattern, TileBoard};
use crate::search::{self, Outcome};
use crate::tiles::Tiles;
use crate::{METRICS, SlidingPuzzle};

/// The registry entry.
#[derive(Debug)]
pub struct SlidingDriver;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    puzzles: Vec<String>,
    #[serde(default = "all_metrics")]
    metrics: Vec<String>,
    #[serde(default)]
    state_tables: Option<bool>,
    #[serde(default)]
    patterns: Option<Groups>,
    #[serde(default = "yes")]
    spaces: bool,
}

/// `patterns = true` (the default partition) or the groups as their tiles' letters.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Groups {
    Default(bool),
    Listed(Vec<String>),
}

fn yes() -> bool {
    true
}

fn all_metrics() -> Vec<String> {
    METRICS.iter().map(|m| m.to_string()).collect()
}

/// Without `state_tables`, a space of more positions than this gets no per-position tables (a
/// ranked space, whose size is known before it is built: the 11-puzzles' 239,500,800 rows
/// would take gigabytes of Parquet); explored spaces and smaller ranked ones get them.
pub const STATE_TABLES_UP_TO: u64 = 50_000_000;

/// A validated `[sliding]` section.
#[derive(Debug, Clone)]
pub struct SlidingSection {
    pub puzzles: Vec<SlidingPuzzle>,
    pub metrics: Vec<usize>,
    /// Per-position tables: as the section says, or by size ([`STATE_TABLES_UP_TO`]).
    pub state_tables: Option<bool>,
    /// Each puzzle's pattern databases (empty: none).
    pub patterns: Vec<Vec<Pattern>>,
    /// Whether the puzzles' own spaces are built (off: only their pattern databases).
    pub spaces: bool,
}

/// The space a puzzle's positions are counted in: the sliding tiles as a ranked space (a dense
/// perfect ranking, [`Tiles`]), any other puzzle as the positions explored from its board.
pub fn space_of(puzzle: &SlidingPuzzle) -> Box<dyn Puzzle> {
    match Tiles::new(puzzle) {
        Some(t) => Box::new(t),
        None => Box::new(puzzle.clone()),
    }
}

/// A position's code in [`space_of`]`(puzzle)`, from the puzzle's own code (`None` when the
/// tiles cannot reach it from the board).
fn space_code(tiles: Option<&Tiles>, code: u64) -> Option<u64> {
    match tiles {
        Some(t) => t.from_sliding(code),
        None => Some(code),
    }
}

/// The pattern databases a section asks of one tiles board: its groups, disjoint.
fn patterns_of(board: &TileBoard, groups: &Groups) -> Result<Vec<Pattern>, InputError> {
    let letters = match groups {
        Groups::Listed(g) => g.clone(),
        Groups::Default(_) => board.default_groups(),
    };
    huarong_core::driver::no_repeats("groups", &letters).map_err(|e| e.to_string())?;
    let mut used: Vec<u8> = Vec::new();
    let mut out = Vec::new();
    for g in &letters {
        let p = Pattern::new(board, g)?;
        if let Some(t) = p.tiles().iter().find(|t| used.contains(t)) {
            return Err(InputError(format!(
                "group {g:?}: tile {:?} is in an earlier group too (groups are disjoint, so \
                 their databases add up)",
                board.letters[*t as usize]
            )));
        }
        used.extend(p.tiles());
        out.push(p);
    }
    Ok(out)
}

/// The space id of a puzzle file: its name without folders and `.toml`.
pub fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".toml").unwrap_or(name).to_owned()
}

/// A puzzle file as read: a sliding-block puzzle, or sliding tiles too many for a position
/// code (the twenty-four puzzle), whose positions are every tile's cell.
#[derive(Debug)]
pub enum PuzzleFile {
    Sliding(SlidingPuzzle),
    Large(LargeTiles),
}

/// Reads one puzzle file's text, as a [`SlidingPuzzle`] when its positions fit a code, else
/// as [`LargeTiles`] when it is sliding tiles.
pub fn read_puzzle_file(path: &str, text: &str) -> Result<PuzzleFile, InputError> {
    match read_sliding(path, text) {
        Ok(p) => Ok(PuzzleFile::Sliding(p)),
        Err(ReadError::TooLarge(e)) => match crate::parse_tiles(text, &stem(path)) {
            Ok(t) => Ok(PuzzleFile::Large(t)),
            Err(crate::PuzzleError::NotTiles(_)) => Err(e.into()),
            Err(other) => Err(format!("{path}: {other}").into()),
        },
        Err(ReadError::Other(e)) => Err(e.into()),
    }
}

enum ReadError {
    TooLarge(String),
    Other(String),
}

/// Reads one puzzle file's text (`path` names it in errors and gives the space id).
pub fn read_puzzle(path: &str, text: &str) -> Result<SlidingPuzzle, InputError> {
    read_sliding(path, text).map_err(|(ReadError::TooLarge(e) | ReadError::Other(e))| e.into())
}

fn read_sliding(path: &str, text: &str) -> Result<SlidingPuzzle, ReadError> {
    let stem = stem(path);
    if stem.is_empty()
        || !stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(ReadError::Other(format!(
            "{path}: the file name names the space's folder: use letters, digits, '-' and '_'"
        )));
    }
    crate::parse(text, &stem).map_err(|e| match e {
        crate::PuzzleError::TooLarge { .. } => ReadError::TooLarge(format!("{path}: {e}")),
        _ => ReadError::Other(format!("{path}: {e}")),
    })
}

impl Driver for SlidingDriver {
    fn name(&self) -> &'static str {
        "sliding"
    }

    fn about(&self) -> &'static str {
        "any sliding-block puzzle from a puzzle file (Pennant, Century, Rush Hour, sliding tiles)"
    }

    fn notation(&self) -> &'static str {
        "the board's rows joined by '/': a letter per piece cell, '.' empty, '#' wall; look-alike \
         pieces take their letters in reading order"
    }

    fn example(&self) -> &'static str {
        "[sliding]\n\
         puzzles = [\"puzzles/pennant.toml\"]       # one space per file, named by its stem\n\
         metrics = [\"step\", \"straight\", \"piece\"]\n\
         state_tables = true                      # per-position states/components tables\n\
         #   (default: on up to 50,000,000 positions, off above)\n\
         patterns = false                         # sliding tiles: pattern databases too; true:\n\
         #   the default groups (the fifteen puzzle: 7 and 8 tiles), or the groups' letters,\n\
         #   e.g. [\"1234567\", \"89ABCDEF\"]\n\
         spaces = true                            # false: only the pattern databases\n"
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let c: Config = section.deserialize()?;
        if c.puzzles.is_empty() || c.metrics.is_empty() {
            return Err("[sliding] needs at least one puzzle and one metric".into());
        }
        let mut puzzles: Vec<SlidingPuzzle> = Vec::new();
        // Tiles boards too large for a space (only their pattern databases are built).
        let mut large: Vec<(&String, LargeTiles)> = Vec::new();
        let mut stems: Vec<String> = Vec::new();
        for path in &c.puzzles {
            let text = section
                .read_file(path)
                .map_err(|e| e.within("[sliding] puzzles"))?;
            let file =
                read_puzzle_file(path, &text).map_err(|e| format!("[sliding] puzzles: {e}"))?;
            let stem = match &file {
                PuzzleFile::Sliding(p) => &p.stem,
                PuzzleFile::Large(t) => &t.stem,
            };
            if stems.contains(stem) {
                return Err(format!(
                    "[sliding] puzzles: two files are named {stem:?}: a space is named by its file"
                )
                .into());
            }
            stems.push(stem.clone());
            match file {
                PuzzleFile::Sliding(p) => puzzles.push(p),
                PuzzleFile::Large(t) if c.spaces => {
                    return Err(format!(
                        "[sliding] puzzles: {path}: {} cells of sliding tiles have {}!/2 \
                         positions, far beyond a space's 2^32: write spaces = false to build \
                         only its pattern databases",
                        t.board.cells(),
                        t.board.cells()
                    )
                    .into());
                }
                PuzzleFile::Large(t) => large.push((path, t)),
            }
        }
        huarong_core::driver::no_repeats("[sliding] metrics", &c.metrics)?;
        let mut metrics = Vec::new();
        for m in &c.metrics {
            let i = METRICS.iter().position(|x| x == m).ok_or_else(|| {
                format!("[sliding] metrics: unknown metric {m:?} (use step, straight, piece)")
            })?;
            metrics.push(i);
        }
        // Every sliding-tiles puzzle's databases; other puzzles have none.
        let patterns: Vec<Vec<Pattern>> = match &c.patterns {
            None | Some(Groups::Default(false)) => Vec::new(),
            Some(groups) => {
                let mut tiles: Vec<(TileBoard, &String)> = Vec::new();
                for (p, path) in puzzles.iter().zip(&c.puzzles) {
                    if crate::tiles::count(p).is_some() {
                        let board = TileBoard::new(p)
                            .map_err(|e| format!("[sliding] patterns: {path}: {e}"))?;
                        tiles.push((board, path));
                    }
                }
                tiles.extend(large.iter().map(|(path, t)| (t.board.clone(), *path)));
                if tiles.is_empty() {
                    return Err(
                        "[sliding] patterns: no puzzle of the section is sliding tiles \
                                (every piece 1×1 and told apart, one blank, no walls)"
                            .into(),
                    );
                }
                tiles
                    .into_iter()
                    .map(|(board, path)| {
                        patterns_of(&board, groups)
                            .map_err(|e| format!("[sliding] patterns: {path}: {e}"))
                    })
                    .collect::<Result<_, _>>()?
            }
        };
        // Two puzzles may share a database (same board and goal cells), not its folder.
        let mut seen: Vec<(String, u64)> = Vec::new();
        for p in patterns.iter().flatten() {
            let mut key = huarong_core::Fingerprint::new("pattern", 1);
            huarong_core::Abstraction::parameters(p, &mut key);
            let (id, fp) = (huarong_core::Abstraction::id(p), key.finish());
            match seen.iter().find(|(i, _)| *i == id) {
                Some((_, f)) if *f != fp => {
                    return Err(format!(
                        "[sliding] patterns: two puzzles ask for {id} with other goal cells; \
                         give them other groups or separate pipelines"
                    )
                    .into());
                }
                _ => seen.push((id, fp)),
            }
        }
        if !c.spaces && patterns.is_empty() {
            return Err("[sliding] spaces = false leaves nothing to build: add patterns".into());
        }
        Ok(Box::new(SlidingSection {
            puzzles,
            metrics,
            state_tables: c.state_tables,
            patterns,
            spaces: c.spaces,
        }))
    }

    fn solver(&self) -> Option<&dyn Solver> {
        Some(&PuzzleFileSolver)
    }
}

impl Section for SlidingSection {
    fn spaces(&self) -> Plan {
        let spaces = self
            .puzzles
            .iter()
            .map(|p| {
                let space = space_of(p);
                let start = space_code(Tiles::new(p).as_ref(), p.start)
                    .expect("the board is a position of its own space");
                let mut s = SpaceSpec::new(space, self.metrics.clone());
                s.tags = vec![("labeled", Value::Bool(p.labeled))];
                s.named = vec![("start".into(), start)];
                let tables = self.state_tables.unwrap_or_else(|| {
                    s.puzzle
                        .ranked_len()
                        .is_none_or(|n| n <= STATE_TABLES_UP_TO)
                });
                s.states_table = tables;
                s.components_table = tables;
                s
            })
            .collect();
        Plan {
            universes: Vec::new(),
            spaces: if self.spaces { spaces } else { Vec::new() },
            patterns: {
                let mut out: Vec<Box<dyn huarong_core::Abstraction>> = Vec::new();
                for p in self.patterns.iter().flatten() {
                    // The same database for two puzzles is built once.
                    if !out
                        .iter()
                        .any(|a| a.id() == huarong_core::Abstraction::id(p))
                    {
                        out.push(Box::new(p.clone()));
                    }
                }
                out
            },
            notes: self
                .puzzles
                .iter()
                .filter(|p| crate::tiles::reaches_goal(p, p.start) == Some(false))
                .map(|p| {
                    format!(
                        "unsolvable: {}: its board cannot reach the goal (the tiles' parity \
                         differs): no position of its space has a distance",
                        p.stem
                    )
                })
                .collect(),
        }
    }

    /// The board's own distance to the goal.
    fn answer(&self, space: &SpaceView<'_>, metric: usize) -> Option<u64> {
        let p = &self.puzzles[space.index];
        let start = space.index_of(space_code(Tiles::new(p).as_ref(), p.start)?)?;
        space.metrics[metric].distance(start).map(u64::from)
    }
}

/// `huarong solve --puzzle FILE` and `huarong render --puzzle FILE`.
#[derive(Debug)]
pub struct PuzzleFileSolver;

impl Solver for PuzzleFileSolver {
    fn accepts(&self, request: &SolveRequest<'_>) -> bool {
        request.puzzle.is_some()
    }

    fn reads(&self) -> &'static str {
        "a puzzle file (--puzzle puzzles/NAME.toml), and optionally a position of it"
    }

    fn instance(
        &self,
        request: &SolveRequest<'_>,
    ) -> Result<Box<dyn Instance>, huarong_core::InputError> {
        let (path, text) = request.puzzle.unwrap_or_default();
        let puzzle = match read_puzzle_file(path, text)? {
            PuzzleFile::Sliding(p) => p,
            PuzzleFile::Large(tiles) => {
                let start = match request.position {
                    Some(p) => tiles
                        .position(p)
                        .map_err(|e| format!("position {p:?}: {e}"))?,
                    None => tiles.start.clone(),
                };
                return Ok(Box::new(LargeInstance { tiles, start }));
            }
        };
        let start = match request.position {
            Some(p) => puzzle
                .position(p)
                .map_err(|e| format!("position {p:?}: {e}"))?,
            None => puzzle.start,
        };
        Ok(Box::new(PuzzleInstance::new(puzzle, start)))
    }
}

/// A sliding puzzle and the position to solve (its board unless given).
#[derive(Debug)]
pub struct PuzzleInstance {
    pub puzzle: SlidingPuzzle,
    pub start: u64,
    /// The ranked space of a tiles puzzle whose board reaches `start` (its tables are the
    /// pipeline's); `None` for other puzzles and for positions the board cannot reach.
    tiles: Option<Tiles>,
}

impl PuzzleInstance {
    pub fn new(puzzle: SlidingPuzzle, start: u64) -> Self {
        let tiles = Tiles::new(&puzzle).filter(|t| t.from_sliding(start).is_some());
        PuzzleInstance {
            puzzle,
            start,
            tiles,
        }
    }

    /// The shortest path (codes, start first) in metric `m`: down the tables when given,
    /// else a search of at most `limit` states.
    pub fn path(
        &self,
        m: usize,
        distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<Vec<u64>>, SolveError> {
        let Some(table) = distance else {
            // The tiles' parity says at once when no search can reach the goal.
            if crate::tiles::reaches_goal(&self.puzzle, self.start) == Some(false) {
                return Ok(None);
            }
            // Tiles beyond what a breadth-first search of `limit` states holds: IDA* over the
            // Manhattan distance (Korf 1985), at most `limit` nodes.
            if let Ok(board) = TileBoard::new(&self.puzzle)
                && crate::tiles::count(&self.puzzle).is_some_and(|n| n > limit)
            {
                return Ok(self.ida(&board, Vec::new(), m, limit)?.0);
            }
            return match search::solve(&self.puzzle, self.start, m, limit) {
                Outcome::Path(p) => Ok(Some(p)),
                Outcome::Unsolvable => Ok(None),
                Outcome::Limit(n) => Err(SolveError::Limit(n)),
            };
        };
        // The tables are the table space's: its codes of the puzzle's positions.
        let distance = |c: u64| space_code(self.tiles.as_ref(), c).and_then(table);
        let Some(mut d) = distance(self.start) else {
            return Ok(None);
        };
        let mut path = vec![self.start];
        let mut next = Vec::new();
        while d > 0 {
            next.clear();
            let here = *path.last().expect("the path starts non-empty");
            self.puzzle.successors(here, m, &mut next);
            let step = next
                .iter()
                .copied()
                .find(|&c| distance(c) == Some(d - 1))
                .expect("a state at distance d has a neighbour at d - 1");
            path.push(step);
            d -= 1;
        }
        Ok(Some(path))
    }
}

/// IDA* from tile `t` on `cells[t]` and the blank on `blank`, expanding at most `limit` nodes:
/// the blank's cells along an optimal path, and the nodes.
fn ida_path(
    heuristic: &Heuristic<'_>,
    cells: &[u8],
    blank: u8,
    limit: u64,
) -> Result<(Vec<u8>, Nodes), SolveError> {
    match ida::solve(heuristic, cells, blank, limit) {
        ida::Found::Path {
            blanks,
            nodes,
            generated,
        } => Ok((
            blanks,
            Nodes {
                expanded: nodes,
                generated,
            },
        )),
        ida::Found::Limit(n) => Err(SolveError::Nodes(n)),
    }
}

impl PuzzleInstance {
    /// An optimal path by IDA* over `databases` (and the Manhattan distance of the tiles they
    /// leave out), at most `limit` nodes; and the nodes expanded. The tiles' parity is checked
    /// first.
    fn ida(
        &self,
        board: &TileBoard,
        databases: Vec<(Pattern, Values<'_>)>,
        m: usize,
        limit: u64,
    ) -> Result<(Option<Vec<u64>>, Nodes), SolveError> {
        if crate::tiles::reaches_goal(&self.puzzle, self.start) == Some(false) {
            return Ok((None, Nodes::default()));
        }
        let heuristic = Heuristic::new(board, databases);
        let (cells, blank) = board.position(&self.puzzle, self.start);
        let (blanks, nodes) = ida_path(&heuristic, &cells, blank, limit)?;
        // The blank's path as positions: each step the successor with the blank there.
        let mut path = vec![self.start];
        let mut next = Vec::new();
        for &b in &blanks[1..] {
            let here = *path.last().expect("the path starts non-empty");
            next.clear();
            self.puzzle.successors(here, m, &mut next);
            let step = next
                .iter()
                .copied()
                .find(|&c| board.position(&self.puzzle, c).1 == b)
                .expect("the blank moves to a neighbouring cell");
            path.push(step);
        }
        Ok((Some(path), nodes))
    }

    fn solved_path(&self, path: Vec<u64>) -> SolvedPath {
        SolvedPath {
            layouts: path.iter().map(|&c| self.puzzle.render(c)).collect(),
            pictures: path.iter().map(|&c| self.puzzle.picture(c)).collect(),
        }
    }
}

impl Instance for PuzzleInstance {
    fn describe(&self) -> (&'static str, String) {
        ("puzzle", self.puzzle.name.clone())
    }

    fn start(&self) -> String {
        self.puzzle.render(self.start)
    }

    fn table_space(&self) -> Option<(&dyn Puzzle, u64)> {
        Some(match &self.tiles {
            Some(t) => (t, space_code(Some(t), self.start)?),
            None => (&self.puzzle, self.start),
        })
    }

    /// Piece moves (one piece moved any number of steps counts one), as Huarong Dao's.
    fn default_metric(&self) -> Option<&'static str> {
        Some(METRICS[2])
    }

    fn solve(
        &self,
        metric: &str,
        distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<SolvedPath>, SolveError> {
        let m = metric_index(&self.puzzle, metric)
            .ok_or_else(|| SolveError::Metric(metric.to_owned()))?;
        Ok(self.path(m, distance, limit)?.map(|p| self.solved_path(p)))
    }

    /// Sliding tiles of at most 64 cells: `pattern-<rows>x<cols>-`.
    fn pattern_prefix(&self) -> Option<String> {
        TileBoard::new(&self.puzzle)
            .ok()
            .map(|b| b.pattern_prefix())
    }

    fn abstraction(&self, id: &str) -> Option<Box<dyn huarong_core::Abstraction>> {
        let board = TileBoard::new(&self.puzzle).ok()?;
        let letters = id.strip_prefix(&board.pattern_prefix())?;
        Some(Box::new(Pattern::new(&board, letters).ok()?))
    }

    fn solve_informed(
        &self,
        metric: &str,
        databases: &[Database<'_>],
        limit: u64,
    ) -> Result<Informed, SolveError> {
        let m = metric_index(&self.puzzle, metric)
            .ok_or_else(|| SolveError::Metric(metric.to_owned()))?;
        let Ok(board) = TileBoard::new(&self.puzzle) else {
            return Ok(Informed {
                path: self.solve(metric, None, limit)?,
                nodes: None,
            });
        };
        let patterns = databases
            .iter()
            .filter_map(|d| {
                let letters = d.id.strip_prefix(&board.pattern_prefix())?;
                Some((Pattern::new(&board, letters).ok()?, d.values))
            })
            .collect();
        let (path, nodes) = self.ida(&board, patterns, m, limit)?;
        Ok(Informed {
            path: path.map(|p| self.solved_path(p)),
            nodes: Some(nodes),
        })
    }

    fn picture(&self) -> Picture {
        self.puzzle.picture(self.start)
    }

    fn moves(&self, metric: &str) -> Result<Vec<Step>, SolveError> {
        let m = metric_index(&self.puzzle, metric)
            .ok_or_else(|| SolveError::Metric(metric.to_owned()))?;
        let mut next = Vec::new();
        self.puzzle.successors(self.start, m, &mut next);
        Ok(next
            .into_iter()
            .map(|c| Step {
                position: self.puzzle.render(c),
                code: space_code(self.tiles.as_ref(), c),
                picture: self.puzzle.picture(c),
            })
            .collect())
    }
}

/// A position of sliding tiles too many for a code ([`LargeTiles`], the twenty-four puzzle):
/// solved by IDA* over its pattern databases (or the Manhattan distance), never from tables.
#[derive(Debug)]
pub struct LargeInstance {
    pub tiles: LargeTiles,
    pub start: Position,
}

impl LargeInstance {
    /// An optimal path by IDA* over `databases`, at most `limit` nodes; the nodes expanded.
    fn ida(
        &self,
        metric: &str,
        databases: Vec<(Pattern, Values<'_>)>,
        limit: u64,
    ) -> Result<(Option<SolvedPath>, Nodes), SolveError> {
        // One blank: every metric moves one tile one cell.
        if !METRICS.contains(&metric) {
            return Err(SolveError::Metric(metric.to_owned()));
        }
        if !self.tiles.solvable(&self.start) {
            return Ok((None, Nodes::default()));
        }
        let heuristic = Heuristic::new(&self.tiles.board, databases);
        let (blanks, nodes) = ida_path(&heuristic, &self.start.cells, self.start.blank, limit)?;
        let mut p = self.start.clone();
        let mut path = vec![p.clone()];
        for &b in &blanks[1..] {
            let t = p
                .cells
                .iter()
                .position(|&c| c == b)
                .expect("the blank moves onto a tile's cell");
            p.cells[t] = p.blank;
            p.blank = b;
            path.push(p.clone());
        }
        Ok((
            Some(SolvedPath {
                layouts: path.iter().map(|q| self.tiles.render(q)).collect(),
                pictures: path.iter().map(|q| self.tiles.picture(q)).collect(),
            }),
            nodes,
        ))
    }
}

impl Instance for LargeInstance {
    fn describe(&self) -> (&'static str, String) {
        ("puzzle", self.tiles.name.clone())
    }

    fn start(&self) -> String {
        self.tiles.render(&self.start)
    }

    fn table_space(&self) -> Option<(&dyn Puzzle, u64)> {
        None
    }

    /// One blank: every metric moves one tile one cell; named as the tiles' spaces name it.
    fn default_metric(&self) -> Option<&'static str> {
        Some(METRICS[0])
    }

    /// IDA* over the Manhattan distance (Korf 1985), at most `limit` nodes.
    fn solve(
        &self,
        metric: &str,
        _distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<SolvedPath>, SolveError> {
        Ok(self.ida(metric, Vec::new(), limit)?.0)
    }

    fn picture(&self) -> Picture {
        self.tiles.picture(&self.start)
    }

    fn pattern_prefix(&self) -> Option<String> {
        Some(self.tiles.board.pattern_prefix())
    }

    fn abstraction(&self, id: &str) -> Option<Box<dyn huarong_core::Abstraction>> {
        let letters = id.strip_prefix(&self.tiles.board.pattern_prefix())?;
        Some(Box::new(Pattern::new(&self.tiles.board, letters).ok()?))
    }

    fn solve_informed(
        &self,
        metric: &str,
        databases: &[Database<'_>],
        limit: u64,
    ) -> Result<Informed, SolveError> {
        let board = &self.tiles.board;
        let patterns = databases
            .iter()
            .filter_map(|d| {
                let letters = d.id.strip_prefix(&board.pattern_prefix())?;
                Some((Pattern::new(board, letters).ok()?, d.values))
            })
            .collect();
        let (path, nodes) = self.ida(metric, patterns, limit)?;
        Ok(Informed {
            path,
            nodes: Some(nodes),
        })
    }

    fn moves(&self, metric: &str) -> Result<Vec<Step>, SolveError> {
        if !METRICS.contains(&metric) {
            return Err(SolveError::Metric(metric.to_owned()));
        }
        Ok(self
            .tiles
            .moves(&self.start)
            .iter()
            .map(|p| Step {
                position: self.tiles.render(p),
                code: None,
                picture: self.tiles.picture(p),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(state_tables: &str) -> Vec<bool> {
        let text = format!(
            "[sliding]\npuzzles = [\"puzzles/eight.toml\", \"puzzles/eleven-4x3.toml\"]\n{state_tables}"
        );
        let read = |file: &str| std::fs::read_to_string(std::path::Path::new("../..").join(file));
        let input = SectionInput::new("sliding", &text, &read);
        let section = SlidingDriver.load(&input).unwrap();
        section
            .spaces()
            .spaces
            .iter()
            .map(|s| {
                assert_eq!(s.states_table, s.components_table);
                s.states_table
            })
            .collect()
    }

    /// Bad `patterns` and `spaces` are named: overlapping groups, an unknown tile, no tiles
    /// puzzle to build them for, nothing to build at all.
    #[test]
    fn bad_pattern_sections_are_named() {
        let files = |name: &str| match name {
            "five.toml" => Ok("name = \"f\"\nlabeled = true\nboard = \"123\\n45.\"\n\
                               goal = \"123\\n45.\"\n"
                .to_owned()),
            _ => Ok("name = \"p\"\nboard = \"AA.\\nB..\"\ngoal = \"...\\n.AA\"\n".to_owned()),
        };
        let load = |section: &str| {
            let input = SectionInput::new("sliding", section, &files);
            SlidingDriver
                .load(&input)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        let e = load("[sliding]\npuzzles = [\"five.toml\"]\npatterns = [\"12\", \"23\"]\n");
        assert!(
            e.contains("five.toml: group \"23\": tile '2' is in an earlier group"),
            "{e}"
        );
        let e = load("[sliding]\npuzzles = [\"five.toml\"]\npatterns = [\"16\"]\n");
        assert!(e.contains("no tile '6'"), "{e}");
        let e = load("[sliding]\npuzzles = [\"p.toml\"]\npatterns = true\n");
        assert!(
            e.contains("no puzzle of the section is sliding tiles"),
            "{e}"
        );
        let e = load("[sliding]\npuzzles = [\"five.toml\"]\nspaces = false\n");
        assert!(e.contains("leaves nothing to build"), "{e}");
    }

    /// A tiles board of the other parity than its goal is named unsolvable in the run's notes.
    #[test]
    fn an_unsolvable_board_is_noted() {
        let text = "[sliding]\npuzzles = [\"swapped.toml\"]\n";
        let read = |_: &str| {
            Ok(
                "name = \"s\"\nlabeled = true\nboard = \"213\\n45.\"\ngoal = \"123\\n45.\"\n"
                    .into(),
            )
        };
        let input = SectionInput::new("sliding", text, &read);
        let plan = SlidingDriver.load(&input).unwrap().spaces();
        assert_eq!(plan.notes.len(), 1);
        assert!(
            plan.notes[0].starts_with("unsolvable: swapped:"),
            "{:?}",
            plan.notes
        );
    }

    /// Per-position tables by default for the 8-puzzle (181,440 positions), not for the
    /// 11-puzzle (239,500,800 > 50,000,000); as written when the section says.
    #[test]
    fn state_tables_default_by_size() {
        assert_eq!(plan(""), [true, false]);
        assert_eq!(plan("state_tables = true\n"), [true, true]);
        assert_eq!(plan("state_tables = false\n"), [false, false]);
    }
}
