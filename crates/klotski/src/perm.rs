//! Permutation ranking (Lehmer codes) and the relabelling tables of the labeled spaces.

/// `n!` for the small `n` used here (at most 12).
pub fn factorial(n: usize) -> u32 {
    (1..=n as u32).product()
}

/// The Lehmer rank of a permutation of `0..p.len()`.
pub fn rank(p: &[u8]) -> u32 {
    let n = p.len();
    let mut r = 0u32;
    for i in 0..n {
        let smaller_after = p[i + 1..].iter().filter(|&&x| x < p[i]).count() as u32;
        r = r * (n - i) as u32 + smaller_after;
    }
    r
}

/// The permutation of `0..out.len()` with Lehmer rank `r`.
pub fn unrank(mut r: u32, out: &mut [u8]) {
    let n = out.len();
    let mut digits = [0u8; 16];
    for i in (0..n).rev() {
        let base = (n - i) as u32;
        digits[i] = (r % base) as u8;
        r /= base;
    }
    // The values not yet placed, in order (on the stack: this runs per rendered position).
    let mut pool: [u8; 16] = std::array::from_fn(|i| i as u8);
    for i in 0..n {
        let d = digits[i] as usize;
        out[i] = pool[d];
        pool.copy_within(d + 1..n - i, d);
    }
}

/// How labels shift when one of `n` same-kind pieces moves from scan slot `from` to slot `to`:
/// `apply(from, to, r)` is the rank of the relabelled permutation.
#[derive(Debug, Clone)]
pub struct SlotShift {
    n: usize,
    fact: u32,
    table: Vec<u32>,
}

impl SlotShift {
    pub fn new(n: usize) -> Self {
        let fact = factorial(n);
        let mut table = vec![0u32; n * n * fact as usize];
        let mut p = vec![0u8; n];
        for r in 0..fact {
            unrank(r, &mut p);
            for from in 0..n {
                for to in 0..n {
                    let mut q = p.clone();
                    let x = q.remove(from);
                    q.insert(to, x);
                    table[(from * n + to) * fact as usize + r as usize] = rank(&q);
                }
            }
        }
        SlotShift { n, fact, table }
    }

    #[inline]
    pub fn apply(&self, from: u8, to: u8, r: u32) -> u32 {
        self.table[(from as usize * self.n + to as usize) * self.fact as usize + r as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_all_small() {
        for n in 0..=6 {
            let mut p = vec![0u8; n];
            for r in 0..factorial(n) {
                unrank(r, &mut p);
                assert_eq!(rank(&p), r);
            }
        }
        assert_eq!(rank(&[0, 1, 2, 3]), 0);
        assert_eq!(rank(&[3, 2, 1, 0]), 23);
    }

    #[test]
    fn shift_moves_one_element() {
        let s = SlotShift::new(4);
        let r = rank(&[2, 0, 3, 1]);
        // slot 0 (label 2) moves to slot 2: [0, 3, 2, 1]
        assert_eq!(s.apply(0, 2, r), rank(&[0, 3, 2, 1]));
        assert_eq!(s.apply(1, 1, r), r);
    }
}
