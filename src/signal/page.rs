//! One screen of traces: the derivations of a montage over a time window, display-filtered. The GUI draws
//! these; tests and the CLI can compute them without a window.

use super::edf::EdfError;
use super::filter::display::DisplayFilter;
use super::filter::segments::{SkipByAnnotation, filter_stretches, recording_spans, stretches};
use super::montage::Derivation;
use super::recording::Recording;

/// A contiguous run of a trace: time of its first sample and its values (physical units).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TraceRun {
    pub onset_s: f64,
    pub values: Vec<f32>,
}

/// One drawn trace.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Trace {
    pub label: String,
    pub sample_rate: f64,
    pub unit: String,
    pub runs: Vec<TraceRun>,
}

/// Computes the traces of `derivations` for `[start_s, start_s + duration_s)`. With a display filter, real
/// data beyond both edges is read and filtered too, so the page shows no edge transient; annotations MNE's
/// `raw.filter` skips by default (`edge`, `bad_acq_skip`) split the filtering as they split MNE's.
pub fn compute_page(
    rec: &Recording,
    derivations: &[Derivation],
    filter: &DisplayFilter,
    start_s: f64,
    duration_s: f64,
) -> Result<Vec<Trace>, EdfError> {
    let margin = filter.margin_s();
    let mut needed: Vec<usize> = derivations.iter().flat_map(|d| d.terms.iter().map(|t| t.0)).collect();
    needed.sort_unstable();
    needed.dedup();
    let data = rec.read(&needed, (start_s - margin).max(0.0), duration_s + 2.0 * margin)?;
    // As MNE's raw.filter: stretches between `edge`/`bad_acq_skip` annotations are filtered on their own.
    let spans = if filter.is_off() { Vec::new() } else { recording_spans(rec, &SkipByAnnotation::default())? };
    let by_channel = |c: usize| &data[needed.binary_search(&c).expect("channel was read")];
    let end_s = start_s + duration_s;
    let mut traces = Vec::with_capacity(derivations.len());
    for d in derivations {
        let first = by_channel(d.terms[0].0);
        let fs = first.sample_rate;
        let mut combined = vec![0.0f64; first.values.len()];
        for &(c, w) in &d.terms {
            let x = &by_channel(c).values;
            for (o, v) in combined.iter_mut().zip(x) {
                *o += w * v;
            }
        }
        let mut runs = Vec::new();
        let mut offset = 0;
        for seg in &first.segments {
            let x = &combined[offset..offset + seg.n_samples];
            offset += seg.n_samples;
            let y = if filter.is_off() {
                x.to_vec()
            } else {
                let parts = stretches(seg.n_samples, fs, seg.onset_s, &spans);
                filter_stretches(x, &parts, |s| Ok::<_, EdfError>(filter.apply(s, fs)))?
            };
            let lo = ((start_s - seg.onset_s) * fs - 1e-6).ceil().max(0.0) as usize;
            let hi = (((end_s - seg.onset_s) * fs - 1e-6).ceil().max(0.0) as usize).min(y.len());
            if hi > lo {
                runs.push(TraceRun {
                    onset_s: seg.onset_s + lo as f64 / fs,
                    values: y[lo..hi].iter().map(|&v| v as f32).collect(),
                });
            }
        }
        let unit = rec.channels()[d.terms[0].0].physical_dimension.clone();
        traces.push(Trace { label: d.label.clone(), sample_rate: fs, unit, runs });
    }
    Ok(traces)
}
