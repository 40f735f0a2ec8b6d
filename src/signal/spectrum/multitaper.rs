//! Multitaper PSD as MNE-Python 1.13 `psd_array_multitaper(x, sfreq, bandwidth, adaptive=False,
//! low_bias=True, normalization='length')`: DPSS tapers as `scipy.signal.windows.dpss(N, NW, 2·NW,
//! sym=False, return_ratios=True)` (eigenvectors of the tridiagonal matrix of length N + 1, signs fixed as
//! scipy does, last sample dropped), tapers with concentration > 0.9 kept, the demeaned signal's tapered
//! spectra combined with weights √λ: PSD = 2 Σ λ|X|² / Σ λ, DC (and Nyquist) halved.

use super::welch::freqs;
use crate::signal::error::{SignalError, invalid};
use realfft::RealFftPlanner;
use serde::Serialize;
use std::f64::consts::PI;

/// Number of eigenvalues of the symmetric tridiagonal (d, e) below `x` (Sturm sequence).
fn count_below(d: &[f64], e: &[f64], x: f64) -> usize {
    let mut count = 0;
    let mut q = d[0] - x;
    if q < 0.0 {
        count += 1;
    }
    for i in 1..d.len() {
        let denom = if q == 0.0 { 1e-300 } else { q };
        q = d[i] - x - e[i - 1] * e[i - 1] / denom;
        if q < 0.0 {
            count += 1;
        }
    }
    count
}

