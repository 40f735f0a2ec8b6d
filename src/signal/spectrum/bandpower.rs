//! Band power from a PSD: the bins whose frequency lies in [lo, hi] (both edges included), integrated by the
//! trapezoid rule over their frequencies (`numpy.trapezoid(psd[idx], freqs[idx])`, the default) or by
//! Simpson's rule with the bin spacing (`scipy.integrate.simpson(psd[idx], dx=res)`, YASA's convention);
//! relative power divides by the power over a total range integrated the same way. Also the peak frequency,
//! spectral edge frequency and spectral entropy of a range.

use super::welch::Psd;
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Integration {
    Trapezoid,
    Simpson,
}

impl Integration {
    pub fn parse(s: &str) -> Result<Integration, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "trapezoid" | "trapz" => Ok(Integration::Trapezoid),
            "simpson" | "simps" | "yasa" => Ok(Integration::Simpson),
            o => Err(invalid!("unknown integration {o:?} (trapezoid, simpson)")),
        }
    }
}

/// Indices of bins with lo ≤ f ≤ hi.
pub fn band_bins(freqs: &[f64], lo: f64, hi: f64) -> std::ops::Range<usize> {
    let start = freqs.iter().position(|&f| f >= lo).unwrap_or(freqs.len());
    let end = freqs.iter().rposition(|&f| f <= hi).map_or(0, |i| i + 1);
    start..end.max(start)
}

/// `numpy.trapezoid(y, x)`.
pub fn trapezoid(y: &[f64], x: &[f64]) -> f64 {
    y.windows(2).zip(x.windows(2)).map(|(y, x)| (x[1] - x[0]) * (y[1] + y[0]) / 2.0).sum()
}

/// `scipy.integrate.simpson(y, dx=dx)` (scipy ≥ 1.11: an even number of points gets Simpson's rule on the
/// first N − 1 points and Cartwright's correction on the last interval).
pub fn simpson(y: &[f64], dx: f64) -> f64 {
    let n = y.len();
    let basic = |stop: usize| -> f64 {
        // Σ over i = 0, 2, …, < stop of y[i] + 4 y[i+1] + y[i+2], times dx/3.
        let mut s = 0.0;
        let mut i = 0;
        while i < stop {
            s += y[i] + 4.0 * y[i + 1] + y[i + 2];
            i += 2;
        }
        s * dx / 3.0
    };
    match n {
        0 | 1 => 0.0,
        2 => 0.5 * dx * (y[0] + y[1]),
        n if n % 2 == 1 => basic(n - 2),
        n => {
            let (h0, h1) = (dx, dx);
            let alpha = (2.0 * h1 * h1 + 3.0 * h0 * h1) / (6.0 * (h1 + h0));
            let beta = (h1 * h1 + 3.0 * h0 * h1) / (6.0 * h0);
            let eta = h1 * h1 * h1 / (6.0 * h0 * (h0 + h1));
            basic(n - 3) + alpha * y[n - 1] + beta * y[n - 2] - eta * y[n - 3]
        }
    }
}

/// Absolute power in [lo, hi]; an error when the band holds fewer than two bins.
pub fn band_power(p: &Psd, lo: f64, hi: f64, integ: Integration) -> Result<f64, SignalError> {
    if !(lo < hi) {
        return Err(invalid!("band {lo}–{hi} Hz: the lower edge must be below the upper"));
    }
    let r = band_bins(&p.freqs, lo, hi);
    if r.len() < 2 {
        let res = p.freqs.get(1).copied().unwrap_or(0.0);
        return Err(invalid!(
            "band {lo}–{hi} Hz holds {} frequency bin(s) at a resolution of {res} Hz (2 needed): use a wider band or a longer nperseg",
            r.len()
        ));
    }
    Ok(match integ {
        Integration::Trapezoid => trapezoid(&p.psd[r.clone()], &p.freqs[r]),
        Integration::Simpson => simpson(&p.psd[r], p.freqs[1] - p.freqs[0]),
    })
}

