//! `brainlens filter FILE --l-freq --h-freq --out OUT.edf`: MNE's default FIR filter applied to every signal
//! channel (or the listed ones), written as a new EDF+/BDF+ file whose prefilter field records the band.

use crate::signal::Recording;
use crate::signal::edf::derive::{DerivedChannel, write_derived};
use crate::signal::filter::butter::{butter_filtfilt, notch_filtfilt};
use crate::signal::filter::fir::{FirFilter, FirWindow};
use crate::signal::filter::segments::{SkipByAnnotation, filter_stretches, recording_spans, run_stretches};
use anyhow::{Result, anyhow, bail};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct FilterArgs {
    /// High-pass edge in Hz (MNE's l_freq).
    #[arg(long)]
    pub l_freq: Option<f64>,
    /// Low-pass edge in Hz (MNE's h_freq).
    #[arg(long)]
    pub h_freq: Option<f64>,
    /// fir: MNE's filter_data default (firwin, Hamming, zero phase); iir: Butterworth SOS, zero phase
    /// (scipy.signal.sosfiltfilt).
    #[arg(long, default_value = "fir")]
    pub method: String,
    /// Butterworth order for --method iir (a band-pass has twice as many poles).
    #[arg(long, default_value_t = 4)]
    pub order: usize,
    /// Mains notch in Hz (50 or 60) with its harmonics (scipy.signal.iirnotch, Q 30, zero phase), applied
    /// after the band.
    #[arg(long)]
    pub notch: Option<f64>,
    /// FIR window: hamming (MNE's default), hann or blackman.
    #[arg(long, default_value = "hamming")]
    pub fir_window: String,
    /// Annotations whose description starts with one of these (comma-separated, case-insensitive) are left
    /// unfiltered and the data on either side is filtered independently, as MNE's `raw.filter`
    /// `skip_by_annotation`; `none` filters straight through them.
    #[arg(long, default_value = "edge,bad_acq_skip")]
    pub skip_by_annotation: String,
    /// Channel labels, comma-separated (default: every signal channel).
    #[arg(long, value_delimiter = ',')]
    pub channels: Vec<String>,
    /// The new file (EDF+ or BDF+, as the source).
    #[arg(long)]
    pub out: PathBuf,
}

/// The prefilter text of a band: `HP:0.5Hz LP:40Hz`, `HP:1Hz`, `LP:30Hz`.
pub fn prefilter_text(l: Option<f64>, h: Option<f64>) -> String {
    let mut parts = Vec::new();
    if let Some(l) = l {
        parts.push(format!("HP:{l}Hz"));
    }
    if let Some(h) = h {
        parts.push(format!("LP:{h}Hz"));
    }
    parts.join(" ")
}

pub fn run(file: &Path, a: &FilterArgs, out: &mut dyn Write) -> Result<()> {
    if a.method != "fir" && a.method != "iir" {
        bail!("--method {}: fir or iir", a.method);
    }
    if a.l_freq.is_none() && a.h_freq.is_none() && a.notch.is_none() {
        bail!("give --l-freq and/or --h-freq, or --notch");
    }
    let window = FirWindow::parse(&a.fir_window).map_err(|e| anyhow!(e))?;
    let rec = Recording::open(file)?;
    let chans = super::spectrum::resolve_channels(&rec, file, &a.channels)?;
    if chans.is_empty() {
        bail!("{}: no signal channels", file.display());
    }
    let duration = rec.duration_s()?;
    let skip = SkipByAnnotation::parse(&a.skip_by_annotation);
    let spans = recording_spans(&rec, &skip)?;
    if !spans.is_empty() {
        writeln!(
            out,
            "{} annotation(s) matching {:?} split the filtering (--skip-by-annotation)",
            spans.len(),
            skip.0
        )?;
    }
    let mut derived = Vec::new();
    for &c in &chans {
        let ch = &rec.channels()[c];
        let fs = ch.sample_rate;
        let band_given = a.l_freq.is_some() || a.h_freq.is_some();
        let fir = (band_given && a.method == "fir")
            .then(|| FirFilter::design(fs, a.l_freq, a.h_freq, window))
            .transpose()
            .map_err(|e| anyhow!("{}: {e}", ch.label))?;
        let d = rec.read(&[c], 0.0, duration + 1.0)?.remove(0);
        // Each stretch between skipped annotations, and each contiguous run (EDF+D), is filtered on its own;
        // gaps are never bridged and skipped samples stay as recorded.
        let stretches = run_stretches(&d.segments, fs, &spans);
        let values = filter_stretches(&d.values, &stretches, |x| -> Result<Vec<f64>> {
            let mut y = x.to_vec();
            if let Some(f) = &fir {
                y = f.apply(&y);
            } else if band_given {
                y = butter_filtfilt(&y, fs, a.l_freq, a.h_freq, a.order).map_err(|e| anyhow!("{}: {e}", ch.label))?;
            }
            if let Some(n) = a.notch {
                y = notch_filtfilt(&y, fs, n, 30.0).map_err(|e| anyhow!("{}: {e}", ch.label))?;
            }
            Ok(y)
        })?;
        let original = rec.prefilter(c).to_string();
        let mut band = prefilter_text(a.l_freq, a.h_freq);
        if let Some(n) = a.notch {
            band = format!("{band} N:{n}Hz").trim().to_string();
        }
        let prefilter = if original.is_empty() { band } else { format!("{band} ({original})") };
        derived.push(DerivedChannel {
            label: ch.label.clone(),
            source: c,
            values,
            prefilter,
            samples_per_record: None,
        });
        match &fir {
            Some(f) => writeln!(
                out,
                "{}: FIR {} taps, transition {} / {} Hz",
                ch.label,
                f.length,
                f.l_trans_bandwidth.map_or("–".into(), |v| v.to_string()),
                f.h_trans_bandwidth.map_or("–".into(), |v| v.to_string())
            )?,
            None if band_given => writeln!(out, "{}: Butterworth order {}, zero phase", ch.label, a.order)?,
            None => writeln!(out, "{}: notch only", ch.label)?,
        }
    }
    write_derived(&rec, &derived, &a.out)?;
    writeln!(out, "wrote {}", a.out.display())?;
    Ok(())
}
