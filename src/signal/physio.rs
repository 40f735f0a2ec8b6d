//! Physiology: ECG R-peaks and heart-rate variability, EOG activity.
//!
//! R-peaks follow neurokit2 0.3's default pipeline: `ecg_clean(method='neurokit')` (5th-order Butterworth
//! high-pass at 0.5 Hz, zero phase, then a zero-phase moving average over one mains period) and
//! `ecg_findpeaks(method='neurokit')` (QRS complexes where the boxcar-smoothed absolute gradient exceeds 1.5 ×
//! its 0.75-s average; in each long-enough complex the most prominent local maximum; peaks at least 0.3 s
//! apart). HRV as `neurokit2.hrv_time`: MeanNN, SDNN (ddof 1), RMSSD, pNN50 over successive RR intervals.

use super::filter::butter::{BandType, butter};
use super::filter::iir::{default_padlen, sosfiltfilt};
use super::filter::lfilter::filtfilt;
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;

/// neurokit2's `ecg_clean(method='neurokit')` with a 50-Hz (or `powerline`) mains period.
pub fn ecg_clean(x: &[f64], fs: f64, powerline: f64) -> Result<Vec<f64>, SignalError> {
    let sos = butter(5, &[0.5], BandType::Highpass, fs)?;
    let hp = sosfiltfilt(&sos, x, default_padlen(&sos));
    let taps = if fs >= 100.0 { (fs / powerline) as usize } else { 2 };
    Ok(filtfilt(&vec![1.0; taps], &[taps as f64], &hp))
}

/// `numpy.gradient` with unit spacing.
fn gradient(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    if n < 2 {
        return vec![0.0; n];
    }
    (0..n)
        .map(|i| match i {
            0 => x[1] - x[0],
            i if i == n - 1 => x[n - 1] - x[n - 2],
            i => (x[i + 1] - x[i - 1]) / 2.0,
        })
        .collect()
}

/// neurokit2's boxcar `signal_smooth`: edges extended by `size` copies, `numpy.convolve(…, 'same')`.
fn boxcar_smooth(x: &[f64], size: usize) -> Vec<f64> {
    let n = x.len();
    if size <= 1 || n == 0 {
        return x.to_vec();
    }
    let mut ext = Vec::with_capacity(n + 2 * size);
    ext.extend(std::iter::repeat_n(x[0], size));
    ext.extend_from_slice(x);
    ext.extend(std::iter::repeat_n(x[n - 1], size));
    // same[i] = Σ_k ext[i + off − k] / size, off = (size − 1) / 2, k = 0..size (running sum).
    let off = (size - 1) / 2;
    let m = ext.len();
    let mut prefix = vec![0.0; m + 1];
    for i in 0..m {
        prefix[i + 1] = prefix[i] + ext[i];
    }
    (size..size + n)
        .map(|i| {
            let hi = (i + off + 1).min(m);
            let lo = (i + off + 1).saturating_sub(size);
            (prefix[hi] - prefix[lo]) / size as f64
        })
        .collect()
}

/// Local maxima as `scipy.signal.find_peaks` finds them (flat tops at their middle) and their prominences.
fn peaks_with_prominence(x: &[f64]) -> Vec<(usize, f64)> {
    let n = x.len();
    let mut out = Vec::new();
    let mut i = 1;
    while i + 1 < n {
        if x[i - 1] < x[i] {
            let mut ahead = i + 1;
            while ahead < n - 1 && x[ahead] == x[i] {
                ahead += 1;
            }
            if x[ahead] < x[i] {
                let p = (i + ahead - 1) / 2;
                let (mut left_min, mut j) = (x[p], p as isize);
                while j >= 0 && x[j as usize] <= x[p] {
                    left_min = left_min.min(x[j as usize]);
                    j -= 1;
                }
                let (mut right_min, mut j) = (x[p], p);
                while j < n && x[j] <= x[p] {
                    right_min = right_min.min(x[j]);
                    j += 1;
                }
                out.push((p, x[p] - left_min.max(right_min)));
                i = ahead;
            }
        }
        i += 1;
    }
    out
}

/// `round` as numpy's `rint` (half to even).
fn rint(v: f64) -> usize {
    let r = v.round();
    (if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - 1.0 } else { r }) as usize
}

/// R-peak sample indices in a cleaned ECG (neurokit2's `ecg_findpeaks(method='neurokit')`).
pub fn find_r_peaks(clean: &[f64], fs: f64) -> Vec<usize> {
    let absgrad: Vec<f64> = gradient(clean).iter().map(|v| v.abs()).collect();
    let smooth = boxcar_smooth(&absgrad, rint(0.1 * fs));
    let avg = boxcar_smooth(&smooth, rint(0.75 * fs));
    let qrs: Vec<bool> = smooth.iter().zip(&avg).map(|(s, a)| *s > 1.5 * a).collect();
    let beg: Vec<usize> = (0..qrs.len().saturating_sub(1)).filter(|&i| !qrs[i] && qrs[i + 1]).collect();
    let Some(&first) = beg.first() else { return Vec::new() };
    let end: Vec<usize> = (0..qrs.len().saturating_sub(1)).filter(|&i| qrs[i] && !qrs[i + 1] && i > first).collect();
    let num = beg.len().min(end.len());
    if num == 0 {
        return Vec::new();
    }
    let min_len = (0..num).map(|i| (end[i] - beg[i]) as f64).sum::<f64>() / num as f64 * 0.4;
    let mindelay = rint(0.3 * fs);
    let mut peaks = vec![0usize];
    for i in 0..num {
        let (b, e) = (beg[i], end[i]);
        if e < b || ((e - b) as f64) < min_len {
            continue;
        }
        let local = peaks_with_prominence(&clean[b..e]);
        if let Some(&(p, _)) = local.iter().reduce(|best, c| if c.1 > best.1 { c } else { best }) {
            let peak = b + p;
            if peak as isize - *peaks.last().unwrap() as isize > mindelay as isize {
                peaks.push(peak);
            }
        }
    }
    peaks.remove(0);
    peaks
}

