//! The farthest member of each component: the positions a table or a query shows for a
//! component (its farthest solvable member from the goals, else its first).

use huarong_core::UNREACHABLE;

/// Per component, its representative: the farthest solvable member (the first in index order
/// at that distance), else its smallest member. `k` components, ids below `k`.
pub fn representatives(ids: &[u32], distances: &[u16], k: usize) -> Vec<u32> {
    let [best] = farthest::<1>(ids, [distances], k);
    best
}

/// [`representatives`] for several tables of distances over the same component ids, in one
/// pass over the ids.
pub fn representatives_of(ids: &[u32], distances: &[&[u16]], k: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::with_capacity(distances.len());
    for group in distances.chunks(3) {
        match *group {
            [a] => out.extend(farthest(ids, [a], k)),
            [a, b] => out.extend(farthest(ids, [a, b], k)),
            [a, b, c] => out.extend(farthest(ids, [a, b, c], k)),
            _ => unreachable!("chunks of one to three"),
        }
    }
    out
}

/// [`representatives`] for `M` tables of distances: per component, per table, the best score
/// so far (1 + its distance, 1 if unsolvable, 0 for no member yet) and where it was found;
/// a row replaces it only with a greater score, so the first of the farthest stays.
fn farthest<const M: usize>(ids: &[u32], distances: [&[u16]; M], k: usize) -> [Vec<u32>; M] {
    let mut best: Vec<[(u32, u32); M]> = vec![[(0, u32::MAX); M]; k];
    for (i, &c) in ids.iter().enumerate() {
        let b = &mut best[c as usize];
        for j in 0..M {
            let d = distances[j][i];
            let score = if d == UNREACHABLE {
                1
            } else {
                u32::from(d) + 1
            };
            if score > b[j].0 {
                b[j] = (score, i as u32);
            }
        }
    }
    std::array::from_fn(|j| best.iter().map(|b| b[j].1).collect())
}
