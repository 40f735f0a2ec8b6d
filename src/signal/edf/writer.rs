//! Writer of EDF+/BDF+ (and plain EDF/BDF) files: saved annotation edits, exported segments, test files.
//! Samples are written as given at digital level, so a read–write round trip is lossless.

use super::fields::format_number;
use super::header::{EdfFormat, SignalHeader, StartTime};
use super::reader::Annotation;
use super::tal::encode_tal;
use crate::signal::error::{SignalError, invalid, io};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Everything but the samples of a file to write.
#[derive(Debug, Clone)]
pub struct WriteSpec {
    pub format: EdfFormat,
    pub patient: String,
    pub recording: String,
    pub start: StartTime,
    pub record_duration: f64,
    pub record_count: u64,
    /// Ordinary signals only; the writer adds the annotation signal for EDF+/BDF+.
    pub signals: Vec<SignalHeader>,
    /// Onsets relative to the recording start (the writer adds the start's sub-second part).
    pub annotations: Vec<Annotation>,
    /// EDF+D/BDF+D: onset of each record from the recording start; `None` means contiguous.
    pub record_onsets: Option<Vec<f64>>,
}

/// Writes `spec` to `path`; `fill(r, out)` must put the digital samples of record `r` into `out[s]` for each
/// ordinary signal `s`. The file is written to a temporary sibling and renamed into place when complete.
pub fn write_edf(
    path: &Path,
    spec: &WriteSpec,
    mut fill: impl FnMut(u64, &mut [Vec<i32>]) -> Result<(), SignalError>,
) -> Result<(), SignalError> {
    let plus = spec.format.is_plus();
    let bps = spec.format.bytes_per_sample();
    if let Some(onsets) = &spec.record_onsets
        && onsets.len() as u64 != spec.record_count
    {
        return Err(invalid!("{}: {} record onsets for {} records", path.display(), onsets.len(), spec.record_count));
    }
    let sub = spec.start.subsecond;
    let onset_of = |r: u64| spec.record_onsets.as_ref().map_or(r as f64 * spec.record_duration, |o| o[r as usize]);
    let per_record = distribute_annotations(spec);
    let tal_bytes: Vec<Vec<u8>> = (0..spec.record_count)
        .map(|r| {
            let mut b = encode_tal(onset_of(r) + sub, None, &[""]);
            for a in &per_record[r as usize] {
                b.extend(encode_tal(a.onset_s + sub, a.duration_s, &[a.text.as_str()]));
            }
            b
        })
        .collect();
    let annot_samples = if plus {
        let max = tal_bytes.iter().map(Vec::len).max().unwrap_or(0).max(if spec.record_count == 0 { 0 } else { 16 });
        max.div_ceil(bps).max(1)
    } else {
        0
    };
    let mut signals = spec.signals.clone();
    if plus {
        let (dmin, dmax) = spec.format.digital_limits();
        signals.push(SignalHeader {
            label: if spec.format.is_bdf() { "BDF Annotations" } else { "EDF Annotations" }.into(),
            transducer: String::new(),
            physical_dimension: String::new(),
            physical_min: -1.0,
            physical_max: 1.0,
            digital_min: dmin,
            digital_max: dmax,
            prefilter: String::new(),
            samples_per_record: annot_samples,
            reserved: String::new(),
            is_annotation: true,
        });
    }
    let tmp = path.with_extension("brainlens-partial");
    let result = (|| -> Result<(), SignalError> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp).map_err(io(&tmp.display(), "create"))?);
        w.write_all(&header_bytes(spec, &signals)).map_err(io(&tmp.display(), "write"))?;
        let ordinary = spec.signals.len();
        let mut bufs: Vec<Vec<i32>> = vec![Vec::new(); ordinary];
        let mut rec = Vec::new();
        for r in 0..spec.record_count {
            bufs.iter_mut().for_each(Vec::clear);
            fill(r, &mut bufs)?;
            rec.clear();
            for (s, (sig, data)) in spec.signals.iter().zip(&bufs).enumerate() {
                if data.len() != sig.samples_per_record {
                    return Err(invalid!(
                        "record {r}, signal {s} '{}': {} samples, expected {}",
                        sig.label,
                        data.len(),
                        sig.samples_per_record
                    ));
                }
                encode_samples(data, bps, sig, &mut rec)?;
            }
            if plus {
                let mut t = tal_bytes[r as usize].clone();
                t.resize(annot_samples * bps, 0);
                rec.extend_from_slice(&t);
            }
            w.write_all(&rec).map_err(io(&tmp.display(), "write"))?;
        }
        w.flush().map_err(io(&tmp.display(), "write"))?;
        Ok(())
    })();
    match result {
        Ok(()) => std::fs::rename(&tmp, path).map_err(io(&path.display(), "rename the finished file into place")),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e.context(format!("writing {}", path.display())))
        }
    }
}

