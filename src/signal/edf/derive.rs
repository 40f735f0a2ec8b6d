//! Writing a processed copy of a recording (filtered, re-referenced, …): new physical samples per channel,
//! same records and annotations, physical range refitted to the new values (16-bit EDF or 24-bit BDF
//! resolution), and a prefilter field that says what was done (`HP:0.5Hz LP:40Hz`).

use super::header::SignalHeader;
use super::reader::Annotation;
use super::writer::{WriteSpec, write_edf};
use crate::signal::Recording;
use crate::signal::error::{SignalError, invalid};
use std::path::Path;

/// One output channel: a label, the source channel whose header and record layout it takes, its samples
/// (as many as the source channel has) and its prefilter text.
pub struct DerivedChannel {
    pub label: String,
    pub source: usize,
    pub values: Vec<f64>,
    pub prefilter: String,
    /// Samples per record when they differ from the source channel's (a resampled channel).
    pub samples_per_record: Option<usize>,
}

/// Writes `channels` to `out` with `rec`'s records and annotations (records of a BDF+ layout for formats
/// without them: [`super::layout::copy_template`]). Refuses to overwrite the source.
pub fn write_derived(rec: &Recording, channels: &[DerivedChannel], out: &Path) -> Result<(), SignalError> {
    write_channels(rec, channels, rec.annotations()?.to_vec(), out)
}

/// Every channel of `rec` as recorded, with `annotations`, as EDF+/BDF+ (a BrainVision file as BDF+).
pub fn write_as_recorded(rec: &Recording, annotations: &[Annotation], out: &Path) -> Result<(), SignalError> {
    let all: Vec<usize> = (0..rec.channels().len()).collect();
    let data = rec.read(&all, 0.0, rec.duration_s()? + 1.0)?;
    let channels: Vec<DerivedChannel> = data
        .into_iter()
        .enumerate()
        .map(|(c, d)| DerivedChannel {
            label: rec.channels()[c].label.clone(),
            source: c,
            values: d.values,
            prefilter: rec.prefilter(c).to_string(),
            samples_per_record: None,
        })
        .collect();
    write_channels(rec, &channels, annotations.to_vec(), out)
}

fn write_channels(
    rec: &Recording,
    channels: &[DerivedChannel],
    annotations: Vec<Annotation>,
    out: &Path,
) -> Result<(), SignalError> {
    super::layout::refuse_overwrite(rec.path(), out)?;
    let (template, sources) = super::layout::copy_template(rec)?;
    let (dmin, dmax) = template.format.digital_limits();
    let mut headers = Vec::new();
    for c in channels {
        let src = &sources[c.source];
        let spr = c.samples_per_record.unwrap_or(src.samples_per_record);
        let expected = spr * template.record_count as usize;
        if c.values.len() != expected {
            return Err(invalid!("{}: {} samples for {} expected", c.label, c.values.len(), expected));
        }
        let (lo, hi) = c.values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), v| (l.min(*v), u.max(*v)));
        if !lo.is_finite() || !hi.is_finite() {
            return Err(invalid!("{}: the processed signal holds NaN or infinite values", c.label));
        }
        // A symmetric margin keeps the extremes representable after rounding the header's 8-character fields.
        let span = (hi - lo).max(1e-6);
        let (pmin, pmax) = (lo - span * 1e-4, hi + span * 1e-4);
        headers.push(SignalHeader {
            label: c.label.clone(),
            physical_min: pmin,
            physical_max: pmax,
            digital_min: dmin,
            digital_max: dmax,
            prefilter: c.prefilter.clone(),
            samples_per_record: spr,
            ..src.clone()
        });
    }
    let spec = WriteSpec { signals: headers, annotations, ..template };
    // The writer formats the physical range into 8 characters: quantise against the values it writes.
    let written: Vec<(f64, f64)> = spec
        .signals
        .iter()
        .map(|s| {
            let f = |v: f64| super::fields::format_number(v, 8).trim().parse::<f64>().unwrap_or(v);
            (f(s.physical_min), f(s.physical_max))
        })
        .collect();
    write_edf(out, &spec, |r, bufs| {
        for ((buf, c), (s, &(pmin, pmax))) in bufs.iter_mut().zip(channels).zip(spec.signals.iter().zip(&written)) {
            let n = s.samples_per_record;
            let gain = (pmax - pmin) / (dmax - dmin) as f64;
            let first = r as usize * n;
            buf.extend(
                c.values[first..first + n]
                    .iter()
                    .map(|v| (((v - pmin) / gain).round() as i64 + dmin).clamp(dmin, dmax) as i32),
            );
        }
        Ok(())
    })
    .map_err(|e| e.context(format!("writing {}", out.display())))
}
