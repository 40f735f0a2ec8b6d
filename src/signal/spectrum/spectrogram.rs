//! Spectrogram: the one-sided PSD of each segment, as `scipy.signal.spectrogram(x, fs, window, nperseg,
//! noverlap, nfft, detrend, scaling, mode='psd')` (times at segment centres), and a whole-recording
//! version read in blocks for the Recordings room (columns averaged down to a display width).

use super::welch::{Periodogram, WelchParams, freqs};
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spectrogram {
    pub sample_rate: f64,
    pub freqs: Vec<f64>,
    /// Segment centres in seconds from the start of the signal.
    pub times: Vec<f64>,
    /// Row-major: `times.len()` rows of `freqs.len()` values.
    pub power: Vec<f64>,
}

impl Spectrogram {
    pub fn row(&self, t: usize) -> &[f64] {
        let nf = self.freqs.len();
        &self.power[t * nf..(t + 1) * nf]
    }
}

/// Segment geometry with scipy.signal.spectrogram's defaults (nperseg 256, noverlap nperseg/8).
fn geometry(n: usize, p: &WelchParams) -> Result<(usize, usize, usize), SignalError> {
    let nperseg = p.nperseg.unwrap_or(256).min(n);
    if nperseg == 0 {
        return Err("the signal is empty".into());
    }
    let noverlap = p.noverlap.unwrap_or(nperseg / 8);
    let nfft = p.nfft.unwrap_or(nperseg);
    if noverlap >= nperseg || nfft < nperseg {
        return Err(invalid!("invalid segments: nperseg {nperseg}, noverlap {noverlap}, nfft {nfft}"));
    }
    Ok((nperseg, noverlap, nfft))
}

pub fn spectrogram(x: &[f64], fs: f64, p: &WelchParams) -> Result<Spectrogram, SignalError> {
    let (nperseg, noverlap, nfft) = geometry(x.len(), p)?;
    let step = nperseg - noverlap;
    let segments = (x.len() - noverlap) / step;
    let mut pg = Periodogram::new(p.window, nperseg, nfft, fs, p.scaling, p.detrend);
    let nf = pg.bins();
    let mut power = vec![0.0; segments * nf];
    for s in 0..segments {
        pg.accumulate(&x[s * step..s * step + nperseg], &mut power[s * nf..(s + 1) * nf]);
    }
    Ok(Spectrogram {
        sample_rate: fs,
        freqs: freqs(nfft, fs),
        times: (0..segments).map(|s| (s * step) as f64 / fs + nperseg as f64 / 2.0 / fs).collect(),
        power,
    })
}

/// Averages consecutive rows so that at most `max_rows` remain (a display width for long recordings).
pub fn downsample_rows(s: &Spectrogram, max_rows: usize) -> Spectrogram {
    let rows = s.times.len();
    if rows <= max_rows || max_rows == 0 {
        return s.clone();
    }
    let nf = s.freqs.len();
    let group = rows.div_ceil(max_rows);
    let mut times = Vec::new();
    let mut power = Vec::new();
    for start in (0..rows).step_by(group) {
        let end = (start + group).min(rows);
        let k = (end - start) as f64;
        times.push(s.times[start..end].iter().sum::<f64>() / k);
        for f in 0..nf {
            power.push((start..end).map(|t| s.power[t * nf + f]).sum::<f64>() / k);
        }
    }
    Spectrogram { sample_rate: s.sample_rate, freqs: s.freqs.clone(), times, power }
}

/// Compressed spectral array of a whole night: the multitaper PSD (MNE's definition) of each `epoch_s`-second
/// epoch, times at epoch centres.
pub fn multitaper_cdsa(x: &[f64], fs: f64, epoch_s: f64, bandwidth: Option<f64>) -> Result<Spectrogram, SignalError> {
    let n = (epoch_s * fs).round() as usize;
    if n < 2 || x.len() < n {
        return Err(invalid!("the signal is shorter than one {epoch_s}-s epoch"));
    }
    let plan = super::multitaper::MultitaperPlan::new(n, fs, bandwidth)?;
    let epochs = x.len() / n;
    let mut power = Vec::new();
    let mut fr = Vec::new();
    for e in 0..epochs {
        let p = plan.psd(&x[e * n..(e + 1) * n])?;
        power.extend(p.psd);
        fr = p.freqs;
    }
    Ok(Spectrogram {
        sample_rate: fs,
        freqs: fr,
        times: (0..epochs).map(|e| (e as f64 + 0.5) * epoch_s).collect(),
        power,
    })
}
