//! Welch's averaged periodogram exactly as `scipy.signal.welch` (scipy 1.17) computes it: periodic window,
//! segments of `nperseg` every `nperseg − noverlap` samples (no padding), per-segment detrend (constant,
//! linear or none), FFT of length `nfft`, density (1/(fs·Σw²)) or spectrum (1/(Σw)²) scaling, one-sided
//! doubling of every bin but DC and Nyquist, then the mean or the bias-corrected median over segments.

use super::window::Window;
use crate::signal::error::{SignalError, invalid};
use realfft::RealFftPlanner;
use realfft::num_complex::Complex;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Detrend {
    Constant,
    Linear,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scaling {
    Density,
    Spectrum,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Average {
    Mean,
    Median,
}

impl Detrend {
    pub fn parse(s: &str) -> Result<Detrend, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "constant" => Ok(Detrend::Constant),
            "linear" => Ok(Detrend::Linear),
            "none" | "false" => Ok(Detrend::None),
            o => Err(invalid!("unknown detrend {o:?} (constant, linear, none)")),
        }
    }
}

impl Scaling {
    pub fn parse(s: &str) -> Result<Scaling, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "density" => Ok(Scaling::Density),
            "spectrum" => Ok(Scaling::Spectrum),
            o => Err(invalid!("unknown scaling {o:?} (density, spectrum)")),
        }
    }
}

impl Average {
    pub fn parse(s: &str) -> Result<Average, SignalError> {
        match s.trim().to_lowercase().as_str() {
            "mean" => Ok(Average::Mean),
            "median" => Ok(Average::Median),
            o => Err(invalid!("unknown average {o:?} (mean, median)")),
        }
    }
}

/// Welch parameters; `None` means scipy's default (nperseg 256 capped at the signal length, noverlap
/// nperseg/2, nfft nperseg).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchParams {
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub window: Window,
    pub detrend: Detrend,
    pub scaling: Scaling,
    pub average: Average,
}

impl Default for WelchParams {
    fn default() -> Self {
        WelchParams {
            nperseg: None,
            noverlap: None,
            nfft: None,
            window: Window::Hann,
            detrend: Detrend::Constant,
            scaling: Scaling::Density,
            average: Average::Mean,
        }
    }
}

/// A one-sided spectrum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Psd {
    pub sample_rate: f64,
    pub freqs: Vec<f64>,
    pub psd: Vec<f64>,
    pub nperseg: usize,
    pub noverlap: usize,
    pub nfft: usize,
    pub segments: usize,
}

/// The resolved segment geometry for a signal of `n` samples.
#[derive(Debug, Clone, Copy)]
struct Geometry {
    nperseg: usize,
    noverlap: usize,
    nfft: usize,
}

fn geometry(n: usize, p: &WelchParams) -> Result<Geometry, SignalError> {
    let mut nperseg = p.nperseg.unwrap_or(256);
    if nperseg == 0 {
        return Err("nperseg must be positive".into());
    }
    if n < nperseg {
        nperseg = n;
    }
    let nfft = p.nfft.unwrap_or(nperseg);
    if nfft < nperseg {
        return Err(invalid!("nfft={nfft} must be ≥ nperseg={nperseg}"));
    }
    let noverlap = p.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(invalid!("noverlap={noverlap} must be less than nperseg={nperseg}"));
    }
    Ok(Geometry { nperseg, noverlap, nfft })
}

/// scipy's `_median_bias(n)`: the expected ratio of median to mean of χ²₂ periodogram values.
pub fn median_bias(n: usize) -> f64 {
    let mut bias = 1.0;
    for k in 1..=((n.saturating_sub(1)) / 2) {
        let ii2 = 2.0 * k as f64;
        bias += 1.0 / (ii2 + 1.0) - 1.0 / ii2;
    }
    bias
}

/// One segment's periodogram machinery, reused across segments (and across channels of one length).
pub struct Periodogram {
    window: Vec<f64>,
    scale: f64,
    nfft: usize,
    fft: std::sync::Arc<dyn realfft::RealToComplex<f64>>,
    input: Vec<f64>,
    spectrum: Vec<Complex<f64>>,
    scratch: Vec<Complex<f64>>,
    detrend: Detrend,
    /// For linear detrending: t − mean(t) and Σ(t − mean)².
    t_centered: Vec<f64>,
    t_ss: f64,
}

