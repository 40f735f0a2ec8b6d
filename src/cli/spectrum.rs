//! `brainlens psd` and `brainlens bandpower`: the Recordings room's spectra from the command line.

use super::write_json;
use crate::signal::Recording;
use crate::signal::spectrum::file::channel_psds;
use crate::signal::spectrum::{
    Average, Detrend, Integration, Scaling, WelchParams, Window, band_power, relative_band_power,
};
use crate::util::cancel::Cancel;
use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use std::io::Write;
use std::path::Path;

/// Welch options shared by `psd` and `bandpower`.
#[derive(Debug, Clone, clap::Args)]
pub struct WelchArgs {
    /// Samples per segment (scipy default 256, capped at the signal length).
    #[arg(long)]
    pub nperseg: Option<usize>,
    /// Overlapping samples (default nperseg/2).
    #[arg(long)]
    pub noverlap: Option<usize>,
    /// FFT length (default nperseg).
    #[arg(long)]
    pub nfft: Option<usize>,
    /// hann, hamming, blackman, boxcar, bartlett, flattop (periodic, as scipy.signal.get_window).
    #[arg(long, default_value = "hann")]
    pub window: String,
    /// mean or median (bias-corrected, as scipy).
    #[arg(long, default_value = "mean")]
    pub average: String,
    /// constant, linear or none.
    #[arg(long, default_value = "constant")]
    pub detrend: String,
    /// density (V²/Hz) or spectrum (V²).
    #[arg(long, default_value = "density")]
    pub scaling: String,
    /// Seconds from the recording start.
    #[arg(long, default_value_t = 0.0)]
    pub start: f64,
    /// Seconds to analyse (default: to the end).
    #[arg(long)]
    pub duration: Option<f64>,
}

impl WelchArgs {
    pub fn params(&self) -> Result<WelchParams> {
        Ok(WelchParams {
            nperseg: self.nperseg,
            noverlap: self.noverlap,
            nfft: self.nfft,
            window: Window::parse(&self.window).map_err(|e| anyhow!(e))?,
            detrend: Detrend::parse(&self.detrend).map_err(|e| anyhow!(e))?,
            scaling: Scaling::parse(&self.scaling).map_err(|e| anyhow!(e))?,
            average: Average::parse(&self.average).map_err(|e| anyhow!(e))?,
        })
    }
}

pub fn channel(rec: &Recording, file: &Path, label: &str) -> Result<usize> {
    rec.channel_index(label).with_context(|| {
        let labels: Vec<&str> = rec.channels().iter().map(|c| c.label.as_str()).collect();
        format!("{}: no channel '{label}'; channels are: {}", file.display(), labels.join(", "))
    })
}

/// Channel indices for labels (every signal channel when `labels` is empty); an unknown label is an error
/// that lists the channels.
pub fn resolve_channels(rec: &Recording, file: &Path, labels: &[String]) -> Result<Vec<usize>> {
    if labels.is_empty() {
        return Ok((0..rec.channels().len()).collect());
    }
    labels.iter().map(|l| channel(rec, file, l.trim())).collect()
}

/// A band argument: a name from `signal::bands` (`alpha`) or `LO-HI` in Hz.
pub fn parse_band(s: &str) -> Result<(f64, f64)> {
    crate::signal::bands::parse(s).map_err(|e| anyhow!(e))
}

/// `brainlens psd FILE --channel L`.
pub fn psd(
    file: &Path,
    label: &str,
    w: &WelchArgs,
    method: &str,
    bandwidth: Option<f64>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let rec = Recording::open(file)?;
    let c = channel(&rec, file, label)?;
    if method == "multitaper" {
        let fs = rec.channels()[c].sample_rate;
        let dur = w.duration.unwrap_or(rec.duration_s()? - w.start);
        let x = rec.read(&[c], w.start, dur)?.remove(0).values;
        let p = crate::signal::spectrum::multitaper::multitaper_psd(&x, fs, bandwidth)
            .map_err(|e| anyhow!("{}: {e}", file.display()))?;
        if json {
            return write_json(
                out,
                &json!({"channel": rec.channels()[c].label, "sample_rate": fs, "method": "multitaper",
                "tapers": p.tapers, "half_bandwidth": p.half_bandwidth, "freqs": p.freqs, "psd": p.psd}),
            );
        }
        writeln!(
            out,
            "# {} at {fs} Hz: multitaper, {} tapers, half-bandwidth {} bins",
            rec.channels()[c].label,
            p.tapers,
            p.half_bandwidth
        )?;
        for (f, v) in p.freqs.iter().zip(&p.psd) {
            writeln!(out, "{f}\t{v}")?;
        }
        return Ok(());
    }
    if method != "welch" {
        bail!("--method {method}: welch or multitaper");
    }
    let p = channel_psds(&rec, &[c], w.start, w.duration, &w.params()?, &Cancel::default(), &|_| {})
        .map_err(|e| anyhow!("{}: {e}", file.display()))?
        .remove(0);
    if json {
        return write_json(
            out,
            &json!({"channel": rec.channels()[c].label, "sample_rate": p.sample_rate, "freqs": p.freqs,
            "psd": p.psd, "nperseg": p.nperseg, "noverlap": p.noverlap, "nfft": p.nfft, "segments": p.segments}),
        );
    }
    writeln!(
        out,
        "# {} at {} Hz: nperseg {}, noverlap {}, nfft {}, {} segments",
        rec.channels()[c].label,
        p.sample_rate,
        p.nperseg,
        p.noverlap,
        p.nfft,
        p.segments
    )?;
    for (f, v) in p.freqs.iter().zip(&p.psd) {
        writeln!(out, "{f}\t{v}")?;
    }
    Ok(())
}

