//! Fuzzes the Neuroscan CNT reader: the input is a `.cnt` file, opened with the width detected (as MNE) and
//! with int16 and int32 given, and read; any bytes must open (with repairs) or fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use brainlens::signal::open_options::{CntFormat, OpenOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-cnt-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("f.cnt");
    let _ = std::fs::write(&path, data);
    for cnt_format in [None, Some(CntFormat::Int16), Some(CntFormat::Int32)] {
        if let Ok(rec) = Recording::open_with(&path, &OpenOptions { cnt_format, rate: None }) {
            let _ = rec.annotations();
            let _ = rec.duration_s();
            let all: Vec<usize> = (0..rec.channels().len()).collect();
            let _ = rec.read(&all, 0.0, 5.0);
            let _ = rec.read(&all, -3.0, 1e12);
            let _ = rec.bads();
        }
    }
});
