//! Fuzzes the FIF reader: the input is split at its first `\xff\xfe\xfd` into a raw file and a split
//! continuation (`f_raw-1.fif`, which a "next file" reference may name), opened and read; any bytes must open
//! (with repairs) or fail with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.windows(3).position(|w| w == b"\xff\xfe\xfd");
    let (first, next) = match cut {
        Some(i) => (&data[..i], &data[i + 3..]),
        None => (data, &[][..]),
    };
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-fif-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("f_raw.fif"), first);
    let _ = std::fs::write(dir.join("f_raw-1.fif"), next);
    if let Ok(rec) = Recording::open(&dir.join("f_raw.fif")) {
        let _ = rec.annotations();
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, -3.0, 1e12);
    }
});
