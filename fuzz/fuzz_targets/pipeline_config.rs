//! Pipeline TOML loading never panics: any text is a pipeline or an error message.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(message) = pipeline_config::Pipeline::parse(registry::families(), &text) {
        assert!(!message.is_empty());
    }
});
