//! BrainVision Core Data Format 1.0 (`.vhdr` header, `.vmrk` markers, binary `.eeg` data), read lazily: the
//! header and markers at open, samples by positioned reads. INT_16, INT_32 and IEEE_FLOAT_32, multiplexed or
//! vectorised, either byte order; each channel's resolution and unit (values are given in that unit, as
//! `physical_dimension`); markers become annotations as MNE's `read_raw_brainvision` makes them
//! (`Type/Description`, onset = (position − 1) / rate, duration = points / rate, the first "New Segment"
//! dropped); every later "New Segment" starts a new contiguous run.

mod ini;
pub mod writer;

use super::channel::Channel;
use super::continuous::Continuous;
use super::edf::{Annotation, EdfError, Repair};
use super::matrix::{Dtype, Layout, Matrix, OnDisk, open_data, whole_samples};
use crate::signal::channel_kind::ChannelKind;
use ini::{Ini, decode};
use std::path::Path;

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

/// Reads the header and markers of a `.vhdr` file; the data file is opened, not read.
pub fn open(path: &Path) -> Result<Continuous, EdfError> {
    let bytes = std::fs::read(path).map_err(|e| err(path, "open", e.to_string()))?;
    let ini = Ini::parse(&decode(&bytes));
    if !ini.first_line.to_ascii_lowercase().contains("data exchange header file") {
        return Err(err(path, "first line", format!("{:?} is not a BrainVision header line", ini.first_line)));
    }
    let need = |key: &str| {
        ini.get("Common Infos", key)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| err(path, key, "missing from [Common Infos]"))
    };
    let data_format = ini.get("Common Infos", "DataFormat").unwrap_or("BINARY");
    if !data_format.eq_ignore_ascii_case("BINARY") {
        return Err(err(
            path,
            "DataFormat",
            format!("{data_format:?}: only BINARY data is read (re-export as binary)"),
        ));
    }
    let vectorized = match ini.get("Common Infos", "DataOrientation").unwrap_or("MULTIPLEXED") {
        o if o.eq_ignore_ascii_case("MULTIPLEXED") => false,
        o if o.eq_ignore_ascii_case("VECTORIZED") => true,
        o => return Err(err(path, "DataOrientation", format!("{o:?}: MULTIPLEXED or VECTORIZED expected"))),
    };
    let n_channels: usize =
        need("NumberOfChannels")?.parse().ok().filter(|&n| n > 0 && n <= 4096).ok_or_else(|| {
            err(
                path,
                "NumberOfChannels",
                format!("{:?} is not a channel count (1–4096)", ini.get("Common Infos", "NumberOfChannels")),
            )
        })?;
    let interval_us: f64 =
        need("SamplingInterval")?.parse().ok().filter(|&v: &f64| v.is_finite() && v > 0.0).ok_or_else(|| {
            err(
                path,
                "SamplingInterval",
                format!("{:?} is not a positive number of µs", ini.get("Common Infos", "SamplingInterval")),
            )
        })?;
    let (dtype, format_name) = match ini.get("Binary Infos", "BinaryFormat").unwrap_or("INT_16") {
        f if f.eq_ignore_ascii_case("INT_16") => (Dtype::I16, "INT_16"),
        f if f.eq_ignore_ascii_case("INT_32") => (Dtype::I32, "INT_32"),
        f if f.eq_ignore_ascii_case("IEEE_FLOAT_32") => (Dtype::F32, "IEEE_FLOAT_32"),
        f => return Err(err(path, "BinaryFormat", format!("{f:?}: INT_16, INT_32 or IEEE_FLOAT_32 expected"))),
    };
    let big_endian = ini.get("Binary Infos", "UseBigEndianOrder").is_some_and(|v| v.eq_ignore_ascii_case("YES"));
    let sample_rate = 1e6 / interval_us;
    let (channels, resolution) = channel_infos(path, &ini, n_channels, sample_rate)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let data_path = dir.join(need("DataFile")?);
    let (file, data_len) = open_data(&data_path, "DataFile")
        .map_err(|e| err(path, "DataFile", format!("{} {}", data_path.display(), e.problem)))?;
    let (n_samples, extra) = whole_samples(data_len, 0, n_channels, dtype);
    let mut repairs = Vec::new();
    if extra != 0 {
        repairs.push(Repair::file(
            "data file",
            format!(
                "{data_len} bytes is not a whole number of {}-byte samples: the last {extra} bytes are ignored",
                n_channels * dtype.bytes()
            ),
        ));
    }
    let (annotations, run_starts) = match ini.get("Common Infos", "MarkerFile").filter(|m| !m.is_empty()) {
        Some(m) => {
            let mpath = dir.join(m);
            match std::fs::read(&mpath) {
                Ok(b) => markers(&Ini::parse(&decode(&b)), sample_rate, n_samples),
                Err(e) => {
                    repairs.push(Repair::file(
                        "MarkerFile",
                        format!("{} cannot be read ({e}): no annotations", mpath.display()),
                    ));
                    (Vec::new(), vec![0])
                }
            }
        }
        None => (Vec::new(), vec![0]),
    };
    let c_labels: Vec<String> = channels.iter().map(|c| c.label.clone()).collect();
    let disk = OnDisk {
        path: data_path,
        file,
        offset: 0,
        dtype,
        big_endian,
        layout: if vectorized { Layout::ChannelMajor } else { Layout::SampleMajor },
    };
    let matrix = Matrix::on_disk(disk, n_channels, n_samples, resolution, vec![0.0; n_channels]);
    Ok(Continuous {
        path: path.to_path_buf(),
        format: format!("BrainVision ({format_name})"),
        sample_rate,
        channels,
        matrix,
        annotations,
        run_starts,
        repairs,
        bads: Vec::new(),
        positions: coordinates(&ini, &c_labels),
        data_len,
    }
    .normalised())
}

