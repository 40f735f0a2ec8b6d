//! Band power epoch by epoch through a night — the time course drawn under the hypnogram — as
//! `yasa.bandpower` computes it on an array of epochs (one row per 30-s epoch): per epoch, Welch with YASA's
//! convention (Hamming, median, 4-s windows), Simpson band power, relative to the bands' range when asked.
//! Only whole epochs are used (a trailing part is left out, as epoching does).

use crate::signal::error::SignalError;
use crate::signal::spectrum::{bands_power, welch, yasa};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EpochPower {
    pub epoch_s: f64,
    /// The bands as (lo, hi) Hz, in the order of each epoch's values.
    pub bands: Vec<(f64, f64)>,
    pub relative: bool,
    /// One row per epoch: the power in each band (µV²·… absolute, or a fraction of the bands' range).
    pub values: Vec<Vec<f64>>,
}

/// `x` sampled at `fs`, in epochs of `epoch_s`.
pub fn epoch_band_power(
    x: &[f64],
    fs: f64,
    epoch_s: f64,
    bands: &[(f64, f64)],
    relative: bool,
) -> Result<EpochPower, SignalError> {
    if bands.is_empty() {
        return Err("no bands".into());
    }
    if !(fs > 0.0 && epoch_s > 0.0) {
        return Err(format!("sampling rate {fs} Hz and epoch {epoch_s} s must be positive").into());
    }
    let n = (epoch_s * fs).round() as usize;
    let (p, integ) = yasa(fs, None);
    // yasa.bandpower takes the shorter of the window and the epoch.
    let p = crate::signal::spectrum::WelchParams { nperseg: p.nperseg.map(|w| w.min(n)), ..p };
    if n < 2 || x.len() < n {
        return Err(format!("{:.1} s of signal: not one whole epoch of {epoch_s} s", x.len() as f64 / fs).into());
    }
    let values = x
        .chunks_exact(n)
        .map(|epoch| bands_power(&welch(epoch, fs, &p)?, bands, relative, integ))
        .collect::<Result<_, _>>()?;
    Ok(EpochPower { epoch_s, bands: bands.to_vec(), relative, values })
}