impl Periodogram {
    pub fn new(
        window: Window,
        nperseg: usize,
        nfft: usize,
        fs: f64,
        scaling: Scaling,
        detrend: Detrend,
    ) -> Periodogram {
        let w = window.periodic(nperseg);
        let scale = match scaling {
            Scaling::Density => 1.0 / (fs * w.iter().map(|v| v * v).sum::<f64>()),
            Scaling::Spectrum => 1.0 / w.iter().sum::<f64>().powi(2),
        };
        let fft = RealFftPlanner::<f64>::new().plan_fft_forward(nfft);
        let t_mean = (nperseg as f64 - 1.0) / 2.0;
        let t_centered: Vec<f64> = (0..nperseg).map(|t| t as f64 - t_mean).collect();
        let t_ss = t_centered.iter().map(|v| v * v).sum();
        Periodogram {
            input: fft.make_input_vec(),
            spectrum: fft.make_output_vec(),
            scratch: fft.make_scratch_vec(),
            window: w,
            scale,
            nfft,
            fft,
            detrend,
            t_centered,
            t_ss,
        }
    }

    pub fn bins(&self) -> usize {
        self.nfft / 2 + 1
    }

    /// The one-sided FFT of the detrended, windowed segment (unscaled).
    pub fn spectrum(&mut self, seg: &[f64]) -> &[Complex<f64>] {
        self.transform(seg);
        &self.spectrum
    }

    /// Adds (or writes, when `out` is cleared) the one-sided scaled periodogram of `seg` into `out`.
    pub fn accumulate(&mut self, seg: &[f64], out: &mut [f64]) {
        self.transform(seg);
        let last = self.bins() - 1;
        for (k, c) in self.spectrum.iter().enumerate() {
            let mut p = c.norm_sqr() * self.scale;
            if k != 0 && !(k == last && self.nfft % 2 == 0) {
                p *= 2.0;
            }
            out[k] += p;
        }
    }

    fn transform(&mut self, seg: &[f64]) {
        let n = seg.len();
        let mean = seg.iter().sum::<f64>() / n as f64;
        let slope = match self.detrend {
            Detrend::Linear if self.t_ss > 0.0 => {
                seg.iter().zip(&self.t_centered).map(|(x, t)| (x - mean) * t).sum::<f64>() / self.t_ss
            }
            _ => 0.0,
        };
        for i in 0..n {
            let v = match self.detrend {
                Detrend::None => seg[i],
                Detrend::Constant => seg[i] - mean,
                Detrend::Linear => seg[i] - mean - slope * self.t_centered[i],
            };
            self.input[i] = v * self.window[i];
        }
        for v in &mut self.input[n..] {
            *v = 0.0;
        }
        self.fft
            .process_with_scratch(&mut self.input, &mut self.spectrum, &mut self.scratch)
            .expect("FFT sizes match the plan");
    }
}

/// Frequencies of the one-sided spectrum: k·fs/nfft.
pub fn freqs(nfft: usize, fs: f64) -> Vec<f64> {
    (0..nfft / 2 + 1).map(|k| k as f64 * fs / nfft as f64).collect()
}

/// `scipy.signal.welch(x, fs, ...)` for one real signal.
pub fn welch(x: &[f64], fs: f64, p: &WelchParams) -> Result<Psd, SignalError> {
    if x.is_empty() {
        return Err("the signal is empty".into());
    }
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(invalid!("sampling rate {fs} is not positive"));
    }
    let g = geometry(x.len(), p)?;
    let step = g.nperseg - g.noverlap;
    let segments = (x.len() - g.noverlap) / step;
    let mut pg = Periodogram::new(p.window, g.nperseg, g.nfft, fs, p.scaling, p.detrend);
    let bins = pg.bins();
    let psd = match p.average {
        Average::Mean => {
            let mut acc = vec![0.0; bins];
            for s in 0..segments {
                pg.accumulate(&x[s * step..s * step + g.nperseg], &mut acc);
            }
            acc.iter().map(|v| v / segments as f64).collect()
        }
        Average::Median => {
            let mut all = vec![0.0; bins * segments];
            for s in 0..segments {
                pg.accumulate(&x[s * step..s * step + g.nperseg], &mut all[s * bins..(s + 1) * bins]);
            }
            let bias = if segments > 1 { median_bias(segments) } else { 1.0 };
            let mut column = vec![0.0; segments];
            (0..bins)
                .map(|k| {
                    for s in 0..segments {
                        column[s] = all[s * bins + k];
                    }
                    median(&mut column) / bias
                })
                .collect()
        }
    };
    Ok(Psd {
        sample_rate: fs,
        freqs: freqs(g.nfft, fs),
        psd,
        nperseg: g.nperseg,
        noverlap: g.noverlap,
        nfft: g.nfft,
        segments,
    })
}