/// Relative power: the power in `band` divided by the power over `total`, both integrated by `integ` (a
/// fraction; × 100 for percent). An error when either range holds fewer than two bins or `total` has no power.
pub fn relative_band_power(
    p: &Psd,
    band: (f64, f64),
    total: (f64, f64),
    integ: Integration,
) -> Result<f64, SignalError> {
    let v = band_power(p, band.0, band.1, integ)?;
    let t = band_power(p, total.0, total.1, integ).map_err(|e| invalid!("total {e}"))?;
    if !(t > 0.0) {
        return Err(invalid!("total {}–{} Hz: no power to divide by", total.0, total.1));
    }
    Ok(v / t)
}

/// The power of `p` in each of `bands`: absolute, or (`relative`) as a fraction of the power from the lowest
/// to the highest band edge (YASA's `bandpower` convention for its relative values).
pub fn bands_power(p: &Psd, bands: &[(f64, f64)], relative: bool, integ: Integration) -> Result<Vec<f64>, SignalError> {
    let (lo, hi) = bands.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (l, u)| (a.min(*l), b.max(*u)));
    bands
        .iter()
        .map(|&b| if relative { relative_band_power(p, b, (lo, hi), integ) } else { band_power(p, b.0, b.1, integ) })
        .collect()
}

/// Frequency of the largest PSD bin in [lo, hi] (individual alpha frequency with 7–13 Hz).
pub fn peak_frequency(p: &Psd, lo: f64, hi: f64) -> Option<f64> {
    let r = band_bins(&p.freqs, lo, hi);
    r.max_by(|&a, &b| p.psd[a].total_cmp(&p.psd[b])).map(|k| p.freqs[k])
}

/// Spectral edge frequency: the lowest bin frequency in [lo, hi] at which the running sum of PSD bins reaches
/// `fraction` (e.g. 0.95) of their total.
pub fn spectral_edge(p: &Psd, lo: f64, hi: f64, fraction: f64) -> Option<f64> {
    let r = band_bins(&p.freqs, lo, hi);
    let total: f64 = p.psd[r.clone()].iter().sum();
    if !(total > 0.0) {
        return None;
    }
    let mut run = 0.0;
    for k in r {
        run += p.psd[k];
        if run >= fraction * total {
            return Some(p.freqs[k]);
        }
    }
    None
}

/// Shannon entropy (bits) of the PSD bins in [lo, hi] normalised to sum 1 (antropy's `spectral_entropy`
/// with a Welch PSD); `normalize` divides by log2 of the bin count.
pub fn spectral_entropy(p: &Psd, lo: f64, hi: f64, normalize: bool) -> Option<f64> {
    let r = band_bins(&p.freqs, lo, hi);
    let n = r.len();
    let total: f64 = p.psd[r.clone()].iter().sum();
    if n == 0 || !(total > 0.0) {
        return None;
    }
    let h: f64 = p.psd[r].iter().map(|v| v / total).filter(|q| *q > 0.0).map(|q| -q * q.log2()).sum();
    Some(if normalize && n > 1 { h / (n as f64).log2() } else { h })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simpson_matches_scipy_on_small_cases() {
        // scipy.integrate.simpson([1, 2, 4], dx=0.5) = 0.5/3 · (1 + 8 + 4) = 2.1666…
        assert!((simpson(&[1.0, 2.0, 4.0], 0.5) - 13.0 / 6.0).abs() < 1e-15);
        // Even count: scipy.integrate.simpson([1, 2, 4, 8], dx=1) = 10.166666666666666 (scipy 1.17.1).
        assert!((simpson(&[1.0, 2.0, 4.0, 8.0], 1.0) - 61.0 / 6.0).abs() < 1e-12);
        assert_eq!(simpson(&[3.0, 5.0], 2.0), 8.0);
    }

    #[test]
    fn trapezoid_and_bins() {
        assert_eq!(trapezoid(&[1.0, 3.0, 5.0], &[0.0, 1.0, 3.0]), 2.0 + 8.0);
        let f = [0.0, 0.5, 1.0, 1.5, 2.0];
        assert_eq!(band_bins(&f, 0.5, 1.5), 1..4);
        assert_eq!(band_bins(&f, 0.6, 0.9), 2..2);
    }
}
