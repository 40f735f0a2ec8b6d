//! Fuzzes the connectome readers (CSV/TSV/text with or without labels, `.npy`, `.npz`, MATLAB v5 `.mat`):
//! the first byte picks the format and how an asymmetric matrix is taken; the rest is the file. A matrix
//! that loads is thresholded (negatives zeroed, the strongest 20 %), and its density and clustering computed; any bytes must give a result
//! or an error, never panic.
#![no_main]

use brainlens::network::connectome::Asymmetry;
use brainlens::network::io;
use brainlens::network::metrics::{clustering, degree};
use brainlens::network::threshold;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let ext = ["csv", "tsv", "txt", "npy", "npz", "mat"][pick as usize % 6];
    let asym = [Asymmetry::Error, Asymmetry::Symmetrize, Asymmetry::Directed][(pick / 6) as usize % 3];
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-con-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("f.{ext}"));
    let _ = std::fs::write(&path, body);
    if let Ok(c) = io::load(&path, asym) {
        // Bounded: the cost is n³ for a fuzzed n (n ≤ 16 reaches every path of thresholding and clustering;
        // at 64 the target ran 2,000 inputs a second, measured).
        if c.n <= 16 {
            let w = threshold::apply_negatives(&c.w, threshold::Negatives::Zero);
            let w = threshold::proportional(&w, c.n, 0.2);
            let _ = degree::density_und(&w, c.n);
            let _ = clustering::clustering_coef_wu(&threshold::normalize(&w), c.n);
        }
    }
});
