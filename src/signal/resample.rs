//! Polyphase resampling exactly as `scipy.signal.resample_poly(x, up, down)` with its defaults: a Kaiser
//! (β = 5) windowed-sinc low-pass of 2·10·max(up, down) + 1 taps at 1/max(up, down) of Nyquist, scaled by
//! `up`, zero-padded so the output samples sit at its centre, applied by `upfirdn` with zeros beyond the
//! signal (padtype 'constant').

use crate::signal::error::{SignalError, invalid};
/// Modified Bessel function of the first kind, order 0 (power series; exact to rounding for |x| ≤ 50).
fn bessel_i0(x: f64) -> f64 {
    let (mut sum, mut term, mut k) = (1.0, 1.0, 1.0);
    let q = x * x / 4.0;
    loop {
        term *= q / (k * k);
        sum += term;
        if term < sum * 1e-17 {
            return sum;
        }
        k += 1.0;
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `scipy.signal.firwin(n, cutoff, window=('kaiser', beta))`: unit DC gain.
fn firwin_kaiser(n: usize, cutoff: f64, beta: f64) -> Vec<f64> {
    let alpha = 0.5 * (n as f64 - 1.0);
    let i0b = bessel_i0(beta);
    let mut h: Vec<f64> = (0..n)
        .map(|i| {
            let m = i as f64 - alpha;
            let sinc = if m == 0.0 {
                1.0
            } else {
                (std::f64::consts::PI * cutoff * m).sin() / (std::f64::consts::PI * cutoff * m)
            };
            let r = 2.0 * i as f64 / (n as f64 - 1.0) - 1.0;
            let w = bessel_i0(beta * (1.0 - r * r).max(0.0).sqrt()) / i0b;
            cutoff * sinc * w
        })
        .collect();
    let s: f64 = h.iter().sum();
    for v in &mut h {
        *v /= s;
    }
    h
}

/// Output length of `upfirdn`.
fn upfirdn_len(len_h: usize, n_in: usize, up: usize, down: usize) -> usize {
    ((n_in - 1) * up + len_h - 1) / down + 1
}

/// `resample_poly(x, up, down)`.
pub fn resample_poly(x: &[f64], up: usize, down: usize) -> Result<Vec<f64>, SignalError> {
    if up == 0 || down == 0 {
        return Err("up and down must be positive".into());
    }
    if x.is_empty() {
        return Ok(Vec::new());
    }
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    if up == 1 && down == 1 {
        return Ok(x.to_vec());
    }
    let n_in = x.len();
    let n_out = (n_in * up).div_ceil(down);
    let max_rate = up.max(down);
    let half_len = 10 * max_rate;
    let mut h: Vec<f64> =
        firwin_kaiser(2 * half_len + 1, 1.0 / max_rate as f64, 5.0).iter().map(|v| v * up as f64).collect();
    let n_pre_pad = down - half_len % down;
    let n_pre_remove = (half_len + n_pre_pad) / down;
    let mut n_post_pad = 0;
    while upfirdn_len(h.len() + n_pre_pad + n_post_pad, n_in, up, down) < n_out + n_pre_remove {
        n_post_pad += 1;
    }
    let mut padded = vec![0.0; n_pre_pad];
    padded.append(&mut h);
    padded.extend(std::iter::repeat_n(0.0, n_post_pad));
    let h = padded;
    // y[k] = Σ_j h[j] · xu[k·down − j], xu = x upsampled by inserting up − 1 zeros.
    let out = (n_pre_remove..n_pre_remove + n_out)
        .map(|k| {
            let m = k * down;
            // j ≡ m (mod up) so that (m − j) / up indexes x.
            let mut j = m % up;
            let mut acc = 0.0;
            while j < h.len() && j <= m {
                let i = (m - j) / up;
                if i < n_in {
                    acc += h[j] * x[i];
                }
                j += up;
            }
            acc
        })
        .collect();
    Ok(out)
}

/// The smallest up/down with `from` · up / down = `to` for rates given to a thousandth of a hertz.
pub fn ratio(from: f64, to: f64) -> Result<(usize, usize), SignalError> {
    if !(from > 0.0 && to > 0.0) {
        return Err(invalid!("rates must be positive ({from} → {to})"));
    }
    let (a, b) = ((to * 1000.0).round() as usize, (from * 1000.0).round() as usize);
    let g = gcd(a, b);
    Ok((a / g, b / g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bessel_and_ratio() {
        // scipy.special.i0(5.0) = 27.239871823604442.
        assert!((bessel_i0(5.0) - 27.239871823604442).abs() < 1e-12);
        assert_eq!(ratio(250.0, 100.0).unwrap(), (2, 5));
        assert_eq!(ratio(128.0, 100.0).unwrap(), (25, 32));
    }
}
