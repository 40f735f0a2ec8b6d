//! The EDF/BDF header: the 256-byte fixed part and 256 bytes per signal (EDF spec 1992, EDF+ spec 2003,
//! BioSemi BDF). Recoverable violations are repaired and reported; the rest are errors naming the field.

use super::error::{EdfError, Repair};
use super::fields::{FieldReader, edfplus_startdate, full_year, split_triplet};
use serde::Serialize;
use std::path::Path;

/// Largest number of signals accepted; more is treated as a corrupt field, not a recording.
pub const MAX_SIGNALS: i64 = 4096;

/// The file format variant, as `brainlens info` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EdfFormat {
    #[serde(rename = "EDF")]
    Edf,
    #[serde(rename = "EDF+C")]
    EdfPlusC,
    #[serde(rename = "EDF+D")]
    EdfPlusD,
    #[serde(rename = "BDF")]
    Bdf,
    #[serde(rename = "BDF+C")]
    BdfPlusC,
    #[serde(rename = "BDF+D")]
    BdfPlusD,
}

impl EdfFormat {
    /// The name users know ("EDF+C").
    pub fn name(self) -> &'static str {
        match self {
            Self::Edf => "EDF",
            Self::EdfPlusC => "EDF+C",
            Self::EdfPlusD => "EDF+D",
            Self::Bdf => "BDF",
            Self::BdfPlusC => "BDF+C",
            Self::BdfPlusD => "BDF+D",
        }
    }

    /// True for the 24-bit BioSemi variants.
    pub fn is_bdf(self) -> bool {
        matches!(self, Self::Bdf | Self::BdfPlusC | Self::BdfPlusD)
    }

    /// True for EDF+/BDF+ (time-keeping annotations in every record).
    pub fn is_plus(self) -> bool {
        !matches!(self, Self::Edf | Self::Bdf)
    }

    /// True for the discontinuous variants, whose records carry their own onsets.
    pub fn is_discontinuous(self) -> bool {
        matches!(self, Self::EdfPlusD | Self::BdfPlusD)
    }

    /// Bytes per stored sample: 2 for EDF, 3 for BDF.
    pub fn bytes_per_sample(self) -> usize {
        if self.is_bdf() { 3 } else { 2 }
    }

    /// The digital range a sample can hold in this format.
    pub fn digital_limits(self) -> (i64, i64) {
        if self.is_bdf() { (-8_388_608, 8_388_607) } else { (-32_768, 32_767) }
    }
}

/// The header of one signal (channel or annotation signal).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignalHeader {
    pub label: String,
    pub transducer: String,
    pub physical_dimension: String,
    pub physical_min: f64,
    pub physical_max: f64,
    pub digital_min: i64,
    pub digital_max: i64,
    pub prefilter: String,
    pub samples_per_record: usize,
    pub reserved: String,
    /// "EDF Annotations" / "BDF Annotations": bytes hold TALs, not samples.
    pub is_annotation: bool,
}

impl SignalHeader {
    /// Physical units per digital step: (pmax − pmin) / (dmax − dmin).
    pub fn gain(&self) -> f64 {
        (self.physical_max - self.physical_min) / (self.digital_max - self.digital_min) as f64
    }

    /// Physical value of a digital value: (d − dmin)·gain + pmin, in f64.
    pub fn to_physical(&self, digital: i32) -> f64 {
        (digital as f64 - self.digital_min as f64) * self.gain() + self.physical_min
    }
}

/// Start of the recording as written in the header, plus the sub-second part from the first time-keeping
/// annotation (EDF+ spec section 2.2.4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StartTime {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// Fraction of a second in [0, 1).
    pub subsecond: f64,
}

impl StartTime {
    /// ISO 8601 with sub-seconds when present: "2011-05-30T12:00:00.5".
    pub fn iso8601(&self) -> String {
        let base = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        if self.subsecond > 0.0 {
            let frac = format!("{:.7}", self.subsecond);
            let frac = frac.trim_start_matches('0').trim_end_matches('0');
            format!("{base}{frac}")
        } else {
            base
        }
    }
}

/// The parsed, repaired header of a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Header {
    pub format: EdfFormat,
    pub patient: String,
    pub recording: String,
    pub start: StartTime,
    pub header_bytes: u64,
    /// Number of complete data records read (after repair).
    pub record_count: u64,
    pub record_duration: f64,
    pub reserved: String,
    pub signals: Vec<SignalHeader>,
}

