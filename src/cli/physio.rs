//! `brainlens hrv FILE|NPZ` and `brainlens eog FILE --channel L`.

use super::write_json;
use crate::signal::Recording;
use crate::signal::physio::{ecg_clean, eog_activity, find_r_peaks, hrv};
use anyhow::{Context, Result, anyhow, bail};
use ndarray::Array1;
use ndarray_npy::NpzReader;
use std::io::Write;
use std::path::Path;

/// The ECG: an EDF/BDF channel (named, or the first whose label contains "ECG"/"EKG"), or an array in an .npz
/// (`--key`, default the first) at `--fs` Hz.
fn load_ecg(file: &Path, channel: Option<&str>, key: Option<&str>, fs: Option<f64>) -> Result<(Vec<f64>, f64, String)> {
    let ext = file.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    if ext == "npz" {
        crate::util::arrays::check_npz_headers(file).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        let mut npz =
            NpzReader::new(std::fs::File::open(file).with_context(|| format!("{}: cannot open", file.display()))?)
                .map_err(|e| anyhow!("{}: not an .npz archive: {e}", file.display()))?;
        let names = npz.names().map_err(|e| anyhow!("{}: {e}", file.display()))?;
        let name = match key {
            Some(k) => names
                .iter()
                .find(|n| n.trim_end_matches(".npy") == k)
                .cloned()
                .with_context(|| format!("{}: no array '{k}' (arrays: {})", file.display(), names.join(", ")))?,
            None => names.first().cloned().with_context(|| format!("{}: empty archive", file.display()))?,
        };
        let a: Array1<f64> =
            npz.by_name(&name).map_err(|e| anyhow!("{}: {name}: not a 1-D float array: {e}", file.display()))?;
        let fs = fs.with_context(|| format!("{}: give the sampling rate with --fs", file.display()))?;
        return Ok((a.to_vec(), fs, name.trim_end_matches(".npy").to_string()));
    }
    let rec = Recording::open(file)?;
    let c = match channel {
        Some(l) => rec.channel_index(l).with_context(|| format!("{}: no channel '{l}'", file.display()))?,
        None => rec
            .channels()
            .iter()
            .position(|c| {
                let u = c.label.to_uppercase();
                u.contains("ECG") || u.contains("EKG")
            })
            .with_context(|| format!("{}: no ECG channel (name it with --channel)", file.display()))?,
    };
    let d = rec.read(&[c], 0.0, rec.duration_s()? + 1.0)?.remove(0);
    Ok((d.values, d.sample_rate, rec.channels()[c].label.clone()))
}

pub fn hrv_cmd(
    file: &Path,
    channel: Option<&str>,
    key: Option<&str>,
    fs: Option<f64>,
    powerline: f64,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let (x, fs, name) = load_ecg(file, channel, key, fs)?;
    if x.len() < (2.0 * fs) as usize {
        bail!("{}: {name} is shorter than 2 s", file.display());
    }
    let clean = ecg_clean(&x, fs, powerline).map_err(|e| anyhow!(e))?;
    let peaks = find_r_peaks(&clean, fs);
    let h = hrv(&peaks, fs).map_err(|e| anyhow!("{}: {name}: {e}", file.display()))?;
    if json {
        return write_json(out, &serde_json::json!({"signal": name, "sampling_rate": fs, "r_peaks": peaks, "hrv": h}));
    }
    writeln!(out, "{name} at {fs} Hz: {} R-peaks", h.beats)?;
    writeln!(
        out,
        "heart rate {:.2} bpm, MeanNN {:.2} ms, SDNN {:.2} ms, RMSSD {:.2} ms, pNN50 {:.2} %",
        h.HR, h.MeanNN, h.SDNN, h.RMSSD, h.pNN50
    )?;
    Ok(())
}

pub fn eog_cmd(file: &Path, channel: &str, k: f64, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let c = rec.channel_index(channel).with_context(|| format!("{}: no channel '{channel}'", file.display()))?;
    let d = rec.read(&[c], 0.0, rec.duration_s()? + 1.0)?.remove(0);
    let a = eog_activity(&d.values, d.sample_rate, k).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    if json {
        return write_json(out, &a);
    }
    writeln!(out, "{channel}: RMS {:.3}, {} events beyond {:.3}", a.rms, a.events, a.threshold)?;
    Ok(())
}

/// `brainlens spo2 FILE --channel L`: mean, minimum and ≥ 3 % desaturations of a saturation channel (or mean
/// and minimum of any slow channel, e.g. respiration).
pub fn spo2_cmd(file: &Path, channel: &str, drop: f64, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let c = rec.channel_index(channel).with_context(|| format!("{}: no channel '{channel}'", file.display()))?;
    let d = rec.read(&[c], 0.0, rec.duration_s()? + 1.0)?.remove(0);
    let s = crate::signal::physio::saturation_summary(&d.values, d.sample_rate, drop)
        .map_err(|e| anyhow!("{}: {channel}: {e}", file.display()))?;
    if json {
        return write_json(out, &s);
    }
    writeln!(
        out,
        "{channel}: mean {:.2}, min {:.2}, {} desaturations ≥ {drop} points (ODI {:.2}/h)",
        s.mean, s.min, s.desaturations, s.odi
    )?;
    Ok(())
}
