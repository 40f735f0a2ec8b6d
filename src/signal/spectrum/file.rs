//! Spectra of channels straight from a recording: with mean averaging the file is streamed in 30-s blocks
//! of all requested channels at once (memory stays at one block plus one segment per channel, whatever the
//! file's length); median averaging needs every segment, so each channel is read whole in turn. Samples of an
//! EDF+D file are taken in record order, gaps closed (as MNE's concatenated data).

use super::welch::{Average, Psd, WelchParams, WelchStream, welch};
use crate::signal::Recording;
use std::sync::atomic::{AtomicBool, Ordering};

/// Block length for streaming reads.
const BLOCK_S: f64 = 30.0;

/// The window `[start, start + duration)` clipped to the recording.
fn window(rec: &Recording, start: f64, duration: Option<f64>) -> Result<(f64, f64), String> {
    let total = rec.duration_s().map_err(|e| e.to_string())?;
    if !start.is_finite() || start < 0.0 || duration.is_some_and(|d| !d.is_finite() || d <= 0.0) {
        return Err("start must be ≥ 0 and duration positive".into());
    }
    let end = duration.map_or(total, |d| (start + d).min(total));
    if end <= start {
        return Err(format!("the window starts at {start} s, after the recording's end ({total} s)"));
    }
    Ok((start, end))
}

/// Welch PSD of each channel in `chans` (indices into `rec.channels()`) over a window of the recording.
/// `progress(fraction)` is called after each block; `cancel` stops early with an error.
pub fn channel_psds(
    rec: &Recording,
    chans: &[usize],
    start: f64,
    duration: Option<f64>,
    p: &WelchParams,
    cancel: &AtomicBool,
    progress: &dyn Fn(f64),
) -> Result<Vec<Psd>, String> {
    let (t0, t1) = window(rec, start, duration)?;
    let channels = rec.channels();
    if p.average == Average::Median {
        let mut out = Vec::with_capacity(chans.len());
        for (k, &c) in chans.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return Err("cancelled".into());
            }
            let d = rec.read(&[c], t0, t1 - t0).map_err(|e| e.to_string())?.remove(0);
            out.push(welch(&d.values, d.sample_rate, p).map_err(|e| format!("{}: {e}", channels[c].label))?);
            progress((k + 1) as f64 / chans.len() as f64);
        }
        return Ok(out);
    }
    let mut streams: Vec<WelchStream> = chans
        .iter()
        .map(|&c| {
            let fs = channels[c].sample_rate;
            WelchStream::new(fs, ((t1 - t0) * fs).round() as usize, p)
                .map_err(|e| format!("{}: {e}", channels[c].label))
        })
        .collect::<Result<_, _>>()?;
    let mut t = t0;
    while t < t1 {
        if cancel.load(Ordering::Relaxed) {
            return Err("cancelled".into());
        }
        let len = BLOCK_S.min(t1 - t);
        for (s, d) in streams.iter_mut().zip(rec.read(chans, t, len).map_err(|e| e.to_string())?) {
            s.push(&d.values);
        }
        t += len;
        progress((t - t0) / (t1 - t0));
    }
    streams
        .into_iter()
        .zip(chans)
        .map(|(s, &c)| s.finish().map_err(|e| format!("{}: {e}", channels[c].label)))
        .collect()
}
