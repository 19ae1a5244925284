//! Huarong Dao in the pipeline: the `[huarong]` section (piece sets, unlabeled and labeled
//! spaces, metrics), the records of the named layouts, the farthest and the hardest positions.

use huarong_core::driver::SectionError;
use huarong_core::driver::{
    Driver, FARTHEST_CAP, Plan, Record, Section, SectionInput, SpaceSpec, SpaceView, StateKey,
};
use huarong_core::table::Value;
use rayon::prelude::*;
use serde::Deserialize;

use huarong_core::Table;
use huarong_core::driver::SummaryColumn;

use crate::{Labeled, Metric, PieceSet, Unlabeled, named};

/// The registry entry.
#[derive(Debug)]
pub struct HuarongDriver;

/// Which spaces of a piece set to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpaceKind {
    Unlabeled,
    Labeled,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Config {
    piece_sets: Vec<String>,
    spaces: Vec<SpaceKind>,
    metrics: Vec<String>,
    #[serde(default = "yes")]
    state_tables: bool,
}

fn yes() -> bool {
    true
}

/// A validated `[huarong]` section.
#[derive(Debug, Clone)]
pub struct HuarongSection {
    pub piece_sets: Vec<PieceSet>,
    pub spaces: Vec<SpaceKind>,
    pub metrics: Vec<Metric>,
    /// Write `states-<space>.parquet` and `components-<space>.parquet`; the universe turns them
    /// off and keeps the distributions.
    pub state_tables: bool,
}