/// Options of `brainlens bandpower`.
#[derive(Debug, Clone, clap::Args)]
pub struct BandpowerArgs {
    /// The band, LO-HI in Hz (both edges included).
    #[arg(long)]
    pub band: String,
    /// Divide by the power over --total.
    #[arg(long)]
    pub relative: bool,
    /// Total range for --relative, LO-HI in Hz.
    #[arg(long, default_value = "0.5-40")]
    pub total: String,
    /// Channel labels, comma-separated (default: every signal channel).
    #[arg(long, value_delimiter = ',')]
    pub channels: Vec<String>,
    /// trapezoid (numpy.trapezoid over the bin frequencies) or simpson (scipy.integrate.simpson, dx = bin width).
    #[arg(long, default_value = "trapezoid")]
    pub integration: String,
    /// YASA's convention: Hamming window, median averaging, 4-s segments (unless --nperseg), Simpson's rule.
    #[arg(long)]
    pub yasa: bool,
}

/// `brainlens bandpower FILE --band LO-HI`.
pub fn bandpower(file: &Path, b: &BandpowerArgs, w: &WelchArgs, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let (lo, hi) = parse_band(&b.band)?;
    let total = parse_band(&b.total)?;
    let chans = resolve_channels(&rec, file, &b.channels)?;
    if chans.is_empty() {
        bail!("{}: no signal channels", file.display());
    }
    let (p, integ) = if b.yasa {
        crate::signal::spectrum::yasa(rec.channels()[chans[0]].sample_rate, w.nperseg)
    } else {
        (w.params()?, Integration::parse(&b.integration).map_err(|e| anyhow!(e))?)
    };
    let psds = channel_psds(&rec, &chans, w.start, w.duration, &p, &Cancel::default(), &|_| {})
        .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let mut values = serde_json::Map::new();
    let mut sum = 0.0;
    for (&c, psd) in chans.iter().zip(&psds) {
        let label = &rec.channels()[c].label;
        let v =
            if b.relative { relative_band_power(psd, (lo, hi), total, integ) } else { band_power(psd, lo, hi, integ) }
                .map_err(|e| anyhow!("{label}: {e}"))?;
        sum += v;
        values.insert(label.clone(), json!(v));
    }
    let mean = sum / chans.len() as f64;
    if json {
        return write_json(
            out,
            &json!({"band": [lo, hi], "relative": b.relative, "total": if b.relative { Some([total.0, total.1]) } else { None },
            "integration": integ, "window": p.window.name(), "average": p.average, "nperseg": psds[0].nperseg,
            "channels": values, "mean": mean}),
        );
    }
    for (label, v) in &values {
        writeln!(out, "{label}\t{}", v.as_f64().unwrap_or(f64::NAN))?;
    }
    writeln!(out, "mean\t{mean}")?;
    Ok(())
}

/// `brainlens stats FILE`: per-channel variance, RMS, kurtosis, line-noise ratio, IQR flat/noisy flags and
/// region means.
pub fn stats(file: &Path, channels: &[String], line_hz: f64, json: bool, out: &mut dyn Write) -> Result<()> {
    let rec = Recording::open(file)?;
    let chans = resolve_channels(&rec, file, channels)?;
    let duration = rec.duration_s()?;
    let data = rec.read(&chans, 0.0, duration + 1.0)?;
    let input: Vec<(String, Vec<f64>, f64)> =
        chans.iter().zip(data).map(|(&c, d)| (rec.channels()[c].label.clone(), d.values, d.sample_rate)).collect();
    let r =
        crate::signal::channel_stats::channel_stats(&input, line_hz).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    if json {
        return write_json(out, &r);
    }
    writeln!(out, "{:<16} {:>14} {:>12} {:>10} {:>10}  status", "channel", "variance", "rms", "kurtosis", "line")?;
    for c in &r.channels {
        writeln!(
            out,
            "{:<16} {:>14.4} {:>12.4} {:>10.3} {:>10}  {}",
            c.label,
            c.variance,
            c.rms,
            c.kurtosis,
            c.line_noise_ratio.map_or("–".into(), |v| format!("{v:.4}")),
            c.status
        )?;
    }
    writeln!(out, "IQR rule on variance: flat < {:.4}, noisy > {:.4}", r.lower, r.upper)?;
    for g in &r.regions {
        writeln!(
            out,
            "{:<10} {} channels: variance {:.4}, rms {:.4}, kurtosis {:.3}",
            g.region, g.channels, g.variance, g.rms, g.kurtosis
        )?;
    }
    Ok(())
}

