//! Per-channel statistics and the IQR rule for flat or noisy channels:
//! variance (`numpy.var`, ddof 0), RMS, excess kurtosis (`scipy.stats.kurtosis`, Fisher, biased), the
//! line-noise ratio (Welch power within ±1 Hz of the mains frequency ÷ power from 1 Hz to Nyquist, trapezoid),
//! and flat (variance < Q1 − 1.5·IQR) / noisy (variance > Q3 + 1.5·IQR) channels with numpy's linear
//! percentiles over the channels' variances; averages per scalp region for 10-20 labels.

use super::montage::electrode_name;
use super::spectrum::{Integration, WelchParams, band_power, welch};
use crate::signal::error::{SignalError, invalid};
use crate::util::quantile::percentile;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelStats {
    pub label: String,
    pub variance: f64,
    pub rms: f64,
    pub kurtosis: f64,
    pub line_noise_ratio: Option<f64>,
    /// `ok`, `flat` or `noisy` by the IQR rule on variance.
    pub status: &'static str,
    pub region: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatsReport {
    pub channels: Vec<ChannelStats>,
    /// Variance thresholds of the IQR rule.
    pub lower: f64,
    pub upper: f64,
    /// Mean of each statistic per scalp region (10-20 labels only).
    pub regions: Vec<RegionMean>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionMean {
    pub region: &'static str,
    pub channels: usize,
    pub variance: f64,
    pub rms: f64,
    pub kurtosis: f64,
}

/// The IQR rule: (Q1 − 1.5·IQR, Q3 + 1.5·IQR).
pub fn iqr_bounds(values: &[f64]) -> (f64, f64) {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let (q1, q3) = (percentile(&v, 25.0), percentile(&v, 75.0));
    (q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1))
}

/// Scalp region of a 10-20 label (`Fp1`, `EEG F3-REF`, `T7`, …); `None` for other labels.
pub fn region_of(label: &str) -> Option<&'static str> {
    let name = electrode_name(label);
    let split = name.find(|c: char| c.is_ascii_digit() || c == 'Z')?;
    let (prefix, suffix) = name.split_at(split);
    if !(suffix == "Z" || suffix.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    Some(match prefix {
        "FP" | "AF" | "F" => "frontal",
        "FC" | "C" => "central",
        "CP" | "P" => "parietal",
        "PO" | "O" | "I" => "occipital",
        "T" | "FT" | "TP" => "temporal",
        _ => return None,
    })
}

pub fn moments(x: &[f64]) -> (f64, f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let (mut m2, mut m4, mut sq) = (0.0, 0.0, 0.0);
    for v in x {
        let d = v - mean;
        m2 += d * d;
        m4 += d * d * d * d;
        sq += v * v;
    }
    let (m2, m4) = (m2 / n, m4 / n);
    let kurt = if m2 > 0.0 { m4 / (m2 * m2) - 3.0 } else { f64::NAN };
    (m2, (sq / n).sqrt(), kurt)
}

/// Statistics of each (label, samples, rate) channel; `line_hz` is the mains frequency (50 or 60).
pub fn channel_stats(channels: &[(String, Vec<f64>, f64)], line_hz: f64) -> Result<StatsReport, SignalError> {
    if channels.is_empty() {
        return Err("no channels".into());
    }
    let mut out = Vec::new();
    for (label, x, fs) in channels {
        if x.len() < 2 {
            return Err(invalid!("{label}: too few samples"));
        }
        let (variance, rms, kurtosis) = moments(x);
        let line_noise_ratio = (line_hz + 1.0 < fs / 2.0)
            .then(|| {
                let p =
                    welch(x, *fs, &WelchParams { nperseg: Some((2.0 * fs) as usize), ..Default::default() }).ok()?;
                let line = band_power(&p, line_hz - 1.0, line_hz + 1.0, Integration::Trapezoid).ok()?;
                let total = band_power(&p, 1.0, fs / 2.0, Integration::Trapezoid).ok()?;
                (total > 0.0).then(|| line / total)
            })
            .flatten();
        out.push(ChannelStats {
            label: label.clone(),
            variance,
            rms,
            kurtosis,
            line_noise_ratio,
            status: "ok",
            region: region_of(label),
        });
    }
    let (lower, upper) = iqr_bounds(&out.iter().map(|c| c.variance).collect::<Vec<_>>());
    for c in &mut out {
        c.status = if c.variance < lower {
            "flat"
        } else if c.variance > upper {
            "noisy"
        } else {
            "ok"
        };
    }
    let mut regions = Vec::new();
    for region in ["frontal", "central", "parietal", "occipital", "temporal"] {
        let members: Vec<&ChannelStats> = out.iter().filter(|c| c.region == Some(region)).collect();
        if members.is_empty() {
            continue;
        }
        let n = members.len() as f64;
        regions.push(RegionMean {
            region,
            channels: members.len(),
            variance: members.iter().map(|c| c.variance).sum::<f64>() / n,
            rms: members.iter().map(|c| c.rms).sum::<f64>() / n,
            kurtosis: members.iter().map(|c| c.kurtosis).sum::<f64>() / n,
        });
    }
    Ok(StatsReport { channels: out, lower, upper, regions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_regions() {
        // numpy.percentile([1, 2, 3, 4], [25, 75]) = [1.75, 3.25].
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 25.0), 1.75);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 75.0), 3.25);
        assert_eq!(region_of("EEG Fp1-REF"), Some("frontal"));
        assert_eq!(region_of("T7"), Some("temporal"));
        assert_eq!(region_of("Oz"), Some("occipital"));
        assert_eq!(region_of("EEG 001"), None);
    }
}
