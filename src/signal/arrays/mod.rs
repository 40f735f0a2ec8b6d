//! Recordings stored as bare arrays: NumPy `.npy` (read lazily, by positioned reads) and `.npz`, MATLAB v5
//! `.mat` and text `.csv`/`.tsv` (loaded). The values are taken as stored, in no stated unit.
//!
//! Shape: 1-D is one channel; 2-D is channels × samples or samples × channels, the shorter side taken as
//! the channels (a `.csv` with a header row has a channel per column); 3-D `.npy`/`.npz`/`.mat` is epochs ×
//! channels × samples, laid end to end with a run boundary at each epoch. The sampling rate comes from the
//! file where it has one (a `.npz`/`.mat` scalar named `sfreq`, `fs`, `srate`, `sampling_rate`,
//! `sample_rate` or `rate`; a `.csv` time column), else from [`OpenOptions::rate`], else the file is refused
//! with an error that asks for it.

pub mod npy;
mod text;

use super::channel::Channel;
use super::continuous::Continuous;
use super::edf::{EdfError, Repair};
use super::matrix::{Layout, Matrix, OnDisk, open_data};
use super::open_options::{NEEDS_RATE, OpenOptions};
use crate::signal::channel_kind::ChannelKind;
use ndarray::ArrayD;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Extensions of the array formats.
pub const EXTENSIONS: [&str; 5] = ["npy", "npz", "mat", "csv", "tsv"];

/// Names of a scalar sampling-rate member in `.npz` and `.mat` files (compared case-insensitively).
const RATE_NAMES: [&str; 6] = ["sfreq", "fs", "srate", "sampling_rate", "sample_rate", "rate"];

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

/// Opens an array file by its extension (one of [`EXTENSIONS`]).
pub fn open(path: &Path, ext: &str, options: &OpenOptions) -> Result<Continuous, EdfError> {
    match ext {
        "npy" => open_npy(path, options),
        "npz" => open_npz(path, options),
        "mat" => open_mat(path, options),
        _ => {
            let t = text::read(path)?;
            let rate = t.rate.or(options.rate);
            let rate = checked_rate(path, rate, "a text table without a time column")?;
            let mut repairs = Vec::new();
            if let Some(note) = t.orientation_note {
                repairs.push(Repair::file("orientation", note));
            }
            let n = t.names.len();
            Ok(build(
                path,
                format!("text table (.{ext})"),
                rate,
                t.names,
                Matrix::in_memory(t.values, n),
                Vec::new(),
                repairs,
            ))
        }
    }
}

/// The rate, or the error that asks for it.
fn checked_rate(path: &Path, rate: Option<f64>, what: &str) -> Result<f64, EdfError> {
    match rate {
        Some(r) if r.is_finite() && r > 0.0 => Ok(r),
        Some(r) => Err(err(path, NEEDS_RATE, format!("{r} Hz is not a positive rate"))),
        None => Err(err(
            path,
            NEEDS_RATE,
            format!("{what} records no sampling rate: give --rate HZ (CLI) or enter it in the open dialog"),
        )),
    }
}

/// The recording of an array file: channels with no unit at `rate`; the data size is the file's.
fn build(
    path: &Path,
    format: String,
    rate: f64,
    names: Vec<String>,
    matrix: Matrix,
    run_starts: Vec<usize>,
    repairs: Vec<Repair>,
) -> Continuous {
    let channels = names
        .into_iter()
        .enumerate()
        .map(|(i, label)| Channel {
            signal: i,
            kind: ChannelKind::from_label(&label),
            label,
            sample_rate: rate,
            physical_dimension: String::new(),
        })
        .collect();
    let data_len = std::fs::metadata(path).map_or(0, |m| m.len());
    Continuous {
        path: path.to_path_buf(),
        format,
        sample_rate: rate,
        channels,
        matrix,
        annotations: Vec::new(),
        run_starts,
        repairs,
        bads: Vec::new(),
        positions: Vec::new(),
        data_len,
    }
    .normalised()
}

/// `Ch1`, `Ch2`, … for arrays without channel names.
fn numbered(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("Ch{i}")).collect()
}

