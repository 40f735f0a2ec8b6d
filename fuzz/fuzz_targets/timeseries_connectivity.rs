//! Fuzzes ROI time series in (regions × time points, as cohort time series arrive: `.1D`-like text, CSV,
//! `.npy`, `.mat`) and the connectivity computed from them (Pearson and partial correlation); any bytes must
//! give a matrix or an error, never panic.
#![no_main]

use brainlens::network::{io, timeseries};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let ext = ["txt", "csv", "npy", "mat"][pick as usize % 4];
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-ts-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("f.{ext}"));
    let _ = std::fs::write(&path, body);
    if let Ok((rows, cols, x, _)) = io::load_matrix(&path) {
        // Bounded: a fuzzed file may claim a large matrix; the cost here is rows² × cols (2^15: e.g. 16 regions
        // × 128 points, which exercises every path — too few points, constant regions, singular covariance;
        // larger would only spend executions on arithmetic: at 2^18 the target ran ~1,000 inputs a second).
        if rows.saturating_mul(rows).saturating_mul(cols) <= 1 << 15 {
            let _ = timeseries::pearson(&x, rows, cols);
            let _ = timeseries::partial(&x, rows, cols);
        }
    }
});
