//! Puzzle files never panic the parser; an accepted puzzle's board renders and reads back to the
//! same position, and its first moves stay within the space.
#![no_main]
use huarong_core::Puzzle;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match sliding::parse(&text, "fuzz") {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(p) => {
            let start = p.start;
            assert_eq!(p.position(&p.render(start)), Ok(start));
            let mut next = Vec::new();
            for metric in 0..3 {
                next.clear();
                p.successors(start, metric, &mut next);
                for &c in next.iter().take(8) {
                    assert_eq!(p.position(&p.render(c)), Ok(c));
                }
            }
            let _ = p.is_goal(start);
        }
    }
});
