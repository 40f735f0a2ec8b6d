//! BrainVision Core Data Format 1.0 (`.vhdr` header, `.vmrk` markers, binary `.eeg` data), read lazily: the
//! header and markers at open, samples by positioned reads. INT_16, INT_32 and IEEE_FLOAT_32, multiplexed or
//! vectorised, either byte order; each channel's resolution and unit (values are given in that unit, as
//! `physical_dimension`); markers become annotations as MNE's `read_raw_brainvision` makes them
//! (`Type/Description`, onset = (position − 1) / rate, duration = points / rate, the first "New Segment"
//! dropped); every later "New Segment" starts a new contiguous run.

mod ini;

use super::channel::{Channel, ChannelData, Segment, first_sample_at_or_after};
use super::edf::{Annotation, EdfError, Repair};
use ini::{Ini, decode};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFormat {
    Int16,
    Int32,
    Float32,
}

impl SampleFormat {
    pub fn bytes(self) -> usize {
        match self {
            SampleFormat::Int16 => 2,
            SampleFormat::Int32 | SampleFormat::Float32 => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SampleFormat::Int16 => "INT_16",
            SampleFormat::Int32 => "INT_32",
            SampleFormat::Float32 => "IEEE_FLOAT_32",
        }
    }
}

/// An open BrainVision recording.
#[derive(Debug)]
pub struct BrainVision {
    path: PathBuf,
    data_path: PathBuf,
    data: File,
    pub format: SampleFormat,
    pub big_endian: bool,
    pub vectorized: bool,
    pub sample_rate: f64,
    /// Samples per channel in the data file.
    pub n_samples: usize,
    pub channels: Vec<Channel>,
    /// Value of one stored unit, in the channel's unit.
    resolution: Vec<f64>,
    pub annotations: Vec<Annotation>,
    /// First sample of each contiguous run (0 first; later "New Segment" markers).
    run_starts: Vec<usize>,
    pub repairs: Vec<Repair>,
    data_len: u64,
}

/// Samples decoded per positioned read of a multiplexed file (bounded memory for whole-file reads).
const ROWS_PER_READ: usize = 16_384;

fn err(path: &Path, field: &str, problem: impl Into<String>) -> EdfError {
    EdfError::file(path, field, problem)
}