/// numpy's median (mean of the two middle values for an even count).
fn median(v: &mut [f64]) -> f64 {
    let n = v.len();
    v.sort_by(f64::total_cmp);
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Welch with mean averaging over a signal that arrives in pieces (a whole night read record by record):
/// keeps only the samples of the segment in progress, never the segments.
pub struct WelchStream {
    pg: Periodogram,
    nperseg: usize,
    step: usize,
    buf: Vec<f64>,
    acc: Vec<f64>,
    segments: usize,
    fs: f64,
    nfft: usize,
    noverlap: usize,
}

impl WelchStream {
    /// `expected_len` resolves scipy's defaults (nperseg capped at the signal length).
    pub fn new(fs: f64, expected_len: usize, p: &WelchParams) -> Result<WelchStream, SignalError> {
        if p.average != Average::Mean {
            return Err("streaming Welch averages by the mean (median needs every segment)".into());
        }
        let g = geometry(expected_len.max(1), p)?;
        let pg = Periodogram::new(p.window, g.nperseg, g.nfft, fs, p.scaling, p.detrend);
        let bins = pg.bins();
        Ok(WelchStream {
            pg,
            nperseg: g.nperseg,
            step: g.nperseg - g.noverlap,
            buf: Vec::with_capacity(2 * g.nperseg),
            acc: vec![0.0; bins],
            segments: 0,
            fs,
            nfft: g.nfft,
            noverlap: g.noverlap,
        })
    }

    pub fn push(&mut self, samples: &[f64]) {
        let mut rest = samples;
        while !rest.is_empty() {
            let take = (self.nperseg - self.buf.len()).min(rest.len());
            self.buf.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buf.len() == self.nperseg {
                self.pg.accumulate(&self.buf, &mut self.acc);
                self.segments += 1;
                self.buf.drain(..self.step);
            }
        }
    }

    pub fn finish(self) -> Result<Psd, SignalError> {
        if self.segments == 0 {
            return Err("the signal is shorter than one segment".into());
        }
        let n = self.segments as f64;
        Ok(Psd {
            sample_rate: self.fs,
            freqs: freqs(self.nfft, self.fs),
            psd: self.acc.iter().map(|v| v / n).collect(),
            nperseg: self.nperseg,
            noverlap: self.noverlap,
            nfft: self.nfft,
            segments: self.segments,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parseval_for_white_noise_like_signal() {
        // A unit sine at a bin frequency: density PSD integrates (sum × df) to its variance 0.5.
        let fs = 256.0;
        let x: Vec<f64> = (0..4096).map(|i| (2.0 * std::f64::consts::PI * 16.0 * i as f64 / fs).sin()).collect();
        let p =
            welch(&x, fs, &WelchParams { nperseg: Some(256), window: Window::Boxcar, ..Default::default() }).unwrap();
        let df = p.freqs[1] - p.freqs[0];
        let total: f64 = p.psd.iter().sum::<f64>() * df;
        assert!((total - 0.5).abs() < 1e-9, "{total}");
        assert_eq!(p.segments, (4096 - 128) / 128);
    }

    #[test]
    fn streaming_equals_in_memory() {
        let x: Vec<f64> = (0..10_000).map(|i| ((i * 7919) % 1000) as f64 / 1000.0 - 0.5).collect();
        let p = WelchParams { nperseg: Some(500), noverlap: Some(200), detrend: Detrend::Linear, ..Default::default() };
        let a = welch(&x, 100.0, &p).unwrap();
        let mut s = WelchStream::new(100.0, x.len(), &p).unwrap();
        for chunk in x.chunks(333) {
            s.push(chunk);
        }
        let b = s.finish().unwrap();
        assert_eq!(a.segments, b.segments);
        for (u, v) in a.psd.iter().zip(&b.psd) {
            assert!((u - v).abs() <= 1e-12 * u.abs().max(1e-300), "{u} vs {v}");
        }
    }

    #[test]
    fn median_bias_is_scipys() {
        // scipy.signal._spectral_py._median_bias(9) = 1 + (1/3 − 1/2) + (1/5 − 1/4) + (1/7 − 1/6) + (1/9 − 1/8).
        let want = 1.0 + (1.0 / 3.0 - 0.5) + (0.2 - 0.25) + (1.0 / 7.0 - 1.0 / 6.0) + (1.0 / 9.0 - 0.125);
        assert!((median_bias(9) - want).abs() < 1e-15);
        assert_eq!(median_bias(1), 1.0);
    }
}
