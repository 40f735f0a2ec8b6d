//! The lenient open (repairs), clear errors for unrecoverable files, EDF+D, and lossless round trips.
//! Every file here is written by BrainLens's own writer (synthetic signals) or is a fixture.

use brainlens::signal::Recording;
use brainlens::signal::edf::save::save_with_annotations;
use brainlens::signal::edf::{Annotation, EdfFile, EdfFormat, SignalHeader, StartTime, WriteSpec, write_edf};
use std::path::{Path, PathBuf};

fn signal(label: &str, spr: usize) -> SignalHeader {
    SignalHeader {
        label: label.into(),
        transducer: "AgAgCl electrode".into(),
        physical_dimension: "uV".into(),
        physical_min: -3276.8,
        physical_max: 3276.7,
        digital_min: -32768,
        digital_max: 32767,
        prefilter: "HP:0.1Hz LP:75Hz".into(),
        samples_per_record: spr,
        reserved: String::new(),
        is_annotation: false,
    }
}

fn spec(format: EdfFormat, records: u64, duration: f64, spr: usize) -> WriteSpec {
    WriteSpec {
        format,
        patient: "X X X X".into(),
        recording: "SYNTHETIC".into(),
        start: StartTime { year: 2024, month: 3, day: 7, hour: 22, minute: 15, second: 0, subsecond: 0.0 },
        record_duration: duration,
        record_count: records,
        signals: vec![signal("Fz", spr), signal("Cz", spr / 2)],
        annotations: vec![
            Annotation { onset_s: 0.5, duration_s: Some(30.0), text: "Sleep stage W".into() },
            Annotation { onset_s: 2.25, duration_s: None, text: "Lights off".into() },
        ],
        record_onsets: None,
    }
}

/// Digital sample `i` of signal `s` in record `r`: a deterministic synthetic pattern.
fn value(r: u64, s: usize, i: usize) -> i32 {
    (((r as i64 * 7919 + s as i64 * 104729 + i as i64 * 31) % 65536) - 32768) as i32
}

fn write(dir: &Path, name: &str, spec: &WriteSpec) -> PathBuf {
    let path = dir.join(name);
    write_edf(&path, spec, |r, bufs| {
        for (s, b) in bufs.iter_mut().enumerate() {
            let n = spec.signals[s].samples_per_record;
            b.extend((0..n).map(|i| value(r, s, i).clamp(-(1 << 15), (1 << 15) - 1)));
        }
        Ok(())
    })
    .unwrap();
    path
}

fn patch(path: &Path, offset: usize, bytes: &[u8]) {
    let mut data = std::fs::read(path).unwrap();
    data[offset..offset + bytes.len()].copy_from_slice(bytes);
    std::fs::write(path, data).unwrap();
}

fn field(text: &str, width: usize) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    b.resize(width, b' ');
    b
}

fn repairs_of(path: &Path) -> Vec<String> {
    let rec = Recording::open(path).unwrap_or_else(|e| panic!("should open with repairs: {e}"));
    rec.annotations().unwrap();
    rec.repairs().iter().map(|r| r.to_string()).collect()
}

#[test]
fn a_clean_file_has_no_repairs() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "clean.edf", &spec(EdfFormat::EdfPlusC, 10, 1.0, 256));
    assert!(repairs_of(&p).is_empty(), "{:?}", repairs_of(&p));
}

#[test]
fn wrong_record_count_and_partial_record_are_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "count.edf", &spec(EdfFormat::EdfPlusC, 10, 1.0, 256));
    patch(&p, 236, &field("999", 8));
    let mut data = std::fs::read(&p).unwrap();
    data.extend([1, 2, 3]);
    std::fs::write(&p, data).unwrap();
    let r = repairs_of(&p);
    assert!(
        r.iter().any(|x| x.contains("byte 236") && x.contains("999") && x.contains("10 complete records")),
        "{r:?}"
    );
    assert!(r.iter().any(|x| x.contains("trailing partial record of 3 bytes")), "{r:?}");
    assert_eq!(Recording::open(&p).unwrap().header().unwrap().record_count, 10);

    patch(&p, 236, &field("-1", 8));
    let r = repairs_of(&p);
    assert!(r.iter().any(|x| x.contains("-1 (file not closed)")), "{r:?}");
}

#[test]
fn bad_text_date_and_ranges_are_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "fields.edf", &spec(EdfFormat::EdfPlusC, 4, 1.0, 256));
    patch(&p, 8, "Müller\0".as_bytes());
    patch(&p, 168, b"07/03/24");
    let ns = 3;
    // Signal 0: digital maximum equal to its minimum; signal 1: blank physical dimension.
    patch(&p, 256 + ns * (16 + 80 + 8 + 8 + 8 + 8), &field("-32768", 8));
    patch(&p, 256 + ns * (16 + 80) + 8, &field("", 8));
    let r = repairs_of(&p);
    let has = |needle: &str| r.iter().any(|x| x.contains(needle));
    assert!(has("byte 8 (patient): non-ASCII bytes decoded as UTF-8"), "{r:?}");
    assert!(has("'07/03/24' is not dd.mm.yy; read as 2024-03-07"), "{r:?}");
    assert!(has("digital minimum = maximum = -32768"), "{r:?}");
    assert!(has("signal 2 'Cz': blank; treated as dimensionless"), "{r:?}");
    let rec = Recording::open(&p).unwrap();
    assert_eq!(rec.header().unwrap().patient, "Müller");
}

