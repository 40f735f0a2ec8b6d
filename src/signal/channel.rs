//! What a recording of any format yields: its channels, and samples over a window as contiguous runs.

use super::channel_kind::ChannelKind;
use serde::Serialize;

/// An ordinary (non-annotation) signal of a recording.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Channel {
    /// Index of the signal in the file (EDF header signal; BrainVision channel).
    pub signal: usize,
    pub label: String,
    /// Samples per second: samples per record / record duration.
    pub sample_rate: f64,
    pub physical_dimension: String,
    /// The channel's type: the file's own where it stores one, else from the label.
    pub kind: ChannelKind,
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

/// Index of the first sample at time ≥ `t` (seconds after the first sample of a record or window) at `fs`,
/// with a tolerance of 10⁻⁶ samples so that times computed in floating point land on the sample they name.
pub fn first_sample_at_or_after(t: f64, fs: f64) -> usize {
    if t <= 0.0 { 0 } else { ((t * fs) - 1e-6).ceil().max(0.0) as usize }
}
