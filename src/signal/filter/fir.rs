//! FIR filtering exactly as MNE-Python 1.13 `mne.filter.filter_data(x, sfreq, l_freq, h_freq, method='fir',
//! phase='zero', fir_window='hamming', fir_design='firwin')` does it: automatic transition bands
//! (l: min(max(0.25·l, 2), l); h: min(max(0.25·h, 2), Nyquist − h)), filter length
//! ⌈3.3·sfreq / narrowest transition⌉ made odd, the response built as a sum of `scipy.signal.firwin` low-passes
//! (one per band edge, each as long as its own transition needs), the signal padded by `reflect_limited` on
//! both sides, convolved, and the (N − 1)/2 delay of the linear-phase filter removed.

use crate::signal::error::{SignalError, invalid};
use realfft::RealFftPlanner;
use serde::Serialize;
use std::f64::consts::PI;

/// MNE's window length factors (`_length_factors`): samples per transition width.
fn length_factor(window: FirWindow) -> f64 {
    match window {
        FirWindow::Hann => 3.1,
        FirWindow::Hamming => 3.3,
        FirWindow::Blackman => 5.0,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FirWindow {
    Hann,
    Hamming,
    Blackman,
}

impl FirWindow {
    pub fn parse(s: &str) -> Result<FirWindow, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "hann" => Ok(FirWindow::Hann),
            "hamming" => Ok(FirWindow::Hamming),
            "blackman" => Ok(FirWindow::Blackman),
            o => Err(invalid!("unknown FIR window {o:?} (hann, hamming, blackman)")),
        }
    }

    /// The symmetric window of `m` points (`scipy.signal.get_window(w, m, fftbins=False)`).
    fn symmetric(self, m: usize) -> Vec<f64> {
        let a: &[f64] = match self {
            FirWindow::Hann => &[0.5, 0.5],
            FirWindow::Hamming => &[0.54, 0.46],
            FirWindow::Blackman => &[0.42, 0.5, 0.08],
        };
        if m == 1 {
            return vec![1.0];
        }
        (0..m)
            .map(|i| {
                let phi = -PI + 2.0 * PI * i as f64 / (m - 1) as f64;
                a.iter().enumerate().map(|(k, ak)| ak * (k as f64 * phi).cos()).sum()
            })
            .collect()
    }
}

/// A designed FIR filter and the parameters MNE would report for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FirFilter {
    pub l_freq: Option<f64>,
    pub h_freq: Option<f64>,
    pub l_trans_bandwidth: Option<f64>,
    pub h_trans_bandwidth: Option<f64>,
    pub window: FirWindow,
    #[serde(skip)]
    pub taps: Vec<f64>,
    pub length: usize,
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 { 1.0 } else { (PI * x).sin() / (PI * x) }
}

/// `scipy.signal.firwin(n, cutoff, window, pass_zero=True, fs=2)`: a windowed-sinc low-pass scaled to unit
/// gain at DC; `cutoff` relative to Nyquist.
fn firwin_lowpass(n: usize, cutoff: f64, window: FirWindow) -> Vec<f64> {
    let alpha = 0.5 * (n as f64 - 1.0);
    let w = window.symmetric(n);
    let mut h: Vec<f64> = (0..n).map(|i| cutoff * sinc(cutoff * (i as f64 - alpha)) * w[i]).collect();
    let s: f64 = h.iter().sum();
    for v in &mut h {
        *v /= s;
    }
    h
}

/// `round(x)` as numpy rounds (half to even), for the per-edge filter lengths.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 { r - x.signum() } else { r }
}

