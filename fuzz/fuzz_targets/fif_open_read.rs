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
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        // Bounded: an acquisition skip is zeros no byte backs, so a small input can span a read of up to
        // MAX_VALUES_PER_READ values (2 GB, refused beyond), and such inputs took seconds each. Reads past the
        // limit are still tried where they are refused before allocating.
        let values = rec.duration_s().unwrap_or(0.0)
            * rec.channels().iter().map(|c| c.sample_rate).sum::<f64>();
        if !(1e6..=brainlens::signal::continuous::MAX_VALUES_PER_READ as f64).contains(&values) {
            let _ = rec.read(&all, -3.0, 1e12);
        }
    }
});
