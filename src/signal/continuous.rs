//! A recording whose channels share one sample grid (BrainVision, Neuroscan CNT, EEGLAB, arrays): a
//! [`Matrix`] of samples, the channels, the annotations, and where contiguous runs start (a "New Segment",
//! an EEGLAB `boundary`, the next epoch).

use super::channel::{Channel, ChannelData, Segment, first_sample_at_or_after};
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::Matrix;
use std::path::{Path, PathBuf};

/// The most values one read returns (2 GB as f64). Bounds what a small file can make a reader allocate: a FIF
/// acquisition skip is zeros no file byte backs (found by cargo-fuzz: a 2 KB file whose skip spans 4.2 million
/// seconds, read whole, took 4.8 GB). One channel of a day at 1 kHz is 86 million values.
pub const MAX_VALUES_PER_READ: usize = 1 << 28;

/// An open recording on one sample grid.
#[derive(Debug)]
pub struct Continuous {
    /// The file the user opened (a header whose samples may lie in another file).
    pub path: PathBuf,
    /// The format as users know it, e.g. `BrainVision (INT_16)`.
    pub format: String,
    pub sample_rate: f64,
    pub channels: Vec<Channel>,
    pub matrix: Matrix,
    pub annotations: Vec<Annotation>,
    /// First sample of each contiguous run (0 first, then ascending).
    pub run_starts: Vec<usize>,
    pub repairs: Vec<Repair>,
    /// Labels of the channels the file marks bad.
    pub bads: Vec<String>,
    /// Electrode positions the file gives (label, x/y/z in metres, head frame: +x right, +y front, +z up).
    pub positions: Vec<(String, [f64; 3])>,
    /// Bytes of the data on disk.
    pub data_len: u64,
}

impl Continuous {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn n_samples(&self) -> usize {
        self.matrix.n_samples()
    }

    pub fn duration_s(&self) -> f64 {
        self.n_samples() as f64 / self.sample_rate
    }

    /// The recording with its run starts sorted and de-duplicated, kept inside the data (0 always first):
    /// every reader builds its `Continuous` through this.
    pub fn normalised(mut self) -> Continuous {
        let n = self.n_samples();
        self.run_starts.retain(|&s| s > 0 && s < n);
        self.run_starts.push(0);
        self.run_starts.sort_unstable();
        self.run_starts.dedup();
        self
    }

    /// The contiguous runs of samples `[i0, i1)`.
    fn runs(&self, i0: usize, i1: usize) -> Vec<(usize, usize)> {
        let mut bounds: Vec<usize> = self.run_starts.iter().copied().filter(|&s| s > i0 && s < i1).collect();
        bounds.insert(0, i0);
        bounds.push(i1);
        bounds.windows(2).map(|w| (w[0], w[1])).filter(|(a, b)| b > a).collect()
    }

    /// Channels `chans` (indices into the channel list) for samples whose time lies in `[start_s, start_s +
    /// duration_s)`, in the channels' own units; at most [`MAX_VALUES_PER_READ`] values in all.
    pub fn read(&self, chans: &[usize], start_s: f64, duration_s: f64) -> Result<Vec<ChannelData>, EdfError> {
        let fs = self.sample_rate;
        let n = self.n_samples();
        let first = |t: f64| first_sample_at_or_after(t, fs).min(n);
        let (i0, i1) = (first(start_s), first(start_s + duration_s));
        let wanted = i1.saturating_sub(i0).saturating_mul(chans.len());
        if wanted > MAX_VALUES_PER_READ {
            return Err(EdfError::file(
                &self.path,
                "read",
                format!(
                    "{} samples × {} channels is more than one read returns ({MAX_VALUES_PER_READ} values, 2 GB): \
                     read a shorter window or fewer channels",
                    i1 - i0,
                    chans.len()
                ),
            ));
        }
        let mut values: Vec<Vec<f64>> = chans.iter().map(|_| Vec::with_capacity(i1.saturating_sub(i0))).collect();
        let signals: Vec<usize> = chans.iter().map(|&c| self.channels[c].signal).collect();
        self.matrix.read_into(&signals, i0, i1, &mut values)?;
        let segments: Vec<Segment> = if i1 > i0 {
            self.runs(i0, i1).into_iter().map(|(a, b)| Segment { onset_s: a as f64 / fs, n_samples: b - a }).collect()
        } else {
            Vec::new()
        };
        Ok(values
            .into_iter()
            .map(|values| ChannelData { sample_rate: fs, values, segments: segments.clone() })
            .collect())
    }
}