impl Header {
    /// Bytes of one data record.
    pub fn record_bytes(&self) -> u64 {
        let samples: usize = self.signals.iter().map(|s| s.samples_per_record).sum();
        (samples * self.format.bytes_per_sample()) as u64
    }

    /// Byte offset of signal `index` inside a data record.
    pub fn signal_offset_in_record(&self, index: usize) -> u64 {
        let before: usize = self.signals[..index].iter().map(|s| s.samples_per_record).sum();
        (before * self.format.bytes_per_sample()) as u64
    }

    /// Parses the header from `fixed` (first 256 bytes) and `signal_bytes` (the next 256·ns) of a file
    /// of `file_len` bytes. `read_signals` is called with the signal count to fetch the signal part.
    pub fn parse(
        path: &Path,
        fixed: &[u8],
        file_len: u64,
        read_signals: impl FnOnce(usize) -> Result<Vec<u8>, EdfError>,
    ) -> Result<(Header, Vec<Repair>), EdfError> {
        if fixed.len() < 256 {
            return Err(EdfError::file(
                path,
                "header",
                format!("file holds {} bytes; an EDF/BDF header needs at least 256", fixed.len()),
            ));
        }
        let mut f = FieldReader::new(path, fixed);
        let is_bdf_version = check_version(&mut f, fixed);
        let patient = f.text(8, 80, "patient");
        let recording = f.text(88, 80, "recording");
        let date_text = f.text(168, 8, "start date");
        let time_text = f.text(176, 8, "start time");
        let header_bytes_field = f.integer(184, 8, "header bytes");
        let reserved = f.text(192, 44, "reserved");
        let ns = f.integer(252, 4, "number of signals")?;
        if ns <= 0 || ns > MAX_SIGNALS {
            return Err(EdfError::at(path, 252, "number of signals", format!("{ns} is not in 1..={MAX_SIGNALS}")));
        }
        let ns = ns as usize;
        let header_bytes = 256 * (ns as u64 + 1);
        if file_len < header_bytes {
            return Err(EdfError::at(
                path,
                252,
                "number of signals",
                format!("{ns} signals need a {header_bytes}-byte header but the file holds {file_len} bytes"),
            ));
        }
        match header_bytes_field {
            Ok(v) if v as u64 == header_bytes => {}
            Ok(v) => f.repairs.push(Repair::at(
                184,
                "header bytes",
                format!("'{v}' but {ns} signals make {header_bytes}; using {header_bytes}"),
            )),
            Err(e) => f.repairs.push(Repair::at(184, "header bytes", format!("{}; using {header_bytes}", e.problem))),
        }

        let mut format = format_of(is_bdf_version, &reserved);

        let sig_bytes = read_signals(ns)?;
        let (signals, sig_repairs) = parse_signals(path, &sig_bytes, ns, format)?;
        f.repairs.extend(sig_repairs);

        if format.is_plus() && !signals.iter().any(|s| s.is_annotation) {
            f.repairs.push(Repair::at(
                192,
                "reserved",
                format!("'{}' but no annotation signal; read as plain", format.name()),
            ));
            format = if format.is_bdf() { EdfFormat::Bdf } else { EdfFormat::Edf };
        }

        let record_duration = f.number(244, 8, "duration of a data record")?;
        if record_duration < 0.0 {
            return Err(EdfError::at(path, 244, "duration of a data record", format!("{record_duration} is negative")));
        }
        let has_ordinary = signals.iter().any(|s| !s.is_annotation && s.samples_per_record > 0);
        if record_duration == 0.0 && has_ordinary {
            return Err(EdfError::at(
                path,
                244,
                "duration of a data record",
                "0 although the file has ordinary signals with samples",
            ));
        }
        let samples: usize = signals.iter().map(|s| s.samples_per_record).sum();
        let record_bytes = (samples * format.bytes_per_sample()) as u64;
        if record_bytes == 0 {
            return Err(EdfError::at(
                path,
                256 + 216 * ns as u64,
                "samples per record",
                "every signal has 0 samples per record",
            ));
        }
        let available = (file_len - header_bytes) / record_bytes;
        let trailing = (file_len - header_bytes) % record_bytes;
        let record_count = record_count(&mut f, path, available)?;
        if trailing != 0 && record_count == available {
            f.repairs
                .push(Repair::file("data records", format!("trailing partial record of {trailing} bytes ignored")));
        }

        let start = parse_start(&mut f, &date_text, &time_text, &recording, format);
        let header = Header {
            format,
            patient,
            recording,
            start,
            header_bytes,
            record_count,
            record_duration,
            reserved,
            signals,
        };
        Ok((header, f.repairs))
    }
}