/// How a 2-D shape is read: (channels, samples, rows are channels), and the note when it is transposed.
fn orientation(rows: usize, cols: usize) -> (usize, usize, bool, Option<String>) {
    if rows <= cols {
        (rows, cols, true, None)
    } else {
        let note = format!(
            "shape ({rows}, {cols}) read as {rows} samples × {cols} channels (the shorter side is taken as the channels)"
        );
        (cols, rows, false, Some(note))
    }
}

fn open_npy(path: &Path, options: &OpenOptions) -> Result<Continuous, EdfError> {
    let (file, len) = open_data(path, "open")?;
    let mut head = vec![0u8; (len as usize).min(65_536)];
    file.read_exact_at(&mut head, 0).map_err(|e| err(path, "header", e.to_string()))?;
    let h = npy::parse_header(&head).map_err(|p| err(path, "header", p))?;
    let rate = checked_rate(path, options.rate, "a .npy array")?;
    let need = h
        .shape
        .iter()
        .try_fold(h.dtype.bytes() as u64, |a, &n| a.checked_mul(n as u64))
        .and_then(|b| b.checked_add(h.data_offset));
    if need.is_none_or(|n| n > len) {
        let need = need.map_or("more than 2^64".into(), |n| n.to_string());
        return Err(err(
            path,
            "data",
            format!("shape {:?} needs {need} bytes, the file has {len}: it is truncated", h.shape),
        ));
    }
    let mut repairs = Vec::new();
    let (n_channels, n_samples, layout, run_starts) = match (h.shape.as_slice(), h.fortran_order) {
        ([n], _) => (1, *n, Layout::ChannelMajor, Vec::new()),
        ([r, c], fortran) => {
            let (nch, ns, rows_are_channels, note) = orientation(*r, *c);
            repairs.extend(note.map(|n| Repair::file("orientation", n)));
            // C order keeps each row together; Fortran order each column.
            let channel_major = rows_are_channels != fortran;
            (nch, ns, if channel_major { Layout::ChannelMajor } else { Layout::SampleMajor }, Vec::new())
        }
        ([e, c, s], false) => (*c, e * s, Layout::Blocked(*s), (0..*e).map(|k| k * s).collect()),
        ([_, _, _], true) => {
            return Err(err(path, "shape", "a Fortran-ordered 3-D array is not read (save it in C order)"));
        }
        (shape, _) => {
            return Err(err(
                path,
                "shape",
                format!("{shape:?}: 1-D, 2-D or 3-D (epochs × channels × samples) expected"),
            ));
        }
    };
    if n_channels == 0 || n_samples == 0 {
        return Err(err(path, "shape", format!("{:?} holds no samples", h.shape)));
    }
    let disk = OnDisk {
        path: path.to_path_buf(),
        file,
        offset: h.data_offset,
        dtype: h.dtype,
        big_endian: h.big_endian,
        layout,
    };
    let matrix = Matrix::on_disk(disk, n_channels, n_samples, vec![1.0; n_channels], vec![0.0; n_channels]);
    let format = format!("NumPy array (.npy, {})", dtype_name(&h));
    Ok(build(path, format, rate, numbered(n_channels), matrix, run_starts, repairs))
}

fn dtype_name(h: &npy::NpyHeader) -> String {
    format!("{:?}{}", h.dtype, if h.big_endian { ", big-endian" } else { "" }).to_lowercase()
}

/// A loaded array (1-D, 2-D or 3-D, C order) → channels, channel-major values and run starts.
fn from_array(
    path: &Path,
    a: &ArrayD<f64>,
    repairs: &mut Vec<Repair>,
) -> Result<(usize, Vec<f64>, Vec<usize>), EdfError> {
    let shape = a.shape().to_vec();
    let v: Vec<f64> = a.iter().copied().collect(); // logical C order
    Ok(match shape.as_slice() {
        [n] if *n > 0 => (1, v, Vec::new()),
        [r, c] if r * c > 0 => {
            let (nch, ns, rows_are_channels, note) = orientation(*r, *c);
            repairs.extend(note.map(|n| Repair::file("orientation", n)));
            let values =
                if rows_are_channels { v } else { (0..nch * ns).map(|k| v[(k % ns) * nch + k / ns]).collect() };
            (nch, values, Vec::new())
        }
        [e, c, s] if e * c * s > 0 => {
            let values = (0..c * e * s)
                .map(|k| {
                    let (ch, i) = (k / (e * s), k % (e * s));
                    v[((i / s) * c + ch) * s + i % s]
                })
                .collect();
            (*c, values, (0..*e).map(|k| k * s).collect())
        }
        other => return Err(err(path, "shape", format!("{other:?}: a non-empty 1-D, 2-D or 3-D array expected"))),
    })
}

