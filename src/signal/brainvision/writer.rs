//! Writing any recording as BrainVision (`.vhdr` + `.vmrk` + `.eeg`, multiplexed, UTF-8 headers), as pybv
//! writes it: IEEE_FLOAT_32 (values in each channel's unit, to float32 precision) or INT_16 with a
//! resolution per channel (given, or the channel's largest magnitude / 32767). Annotations become markers
//! (`Type/Description` texts split back into type and description; any other text is a `Comment`), and every
//! contiguous run after the first starts with a "New Segment" marker, so gaps survive the trip.

use crate::signal::Recording;
use crate::signal::edf::Annotation;
use crate::signal::error::{SignalError, invalid, io};
use std::io::Write;
use std::path::Path;

/// How samples are stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BvSamples {
    Float32,
    /// INT_16; the resolution (value of one step, in the channel's unit) or `None` for each channel's own.
    Int16(Option<f64>),
}

/// Writes `rec` with `annotations` to `out` (a `.vhdr` path; the `.vmrk` and `.eeg` go beside it).
pub fn write_brainvision(
    rec: &Recording,
    annotations: &[Annotation],
    out: &Path,
    samples: BvSamples,
) -> Result<(), SignalError> {
    crate::signal::edf::layout::refuse_overwrite(rec.path(), out)?;
    if !out.extension().is_some_and(|e| e.eq_ignore_ascii_case("vhdr")) {
        return Err(invalid!("{}: a BrainVision header is a .vhdr file", out.display()));
    }
    let channels = rec.channels();
    let Some(first) = channels.first() else { return Err(invalid!("{}: no channels to write", rec.path().display())) };
    let fs = first.sample_rate;
    if let Some(c) = channels.iter().find(|c| c.sample_rate != fs) {
        return Err(invalid!(
            "{}: BrainVision has one rate for all channels; {} has {} Hz, {} has {fs} Hz (resample first)",
            rec.path().display(),
            c.label,
            c.sample_rate,
            first.label
        ));
    }
    let all: Vec<usize> = (0..channels.len()).collect();
    let data = rec.read(&all, 0.0, rec.duration_s()? + 1.0)?;
    let n = data[0].values.len();
    let resolution: Vec<f64> = match samples {
        BvSamples::Float32 => vec![1.0; channels.len()],
        BvSamples::Int16(Some(r)) if r.is_finite() && r > 0.0 => vec![r; channels.len()],
        BvSamples::Int16(Some(r)) => return Err(invalid!("resolution {r} is not a positive number")),
        BvSamples::Int16(None) => data
            .iter()
            .map(|d| {
                let peak = d.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                if peak > 0.0 { peak / 32767.0 } else { 1.0 }
            })
            .collect(),
    };
    let base = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "recording".into());
    let dir = out.parent().unwrap_or(Path::new("."));
    let (eeg, vmrk) = (dir.join(format!("{base}.eeg")), dir.join(format!("{base}.vmrk")));
    // Samples, multiplexed.
    let mut bytes = Vec::with_capacity(n * channels.len() * 4);
    for i in 0..n {
        for (c, d) in data.iter().enumerate() {
            let v = d.values[i];
            match samples {
                BvSamples::Float32 => bytes.extend_from_slice(&(v as f32).to_le_bytes()),
                BvSamples::Int16(_) => {
                    let q = (v / resolution[c]).round();
                    if !(-32768.0..=32767.0).contains(&q) {
                        return Err(invalid!(
                            "{}: {v} at sample {i} does not fit INT_16 at resolution {} (give a coarser --resolution)",
                            channels[c].label,
                            resolution[c]
                        ));
                    }
                    bytes.extend_from_slice(&(q as i16).to_le_bytes());
                }
            }
        }
    }
    std::fs::write(&eeg, &bytes).map_err(io(&eeg.display(), "write"))?;
    let (format, name) = match samples {
        BvSamples::Float32 => ("IEEE_FLOAT_32", "float32"),
        BvSamples::Int16(_) => ("INT_16", "int16"),
    };
    let mut h = String::new();
    h.push_str("Brain Vision Data Exchange Header File Version 1.0\n");
    h.push_str(&format!("; Data written by BrainLens ({name}) from {}\n\n", rec.path().display()));
    h.push_str("[Common Infos]\nCodepage=UTF-8\n");
    h.push_str(&format!("DataFile={base}.eeg\nMarkerFile={base}.vmrk\nDataFormat=BINARY\n"));
    h.push_str("DataOrientation=MULTIPLEXED\n");
    h.push_str(&format!("NumberOfChannels={}\nSamplingInterval={}\n\n", channels.len(), 1e6 / fs));
    h.push_str(&format!("[Binary Infos]\nBinaryFormat={format}\n\n"));
    h.push_str("[Channel Infos]\n; Ch<n>=<name>,<reference>,<resolution>,<unit>\n");
    for (i, c) in channels.iter().enumerate() {
        let unit = if c.physical_dimension.trim().is_empty() { "µV" } else { c.physical_dimension.trim() };
        h.push_str(&format!("Ch{}={},,{},{unit}\n", i + 1, escape(&c.label), resolution[i]));
    }
    let mut m = String::new();
    m.push_str("Brain Vision Data Exchange Marker File, Version 1.0\n\n[Common Infos]\nCodepage=UTF-8\n");
    m.push_str(&format!("DataFile={base}.eeg\n\n[Marker Infos]\n"));
    m.push_str("; Mk<n>=<type>,<description>,<position in data points>,<size in data points>,<channel number>\n");
    let mut k = 1;
    let mut marker = |kind: &str, text: &str, position: i64, points: i64| {
        m.push_str(&format!("Mk{k}={},{},{position},{points},0\n", escape(kind), escape(text)));
        k += 1;
    };
    marker("New Segment", "", 1, 1);
    let mut at = 0;
    for (j, seg) in data[0].segments.iter().enumerate() {
        if j > 0 {
            marker("New Segment", "", at as i64 + 1, 1);
        }
        at += seg.n_samples;
    }
    // "New Segment" annotations are the runs, written above.
    for a in annotations.iter().filter(|a| !a.text.starts_with("New Segment/")) {
        let (kind, text) = match a.text.split_once('/') {
            Some((k, t)) if !k.is_empty() && !k.contains(',') => (k, t),
            _ => ("Comment", a.text.as_str()),
        };
        let points = a.duration_s.map_or(1, |d| (d * fs).round().max(1.0) as i64);
        marker(kind, text, (a.onset_s * fs).round() as i64 + 1, points);
    }
    let write = |p: &Path, s: &str| -> Result<(), SignalError> {
        let mut f = std::fs::File::create(p).map_err(io(&p.display(), "create"))?;
        f.write_all(s.as_bytes()).map_err(io(&p.display(), "write"))
    };
    write(&vmrk, &m)?;
    write(out, &h)
}

/// A comma inside a name or description is `\1` in BrainVision headers.
fn escape(s: &str) -> String {
    s.replace(',', "\\1")
}