#[test]
fn unrecoverable_files_name_the_field_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.edf", &spec(EdfFormat::EdfPlusC, 4, 1.0, 256));
    let cases: Vec<(&str, Box<dyn Fn(&Path)>, &str)> = vec![
        ("short.edf", Box::new(|p: &Path| std::fs::write(p, b"0       tiny").unwrap()), "needs at least 256"),
        (
            "zero.edf",
            Box::new(|p: &Path| patch(p, 252, b"0   ")),
            "header byte 252 (number of signals): 0 is not in 1..=4096",
        ),
        ("absurd.edf", Box::new(|p: &Path| patch(p, 252, b"9999")), "9999 is not in 1..=4096"),
        ("words.edf", Box::new(|p: &Path| patch(p, 252, b"abc ")), "'abc' is not a number"),
        (
            "truncated.edf",
            Box::new(|p: &Path| {
                let d = std::fs::read(p).unwrap();
                std::fs::write(p, &d[..600]).unwrap();
            }),
            "3 signals need a 1024-byte header but the file holds 600 bytes",
        ),
        ("negative.edf", Box::new(|p: &Path| patch(p, 256 + 3 * 216, &field("-5", 8))), "'Fz': -5 is negative"),
        (
            "duration.edf",
            Box::new(|p: &Path| patch(p, 244, &field("-1", 8))),
            "header byte 244 (duration of a data record): -1 is negative",
        ),
        (
            "records.edf",
            Box::new(|p: &Path| patch(p, 236, &field("-7", 8))),
            "header byte 236 (number of data records): -7 is negative",
        ),
    ];
    for (name, corrupt, want) in cases {
        let p = dir.path().join(name);
        std::fs::copy(&base, &p).unwrap();
        corrupt(&p);
        let err = Recording::open(&p).expect_err(name).to_string();
        assert!(err.starts_with(&p.display().to_string()), "{err}");
        assert!(err.contains(want), "{name}: {err}");
    }
}

#[test]
fn edf_plus_d_keeps_gaps_explicit() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = spec(EdfFormat::EdfPlusD, 5, 1.0, 100);
    s.record_onsets = Some(vec![0.0, 1.0, 2.0, 10.0, 11.0]);
    let p = write(dir.path(), "gaps.edf", &s);
    let rec = Recording::open(&p).unwrap();
    assert_eq!(rec.header().unwrap().format, EdfFormat::EdfPlusD);
    assert_eq!(rec.duration_s().unwrap(), 12.0);
    let data = rec.read(&[0], 0.0, f64::INFINITY).unwrap().remove(0);
    assert_eq!(data.values.len(), 500);
    assert_eq!(data.segments.len(), 2);
    assert_eq!((data.segments[0].onset_s, data.segments[0].n_samples), (0.0, 300));
    assert_eq!((data.segments[1].onset_s, data.segments[1].n_samples), (10.0, 200));
    // A window inside the gap holds nothing; one across it starts at the next record.
    assert!(rec.read(&[0], 4.0, 3.0).unwrap()[0].values.is_empty());
    let w = rec.read(&[0], 2.5, 8.0).unwrap().remove(0);
    assert_eq!(w.segments.iter().map(|s| (s.onset_s, s.n_samples)).collect::<Vec<_>>(), vec![(2.5, 50), (10.0, 50)]);
    assert_eq!(rec.annotations().unwrap().len(), 2);
}

