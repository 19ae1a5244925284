//! The square_destroyer judge's input parser never panics, and what it accepts it can write back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(cases) = square_destroyer::judge::parse(&text) {
        let again = square_destroyer::judge::parse(&square_destroyer::judge::input_for(&cases)).expect("written input parses");
        assert_eq!(again, cases);
    }
});
