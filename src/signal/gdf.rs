//! GDF 1.x and 2.x (General Data Format for biosignals), read lazily as MNE's `read_raw_gdf` reads it: the
//! 256-byte fixed header and 256 bytes per channel (fields grouped by kind, as in EDF), records holding each
//! channel's samples in turn, values (stored − digital min) × gain + physical min, and the event table after
//! the records → annotations (onset (position − 1) / rate, duration in samples, at least one; text the event
//! type). Channels must share one sample count per record and one sample type (MNE refuses others too).

use super::channel::Channel;
use super::channel_kind::ChannelKind;
use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::{Dtype, Layout, Matrix, OnDisk, open_data};
use crate::util::little_endian::Le;
use std::os::unix::fs::FileExt;
use std::path::Path;

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

fn dtype(code: i32) -> Option<Dtype> {
    Some(match code {
        1 => Dtype::I8,
        2 => Dtype::U8,
        3 => Dtype::I16,
        4 => Dtype::U16,
        5 => Dtype::I32,
        6 => Dtype::U32,
        7 => Dtype::I64,
        16 => Dtype::F32,
        17 => Dtype::F64,
        _ => return None,
    })
}

/// Opens a `.gdf` file.
pub fn open(path: &Path) -> Result<Continuous, EdfError> {
    let (file, len) = open_data(path, "open")?;
    let mut fixed = [0u8; 256];
    file.read_exact_at(&mut fixed, 0).map_err(|_| err(path, "header", "shorter than the 256-byte GDF header"))?;
    let h = Le(&fixed);
    let version = h.text(0, 8).trim().to_string();
    let number: f64 = version
        .strip_prefix("GDF")
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| EdfError::at(path, 0, "version", format!("{version:?}: not a GDF file")))?;
    let v2 = number >= 1.9;
    let (header_len, n_records, rec_num, rec_den, nchan) = if v2 {
        (h.u16(184) as u64 * 256, h.i64(236), h.u32(244), h.u32(248), h.u16(252) as usize)
    } else {
        (h.i64(184).max(0) as u64, h.i64(236), h.u32(244), h.u32(248), h.u32(252) as usize)
    };
    if nchan == 0 || nchan > 4096 {
        return Err(EdfError::at(path, 252, "number of channels", format!("{nchan}: 1–4096 expected")));
    }
    let mut ch = vec![0u8; 256 * nchan];
    file.read_exact_at(&mut ch, 256)
        .map_err(|_| err(path, "channel headers", format!("{nchan} × 256 bytes cannot be read: truncated")))?;
    let c = Le(&ch);
    let n = nchan;
    let label = |i: usize| c.text(16 * i, 16).trim().to_string();
    // The per-channel fields are grouped by kind; `p` is where the physical minima start. GDF 2 gives units
    // as codes (4275 µV, 4274 mV, 4256 V), GDF 1 as text.
    let (units, p): (Vec<String>, usize) = if v2 {
        let at = 16 * n + 80 * n + 6 * n;
        let unit = |code: u16| match code {
            4275 => "µV",
            4274 => "mV",
            4256 => "V",
            _ => "",
        };
        ((0..n).map(|i| unit(c.u16(at + 2 * i)).to_string()).collect(), at + 2 * n)
    } else {
        let at = 16 * n + 80 * n;
        ((0..n).map(|i| c.text(at + 8 * i, 8).trim().to_string()).collect(), at + 8 * n)
    };
    let (pmin_at, pmax_at, dmin_at, dmax_at) = (p, p + 8 * n, p + 16 * n, p + 24 * n);
    // Then 80 bytes per channel in both versions (GDF 2: 68 obsolete + low-pass, high-pass, notch; GDF 1:
    // prefilter text) before the samples per record.
    let nsamp_at = p + 32 * n + 80 * n;
    let type_at = nsamp_at + 4 * n;
    let digital = |at: usize, i: usize| if v2 { c.f64(at + 8 * i) } else { c.i64(at + 8 * i) as f64 };
    let n_samps: Vec<i32> = (0..n).map(|i| c.i32(nsamp_at + 4 * i)).collect();
    let types: Vec<i32> = (0..n).map(|i| c.i32(type_at + 4 * i)).collect();
    if n_samps.iter().any(|&s| s != n_samps[0]) || n_samps[0] <= 0 {
        return Err(err(
            path,
            "samples per record",
            format!("{n_samps:?}: one positive count for every channel is read"),
        ));
    }
    if types.iter().any(|&t| t != types[0]) {
        return Err(err(
            path,
            "sample types",
            format!("{types:?}: channels of different sample types are not read (as MNE)"),
        ));
    }
    let dt = dtype(types[0]).ok_or_else(|| err(path, "sample type", format!("GDF type {} is not read", types[0])))?;
    let spr = n_samps[0] as usize;
    let duration = if rec_num == 0 { 1.0 } else { f64::from(rec_num) / f64::from(rec_den.max(1)) };
    let rate = spr as f64 / duration;
    if !rate.is_finite() || rate <= 0.0 {
        return Err(err(path, "record duration", format!("{rec_num}/{rec_den} s")));
    }
    let mut repairs = Vec::new();
    let record_bytes = (spr * n * dt.bytes()) as u64;
    let on_disk = len.saturating_sub(header_len) / record_bytes;
    let records = if n_records < 0 || n_records as u64 > on_disk {
        repairs.push(Repair::at(
            236,
            "number of records",
            format!("{n_records}, the file holds {on_disk}: {on_disk} are read"),
        ));
        on_disk
    } else {
        n_records as u64
    };
    let mut channels = Vec::with_capacity(n);
    let (mut scale, mut offset) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (i, unit) in units.into_iter().enumerate() {
        let (pmin, pmax) = (c.f64(pmin_at + 8 * i), c.f64(pmax_at + 8 * i));
        let (dmin, dmax) = (digital(dmin_at, i), digital(dmax_at, i));
        let gain = if dmax != dmin { (pmax - pmin) / (dmax - dmin) } else { 1.0 };
        scale.push(gain);
        offset.push(if gain != 0.0 { dmin - pmin / gain } else { 0.0 });
        let label = label(i);
        let kind = ChannelKind::from_label(&label);
        channels.push(Channel { signal: i, label, sample_rate: rate, physical_dimension: unit, kind });
    }
    let n_samples = records as usize * spr;
    let events_at = header_len + records * record_bytes;
    let annotations = events(&file, len, events_at, number, rate, &mut repairs);
    let disk = OnDisk {
        path: path.to_path_buf(),
        file,
        offset: header_len,
        dtype: dt,
        big_endian: false,
        layout: Layout::Blocked(spr),
    };
    Ok(Continuous {
        path: path.to_path_buf(),
        format: format!("GDF {number:.2}"),
        sample_rate: rate,
        channels,
        matrix: Matrix::on_disk(disk, n, n_samples, scale, offset),
        annotations,
        run_starts: Vec::new(),
        repairs,
        bads: Vec::new(),
        positions: Vec::new(),
        data_len: len,
    }
    .normalised())
}

