//! A signal artifact (`.npy` as an array; `.edf`, `.bdf`, `.vhdr`, `.cnt`, … as a recording) loaded for `file_status_check`'s field checks.

use crate::bench::error::{BenchError, Result};
use crate::signal::Recording;
use ndarray::{ArrayD, Axis};
use ndarray_npy::ReadNpyExt;
use std::path::Path;

/// What the field checks read: the shape, per-channel samples and, for EDF/BDF, the header facts.
#[derive(Debug, Clone)]
pub struct SignalFile {
    /// The array shape (`.npy`), or [channels, samples of the first channel] (a recording).
    pub shape: Vec<usize>,
    /// Samples per channel (3-D arrays: epochs concatenated).
    pub channels: Vec<Vec<f64>>,
    pub sfreq: Option<f64>,
    pub names: Option<Vec<String>>,
    /// (high-pass, low-pass) in Hz from the EDF prefilter field (`HP:0.5Hz LP:40Hz`).
    pub bandpass: Option<(f64, f64)>,
}

impl SignalFile {
    pub fn load(path: &Path) -> Result<SignalFile, BenchError> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        match ext.as_str() {
            "npy" => load_npy(path),
            e if crate::signal::recording::EXTENSIONS.contains(&e) => load_recording(path),
            other => Err(format!(
                "{}: cannot check signal fields of a .{other} file (the recording formats: {})",
                path.display(),
                crate::signal::recording::EXTENSIONS.join(", ")
            )
            .into()),
        }
    }

    /// Channels: 1-D → 1, 2-D → rows, 3-D → axis 1.
    pub fn channel_count(&self) -> usize {
        self.channels.len()
    }

    pub fn duration_s(&self) -> Option<f64> {
        let n = self.channels.first()?.len();
        self.sfreq.filter(|r| *r > 0.0).map(|r| n as f64 / r)
    }

    /// RMS over every sample of every channel.
    pub fn rms(&self) -> f64 {
        let (sum, n) = self.channels.iter().flatten().fold((0.0, 0usize), |(s, n), v| (s + v * v, n + 1));
        if n == 0 { 0.0 } else { (sum / n as f64).sqrt() }
    }

    /// RMS of the channel mean at each sample ÷ overall RMS: ≈ 0 for an average-referenced signal.
    /// `None` when channels differ in length or the signal is all zeros.
    pub fn common_mode_ratio(&self) -> Option<f64> {
        let n = self.channels.first()?.len();
        if n == 0 || self.channels.iter().any(|c| c.len() != n) {
            return None;
        }
        let k = self.channels.len() as f64;
        let mean_sq: f64 = (0..n)
            .map(|t| {
                let m = self.channels.iter().map(|c| c[t]).sum::<f64>() / k;
                m * m
            })
            .sum::<f64>()
            / n as f64;
        let overall = self.rms();
        (overall > 0.0).then(|| mean_sq.sqrt() / overall)
    }
}

fn read_any_npy(path: &Path) -> Result<ArrayD<f64>, BenchError> {
    let open = || std::fs::File::open(path).map_err(|e| BenchError::from(format!("{}: {e}", path.display())));
    crate::util::arrays::check_npy_header(path).map_err(|e| BenchError::from(format!("{}: {e}", path.display())))?;
    if let Ok(a) = ArrayD::<f64>::read_npy(open()?) {
        return Ok(a);
    }
    if let Ok(a) = ArrayD::<f32>::read_npy(open()?) {
        return Ok(a.mapv(f64::from));
    }
    if let Ok(a) = ArrayD::<i32>::read_npy(open()?) {
        return Ok(a.mapv(f64::from));
    }
    if let Ok(a) = ArrayD::<i16>::read_npy(open()?) {
        return Ok(a.mapv(f64::from));
    }
    ArrayD::<i64>::read_npy(open()?)
        .map(|a| a.mapv(|v| v as f64))
        .map_err(|e| format!("{}: not a numeric .npy array: {e}", path.display()).into())
}

fn load_npy(path: &Path) -> Result<SignalFile, BenchError> {
    let a = read_any_npy(path)?;
    let shape = a.shape().to_vec();
    let channels = match a.ndim() {
        1 => vec![a.iter().copied().collect()],
        2 => a.axis_iter(Axis(0)).map(|row| row.iter().copied().collect()).collect(),
        3 => (0..shape[1])
            .map(|c| {
                a.index_axis(Axis(1), c)
                    .axis_iter(Axis(0))
                    .flat_map(|e| e.iter().copied().collect::<Vec<f64>>())
                    .collect()
            })
            .collect(),
        d => return Err(format!("{}: a {d}-D array is not a signal (1-D, 2-D or 3-D expected)", path.display()).into()),
    };
    Ok(SignalFile { shape, channels, sfreq: None, names: None, bandpass: None })
}

fn load_recording(path: &Path) -> Result<SignalFile, BenchError> {
    let rec = Recording::open(path)?;
    let duration = rec.duration_s()?;
    let all: Vec<usize> = (0..rec.channels().len()).collect();
    let data = rec.read(&all, 0.0, duration + 1.0)?;
    let channels: Vec<Vec<f64>> = data.into_iter().map(|d| d.values).collect();
    let first = rec.channels().first();
    let prefilter = rec.channels().first().map(|_| rec.prefilter(0).to_string()).unwrap_or_default();
    Ok(SignalFile {
        shape: vec![channels.len(), channels.first().map_or(0, Vec::len)],
        channels,
        sfreq: first.map(|c| c.sample_rate),
        names: Some(rec.channels().iter().map(|c| c.label.clone()).collect()),
        bandpass: parse_prefilter(&prefilter),
    })
}

/// `HP:0.5Hz LP:40Hz` → (0.5, 40); both edges needed.
pub fn parse_prefilter(text: &str) -> Option<(f64, f64)> {
    let upper = text.to_uppercase();
    let edge = |tag: &str| -> Option<f64> {
        let rest = upper[upper.find(tag)? + tag.len()..].trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    Some((edge("HP:")?, edge("LP:")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefilter_edges() {
        assert_eq!(parse_prefilter("HP:0.5Hz LP:40Hz"), Some((0.5, 40.0)));
        assert_eq!(parse_prefilter("hp: 1 Hz lp: 30.5 Hz N:50Hz"), Some((1.0, 30.5)));
        assert_eq!(parse_prefilter("HP:DC LP:100Hz"), None);
        assert_eq!(parse_prefilter(""), None);
    }
}
