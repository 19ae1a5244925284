//! `cargo run --release -p rush-hour --example census -- SIZE WALLS [PART PARTS]`: the census of
//! one universe, or of its units `k ≡ PART (mod PARTS)` (a sample to project a long run from).
//! With `CENSUS_DUMP=FILE` it also writes both histograms and every database row to `FILE`, to
//! compare two builds' censuses byte for byte.
fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let at = |i: usize, d: usize| args.get(i).copied().unwrap_or(d);
    let (size, walls, part, parts) = (at(0, 5), at(1, 0), at(2, 0), at(3, 1));
    let t = std::time::Instant::now();
    let u = rush_hour::Universe::new(size, walls).expect("a universe");
    let c = u.census(part, parts, &|| {}).expect("a census");
    println!(
        "{size}x{size} walls<={walls} part {part}/{parts}: units {} classes {} layouts {} \
         clusters {} solvable {} ({} layouts) minimal {} ({:.2} s)",
        u.units(),
        c.classes,
        c.layouts,
        c.clusters,
        c.solvable_clusters,
        c.layouts_by_distance.iter().sum::<u64>(),
        c.puzzles.len(),
        t.elapsed().as_secs_f64()
    );
    if let Ok(path) = std::env::var("CENSUS_DUMP") {
        let text: String = c
            .puzzles
            .iter()
            .map(|p| format!("{} {} {}\n", p.moves, p.board, p.cluster_size))
            .collect();
        std::fs::write(
            path,
            format!(
                "{:?}\n{:?}\n{}",
                c.clusters_by_moves, c.layouts_by_distance, text
            ),
        )
        .expect("the dump file is writable");
    }
    for p in c.puzzles.iter().take(3) {
        println!("{} {} {}", p.moves, p.board, p.cluster_size);
    }
}
