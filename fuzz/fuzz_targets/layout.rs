//! The layout parser (both notations) never panics; what it accepts renders and parses back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(p) = klotski::parse(&text) {
        let rendered = if p.labeled {
            klotski::render_labeled(&p.board)
        } else {
            klotski::render(&p.board)
        };
        let again = klotski::parse(&rendered).expect("a rendered layout parses");
        assert_eq!(again.board, p.board);
    }
});