impl Driver for HuarongDriver {
    fn name(&self) -> &'static str {
        "huarong"
    }

    fn about(&self) -> &'static str {
        "Huarong Dao (华容道, Klotski): a 2x2 Cao Cao, 2x1 and 1x2 generals, 1x1 soldiers on a 4x5 board"
    }

    fn notation(&self) -> &'static str {
        "five rows of four from C H V S . joined by '/', e.g. VCCV/VCCV/VHHV/VSSV/S..S; labeled: \
         H-N horizontal, 1-7 vertical, a-n soldiers, e.g. 1CC2/1CC2/3HH4/3ab4/c..d"
    }

    fn example(&self) -> &'static str {
        "[huarong]\n\
         piece_sets = [\"h1v4s4\"]  # h<horizontal>v<vertical>s<soldiers> each, or \"all\"\n\
         spaces = [\"unlabeled\", \"labeled\"]\n\
         metrics = [\"step\", \"straight\", \"piece\"]\n\
         state_tables = true      # per-position states/components tables\n"
    }

    fn load(&self, section: &SectionInput<'_>) -> Result<Box<dyn Section>, SectionError> {
        let h: Config = section.deserialize()?;
        if h.piece_sets.is_empty() || h.spaces.is_empty() || h.metrics.is_empty() {
            return Err("[huarong] needs at least one piece set, space and metric".into());
        }
        huarong_core::driver::no_repeats("[huarong] piece_sets", &h.piece_sets)?;
        huarong_core::driver::no_repeats("[huarong] spaces", &h.spaces)?;
        huarong_core::driver::no_repeats("[huarong] metrics", &h.metrics)?;
        let mut piece_sets = Vec::new();
        for s in &h.piece_sets {
            if s == "all" {
                // Every valid piece set (204; the one without positions is skipped).
                piece_sets.extend(PieceSet::all());
            } else {
                piece_sets.push(
                    s.parse::<PieceSet>()
                        .map_err(|e| format!("[huarong] piece_sets: {e}"))?,
                );
            }
        }
        let metrics = h
            .metrics
            .iter()
            .map(|m| {
                Metric::from_name(m).ok_or_else(|| {
                    format!("[huarong] metrics: unknown metric {m:?} (use step, straight, piece)")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(HuarongSection {
            // "all" beside a named set names it twice: one space each.
            piece_sets: dedup(piece_sets),
            spaces: h.spaces,
            metrics,
            state_tables: h.state_tables,
        }))
    }

    fn solver(&self) -> Option<&dyn huarong_core::driver::Solver> {
        Some(&LayoutSolver)
    }
}

fn dedup<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// The piece set of a named layout.
fn named_set(layout: &str) -> PieceSet {
    crate::parse(layout)
        .expect("named layouts parse")
        .board
        .piece_set()
}

impl HuarongSection {
    fn spec(
        &self,
        puzzle: Box<dyn huarong_core::Puzzle>,
        set: PieceSet,
        labeled: bool,
    ) -> SpaceSpec {
        let mut s = SpaceSpec::new(puzzle, self.metrics.iter().map(|&m| m as usize).collect());
        s.tags = vec![
            ("piece_set", Value::Str(set.to_string())),
            ("labeled", Value::Bool(labeled)),
        ];
        s.states_table = self.state_tables;
        s.components_table = self.state_tables;
        s
    }

    /// The piece sets the run measures (with positions), in the section's order.
    fn ran_sets(spaces: &[SpaceView<'_>]) -> Vec<PieceSet> {
        let mut sets = Vec::new();
        for s in spaces.iter().filter(|s| s.spec.summary) {
            let set = set_of(s);
            if !sets.contains(&set) {
                sets.push(set);
            }
        }
        sets
    }
}

fn set_of(space: &SpaceView<'_>) -> PieceSet {
    match space.spec.tag("piece_set") {
        Some(Value::Str(s)) => s.parse().expect("a piece set this section wrote"),
        _ => unreachable!("every Huarong Dao space has a piece set"),
    }
}

fn is_unlabeled(space: &SpaceView<'_>) -> bool {
    space.spec.tag("labeled") == Some(&Value::Bool(false))
}

impl Section for HuarongSection {
    /// Per piece set with positions, its unlabeled and labeled spaces as asked; then the
    /// unlabeled spaces the records need that the run does not build (named layouts of other
    /// piece sets, or of a set run labeled only).
    fn spaces(&self) -> Plan {
        let bases: Vec<Unlabeled> = self
            .piece_sets
            .par_iter()
            .map(|&s| Unlabeled::new(s))
            .collect();
        let mut plan = Plan::default();
        let mut unlabeled_sets = Vec::new();
        let mut ran = Vec::new();
        for base in bases {
            let set = base.piece_set();
            if base.is_empty() {
                plan.notes.push(format!("{set}: no positions: skipped"));
                continue;
            }
            ran.push(set);
            // The last space of the set takes the base; the others copy its codes.
            let mut base = Some(base);
            for (k, &kind) in self.spaces.iter().enumerate() {
                let base = if k + 1 == self.spaces.len() {
                    base.take().expect("taken by the last space only")
                } else {
                    base.clone().expect("taken by the last space only")
                };
                match kind {
                    SpaceKind::Unlabeled => {
                        unlabeled_sets.push(set);
                        let mut s = self.spec(Box::new(base), set, false);
                        s.code_columns = vec![
                            ("common_code", crate::codes::common_text),
                            ("short_code", crate::codes::short_text),
                        ];
                        plan.spaces.push(s);
                    }
                    SpaceKind::Labeled => match Labeled::over(base) {
                        Ok(l) => {
                            let per = l.per_canonical() as u64;
                            let mut s = self.spec(Box::new(l), set, true);
                            s.key = StateKey::Block {
                                name: "canonical",
                                per,
                            };
                            plan.spaces.push(s);
                        }
                        Err(e) => plan
                            .notes
                            .push(format!("{set}: labeled space skipped: {e}")),
                    },
                }
            }
        }
        // The database needs, beside each set's unlabeled space, the sets one piece fewer.
        if !self.spaces.contains(&SpaceKind::Unlabeled) {
            plan.notes.push(
                "the Klotski database (klotski_puzzles.parquet) is not written: it is read off \
                 the unlabeled spaces (add \"unlabeled\" to spaces)"
                    .into(),
            );
        } else {
            let missing = crate::database::missing_below(&ran);
            if !missing.is_empty() {
                let names: Vec<String> = missing.iter().map(|s| s.to_string()).collect();
                plan.notes.push(format!(
                    "the Klotski database (klotski_puzzles.parquet) is not written: it needs \
                     every piece set one piece smaller than a set run, and this pipeline does \
                     not run {} (pipelines/klotski-universe.toml runs all 203)",
                    if names.len() > 6 {
                        format!("{}, ... ({} sets)", names[..6].join(", "), names.len())
                    } else {
                        names.join(", ")
                    }
                ));
            }
        }
        let mut record_sets = ran;
        for (_, layout) in named::LAYOUTS {
            let set = named_set(layout);
            if !record_sets.contains(&set) {
                record_sets.push(set);
            }
        }
        for set in record_sets {
            if !unlabeled_sets.contains(&set) {
                let mut s = self.spec(Box::new(Unlabeled::new(set)), set, false);
                s.summary = false;
                s.states_table = false;
                s.components_table = false;
                plan.spaces.push(s);
            }
        }
        plan
    }

    /// The named layouts (in every metric), the farthest positions of every piece set the run
    /// measured, and over several piece sets the `hardest` positions of them all; all read off
    /// the unlabeled spaces.
    fn records(&self, spaces: &[SpaceView<'_>]) -> Vec<Record> {
        let unlabeled_of = |set: PieceSet| {
            spaces
                .iter()
                .find(|s| is_unlabeled(s) && set_of(s) == set)
                .expect("the plan has the unlabeled space of every record's piece set")
        };
        let mut records = Vec::new();
        for (name, layout) in named::LAYOUTS {
            let board = crate::parse(layout).expect("named layouts parse").board;
            let u = unlabeled_of(board.piece_set());
            let state = u.index_of(board.code()).expect("a layout is in its space");
            for metric in 0..u.metrics.len() {
                records.push(Record {
                    name: (*name).to_owned(),
                    space: u.index,
                    metric,
                    state,
                });
            }
        }
        let sets = Self::ran_sets(spaces);
        // Per piece set and metric, the farthest states (one pass each, the sets side by side).
        let far: Vec<(&SpaceView<'_>, Vec<Vec<u32>>)> = sets
            .par_iter()
            .map(|&set| {
                let u = unlabeled_of(set);
                (u, u.metrics.iter().map(|m| m.farthest()).collect())
            })
            .collect();
        for (u, per_metric) in &far {
            for (metric, states) in per_metric.iter().enumerate() {
                for &state in states.iter().take(FARTHEST_CAP) {
                    records.push(Record {
                        name: "farthest".to_owned(),
                        space: u.index,
                        metric,
                        state,
                    });
                }
            }
        }
        if sets.len() > 1 {
            for metric in 0..self.metrics.len() {
                // A set's largest distance is that of its farthest states (0 if none).
                let at_max = |(u, per_metric): &(&SpaceView<'_>, Vec<Vec<u32>>)| {
                    per_metric[metric]
                        .first()
                        .and_then(|&i| u.metrics[metric].distance(i))
                        .unwrap_or(0)
                };
                let Some(max) = far.iter().map(at_max).max() else {
                    continue;
                };
                let hardest = far
                    .iter()
                    .filter(|f| at_max(f) == max)
                    .flat_map(|(u, per_metric)| {
                        per_metric[metric].iter().map(|&state| Record {
                            name: "hardest".to_owned(),
                            space: u.index,
                            metric,
                            state,
                        })
                    })
                    .take(FARTHEST_CAP);
                records.extend(hardest);
            }
        }
        records
    }

    /// With every piece set one piece fewer in the run: `klotski_puzzles.parquet` (the
    /// database: every solvable cluster's minimal puzzle), `klotski_moves.parquet` (per metric,
    /// piece set and number of moves: solvable clusters and minimal puzzles), and the summary's
    /// `solvable_clusters` and `minimal_puzzles`.
    fn extras(&self, spaces: &[SpaceView<'_>]) -> huarong_core::driver::Extras {
        let Some(db) = self.database(spaces) else {
            return huarong_core::driver::Extras::default();
        };
        let metric = |m: usize| self.metrics[m].name().to_owned();
        let rows: Vec<&crate::database::Puzzle> = db.rows.iter().filter(|p| p.minimal).collect();
        let puzzles = Table::new()
            .str("metric", rows.iter().map(|p| metric(p.metric)).collect())
            .str(
                "piece_set",
                rows.iter().map(|p| p.set.to_string()).collect(),
            )
            .u32("moves", rows.iter().map(|p| p.moves).collect())
            .str(
                "layout",
                rows.iter()
                    .map(|p| {
                        crate::render(&crate::Board::from_code(p.code, p.set).expect("a code"))
                    })
                    .collect(),
            )
            .str(
                "common_code",
                rows.iter()
                    .map(|p| crate::codes::common_text(p.code))
                    .collect(),
            )
            .str(
                "short_code",
                rows.iter()
                    .map(|p| crate::codes::short_text(p.code))
                    .collect(),
            )
            .u64(
                "cluster_size",
                rows.iter().map(|p| p.cluster_size).collect(),
            )
            .u64(
                "goals_in_cluster",
                rows.iter().map(|p| p.goals_in_cluster).collect(),
            );
        // Per metric, piece set and moves: the solvable clusters and the minimal puzzles.
        let mut moves: std::collections::BTreeMap<(usize, PieceSet, u32), (u64, u64)> =
            Default::default();
        for p in &db.rows {
            let e = moves.entry((p.metric, p.set, p.moves)).or_default();
            e.0 += 1;
            e.1 += p.minimal as u64;
        }
        let keys: Vec<&(usize, PieceSet, u32)> = moves.keys().collect();
        let totals = Table::new()
            .str("metric", keys.iter().map(|k| metric(k.0)).collect())
            .str("piece_set", keys.iter().map(|k| k.1.to_string()).collect())
            .u32("moves", keys.iter().map(|k| k.2).collect())
            .u64("solvable_clusters", moves.values().map(|v| v.0).collect())
            .u64("minimal_puzzles", moves.values().map(|v| v.1).collect());
        huarong_core::driver::Extras {
            tables: vec![
                ("klotski_puzzles.parquet".into(), puzzles),
                ("klotski_moves.parquet".into(), totals),
            ],
            summary: vec![
                SummaryColumn {
                    name: "solvable_clusters",
                    values: db.counts.iter().map(|&(key, n, _)| (key, n)).collect(),
                },
                SummaryColumn {
                    name: "minimal_puzzles",
                    values: db.counts.iter().map(|&(key, _, n)| (key, n)).collect(),
                },
            ],
        }
    }
}

impl HuarongSection {
    /// The database of every solvable cluster's puzzle ([`crate::database`]), if the run's
    /// unlabeled spaces are closed under removing a piece: its rows (minimal puzzles only) and
    /// per piece set and metric the solvable clusters and the minimal puzzles.
    fn database(&self, spaces: &[SpaceView<'_>]) -> Option<Database> {
        let unlabeled: Vec<(&SpaceView<'_>, PieceSet)> = spaces
            .iter()
            .filter(|s| s.spec.summary && is_unlabeled(s))
            .map(|s| (s, set_of(s)))
            .collect();
        let sets: Vec<PieceSet> = unlabeled.iter().map(|(_, s)| *s).collect();
        if sets.is_empty() || !crate::database::missing_below(&sets).is_empty() {
            return None;
        }
        let index: Vec<usize> = unlabeled.iter().map(|(v, _)| v.index).collect();
        let all = crate::database::Spaces::new(unlabeled);
        let per: Vec<(usize, usize, Vec<crate::database::Puzzle>)> = (0..sets.len())
            .flat_map(|k| (0..self.metrics.len()).map(move |m| (k, m)))
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(k, m)| (k, m, all.puzzles(sets[k], m)))
            .collect();
        let mut rows = Vec::new();
        let mut counts = Vec::new();
        for (k, m, puzzles) in per {
            let minimal = puzzles.iter().filter(|p| p.minimal).count() as u64;
            counts.push(((index[k], m), puzzles.len() as u64, minimal));
            rows.extend(puzzles);
        }
        // Most moves first, then by metric (in the section's order), piece set and CommonCode.
        rows.sort_by_key(|p| {
            (
                std::cmp::Reverse(p.moves),
                p.metric,
                p.set,
                crate::codes::from_compact(p.code),
            )
        });
        Some(Database { rows, counts })
    }
}

/// The database as the export writes it.
struct Database {
    /// Every solvable cluster's puzzle, minimal or not, in the database's order.
    rows: Vec<crate::database::Puzzle>,
    /// Per (space index, metric): solvable clusters, minimal puzzles.
    counts: Vec<((usize, usize), u64, u64)>,
}

/// `huarong solve LAYOUT` and `huarong render LAYOUT`: a Huarong Dao layout, Cao Cao to the
/// exit — or, with `--goal ROW,COL`, to that place (solved as a sliding-block puzzle).
#[derive(Debug)]
pub struct LayoutSolver;

impl huarong_core::driver::Solver for LayoutSolver {
    fn accepts(&self, request: &huarong_core::driver::SolveRequest<'_>) -> bool {
        // A layout's rows (joined by '/' or written one a line), or a code's shape.
        request.puzzle.is_none()
            && request.position.is_some_and(|text| {
                text.trim().contains(['/', '\n']) || crate::codes::read(text).is_some()
            })
    }

    fn reads(&self) -> &'static str {
        "a Huarong Dao layout (five rows of four cells joined by '/', e.g. \
         VCCV/VCCV/VHHV/VSSV/S..S), a CommonCode (hexadecimal) or a ShortCode (5 characters)"
    }

    fn named(&self) -> Vec<(&'static str, &'static str)> {
        named::LAYOUTS.to_vec()
    }

    fn instance(
        &self,
        request: &huarong_core::driver::SolveRequest<'_>,
    ) -> Result<Box<dyn huarong_core::driver::Instance>, huarong_core::InputError> {
        let text = request.position.unwrap_or_default();
        let parsed = crate::codes::read_layout(text)?;
        if let Some(goal) = request.goal {
            let goal = parse_goal(goal)?;
            return Ok(Box::new(crate::goal::GoalInstance::new(
                &parsed.board,
                parsed.labeled,
                goal,
            )?));
        }
        Ok(Box::new(LayoutInstance {
            space: shared_space(parsed.board.piece_set()),
            board: parsed.board,
            labeled: parsed.labeled,
        }))
    }
}

/// `ROW,COL`: Cao Cao's top-left cell at the goal.
fn parse_goal(text: &str) -> Result<(usize, usize), String> {
    let (r, c) = text
        .split_once(',')
        .ok_or_else(|| format!("goal {text:?}: expected ROW,COL, e.g. 3,1"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("goal {text:?}: {t:?} is not a row or column number"))
    };
    Ok((num(r)?, num(c)?))
}

/// The unlabeled space of a piece set, enumerated once per process (a layout request is
/// answered in microseconds; enumerating its space takes a millisecond).
fn shared_space(set: PieceSet) -> std::sync::Arc<Unlabeled> {
    static SPACES: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<PieceSet, std::sync::Arc<Unlabeled>>>,
    > = std::sync::LazyLock::new(Default::default);
    SPACES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(set)
        .or_insert_with(|| std::sync::Arc::new(Unlabeled::new(set)))
        .clone()
}

/// One layout to solve, with the unlabeled space whose tables hold its distance.
struct LayoutInstance {
    board: crate::Board,
    labeled: bool,
    space: std::sync::Arc<Unlabeled>,
}

impl LayoutInstance {
    fn render(&self, b: &crate::Board) -> String {
        if self.labeled {
            crate::render_labeled(b)
        } else {
            crate::render(b)
        }
    }
}

impl huarong_core::driver::Instance for LayoutInstance {
    fn describe(&self) -> (&'static str, String) {
        ("layout", self.start())
    }

    fn start(&self) -> String {
        self.render(&self.board)
    }

    fn table_space(&self) -> Option<(&dyn huarong_core::Puzzle, u64)> {
        Some((&*self.space, self.board.code()))
    }

    /// Piece moves: the metric records and puzzle collections count in.
    fn default_metric(&self) -> Option<&'static str> {
        Some(Metric::Piece.name())
    }

    /// Descends the unlabeled tables (a labeled board moves with its labels), or searches cold,
    /// keeping at most `limit` positions.
    fn solve(
        &self,
        metric: &str,
        distance: Option<&dyn Fn(u64) -> Option<u16>>,
        limit: u64,
    ) -> Result<Option<huarong_core::driver::SolvedPath>, huarong_core::driver::SolveError> {
        let m = Metric::from_name(metric)
            .ok_or_else(|| huarong_core::driver::SolveError::Metric(metric.to_owned()))?;
        let path = match distance {
            None => crate::solve::solve_within(&self.board, m, limit)
                .map_err(|e| huarong_core::driver::SolveError::Limit(e.0))?,
            Some(distance) => {
                let at = |b: &crate::Board| distance(b.code());
                at(&self.board).map(|mut d| {
                    let mut path = vec![self.board];
                    while d > 0 {
                        let here = path.last().expect("the path starts non-empty");
                        let next = here
                            .successor_where(m, |b| at(b) == Some(d - 1))
                            .expect("a state at distance d has a neighbour at d - 1");
                        path.push(next);
                        d -= 1;
                    }
                    path
                })
            }
        };
        Ok(path.map(|p| huarong_core::driver::SolvedPath {
            layouts: p.iter().map(|b| self.render(b)).collect(),
            pictures: p.iter().map(|b| crate::picture(b, self.labeled)).collect(),
        }))
    }

    fn picture(&self) -> huarong_core::picture::Picture {
        crate::picture(&self.board, self.labeled)
    }

    fn codes(&self) -> Vec<(&'static str, String)> {
        let (common, short) = crate::codes::codes(&self.board);
        vec![("common_code", common), ("short_code", short)]
    }

    /// The moves of the board itself, so a labeled layout keeps its labels.
    fn moves(
        &self,
        metric: &str,
    ) -> Result<Vec<huarong_core::driver::Step>, huarong_core::driver::SolveError> {
        let m = Metric::from_name(metric)
            .ok_or_else(|| huarong_core::driver::SolveError::Metric(metric.to_owned()))?;
        let mut moves = Vec::new();
        self.board.moves(m, &mut moves);
        Ok(moves
            .iter()
            .map(|mv| {
                let b = self.board.apply(mv);
                huarong_core::driver::Step {
                    position: self.render(&b),
                    code: Some(b.code()),
                    picture: crate::picture(&b, self.labeled),
                }
            })
            .collect())
    }
}
