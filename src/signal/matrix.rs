//! A channels × samples matrix of one sample type, on disk (read by positioned reads) or in memory: the data
//! of every format whose samples are one uniform grid (BrainVision, Neuroscan CNT, EEGLAB, NumPy arrays…).
//! A value is `(stored − offset) × scale`, per channel.

use super::edf::EdfError;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// How one sample is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    F32,
    F64,
}

impl Dtype {
    pub fn bytes(self) -> usize {
        match self {
            Dtype::I8 | Dtype::U8 => 1,
            Dtype::I16 | Dtype::U16 => 2,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 4,
            Dtype::I64 | Dtype::F64 => 8,
        }
    }

    /// The sample at the start of `b` (at least [`Self::bytes`] long).
    pub fn decode(self, b: &[u8], big_endian: bool) -> f64 {
        macro_rules! num {
            ($t:ty, $n:expr) => {{
                let a: [u8; $n] = b[..$n].try_into().expect("length checked by the caller");
                (if big_endian { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }) as f64
            }};
        }
        match self {
            Dtype::I8 => f64::from(b[0] as i8),
            Dtype::U8 => f64::from(b[0]),
            Dtype::I16 => num!(i16, 2),
            Dtype::U16 => num!(u16, 2),
            Dtype::I32 => num!(i32, 4),
            Dtype::U32 => num!(u32, 4),
            Dtype::I64 => num!(i64, 8),
            Dtype::F32 => num!(f32, 4),
            Dtype::F64 => num!(f64, 8),
        }
    }
}

/// The samples on disk: where they start, how each is stored and in which order.
#[derive(Debug)]
pub struct OnDisk {
    pub path: PathBuf,
    pub file: File,
    /// Byte offset of the first sample.
    pub offset: u64,
    pub dtype: Dtype,
    pub big_endian: bool,
    pub layout: Layout,
}

/// The order of the samples on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Multiplexed: every channel's first sample, then every channel's second, …
    SampleMajor,
    /// Vectorised: all samples of channel 0, then channel 1, …
    ChannelMajor,
    /// Blocks of `n` samples per channel, channel after channel, block after block (Neuroscan CNT's
    /// "channel offset"; `n` = 1 is sample-major).
    Blocked(usize),
}

#[derive(Debug)]
enum Store {
    Disk(OnDisk),
    /// Channel-major values, already scaled.
    Memory(Vec<f64>),
    Buffers(Buffered),
}

/// Samples in separate buffers, each multiplexed, in one or more files (FIF raw data, split files).
#[derive(Debug)]
pub struct Buffered {
    /// The files, opened.
    pub files: Vec<(PathBuf, File)>,
    /// In sample order, covering every sample once.
    pub buffers: Vec<Buffer>,
    pub big_endian: bool,
}

/// `n` samples from sample `first` on: in `files[file]` from byte `offset` as `dtype`, or none (a skip,
/// read as zeros).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Buffer {
    pub first: usize,
    pub n: usize,
    pub data: Option<(usize, u64, Dtype)>,
}

/// A channels × samples matrix.
#[derive(Debug)]
pub struct Matrix {
    store: Store,
    n_channels: usize,
    n_samples: usize,
    /// Per channel: value = (stored − offset) × scale (disk only).
    scale: Vec<f64>,
    offset: Vec<f64>,
}

/// Samples decoded per positioned read of a sample-major file (bounded memory for whole-file reads).
const ROWS_PER_READ: usize = 16_384;

impl Matrix {
    /// A matrix on disk; `scale` and `offset` have one entry per channel.
    pub fn on_disk(disk: OnDisk, n_channels: usize, n_samples: usize, scale: Vec<f64>, offset: Vec<f64>) -> Matrix {
        debug_assert!(scale.len() == n_channels && offset.len() == n_channels);
        Matrix { store: Store::Disk(disk), n_channels, n_samples, scale, offset }
    }

    /// A matrix in memory, channel-major (`values.len() == n_channels × n_samples`).
    pub fn in_memory(values: Vec<f64>, n_channels: usize) -> Matrix {
        let n_samples = values.len().checked_div(n_channels).unwrap_or(0);
        Matrix {
            store: Store::Memory(values),
            n_channels,
            n_samples,
            scale: vec![1.0; n_channels],
            offset: vec![0.0; n_channels],
        }
    }

