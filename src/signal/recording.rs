//! `Recording`: the channels of a recording file on a time axis, read on demand — EDF/EDF+/BDF/BDF+, or a
//! format whose channels share one sample grid ([`Continuous`]: BrainVision `.vhdr`, …), behind one interface.

use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, EdfFile, Header, Repair};
use super::open_options::{self, OpenOptions};
use std::path::Path;

use super::channel::first_sample_at_or_after;
pub use super::channel::{Channel, ChannelData, Segment};
use super::channel_kind::ChannelKind;

/// An open recording.
#[derive(Debug)]
pub struct Recording {
    source: Source,
    channels: Vec<Channel>,
    /// A BIDS data file's `_events.tsv` and `_channels.tsv` bad channels, which replace the file's own (its
    /// `_channels.tsv` types are applied to `channels` when it opens: [`Recording::apply_bids_sidecars`]).
    sidecar: Option<Sidecar>,
}

#[derive(Debug)]
struct Sidecar {
    annotations: Option<Vec<Annotation>>,
    bads: Option<Vec<String>>,
}

#[derive(Debug)]
enum Source {
    Edf(EdfFile),
    Grid(Continuous),
}

/// The file extensions [`Recording::open`] reads (lower case, without the dot).
pub const EXTENSIONS: [&str; 12] =
    ["edf", "bdf", "gdf", "vhdr", "cnt", "set", "fif", "npy", "npz", "mat", "csv", "tsv"];

