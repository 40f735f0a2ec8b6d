//! BrainVision files written by tests from real recordings, in any layout the reader takes.

use brainlens::signal::Recording;
use std::path::{Path, PathBuf};

/// How samples are stored.
#[derive(Clone, Copy)]
pub struct Layout {
    /// INT_16, INT_32 or IEEE_FLOAT_32.
    pub format: &'static str,
    pub vectorized: bool,
    pub big_endian: bool,
    pub resolution: f64,
}

impl Layout {
    /// Multiplexed little-endian INT_16 at 0.5 µV.
    pub fn int16() -> Layout {
        Layout { format: "INT_16", vectorized: false, big_endian: false, resolution: 0.5 }
    }
}

/// Writes `name.vhdr/.vmrk/.eeg` in `dir`: `data[channel][sample]` (µV) stored in `layout` (value = stored ×
/// resolution); `markers` are `(type, description, 1-based position, points)`.
pub fn write_bv(
    dir: &Path,
    name: &str,
    data: &[Vec<f64>],
    fs: f64,
    layout: Layout,
    markers: &[(&str, &str, usize, usize)],
) -> PathBuf {
    let Layout { format, vectorized, big_endian, resolution } = layout;
    let n = data[0].len();
    let mut bytes = Vec::new();
    let mut put = |v: f64| {
        let s = (v / resolution).round();
        match format {
            "INT_16" => bytes.extend(if big_endian { (s as i16).to_be_bytes() } else { (s as i16).to_le_bytes() }),
            "INT_32" => bytes.extend(if big_endian { (s as i32).to_be_bytes() } else { (s as i32).to_le_bytes() }),
            _ => {
                let f = (v / resolution) as f32;
                bytes.extend(if big_endian { f.to_be_bytes() } else { f.to_le_bytes() })
            }
        }
    };
    if vectorized {
        data.iter().flatten().for_each(|&v| put(v));
    } else {
        (0..n).for_each(|i| data.iter().for_each(|c| put(c[i])));
    }
    std::fs::write(dir.join(format!("{name}.eeg")), bytes).unwrap();
    let channels: String = (0..data.len()).map(|c| format!("Ch{}=E{}\\1x,,{resolution},µV\n", c + 1, c + 1)).collect();
    std::fs::write(
        dir.join(format!("{name}.vhdr")),
        format!(
            "Brain Vision Data Exchange Header File Version 1.0\n; written by a BrainLens test\n\n[Common Infos]\n\
             Codepage=UTF-8\nDataFile={name}.eeg\nMarkerFile={name}.vmrk\nDataFormat=BINARY\nDataOrientation={}\n\
             NumberOfChannels={}\nSamplingInterval={}\n\n[Binary Infos]\nBinaryFormat={format}\nUseBigEndianOrder={}\n\n\
             [Channel Infos]\n{channels}",
            if vectorized { "VECTORIZED" } else { "MULTIPLEXED" },
            data.len(),
            1e6 / fs,
            if big_endian { "YES" } else { "NO" },
        ),
    )
    .unwrap();
    let marks: String = markers
        .iter()
        .enumerate()
        .map(|(i, (t, d, pos, pts))| format!("Mk{}={t},{d},{pos},{pts},0\n", i + 1))
        .collect();
    std::fs::write(
        dir.join(format!("{name}.vmrk")),
        format!("Brain Vision Data Exchange Marker File Version 1.0\n\n[Common Infos]\nCodepage=UTF-8\nDataFile={name}.eeg\n\n[Marker Infos]\n{marks}"),
    )
    .unwrap();
    dir.join(format!("{name}.vhdr"))
}

/// Three channels of the real MNE sample EEG (µV, 250 Hz, 24 s).
pub fn sample_channels() -> (Vec<Vec<f64>>, f64) {
    let rec = Recording::open(Path::new("fixtures/eeg/mne_sample_eeg60.edf")).unwrap();
    let idx: Vec<usize> = ["EEG 001", "EEG 030", "EOG 061"].iter().map(|l| rec.channel_index(l).unwrap()).collect();
    let d = rec.read(&idx, 0.0, 30.0).unwrap();
    (d.iter().map(|c| c.values.clone()).collect(), d[0].sample_rate)
}
