//! Spectral windows as `scipy.signal.get_window(name, N)` returns them for spectral analysis: periodic
//! ("DFT-even"), i.e. the symmetric window of N + 1 points without its last point.

use crate::signal::error::{SignalError, invalid};
use std::f64::consts::PI;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Hann,
    Hamming,
    Blackman,
    Boxcar,
    Bartlett,
    Flattop,
    /// Tukey with α = 0.25 (`scipy.signal.spectrogram`'s default window).
    Tukey25,
}

impl Window {
    /// scipy names: `hann` (also `hann_periodic`, `hanning`), `hamming`, `blackman`, `boxcar` (`rect`,
    /// `rectangular`, `ones`), `bartlett` (`triangle`-like), `flattop`.
    pub fn parse(name: &str) -> Result<Window, SignalError> {
        Ok(match name.trim().to_lowercase().as_str() {
            "hann" | "hann_periodic" | "hanning" => Window::Hann,
            "hamming" | "hamming_periodic" => Window::Hamming,
            "blackman" | "blackman_periodic" => Window::Blackman,
            "boxcar" | "rect" | "rectangular" | "ones" | "boxcar_periodic" => Window::Boxcar,
            "bartlett" | "bartlett_periodic" => Window::Bartlett,
            "flattop" | "flattop_periodic" => Window::Flattop,
            "tukey" | "tukey25" | "tukey_periodic" => Window::Tukey25,
            other => {
                return Err(invalid!("unknown window {other:?} (hann, hamming, blackman, boxcar, bartlett, flattop)"));
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Window::Hann => "hann",
            Window::Hamming => "hamming",
            Window::Blackman => "blackman",
            Window::Boxcar => "boxcar",
            Window::Bartlett => "bartlett",
            Window::Flattop => "flattop",
            Window::Tukey25 => "tukey",
        }
    }

    /// The periodic window of `n` points.
    pub fn periodic(self, n: usize) -> Vec<f64> {
        let m = n + 1; // symmetric length
        let cosine = |a: &[f64]| -> Vec<f64> {
            (0..n)
                .map(|i| {
                    // scipy's general_cosine: Σ a_k cos(k·φ), φ = −π + 2π i/(M − 1).
                    let phi = -PI + 2.0 * PI * i as f64 / (m - 1) as f64;
                    a.iter().enumerate().map(|(k, ak)| ak * (k as f64 * phi).cos()).sum()
                })
                .collect()
        };
        if n == 0 {
            return Vec::new();
        }
        if n == 1 {
            return vec![1.0];
        }
        match self {
            Window::Hann => cosine(&[0.5, 0.5]),
            Window::Hamming => cosine(&[0.54, 0.46]),
            Window::Blackman => cosine(&[0.42, 0.50, 0.08]),
            Window::Flattop => cosine(&[0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368]),
            Window::Boxcar => vec![1.0; n],
            Window::Tukey25 => {
                // scipy.signal.windows.tukey(M = n + 1, 0.25), last point dropped.
                let alpha = 0.25;
                let width = (alpha * (m - 1) as f64 / 2.0).floor() as usize;
                (0..n)
                    .map(|i| {
                        let x = i as f64;
                        let mm = (m - 1) as f64;
                        if i <= width {
                            0.5 * (1.0 + (PI * (-1.0 + 2.0 * x / alpha / mm)).cos())
                        } else if i < m - width - 1 {
                            1.0
                        } else {
                            0.5 * (1.0 + (PI * (-2.0 / alpha + 1.0 + 2.0 * x / alpha / mm)).cos())
                        }
                    })
                    .collect()
            }
            Window::Bartlett => (0..n)
                .map(|i| {
                    let i = i as f64;
                    let half = (m - 1) as f64 / 2.0;
                    if i <= half { 2.0 * i / (m - 1) as f64 } else { 2.0 - 2.0 * i / (m - 1) as f64 }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_hann_matches_the_closed_form() {
        let w = Window::Hann.periodic(8);
        for (i, v) in w.iter().enumerate() {
            let want = 0.5 - 0.5 * (2.0 * PI * i as f64 / 8.0).cos();
            assert!((v - want).abs() < 1e-15, "{i}: {v} vs {want}");
        }
        assert_eq!(Window::parse("hann_periodic").ok(), Some(Window::Hann));
        assert!(Window::parse("kaiser").is_err());
    }
}