/// Assigns each annotation to a data record, spread evenly so no record's annotation signal grows large.
fn distribute_annotations(spec: &WriteSpec) -> Vec<Vec<&Annotation>> {
    let n = spec.record_count as usize;
    let mut out: Vec<Vec<&Annotation>> = vec![Vec::new(); n];
    if n == 0 || !spec.format.is_plus() {
        return out;
    }
    let total = spec.annotations.len();
    for (i, a) in spec.annotations.iter().enumerate() {
        out[i * n / total.max(1)].push(a);
    }
    out
}

fn encode_samples(data: &[i32], bps: usize, sig: &SignalHeader, out: &mut Vec<u8>) -> Result<(), SignalError> {
    // Samples outside the declared digital range are common in real files and are kept as they are;
    // only what the 16/24-bit storage cannot hold is refused.
    let limit = if bps == 2 { 1i32 << 15 } else { 1i32 << 23 };
    for &v in data {
        if v < -limit || v >= limit {
            return Err(invalid!("signal '{}': digital value {v} does not fit in {} bits", sig.label, bps * 8));
        }
        out.extend_from_slice(&v.to_le_bytes()[..bps]);
    }
    Ok(())
}

/// The header block for `signals` (annotation signal included).
fn header_bytes(spec: &WriteSpec, signals: &[SignalHeader]) -> Vec<u8> {
    let ns = signals.len();
    let mut h = Vec::with_capacity(256 * (ns + 1));
    let st = &spec.start;
    if spec.format.is_bdf() {
        h.push(0xff);
        h.extend_from_slice(b"BIOSEMI");
    } else {
        put(&mut h, "0", 8);
    }
    const MONTHS: [&str; 12] = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
    let (patient, recording) = if spec.format.is_plus() {
        let p = if spec.patient.trim().is_empty() { "X X X X".to_string() } else { spec.patient.clone() };
        let r = if spec.recording.starts_with("Startdate") {
            spec.recording.clone()
        } else {
            let month = MONTHS[(st.month.clamp(1, 12) - 1) as usize];
            let rest = if spec.recording.trim().is_empty() { "X X X".to_string() } else { spec.recording.clone() };
            format!("Startdate {:02}-{month}-{:04} {rest}", st.day, st.year)
        };
        (p, r)
    } else {
        (spec.patient.clone(), spec.recording.clone())
    };
    put(&mut h, &patient, 80);
    put(&mut h, &recording, 80);
    put(&mut h, &format!("{:02}.{:02}.{:02}", st.day, st.month, st.year.rem_euclid(100)), 8);
    put(&mut h, &format!("{:02}.{:02}.{:02}", st.hour, st.minute, st.second), 8);
    put(&mut h, &(256 * (ns + 1)).to_string(), 8);
    let reserved = match spec.format {
        EdfFormat::Edf => "",
        EdfFormat::Bdf => "24BIT",
        f => f.name(),
    };
    put(&mut h, reserved, 44);
    put(&mut h, &spec.record_count.to_string(), 8);
    put(&mut h, &format_number(spec.record_duration, 8), 8);
    put(&mut h, &ns.to_string(), 4);
    let fields: [(usize, fn(&SignalHeader) -> String); 10] = [
        (16, |s| s.label.clone()),
        (80, |s| s.transducer.clone()),
        (8, |s| s.physical_dimension.clone()),
        (8, |s| format_number(s.physical_min, 8)),
        (8, |s| format_number(s.physical_max, 8)),
        (8, |s| s.digital_min.to_string()),
        (8, |s| s.digital_max.to_string()),
        (80, |s| s.prefilter.clone()),
        (8, |s| s.samples_per_record.to_string()),
        (32, |s| s.reserved.clone()),
    ];
    for (width, get) in fields {
        for s in signals {
            put(&mut h, &get(s), width);
        }
    }
    h
}

