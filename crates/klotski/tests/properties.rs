//! Property tests of the Huarong Dao model: rankings, moves, mirror and notation.

use huarong_core::{IndexedMoves, Puzzle, Ranking};
use klotski::{Board, Labeled, Metric, PieceSet, Unlabeled, parse, render, render_labeled};
use proptest::prelude::*;
use std::sync::OnceLock;

/// Piece sets used by the properties: the classic one and a few others of varied shape.
fn sets() -> &'static [(Unlabeled, Labeled)] {
    static SETS: OnceLock<Vec<(Unlabeled, Labeled)>> = OnceLock::new();
    SETS.get_or_init(|| {
        ["h1v4s4", "h2v3s2", "h0v5s2", "h4v1s2", "h1v1s2", "h5v0s4"]
            .iter()
            .map(|s| {
                let set: PieceSet = s.parse().unwrap();
                (Unlabeled::new(set), Labeled::new(set).unwrap())
            })
            .collect()
    })
}

fn lookup_of<P: Ranking>(p: &P) -> impl Fn(u64) -> Option<u32> + Sync + '_ {
    move |c| p.rank(c).map(|i| i as u32)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn unlabeled_rank_round_trips(set in 0..6usize, x in any::<u64>()) {
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        let i = x % u.len() as u64;
        let code = u.unrank(i);
        prop_assert_eq!(u.rank(code), Some(i));
        let board = Board::from_code(code, u.piece_set()).unwrap();
        prop_assert_eq!(board.code(), code);
        prop_assert_eq!(board.piece_set(), u.piece_set());
    }

    #[test]
    fn labeled_rank_round_trips(set in 0..6usize, x in any::<u64>()) {
        let (_, l) = &sets()[set];
        prop_assume!(!l.is_empty());
        let i = x % l.len();
        let code = l.unrank(i);
        prop_assert_eq!(l.rank(code), Some(i));
        let board = l.board_of(code).unwrap();
        prop_assert_eq!(l.code_of(&board), code);
        prop_assert_eq!(l.canonical_index(i) as u64, l.base().rank(board.code()).unwrap());
    }

    #[test]
    fn moves_are_reversible(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        let (u, l) = &sets()[set];
        prop_assume!(!u.is_empty());
        let code = l.unrank(x % l.len());
        let board = l.board_of(code).unwrap();
        let metric = Metric::from_index(metric);
        let mut moves = Vec::new();
        board.moves(metric, &mut moves);
        for mv in &moves {
            let next = board.apply(mv);
            prop_assert_eq!(next.piece_set(), board.piece_set());
            let mut back = Vec::new();
            next.moves(metric, &mut back);
            prop_assert!(back.iter().any(|b| next.apply(b) == board),
                "{:?} --{:?}--> {:?} has no way back", board, mv, next);
        }
    }

    #[test]
    fn mirror_maps_moves_to_moves_and_goals_to_goals(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        let (u, l) = &sets()[set];
        prop_assume!(!u.is_empty());
        let board = l.board_of(l.unrank(x % l.len())).unwrap();
        let m = board.mirror();
        prop_assert_eq!(m.mirror(), board);
        prop_assert_eq!(m.is_goal(), board.is_goal());
        let metric = Metric::from_index(metric);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        board.moves(metric, &mut a);
        m.moves(metric, &mut b);
        let mut mirrored: Vec<Board> = a.iter().map(|mv| board.apply(mv).mirror()).collect();
        let mut direct: Vec<Board> = b.iter().map(|mv| m.apply(mv)).collect();
        mirrored.sort_by_key(render_labeled);
        direct.sort_by_key(render_labeled);
        prop_assert_eq!(mirrored, direct);
    }

    #[test]
    fn notation_round_trips(set in 0..6usize, x in any::<u64>()) {
        let (u, l) = &sets()[set];
        prop_assume!(!u.is_empty());
        let board = l.board_of(l.unrank(x % l.len())).unwrap();
        let labeled = parse(&render_labeled(&board)).unwrap();
        prop_assert_eq!(labeled.board, board);
        let plain = parse(&render(&board)).unwrap();
        prop_assert!(!plain.labeled);
        prop_assert_eq!(plain.board, board.unlabeled());
    }

    #[test]
    fn labeled_fast_neighbours_match_the_generic_ones(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        let (_, l) = &sets()[set];
        prop_assume!(!l.is_empty());
        let i = x % l.len();
        let code = l.unrank(i);
        let lookup = lookup_of(l);
        let mut fast = Vec::new();
        l.neighbor_indices(i, code, metric, &lookup, &mut fast);
        // The plain board model (cells and labels, `Board::moves`), not the bitboards.
        let board = l.board_of(code).unwrap();
        let mut moves = Vec::new();
        board.moves(Metric::from_index(metric), &mut moves);
        let mut slow: Vec<u32> = moves
            .iter()
            .map(|mv| l.rank(l.code_of(&board.apply(mv))).unwrap() as u32)
            .collect();
        fast.sort_unstable();
        slow.sort_unstable();
        slow.dedup();
        prop_assert_eq!(l.distinct_degree(i, code, metric), Some(slow.len()));
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn unlabeled_fast_neighbours_match_the_generic_ones(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        let i = x % u.len() as u64;
        let code = u.unrank(i);
        let lookup = lookup_of(u);
        let mut fast = Vec::new();
        u.neighbor_indices(i, code, metric, &lookup, &mut fast);
        // The plain board model, not the bitboards; as sets (the orders differ).
        let board = u.board(i as u32);
        let mut moves = Vec::new();
        board.moves(Metric::from_index(metric), &mut moves);
        let mut slow: Vec<u32> = moves
            .iter()
            .map(|mv| u.index_of_board(&board.apply(mv)).unwrap())
            .collect();
        slow.sort_unstable();
        slow.dedup();
        let mut fast_set = fast.clone();
        fast_set.sort_unstable();
        prop_assert_eq!(fast.len(), fast_set.len(), "a neighbour listed twice");
        prop_assert_eq!(fast_set, slow);
    }

    /// Neighbours in several metrics at once (each successor generated and ranked once) are,
    /// per metric, those of the one-metric path, as sets; each metric subset is tried.
    #[test]
    fn unlabeled_neighbours_in_several_metrics_match_one_at_a_time(set in 0..6usize, x in any::<u64>(), wanted in 1..8u8) {
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        let i = x % u.len() as u64;
        let code = u.unrank(i);
        let lookup = lookup_of(u);
        let metrics: Vec<usize> = (0..3).filter(|m| wanted >> m & 1 == 1).collect();
        let mut outs = vec![Vec::new(); metrics.len()];
        u.neighbor_indices_in(i, code, &metrics, &lookup, &mut outs);
        for (k, &m) in metrics.iter().enumerate() {
            let mut one = Vec::new();
            u.neighbor_indices(i, code, m, &lookup, &mut one);
            one.sort_unstable();
            let mut many = outs[k].clone();
            many.sort_unstable();
            prop_assert_eq!(many, one, "metric {}", m);
        }
    }

    /// Only the neighbours that lead up in the ranking (what the graph stage mirrors, since
    /// `ranks_above` says ranks follow codes) are exactly the several-metric lists' entries
    /// above the state, in the same order: sorted and distinct.
    #[test]
    fn unlabeled_neighbours_above_are_the_larger_ranks(set in 0..6usize, x in any::<u64>(), wanted in 1..8u8) {
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        prop_assert!(u.ranks_above() && !u.directed());
        let i = x % u.len() as u64;
        let code = u.unrank(i);
        let lookup = lookup_of(u);
        let metrics: Vec<usize> = (0..3).filter(|m| wanted >> m & 1 == 1).collect();
        let mut all = vec![Vec::new(); metrics.len()];
        u.neighbor_indices_in(i, code, &metrics, &lookup, &mut all);
        let mut above = vec![Vec::new(); metrics.len()];
        u.neighbor_indices_above_in(i, code, &metrics, &lookup, &mut above);
        for (k, &m) in metrics.iter().enumerate() {
            prop_assert!(all[k].windows(2).all(|w| w[0] < w[1]), "metric {} not sorted", m);
            let larger: Vec<u32> = all[k].iter().copied().filter(|&v| v as u64 > i).collect();
            prop_assert_eq!(&above[k], &larger, "metric {}", m);
            // The trait's default filter, over the one-metric lists, agrees.
            let mut one = Vec::new();
            u.neighbor_indices_above(i, code, m, &lookup, &mut one);
            one.sort_unstable();
            prop_assert_eq!(&one, &larger, "metric {}", m);
        }
    }

    /// The bitboard move generator agrees with the board one, move for move.
    #[test]
    fn bitboard_moves_match_board_moves(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        use klotski::bits::Bits;
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        let board = Board::from_code(u.unrank(x % u.len() as u64), u.piece_set()).unwrap();
        let metric = Metric::from_index(metric);
        let bits = Bits::from_board(&board);
        prop_assert_eq!(bits.board(), board);
        prop_assert_eq!(bits.is_goal(), board.is_goal());
        let mut fast = Vec::new();
        bits.successors(metric, &mut fast);
        let mut fast: Vec<u64> = fast.iter().map(|b| b.board().code()).collect();
        let mut moves = Vec::new();
        board.moves(metric, &mut moves);
        let mut slow: Vec<u64> = moves.iter().map(|m| board.apply(m).code()).collect();
        fast.sort_unstable();
        slow.sort_unstable();
        prop_assert_eq!(fast, slow);
    }

    /// The unlabeled space's successors (bitboards straight from and to compact codes) are the
    /// board model's moves, and codes round-trip through bitboards.
    #[test]
    fn unlabeled_successors_match_board_moves(set in 0..6usize, x in any::<u64>(), metric in 0..3usize) {
        use klotski::bits::Bits;
        let (u, _) = &sets()[set];
        prop_assume!(!u.is_empty());
        let code = u.unrank(x % u.len() as u64);
        prop_assert_eq!(Bits::from_code(code).code(), code);
        let board = Board::from_code(code, u.piece_set()).unwrap();
        prop_assert_eq!(Bits::from_code(code), Bits::from_board(&board));
        let mut fast = Vec::new();
        u.successors(code, metric, &mut fast);
        let mut moves = Vec::new();
        board.moves(Metric::from_index(metric), &mut moves);
        let mut slow: Vec<u64> = moves.iter().map(|m| board.apply(m).code()).collect();
        fast.sort_unstable();
        slow.sort_unstable();
        prop_assert_eq!(fast, slow);
    }

    /// Arbitrary strings never panic the parser.
    #[test]
    fn parser_never_panics(s in "[CHVS.a-z1-9/\n]{0,40}") {
        let _ = parse(&s);
    }
}