/// Reads the version field (EDF "0", BDF 0xFF "BIOSEMI"), noting a repair when it is off; true for BDF.
fn check_version(f: &mut FieldReader, fixed: &[u8]) -> bool {
    let is_bdf_version = fixed[0] == 0xff;
    if is_bdf_version {
        if &fixed[1..8] != b"BIOSEMI" {
            f.repairs.push(Repair::at(1, "version", "BDF marker byte 0xFF not followed by 'BIOSEMI'; read as BDF"));
        }
    } else {
        let version = f.text(0, 8, "version");
        if version.trim() != "0" {
            f.repairs.push(Repair::at(0, "version", format!("'{version}' instead of '0'; read as EDF")));
        }
    }
    is_bdf_version
}

/// The format from the version and the reserved field (EDF+C/D, BDF+C/D).
fn format_of(is_bdf_version: bool, reserved: &str) -> EdfFormat {
    let plus = ["EDF+C", "EDF+D", "BDF+C", "BDF+D"].iter().any(|p| reserved.starts_with(p));
    let discontinuous = plus && reserved.as_bytes()[4] == b'D';
    match (is_bdf_version, plus, discontinuous) {
        (false, false, _) => EdfFormat::Edf,
        (false, true, false) => EdfFormat::EdfPlusC,
        (false, true, true) => EdfFormat::EdfPlusD,
        (true, false, _) => EdfFormat::Bdf,
        (true, true, false) => EdfFormat::BdfPlusC,
        (true, true, true) => EdfFormat::BdfPlusD,
    }
}

/// The number of data records to read: the declared one, or what the file holds when the field is -1,
/// unreadable or larger than the file (each noted as a repair).
fn record_count(f: &mut FieldReader, path: &Path, available: u64) -> Result<u64, EdfError> {
    Ok(match f.integer(236, 8, "number of data records") {
        Ok(n) if n < -1 => {
            return Err(EdfError::at(path, 236, "number of data records", format!("{n} is negative")));
        }
        Ok(-1) => {
            f.repairs.push(Repair::at(
                236,
                "number of data records",
                format!("-1 (file not closed); the file holds {available} complete records"),
            ));
            available
        }
        Ok(n) if n as u64 > available => {
            f.repairs.push(Repair::at(
                236,
                "number of data records",
                format!("{n} but the file holds {available} complete records; reading {available}"),
            ));
            available
        }
        Ok(n) if (n as u64) < available => {
            f.repairs.push(Repair::at(
                236,
                "number of data records",
                format!("{n} but the file holds {available} complete records; reading the {n} declared"),
            ));
            n as u64
        }
        Ok(n) => n as u64,
        Err(e) => {
            f.repairs.push(Repair::at(
                236,
                "number of data records",
                format!("{}; the file holds {available} complete records", e.problem),
            ));
            available
        }
    })
}

