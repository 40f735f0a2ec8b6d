//! Band power per sleep stage as `yasa.bandpower(data, sf, hypno=…, include=…)`: the samples of each stage
//! (hypnogram upsampled to the signal, epochs of `epoch_s`), concatenated, Welch with YASA's convention
//! (Hamming, median, 4-s windows), Simpson band power; relative to the bands' range. Stages shorter than one
//! window are skipped (as YASA does).

use super::hypnogram::{Hypnogram, Stage};
use crate::signal::error::SignalError;
use crate::signal::spectrum::{bands_power, welch, yasa};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StagePower {
    pub stage: &'static str,
    pub seconds: f64,
    /// Band power per requested band (same order).
    pub values: Vec<f64>,
}

/// `bands` as (lo, hi); `relative` divides by the power from the lowest to the highest band edge.
pub fn stage_band_power(
    x: &[f64],
    fs: f64,
    h: &Hypnogram,
    bands: &[(f64, f64)],
    relative: bool,
) -> Result<Vec<StagePower>, SignalError> {
    if bands.is_empty() {
        return Err("no bands".into());
    }
    let (p, integ) = yasa(fs, None);
    let win = p.nperseg.unwrap_or(0);
    let per_epoch = h.epoch_s * fs;
    let mut out = Vec::new();
    for stage in [Stage::Wake, Stage::N1, Stage::N2, Stage::N3, Stage::Rem] {
        let samples: Vec<f64> = x
            .iter()
            .enumerate()
            .filter(|(i, _)| h.stages.get((*i as f64 / per_epoch) as usize) == Some(&stage))
            .map(|(_, v)| *v)
            .collect();
        if samples.len() < win {
            continue;
        }
        let psd = welch(&samples, fs, &p)?;
        let values = bands_power(&psd, bands, relative, integ)?;
        out.push(StagePower { stage: stage.label(), seconds: samples.len() as f64 / fs, values });
    }
    if out.is_empty() {
        return Err("every stage is shorter than the 4-s Welch window".into());
    }
    Ok(out)
}
