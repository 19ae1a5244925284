//! Release-mode data check: the full labeled classic table.

use enumerate::run;
use huarong_core::{Puzzle, Ranking, Reporter};
use klotski::{Board, Labeled, PieceSet, space::LABEL_BITS};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy data check: run with --release")]
fn labeled_classic_table_is_a_bijection_onto_all_positions() {
    let dir = tempfile::tempdir().unwrap();
    let l = Labeled::new(PieceSet::CLASSIC).unwrap();
    let (table, _) = run(
        &l,
        &dir.path().join("states.bin"),
        false,
        &Reporter::quiet(),
    )
    .unwrap();
    // A ranked space's table is computed: the codes are the puzzle's unranking.
    assert!(table.stored().is_none());
    let codes = table.codes(&l).to_vec();
    assert_eq!(codes.len(), 37_946_880);

    // Strictly increasing codes, each ranking back to its own index: a bijection.
    assert!(codes.par_windows(2).all(|w| w[0] < w[1]));
    assert!(
        codes
            .par_iter()
            .enumerate()
            .all(|(i, &c)| l.rank(c) == Some(i as u64))
    );

    // Every code is a real labeled position of the classic set that encodes back to itself.
    assert!(codes.par_iter().all(|&c| {
        let b = l.board_of(c).unwrap();
        b.piece_set() == PieceSet::CLASSIC && l.code_of(&b) == c
    }));

    // 65,880 canonical positions, each hit exactly 4! * 4! = 576 times.
    let base = l.base();
    let hits: Vec<AtomicU32> = (0..base.len()).map(|_| AtomicU32::new(0)).collect();
    codes.par_iter().for_each(|&c| {
        let canon = Board::from_code(c >> LABEL_BITS, PieceSet::CLASSIC).unwrap();
        let k = base.index_of_board(&canon).unwrap();
        hits[k as usize].fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(hits.len(), 65_880);
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 576));

    let goals = codes.par_iter().filter(|&&c| l.is_goal(c)).count();
    let unlabeled_goals = base.codes().iter().filter(|&&c| base.is_goal(c)).count();
    assert_eq!(goals, unlabeled_goals * 576);
}
