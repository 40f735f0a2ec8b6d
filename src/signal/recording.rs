//! `Recording`: the channels of an EDF/BDF file on a time axis, read on demand.

use super::edf::{Annotation, EdfError, EdfFile, Header, Repair};
use serde::Serialize;
use std::path::Path;

/// An ordinary (non-annotation) signal of a recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Channel {
    /// Index of the signal in the file header.
    pub signal: usize,
    pub label: String,
    /// Samples per second: samples per record / record duration.
    pub sample_rate: f64,
    pub physical_dimension: String,
}

/// A contiguous run of samples: its first sample's time and how many samples it holds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Segment {
    pub onset_s: f64,
    pub n_samples: usize,
}

/// Samples of one channel over a window: physical values of recorded samples only, in record order, with
/// one segment per contiguous run (EDF+D gaps are explicit, never filled).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChannelData {
    pub sample_rate: f64,
    pub values: Vec<f64>,
    pub segments: Vec<Segment>,
}

/// An open recording.
#[derive(Debug)]
pub struct Recording {
    file: EdfFile,
    channels: Vec<Channel>,
}

impl Recording {
    /// Opens an EDF/EDF+/BDF/BDF+ file; only the header is read.
    pub fn open(path: &Path) -> Result<Recording, EdfError> {
        let file = EdfFile::open(path)?;
        let h = file.header();
        let channels = h
            .signals
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_annotation)
            .map(|(i, s)| Channel {
                signal: i,
                label: s.label.clone(),
                sample_rate: if h.record_duration > 0.0 {
                    s.samples_per_record as f64 / h.record_duration
                } else {
                    0.0
                },
                physical_dimension: s.physical_dimension.clone(),
            })
            .collect();
        Ok(Recording { file, channels })
    }

    /// The underlying file.
    pub fn file(&self) -> &EdfFile {
        &self.file
    }

    /// The repaired header.
    pub fn header(&self) -> &Header {
        self.file.header()
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Ordinary signals, in file order.
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// Index into [`Self::channels`] of the channel labelled `label` (exact, then case-insensitive).
    pub fn channel_index(&self, label: &str) -> Option<usize> {
        let label = label.trim();
        self.channels
            .iter()
            .position(|c| c.label == label)
            .or_else(|| self.channels.iter().position(|c| c.label.eq_ignore_ascii_case(label)))
    }

    /// Annotations, read on first use.
    pub fn annotations(&self) -> Result<&[Annotation], EdfError> {
        Ok(&self.file.scan()?.annotations)
    }

    /// Header repairs plus any made while reading annotations.
    pub fn repairs(&self) -> Vec<Repair> {
        self.file.repairs()
    }

    /// Onset of record `r` in seconds from the start. Continuous files need no scan.
    fn record_onsets(&self) -> Result<Option<&[f64]>, EdfError> {
        if self.header().format.is_discontinuous() { Ok(Some(&self.file.scan()?.record_onsets)) } else { Ok(None) }
    }

    /// Seconds from the start to the end of the last record.
    pub fn duration_s(&self) -> Result<f64, EdfError> {
        let h = self.header();
        Ok(match self.record_onsets()? {
            Some(o) => o.last().map_or(0.0, |last| last + h.record_duration),
            None => h.record_count as f64 * h.record_duration,
        })
    }

    /// Records that overlap `[start, end)` seconds.
    fn records_in(&self, start: f64, end: f64) -> Result<(u64, u64), EdfError> {
        let h = self.header();
        let d = h.record_duration;
        let n = h.record_count;
        if d <= 0.0 || n == 0 {
            return Ok((0, 0));
        }
        Ok(match self.record_onsets()? {
            Some(o) => {
                let r0 = o.partition_point(|&t| t + d <= start);
                let r1 = o.partition_point(|&t| t < end);
                (r0 as u64, r1.max(r0) as u64)
            }
            None => {
                let r0 = ((start / d).floor().max(0.0) as u64).min(n);
                let r1 = ((end / d).ceil().max(0.0) as u64).min(n);
                (r0, r1.max(r0))
            }
        })
    }

    /// Reads channels `chans` (indices into [`Self::channels`]) for samples whose time lies in
    /// `[start_s, start_s + duration_s)`.
    pub fn read(&self, chans: &[usize], start_s: f64, duration_s: f64) -> Result<Vec<ChannelData>, EdfError> {
        let h = self.header();
        for &c in chans {
            if c >= self.channels.len() {
                return Err(EdfError::file(self.path(), "channel", format!("index {c} out of range")));
            }
        }
        let end_s = start_s + duration_s;
        let (r0, r1) = self.records_in(start_s, end_s)?;
        let onsets = self.record_onsets()?;
        let bps = h.format.bytes_per_sample();
        let sigs: Vec<usize> = chans.iter().map(|&c| self.channels[c].signal).collect();
        let span_lo = sigs.iter().map(|&s| h.signal_offset_in_record(s)).min().unwrap_or(0);
        let span_hi = sigs
            .iter()
            .map(|&s| h.signal_offset_in_record(s) + (h.signals[s].samples_per_record * bps) as u64)
            .max()
            .unwrap_or(0);
        let mut out: Vec<ChannelData> = chans
            .iter()
            .map(|&c| ChannelData { sample_rate: self.channels[c].sample_rate, ..Default::default() })
            .collect();
        // Allocated only when a record is read: a bad header can declare huge records that the file
        // does not hold, and then there are no records to read.
        let mut buf = if r1 > r0 { vec![0u8; (span_hi - span_lo) as usize] } else { Vec::new() };
        let mut digital = Vec::new();
        for r in r0..r1 {
            let onset = onsets.map_or(r as f64 * h.record_duration, |o| o[r as usize]);
            self.file.read_at_exact(self.file.record_offset(r) + span_lo, &mut buf)?;
            for ((&sig, &c), data) in sigs.iter().zip(chans).zip(out.iter_mut()) {
                let s = &h.signals[sig];
                let fs = self.channels[c].sample_rate;
                let lo = first_sample_at_or_after(start_s - onset, fs).min(s.samples_per_record);
                let hi = first_sample_at_or_after(end_s - onset, fs).min(s.samples_per_record);
                if hi <= lo {
                    continue;
                }
                let off = (h.signal_offset_in_record(sig) - span_lo) as usize;
                digital.clear();
                super::edf::reader::decode_into(&buf[off + lo * bps..off + hi * bps], bps, &mut digital);
                data.values.extend(digital.iter().map(|&d| s.to_physical(d)));
                let t0 = onset + lo as f64 / fs;
                match data.segments.last_mut() {
                    Some(seg) if ((seg.onset_s + seg.n_samples as f64 / fs) - t0).abs() < 0.5 / fs => {
                        seg.n_samples += hi - lo
                    }
                    _ => data.segments.push(Segment { onset_s: t0, n_samples: hi - lo }),
                }
            }
        }
        Ok(out)
    }
}

/// Index of the first sample at time ≥ `t` (seconds after a record's onset) at `fs`, with a tolerance of
/// 10⁻⁶ samples so that times computed in floating point land on the sample they name.
fn first_sample_at_or_after(t: f64, fs: f64) -> usize {
    if t <= 0.0 { 0 } else { ((t * fs) - 1e-6).ceil().max(0.0) as usize }
}