impl FirFilter {
    /// Designs the filter MNE designs for `l_freq` (high-pass edge) and/or `h_freq` (low-pass edge).
    pub fn design(
        sfreq: f64,
        l_freq: Option<f64>,
        h_freq: Option<f64>,
        window: FirWindow,
    ) -> Result<FirFilter, SignalError> {
        let nyq = sfreq / 2.0;
        if !(sfreq > 0.0 && sfreq.is_finite()) {
            return Err(invalid!("sampling rate {sfreq} is not positive"));
        }
        if l_freq.is_none() && h_freq.is_none() {
            return Err("give a high-pass (l_freq) and/or a low-pass (h_freq) frequency".into());
        }
        if let Some(l) = l_freq.filter(|l| !(*l > 0.0)) {
            return Err(invalid!("highpass frequency {l} must be greater than zero"));
        }
        if let Some(l) = l_freq.filter(|l| !(*l < nyq)) {
            return Err(invalid!("highpass frequency {l} must be less than Nyquist ({nyq})"));
        }
        if let Some(h) = h_freq.filter(|h| !(*h < nyq)) {
            return Err(invalid!("lowpass frequency {h} must be less than Nyquist ({nyq})"));
        }
        if let (Some(l), Some(h)) = (l_freq, h_freq) {
            if l >= h {
                return Err(invalid!("l_freq {l} must be below h_freq {h} (band-stop is not supported)"));
            }
        }
        let l_trans = l_freq.map(|l| (0.25 * l).max(2.0).min(l));
        let h_trans = h_freq.map(|h| (0.25 * h).max(2.0).min(nyq - h));
        if h_trans.is_some_and(|t| t <= 0.0) {
            return Err("the low-pass edge leaves no room for a transition band below Nyquist".into());
        }
        let min_trans = l_trans.unwrap_or(f64::INFINITY).min(h_trans.unwrap_or(f64::INFINITY));
        let factor = length_factor(window);
        // filter_length "auto" → "{factor / min_trans}s" → ceil(seconds × sfreq), made odd.
        let mut n = ((factor / min_trans * sfreq).ceil() as usize).max(1);
        n += (n - 1) % 2;
        // Gain control points from 0 to Nyquist.
        let mut points: Vec<(f64, f64)> = Vec::new();
        match (l_freq, h_freq) {
            (Some(l), Some(h)) => {
                let (s1, s2) = (l - l_trans.unwrap(), h + h_trans.unwrap());
                if s1 != 0.0 {
                    points.push((0.0, 0.0));
                }
                points.extend([(s1, 0.0), (l, 1.0), (h, 1.0), (s2, 0.0)]);
                if s2 != nyq {
                    points.push((nyq, 0.0));
                }
            }
            (Some(l), None) => {
                let s = l - l_trans.unwrap();
                if s != 0.0 {
                    points.push((0.0, 0.0));
                }
                points.extend([(s, 0.0), (l, 1.0), (nyq, 1.0)]);
            }
            (None, Some(h)) => {
                let s = h + h_trans.unwrap();
                points.extend([(0.0, 1.0), (h, 1.0), (s, 0.0)]);
                if s != nyq {
                    points.push((nyq, 0.0));
                }
            }
            (None, None) => unreachable!(),
        }
        let freq: Vec<f64> = points.iter().map(|p| p.0 / nyq).collect();
        let gain: Vec<f64> = points.iter().map(|p| p.1).collect();
        // MNE's _firwin_design: walk the control points from Nyquist down, adding or subtracting a low-pass at
        // each gain step.
        let mut taps = vec![0.0; n];
        if *gain.last().unwrap() == 1.0 {
            taps[n / 2] = 1.0;
        }
        let (mut prev_f, mut prev_g) = (*freq.last().unwrap(), *gain.last().unwrap());
        for k in (0..freq.len() - 1).rev() {
            let (f, g) = (freq[k], gain[k]);
            if g != prev_g {
                let transition = (prev_f - f) / 2.0;
                let mut this_n = round_half_even(factor / transition) as usize;
                this_n += 1 - this_n % 2;
                if this_n > n {
                    return Err(invalid!(
                        "filter length {n} is too short for a {:.2} Hz transition band ({this_n} samples needed)",
                        transition * sfreq
                    ));
                }
                let lp = firwin_lowpass(this_n, (prev_f + f) / 2.0, window);
                let off = (n - this_n) / 2;
                for (i, v) in lp.iter().enumerate() {
                    if g == 0.0 {
                        taps[off + i] -= v;
                    } else {
                        taps[off + i] += v;
                    }
                }
            }
            prev_g = g;
            prev_f = f;
        }
        Ok(FirFilter {
            l_freq,
            h_freq,
            l_trans_bandwidth: l_trans,
            h_trans_bandwidth: h_trans,
            window,
            length: n,
            taps,
        })
    }