    /// Samples in buffers (see [`Buffered`]); value = stored × `scale`, per channel.
    pub fn buffered(b: Buffered, n_channels: usize, scale: Vec<f64>) -> Matrix {
        let n_samples = b.buffers.last().map_or(0, |x| x.first + x.n);
        Matrix { store: Store::Buffers(b), n_channels, n_samples, scale, offset: vec![0.0; n_channels] }
    }

    pub fn n_samples(&self) -> usize {
        self.n_samples
    }

    pub fn n_channels(&self) -> usize {
        self.n_channels
    }

    /// The data file, when the samples are on disk.
    pub fn disk(&self) -> Option<&OnDisk> {
        match &self.store {
            Store::Disk(d) => Some(d),
            Store::Memory(_) | Store::Buffers(_) => None,
        }
    }

    /// Samples `[i0, i1)` of channels `chans`, appended to `out` (one vector per channel).
    pub fn read_into(&self, chans: &[usize], i0: usize, i1: usize, out: &mut [Vec<f64>]) -> Result<(), EdfError> {
        let i1 = i1.min(self.n_samples);
        if i1 <= i0 {
            return Ok(());
        }
        let d = match &self.store {
            Store::Memory(v) => {
                for (&c, o) in chans.iter().zip(out.iter_mut()) {
                    o.extend_from_slice(&v[c * self.n_samples + i0..c * self.n_samples + i1]);
                }
                return Ok(());
            }
            Store::Buffers(b) => return self.read_buffers(b, chans, i0, i1, out),
            Store::Disk(d) => d,
        };
        let bps = d.dtype.bytes();
        let nch = self.n_channels;
        let value = |c: usize, b: &[u8]| (d.dtype.decode(b, d.big_endian) - self.offset[c]) * self.scale[c];
        let block = match d.layout {
            Layout::SampleMajor | Layout::Blocked(0 | 1) => 1,
            Layout::ChannelMajor => self.n_samples,
            Layout::Blocked(n) => n,
        };
        if block == 1 {
            let mut at = i0;
            let mut buf = Vec::new();
            while at < i1 {
                let rows = (i1 - at).min(ROWS_PER_READ);
                buf.resize(rows * nch * bps, 0);
                read_at(d, d.offset + (at * nch * bps) as u64, &mut buf)?;
                for (&c, o) in chans.iter().zip(out.iter_mut()) {
                    o.extend(buf.chunks_exact(nch * bps).map(|row| value(c, &row[c * bps..])));
                }
                at += rows;
            }
            return Ok(());
        }
        // One positioned read per channel and block, of at most ROWS_PER_READ samples.
        let mut buf = Vec::new();
        let mut at = i0;
        while at < i1 {
            let (k, j0) = (at / block, at % block);
            let j1 = (j0 + (i1 - at)).min(block).min(j0 + ROWS_PER_READ);
            buf.resize((j1 - j0) * bps, 0);
            for (&c, o) in chans.iter().zip(out.iter_mut()) {
                let first = (k * nch * block + c * block + j0) as u64;
                read_at(d, d.offset + first * bps as u64, &mut buf)?;
                o.extend(buf.chunks_exact(bps).map(|b| value(c, b)));
            }
            at += j1 - j0;
        }
        Ok(())
    }
}

impl Matrix {
    fn read_buffers(
        &self,
        b: &Buffered,
        chans: &[usize],
        i0: usize,
        i1: usize,
        out: &mut [Vec<f64>],
    ) -> Result<(), EdfError> {
        let nch = self.n_channels;
        let k0 = b.buffers.partition_point(|x| x.first + x.n <= i0);
        let mut raw = Vec::new();
        for x in b.buffers[k0..].iter().take_while(|x| x.first < i1) {
            let (j0, j1) = (i0.max(x.first) - x.first, i1.min(x.first + x.n) - x.first);
            let Some((file, offset, dtype)) = x.data else {
                for o in out.iter_mut() {
                    o.extend(std::iter::repeat_n(0.0, j1 - j0));
                }
                continue;
            };
            let bps = dtype.bytes();
            let (path, f) = &b.files[file];
            // Rows j0..j1 of the buffer, at most ROWS_PER_READ at a time.
            let mut j = j0;
            while j < j1 {
                let rows = (j1 - j).min(ROWS_PER_READ);
                raw.resize(rows * nch * bps, 0);
                let at = offset + (j * nch * bps) as u64;
                f.read_exact_at(&mut raw, at).map_err(|e| {
                    EdfError::file(path, &format!("bytes {at}..{}", at + raw.len() as u64), e.to_string())
                })?;
                for (&c, o) in chans.iter().zip(out.iter_mut()) {
                    o.extend(
                        raw.chunks_exact(nch * bps)
                            .map(|row| dtype.decode(&row[c * bps..], b.big_endian) * self.scale[c]),
                    );
                }
                j += rows;
            }
        }
        Ok(())
    }
}

