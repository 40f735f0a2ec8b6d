//! A view: channels of one recording held in memory at one sampling rate, with the operations applied to them
//! written down (`ops`). The Bench suite's reference analyses and the BrainAgent (EEG) tools both work on
//! views, so an agent that takes the same steps gets the same numbers as the reference.

use super::Recording;
use super::filter::fir::{FirFilter, FirWindow};
use super::filter::segments::{SkipByAnnotation, filter_stretches, recording_spans, run_stretches};
use crate::signal::error::{SignalError, invalid};
use serde::Serialize;
use std::ops::Range;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct View {
    /// The recording file the samples came from.
    pub source: String,
    pub labels: Vec<String>,
    pub sfreq: f64,
    /// Time of the first sample from the recording start (s).
    pub t0: f64,
    #[serde(skip)]
    pub data: Vec<Vec<f64>>,
    /// What was done, in order (`bandpass 0.5-40 Hz (FIR)`, `average reference`, …).
    pub ops: Vec<String>,
    /// Sample ranges filtered independently, as MNE's `raw.filter` default (`skip_by_annotation=("edge",
    /// "bad_acq_skip")`, plus EDF+D gaps) splits the recording; samples in none are never filtered.
    #[serde(skip)]
    pub stretches: Vec<Range<usize>>,
}

