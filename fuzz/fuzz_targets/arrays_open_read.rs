//! Fuzzes the array readers: the first byte picks the format (.npy, .npz, .mat, .csv, .tsv) and the rest is
//! the file, opened with a rate given and read; any bytes must open or fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use brainlens::signal::open_options::OpenOptions;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let ext = ["npy", "npz", "mat", "csv", "tsv"][pick as usize % 5];
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-arr-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("f.{ext}"));
    let _ = std::fs::write(&path, body);
    if let Ok(rec) = Recording::open_with(&path, &OpenOptions { rate: Some(100.0), cnt_format: None }) {
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, -3.0, 1e12);
    }
});
