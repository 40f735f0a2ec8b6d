//! Channel × channel connectivity — the bridge from a recording to the Networks room:
//! - `corr`: Pearson correlation of the samples (`numpy.corrcoef`);
//! - `coh`: magnitude-squared coherence as `scipy.signal.coherence` (Welch cross-spectra, same parameters),
//!   averaged over the bins with lo ≤ f ≤ hi;
//! - `plv`: phase-locking value |mean e^{i(φx − φy)}| of the analytic signals (`scipy.signal.hilbert`) after
//!   MNE's default FIR band-pass;
//! - `wpli`: weighted phase-lag index |Σ Im(zx·zy*)| / Σ |Im(zx·zy*)| over time of the same analytic signals.
//!
//! The diagonal is 1 (corr, coh, plv) or 0 (wPLI).

use super::filter::fir::{FirFilter, FirWindow};
use super::spectrum::welch::{Periodogram, WelchParams};
use crate::signal::error::{SignalError, invalid};
use realfft::num_complex::Complex;
use rustfft::FftPlanner;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    Corr,
    Coh,
    Plv,
    Wpli,
}

impl Method {
    pub fn parse(s: &str) -> Result<Method, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "corr" | "pearson" => Ok(Method::Corr),
            "coh" | "coherence" => Ok(Method::Coh),
            "plv" => Ok(Method::Plv),
            "wpli" => Ok(Method::Wpli),
            o => Err(invalid!("unknown method {o:?} (corr, coh, plv, wpli)")),
        }
    }

    pub fn needs_band(self) -> bool {
        !matches!(self, Method::Corr)
    }
}

/// `scipy.signal.hilbert(x)`: the analytic signal by an FFT of the signal's own length.
pub fn analytic(x: &[f64]) -> Vec<Complex<f64>> {
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    let mut planner = FftPlanner::<f64>::new();
    let mut buf: Vec<Complex<f64>> = x.iter().map(|&v| Complex::new(v, 0.0)).collect();
    planner.plan_fft_forward(n).process(&mut buf);
    // h: 1 at DC (and Nyquist for even n), 2 for positive frequencies, 0 for negative ones.
    for (k, v) in buf.iter_mut().enumerate() {
        let h = if k == 0 || (n % 2 == 0 && k == n / 2) {
            1.0
        } else if k < n.div_ceil(2) {
            2.0
        } else {
            0.0
        };
        *v *= h;
    }
    planner.plan_fft_inverse(n).process(&mut buf);
    let scale = 1.0 / n as f64;
    buf.iter().map(|v| v * scale).collect()
}

/// Pearson correlation of two equal-length signals.
pub fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (dx, dy) = (x - ma, y - mb);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    sab / (saa * sbb).sqrt()
}

