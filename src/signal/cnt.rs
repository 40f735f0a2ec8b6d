//! Neuroscan CNT (continuous, 16- or 32-bit), read lazily as MNE's `read_raw_cnt` reads it: the 900-byte
//! SETUP header, 75 bytes per channel (label, bad flags, x/y position, baseline, sensitivity, calibration), the samples
//! (multiplexed, or in blocks of the header's "channel offset"), and the event table after them.
//!
//! The sample width is not in the header. As MNE: it is the data bytes (event table offset − data offset)
//! ÷ channels ÷ header samples, and when that cannot be decided (header samples 0, an event table offset
//! past the end, a file ≥ 2 GB) the file is refused unless the width is given ([`OpenOptions::cnt_format`]).
//! Values are µV: (stored − baseline) × calibration × sensitivity / 204.8. Events become annotations with
//! MNE's descriptions (`KeyPad Response k`, `Keyboard Response k`, the stimulus type) and onsets
//! ((byte offset − data offset) ÷ frame − 1 samples); a span the keypad rejected is `BAD_…` up to the next
//! accept/reject event, and accept events are dropped. Events past the last sample (a clipped or cut
//! recording keeps its whole table) are left out with one notice, as MNE leaves them out.

use super::channel::Channel;
use super::channel_kind::ChannelKind;
use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::{Dtype, Layout, Matrix, OnDisk, open_data};
use super::open_options::{CntFormat, NEEDS_CNT_FORMAT, OpenOptions};
use crate::util::little_endian::Le;
use std::os::unix::fs::FileExt;
use std::path::Path;

const SETUP_LEN: u64 = 900;
const CHANNEL_LEN: u64 = 75;

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

/// The sizes MNE computes (`_compute_robust_sizes`): sample width, samples per channel and where the event
/// table starts.
fn sizes(
    path: &Path,
    h: &Le,
    n_channels: usize,
    file_len: u64,
    chosen: Option<CntFormat>,
) -> Result<(CntFormat, usize, u64, Vec<Repair>), EdfError> {
    let mut repairs = Vec::new();
    let header_samples = h.i32(864);
    let data_offset = SETUP_LEN + CHANNEL_LEN * n_channels as u64;
    let how = "give --cnt-format int16|int32 (CLI) or choose the sample width in the open dialog";
    let undecided = |why: String| {
        err(path, NEEDS_CNT_FORMAT, format!("{why}, so 16- and 32-bit samples cannot be told apart: {how}"))
    };
    if file_len >= 2_000_000_000 {
        let Some(format) = chosen else {
            return Err(undecided(format!(
                "the file is {file_len} bytes (≥ 2 GB, where the event table offset overflows)"
            )));
        };
        let n = header_samples.max(0) as usize;
        return Ok((format, n, data_offset + (format.bytes() * n_channels * n) as u64, repairs));
    }
    let mut event_offset = h.i32(886) as i64;
    if event_offset > file_len as i64 {
        let Some(format) = chosen else {
            return Err(undecided(format!(
                "the event table offset {event_offset} is past the end of the file ({file_len} bytes)"
            )));
        };
        // After the header's samples (as MNE), or, when it records none, the end of the file (truncated).
        let recomputed = if header_samples > 0 {
            data_offset as i64 + header_samples as i64 * (n_channels * format.bytes()) as i64
        } else {
            file_len as i64
        };
        repairs.push(Repair::at(
            886,
            "event table offset",
            format!("{event_offset} is past the end of the file ({file_len} bytes; truncated?): samples end at byte {recomputed}"),
        ));
        event_offset = recomputed;
    }
    let data_bytes = event_offset - data_offset as i64;
    if data_bytes < 0 {
        return Err(EdfError::at(
            path,
            886,
            "event table offset",
            format!("{event_offset} lies inside the header (data start at byte {data_offset})"),
        ));
    }
    let data_bytes = data_bytes as u64;
    let format = match chosen {
        Some(f) => f,
        None => {
            let per_channel = data_bytes / n_channels as u64;
            if !data_bytes.is_multiple_of(n_channels as u64) {
                return Err(undecided(format!(
                    "{data_bytes} data bytes are not a whole number per channel ({n_channels} channels)"
                )));
            }
            if header_samples <= 0 {
                return Err(undecided(format!("the header records {header_samples} samples")));
            }
            match (per_channel % header_samples as u64, per_channel / header_samples as u64) {
                (0, 2) => CntFormat::Int16,
                (0, 4) => CntFormat::Int32,
                _ => {
                    return Err(undecided(format!(
                        "{per_channel} bytes per channel over the header's {header_samples} samples is not 2 or 4 bytes a sample"
                    )));
                }
            }
        }
    };
    let frame = (n_channels * format.bytes()) as u64;
    let whole = (data_bytes / frame) as usize;
    let n_samples = if header_samples <= 0 {
        if !data_bytes.is_multiple_of(frame) {
            repairs.push(Repair::file(
                "data",
                format!(
                    "{data_bytes} data bytes are not a whole number of {frame}-byte samples: the last {} are ignored",
                    data_bytes % frame
                ),
            ));
        }
        whole
    } else {
        header_samples as usize
    };
    Ok((format, n_samples, event_offset as u64, repairs))
}