/// The k-th smallest eigenvalue (0-based) by bisection.
fn eigenvalue(d: &[f64], e: &[f64], k: usize) -> f64 {
    let n = d.len();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..n {
        let r = if i > 0 { e[i - 1].abs() } else { 0.0 } + if i + 1 < n { e[i].abs() } else { 0.0 };
        lo = lo.min(d[i] - r);
        hi = hi.max(d[i] + r);
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count_below(d, e, mid) > k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Solves (T − λI) y = b for tridiagonal T (Gaussian elimination with partial pivoting).
fn solve_shifted(d: &[f64], e: &[f64], lambda: f64, b: &[f64]) -> Vec<f64> {
    let n = d.len();
    // Rows as (sub, diag, sup, sup2) after pivoting.
    let mut a: Vec<[f64; 4]> = (0..n)
        .map(|i| [if i > 0 { e[i - 1] } else { 0.0 }, d[i] - lambda, if i + 1 < n { e[i] } else { 0.0 }, 0.0])
        .collect();
    let mut y = b.to_vec();
    for i in 0..n.saturating_sub(1) {
        // Candidate pivots: row i (diag a[i][1]) and row i+1 (sub a[i+1][0]).
        if a[i + 1][0].abs() > a[i][1].abs() {
            // Swap rows i and i+1: row i+1 has entries (col i, i+1, i+2) = (sub, diag, sup).
            let ri = [a[i][1], a[i][2], a[i][3]];
            let rn = [a[i + 1][0], a[i + 1][1], a[i + 1][2]];
            a[i][1] = rn[0];
            a[i][2] = rn[1];
            a[i][3] = rn[2];
            a[i + 1][0] = ri[0];
            a[i + 1][1] = ri[1];
            a[i + 1][2] = ri[2];
            y.swap(i, i + 1);
        }
        let piv = if a[i][1] == 0.0 { 1e-300 } else { a[i][1] };
        let f = a[i + 1][0] / piv;
        a[i + 1][1] -= f * a[i][2];
        a[i + 1][2] -= f * a[i][3];
        y[i + 1] -= f * y[i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = y[i];
        if i + 1 < n {
            s -= a[i][2] * x[i + 1];
        }
        if i + 2 < n {
            s -= a[i][3] * x[i + 2];
        }
        let piv = if a[i][1] == 0.0 { 1e-300 } else { a[i][1] };
        x[i] = s / piv;
    }
    x
}

fn normalize(v: &mut [f64]) {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    for x in v.iter_mut() {
        *x /= n;
    }
}

/// DPSS tapers of length `n` (periodic, as `sym=False`) and their concentration ratios, `kmax` of them.
pub fn dpss(n: usize, nw: f64, kmax: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let m = n + 1;
    let w = nw / m as f64;
    let d: Vec<f64> =
        (0..m).map(|i| ((m as f64 - 1.0 - 2.0 * i as f64) / 2.0).powi(2) * (2.0 * PI * w).cos()).collect();
    let e: Vec<f64> = (1..m).map(|i| i as f64 * (m - i) as f64 / 2.0).collect();
    let mut tapers = Vec::new();
    for k in 0..kmax {
        let lambda = eigenvalue(&d, &e, m - 1 - k);
        // Inverse iteration from a fixed start.
        let mut v: Vec<f64> = (0..m).map(|i| 1.0 + 0.01 * ((i * 7919) % 101) as f64).collect();
        normalize(&mut v);
        for _ in 0..4 {
            v = solve_shifted(&d, &e, lambda, &v);
            normalize(&mut v);
        }
        tapers.push(v);
    }
    // scipy's sign conventions: even tapers sum positive; odd tapers start with a positive lobe.
    let thresh = (1.0 / m as f64).max(1e-7);
    for (k, t) in tapers.iter_mut().enumerate() {
        let flip = if k % 2 == 0 {
            t.iter().sum::<f64>() < 0.0
        } else {
            t.iter().find(|x| **x * **x > thresh).is_some_and(|x| *x < 0.0)
        };
        if flip {
            for x in t.iter_mut() {
                *x = -*x;
            }
        }
    }
    // Concentration ratios from the autocorrelation of each (untruncated) taper.
    let r: Vec<f64> =
        (0..m)
            .map(|lag| {
                if lag == 0 {
                    2.0 * w
                } else {
                    4.0 * w * (PI * 2.0 * w * lag as f64).sin() / (PI * 2.0 * w * lag as f64)
                }
            })
            .collect();
    let ratios: Vec<f64> = tapers.iter().map(|t| autocorr(t).iter().zip(&r).map(|(a, b)| a * b).sum()).collect();
    for t in &mut tapers {
        t.truncate(n);
    }
    (tapers, ratios)
}

/// Autocorrelation Σ_i t[i]·t[i + lag] for lags 0..len, by FFT of the zero-padded sequence.
fn autocorr(t: &[f64]) -> Vec<f64> {
    let m = t.len();
    let n = (2 * m).next_power_of_two();
    let mut planner = RealFftPlanner::<f64>::new();
    let fwd = planner.plan_fft_forward(n);
    let inv = planner.plan_fft_inverse(n);
    let mut buf = fwd.make_input_vec();
    buf[..m].copy_from_slice(t);
    let mut spec = fwd.make_output_vec();
    fwd.process(&mut buf, &mut spec).expect("plan sizes");
    for c in spec.iter_mut() {
        *c = realfft::num_complex::Complex::new(c.norm_sqr(), 0.0);
    }
    spec[0].im = 0.0;
    if let Some(last) = spec.last_mut() {
        last.im = 0.0;
    }
    inv.process(&mut spec, &mut buf).expect("plan sizes");
    buf[..m].iter().map(|v| v / n as f64).collect()
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultitaperPsd {
    pub freqs: Vec<f64>,
    pub psd: Vec<f64>,
    pub tapers: usize,
    pub half_bandwidth: f64,
}

/// Tapers for signals of one length, reused across epochs (a whole-night CDSA).
pub struct MultitaperPlan {
    n: usize,
    sfreq: f64,
    kept: Vec<(Vec<f64>, f64)>,
    half_nbw: f64,
    fft: std::sync::Arc<dyn realfft::RealToComplex<f64>>,
}

impl MultitaperPlan {
    /// `bandwidth` in Hz (None: MNE's default half-bandwidth of 4 frequency bins).
    pub fn new(n: usize, sfreq: f64, bandwidth: Option<f64>) -> Result<MultitaperPlan, SignalError> {
        if n < 2 {
            return Err("the signal is too short".into());
        }
        let half_nbw = bandwidth.map_or(4.0, |b| b * n as f64 / (2.0 * sfreq));
        if half_nbw < 0.5 {
            return Err(invalid!(
                "bandwidth {bandwidth:?} Hz gives a half-bandwidth of {half_nbw} < 0.5 bins (use at least {} Hz)",
                sfreq / n as f64
            ));
        }
        let kmax = ((2.0 * half_nbw) as usize).max(1);
        if kmax > n {
            return Err(invalid!("{n} samples are too few for {kmax} tapers (half-bandwidth {half_nbw} bins)"));
        }
        let (tapers, ratios) = dpss(n, half_nbw, kmax);
        let mut kept: Vec<(Vec<f64>, f64)> = tapers.into_iter().zip(ratios).filter(|(_, r)| *r > 0.9).collect();
        if kept.is_empty() {
            let (t, r) = dpss(n, half_nbw, 1);
            kept.push((t[0].clone(), r[0]));
        }
        Ok(MultitaperPlan { n, sfreq, kept, half_nbw, fft: RealFftPlanner::<f64>::new().plan_fft_forward(n) })
    }

    pub fn psd(&self, x: &[f64]) -> Result<MultitaperPsd, SignalError> {
        let n = self.n;
        if x.len() != n {
            return Err(invalid!("{} samples for a {n}-sample plan", x.len()));
        }
        let mean = x.iter().sum::<f64>() / n as f64;
        let mut input = self.fft.make_input_vec();
        let mut spec = self.fft.make_output_vec();
        let nf = n / 2 + 1;
        let mut acc = vec![0.0; nf];
        let mut wsum = 0.0;
        for (t, lambda) in &self.kept {
            for i in 0..n {
                input[i] = (x[i] - mean) * t[i];
            }
            self.fft.process(&mut input, &mut spec).map_err(|e| e.to_string())?;
            for (k, c) in spec.iter().enumerate() {
                let mut p = c.norm_sqr();
                if k == 0 || (n % 2 == 0 && k == nf - 1) {
                    p /= 2.0;
                }
                acc[k] += lambda * p;
            }
            wsum += lambda;
        }
        Ok(MultitaperPsd {
            freqs: freqs(n, self.sfreq),
            psd: acc.iter().map(|v| 2.0 * v / wsum).collect(),
            tapers: self.kept.len(),
            half_bandwidth: self.half_nbw,
        })
    }
}

/// `psd_array_multitaper(x, sfreq, bandwidth, adaptive=False, low_bias=True, normalization='length')`;
/// `bandwidth` in Hz (None: MNE's default half-bandwidth of 4 frequency bins).
pub fn multitaper_psd(x: &[f64], sfreq: f64, bandwidth: Option<f64>) -> Result<MultitaperPsd, SignalError> {
    MultitaperPlan::new(x.len(), sfreq, bandwidth)?.psd(x)
}