fn open_npz(path: &Path, options: &OpenOptions) -> Result<Continuous, EdfError> {
    crate::util::arrays::check_npz_headers(path).map_err(|e| err(path, "archive", e))?;
    let f = std::fs::File::open(path).map_err(|e| err(path, "open", e.to_string()))?;
    let mut z = ndarray_npy::NpzReader::new(f).map_err(|e| err(path, "archive", format!("not a .npz archive: {e}")))?;
    let names = z.names().map_err(|e| err(path, "archive", format!("unreadable index: {e}")))?;
    let mut rate = None;
    let mut best: Option<(String, ArrayD<f64>)> = None;
    for name in &names {
        let Ok(a) = crate::util::arrays::npz_f64(&mut z, name) else { continue };
        let key = name.trim_end_matches(".npy");
        if a.len() == 1 && RATE_NAMES.iter().any(|r| r.eq_ignore_ascii_case(key)) {
            rate = a.iter().next().copied();
        } else if best.as_ref().is_none_or(|(_, b)| a.len() > b.len()) {
            best = Some((key.to_string(), a));
        }
    }
    let Some((key, a)) = best else {
        return Err(err(path, "archive", format!("no numeric array among its members ({})", names.join(", "))));
    };
    let rate = checked_rate(
        path,
        rate.or(options.rate),
        &format!("a .npz archive without an {} member", RATE_NAMES.join("/")),
    )?;
    let mut repairs = Vec::new();
    let (nch, values, runs) = from_array(path, &a, &mut repairs)?;
    Ok(build(
        path,
        format!("NumPy archive (.npz, member {key})"),
        rate,
        numbered(nch),
        Matrix::in_memory(values, nch),
        runs,
        repairs,
    ))
}

fn open_mat(path: &Path, options: &OpenOptions) -> Result<Continuous, EdfError> {
    // util::mat5 (bounded: every length checked against the bytes present), not the matfile crate, whose
    // parser overflows on crafted dimensions (found by cargo-fuzz).
    let bytes = std::fs::read(path).map_err(|e| err(path, "open", e.to_string()))?;
    let vars = crate::util::mat5::parse(&bytes).map_err(|e| err(path, "MATLAB file", e))?;
    let mut rate = None;
    let mut best: Option<(&str, &[usize], &[f64])> = None;
    for (name, v) in &vars {
        let crate::util::mat5::Value::Numeric { dims, data } = v else { continue };
        if data.len() == 1 && RATE_NAMES.iter().any(|r| r.eq_ignore_ascii_case(name)) {
            rate = data.first().copied();
        } else if best.is_none_or(|(_, _, b)| data.len() > b.len()) {
            best = Some((name, dims, data));
        }
    }
    let Some((name, dims, data)) = best else { return Err(err(path, "MATLAB file", "no numeric array")) };
    let rate = checked_rate(
        path,
        rate.or(options.rate),
        &format!("a .mat file without an {} variable", RATE_NAMES.join("/")),
    )?;
    // MATLAB stores column-major: reverse the axes to get the logical array in C order.
    let shape: Vec<usize> = dims.iter().rev().copied().collect();
    let reversed = ArrayD::from_shape_vec(shape, data.to_vec()).map_err(|e| err(path, name, e.to_string()))?;
    let logical = squeeze(reversed.reversed_axes().as_standard_layout().to_owned());
    let mut repairs = Vec::new();
    let (nch, values, runs) = from_array(path, &logical, &mut repairs)?;
    let format = format!("MATLAB v5 (.mat, variable {name})");
    Ok(build(path, format, rate, numbered(nch), Matrix::in_memory(values, nch), runs, repairs))
}

/// Drops axes of length 1 (MATLAB has no 1-D arrays: a vector is 1 × n or n × 1).
fn squeeze(a: ArrayD<f64>) -> ArrayD<f64> {
    let shape: Vec<usize> = a.shape().iter().copied().filter(|&n| n != 1).collect();
    let shape = if shape.is_empty() { vec![a.len()] } else { shape };
    let v: Vec<f64> = a.iter().copied().collect();
    ArrayD::from_shape_vec(shape, v).expect("same number of elements")
}
