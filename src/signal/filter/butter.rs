//! Butterworth filters of any order as second-order sections, with the transfer function
//! `scipy.signal.butter(N, Wn, btype, fs=fs, output='sos')` gives: analog prototype poles, frequency
//! pre-warping, low-pass → low/high/band-pass transformation, bilinear transform, then poles paired with
//! their conjugates (a real pole left over for odd orders sits in a first-order section, as scipy pads it).
//! Section order may differ from scipy's pairing; the cascade's response and `sosfiltfilt` output agree to
//! rounding.

use super::iir::Section;
use crate::signal::error::{SignalError, invalid};
use realfft::num_complex::Complex;
use std::f64::consts::PI;

type C = Complex<f64>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandType {
    Lowpass,
    Highpass,
    Bandpass,
}

fn prod(v: &[C]) -> C {
    v.iter().fold(C::new(1.0, 0.0), |a, b| a * b)
}

/// Zeros, poles and gain of the digital filter.
fn zpk(order: usize, edges_hz: &[f64], btype: BandType, fs: f64) -> Result<(Vec<C>, Vec<C>, f64), SignalError> {
    if order == 0 {
        return Err("the filter order must be at least 1".into());
    }
    let nyq = fs / 2.0;
    for &e in edges_hz {
        if !(e > 0.0 && e < nyq) {
            return Err(invalid!("{e} Hz must lie between 0 and Nyquist ({nyq} Hz)"));
        }
    }
    // Analog prototype (scipy buttap): poles −exp(iπm/2N), m = −N+1, −N+3, …, N−1.
    let n = order as i64;
    let proto: Vec<C> = (0..order)
        .map(|k| {
            let m = -n + 1 + 2 * k as i64;
            -(C::new(0.0, PI * m as f64 / (2.0 * n as f64))).exp()
        })
        .collect();
    // Pre-warp normalised edges with fs = 2 (as scipy's iirfilter does).
    let warp = |hz: f64| 4.0 * (PI * (hz / nyq) / 2.0).tan();
    let (z, p, k): (Vec<C>, Vec<C>, f64) = match (btype, edges_hz) {
        (BandType::Lowpass, [f]) => {
            let wo = warp(*f);
            (Vec::new(), proto.iter().map(|p| p * wo).collect(), wo.powi(n as i32))
        }
        (BandType::Highpass, [f]) => {
            let wo = warp(*f);
            let k = (C::new(1.0, 0.0) / prod(&proto.iter().map(|p| -p).collect::<Vec<_>>())).re;
            (vec![C::new(0.0, 0.0); order], proto.iter().map(|p| wo / p).collect(), k)
        }
        (BandType::Bandpass, [lo, hi]) => {
            if lo >= hi {
                return Err(invalid!("band {lo}–{hi} Hz: the low edge must be below the high edge"));
            }
            let (w1, w2) = (warp(*lo), warp(*hi));
            let (wo, bw) = ((w1 * w2).sqrt(), w2 - w1);
            let p_lp: Vec<C> = proto.iter().map(|p| p * bw / 2.0).collect();
            let mut p = Vec::with_capacity(2 * order);
            for q in &p_lp {
                let r = (q * q - wo * wo).sqrt();
                p.push(q + r);
            }
            for q in &p_lp {
                let r = (q * q - wo * wo).sqrt();
                p.push(q - r);
            }
            (vec![C::new(0.0, 0.0); order], p, bw.powi(n as i32))
        }
        _ => return Err("low/high-pass take one edge, band-pass two".into()),
    };
    // Bilinear transform with fs = 2.
    let fs2 = C::new(4.0, 0.0);
    let degree = p.len() - z.len();
    let mut zd: Vec<C> = z.iter().map(|z| (fs2 + z) / (fs2 - z)).collect();
    let pd: Vec<C> = p.iter().map(|p| (fs2 + p) / (fs2 - p)).collect();
    zd.extend(std::iter::repeat_n(C::new(-1.0, 0.0), degree));
    let kd = k
        * (prod(&z.iter().map(|z| fs2 - z).collect::<Vec<_>>()) / prod(&p.iter().map(|p| fs2 - p).collect::<Vec<_>>()))
            .re;
    Ok((zd, pd, kd))
}

