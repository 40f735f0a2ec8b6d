//! Lazy reader of EDF, EDF+C/D, BDF and BDF+C/D files: the header is parsed at open, data records are read
//! with positioned reads only when asked for, so memory stays independent of file size.

use super::error::{EdfError, Repair};
use super::header::Header;
use super::tal::parse_tals;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// An annotation: onset in seconds from the recording start (header start time plus its sub-second part).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Annotation {
    pub onset_s: f64,
    /// `None` when the TAL gives no duration.
    pub duration_s: Option<f64>,
    pub text: String,
}

/// What one pass over the annotation signals found.
#[derive(Debug, Clone, Default)]
pub struct AnnotationScan {
    pub annotations: Vec<Annotation>,
    /// Onset of each data record in seconds from the recording start (EDF+D: from the time-keeping TALs).
    pub record_onsets: Vec<f64>,
    pub repairs: Vec<Repair>,
}

/// An open EDF/BDF file.
#[derive(Debug)]
pub struct EdfFile {
    path: PathBuf,
    file: File,
    file_len: u64,
    header: Header,
    repairs: Vec<Repair>,
    scan: OnceLock<Result<AnnotationScan, EdfError>>,
}

impl EdfFile {
    /// Opens `path`, parsing and repairing the header; data is not read yet. The sub-second start is read
    /// from the first record's time-keeping TAL (EDF+/BDF+).
    pub fn open(path: &Path) -> Result<EdfFile, EdfError> {
        let file = File::open(path).map_err(|e| EdfError::file(path, "open", e.to_string()))?;
        let file_len = file.metadata().map_err(|e| EdfError::file(path, "open", e.to_string()))?.len();
        let mut fixed = vec![0u8; 256.min(file_len as usize)];
        file.read_exact_at(&mut fixed, 0).map_err(|e| EdfError::file(path, "header", e.to_string()))?;
        let (mut header, repairs) = Header::parse(path, &fixed, file_len, |ns| {
            let mut buf = vec![0u8; 256 * ns];
            file.read_exact_at(&mut buf, 256).map_err(|e| EdfError::at(path, 256, "signal headers", e.to_string()))?;
            Ok(buf)
        })?;
        let mut me = EdfFile {
            path: path.to_path_buf(),
            file,
            file_len,
            header: header.clone(),
            repairs,
            scan: OnceLock::new(),
        };
        if header.format.is_plus() && header.record_count > 0 {
            let first = me.annotation_bytes(0).map_err(|e| EdfError::file(path, "data record 0", e.to_string()))?;
            let (tals, _) = parse_tals(&first);
            if let Some(tk) = tals.first().filter(|t| t.texts.first().is_some_and(|s| s.is_empty()))
                && (0.0..1.0).contains(&tk.onset)
            {
                header.start.subsecond = tk.onset;
            }
            me.header = header;
        }
        Ok(me)
    }

    /// The file this was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The repaired header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Repairs made to the header, followed by those made while reading annotations (once scanned).
    pub fn repairs(&self) -> Vec<Repair> {
        let mut all = self.repairs.clone();
        if let Some(Ok(scan)) = self.scan.get() {
            all.extend(scan.repairs.iter().cloned());
        }
        all
    }

    /// Annotations and record onsets, read on first use with one pass over the annotation signals.
    pub fn scan(&self) -> Result<&AnnotationScan, EdfError> {
        self.scan
            .get_or_init(|| {
                self.scan_annotations().map_err(|e| EdfError::file(&self.path, "annotations", e.to_string()))
            })
            .as_ref()
            .map_err(EdfError::clone)
    }

