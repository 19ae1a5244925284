//! `puzzles/fifteen-korf-1.toml` states Korf's published optimum, 57 moves (R. E. Korf,
//! "Depth-first iterative-deepening", Artificial Intelligence 27, 1985, instance 1). Its space
//! is far beyond a breadth-first search, so this re-derives the figure with a plain IDA* over
//! the Manhattan distance (Korf's own method in that paper), reading the file's board and goal
//! as text — nothing of the sliding model — and replays the path it finds.

/// A board: the tile on each cell (0 the blank), row major, 4 × 4.
type Board = [u8; 16];

fn read(text: &str, key: &str) -> Board {
    let doc: toml::Table = toml::from_str(text).unwrap();
    let cells: Vec<u8> = doc[key]
        .as_str()
        .unwrap()
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '.' => 0,
            c => c.to_digit(16).unwrap() as u8,
        })
        .collect();
    cells.try_into().unwrap()
}

struct Search {
    /// Manhattan distance of tile t on cell c from its goal cell.
    cost: [[u8; 16]; 16],
    path: Vec<usize>,
}

impl Search {
    /// Depth-first below `bound`; the blank at `blank`, `prev` the cell it came from.
    fn dfs(
        &mut self,
        b: &mut Board,
        blank: usize,
        prev: usize,
        g: u32,
        h: u32,
        bound: u32,
    ) -> bool {
        if h == 0 {
            return true;
        }
        if g + h > bound {
            return false;
        }
        let (r, c) = (blank / 4, blank % 4);
        let mut next = [usize::MAX; 4];
        if r > 0 {
            next[0] = blank - 4;
        }
        if r < 3 {
            next[1] = blank + 4;
        }
        if c > 0 {
            next[2] = blank - 1;
        }
        if c < 3 {
            next[3] = blank + 1;
        }
        for to in next {
            if to == usize::MAX || to == prev {
                continue;
            }
            let t = b[to] as usize;
            let h2 = h - self.cost[t][to] as u32 + self.cost[t][blank] as u32;
            b[blank] = t as u8;
            b[to] = 0;
            self.path.push(to);
            if self.dfs(b, to, blank, g + 1, h2, bound) {
                return true;
            }
            self.path.pop();
            b[to] = t as u8;
            b[blank] = 0;
        }
        false
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "heavy search: run with --release")]
fn korf_instance_1_takes_57_moves() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../puzzles/fifteen-korf-1.toml"
    ))
    .unwrap();
    let (start, goal) = (read(&text, "board"), read(&text, "goal"));
    // Korf's goal: the blank top-left, tile t on cell t.
    assert_eq!(goal, std::array::from_fn(|i| i as u8));
    let mut cost = [[0u8; 16]; 16];
    for (t, row) in cost.iter_mut().enumerate().skip(1) {
        let home = goal.iter().position(|&x| x as usize == t).unwrap();
        for (c, slot) in row.iter_mut().enumerate() {
            *slot = ((c / 4).abs_diff(home / 4) + (c % 4).abs_diff(home % 4)) as u8;
        }
    }
    let h0: u32 = (0..16).map(|c| cost[start[c] as usize][c] as u32).sum();
    let blank = start.iter().position(|&x| x == 0).unwrap();
    let mut s = Search {
        cost,
        path: Vec::new(),
    };
    let mut bound = h0;
    let mut b = start;
    // Each bound adds 2: every move changes the Manhattan distance by one, so g + h keeps
    // its parity.
    while !s.dfs(&mut b, blank, usize::MAX, 0, h0, bound) {
        bound += 2;
        assert!(bound <= 80, "no solution within 80 moves");
    }
    assert_eq!(s.path.len(), 57);
    // Replay: every step moves a tile next to the blank, and the last board is the goal.
    let mut replay = start;
    let mut at = blank;
    for &to in &s.path {
        let beside = (at / 4 == to / 4 && at.abs_diff(to) == 1) || at.abs_diff(to) == 4;
        assert!(beside, "{at} -> {to} is not a move");
        replay.swap(at, to);
        at = to;
    }
    assert_eq!(replay, goal);
}
