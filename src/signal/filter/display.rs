//! Display filters of the Recordings room: high-pass, low-pass (2nd-order Butterworth) and 50/60 Hz notch
//! (with harmonics), applied zero-phase to what is drawn, like EDFbrowser's and MNE's browser filters.

use super::iir::{Section, butter2_highpass, butter2_lowpass, default_padlen, iirnotch, sosfiltfilt};
use serde::{Deserialize, Serialize};

/// Which display filters are on; a cutoff of `None` means off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct DisplayFilter {
    pub highpass_hz: Option<f64>,
    pub lowpass_hz: Option<f64>,
    /// Mains frequency to remove (50 or 60), with its harmonics below Nyquist.
    pub notch_hz: Option<f64>,
}

/// Quality factor of the notch (scipy.signal.iirnotch's Q): 30 gives a ±0.8 Hz stop band at 50 Hz.
pub const NOTCH_Q: f64 = 30.0;

impl DisplayFilter {
    /// True when no filter is on.
    pub fn is_off(&self) -> bool {
        self.highpass_hz.is_none() && self.lowpass_hz.is_none() && self.notch_hz.is_none()
    }

    /// The sections for a channel sampled at `fs`; cutoffs at or above Nyquist are skipped.
    pub fn sections(&self, fs: f64) -> Vec<Section> {
        let nyq = fs / 2.0;
        let mut sos = Vec::new();
        if let Some(f) = self.highpass_hz.filter(|&f| f > 0.0 && f < nyq) {
            sos.push(butter2_highpass(f, fs));
        }
        if let Some(f) = self.lowpass_hz.filter(|&f| f > 0.0 && f < nyq) {
            sos.push(butter2_lowpass(f, fs));
        }
        if let Some(f0) = self.notch_hz.filter(|&f| f > 0.0) {
            let mut f = f0;
            while f < nyq * 0.98 {
                sos.push(iirnotch(f, NOTCH_Q, fs));
                f += f0;
            }
        }
        sos
    }

    /// Seconds of real data to read on each side of a page so the filter's edge transient stays off
    /// screen: about five time constants of the high-pass, at least one second, at most ten.
    pub fn margin_s(&self) -> f64 {
        if self.is_off() {
            return 0.0;
        }
        let hp = self.highpass_hz.map_or(1.0, |f| 5.0 / (2.0 * std::f64::consts::PI * f).max(1e-3));
        hp.clamp(1.0, 10.0)
    }

    /// Filters `x` sampled at `fs`, zero-phase.
    pub fn apply(&self, x: &[f64], fs: f64) -> Vec<f64> {
        let sos = self.sections(fs);
        if sos.is_empty() {
            return x.to_vec();
        }
        sosfiltfilt(&sos, x, default_padlen(&sos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notch_removes_mains_and_keeps_alpha() {
        let fs = 250.0;
        let x: Vec<f64> = (0..2500)
            .map(|i| {
                let t = i as f64 / fs;
                (2.0 * std::f64::consts::PI * 10.0 * t).sin() + (2.0 * std::f64::consts::PI * 50.0 * t).sin()
            })
            .collect();
        let f = DisplayFilter { notch_hz: Some(50.0), ..Default::default() };
        let y = f.apply(&x, fs);
        // Away from the edges only the 10 Hz sine remains.
        let err = (500..2000)
            .map(|i| (y[i] - (2.0 * std::f64::consts::PI * 10.0 * i as f64 / fs).sin()).abs())
            .fold(0.0, f64::max);
        assert!(err < 0.02, "residual {err}");
    }
}
