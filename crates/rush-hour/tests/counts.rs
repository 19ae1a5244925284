//! The number of layouts of each universe, counted a second way: a product over columns for
//! every choice of walls and row arrangements, each line's arrangements found by brute force
//! over every labelling of its cells — nothing shared with the classes' ranking, whose sizes
//! (`Universe::unit_layouts`) must add up to the same totals. The totals are the figures
//! docs/RUSH-HOUR.md gives.

use rush_hour::Universe;

/// The cells (line bits) covered by every arrangement of cars (2 cells) and trucks (3) on a
/// line of `n` cells avoiding `blocked` and covering at most `most` cells: every labelling of
/// the cells with "nothing starts here", "a car starts here", "a truck starts here" whose
/// pieces fit without overlapping.
fn arrangements(n: usize, blocked: u32, most: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for labels in 0..3usize.pow(n as u32) {
        let mut rest = labels;
        let mut covered = 0u32;
        let mut fits = true;
        for start in 0..n {
            let len = [0, 2, 3][rest % 3];
            rest /= 3;
            if len == 0 {
                continue;
            }
            let cells = ((1u32 << len) - 1) << start;
            if start + len > n || cells & (covered | blocked) != 0 {
                fits = false;
                break;
            }
            covered |= cells;
        }
        if fits && covered.count_ones() as usize <= most {
            out.push(covered);
        }
    }
    out
}

/// Layouts of the `n × n` board with exactly the walls `walls` (bit `r·n + c`), `columns`
/// giving a column's vertical arrangements per cells blocked in it.
fn layouts_with(n: usize, walls: u64, columns: &[u64]) -> u64 {
    const EXIT_ROW: usize = 2;
    let row_bits = |mask: u64, r: usize| (mask >> (r * n)) as u32 & ((1 << n) - 1);
    // Per row, the covered cells of each arrangement (walls left out).
    let mut rows: Vec<Vec<u32>> = Vec::new();
    for r in 0..n {
        let w = row_bits(walls, r);
        let free = n - w.count_ones() as usize;
        if r == EXIT_ROW {
            // The red car alone, every wall of the row left of it, the row not full.
            let red: Vec<u32> = (0..n - 1)
                .map(|c| 0b11u32 << c)
                .filter(|&cells| cells & w == 0 && w < cells && free > 2)
                .collect();
            rows.push(red);
        } else {
            rows.push(arrangements(n, w, free.saturating_sub(1)));
        }
    }
    let column_bits = |mask: u64, c: usize| {
        (0..n).fold(0u32, |b, r| b | (((mask >> (r * n + c)) & 1) as u32) << r)
    };
    fn each(rows: &[Vec<u32>], n: usize, r: usize, cover: u64, f: &mut dyn FnMut(u64)) {
        if r == rows.len() {
            f(cover);
            return;
        }
        for &cells in &rows[r] {
            each(rows, n, r + 1, cover | (cells as u64) << (r * n), f);
        }
    }
    let mut total = 0u64;
    each(&rows, n, 0, walls, &mut |cover| {
        total += (0..n)
            .map(|c| columns[column_bits(cover, c) as usize])
            .product::<u64>();
    });
    total
}

/// Layouts of the `n × n` board with at most `max_walls` walls.
fn layouts(n: usize, max_walls: usize) -> u64 {
    let cells = n * n;
    // Every column alike: per cells blocked in it (column bits), its vertical arrangements.
    let columns: Vec<u64> = (0..1u32 << n)
        .map(|blocked| arrangements(n, blocked, n - 1).len() as u64)
        .collect();
    let layouts_with = |walls: u64| layouts_with(n, walls, &columns);
    let mut total = layouts_with(0);
    if max_walls >= 1 {
        total += (0..cells).map(|a| layouts_with(1 << a)).sum::<u64>();
    }
    if max_walls >= 2 {
        for a in 0..cells {
            total += (a + 1..cells)
                .map(|b| layouts_with(1 << a | 1 << b))
                .sum::<u64>();
        }
    }
    total
}

fn class_sizes(n: usize, max_walls: usize) -> u64 {
    let u = Universe::new(n, max_walls).unwrap();
    (0..u.units()).map(|k| u.unit_layouts(k)).sum()
}

#[test]
fn the_classes_hold_every_layout_once() {
    for (n, walls, want) in [
        (4, 2, 151_752),
        (5, 0, 6_795_364),
        (5, 2, 250_245_590),
        (6, 0, 27_103_652_326),
    ] {
        let counted = layouts(n, walls);
        assert_eq!(counted, want, "{n} x {n}, at most {walls} walls");
        assert_eq!(
            class_sizes(n, walls),
            counted,
            "{n} x {n}, at most {walls} walls"
        );
    }
}
