//! Writes a long EDF+ by tiling a real recording end to end (for benchmarks only). The recording field says
//! it is tiled, so nobody mistakes it for a real night.
//!
//! cargo run --release --example tile_recording -- SRC.edf OUT.edf HOURS

use brainlens::signal::Recording;
use brainlens::signal::edf::{EdfFile, EdfFormat, WriteSpec, write_edf};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, out, hours] = args.as_slice() else {
        anyhow::bail!("usage: tile_recording SRC.edf OUT.edf HOURS");
    };
    let hours: f64 = hours.parse()?;
    let rec = Recording::open(&PathBuf::from(src))?;
    let file = EdfFile::open(&PathBuf::from(src))?;
    let h = file.header();
    let n_src = h.record_count;
    let records = (hours * 3600.0 / h.record_duration).round() as u64;
    let spec = WriteSpec {
        format: if h.format.is_bdf() { EdfFormat::BdfPlusC } else { EdfFormat::EdfPlusC },
        patient: "X X X X".into(),
        recording: format!(
            "Startdate X TILED-{} X X",
            PathBuf::from(src).file_stem().unwrap_or_default().to_string_lossy()
        ),
        start: h.start,
        record_duration: h.record_duration,
        record_count: records,
        signals: rec.channels().iter().map(|c| h.signals[c.signal].clone()).collect(),
        annotations: (0..records / n_src)
            .map(|i| brainlens::signal::edf::Annotation {
                onset_s: (i * n_src) as f64 * h.record_duration,
                duration_s: None,
                text: format!("tile {i} (tiled copy, not a real night)"),
            })
            .collect(),
        record_onsets: None,
    };
    let sigs: Vec<usize> = rec.channels().iter().map(|c| c.signal).collect();
    write_edf(&PathBuf::from(out), &spec, |r, bufs| {
        for (b, &s) in bufs.iter_mut().zip(&sigs) {
            file.read_digital(s, r % n_src, b)?;
        }
        Ok(())
    })?;
    println!("wrote {out}: {records} records of {} s, {} channels", h.record_duration, sigs.len());
    Ok(())
}