/// `[Channel Infos]`: `Ch<n>=name,reference,resolution,unit` for every channel (names' `\1` are commas; an
/// empty or absent unit is µV; an empty resolution is 1, as MNE reads them).
fn channel_infos(path: &Path, ini: &Ini, n: usize, fs: f64) -> Result<(Vec<Channel>, Vec<f64>), EdfError> {
    let mut channels = Vec::with_capacity(n);
    let mut resolution = Vec::with_capacity(n);
    for i in 0..n {
        let key = format!("Ch{}", i + 1);
        let field = format!("[Channel Infos] {key}");
        let value = ini.get("Channel Infos", &key).ok_or_else(|| err(path, &field, "missing"))?;
        let props: Vec<&str> = value.split(',').collect();
        let name = props[0].replace("\\1", ",");
        let res = match props.get(2).map(|r| r.trim()) {
            None | Some("") => 1.0,
            Some(r) => r
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| err(path, &field, format!("resolution {r:?} is not a number")))?,
        };
        let unit =
            props.get(3).map(|u| u.trim().replace('\u{c2}', "")).filter(|u| !u.is_empty()).unwrap_or("µV".into());
        let kind = ChannelKind::from_label(&name);
        channels.push(Channel { signal: i, label: name, sample_rate: fs, physical_dimension: unit, kind });
        resolution.push(res);
    }
    Ok((channels, resolution))
}

/// `[Coordinates]`: `Ch<n>=radius,theta,phi` (degrees; polar angle from the vertex, azimuth from +x) → x/y/z in
/// metres, as MNE reads them (a radius of 1 is MNE's default head, 95 mm; other radii are mm). Channels at the
/// origin have no position.
fn coordinates(ini: &Ini, labels: &[String]) -> Vec<(String, [f64; 3])> {
    let mut out = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        let Some(v) = ini.get("Coordinates", &format!("Ch{}", i + 1)) else { continue };
        let f: Vec<f64> = v.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        let [r, theta, phi] = f[..] else { continue };
        let r = if r == 1.0 { 95.0 } else { r };
        let (pol, az) = (theta.to_radians(), phi.to_radians());
        let p = [r * pol.sin() * az.cos() / 1e3, r * pol.sin() * az.sin() / 1e3, r * pol.cos() / 1e3];
        if p.iter().all(|x| x.is_finite()) && p != [0.0; 3] {
            out.push((label.clone(), p));
        }
    }
    out
}

/// `[Marker Infos]` → annotations and the first sample of each contiguous run.
fn markers(ini: &Ini, fs: f64, n_samples: usize) -> (Vec<Annotation>, Vec<usize>) {
    let mut annotations = Vec::new();
    let mut run_starts = vec![0];
    let mut first = true;
    for (key, value) in ini.section("Marker Infos") {
        // `Mk<digits>`, compared as bytes: a key may hold any character (a Latin-1 file decodes to multi-byte
        // UTF-8, so slicing the string could split one).
        let k = key.as_bytes();
        if !(k.len() > 2 && k[..2].eq_ignore_ascii_case(b"mk") && k[2..].iter().all(u8::is_ascii_digit)) {
            continue;
        }
        let f: Vec<&str> = value.split(',').collect();
        if f.len() < 4 {
            continue;
        }
        let Ok(position) = f[2].trim().parse::<i64>() else { continue };
        let points: f64 = if f[3].bytes().all(|b| b.is_ascii_digit()) && !f[3].is_empty() {
            f[3].parse().unwrap_or(0.0)
        } else {
            0.0
        };
        let (kind, text) = (f[0].replace("\\1", ","), f[1].replace("\\1", ","));
        if kind == "New Segment" {
            if first {
                first = false;
                continue;
            }
            let s = (position - 1).max(0) as usize;
            if s > 0 && s < n_samples && !run_starts.contains(&s) {
                run_starts.push(s);
            }
        }
        first = false;
        annotations.push(Annotation {
            onset_s: (position - 1) as f64 / fs,
            duration_s: Some(points / fs),
            text: format!("{kind}/{text}"),
        });
    }
    run_starts.sort_unstable();
    annotations.sort_by(|a, b| a.onset_s.total_cmp(&b.onset_s));
    (annotations, run_starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_keys_with_any_characters_are_skipped_not_split() {
        // Found by cargo-fuzz: a Latin-1 `M\xff1` key decoded to "Mÿ1" panicked when sliced at byte 2.
        let ini = Ini::parse(&decode(b"Brain Vision Data Exchange Marker File Version 1.0\n[Marker Infos]\nM\xff1=Stimulus,S  1,3,1,0\nMk2=Stimulus,S  2,5,1,0\n"));
        let (a, runs) = markers(&ini, 100.0, 10);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].text, "Stimulus/S  2");
        assert_eq!(runs, [0]);
    }
}