/// Which channels to take: by kind (`eeg`, `eog`, `ecg`, `all`) or by label.
pub enum Pick<'a> {
    Kind(&'a str),
    Labels(&'a [String]),
}

impl View {
    /// Reads whole channels of `path` (all of one sampling rate).
    pub fn load(path: &Path, pick: Pick) -> Result<View, SignalError> {
        let rec = Recording::open(path).map_err(|e| e.to_string())?;
        let idx: Vec<usize> = match pick {
            Pick::Kind(kind) => rec
                .channels()
                .iter()
                .enumerate()
                .filter(|(_, c)| kind == "all" || c.kind.name() == kind)
                .map(|(i, _)| i)
                .collect(),
            Pick::Labels(labels) => labels
                .iter()
                .map(|l| rec.channel_index(l).ok_or_else(|| invalid!("{}: no channel {l:?}", path.display())))
                .collect::<Result<_, _>>()?,
        };
        if idx.is_empty() {
            return Err(invalid!("{}: no channel of that kind", path.display()));
        }
        let sfreq = rec.channels()[idx[0]].sample_rate;
        if let Some(&i) = idx.iter().find(|&&i| rec.channels()[i].sample_rate != sfreq) {
            return Err(invalid!(
                "{}: channels differ in sampling rate ({} has {} Hz, {} has {sfreq} Hz)",
                path.display(),
                rec.channels()[i].label,
                rec.channels()[i].sample_rate,
                rec.channels()[idx[0]].label
            ));
        }
        let dur = rec.duration_s().map_err(|e| e.to_string())?;
        let data = rec.read(&idx, 0.0, dur + 1.0).map_err(|e| e.to_string())?;
        let spans = recording_spans(&rec, &SkipByAnnotation::default()).map_err(|e| e.to_string())?;
        let stretches = run_stretches(&data[0].segments, sfreq, &spans);
        Ok(View {
            source: path.display().to_string(),
            labels: idx.iter().map(|&i| rec.channels()[i].label.clone()).collect(),
            sfreq,
            t0: 0.0,
            data: data.into_iter().map(|d| d.values).collect(),
            ops: Vec::new(),
            stretches,
        })
    }

    /// The stretches, or the whole view when they do not fit its samples (data replaced by an operation that
    /// changed its length, such as an evoked average).
    fn stretches_checked(&self) -> Vec<Range<usize>> {
        let n = self.n_times();
        if self.stretches.iter().all(|r| r.end <= n) && !self.stretches.is_empty() {
            self.stretches.clone()
        } else {
            vec![0..n]
        }
    }

    pub fn n_times(&self) -> usize {
        self.data.first().map_or(0, Vec::len)
    }

    pub fn duration_s(&self) -> f64 {
        self.n_times() as f64 / self.sfreq
    }

    pub fn index(&self, label: &str) -> Result<usize, SignalError> {
        self.labels
            .iter()
            .position(|l| l.eq_ignore_ascii_case(label.trim()))
            .ok_or_else(|| invalid!("no channel {label:?} in this view (it has {})", self.labels.len()))
    }

    /// The channels named, in that order.
    pub fn select(&self, labels: &[String]) -> Result<View, SignalError> {
        let idx: Vec<usize> = labels.iter().map(|l| self.index(l)).collect::<Result<_, _>>()?;
        let mut v = self.clone();
        v.labels = idx.iter().map(|&i| self.labels[i].clone()).collect();
        v.data = idx.iter().map(|&i| self.data[i].clone()).collect();
        v.ops.push(format!("select {} channel(s)", idx.len()));
        Ok(v)
    }

    /// Zero-phase FIR filter as MNE's `raw.filter(l_freq, h_freq)` (firwin design, Hamming window), each
    /// stretch on its own.
    pub fn filter(&self, l_freq: Option<f64>, h_freq: Option<f64>) -> Result<View, SignalError> {
        // A high-pass edge of 0 Hz is no high-pass, as MNE's `filter_data` takes it (mne/filter.py, 1.13).
        let l_freq = l_freq.filter(|&l| l != 0.0);
        let f = FirFilter::design(self.sfreq, l_freq, h_freq, FirWindow::Hamming)?;
        let mut v = self.clone();
        let stretches = self.stretches_checked();
        v.data = self
            .data
            .iter()
            .map(|x| filter_stretches(x, &stretches, |s| Ok::<_, SignalError>(f.apply(s))))
            .collect::<Result<_, _>>()?;
        let edge = |e: Option<f64>| e.map_or("-".to_string(), |x| format!("{x}"));
        v.ops.push(format!("filter {}-{} Hz (FIR, zero-phase)", edge(l_freq), edge(h_freq)));
        Ok(v)
    }

    /// Average reference: the mean over the view's channels subtracted from each sample.
    pub fn average_reference(&self) -> Result<View, SignalError> {
        if self.labels.len() < 2 {
            return Err("an average reference needs at least two channels".into());
        }
        let n = self.labels.len() as f64;
        let mut v = self.clone();
        for t in 0..self.n_times() {
            let mean = self.data.iter().map(|c| c[t]).sum::<f64>() / n;
            for c in &mut v.data {
                c[t] -= mean;
            }
        }
        v.ops.push("average reference".into());
        Ok(v)
    }

    /// Polyphase resampling (scipy's `resample_poly`).
    pub fn resample(&self, sfreq: f64) -> Result<View, SignalError> {
        let (up, down) = super::resample::ratio(self.sfreq, sfreq)?;
        let mut v = self.clone();
        v.data = self.data.iter().map(|x| super::resample::resample_poly(x, up, down)).collect::<Result<_, _>>()?;
        let scale = |i: usize| (i * up).div_ceil(down).min(v.n_times());
        v.stretches = self.stretches_checked().into_iter().map(|r| scale(r.start)..scale(r.end)).collect();
        v.sfreq = sfreq;
        v.ops.push(format!("resample to {sfreq} Hz"));
        Ok(v)
    }

    /// Samples with time in [tmin, tmax) (seconds from the recording start).
    pub fn crop(&self, tmin: f64, tmax: f64) -> Result<View, SignalError> {
        let i0 = ((tmin - self.t0) * self.sfreq).round().max(0.0) as usize;
        let i1 = (((tmax - self.t0) * self.sfreq).round().max(0.0) as usize).min(self.n_times());
        if i1 <= i0 {
            return Err(invalid!("crop {tmin}–{tmax} s leaves no samples (the view spans {:.3} s)", self.duration_s()));
        }
        let mut v = self.clone();
        v.data = self.data.iter().map(|x| x[i0..i1].to_vec()).collect();
        v.stretches = self
            .stretches_checked()
            .into_iter()
            .map(|r| r.start.clamp(i0, i1) - i0..r.end.clamp(i0, i1) - i0)
            .filter(|r| !r.is_empty())
            .collect();
        v.t0 = self.t0 + i0 as f64 / self.sfreq;
        v.ops.push(format!("crop {tmin}-{tmax} s"));
        Ok(v)
    }
}

pub use super::connectivity::pearson;

/// numpy's `var` (ddof 0).
pub fn variance(x: &[f64]) -> f64 {
    super::channel_stats::moments(x).0
}

/// Welch with 2-s Hann segments, 50 % overlap, mean averaging, density scaling (scipy's defaults otherwise).
pub fn welch_2s(x: &[f64], fs: f64) -> Result<super::spectrum::Psd, SignalError> {
    super::spectrum::welch(
        x,
        fs,
        &super::spectrum::WelchParams { nperseg: Some((2.0 * fs).round() as usize), ..Default::default() },
    )
}

/// Epochs of `view` around each onset: samples round(onset·fs) + [round(tmin·fs), round(tmax·fs)], each
/// baseline-corrected with the mean over [tmin, 0) when `baseline`; events whose window leaves the data are
/// dropped.
pub fn epochs(view: &View, onsets: &[f64], tmin: f64, tmax: f64, baseline: bool) -> Vec<Vec<Vec<f64>>> {
    let fs = view.sfreq;
    let (a, b) = ((tmin * fs).round() as i64, (tmax * fs).round() as i64);
    let mut out = Vec::new();
    for &o in onsets {
        let c = ((o - view.t0) * fs).round() as i64;
        if c + a < 0 || c + b >= view.n_times() as i64 {
            continue;
        }
        let ep: Vec<Vec<f64>> = view
            .data
            .iter()
            .map(|x| {
                let mut e = x[(c + a) as usize..=(c + b) as usize].to_vec();
                if baseline && a < 0 {
                    let m = e[..(-a) as usize].iter().sum::<f64>() / (-a) as f64;
                    e.iter_mut().for_each(|v| *v -= m);
                }
                e
            })
            .collect();
        out.push(ep);
    }
    out
}

/// Mean over epochs, per channel.
pub fn evoked(eps: &[Vec<Vec<f64>>]) -> Vec<Vec<f64>> {
    let n = eps.len() as f64;
    let mut avg = eps[0].iter().map(|c| vec![0.0; c.len()]).collect::<Vec<_>>();
    for e in eps {
        for (a, c) in avg.iter_mut().zip(e) {
            for (x, y) in a.iter_mut().zip(c) {
                *x += y / n;
            }
        }
    }
    avg
}