/// Opens a Neuroscan `.cnt` file: its header and event table.
pub fn open(path: &Path, options: &OpenOptions) -> Result<Continuous, EdfError> {
    let (file, file_len) = open_data(path, "open")?;
    let mut setup = vec![0u8; SETUP_LEN as usize];
    file.read_exact_at(&mut setup, 0).map_err(|e| {
        err(path, "SETUP header", format!("the first 900 bytes cannot be read ({e}): not a Neuroscan CNT file"))
    })?;
    let h = Le(&setup);
    let n_channels = h.u16(370) as usize;
    if n_channels == 0 || n_channels > 4096 {
        return Err(EdfError::at(
            path,
            370,
            "number of channels",
            format!("{n_channels}: 1–4096 expected (is this a Neuroscan CNT file?)"),
        ));
    }
    let rate = f64::from(h.u16(376));
    if rate <= 0.0 {
        return Err(EdfError::at(path, 376, "sampling rate", "0 Hz".to_string()));
    }
    let data_offset = SETUP_LEN + CHANNEL_LEN * n_channels as u64;
    let mut elect = vec![0u8; (CHANNEL_LEN as usize) * n_channels];
    file.read_exact_at(&mut elect, SETUP_LEN).map_err(|e| {
        err(
            path,
            "channel headers",
            format!("{n_channels} × 75 bytes after the SETUP header cannot be read ({e}): the file is truncated"),
        )
    })?;
    let (format, header_samples, event_offset, mut repairs) =
        sizes(path, &h, n_channels, file_len, options.cnt_format)?;
    let frame = (n_channels * format.bytes()) as u64;
    let on_disk = (file_len.saturating_sub(data_offset) / frame) as usize;
    let n_samples = if header_samples > on_disk {
        repairs.push(Repair::at(
            864,
            "number of samples",
            format!("{header_samples}, but the file holds {on_disk}: {on_disk} are read (the file is truncated)"),
        ));
        on_disk
    } else {
        header_samples
    };
    let block = h.i32(894);
    let block = if block > 1 { block as usize / format.bytes() } else { 1 };
    let (mut channels, mut scale, mut baseline, mut bads) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut xy = Vec::new();
    for i in 0..n_channels {
        let e = Le(&elect[i * CHANNEL_LEN as usize..(i + 1) * CHANNEL_LEN as usize]);
        let label = e.text(0, 10);
        // MNE's header="auto": the bad flag of either header generation.
        if e.0[14] != 0 || e.0[4] != 0 {
            bads.push(label.clone());
        }
        xy.push([f64::from(e.f32(19)), -f64::from(e.f32(23))]);
        baseline.push(f64::from(e.i16(47)));
        scale.push(f64::from(e.f32(71)) * f64::from(e.f32(59)) / 204.8);
        let kind = ChannelKind::from_label(&label);
        channels.push(Channel { signal: i, label, sample_rate: rate, physical_dimension: "µV".into(), kind });
    }
    let mut annotations = events(&file, file_len, event_offset, n_channels, format, rate, &mut repairs);
    // A clipped or cut recording keeps its whole event table: markers past the last sample are left out.
    let end_s = n_samples as f64 / rate;
    let cropped = super::annotations::crop_to_data(&mut annotations, end_s);
    for notice in cropped.notices("event", end_s) {
        repairs.push(Repair::at(event_offset, "event table", notice));
    }
    let positions = topo_to_sphere(&channels, &xy);
    let dtype = if format == CntFormat::Int16 { Dtype::I16 } else { Dtype::I32 };
    let layout = if block > 1 { Layout::Blocked(block) } else { Layout::SampleMajor };
    let disk = OnDisk { path: path.to_path_buf(), file, offset: data_offset, dtype, big_endian: false, layout };
    Ok(Continuous {
        path: path.to_path_buf(),
        format: format!("Neuroscan CNT ({})", format.name()),
        sample_rate: rate,
        channels,
        matrix: Matrix::on_disk(disk, n_channels, n_samples, scale, baseline),
        annotations,
        run_starts: vec![0],
        repairs,
        bads,
        positions,
        data_len: file_len,
    }
    .normalised())
}