/// Parses the 256·ns bytes of signal headers. Offsets in errors are file offsets (256 + field offset).
fn parse_signals(
    path: &Path,
    bytes: &[u8],
    ns: usize,
    format: EdfFormat,
) -> Result<(Vec<SignalHeader>, Vec<Repair>), EdfError> {
    // Field widths in the order the spec stores them, each block holding ns entries.
    const WIDTHS: [usize; 10] = [16, 80, 8, 8, 8, 8, 8, 80, 8, 32];
    let mut starts = [0usize; 10];
    let mut acc = 0;
    for (s, w) in starts.iter_mut().zip(WIDTHS) {
        *s = acc;
        acc += w * ns;
    }
    // A reader over a buffer that starts at file offset 256: pad the front so offsets are file offsets.
    let mut buf = vec![b' '; 256];
    buf.extend_from_slice(bytes);
    let mut f = FieldReader::new(path, &buf);
    let at = |field: usize, i: usize| 256 + starts[field] + i * WIDTHS[field];
    let (lim_lo, lim_hi) = format.digital_limits();
    let mut signals = Vec::with_capacity(ns);
    for i in 0..ns {
        let label = f.text(at(0, i), 16, "label").trim().to_string();
        let is_annotation = label == "EDF Annotations" || label == "BDF Annotations";
        let transducer = f.text(at(1, i), 80, "transducer").trim().to_string();
        let physical_dimension = f.text(at(2, i), 8, "physical dimension").trim().to_string();
        let spr_off = at(8, i);
        let spr = f.integer(spr_off, 8, "samples per record")?;
        if spr < 0 {
            return Err(EdfError::at(
                path,
                spr_off as u64,
                "samples per record",
                format!("signal {} '{label}': {spr} is negative", i + 1),
            ));
        }
        let prefilter = f.text(at(7, i), 80, "prefilter").trim().to_string();
        let reserved = f.text(at(9, i), 32, "signal reserved").trim().to_string();
        let (mut pmin, mut pmax, mut dmin, mut dmax) = (-1.0, 1.0, lim_lo, lim_hi);
        if is_annotation {
            // Annotation signals carry bytes; their ranges are irrelevant and often blank.
            let _ = (f.number(at(3, i), 8, "physical minimum"), f.number(at(4, i), 8, "physical maximum"));
        } else {
            pmin = f.number(at(3, i), 8, "physical minimum")?;
            pmax = f.number(at(4, i), 8, "physical maximum")?;
            dmin = f.integer(at(5, i), 8, "digital minimum")?;
            dmax = f.integer(at(6, i), 8, "digital maximum")?;
            if dmin == dmax {
                f.repairs.push(Repair::at(at(5, i) as u64, "digital minimum", format!(
                    "signal {} '{label}': digital minimum = maximum = {dmin}, scaling undefined; using the format's full range {lim_lo}..{lim_hi}", i + 1)));
                (dmin, dmax) = (lim_lo, lim_hi);
            }
            if pmin == pmax {
                f.repairs.push(Repair::at(
                    at(3, i) as u64,
                    "physical minimum",
                    format!(
                        "signal {} '{label}': physical minimum = maximum = {pmin}; every sample reads as {pmin}",
                        i + 1
                    ),
                ));
            }
            if physical_dimension.is_empty() {
                f.repairs.push(Repair::at(
                    at(2, i) as u64,
                    "physical dimension",
                    format!("signal {} '{label}': blank; treated as dimensionless", i + 1),
                ));
            }
        }
        signals.push(SignalHeader {
            label,
            transducer,
            physical_dimension,
            physical_min: pmin,
            physical_max: pmax,
            digital_min: dmin,
            digital_max: dmax,
            prefilter,
            samples_per_record: spr as usize,
            reserved,
            is_annotation,
        });
    }
    Ok((signals, f.repairs))
}

/// Start date and time; the EDF+ "Startdate" gives the four-digit year when present.
fn parse_start(f: &mut FieldReader, date: &str, time: &str, recording: &str, format: EdfFormat) -> StartTime {
    let (mut year, mut month, mut day) = (1985, 1, 1);
    match split_triplet(date) {
        Some(([d, m, y], standard)) if (1..=31).contains(&d) && (1..=12).contains(&m) => {
            (year, month, day) = (full_year(y), m, d);
            if !standard {
                f.repairs.push(Repair::at(
                    168,
                    "start date",
                    format!("'{date}' is not dd.mm.yy; read as {year:04}-{month:02}-{day:02}"),
                ));
            }
        }
        _ => f.repairs.push(Repair::at(168, "start date", format!("'{date}' is not a date; using 1985-01-01"))),
    }
    if format.is_plus()
        && let Some((y, m, d)) = edfplus_startdate(recording)
        && m == month
        && d == day
    {
        year = y;
    }
    let (mut hour, mut minute, mut second) = (0, 0, 0);
    match split_triplet(time) {
        Some(([h, m, s], standard)) if h < 24 && m < 60 && s < 60 => {
            (hour, minute, second) = (h, m, s);
            if !standard {
                f.repairs.push(Repair::at(
                    176,
                    "start time",
                    format!("'{time}' is not hh.mm.ss; read as {h:02}:{m:02}:{s:02}"),
                ));
            }
        }
        _ => f.repairs.push(Repair::at(176, "start time", format!("'{time}' is not a time; using 00:00:00"))),
    }
    StartTime { year, month, day, hour, minute, second, subsecond: 0.0 }
}
