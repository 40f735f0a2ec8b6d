//! Min/max overview of a whole recording: one (min, max) pair per channel per data record, built in one
//! sequential pass in the background, so a full-night overview draws in one frame.

use super::edf::EdfError;
use super::recording::Recording;
use crate::util::cancel::Cancel;
use std::sync::atomic::{AtomicU64, Ordering};

/// Per-record extremes of every channel.
#[derive(Debug, Clone, Default)]
pub struct Pyramid {
    /// Onset of each record in seconds.
    pub record_onsets: Vec<f64>,
    pub record_duration: f64,
    /// `[channel][record] = (min, max)` in physical units.
    pub extremes: Vec<Vec<(f32, f32)>>,
}

/// Block length of the overview of formats without data records.
const GENERIC_BLOCK_S: f64 = 1.0;

/// Bytes read per positioned read while building (bounded memory, few system calls).
const CHUNK_BYTES: u64 = 4 << 20;

impl Pyramid {
    /// Reads every record (EDF/BDF) or every one-second block (other formats) once. `progress` receives the
    /// blocks done (of [`Pyramid::block_count`]); `cancel` stops early with `None`.
    pub fn build(rec: &Recording, progress: &AtomicU64, cancel: &Cancel) -> Result<Option<Pyramid>, EdfError> {
        let Some(file) = rec.edf() else { return Self::build_by_blocks(rec, progress, cancel) };
        let h = file.header();
        let n = h.record_count;
        let bps = h.format.bytes_per_sample();
        let record_bytes = h.record_bytes();
        let per_chunk = (CHUNK_BYTES / record_bytes.max(1)).max(1);
        let onsets = if h.format.is_discontinuous() {
            file.scan()?.record_onsets.clone()
        } else {
            (0..n).map(|r| r as f64 * h.record_duration).collect()
        };
        let chans = rec.channels();
        let mut extremes = vec![Vec::with_capacity(n as usize); chans.len()];
        let mut digital = Vec::new();
        let mut r = 0;
        while r < n {
            if cancel.is_cancelled() {
                return Ok(None);
            }
            let r1 = (r + per_chunk).min(n);
            let block = file.read_records(r, r1)?;
            for rec_bytes in block.chunks_exact(record_bytes as usize) {
                for (c, ch) in chans.iter().enumerate() {
                    let s = &h.signals[ch.signal];
                    let off = h.signal_offset_in_record(ch.signal) as usize;
                    digital.clear();
                    super::edf::reader::decode_into(
                        &rec_bytes[off..off + s.samples_per_record * bps],
                        bps,
                        &mut digital,
                    );
                    let (lo, hi) = digital.iter().fold((i32::MAX, i32::MIN), |(a, b), &d| (a.min(d), b.max(d)));
                    let (p, q) = if digital.is_empty() { (0.0, 0.0) } else { (s.to_physical(lo), s.to_physical(hi)) };
                    extremes[c].push((p.min(q) as f32, p.max(q) as f32));
                }
            }
            r = r1;
            progress.store(r, Ordering::Relaxed);
        }
        Ok(Some(Pyramid { record_onsets: onsets, record_duration: h.record_duration, extremes }))
    }

    /// How many blocks [`Pyramid::build`] reads: the records of an EDF/BDF file, else whole seconds.
    pub fn block_count(rec: &Recording) -> u64 {
        match rec.header() {
            Some(h) => h.record_count,
            None => rec.duration_s().map_or(0, |d| (d / GENERIC_BLOCK_S).ceil() as u64),
        }
    }

    /// Any format: one-second blocks through [`Recording::read`], a minute of them per read.
    fn build_by_blocks(rec: &Recording, progress: &AtomicU64, cancel: &Cancel) -> Result<Option<Pyramid>, EdfError> {
        let n = Self::block_count(rec);
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let mut extremes = vec![Vec::with_capacity(n as usize); all.len()];
        let per_read = 60;
        let mut b = 0;
        while b < n {
            if cancel.is_cancelled() {
                return Ok(None);
            }
            let b1 = (b + per_read).min(n);
            let data = rec.read(&all, b as f64 * GENERIC_BLOCK_S, (b1 - b) as f64 * GENERIC_BLOCK_S)?;
            for (c, d) in data.iter().enumerate() {
                let per_block = (d.sample_rate * GENERIC_BLOCK_S).round().max(1.0) as usize;
                for k in 0..(b1 - b) as usize {
                    let chunk = d.values.get(k * per_block..((k + 1) * per_block).min(d.values.len())).unwrap_or(&[]);
                    let (lo, hi) =
                        chunk.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, z), &v| (a.min(v), z.max(v)));
                    extremes[c].push(if chunk.is_empty() { (0.0, 0.0) } else { (lo as f32, hi as f32) });
                }
            }
            b = b1;
            progress.store(b, Ordering::Relaxed);
        }
        let record_onsets = (0..n).map(|r| r as f64 * GENERIC_BLOCK_S).collect();
        Ok(Some(Pyramid { record_onsets, record_duration: GENERIC_BLOCK_S, extremes }))
    }

    /// Envelope of `channel` in `buckets` equal slices of `[t0, t1)`: `None` where no record falls.
    pub fn envelope(&self, channel: usize, t0: f64, t1: f64, buckets: usize) -> Vec<Option<(f32, f32)>> {
        let mut out = vec![None; buckets];
        let Some(ext) = self.extremes.get(channel) else { return out };
        let width = (t1 - t0) / buckets.max(1) as f64;
        for (onset, &(lo, hi)) in self.record_onsets.iter().zip(ext) {
            let b0 = ((onset - t0) / width).floor();
            let b1 = ((onset + self.record_duration - t0) / width).ceil();
            if b1 <= 0.0 || b0 >= buckets as f64 {
                continue;
            }
            for slot in &mut out[b0.max(0.0) as usize..(b1 as usize).min(buckets)] {
                *slot = Some(slot.map_or((lo, hi), |(a, b): (f32, f32)| (a.min(lo), b.max(hi))));
            }
        }
        out
    }
}