/// Row-major n × n matrix of `method` between the signals in `data` (equal lengths, one rate `fs`).
pub fn connectivity(
    data: &[Vec<f64>],
    fs: f64,
    method: Method,
    band: Option<(f64, f64)>,
    welch: &WelchParams,
) -> Result<Vec<f64>, SignalError> {
    let n = data.len();
    if n < 2 {
        return Err("connectivity needs at least two channels".into());
    }
    let len = data[0].len();
    if data.iter().any(|d| d.len() != len) {
        return Err("channels differ in length (different sampling rates?)".into());
    }
    if len < 2 {
        return Err("the signals are too short".into());
    }
    let band = match (method.needs_band(), band) {
        (true, None) => return Err(invalid!("{method:?} needs a band (--band LO-HI)")),
        (_, b) => b,
    };
    let mut m = vec![0.0; n * n];
    match method {
        Method::Corr => {
            for i in 0..n {
                m[i * n + i] = 1.0;
                for j in i + 1..n {
                    let r = pearson(&data[i], &data[j]);
                    m[i * n + j] = r;
                    m[j * n + i] = r;
                }
            }
        }
        Method::Coh => {
            let (lo, hi) = band.expect("checked");
            let p = *welch;
            let nperseg = p.nperseg.unwrap_or(256).min(len);
            let noverlap = p.noverlap.unwrap_or(nperseg / 2);
            let nfft = p.nfft.unwrap_or(nperseg);
            if noverlap >= nperseg || nfft < nperseg {
                return Err(invalid!("invalid segments: nperseg {nperseg}, noverlap {noverlap}, nfft {nfft}"));
            }
            let freqs = super::spectrum::welch::freqs(nfft, fs);
            let bins: Vec<usize> = (0..freqs.len()).filter(|&k| freqs[k] >= lo && freqs[k] <= hi).collect();
            if bins.is_empty() {
                return Err(invalid!("no frequency bin in {lo}–{hi} Hz at a resolution of {} Hz", fs / nfft as f64));
            }
            let step = nperseg - noverlap;
            let segments = (len - noverlap) / step;
            let mut pg = Periodogram::new(p.window, nperseg, nfft, fs, p.scaling, p.detrend);
            // Σ over segments of Xi*·Xj at the band's bins, for every pair (and auto-spectra on the diagonal).
            let nb = bins.len();
            let mut cross = vec![Complex::new(0.0, 0.0); n * n * nb];
            let mut spec = vec![Complex::new(0.0, 0.0); n * nb];
            for s in 0..segments {
                for (c, x) in data.iter().enumerate() {
                    let f = pg.spectrum(&x[s * step..s * step + nperseg]);
                    for (b, &k) in bins.iter().enumerate() {
                        spec[c * nb + b] = f[k];
                    }
                }
                for i in 0..n {
                    for j in i..n {
                        for b in 0..nb {
                            cross[(i * n + j) * nb + b] += spec[i * nb + b].conj() * spec[j * nb + b];
                        }
                    }
                }
            }
            for i in 0..n {
                m[i * n + i] = 1.0;
                for j in i + 1..n {
                    let mut sum = 0.0;
                    for b in 0..nb {
                        let pxy = cross[(i * n + j) * nb + b];
                        let (pxx, pyy) = (cross[(i * n + i) * nb + b].re, cross[(j * n + j) * nb + b].re);
                        sum += pxy.norm_sqr() / (pxx * pyy);
                    }
                    let c = sum / nb as f64;
                    m[i * n + j] = c;
                    m[j * n + i] = c;
                }
            }
        }
        Method::Plv | Method::Wpli => {
            let (lo, hi) = band.expect("checked");
            let f = FirFilter::design(fs, Some(lo), Some(hi), FirWindow::Hamming)?;
            let z: Vec<Vec<Complex<f64>>> = data.iter().map(|x| analytic(&f.apply(x))).collect();
            for i in 0..n {
                m[i * n + i] = if method == Method::Plv { 1.0 } else { 0.0 };
                for j in i + 1..n {
                    let v = if method == Method::Plv {
                        let s: Complex<f64> = z[i]
                            .iter()
                            .zip(&z[j])
                            .map(|(a, b)| {
                                let d = a.arg() - b.arg();
                                Complex::new(d.cos(), d.sin())
                            })
                            .sum();
                        s.norm() / len as f64
                    } else {
                        let (mut num, mut den) = (0.0, 0.0);
                        for (a, b) in z[i].iter().zip(&z[j]) {
                            let im = (a * b.conj()).im;
                            num += im;
                            den += im.abs();
                        }
                        if den > 0.0 { num.abs() / den } else { 0.0 }
                    };
                    m[i * n + j] = v;
                    m[j * n + i] = v;
                }
            }
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analytic_signal_of_a_cosine_is_the_complex_exponential() {
        let n = 64;
        let x: Vec<f64> = (0..n).map(|t| (2.0 * std::f64::consts::PI * 4.0 * t as f64 / n as f64).cos()).collect();
        for (t, z) in analytic(&x).iter().enumerate() {
            let ph = 2.0 * std::f64::consts::PI * 4.0 * t as f64 / n as f64;
            assert!((z.re - ph.cos()).abs() < 1e-12 && (z.im - ph.sin()).abs() < 1e-12);
        }
    }

    #[test]
    fn identical_and_shifted_signals() {
        let fs = 100.0;
        let a: Vec<f64> = (0..2000).map(|t| (2.0 * std::f64::consts::PI * 10.0 * t as f64 / fs).sin()).collect();
        let b: Vec<f64> = (0..2000).map(|t| (2.0 * std::f64::consts::PI * 10.0 * t as f64 / fs + 1.0).sin()).collect();
        let m = connectivity(&[a, b], fs, Method::Plv, Some((8.0, 12.0)), &WelchParams::default()).unwrap();
        assert!((m[1] - 1.0).abs() < 1e-2, "constant lag → PLV ≈ 1 (edges aside), got {}", m[1]);
        assert!(connectivity(&[vec![1.0; 10], vec![1.0; 10]], fs, Method::Coh, None, &WelchParams::default()).is_err());
    }
}