/// Appends `text` as a space-padded field of `width` bytes; non-ASCII characters become '?' (EDF header
/// fields are ASCII), overlong text is cut.
fn put(out: &mut Vec<u8>, text: &str, width: usize) {
    let mut bytes: Vec<u8> =
        text.chars().map(|c| if c.is_ascii() && !c.is_ascii_control() { c as u8 } else { b'?' }).collect();
    bytes.resize(width, b' ');
    out.extend_from_slice(&bytes);
}

/// Writes one channel of physical values as a 16-bit EDF+C file with 1-s records (the physical range is the
/// data's range with a small margin; a last partial second is dropped). Deterministic: the start date is
/// fixed, so the same samples give the same bytes.
pub fn write_channel_edf(
    path: &Path,
    label: &str,
    unit: &str,
    fs: f64,
    values: &[f64],
    note: &str,
) -> Result<(), SignalError> {
    let spr = fs.round() as usize;
    if spr == 0 || (fs - spr as f64).abs() > 1e-9 {
        return Err(invalid!(
            "{}: the sampling rate {fs} Hz is not a whole number of samples per second",
            path.display()
        ));
    }
    let records = values.len() / spr;
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    if !lo.is_finite() || !hi.is_finite() || records == 0 {
        return Err(invalid!("{}: no finite samples to write", path.display()));
    }
    let margin = ((hi - lo) * 1e-3).max(1e-6);
    let sig = SignalHeader {
        label: label.into(),
        transducer: String::new(),
        physical_dimension: unit.into(),
        physical_min: lo - margin,
        physical_max: hi + margin,
        digital_min: -32768,
        digital_max: 32767,
        prefilter: String::new(),
        samples_per_record: spr,
        reserved: String::new(),
        is_annotation: false,
    };
    // The header's 8-character fields round the range: quantise against what a reader will see.
    let (pmin, pmax): (f64, f64) = (
        super::fields::format_number(sig.physical_min, 8)
            .trim()
            .parse()
            .map_err(|e| invalid!("physical minimum: {e}"))?,
        super::fields::format_number(sig.physical_max, 8)
            .trim()
            .parse()
            .map_err(|e| invalid!("physical maximum: {e}"))?,
    );
    let gain = (pmax - pmin) / 65535.0;
    let spec = WriteSpec {
        format: EdfFormat::EdfPlusC,
        patient: "X X X X".into(),
        recording: note.into(),
        start: StartTime { year: 2000, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecond: 0.0 },
        record_duration: 1.0,
        record_count: records as u64,
        signals: vec![SignalHeader { physical_min: pmin, physical_max: pmax, ..sig }],
        annotations: vec![],
        record_onsets: None,
    };
    write_edf(path, &spec, |r, bufs| {
        let s = r as usize * spr;
        bufs[0].extend(
            values[s..s + spr].iter().map(|v| (((v - pmin) / gain).round() as i64 - 32768).clamp(-32768, 32767) as i32),
        );
        Ok(())
    })
}