/// `brainlens spectrogram FILE --channel L`: per-segment PSD over a window of the recording (defaults for
/// whole nights: 4-s Hann segments without overlap), averaged down to at most `max_columns` time columns.
pub fn spectrogram_cmd(
    file: &Path,
    label: &str,
    w: &WelchArgs,
    max_columns: usize,
    cdsa: Option<(f64, Option<f64>)>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    use crate::signal::spectrum::spectrogram::{downsample_rows, spectrogram};
    let rec = Recording::open(file)?;
    let c = channel(&rec, file, label)?;
    let fs = rec.channels()[c].sample_rate;
    let total = rec.duration_s()?;
    let dur = w.duration.unwrap_or(total - w.start);
    let x = rec.read(&[c], w.start, dur)?.remove(0).values;
    let mut p = w.params()?;
    if w.nperseg.is_none() {
        p.nperseg = Some((4.0 * fs) as usize);
        if w.noverlap.is_none() {
            p.noverlap = Some(0);
        }
    }
    let s = match cdsa {
        Some((epoch, bw)) => crate::signal::spectrum::spectrogram::multitaper_cdsa(&x, fs, epoch, bw),
        None => spectrogram(&x, fs, &p),
    }
    .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let s = downsample_rows(&s, max_columns);
    if json {
        return write_json(
            out,
            &json!({"channel": rec.channels()[c].label, "sample_rate": fs, "start": w.start,
            "times": s.times, "freqs": s.freqs, "power": s.power}),
        );
    }
    writeln!(
        out,
        "# {} at {fs} Hz: {} columns × {} frequencies (rows: time s, then power per frequency)",
        rec.channels()[c].label,
        s.times.len(),
        s.freqs.len()
    )?;
    for (t, time) in s.times.iter().enumerate() {
        let row: Vec<String> = s.row(t).iter().map(|v| format!("{v:.6e}")).collect();
        writeln!(out, "{:.3}\t{}", w.start + time, row.join("\t"))?;
    }
    Ok(())
}

/// `brainlens topomap FILE --band LO-HI`: band power per electrode over the scalp (positions from
/// `--positions`, the recording's `<stem>_positions.csv`, or the standard 10-20 table), as JSON or a PNG.
#[allow(clippy::too_many_arguments)]
pub fn topomap_cmd(
    file: &Path,
    b: &BandpowerArgs,
    w: &WelchArgs,
    positions: Option<&Path>,
    png: Option<&Path>,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    use crate::signal::topomap::{positions_for, project, recording_positions, topomap};
    let rec = Recording::open(file)?;
    let own = recording_positions(&rec, positions).map_err(|e| anyhow!(e))?;
    let labels: Vec<String> = rec.channels().iter().map(|c| c.label.clone()).collect();
    let pos = positions_for(&labels, own.as_deref());
    let chans: Vec<usize> = (0..labels.len()).filter(|&c| pos[c].is_some()).collect();
    if chans.len() < 3 {
        bail!("{}: fewer than 3 channels have electrode positions (give --positions channel,x,y,z)", file.display());
    }
    let (lo, hi) = parse_band(&b.band)?;
    let total = parse_band(&b.total)?;
    let integ = Integration::parse(&b.integration).map_err(|e| anyhow!(e))?;
    let psds = channel_psds(&rec, &chans, w.start, w.duration, &w.params()?, &Cancel::default(), &|_| {})
        .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let mut values = Vec::new();
    for (psd, &c) in psds.iter().zip(&chans) {
        let v =
            if b.relative { relative_band_power(psd, (lo, hi), total, integ) } else { band_power(psd, lo, hi, integ) }
                .map_err(|e| anyhow!("{}: {e}", labels[c]))?;
        values.push(v);
    }
    let xy = project(&chans.iter().map(|&c| pos[c].expect("filtered")).collect::<Vec<_>>());
    let map = topomap(chans.iter().map(|&c| labels[c].clone()).collect(), xy, values, 128).map_err(|e| anyhow!(e))?;
    if let Some(p) = png {
        write_png(p, &map)?;
    }
    if json {
        return write_json(
            out,
            &json!({"band": [lo, hi], "relative": b.relative, "labels": map.labels, "xy": map.xy, "values": map.values}),
        );
    }
    for ((l, xy), v) in map.labels.iter().zip(&map.xy).zip(&map.values) {
        writeln!(out, "{l}\t{:.4}\t{:.4}\t{v}", xy[0], xy[1])?;
    }
    Ok(())
}

#[cfg(feature = "gui")]
fn write_png(path: &Path, map: &crate::signal::topomap::TopoMap) -> Result<()> {
    let img = image::RgbaImage::from_raw(map.size as u32, map.size as u32, map.rgba()).context("image size")?;
    img.save(path).with_context(|| format!("{}: cannot write", path.display()))
}

#[cfg(not(feature = "gui"))]
fn write_png(path: &Path, _: &crate::signal::topomap::TopoMap) -> Result<()> {
    bail!("{}: PNG output needs the gui feature (image encoding)", path.display())
}
