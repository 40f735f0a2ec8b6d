//! The layout of an EDF+/BDF+ copy of a recording of any format (header fields, records, per-channel signal
//! headers), and the rule that a copy never replaces its source.

use super::header::{EdfFormat, SignalHeader, StartTime};
use super::reader::Annotation;
use super::writer::WriteSpec;
use crate::signal::Recording;
use crate::signal::error::{SignalError, invalid};
use std::path::Path;

/// Errors when `out` is the file `src` (a copy never replaces its source).
pub fn refuse_overwrite(src: &Path, out: &Path) -> Result<(), SignalError> {
    if let (Ok(a), Ok(b)) = (src.canonicalize(), out.canonicalize())
        && a == b
    {
        return Err(invalid!(
            "{}: refusing to overwrite the recording being read; choose a new file name",
            out.display()
        ));
    }
    Ok(())
}

/// The EDF+/BDF+ flavour a copy of a `format` file is written as (plain EDF/BDF gain the annotation signal;
/// discontinuous stays discontinuous).
pub fn plus_format(format: EdfFormat) -> EdfFormat {
    match format {
        EdfFormat::Edf | EdfFormat::EdfPlusC => EdfFormat::EdfPlusC,
        EdfFormat::EdfPlusD => EdfFormat::EdfPlusD,
        EdfFormat::Bdf | EdfFormat::BdfPlusC => EdfFormat::BdfPlusC,
        EdfFormat::BdfPlusD => EdfFormat::BdfPlusD,
    }
}

/// What an EDF+/BDF+ copy of `rec` takes from it: the file's header fields (patient, recording, start, records,
/// EDF+/BDF+ flavour, record onsets when discontinuous; no signals or annotations yet) and, per channel, the
/// signal header whose layout the copy keeps. An EDF/BDF source gives its own. Another format (BrainVision)
/// becomes BDF+C (24-bit) with patient, recording and start unknown as EDF+ writes them, in records of at
/// most one second that divide its samples exactly (so no sample is dropped or padded).
pub fn copy_template(rec: &Recording) -> Result<(WriteSpec, Vec<SignalHeader>), SignalError> {
    if let Some(file) = rec.edf() {
        let h = file.header();
        let format = plus_format(h.format);
        let record_onsets = if format.is_discontinuous() { Some(file.scan()?.record_onsets.clone()) } else { None };
        let spec = WriteSpec {
            format,
            patient: h.patient.clone(),
            recording: h.recording.clone(),
            start: h.start,
            record_duration: h.record_duration,
            record_count: h.record_count,
            signals: Vec::new(),
            annotations: Vec::new(),
            record_onsets,
        };
        return Ok((spec, rec.channels().iter().map(|c| h.signals[c.signal].clone()).collect()));
    }
    let Some(first) = rec.channels().first() else {
        return Err(invalid!("{}: no channels to write", rec.path().display()));
    };
    let fs = first.sample_rate;
    if let Some(c) = rec.channels().iter().find(|c| c.sample_rate != fs) {
        return Err(invalid!(
            "{}: {} has {} Hz, {} has {fs} Hz",
            rec.path().display(),
            c.label,
            c.sample_rate,
            first.label
        ));
    }
    let n = (rec.duration_s()? * fs).round() as usize;
    if n == 0 {
        return Err(invalid!("{}: no samples to write", rec.path().display()));
    }
    let cap = (fs.floor() as usize).clamp(1, n);
    let spr = (1..=cap).rev().find(|d| n % d == 0).unwrap_or(1);
    let format = EdfFormat::BdfPlusC;
    let (digital_min, digital_max) = format.digital_limits();
    let spec = WriteSpec {
        format,
        patient: "X X X X".into(),
        recording: "Startdate X X X X".into(),
        start: StartTime { year: 1985, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecond: 0.0 },
        record_duration: spr as f64 / fs,
        record_count: (n / spr) as u64,
        signals: Vec::new(),
        annotations: Vec::new(),
        record_onsets: None,
    };
    let signals = rec
        .channels()
        .iter()
        .map(|c| SignalHeader {
            label: c.label.clone(),
            transducer: String::new(),
            physical_dimension: c.physical_dimension.clone(),
            physical_min: -1.0,
            physical_max: 1.0,
            digital_min,
            digital_max,
            prefilter: String::new(),
            samples_per_record: spr,
            reserved: String::new(),
            is_annotation: false,
        })
        .collect();
    Ok((spec, signals))
}

/// The header of a copy of `rec` ([`copy_template`]) with new signal headers and annotations.
pub fn copy_spec(
    rec: &Recording,
    signals: Vec<SignalHeader>,
    annotations: Vec<Annotation>,
) -> Result<WriteSpec, SignalError> {
    let (spec, _) = copy_template(rec)?;
    Ok(WriteSpec { signals, annotations, ..spec })
}