    /// Zero-phase filtering as `filter_data(..., phase='zero', pad='reflect_limited')`.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        let h = &self.taps;
        if x.is_empty() {
            return Vec::new();
        }
        if h.len() == 1 {
            return x.iter().map(|v| v * h[0]).collect();
        }
        let n_edge = h.len().min(x.len()) - 1;
        let ext = reflect_limited(x, n_edge);
        let shift = (h.len() - 1) / 2 + n_edge;
        let full = convolve(&ext, h);
        full[shift..shift + x.len()].to_vec()
    }
}

/// MNE's `_smart_pad(x, (n, n), 'reflect_limited')`: odd reflection about the end samples, zeros beyond
/// the signal's own length.
pub fn reflect_limited(x: &[f64], n: usize) -> Vec<f64> {
    let len = x.len();
    let mut out = Vec::with_capacity(len + 2 * n);
    out.extend(std::iter::repeat_n(0.0, (n + 1).saturating_sub(len)));
    // 2·x[0] − x[n], …, 2·x[0] − x[1] (as many as the signal holds).
    let left = n.min(len - 1);
    out.extend((1..=left).rev().map(|i| 2.0 * x[0] - x[i]));
    out.extend_from_slice(x);
    let right = n.min(len - 1);
    out.extend((1..=right).map(|i| 2.0 * x[len - 1] - x[len - 1 - i]));
    out.extend(std::iter::repeat_n(0.0, (n + 1).saturating_sub(len)));
    out
}

/// Full linear convolution by overlap-add FFTs.
pub fn convolve(x: &[f64], h: &[f64]) -> Vec<f64> {
    let out_len = x.len() + h.len() - 1;
    let nfft = (4 * h.len()).max(4096).next_power_of_two().min((out_len).next_power_of_two());
    let block = nfft - h.len() + 1;
    let mut planner = RealFftPlanner::<f64>::new();
    let fwd = planner.plan_fft_forward(nfft);
    let inv = planner.plan_fft_inverse(nfft);
    let mut hbuf = fwd.make_input_vec();
    hbuf[..h.len()].copy_from_slice(h);
    let mut hspec = fwd.make_output_vec();
    fwd.process(&mut hbuf, &mut hspec).expect("plan sizes");
    let mut out = vec![0.0; out_len];
    let mut buf = fwd.make_input_vec();
    let mut spec = fwd.make_output_vec();
    let scale = 1.0 / nfft as f64;
    let mut start = 0;
    while start < x.len() {
        let end = (start + block).min(x.len());
        buf.fill(0.0);
        buf[..end - start].copy_from_slice(&x[start..end]);
        fwd.process(&mut buf, &mut spec).expect("plan sizes");
        for (s, hs) in spec.iter_mut().zip(&hspec) {
            *s *= hs;
        }
        // DC and Nyquist are real; say so exactly (rounding, or a NaN in the input, would make realfft refuse).
        spec[0].im = 0.0;
        if let Some(last) = spec.last_mut() {
            last.im = 0.0;
        }
        inv.process(&mut spec, &mut buf).expect("plan sizes");
        let n = (end - start + h.len() - 1).min(out_len - start);
        for i in 0..n {
            out[start + i] += buf[i] * scale;
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mne_lengths_and_transitions() {
        // mne.filter.create_filter(None, 250, 0.5, 40): l_trans 0.5 Hz, h_trans 10 Hz, 1651 taps (6.604 s).
        let f = FirFilter::design(250.0, Some(0.5), Some(40.0), FirWindow::Hamming).unwrap();
        assert_eq!((f.l_trans_bandwidth, f.h_trans_bandwidth, f.length), (Some(0.5), Some(10.0), 1651));
        let sum: f64 = f.taps.iter().sum();
        assert!(sum.abs() < 1e-3, "band-pass DC gain {sum}");
    }

    #[test]
    fn convolution_and_padding() {
        let x = [1.0, 2.0, 3.0];
        assert_eq!(convolve(&x, &[1.0, 1.0]).iter().map(|v| v.round()).collect::<Vec<_>>(), [1.0, 3.0, 5.0, 3.0]);
        // reflect_limited by 2: [2·1 − 3, 2·1 − 2, 1, 2, 3, 2·3 − 2, 2·3 − 1].
        assert_eq!(reflect_limited(&x, 2), [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        // Longer than the signal: zeros beyond.
        assert_eq!(reflect_limited(&x, 4), [0.0, 0.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 0.0]);
    }
}
