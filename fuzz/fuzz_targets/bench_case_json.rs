//! Fuzzes the BrainBench case reader: any bytes as a case file (`*.json`) must load and validate or give
//! the file's errors, never panic.
#![no_main]

use brainlens::bench::case::Case;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-case-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("case1_1.json");
    let _ = std::fs::write(&path, data);
    let _ = Case::load(&path);
});
