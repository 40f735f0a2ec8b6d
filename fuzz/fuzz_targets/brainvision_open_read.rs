//! Fuzzes the BrainVision reader: the input is split into a header, a marker file and a data file (at its first
//! two zero bytes), written beside each other, opened and read; any bytes must open (with repairs) or
//! fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0).collect::<Vec<_>>();
    parts.resize(3, &[]);
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-bv-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    // The header names its files; let short inputs still reach the data path with the usual names.
    let _ = std::fs::write(dir.join("f.vhdr"), parts[0]);
    let _ = std::fs::write(dir.join("f.vmrk"), parts[1]);
    let _ = std::fs::write(dir.join("f.eeg"), parts[2]);
    if let Ok(rec) = Recording::open(&dir.join("f.vhdr")) {
        let _ = rec.annotations();
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, 1e9, 5.0);
        let _ = rec.read(&all, -3.0, 1e12);
        let _ = rec.repairs();
    }
});