fn read_at(d: &OnDisk, offset: u64, buf: &mut [u8]) -> Result<(), EdfError> {
    d.file
        .read_exact_at(buf, offset)
        .map_err(|e| EdfError::file(&d.path, &format!("bytes {offset}..{}", offset + buf.len() as u64), e.to_string()))
}

/// Samples a file of `len` bytes holds from `offset` on, for `n_channels` channels of `dtype`, and the bytes
/// left over at its end (a partial sample frame).
pub fn whole_samples(len: u64, offset: u64, n_channels: usize, dtype: Dtype) -> (usize, u64) {
    let frame = (n_channels * dtype.bytes()) as u64;
    let data = len.saturating_sub(offset);
    match data.checked_div(frame) {
        Some(n) => (n as usize, data % frame),
        None => (0, data),
    }
}

/// Opens `path` for positioned reads, with its length.
pub fn open_data(path: &Path, what: &str) -> Result<(File, u64), EdfError> {
    let file = File::open(path).map_err(|e| EdfError::file(path, what, format!("cannot be opened: {e}")))?;
    let len = file.metadata().map_err(|e| EdfError::file(path, what, e.to_string()))?.len();
    Ok((file, len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn disk(bytes: &[u8], dtype: Dtype, layout: Layout, offset: u64) -> (tempfile::NamedTempFile, OnDisk) {
        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(bytes).unwrap();
        let file = File::open(t.path()).unwrap();
        let d = OnDisk { path: t.path().into(), file, offset, dtype, big_endian: false, layout };
        (t, d)
    }

    #[test]
    fn every_layout_reads_the_same_matrix() {
        // 2 channels × 4 samples: ch0 = 1, 2, 3, 4; ch1 = 10, 20, 30, 40; stored after a 2-byte prefix.
        let i16s = |v: &[i16]| -> Vec<u8> { v.iter().flat_map(|v| v.to_le_bytes()).collect() };
        let mux = i16s(&[0, 1, 10, 2, 20, 3, 30, 4, 40]);
        let vec = i16s(&[0, 1, 2, 3, 4, 10, 20, 30, 40]);
        let blocked = i16s(&[0, 1, 2, 10, 20, 3, 4, 30, 40]);
        for (bytes, layout) in [
            (mux.clone(), Layout::SampleMajor),
            (mux, Layout::Blocked(1)),
            (vec, Layout::ChannelMajor),
            (blocked, Layout::Blocked(2)),
        ] {
            let (_t, d) = disk(&bytes, Dtype::I16, layout, 2);
            let m = Matrix::on_disk(d, 2, 4, vec![0.5, 2.0], vec![0.0, 10.0]);
            let mut out = vec![Vec::new(), Vec::new()];
            m.read_into(&[1, 0], 1, 4, &mut out).unwrap();
            assert_eq!(out, [vec![20.0, 40.0, 60.0], vec![1.0, 1.5, 2.0]], "{layout:?}");
        }
    }

    #[test]
    fn a_short_file_is_an_error_naming_it() {
        let (_t, d) = disk(&[0u8; 4], Dtype::F32, Layout::SampleMajor, 0);
        let m = Matrix::on_disk(d, 1, 2, vec![1.0], vec![0.0]);
        let e = m.read_into(&[0], 0, 2, &mut [Vec::new()]).unwrap_err();
        assert!(e.to_string().contains("bytes 0..8"), "{e}");
    }

    #[test]
    fn dtypes_decode_both_byte_orders() {
        assert_eq!(Dtype::I32.decode(&(-5i32).to_be_bytes(), true), -5.0);
        assert_eq!(Dtype::F64.decode(&1.25f64.to_le_bytes(), false), 1.25);
        assert_eq!(Dtype::U16.decode(&[0xff, 0xff], false), 65535.0);
        assert_eq!(Dtype::I8.decode(&[0xff], false), -1.0);
    }
}
