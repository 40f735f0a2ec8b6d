//! Fuzzes the GDF reader: the input is a `.gdf` file, opened and read; any bytes must open (with repairs) or
//! fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-gdf-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("f.gdf");
    let _ = std::fs::write(&path, data);
    if let Ok(rec) = Recording::open(&path) {
        let _ = rec.annotations();
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, -3.0, 1e12);
    }
});
