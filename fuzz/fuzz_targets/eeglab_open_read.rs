//! Fuzzes the EEGLAB reader and its MATLAB Level 5 parser: the input is split at its first `\xff\xfe\xfd`
//! into a `.set` file and the `.fdt` beside it, opened and read; any bytes must open (with repairs) or fail
//! with an error, never panic.
#![no_main]

use brainlens::signal::Recording;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let cut = data.windows(3).position(|w| w == b"\xff\xfe\xfd");
    let (set, fdt) = match cut {
        Some(i) => (&data[..i], &data[i + 3..]),
        None => (data, &[][..]),
    };
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-set-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("f.set"), set);
    let _ = std::fs::write(dir.join("f.fdt"), fdt);
    let _ = brainlens::util::mat5::parse(set);
    if let Ok(rec) = Recording::open(&dir.join("f.set")) {
        let _ = rec.annotations();
        let _ = rec.duration_s();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let _ = rec.read(&all, 0.0, 5.0);
        let _ = rec.read(&all, -3.0, 1e12);
    }
});
