//! Where filtering splits, as MNE's `raw.filter(..., skip_by_annotation=("edge", "bad_acq_skip"))` splits:
//! samples under an annotation whose description starts with one of the given words (case-insensitive) are
//! left unfiltered, the stretches on either side are filtered as independent signals, and a zero-length such
//! annotation splits a stretch in two (MNE's `_annotations_starts_stops(raw, kinds, invert=True)`). Gaps
//! between contiguous runs (EDF+D) split as well.

use crate::signal::edf::EdfError;
use crate::signal::recording::{Recording, Segment};
use std::ops::Range;

/// Annotation descriptions (prefixes, case-insensitive) that split filtering; MNE's default by default.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SkipByAnnotation(pub Vec<String>);

impl Default for SkipByAnnotation {
    fn default() -> Self {
        SkipByAnnotation(vec!["edge".into(), "bad_acq_skip".into()])
    }
}

impl SkipByAnnotation {
    /// No annotation splits (MNE's `skip_by_annotation=[]`).
    pub fn none() -> Self {
        SkipByAnnotation(Vec::new())
    }

    /// From a comma-separated list; empty or `none` is [`Self::none`].
    pub fn parse(list: &str) -> Self {
        let words: Vec<String> = list.split(',').map(str::trim).filter(|w| !w.is_empty()).map(str::to_string).collect();
        if words.len() == 1 && words[0].eq_ignore_ascii_case("none") { Self::none() } else { SkipByAnnotation(words) }
    }

    /// True when `description` starts with one of the words, ignoring case.
    pub fn matches(&self, description: &str) -> bool {
        let d = description.to_uppercase();
        self.0.iter().any(|w| d.starts_with(&w.to_uppercase()))
    }

    /// The `(onset_s, duration_s)` of the annotations that split filtering.
    pub fn spans<'a>(&self, annotations: impl IntoIterator<Item = (f64, f64, &'a str)>) -> Vec<(f64, f64)> {
        annotations.into_iter().filter(|(_, _, text)| self.matches(text)).map(|(o, d, _)| (o, d)).collect()
    }
}

/// The stretches of `n` samples at `fs`, whose first sample is at `t0` seconds, that are filtered
/// independently: MNE's good runs between the `spans` (times rounded to samples half to even, as `np.round`),
/// split at each zero-length span. Samples in no stretch are left as they are.
pub fn stretches(n: usize, fs: f64, t0: f64, spans: &[(f64, f64)]) -> Vec<Range<usize>> {
    let first = (t0 * fs).round_ties_even();
    let index = |t: f64| ((t * fs).round_ties_even() - first).clamp(0.0, n as f64) as usize;
    let mut bad = vec![false; n];
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    for &(onset, duration) in spans {
        let (a, b) = (index(onset), index(onset + duration.max(0.0)));
        if a == b {
            starts.push(a);
            ends.push(a);
        } else {
            bad[a..b].iter_mut().for_each(|x| *x = true);
        }
    }
    let mut i = 0;
    while i < n {
        if bad[i] {
            i += 1;
            continue;
        }
        let s = i;
        while i < n && !bad[i] {
            i += 1;
        }
        starts.push(s);
        ends.push(i);
    }
    starts.sort_unstable();
    ends.sort_unstable();
    starts.into_iter().zip(ends).filter(|(s, e)| e > s).map(|(s, e)| s..e).collect()
}

/// The stretches of a channel read as contiguous runs (its values laid end to end): each run on its own, so
/// gaps (EDF+D) split too.
pub fn run_stretches(runs: &[Segment], fs: f64, spans: &[(f64, f64)]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for run in runs {
        out.extend(stretches(run.n_samples, fs, run.onset_s, spans).into_iter().map(|r| r.start + at..r.end + at));
        at += run.n_samples;
    }
    out
}

/// The `(onset_s, duration_s)` of `rec`'s annotations that `skip` names.
pub fn recording_spans(rec: &Recording, skip: &SkipByAnnotation) -> Result<Vec<(f64, f64)>, EdfError> {
    if skip.0.is_empty() {
        return Ok(Vec::new());
    }
    Ok(skip.spans(rec.annotations()?.iter().map(|a| (a.onset_s, a.duration_s.unwrap_or(0.0), a.text.as_str()))))
}

/// `x` with `f` applied to each stretch on its own; samples outside every stretch keep their values.
pub fn filter_stretches<E>(
    x: &[f64],
    stretches: &[Range<usize>],
    mut f: impl FnMut(&[f64]) -> Result<Vec<f64>, E>,
) -> Result<Vec<f64>, E> {
    let mut y = x.to_vec();
    for r in stretches {
        let filtered = f(&x[r.clone()])?;
        y[r.clone()].copy_from_slice(&filtered);
    }
    Ok(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_as_mne_does() {
        // 100 samples at 10 Hz: a bad span 2.0–3.0 s (samples 20..30) and a zero-length edge at 6.0 s.
        let s = stretches(100, 10.0, 0.0, &[(2.0, 1.0), (6.0, 0.0)]);
        assert_eq!(s, [0..20, 30..60, 60..100]);
        // Rounding is half to even: 0.25 s × 10 Hz = 2.5 → 2, 0.35 s → 3.5 → 4.
        assert_eq!(stretches(10, 10.0, 0.0, &[(0.25, 0.1)]), [0..2, 4..10]);
        // Overlapping spans merge; a span past the end is cut.
        assert_eq!(stretches(50, 10.0, 0.0, &[(1.0, 1.0), (1.5, 1.0), (4.5, 9.0)]), [0..10, 25..45]);
        // A window starting at 1.0 s sees the same samples.
        assert_eq!(stretches(90, 10.0, 1.0, &[(2.0, 1.0)]), [0..10, 20..90]);
        assert_eq!(stretches(5, 10.0, 0.0, &[]), [0..5]);
        // Two contiguous runs (a gap between 3 s and 5 s): each on its own, the span in the second.
        let runs = [Segment { onset_s: 0.0, n_samples: 30 }, Segment { onset_s: 5.0, n_samples: 30 }];
        assert_eq!(run_stretches(&runs, 10.0, &[(6.0, 0.5)]), [0..30, 30..40, 45..60]);
    }

    #[test]
    fn matching_is_a_case_insensitive_prefix() {
        let skip = SkipByAnnotation::default();
        assert!(skip.matches("BAD_ACQ_SKIP") && skip.matches("EDGE boundary") && !skip.matches("bad_blink"));
        assert_eq!(SkipByAnnotation::parse("none"), SkipByAnnotation::none());
        assert_eq!(SkipByAnnotation::parse("bad, edge").0, ["bad", "edge"]);
        let y = filter_stretches(&[1.0, 2.0, 3.0, 4.0], &[0..1, 2..4], |x| {
            Ok::<_, ()>(x.iter().map(|v| v * 10.0).collect())
        })
        .unwrap();
        assert_eq!(y, [10.0, 2.0, 30.0, 40.0]);
    }
}