    fn scan_annotations(&self) -> std::io::Result<AnnotationScan> {
        let h = &self.header;
        let mut scan = AnnotationScan::default();
        let has_annotations = h.signals.iter().any(|s| s.is_annotation);
        let sub = h.start.subsecond;
        for r in 0..h.record_count {
            let nominal = r as f64 * h.record_duration;
            if !has_annotations {
                scan.record_onsets.push(nominal);
                continue;
            }
            let bytes = self.annotation_bytes(r)?;
            let (tals, problems) = parse_tals(&bytes);
            for p in problems {
                scan.repairs.push(Repair::file(&format!("annotations of record {r}"), p));
            }
            let mut tals = tals.into_iter().peekable();
            // The record's first TAL is time-keeping when its first text is empty (EDF+ spec 2.2.4).
            let tk =
                if h.format.is_plus() { tals.next_if(|t| t.texts.first().is_some_and(|s| s.is_empty())) } else { None };
            let onset = match (&tk, h.format.is_discontinuous()) {
                (Some(t), true) => t.onset - sub,
                (None, true) => {
                    scan.repairs.push(Repair::file(
                        &format!("record {r}"),
                        "no time-keeping TAL in an EDF+D record; assumed contiguous",
                    ));
                    scan.record_onsets.last().map_or(nominal, |p| p + h.record_duration)
                }
                _ => nominal,
            };
            scan.record_onsets.push(onset);
            let extra = tk.into_iter().flat_map(|t| {
                let (o, d) = (t.onset, t.duration);
                t.texts.into_iter().skip(1).map(move |s| (o, d, s))
            });
            let rest = tals.flat_map(|t| {
                let (o, d) = (t.onset, t.duration);
                t.texts.into_iter().map(move |s| (o, d, s))
            });
            for (o, d, text) in extra.chain(rest) {
                if !text.is_empty() {
                    scan.annotations.push(Annotation { onset_s: o - sub, duration_s: d, text });
                }
            }
        }
        Ok(scan)
    }

    /// Raw bytes of all annotation signals of record `r`, concatenated.
    pub fn annotation_bytes(&self, r: u64) -> std::io::Result<Vec<u8>> {
        let h = &self.header;
        let bps = h.format.bytes_per_sample();
        let mut out = Vec::new();
        for (i, s) in h.signals.iter().enumerate().filter(|(_, s)| s.is_annotation) {
            let mut buf = vec![0u8; s.samples_per_record * bps];
            self.file.read_exact_at(&mut buf, self.record_offset(r) + h.signal_offset_in_record(i))?;
            out.extend_from_slice(&buf);
        }
        Ok(out)
    }

    /// Byte offset of data record `r`.
    pub fn record_offset(&self, r: u64) -> u64 {
        self.header.header_bytes + r * self.header.record_bytes()
    }

    /// Appends the digital samples of signal `sig` in record `r` to `out`.
    pub fn read_digital(&self, sig: usize, r: u64, out: &mut Vec<i32>) -> Result<(), EdfError> {
        let h = &self.header;
        let bps = h.format.bytes_per_sample();
        let mut buf = vec![0u8; h.signals[sig].samples_per_record * bps];
        self.file
            .read_exact_at(&mut buf, self.record_offset(r) + h.signal_offset_in_record(sig))
            .map_err(|e| EdfError::file(&self.path, &format!("data record {r}"), e.to_string()))?;
        decode_into(&buf, bps, out);
        Ok(())
    }

    /// Fills `buf` from byte `offset` of the data area of the file.
    pub fn read_at_exact(&self, offset: u64, buf: &mut [u8]) -> Result<(), EdfError> {
        self.file.read_exact_at(buf, offset).map_err(|e| {
            EdfError::file(&self.path, &format!("bytes {offset}..{}", offset + buf.len() as u64), e.to_string())
        })
    }

    /// Raw bytes of records `[r0, r1)`, read with one positioned read.
    pub fn read_records(&self, r0: u64, r1: u64) -> Result<Vec<u8>, EdfError> {
        let len = (r1 - r0) * self.header.record_bytes();
        let mut buf = vec![0u8; len as usize];
        self.file
            .read_exact_at(&mut buf, self.record_offset(r0))
            .map_err(|e| EdfError::file(&self.path, &format!("data records {r0}..{r1}"), e.to_string()))?;
        Ok(buf)
    }
}

/// Decodes little-endian 16-bit (EDF) or 24-bit (BDF) two's-complement samples.
pub fn decode_into(bytes: &[u8], bytes_per_sample: usize, out: &mut Vec<i32>) {
    if bytes_per_sample == 2 {
        out.extend(bytes.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as i32));
    } else {
        out.extend(bytes.chunks_exact(3).map(|b| (i32::from_le_bytes([0, b[0], b[1], b[2]])) >> 8));
    }
}
