//! EEGLAB datasets (`.set`, MATLAB v5/v7; samples in the `.fdt` file EEG.data names, or inside the `.set`),
//! read as MNE's `read_raw_eeglab` reads them: channel labels from `chanlocs` (`EEG 000`, … when it is empty),
//! values in µV, events → annotations (onset (latency − 1) / srate, duration / srate, text `type`, sorted by
//! onset), and each `boundary` event starts a new contiguous run. Epoched datasets (trials > 1), which MNE
//! reads only as epochs, are laid end to end with a run per epoch. v7.3 (HDF5) sets are refused with how to
//! re-save them.

use super::channel::Channel;
use super::channel_kind::ChannelKind;
use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::{Dtype, Layout, Matrix, OnDisk, open_data, whole_samples};
use crate::util::mat5::{self, Value};
use std::path::{Path, PathBuf};

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

/// The EEG structure: the `EEG` variable, or the variables themselves (EEGLAB's flat save).
struct Eeg {
    vars: Vec<(String, Value)>,
}

impl Eeg {
    fn get(&self, name: &str) -> Option<&Value> {
        match self.vars.iter().find(|(n, _)| n == "EEG") {
            Some((_, eeg @ Value::Struct { .. })) => eeg.field(0, name),
            _ => self.vars.iter().find(|(n, _)| n == name).map(|(_, v)| v),
        }
    }

    fn number(&self, path: &Path, name: &str) -> Result<Option<f64>, EdfError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v.scalar().map(Some).ok_or_else(|| err(path, &format!("EEG.{name}"), "not a number")),
        }
    }
}

/// Python's `str()` of a number as MNE prints an event type: `1.0`, `2.5`.
fn python_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e16 { format!("{v:.1}") } else { format!("{v}") }
}

/// Opens an EEGLAB `.set` file.
pub fn open(path: &Path) -> Result<Continuous, EdfError> {
    let bytes = std::fs::read(path).map_err(|e| err(path, "open", e.to_string()))?;
    let vars = mat5::parse(&bytes).map_err(|e| err(path, "MATLAB file", e))?;
    let eeg = Eeg { vars };
    if eeg.get("srate").is_none() && eeg.get("data").is_none() {
        return Err(err(path, "EEG", "no EEG structure (no srate or data): not an EEGLAB dataset"));
    }
    let srate = eeg
        .number(path, "srate")?
        .filter(|r| r.is_finite() && *r > 0.0)
        .ok_or_else(|| err(path, "EEG.srate", "missing or not a positive rate"))?;
    let count = |name: &str, default: f64| -> Result<usize, EdfError> {
        let v = eeg.number(path, name)?.unwrap_or(default);
        if v.is_finite() && v >= 1.0 && v.fract() == 0.0 && v <= 1e12 {
            Ok(v as usize)
        } else {
            Err(err(path, &format!("EEG.{name}"), format!("{v} is not a positive whole number")))
        }
    };
    let (nbchan, pnts, trials) = (count("nbchan", 1.0)?, count("pnts", 1.0)?, count("trials", 1.0)?);
    let n_samples = pnts.checked_mul(trials).ok_or_else(|| err(path, "EEG.pnts", "pnts × trials overflows"))?;
    let names = channel_names(&eeg, nbchan);
    let mut repairs = Vec::new();
    let (matrix, format, data_len) = match eeg.get("data") {
        Some(Value::Char(_)) => {
            let name = eeg.get("data").and_then(Value::text).unwrap_or_default();
            let fdt = data_file(path, &name, &mut repairs)?;
            let (file, len) = open_data(&fdt, "EEG.data")
                .map_err(|e| err(path, "EEG.data", format!("{} {}", fdt.display(), e.problem)))?;
            let (whole, _) = whole_samples(len, 0, nbchan, Dtype::F32);
            let n = if whole < n_samples {
                repairs.push(Repair::file(
                    "EEG.data",
                    format!(
                        "{} holds {whole} of the {n_samples} samples the header gives (truncated): {whole} are read",
                        fdt.display()
                    ),
                ));
                whole
            } else {
                n_samples
            };
            let disk = OnDisk {
                path: fdt.clone(),
                file,
                offset: 0,
                dtype: Dtype::F32,
                big_endian: false,
                layout: Layout::SampleMajor,
            };
            (Matrix::on_disk(disk, nbchan, n, vec![1.0; nbchan], vec![0.0; nbchan]), "EEGLAB (.set + .fdt)", len)
        }
        Some(Value::Numeric { data, .. }) => {
            if Some(data.len()) != nbchan.checked_mul(n_samples) {
                return Err(err(
                    path,
                    "EEG.data",
                    format!("{} values, but nbchan × pnts × trials = {nbchan} × {pnts} × {trials}", data.len()),
                ));
            }
            // Column-major nbchan × samples → channel after channel.
            let values = (0..nbchan * n_samples).map(|k| data[(k % n_samples) * nbchan + k / n_samples]).collect();
            (Matrix::in_memory(values, nbchan), "EEGLAB (.set, data inside)", bytes.len() as u64)
        }
        _ => return Err(err(path, "EEG.data", "neither a data file name nor a numeric array")),
    };
    let (annotations, mut run_starts) = events(&eeg, srate);
    run_starts.extend((1..trials).map(|k| k * pnts));
    let format =
        if trials > 1 { format!("{format}, {trials} epochs of {pnts} samples end to end") } else { format.into() };
    let channels = names
        .into_iter()
        .enumerate()
        .map(|(i, label)| Channel {
            signal: i,
            kind: channel_kind(&eeg, i, &label),
            label,
            sample_rate: srate,
            physical_dimension: "µV".into(),
        })
        .collect();
    Ok(Continuous {
        path: path.to_path_buf(),
        format,
        sample_rate: srate,
        channels,
        matrix,
        annotations,
        run_starts,
        repairs,
        bads: Vec::new(),
        positions: chanlocs_positions(&eeg, nbchan),
        data_len,
    }
    .normalised())
}