/// Time-domain HRV of R-peaks at `fs` (neurokit2's `hrv_time` definitions), and the mean heart rate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct Hrv {
    pub beats: usize,
    /// Mean heart rate, 60000 / MeanNN (beats per minute).
    pub HR: f64,
    pub MeanNN: f64,
    pub SDNN: f64,
    pub RMSSD: f64,
    pub pNN50: f64,
    /// RR intervals in ms.
    pub rr_ms: Vec<f64>,
}

pub fn hrv(peaks: &[usize], fs: f64) -> Result<Hrv, SignalError> {
    if peaks.len() < 3 {
        return Err(invalid!("{} R-peaks: at least 3 are needed", peaks.len()));
    }
    let rr: Vec<f64> = peaks.windows(2).map(|w| (w[1] - w[0]) as f64 / fs * 1000.0).collect();
    let n = rr.len() as f64;
    let mean = rr.iter().sum::<f64>() / n;
    let sdnn = (rr.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let diff: Vec<f64> = rr.windows(2).map(|w| w[1] - w[0]).collect();
    let rmssd = (diff.iter().map(|d| d * d).sum::<f64>() / diff.len() as f64).sqrt();
    let pnn50 = 100.0 * diff.iter().filter(|d| d.abs() > 50.0).count() as f64 / diff.len() as f64;
    Ok(Hrv { beats: peaks.len(), HR: 60000.0 / mean, MeanNN: mean, SDNN: sdnn, RMSSD: rmssd, pNN50: pnn50, rr_ms: rr })
}

/// EOG activity over a signal: RMS and the number of threshold crossings of the 0.5–15 Hz band (blinks and
/// saccades as deflections beyond `k` × the median absolute value of the band-passed signal, at least 0.2 s
/// apart).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EogActivity {
    pub rms: f64,
    pub events: usize,
    pub threshold: f64,
}

pub fn eog_activity(x: &[f64], fs: f64, k: f64) -> Result<EogActivity, SignalError> {
    if x.len() < 3 {
        return Err("too few samples".into());
    }
    let sos = butter(2, &[0.5, 15.0_f64.min(fs / 2.0 - 1.0)], BandType::Bandpass, fs)?;
    let y = sosfiltfilt(&sos, x, default_padlen(&sos));
    let rms = (x.iter().map(|v| v * v).sum::<f64>() / x.len() as f64).sqrt();
    let mut abs: Vec<f64> = y.iter().map(|v| v.abs()).collect();
    abs.sort_by(f64::total_cmp);
    let mad = abs[abs.len() / 2];
    let threshold = k * mad;
    let refractory = (0.2 * fs) as usize;
    let mut events = 0;
    let mut last: Option<usize> = None;
    for (i, v) in y.iter().enumerate() {
        if v.abs() > threshold && last.is_none_or(|l| i - l > refractory) {
            events += 1;
            last = Some(i);
        } else if v.abs() > threshold {
            last = Some(i);
        }
    }
    Ok(EogActivity { rms, events, threshold })
}

/// Oxygen saturation (or any slow physiological channel) summary: mean, minimum, and desaturation events —
/// drops of at least `drop` (3 percentage points by default) below the highest value of the preceding
/// 120 s, lasting at least 10 s — with the oxygen desaturation index (events per hour).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SaturationSummary {
    pub mean: f64,
    pub min: f64,
    pub desaturations: usize,
    pub odi: f64,
}

pub fn saturation_summary(x: &[f64], fs: f64, drop: f64) -> Result<SaturationSummary, SignalError> {
    let valid: Vec<f64> = x.iter().copied().filter(|v| v.is_finite() && *v > 0.0).collect();
    if valid.is_empty() {
        return Err("no valid samples (all zero or missing)".into());
    }
    let mean = valid.iter().sum::<f64>() / valid.len() as f64;
    let min = valid.iter().copied().fold(f64::INFINITY, f64::min);
    let look = (120.0 * fs) as usize;
    let min_len = (10.0 * fs) as usize;
    let mut events = 0;
    let mut run = 0usize;
    let mut in_event = false;
    // Running maximum of the preceding window (monotonic deque).
    let mut deque: std::collections::VecDeque<usize> = Default::default();
    for i in 0..x.len() {
        let v = x[i];
        let baseline = deque.front().map(|&j| x[j]);
        let low = baseline.is_some_and(|b| v.is_finite() && v > 0.0 && v <= b - drop);
        if low {
            run += 1;
            if run >= min_len && !in_event {
                events += 1;
                in_event = true;
            }
        } else {
            run = 0;
            in_event = false;
        }
        if v.is_finite() && v > 0.0 {
            while deque.back().is_some_and(|&j| x[j] <= v) {
                deque.pop_back();
            }
            deque.push_back(i);
        }
        while deque.front().is_some_and(|&j| j + look < i + 1) {
            deque.pop_front();
        }
    }
    let hours = x.len() as f64 / fs / 3600.0;
    Ok(SaturationSummary {
        mean,
        min,
        desaturations: events,
        odi: if hours > 0.0 { events as f64 / hours } else { 0.0 },
    })
}