impl BrainVision {
    /// Reads the header and markers of a `.vhdr` file; the data file is checked, not read.
    pub fn open(path: &Path) -> Result<BrainVision, EdfError> {
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
        let format = match ini.get("Binary Infos", "BinaryFormat").unwrap_or("INT_16") {
            f if f.eq_ignore_ascii_case("INT_16") => SampleFormat::Int16,
            f if f.eq_ignore_ascii_case("INT_32") => SampleFormat::Int32,
            f if f.eq_ignore_ascii_case("IEEE_FLOAT_32") => SampleFormat::Float32,
            f => return Err(err(path, "BinaryFormat", format!("{f:?}: INT_16, INT_32 or IEEE_FLOAT_32 expected"))),
        };
        let big_endian = ini.get("Binary Infos", "UseBigEndianOrder").is_some_and(|v| v.eq_ignore_ascii_case("YES"));
        let (channels, resolution) = channel_infos(path, &ini, n_channels, 1e6 / interval_us)?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let data_path = dir.join(need("DataFile")?);
        let data = File::open(&data_path)
            .map_err(|e| err(path, "DataFile", format!("{} cannot be opened: {e}", data_path.display())))?;
        let data_len = data.metadata().map_err(|e| err(&data_path, "open", e.to_string()))?.len();
        let frame = (n_channels * format.bytes()) as u64;
        let n_samples = (data_len / frame) as usize;
        let mut repairs = Vec::new();
        if data_len % frame != 0 {
            repairs.push(Repair::file(
                "data file",
                format!(
                    "{} bytes is not a whole number of {frame}-byte samples: the last {} bytes are ignored",
                    data_len,
                    data_len % frame
                ),
            ));
        }
        let sample_rate = 1e6 / interval_us;
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
        Ok(BrainVision {
            path: path.to_path_buf(),
            data_path,
            data,
            format,
            big_endian,
            vectorized,
            sample_rate,
            n_samples,
            channels,
            resolution,
            annotations,
            run_starts,
            repairs,
            data_len,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn data_path(&self) -> &Path {
        &self.data_path
    }

    /// Bytes of the data file.
    pub fn data_len(&self) -> u64 {
        self.data_len
    }

    pub fn duration_s(&self) -> f64 {
        self.n_samples as f64 / self.sample_rate
    }

    /// The contiguous runs of samples `[i0, i1)`.
    fn runs(&self, i0: usize, i1: usize) -> Vec<(usize, usize)> {
        let mut bounds: Vec<usize> = self.run_starts.iter().copied().filter(|&s| s > i0 && s < i1).collect();
        bounds.insert(0, i0);
        bounds.push(i1);
        bounds.windows(2).map(|w| (w[0], w[1])).filter(|(a, b)| b > a).collect()
    }

    /// Channels `chans` (indices into the channel list) for samples whose time lies in `[start_s, start_s +
    /// duration_s)`, in the channels' own units.
    pub fn read(&self, chans: &[usize], start_s: f64, duration_s: f64) -> Result<Vec<ChannelData>, EdfError> {
        let fs = self.sample_rate;
        let first = |t: f64| first_sample_at_or_after(t, fs).min(self.n_samples);
        let (i0, i1) = (first(start_s), first(start_s + duration_s));
        let mut out: Vec<ChannelData> = chans
            .iter()
            .map(|_| ChannelData {
                sample_rate: fs,
                values: Vec::with_capacity(i1.saturating_sub(i0)),
                segments: Vec::new(),
            })
            .collect();
        if i1 <= i0 {
            return Ok(out);
        }
        let bps = self.format.bytes();
        let nch = self.channels.len();
        if self.vectorized {
            let mut buf = vec![0u8; (i1 - i0) * bps];
            for (&c, data) in chans.iter().zip(out.iter_mut()) {
                let offset = ((c * self.n_samples + i0) * bps) as u64;
                self.read_at(offset, &mut buf)?;
                let res = self.resolution[c];
                data.values.extend(buf.chunks_exact(bps).map(|b| self.decode(b) * res));
            }
        } else {
            let mut at = i0;
            let mut buf = Vec::new();
            while at < i1 {
                let rows = (i1 - at).min(ROWS_PER_READ);
                buf.resize(rows * nch * bps, 0);
                self.read_at((at * nch * bps) as u64, &mut buf)?;
                for (&c, data) in chans.iter().zip(out.iter_mut()) {
                    let res = self.resolution[c];
                    data.values
                        .extend(buf.chunks_exact(nch * bps).map(|row| self.decode(&row[c * bps..(c + 1) * bps]) * res));
                }
                at += rows;
            }
        }
        let segments: Vec<Segment> =
            self.runs(i0, i1).into_iter().map(|(a, b)| Segment { onset_s: a as f64 / fs, n_samples: b - a }).collect();
        for data in &mut out {
            data.segments = segments.clone();
        }
        Ok(out)
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), EdfError> {
        self.data
            .read_exact_at(buf, offset)
            .map_err(|e| err(&self.data_path, &format!("bytes {offset}..{}", offset + buf.len() as u64), e.to_string()))
    }

    fn decode(&self, b: &[u8]) -> f64 {
        let be = self.big_endian;
        match self.format {
            SampleFormat::Int16 => {
                let a = [b[0], b[1]];
                f64::from(if be { i16::from_be_bytes(a) } else { i16::from_le_bytes(a) })
            }
            SampleFormat::Int32 => {
                let a = [b[0], b[1], b[2], b[3]];
                f64::from(if be { i32::from_be_bytes(a) } else { i32::from_le_bytes(a) })
            }
            SampleFormat::Float32 => {
                let a = [b[0], b[1], b[2], b[3]];
                f64::from(if be { f32::from_be_bytes(a) } else { f32::from_le_bytes(a) })
            }
        }
    }
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
        channels.push(Channel { signal: i, label: name, sample_rate: fs, physical_dimension: unit });
        resolution.push(res);
    }
    Ok((channels, resolution))
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