/// The electrodes' x/y in the header (y pointing down) → positions on a unit sphere, as MNE's `read_raw_cnt`
/// places them (`_topo_to_sphere`): scaled by the EEG electrodes' largest radius, centred on their mean,
/// stretched to [−1, 1], z = sin(arccos r); EEG electrodes only (as MNE's montage). None when they have no
/// spread. (MNE computes in float32: the two agree to 1e-7.)
fn topo_to_sphere(channels: &[Channel], xy: &[[f64; 2]]) -> Vec<(String, [f64; 3])> {
    let eeg: Vec<usize> = (0..channels.len()).filter(|&i| channels[i].kind == ChannelKind::Eeg).collect();
    let radius = eeg.iter().map(|&i| xy[i][0].hypot(xy[i][1])).fold(0.0, f64::max);
    if eeg.is_empty() || !(radius > 0.0 && radius.is_finite()) {
        return Vec::new();
    }
    let mean = |k: usize| eeg.iter().map(|&i| xy[i][k] / radius).sum::<f64>() / eeg.len() as f64;
    let (mx, my) = (mean(0), mean(1));
    eeg.iter()
        .map(|&i| (&channels[i], xy[i]))
        .map(|(c, p)| {
            let x = (p[0] / radius + 0.5 - mx) * 2.0 - 1.0;
            let y = (p[1] / radius + 0.5 - my) * 2.0 - 1.0;
            let r = x.hypot(y).clamp(0.0, 1.0);
            (c.label.clone(), [x, y, r.acos().sin()])
        })
        .collect()
}

/// One event of the table: stimulus type, keyboard code, keypad/accept byte, byte offset (or sample, type 3).
struct Event {
    stim: u16,
    keyboard: u8,
    keypad_accept: u8,
    offset: i32,
}