#[test]
fn round_trip_is_lossless_at_digital_level() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg");
    let mut d_spec = spec(EdfFormat::BdfPlusD, 3, 2.0, 64);
    d_spec.record_onsets = Some(vec![0.0, 5.0, 7.0]);
    let written = write(dir.path(), "d.bdf", &d_spec);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "edf" || e == "bdf"))
        .collect();
    inputs.push(written);
    for src in inputs {
        let rec = Recording::open(&src).unwrap();
        let ann = rec.annotations().unwrap().to_vec();
        let out = dir.path().join(format!("copy_{}", src.file_name().unwrap().to_string_lossy()));
        save_with_annotations(&rec, &ann, &out).unwrap();
        let (a, b) = (EdfFile::open(&src).unwrap(), EdfFile::open(&out).unwrap());
        let copy = Recording::open(&out).unwrap();
        assert_eq!(copy.channels().len(), rec.channels().len());
        assert_eq!(copy.header().unwrap().start, rec.header().unwrap().start, "{}", src.display());
        // Onsets are stored as text relative to the integer-second start: equal to 1 ns after the round trip.
        let copied = copy.annotations().unwrap();
        assert_eq!(copied.len(), ann.len(), "{}", src.display());
        for (x, y) in copied.iter().zip(&ann) {
            assert_eq!((&x.text, x.duration_s), (&y.text, y.duration_s));
            assert!((x.onset_s - y.onset_s).abs() < 1e-9, "{}: {} vs {}", src.display(), x.onset_s, y.onset_s);
        }
        if rec.header().unwrap().format.is_discontinuous() {
            assert_eq!(
                copy.edf().unwrap().scan().unwrap().record_onsets,
                rec.edf().unwrap().scan().unwrap().record_onsets
            );
        }
        for (ca, cb) in rec.channels().iter().zip(copy.channels()) {
            assert_eq!(a.header().signals[ca.signal], b.header().signals[cb.signal], "{}", src.display());
            for r in 0..rec.header().unwrap().record_count {
                let (mut x, mut y) = (Vec::new(), Vec::new());
                a.read_digital(ca.signal, r, &mut x).unwrap();
                b.read_digital(cb.signal, r, &mut y).unwrap();
                assert_eq!(x, y, "{} record {r}", src.display());
            }
        }
        assert!(save_with_annotations(&rec, &ann, &src).is_err(), "never overwrites the source");
    }
}

#[test]
fn a_third_of_a_second_record_writes_and_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "third.edf", &spec(EdfFormat::EdfPlusC, 9, 1.0 / 3.0, 100));
    let rec = Recording::open(&p).unwrap();
    assert_eq!(rec.header().unwrap().record_duration, 0.333333);
    assert!((rec.channels()[0].sample_rate - 300.0).abs() < 1e-3);
    assert_eq!(rec.read(&[0], 0.0, f64::INFINITY).unwrap()[0].values.len(), 900);
}

/// Corrupts fixtures byte by byte and truncates them at many lengths: opening and reading everything must
/// return a value or an error, never panic.
#[test]
fn corrupted_and_truncated_fixtures_never_panic() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg");
    let dir = tempfile::tempdir().unwrap();
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["test_subsecond.edf", "test_generator.bdf", "test_legacy.edf"] {
        let orig = std::fs::read(fixtures.join(name)).unwrap();
        for trial in 0..60 {
            let mut d = orig.clone();
            let header_len = 256
                * (1 + orig[252..256]
                    .iter()
                    .filter(|b| b.is_ascii_digit())
                    .fold(0usize, |a, b| a * 10 + (b - b'0') as usize));
            for _ in 0..(1 + next() % 8) {
                let i = (next() as usize) % header_len.min(d.len());
                d[i] = next() as u8;
            }
            if trial % 3 == 0 {
                d.truncate((next() as usize) % d.len());
            }
            let p = dir.path().join(format!("t{trial}_{name}"));
            std::fs::write(&p, &d).unwrap();
            if let Ok(rec) = Recording::open(&p) {
                let _ = rec.annotations();
                let all: Vec<usize> = (0..rec.channels().len()).collect();
                let _ = rec.read(&all, 0.0, f64::INFINITY);
                let _ = rec.read(&all, -5.0, 3.0);
            }
        }
    }
}

/// A long synthetic night (3 h): the last page reads the right samples and the overview pyramid holds
/// every record's true extremes.
#[test]
fn long_file_last_page_and_overview() {
    use brainlens::signal::pyramid::Pyramid;
    use brainlens::util::cancel::Cancel;
    use std::sync::atomic::AtomicU64;
    let cancelled = || {
        let c = Cancel::default();
        c.cancel();
        c
    };
    let dir = tempfile::tempdir().unwrap();
    let records = 3 * 3600;
    let mut s = spec(EdfFormat::EdfPlusC, records, 1.0, 100);
    s.annotations.clear();
    let p = write(dir.path(), "long.edf", &s);
    let rec = Recording::open(&p).unwrap();
    let sig = &rec.header().unwrap().signals[0];
    let last = rec.read(&[0], records as f64 - 30.0, 30.0).unwrap().remove(0);
    assert_eq!(last.values.len(), 3000);
    let r = records - 30;
    assert_eq!(last.values[7], sig.to_physical(value(r, 0, 7)));
    let progress = AtomicU64::new(0);
    let pyr = Pyramid::build(&rec, &progress, &Cancel::default()).unwrap().unwrap();
    assert_eq!(progress.into_inner(), records);
    assert_eq!(pyr.extremes[0].len(), records as usize);
    let want_lo = (0..100).map(|i| sig.to_physical(value(r, 0, i))).fold(f64::INFINITY, f64::min);
    assert!((pyr.extremes[0][r as usize].0 as f64 - want_lo).abs() < 1e-2);
    let env = pyr.envelope(0, 0.0, records as f64, 1000);
    assert!(env.iter().all(Option::is_some));
    assert!(Pyramid::build(&rec, &AtomicU64::new(0), &cancelled()).unwrap().is_none(), "cancel stops the build");
}
