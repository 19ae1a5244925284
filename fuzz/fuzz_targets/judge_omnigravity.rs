//! The omnigravity judge's input parser never panics, and what it accepts it can write back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(boards) = omnigravity::judge::parse(&text) {
        let again = omnigravity::judge::parse(&omnigravity::judge::input_for(&boards)).expect("written input parses");
        assert_eq!(again, boards);
    }
});
