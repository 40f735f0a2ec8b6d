//! Fuzzes the EDF/BDF header parser, the annotation (TAL) scan and record decoding: any byte string must
//! open with repairs or fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("brainlens-fuzz-{}.edf", std::process::id()));
    let mut f = std::fs::File::create(&path).expect("temp file");
    f.write_all(data).expect("write temp file");
    drop(f);
    if let Ok(rec) = Recording::open(&path) {
        let _ = rec.annotations();
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, 1e9, 5.0);
        let _ = rec.repairs();
    }
});
