//! IIR filters as second-order sections (SOS), applied like scipy.signal: `sosfilt` (direct form II
//! transposed), `sosfilt_zi` (steady-state initial conditions) and `sosfiltfilt` (forward-backward with odd
//! extension, scipy's default padding).

/// One biquad: `[b0, b1, b2, a0, a1, a2]` with `a0 = 1`, the row layout of scipy's `sos` arrays.
pub type Section = [f64; 6];

/// Second-order Butterworth low-pass at `fc` Hz, equal to `scipy.signal.butter(2, fc, 'low', fs=fs,
/// output='sos')` (bilinear transform with pre-warping).
pub fn butter2_lowpass(fc: f64, fs: f64) -> Section {
    let k = (std::f64::consts::PI * fc / fs).tan();
    let norm = 1.0 / (1.0 + std::f64::consts::SQRT_2 * k + k * k);
    let b0 = k * k * norm;
    [b0, 2.0 * b0, b0, 1.0, 2.0 * (k * k - 1.0) * norm, (1.0 - std::f64::consts::SQRT_2 * k + k * k) * norm]
}

/// Second-order Butterworth high-pass at `fc` Hz, equal to `scipy.signal.butter(2, fc, 'high', fs=fs,
/// output='sos')`.
pub fn butter2_highpass(fc: f64, fs: f64) -> Section {
    let k = (std::f64::consts::PI * fc / fs).tan();
    let norm = 1.0 / (1.0 + std::f64::consts::SQRT_2 * k + k * k);
    [norm, -2.0 * norm, norm, 1.0, 2.0 * (k * k - 1.0) * norm, (1.0 - std::f64::consts::SQRT_2 * k + k * k) * norm]
}

/// Notch at `f0` Hz with quality factor `q`, equal to `scipy.signal.iirnotch(f0, q, fs)`.
pub fn iirnotch(f0: f64, q: f64, fs: f64) -> Section {
    let w0 = 2.0 * std::f64::consts::PI * f0 / fs;
    let bw = w0 / q;
    let gain = 1.0 / (1.0 + (bw / 2.0).tan());
    let c = w0.cos();
    [gain, -2.0 * gain * c, gain, 1.0, -2.0 * gain * c, 2.0 * gain - 1.0]
}

/// Filters `x` in place through `sos` with per-section state `zi` (updated), as `scipy.signal.sosfilt`.
pub fn sosfilt(sos: &[Section], x: &mut [f64], zi: &mut [[f64; 2]]) {
    for (s, z) in sos.iter().zip(zi.iter_mut()) {
        let [b0, b1, b2, _, a1, a2] = *s;
        let (mut z0, mut z1) = (z[0], z[1]);
        for v in x.iter_mut() {
            let xi = *v;
            let y = b0 * xi + z0;
            z0 = b1 * xi - a1 * y + z1;
            z1 = b2 * xi - a2 * y;
            *v = y;
        }
        *z = [z0, z1];
    }
}

/// Steady-state initial conditions for a unit step, as `scipy.signal.sosfilt_zi`.
pub fn sosfilt_zi(sos: &[Section]) -> Vec<[f64; 2]> {
    let mut scale = 1.0;
    sos.iter()
        .map(|s| {
            let [b0, b1, b2, _, a1, a2] = *s;
            // lfilter_zi: solve (I - companion(a)ᵀ) zi = b[1:] - a[1:]·b0.
            let (r0, r1) = (b1 - a1 * b0, b2 - a2 * b0);
            let det = (1.0 + a1) * 1.0 + a2;
            let z0 = (r0 + r1) / det;
            let z1 = r1 - a2 * z0;
            let zi = [scale * z0, scale * z1];
            scale *= (b0 + b1 + b2) / (1.0 + a1 + a2);
            zi
        })
        .collect()
}

