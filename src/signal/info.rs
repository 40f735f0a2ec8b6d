//! The facts of an open recording that `brainlens info` prints and the Recordings room's properties dialog
//! shows: format, patient and recording fields, records, duration, every channel's header fields.

use super::Recording;
use super::channel_kind::ChannelKind;
use super::edf::EdfError;
use serde::Serialize;

/// One channel as `info` reports it; the EDF/BDF header fields are null for other formats.
#[derive(Debug, Serialize)]
pub struct ChannelInfo {
    pub label: String,
    pub sample_rate: f64,
    pub physical_dimension: String,
    /// The channel's type as MNE names it (`eeg`, `eog`, `stim`, `mag`, …): the file's own, else from the label.
    pub kind: ChannelKind,
    pub physical_min: Option<f64>,
    pub physical_max: Option<f64>,
    pub digital_min: Option<i64>,
    pub digital_max: Option<i64>,
    pub prefilter: String,
    pub transducer: String,
    /// Samples of this channel in the whole file.
    pub samples: u64,
}

/// What `brainlens info --json` prints; the EDF/BDF header fields are null for other formats.
#[derive(Debug, Serialize)]
pub struct FileInfo {
    pub path: String,
    pub format: String,
    pub patient: String,
    pub recording: String,
    pub start: String,
    pub record_count: Option<u64>,
    pub record_duration_s: Option<f64>,
    pub duration_s: f64,
    pub channels: Vec<ChannelInfo>,
    pub annotation_count: usize,
    /// Labels of the channels the file marks bad.
    pub bads: Vec<String>,
    /// Electrode positions the file gives: label and x/y/z in metres (head frame).
    pub positions: Vec<(String, [f64; 3])>,
    pub repairs: Vec<String>,
}

/// Collects the facts `info` prints.
pub fn file_info(rec: &Recording) -> Result<FileInfo, EdfError> {
    let h = rec.header();
    let annotation_count = rec.annotations()?.len();
    let duration_s = rec.duration_s()?;
    let channels = rec
        .channels()
        .iter()
        .map(|c| {
            let s = h.map(|h| &h.signals[c.signal]);
            ChannelInfo {
                label: c.label.clone(),
                sample_rate: c.sample_rate,
                physical_dimension: c.physical_dimension.clone(),
                kind: c.kind,
                physical_min: s.map(|s| s.physical_min),
                physical_max: s.map(|s| s.physical_max),
                digital_min: s.map(|s| s.digital_min),
                digital_max: s.map(|s| s.digital_max),
                prefilter: s.map_or(String::new(), |s| s.prefilter.clone()),
                transducer: s.map_or(String::new(), |s| s.transducer.clone()),
                samples: match (s, h) {
                    (Some(s), Some(h)) => s.samples_per_record as u64 * h.record_count,
                    _ => (duration_s * c.sample_rate).round() as u64,
                },
            }
        })
        .collect();
    Ok(FileInfo {
        path: rec.path().display().to_string(),
        format: rec.format_name(),
        patient: h.map_or(String::new(), |h| h.patient.clone()),
        recording: h.map_or(String::new(), |h| h.recording.clone()),
        start: h.map_or(String::new(), |h| h.start.iso8601()),
        record_count: h.map(|h| h.record_count),
        record_duration_s: h.map(|h| h.record_duration),
        duration_s,
        channels,
        annotation_count,
        bads: rec.bads().to_vec(),
        positions: rec.positions().to_vec(),
        repairs: rec.repairs().iter().map(|r| r.to_string()).collect(),
    })
}
