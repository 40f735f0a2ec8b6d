//! `brainlens resample FILE --sfreq HZ --out OUT.edf`: every channel at the new rate (scipy's
//! `resample_poly`), the records kept (so the new rate × record duration must be a whole number of samples).

use crate::signal::Recording;
use crate::signal::edf::derive::{DerivedChannel, write_derived};
use crate::signal::edf::layout::copy_template;
use crate::signal::resample::{ratio, resample_poly};
use anyhow::{Result, anyhow, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(file: &Path, sfreq: f64, out_path: &PathBuf, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let (h, _) = copy_template(&rec)?;
    if h.record_onsets.is_some() {
        bail!("{}: resampling an EDF+D (discontinuous) file is not supported", file.display());
    }
    let new_spr_f = sfreq * h.record_duration;
    if (new_spr_f - new_spr_f.round()).abs() > 1e-6 || new_spr_f < 1.0 {
        bail!(
            "{}: {sfreq} Hz × {} s records is not a whole number of samples per record",
            file.display(),
            h.record_duration
        );
    }
    let new_spr = new_spr_f.round() as usize;
    let duration = rec.duration_s()?;
    let mut derived = Vec::new();
    for (c, ch) in rec.channels().iter().enumerate() {
        let (up, down) = ratio(ch.sample_rate, sfreq).map_err(|e| anyhow!(e))?;
        let x = rec.read(&[c], 0.0, duration + 1.0)?.remove(0).values;
        let mut y = resample_poly(&x, up, down).map_err(|e| anyhow!("{}: {e}", ch.label))?;
        y.resize(new_spr * h.record_count as usize, *y.last().unwrap_or(&0.0));
        writeln!(out, "{}: {} Hz → {sfreq} Hz (up {up}, down {down})", ch.label, ch.sample_rate)?;
        derived.push(DerivedChannel {
            label: ch.label.clone(),
            source: c,
            values: y,
            prefilter: format!("{} resampled {sfreq}Hz", rec.prefilter(c)).trim().to_string(),
            samples_per_record: Some(new_spr),
        });
    }
    write_derived(&rec, &derived, out_path)?;
    writeln!(out, "wrote {}", out_path.display())?;
    Ok(())
}