/// The extension of `path`, lower case.
fn extension(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

impl Recording {
    /// Opens a recording by its extension with the process-wide [`OpenOptions`] (the CLI's `--rate` and
    /// `--cnt-format`; none by default).
    pub fn open(path: &Path) -> Result<Recording, EdfError> {
        Self::open_with(path, &open_options::defaults())
    }

    /// Opens a recording by its extension: a BrainVision header (`.vhdr`), a Neuroscan `.cnt`, an EEGLAB `.set`, a FIF
    /// raw file, a GDF file, an array
    /// (`.npy`, `.npz`, `.mat`, `.csv`, `.tsv`), else an
    /// EDF/EDF+/BDF/BDF+ file. Only headers (and marker or event tables) are read.
    pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Recording, EdfError> {
        let grid = match extension(path).as_str() {
            "vhdr" => Some(super::brainvision::open(path)?),
            "cnt" => Some(super::cnt::open(path, options)?),
            "set" => Some(super::eeglab::open(path)?),
            "fif" => Some(super::fif::open(path)?),
            "gdf" => Some(super::gdf::open(path)?),
            e if super::arrays::EXTENSIONS.contains(&e) => Some(super::arrays::open(path, e, options)?),
            _ => None,
        };
        let mut rec = match grid {
            Some(g) => Recording { channels: g.channels.clone(), source: Source::Grid(g), sidecar: None },
            None => Self::open_edf(path)?,
        };
        rec.apply_bids_sidecars(path)?;
        Ok(rec)
    }

    /// A BIDS data file's events, bad channels and channel types (`…_eeg.<ext>` beside `…_events.tsv` /
    /// `…_channels.tsv`): the types go onto the channels, events and bads into the sidecar.
    fn apply_bids_sidecars(&mut self, path: &Path) -> Result<(), EdfError> {
        use super::bids::dataset::{channels_tsv, events, sidecar};
        let annotations = sidecar(path, "events").map(|p| events(&p)).transpose()?;
        let channels = sidecar(path, "channels").map(|p| channels_tsv(&p)).transpose()?;
        let bads = channels.map(|t| {
            for (name, kind) in t.kinds {
                if let Some(c) = self.channels.iter_mut().find(|c| c.label == name) {
                    c.kind = kind;
                }
            }
            t.bads
        });
        self.sidecar = (annotations.is_some() || bads.is_some()).then_some(Sidecar { annotations, bads });
        Ok(())
    }

    fn open_edf(path: &Path) -> Result<Recording, EdfError> {
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
                kind: ChannelKind::from_label(&s.label),
            })
            .collect();
        Ok(Recording { source: Source::Edf(file), channels, sidecar: None })
    }

    /// The EDF/BDF file, when the recording is one.
    pub fn edf(&self) -> Option<&EdfFile> {
        match &self.source {
            Source::Edf(f) => Some(f),
            Source::Grid(_) => None,
        }
    }

    /// The repaired EDF/BDF header, when the recording is an EDF/BDF file.
    pub fn header(&self) -> Option<&Header> {
        self.edf().map(EdfFile::header)
    }

    /// The recording on one sample grid, when it is not EDF/BDF.
    pub fn grid(&self) -> Option<&Continuous> {
        match &self.source {
            Source::Grid(g) => Some(g),
            Source::Edf(_) => None,
        }
    }

    /// The format as users know it: `EDF+C`, `BDF`, `BrainVision (IEEE_FLOAT_32)`.
    pub fn format_name(&self) -> String {
        match &self.source {
            Source::Edf(f) => f.header().format.name().to_string(),
            Source::Grid(g) => g.format.clone(),
        }
    }

    /// The prefilter the file records for a channel (EDF's field; empty for formats without one).
    pub fn prefilter(&self, channel: usize) -> &str {
        match &self.source {
            Source::Edf(f) => f.header().signals[self.channels[channel].signal].prefilter.trim(),
            Source::Grid(_) => "",
        }
    }

    /// Labels of the channels the file marks bad (Neuroscan CNT, a BIDS `channels.tsv`, …; none for EDF/BDF).
    pub fn bads(&self) -> &[String] {
        if let Some(b) = self.sidecar.as_ref().and_then(|s| s.bads.as_ref()) {
            return b;
        }
        match &self.source {
            Source::Edf(_) => &[],
            Source::Grid(g) => &g.bads,
        }
    }

    /// Electrode positions the file itself gives (BrainVision coordinates, EEGLAB chanlocs, FIF channel
    /// locations); none for EDF/BDF.
    pub fn positions(&self) -> &[(String, [f64; 3])] {
        match &self.source {
            Source::Edf(_) => &[],
            Source::Grid(g) => &g.positions,
        }
    }

    /// True when the samples are not one contiguous run (EDF+D/BDF+D, BrainVision "New Segment"s, EEGLAB
    /// boundaries or epochs, FIF skips), from the header alone.
    pub fn is_discontinuous(&self) -> bool {
        match &self.source {
            Source::Edf(f) => f.header().format.is_discontinuous(),
            Source::Grid(g) => g.run_starts.len() > 1,
        }
    }

    /// Bytes of the data on disk.
    pub fn file_len(&self) -> u64 {
        match &self.source {
            Source::Edf(f) => f.file_len(),
            Source::Grid(g) => g.data_len,
        }
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        match &self.source {
            Source::Edf(f) => f.path(),
            Source::Grid(g) => g.path(),
        }
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

    /// Annotations, read on first use (a BIDS data file's come from its `events.tsv`).
    pub fn annotations(&self) -> Result<&[Annotation], EdfError> {
        if let Some(a) = self.sidecar.as_ref().and_then(|s| s.annotations.as_ref()) {
            return Ok(a);
        }
        match &self.source {
            Source::Edf(f) => Ok(&f.scan()?.annotations),
            Source::Grid(g) => Ok(&g.annotations),
        }
    }

    /// Header repairs plus any made while reading annotations.
    pub fn repairs(&self) -> Vec<Repair> {
        match &self.source {
            Source::Edf(f) => f.repairs(),
            Source::Grid(g) => g.repairs.clone(),
        }
    }

    /// Onset of record `r` in seconds from the start. Continuous files need no scan.
    fn record_onsets(file: &EdfFile) -> Result<Option<&[f64]>, EdfError> {
        if file.header().format.is_discontinuous() { Ok(Some(&file.scan()?.record_onsets)) } else { Ok(None) }
    }

    /// Seconds from the start to the end of the last record (the last sample).
    pub fn duration_s(&self) -> Result<f64, EdfError> {
        let file = match &self.source {
            Source::Edf(f) => f,
            Source::Grid(g) => return Ok(g.duration_s()),
        };
        let h = file.header();
        Ok(match Self::record_onsets(file)? {
            Some(o) => o.last().map_or(0.0, |last| last + h.record_duration),
            None => h.record_count as f64 * h.record_duration,
        })
    }

    /// Records that overlap `[start, end)` seconds.
    fn records_in(file: &EdfFile, start: f64, end: f64) -> Result<(u64, u64), EdfError> {
        let h = file.header();
        let d = h.record_duration;
        let n = h.record_count;
        if d <= 0.0 || n == 0 {
            return Ok((0, 0));
        }
        Ok(match Self::record_onsets(file)? {
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
        for &c in chans {
            if c >= self.channels.len() {
                return Err(EdfError::file(self.path(), "channel", format!("index {c} out of range")));
            }
        }
        let file = match &self.source {
            Source::Edf(f) => f,
            Source::Grid(g) => return g.read(chans, start_s, duration_s),
        };
        let h = file.header();
        let end_s = start_s + duration_s;
        let (r0, r1) = Self::records_in(file, start_s, end_s)?;
        let onsets = Self::record_onsets(file)?;
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
            file.read_at_exact(file.record_offset(r) + span_lo, &mut buf)?;
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
