//! Saving a recording under a new name with edited annotations: the data records are copied at digital
//! level, so the signals are bit-identical; the annotation signal is rewritten.

use super::header::{EdfFormat, SignalHeader};
use super::reader::Annotation;
use super::writer::{WriteSpec, write_edf};
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

/// The header of a copy of `rec` (its patient, recording, start and records, EDF+/BDF+ flavour, record
/// onsets when discontinuous) with new signal headers and annotations.
pub fn copy_spec(
    rec: &Recording,
    signals: Vec<SignalHeader>,
    annotations: Vec<Annotation>,
) -> Result<WriteSpec, SignalError> {
    let file = rec.require_edf("a copy as EDF+/BDF+")?;
    let h = file.header();
    let format = plus_format(h.format);
    let record_onsets = if format.is_discontinuous() { Some(file.scan()?.record_onsets.clone()) } else { None };
    Ok(WriteSpec {
        format,
        patient: h.patient.clone(),
        recording: h.recording.clone(),
        start: h.start,
        record_duration: h.record_duration,
        record_count: h.record_count,
        signals,
        annotations,
        record_onsets,
    })
}

/// Writes `rec` with `annotations` to `out` as EDF+ (BDF+ for BDF sources; discontinuous stays
/// discontinuous). Refuses to overwrite the file being read.
pub fn save_with_annotations(rec: &Recording, annotations: &[Annotation], out: &Path) -> Result<(), SignalError> {
    let src = rec.path();
    refuse_overwrite(src, out)?;
    let file = rec.require_edf("saving with annotations as EDF+/BDF+")?;
    let h = file.header();
    let spec =
        copy_spec(rec, rec.channels().iter().map(|c| h.signals[c.signal].clone()).collect(), annotations.to_vec())?;
    let signals: Vec<usize> = rec.channels().iter().map(|c| c.signal).collect();
    write_edf(out, &spec, |r, bufs| {
        for (buf, &s) in bufs.iter_mut().zip(&signals) {
            file.read_digital(s, r, buf)?;
        }
        Ok(())
    })
    .map_err(|e| e.context(format!("saving {} as {}", src.display(), out.display())))
}
