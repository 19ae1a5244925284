//! Published figures the tests and benches check against, with their sources.
// Shared by a test and a bench: each uses the figures it checks.
#![allow(dead_code)]

/// OEIS A090166 (Karlemo and Östergård): the 4 × 3 sliding puzzle's positions at each distance
/// from the solved board with the blank in a corner, in full (diameter 53).
pub const A090166: &[u64] = &[
    1, 2, 4, 9, 20, 37, 63, 122, 232, 431, 781, 1392, 2494, 4442, 7854, 13899, 24215, 41802, 71167,
    119888, 198363, 323206, 515778, 811000, 1248011, 1885279, 2782396, 4009722, 5621354, 7647872,
    10065800, 12760413, 15570786, 18171606, 20299876, 21587248, 21841159, 20906905, 18899357,
    16058335, 12772603, 9515217, 6583181, 4242753, 2503873, 1350268, 643245, 270303, 92311, 27116,
    5390, 1115, 86, 18,
];

/// OEIS A090167: the same for the 6 × 2 board, its first 39 terms (the sequence goes on to
/// distance 80).
pub const A090167_START: &[u64] = &[
    1, 2, 3, 6, 11, 20, 36, 60, 95, 155, 258, 426, 688, 1106, 1723, 2615, 3901, 5885, 8851, 13205,
    19508, 28593, 41179, 58899, 83582, 118109, 165136, 228596, 312542, 423797, 568233, 755727,
    994641, 1296097, 1667002, 2119476, 2660415, 3300586, 4038877,
];