/// Default padding of `scipy.signal.sosfiltfilt`: 3 × (2·sections + 1 − trailing zero coefficients).
pub fn default_padlen(sos: &[Section]) -> usize {
    let zeros_b = sos.iter().filter(|s| s[2] == 0.0).count();
    let zeros_a = sos.iter().filter(|s| s[5] == 0.0).count();
    3 * (2 * sos.len() + 1 - zeros_b.min(zeros_a))
}

/// Zero-phase forward-backward filtering with odd extension of `padlen` samples, as
/// `scipy.signal.sosfiltfilt(sos, x, padtype='odd', padlen=padlen)`. Signals not longer than `padlen` are
/// padded with as many samples as they allow (scipy raises instead).
pub fn sosfiltfilt(sos: &[Section], x: &[f64], padlen: usize) -> Vec<f64> {
    let n = x.len();
    if n == 0 {
        return Vec::new();
    }
    let edge = padlen.min(n - 1);
    let mut ext = Vec::with_capacity(n + 2 * edge);
    ext.extend((1..=edge).rev().map(|i| 2.0 * x[0] - x[i]));
    ext.extend_from_slice(x);
    ext.extend((1..=edge).map(|i| 2.0 * x[n - 1] - x[n - 1 - i]));
    let zi = sosfilt_zi(sos);
    let mut z: Vec<[f64; 2]> = zi.iter().map(|z| [z[0] * ext[0], z[1] * ext[0]]).collect();
    sosfilt(sos, &mut ext, &mut z);
    ext.reverse();
    let y0 = ext[0];
    let mut z: Vec<[f64; 2]> = zi.iter().map(|z| [z[0] * y0, z[1] * y0]).collect();
    sosfilt(sos, &mut ext, &mut z);
    ext.reverse();
    ext[edge..edge + n].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(a: &[f64], b: &[f64], tol: f64) {
        assert_eq!(a.len(), b.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!((x - y).abs() <= tol * y.abs().max(1.0), "[{i}] {x} vs {y}");
        }
    }

    #[test]
    fn designs_equal_scipy() {
        // scipy 1.17.1: butter(2, 10, 'low', fs=250, output='sos'), butter(2, 0.5, 'high', fs=250, output='sos'),
        // iirnotch(50, 30, 250).
        assert_close(
            &butter2_lowpass(10.0, 250.0),
            &[
                0.013359200027856505,
                0.02671840005571301,
                0.013359200027856505,
                1.0,
                -1.6474599810769768,
                0.7008967811884027,
            ],
            1e-12,
        );
        assert_close(
            &butter2_highpass(0.5, 250.0),
            &[0.991153595101663, -1.982307190203326, 0.991153595101663, 1.0, -1.9822289297925284, 0.9823854506141251],
            1e-12,
        );
        assert_close(
            &iirnotch(50.0, 30.0, 250.0),
            &[0.9794827609814495, -0.6053536376811252, 0.9794827609814495, 1.0, -0.6053536376811252, 0.958965521962899],
            1e-12,
        );
    }

    #[test]
    fn filtfilt_equals_scipy() {
        // scipy 1.17.1: sosfiltfilt(butter(2, 10, fs=250, output='sos'), x) with x = [0, 1, 0, -1, 2, 5, 3, 1, 0, 0, 1, 2].
        let x = [0.0, 1.0, 0.0, -1.0, 2.0, 5.0, 3.0, 1.0, 0.0, 0.0, 1.0, 2.0];
        let sos = [butter2_lowpass(10.0, 250.0)];
        let y = sosfiltfilt(&sos, &x, default_padlen(&sos));
        let expected = [
            -0.03300951611429731,
            0.21162454542996922,
            0.46202321610220276,
            0.7101803087310421,
            0.9467211513885161,
            1.1614384487549108,
            1.3482058475803371,
            1.508953585870041,
            1.6513758900015072,
            1.782913209964961,
            1.9063374007637723,
            2.0189555574758247,
        ];
        assert_close(&y, &expected, 1e-9);
    }
}