#[test]
fn classic_counts() {
    let u = Unlabeled::new(PieceSet::CLASSIC);
    assert_eq!(u.len(), 65_880);
    let l = Labeled::over(u).unwrap();
    assert_eq!(l.len(), 37_946_880);
    assert_eq!(l.per_canonical(), 576);
}

#[test]
fn goal_test_matches_board() {
    let u = Unlabeled::new(PieceSet::CLASSIC);
    for &code in u.codes().iter().step_by(97) {
        let b = Board::from_code(code, u.piece_set()).unwrap();
        assert_eq!(u.is_goal(code), b.is_goal());
    }
    let goal = parse("VSSV/VHHV/S..S/VCCV/VCCV").unwrap().board;
    assert!(goal.is_goal());
    assert!(u.is_goal(goal.code()));
}

#[test]
fn metrics_nest() {
    // Every step move is a straight move, every straight move a piece move.
    let u = Unlabeled::new(PieceSet::CLASSIC);
    for &code in u.codes().iter().step_by(13) {
        let mut sets: Vec<Vec<u64>> = Vec::new();
        for m in 0..3 {
            let mut out = Vec::new();
            u.successors(code, m, &mut out);
            out.sort_unstable();
            sets.push(out);
        }
        assert!(sets[0].iter().all(|c| sets[1].binary_search(c).is_ok()));
        assert!(sets[1].iter().all(|c| sets[2].binary_search(c).is_ok()));
    }
}

#[test]
fn all_piece_sets() {
    let all = PieceSet::all();
    assert!(all.contains(&PieceSet::CLASSIC));
    assert!(all.iter().all(|s| s.empty_cells() >= 2));
    assert!("h1v4s9".parse::<PieceSet>().is_err());
    assert!("x1v4s4".parse::<PieceSet>().is_err());
}
