//! BIDS-EEG export of one recording: the data file (EDF+ for EDF sources, BDF+ for BDF and the other formats,
//! or BrainVision), `_channels.tsv`, `_events.tsv` and `_eeg.json` under `sub-S[/ses-X]/eeg/`, and the
//! dataset's `dataset_description.json`, `participants.tsv` and `README` (created, or extended with the new
//! participant). Every REQUIRED `_eeg.json` field is written, and the RECOMMENDED ones the file supports
//! (channel counts by type, recording duration and type, software filters "n/a").

use super::Entities;
use crate::signal::Recording;
use crate::signal::brainvision::writer::{BvSamples, write_brainvision};
use crate::signal::edf::Annotation;
use crate::signal::edf::save::save_with_annotations;
use crate::signal::error::{SignalError, invalid, io};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The data format written into the dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BidsData {
    /// EDF+ for an EDF source, BDF+ otherwise (no precision lost).
    EdfOrBdf,
    /// BrainVision IEEE_FLOAT_32.
    BrainVision,
}

/// What to export and where.
pub struct ExportSpec<'a> {
    pub root: &'a Path,
    pub entities: Entities,
    pub data: BidsData,
    /// Mains frequency in Hz; `None` writes "n/a".
    pub line_freq: Option<f64>,
    /// The reference as text (`EEGReference`); `None` writes "n/a".
    pub reference: Option<String>,
}

/// Writes `rec` with `annotations` (its own, or the GUI's edited ones); returns the files written, data
/// file first.
pub fn export(rec: &Recording, annotations: &[Annotation], spec: &ExportSpec) -> Result<Vec<PathBuf>, SignalError> {
    let e = &spec.entities;
    e.check()?;
    let dir = e.data_dir(spec.root);
    std::fs::create_dir_all(&dir).map_err(io(&dir.display(), "create"))?;
    let base = e.basename();
    let data_path = match spec.data {
        BidsData::BrainVision => {
            let p = dir.join(format!("{base}_eeg.vhdr"));
            write_brainvision(rec, annotations, &p, BvSamples::Float32)?;
            p
        }
        BidsData::EdfOrBdf => {
            let is_edf = rec.header().is_some_and(|h| !h.format.name().starts_with("BDF"));
            let p = dir.join(format!("{base}_eeg.{}", if is_edf { "edf" } else { "bdf" }));
            save_with_annotations(rec, annotations, &p)?;
            p
        }
    };
    let mut written = vec![data_path];
    // _channels.tsv
    let bads = rec.bads();
    let mut t = String::from("name\ttype\tunits\tstatus\tstatus_description\n");
    let mut counts = std::collections::BTreeMap::new();
    for c in rec.channels() {
        let kind = c.kind.bids_type();
        *counts.entry(kind).or_insert(0usize) += 1;
        let bad = bads.contains(&c.label);
        let unit = if c.physical_dimension.trim().is_empty() { "n/a" } else { c.physical_dimension.trim() };
        t.push_str(&format!(
            "{}\t{kind}\t{unit}\t{}\t{}\n",
            tsv(&c.label),
            if bad { "bad" } else { "good" },
            if bad { "marked bad in the source file" } else { "n/a" }
        ));
    }
    written.push(write(&dir.join(format!("{base}_channels.tsv")), &t)?);
    // _events.tsv
    let mut ev = String::from("onset\tduration\ttrial_type\n");
    for a in annotations {
        let d = a.duration_s.map_or("n/a".to_string(), |d| format!("{d}"));
        ev.push_str(&format!("{}\t{d}\t{}\n", a.onset_s, tsv(&a.text)));
    }
    written.push(write(&dir.join(format!("{base}_events.tsv")), &ev)?);
    // _eeg.json
    let fs = rec.channels().first().map_or(0.0, |c| c.sample_rate);
    let count = |k: &str| counts.get(k).copied().unwrap_or(0);
    let sidecar = json!({
        "TaskName": e.task,
        "EEGReference": spec.reference.clone().unwrap_or_else(|| "n/a".into()),
        "SamplingFrequency": fs,
        "PowerLineFrequency": spec.line_freq.map_or(json!("n/a"), |f| json!(f)),
        "SoftwareFilters": "n/a",
        "EEGChannelCount": count("EEG"),
        "EOGChannelCount": count("EOG"),
        "ECGChannelCount": count("ECG"),
        "EMGChannelCount": count("EMG"),
        "MiscChannelCount": count("MISC"),
        "TriggerChannelCount": count("TRIG"),
        "RecordingDuration": rec.duration_s()?,
        "RecordingType": if rec.is_discontinuous() { "discontinuous" } else { "continuous" },
    });
    written.push(write(
        &dir.join(format!("{base}_eeg.json")),
        &(serde_json::to_string_pretty(&sidecar).expect("json") + "\n"),
    )?);
    written.extend(dataset_files(spec.root, &e.subject)?);
    Ok(written)
}

/// `dataset_description.json` and `README` when missing; the participant added to `participants.tsv`.
fn dataset_files(root: &Path, subject: &str) -> Result<Vec<PathBuf>, SignalError> {
    let mut out = Vec::new();
    let desc = root.join("dataset_description.json");
    if !desc.exists() {
        let d = json!({
            "Name": root.file_name().map_or("BrainLens export".into(), |n| n.to_string_lossy().into_owned()),
            "BIDSVersion": "1.9.0",
            "DatasetType": "raw",
            "GeneratedBy": [{ "Name": "BrainLens", "Version": env!("CARGO_PKG_VERSION") }],
        });
        out.push(write(&desc, &(serde_json::to_string_pretty(&d).expect("json") + "\n"))?);
    }
    let readme = root.join("README");
    if !readme.exists() {
        out.push(write(
            &readme,
            "EEG recordings exported to BIDS by BrainLens (brainlens bids export).\n\
             Each recording's data file, channels, events and sidecar are under sub-<label>/[ses-<label>/]eeg/.\n",
        )?);
    }
    let parts = root.join("participants.tsv");
    let id = format!("sub-{subject}");
    let mut text = std::fs::read_to_string(&parts).unwrap_or_else(|_| "participant_id\n".into());
    if !text.lines().skip(1).any(|l| l.split('\t').next() == Some(id.as_str())) {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        let extra = text.lines().next().map_or(0, |h| h.split('\t').count().saturating_sub(1));
        text.push_str(&id);
        text.push_str(&"\tn/a".repeat(extra));
        text.push('\n');
        out.push(write(&parts, &text)?);
    }
    Ok(out)
}

fn write(p: &Path, s: &str) -> Result<PathBuf, SignalError> {
    std::fs::write(p, s).map_err(io(&p.display(), "write"))?;
    Ok(p.to_path_buf())
}

/// A TSV cell: tabs and line breaks become spaces.
fn tsv(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// Refuses an export whose entities BIDS does not allow.
pub fn check_label(kind: &str, v: &str) -> Result<(), SignalError> {
    if v.is_empty() || !v.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(invalid!("--{kind} {v:?}: a BIDS label is letters and digits only"));
    }
    Ok(())
}