/// The event table → annotations; a table that cannot be read is a repair note, not an error.
fn events(
    file: &std::fs::File,
    file_len: u64,
    at: u64,
    n_channels: usize,
    format: CntFormat,
    rate: f64,
    repairs: &mut Vec<Repair>,
) -> Vec<Annotation> {
    let mut teeg = [0u8; 9];
    if at + 9 > file_len || file.read_exact_at(&mut teeg, at).is_err() {
        repairs.push(Repair::at(
            886,
            "event table",
            format!("no event table at byte {at} (past the end): no annotations"),
        ));
        return Vec::new();
    }
    let kind = teeg[0];
    let size = i32::from_le_bytes(teeg[1..5].try_into().expect("4 bytes")).max(0) as u64;
    let record = match kind {
        1 => 8,
        2 | 3 => 19,
        k => {
            repairs.push(Repair::at(at, "event table", format!("unknown event type {k}: no annotations")));
            return Vec::new();
        }
    };
    let size = size.min(file_len - at - 9);
    let mut table = vec![0u8; size as usize];
    if let Err(e) = file.read_exact_at(&mut table, at + 9) {
        repairs.push(Repair::at(at, "event table", format!("cannot be read ({e}): no annotations")));
        return Vec::new();
    }
    if !table.len().is_multiple_of(record) {
        repairs.push(Repair::at(
            at,
            "event table",
            format!(
                "{} bytes is not a whole number of {record}-byte events: the last {} are ignored",
                table.len(),
                table.len() % record
            ),
        ));
    }
    let evs: Vec<Event> = table
        .chunks_exact(record)
        .map(|r| Event {
            stim: u16::from_le_bytes([r[0], r[1]]),
            keyboard: r[2],
            keypad_accept: r[3],
            offset: i32::from_le_bytes(r[4..8].try_into().expect("4 bytes")),
        })
        .collect();
    let frame = (n_channels * format.bytes()) as f64;
    let data_offset = (SETUP_LEN + CHANNEL_LEN * n_channels as u64) as f64;
    let mut onsets = Vec::with_capacity(evs.len());
    let mut texts = Vec::with_capacity(evs.len());
    for e in &evs {
        let bytes = if kind == 3 { f64::from(e.offset) * frame } else { f64::from(e.offset) };
        let sample = (((bytes - data_offset) / frame).floor() - 1.0).max(0.0);
        onsets.push(sample / rate);
        let keypad = e.keypad_accept & 0x0f;
        texts.push(if keypad != 0 {
            format!("KeyPad Response {keypad}")
        } else if e.keyboard != 0 {
            format!("Keyboard Response {}", e.keyboard)
        } else {
            e.stim.to_string()
        });
    }
    bad_spans(&evs, onsets, texts)
}

/// MNE's `_update_bad_span_onset`: accept (0xd0) and reject (0xc0) events pair up from the first reject;
/// each reject becomes `BAD_<text>` lasting to the event after it, and accept events are dropped.
fn bad_spans(evs: &[Event], onsets: Vec<f64>, texts: Vec<String>) -> Vec<Annotation> {
    let mark = |e: &Event| match e.keypad_accept {
        0xd0 => Some(true),
        0xc0 => Some(false),
        _ => None,
    };
    let marked: Vec<usize> = (0..evs.len()).filter(|&i| mark(&evs[i]).is_some()).collect();
    let mut durations = vec![None; evs.len()];
    if let Some(first_bad) = marked.iter().position(|&i| mark(&evs[i]) == Some(false)) {
        let spans: Vec<f64> = (first_bad..marked.len())
            .step_by(2)
            .map(|k| marked.get(k + 1).map_or(0.0, |&j| onsets[j] - onsets[marked[k]]))
            .collect();
        let mut next = spans.into_iter();
        for (i, e) in evs.iter().enumerate() {
            if mark(e) == Some(false) {
                durations[i] = Some(next.next().unwrap_or(0.0));
            }
        }
    }
    let any_bad = marked.iter().any(|&i| mark(&evs[i]) == Some(false));
    evs.iter()
        .zip(onsets.into_iter().zip(texts))
        .zip(durations)
        .filter(|((e, _), _)| !(any_bad && mark(e) == Some(true)))
        .map(|((e, (onset_s, text)), duration_s)| {
            if mark(e) == Some(false) {
                Annotation { onset_s, duration_s, text: format!("BAD_{text}") }
            } else {
                Annotation { onset_s, duration_s: None, text }
            }
        })
        .collect()
}