/// Second-order sections of a Butterworth filter; `edges_hz` holds one edge (low/high-pass) or two
/// (band-pass).
pub fn butter(order: usize, edges_hz: &[f64], btype: BandType, fs: f64) -> Result<Vec<Section>, SignalError> {
    let (mut z, p, k) = zpk(order, edges_hz, btype, fs)?;
    // Poles: conjugate pairs (positive imaginary part first), then real poles.
    let mut complex: Vec<C> = p.iter().copied().filter(|q| q.im > 1e-12).collect();
    complex.sort_by(|a, b| a.norm().total_cmp(&b.norm()));
    let mut real: Vec<f64> = p.iter().filter(|q| q.im.abs() <= 1e-12).map(|q| q.re).collect();
    real.sort_by(f64::total_cmp);
    let mut sections: Vec<Section> = Vec::new();
    // Zeros are all real here (±1); take them in pairs.
    let mut take_zeros = |count: usize| -> Vec<f64> { (0..count).map(|_| z.pop().map_or(0.0, |v| v.re)).collect() };
    if real.len() % 2 == 1 {
        let r = real.remove(0);
        let zz = take_zeros(1);
        sections.push([1.0, -zz[0], 0.0, 1.0, -r, 0.0]);
    }
    for pair in real.chunks(2) {
        let zz = take_zeros(2);
        sections.push([1.0, -(zz[0] + zz[1]), zz[0] * zz[1], 1.0, -(pair[0] + pair[1]), pair[0] * pair[1]]);
    }
    for q in complex {
        let zz = take_zeros(2);
        sections.push([1.0, -(zz[0] + zz[1]), zz[0] * zz[1], 1.0, -2.0 * q.re, q.norm_sqr()]);
    }
    for v in &mut sections[0][..3] {
        *v *= k;
    }
    Ok(sections)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// |H(e^{iω})| of the cascade.
    fn gain(sos: &[Section], f: f64, fs: f64) -> f64 {
        let w = C::new(0.0, -2.0 * PI * f / fs).exp();
        sos.iter().map(|s| ((s[0] + s[1] * w + s[2] * w * w) / (s[3] + s[4] * w + s[5] * w * w)).norm()).product()
    }

    #[test]
    fn butterworth_gains() {
        for order in [1, 2, 4, 5] {
            let hp = butter(order, &[0.5], BandType::Highpass, 360.0).unwrap();
            assert!((gain(&hp, 0.5, 360.0) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9, "order {order}");
            assert!((gain(&hp, 100.0, 360.0) - 1.0).abs() < 1e-4, "order {order}");
            let bp = butter(order, &[8.0, 12.0], BandType::Bandpass, 250.0).unwrap();
            assert!((gain(&bp, 8.0, 250.0) - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-9);
            assert!((gain(&bp, (8.0f64 * 12.0).sqrt(), 250.0) - 1.0).abs() < 1e-3, "order {order}");
        }
        // Order 2 equals the closed-form biquad already checked against scipy.
        let lp = butter(2, &[10.0], BandType::Lowpass, 250.0).unwrap();
        let closed = crate::signal::filter::iir::butter2_lowpass(10.0, 250.0);
        for (a, b) in lp[0].iter().zip(closed.iter()) {
            assert!((a - b).abs() < 1e-12, "{lp:?} vs {closed:?}");
        }
    }
}

/// Zero-phase Butterworth filtering of `x` (`scipy.signal.sosfiltfilt(butter(order, …, output='sos'), x)`):
/// band-pass with both edges, high-pass with `l` only, low-pass with `h` only.
pub fn butter_filtfilt(
    x: &[f64],
    fs: f64,
    l: Option<f64>,
    h: Option<f64>,
    order: usize,
) -> Result<Vec<f64>, SignalError> {
    let sos = match (l, h) {
        (Some(l), Some(h)) => butter(order, &[l, h], BandType::Bandpass, fs)?,
        (Some(l), None) => butter(order, &[l], BandType::Highpass, fs)?,
        (None, Some(h)) => butter(order, &[h], BandType::Lowpass, fs)?,
        (None, None) => return Err("give a high-pass and/or a low-pass frequency".into()),
    };
    Ok(super::iir::sosfiltfilt(&sos, x, super::iir::default_padlen(&sos)))
}

/// Notch at `f0` and its harmonics below Nyquist (`scipy.signal.iirnotch(f, q, fs)` each, zero phase with
/// `filtfilt`'s padding of the combined sections).
pub fn notch_filtfilt(x: &[f64], fs: f64, f0: f64, q: f64) -> Result<Vec<f64>, SignalError> {
    if !(f0 > 0.0 && f0 < fs / 2.0) {
        return Err(invalid!("notch {f0} Hz must lie between 0 and Nyquist ({} Hz)", fs / 2.0));
    }
    let sos: Vec<Section> =
        (1..).map(|k| k as f64 * f0).take_while(|f| *f < fs / 2.0).map(|f| super::iir::iirnotch(f, q, fs)).collect();
    Ok(super::iir::sosfiltfilt(&sos, x, super::iir::default_padlen(&sos)))
}
