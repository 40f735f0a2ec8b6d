//! Saving a recording under a new name with edited annotations: the data records are copied at digital
//! level, so the signals are bit-identical; the annotation signal is rewritten.

use super::layout::{copy_spec, refuse_overwrite};

use super::reader::Annotation;
use super::writer::write_edf;
use crate::signal::Recording;
use crate::signal::error::SignalError;
use std::path::Path;

/// Writes `rec` with `annotations` to `out` as EDF+ (BDF+ for BDF sources; discontinuous stays
/// discontinuous); another format is written as BDF+ ([`copy_template`]). Refuses to overwrite the file
/// being read.
pub fn save_with_annotations(rec: &Recording, annotations: &[Annotation], out: &Path) -> Result<(), SignalError> {
    let src = rec.path();
    refuse_overwrite(src, out)?;
    let Some(file) = rec.edf() else { return super::derive::write_as_recorded(rec, annotations, out) };
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