/// The event table after the records (mode 1: positions and types; mode 3: also channels and durations).
fn events(
    file: &std::fs::File,
    len: u64,
    at: u64,
    number: f64,
    rate: f64,
    repairs: &mut Vec<Repair>,
) -> Vec<Annotation> {
    let mut head = [0u8; 8];
    if at + 8 > len || file.read_exact_at(&mut head, at).is_err() {
        return Vec::new();
    }
    let mode = head[0];
    let count = if number < 1.94 {
        u32::from_le_bytes(head[4..8].try_into().expect("4")) as usize
    } else {
        head[1] as usize | (head[2] as usize) << 8 | (head[3] as usize) << 16
    };
    let per = if mode == 3 { 12 } else { 6 };
    let Some(bytes) = count.checked_mul(per).filter(|&b| at + 8 + b as u64 <= len) else {
        repairs
            .push(Repair::file("event table", format!("{count} events run past the end of the file: none are read")));
        return Vec::new();
    };
    let mut t = vec![0u8; bytes];
    if file.read_exact_at(&mut t, at + 8).is_err() {
        return Vec::new();
    }
    let e = Le(&t);
    (0..count)
        .map(|i| {
            let pos = f64::from(e.u32(4 * i)) - 1.0;
            let typ = e.u16(4 * count + 2 * i);
            let dur = if mode == 3 { e.u32(8 * count + 4 * i).max(1) } else { 1 };
            Annotation { onset_s: pos / rate, duration_s: Some(f64::from(dur) / rate), text: typ.to_string() }
        })
        .collect()
}