/// `chanlocs(i).labels`, or MNE's `EEG 000`, … when chanlocs is empty.
fn channel_names(eeg: &Eeg, nbchan: usize) -> Vec<String> {
    let locs = eeg.get("chanlocs");
    (0..nbchan)
        .map(|i| locs.and_then(|l| l.field(i, "labels")).and_then(Value::text).unwrap_or_else(|| format!("EEG {i:03}")))
        .collect()
}

/// `chanlocs(i).type` as MNE reads it (trimmed, any case; a type it does not know is EEG); when it is empty
/// or missing, from the label.
fn channel_kind(eeg: &Eeg, i: usize, label: &str) -> ChannelKind {
    let stored = eeg.get("chanlocs").and_then(|l| l.field(i, "type")).and_then(Value::text);
    match stored.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => ChannelKind::parse(t).unwrap_or(ChannelKind::Eeg),
        _ => ChannelKind::from_label(label),
    }
}

/// `chanlocs(i).X/Y/Z` → head-frame positions as MNE takes them ([−Y, X, Z]), in metres: EEGLAB stores mm, cm
/// or m, told apart by the mean radius (> 10: mm; > 1: cm).
fn chanlocs_positions(eeg: &Eeg, nbchan: usize) -> Vec<(String, [f64; 3])> {
    let Some(locs) = eeg.get("chanlocs") else { return Vec::new() };
    let mut out: Vec<(String, [f64; 3])> = (0..nbchan)
        .filter_map(|i| {
            let num = |f: &str| locs.field(i, f).and_then(Value::scalar).filter(|v| v.is_finite());
            let label = locs.field(i, "labels").and_then(Value::text)?;
            Some((label, [-num("Y")?, num("X")?, num("Z")?]))
        })
        .collect();
    if out.is_empty() {
        return out;
    }
    let r = out.iter().map(|(_, p)| p.iter().map(|v| v * v).sum::<f64>().sqrt()).sum::<f64>() / out.len() as f64;
    let k = if r > 10.0 {
        1e-3
    } else if r > 1.0 {
        1e-2
    } else {
        1.0
    };
    for (_, p) in &mut out {
        p.iter_mut().for_each(|v| *v *= k);
    }
    out
}

/// The `.fdt` file EEG.data names, beside the `.set`; when it is not there, the `.set`'s own name with
/// `.fdt` (as MNE, with a repair note).
fn data_file(set: &Path, name: &str, repairs: &mut Vec<Repair>) -> Result<PathBuf, EdfError> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".dat") {
        return Err(err(set, "EEG.data", format!("{name}: the old .dat format; re-save the dataset in EEGLAB (.fdt)")));
    }
    let dir = set.parent().unwrap_or(Path::new("."));
    let named = dir.join(name);
    if !name.is_empty() && named.is_file() {
        return Ok(named);
    }
    let beside = set.with_extension("fdt");
    if beside.is_file() {
        repairs
            .push(Repair::file("EEG.data", format!("{name:?} is not beside the .set: {} is read", beside.display())));
        return Ok(beside);
    }
    Err(err(set, "EEG.data", format!("the data file is missing: tried {} and {}", named.display(), beside.display())))
}

/// EEG.event → annotations (sorted by onset, as MNE's Annotations) and the first sample after each boundary.
fn events(eeg: &Eeg, srate: f64) -> (Vec<Annotation>, Vec<usize>) {
    let Some(ev) = eeg.get("event") else { return (Vec::new(), Vec::new()) };
    let mut out = Vec::new();
    let mut runs = Vec::new();
    for i in 0..ev.len() {
        let Some(latency) = ev.field(i, "latency").and_then(Value::scalar).filter(|l| !l.is_nan()) else { continue };
        let text = match ev.field(i, "type") {
            Some(v @ Value::Char(_)) => v.text().unwrap_or_default(),
            Some(v) => v.scalar().map(python_number).unwrap_or_default(),
            None => String::new(),
        };
        let duration_s = ev.field(i, "duration").and_then(Value::scalar).filter(|d| d.is_finite()).map(|d| d / srate);
        if text == "boundary" && latency > 1.0 {
            runs.push((latency - 1.0).ceil() as usize);
        }
        out.push(Annotation { onset_s: (latency - 1.0) / srate, duration_s, text });
    }
    out.sort_by(|a, b| a.onset_s.total_cmp(&b.onset_s));
    (out, runs)
}
