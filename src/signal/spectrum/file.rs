//! Spectra of channels straight from a recording: with mean averaging the file is streamed in 30-s blocks
//! of all requested channels at once (memory stays at one block plus one segment per channel, whatever the
//! file's length); median averaging needs every segment, so each channel is read whole in turn. Samples of an
//! EDF+D file are taken in record order, gaps closed (as MNE's concatenated data).

use super::welch::{Average, Psd, WelchParams, WelchStream, welch};
use crate::signal::Recording;
use crate::signal::error::{SignalError, invalid};
use crate::util::cancel::Cancel;

/// Block length for streaming reads.
const BLOCK_S: f64 = 30.0;

/// The window `[start, start + duration)` clipped to the recording.
fn window(rec: &Recording, start: f64, duration: Option<f64>) -> Result<(f64, f64), SignalError> {
    let total = rec.duration_s().map_err(|e| e.to_string())?;
    if !start.is_finite() || start < 0.0 || duration.is_some_and(|d| !d.is_finite() || d <= 0.0) {
        return Err("start must be ≥ 0 and duration positive".into());
    }
    let end = duration.map_or(total, |d| (start + d).min(total));
    if end <= start {
        return Err(invalid!("the window starts at {start} s, after the recording's end ({total} s)"));
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
    cancel: &Cancel,
    progress: &dyn Fn(f64),
) -> Result<Vec<Psd>, SignalError> {
    let (t0, t1) = window(rec, start, duration)?;
    let channels = rec.channels();
    if p.average == Average::Median {
        let mut out = Vec::with_capacity(chans.len());
        for (k, &c) in chans.iter().enumerate() {
            if cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            let d = rec.read(&[c], t0, t1 - t0).map_err(|e| e.to_string())?.remove(0);
            out.push(welch(&d.values, d.sample_rate, p).map_err(|e| invalid!("{}: {e}", channels[c].label))?);
            progress((k + 1) as f64 / chans.len() as f64);
        }
        return Ok(out);
    }
    let streams: Vec<WelchStream> = chans
        .iter()
        .map(|&c| {
            let fs = channels[c].sample_rate;
            WelchStream::new(fs, ((t1 - t0) * fs).round() as usize, p)
                .map_err(|e| invalid!("{}: {e}", channels[c].label))
        })
        .collect::<Result<_, _>>()?;
    // The main thread reads blocks; worker threads (one per core) each own a share of the channels' streams
    // and take every block from a small bounded queue, so reading and FFTs overlap.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, chans.len());
    let mut groups: Vec<Vec<(usize, WelchStream)>> = (0..workers).map(|_| Vec::new()).collect();
    for (k, s) in streams.into_iter().enumerate() {
        groups[k % workers].push((k, s));
    }
    let finished: Vec<Vec<(usize, WelchStream)>> = std::thread::scope(|scope| {
        let mut senders = Vec::new();
        let mut handles = Vec::new();
        for mut group in groups {
            let (tx, rx) = std::sync::mpsc::sync_channel::<std::sync::Arc<Vec<crate::signal::ChannelData>>>(2);
            senders.push(tx);
            handles.push(scope.spawn(move || {
                for block in rx {
                    for (k, s) in group.iter_mut() {
                        s.push(&block[*k].values);
                    }
                }
                group
            }));
        }
        let mut t = t0;
        let mut failure = None;
        while t < t1 {
            if cancel.is_cancelled() {
                failure = Some("cancelled".to_string());
                break;
            }
            let len = BLOCK_S.min(t1 - t);
            match rec.read(chans, t, len) {
                Ok(block) => {
                    let block = std::sync::Arc::new(block);
                    for tx in &senders {
                        let _ = tx.send(block.clone());
                    }
                }
                Err(e) => {
                    failure = Some(e.to_string());
                    break;
                }
            }
            t += len;
            progress((t - t0) / (t1 - t0));
        }
        drop(senders);
        let groups: Vec<_> = handles.into_iter().map(|h| h.join().unwrap_or_default()).collect();
        match failure {
            Some(e) => Err(e),
            None => Ok(groups),
        }
    })?;
    let mut ordered: Vec<Option<WelchStream>> = (0..chans.len()).map(|_| None).collect();
    for (k, s) in finished.into_iter().flatten() {
        ordered[k] = Some(s);
    }
    ordered
        .into_iter()
        .zip(chans)
        .map(|(s, &c)| {
            s.ok_or_else(|| invalid!("{}: worker stopped unexpectedly", channels[c].label))?
                .finish()
                .map_err(|e| invalid!("{}: {e}", channels[c].label))
        })
        .collect()
}
