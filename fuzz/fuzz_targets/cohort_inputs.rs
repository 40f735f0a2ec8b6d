//! Fuzzes what a cohort import reads besides matrices: `.1D` ROI time series (with or without a header of
//! atlas codes) and their connectivity, phenotype tables through the ABIDE and ADHD-200 column mappings
//! (CSV and TSV), and cohort `.npz` files; any bytes must give a value or an error, never panic.
#![no_main]

use brainlens::network::cohort::{estimate, file, phenotype, series};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let dir = std::env::temp_dir().join(format!("brainlens-fuzz-cohort-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    match pick % 5 {
        0 => {
            let Ok(s) = series::parse_1d("f.1D", &String::from_utf8_lossy(body)) else { return };
            // Bounded as the time-series target: the cost is volumes × regions².
            if s.volumes.saturating_mul(s.regions).saturating_mul(s.regions) <= 1 << 15 {
                let _ = s.constant_columns();
                for kind in [estimate::Kind::Correlation, estimate::Kind::Partial] {
                    let _ = estimate::subject(&s.values, s.volumes, s.regions, kind);
                }
            }
        }
        k @ 1..=3 => {
            let path = dir.join(if k == 3 { "p.tsv" } else { "p.csv" });
            let _ = std::fs::write(&path, body);
            let spec = if k == 2 { phenotype::Spec::adhd200() } else { phenotype::Spec::abide() };
            let _ = phenotype::read(&path, &spec);
        }
        _ => {
            let path = dir.join("c.npz");
            let _ = std::fs::write(&path, body);
            if file::is_cohort(&path) {
                let _ = file::read(&path);
            }
        }
    }
});
