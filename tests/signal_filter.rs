//! FIR filtering against MNE 1.13.2 `mne.filter.filter_data(..., method='fir', phase='zero')` on the real
//! fixtures (tests/expected/filter_reference.npz, written by scripts/reference/filter_reference.py): the taps
//! of `create_filter` to 1e-12, and the filtered signal to 1e-6 relative (RMS of the difference / RMS of
//! MNE's output, over every third sample, which is what the reference keeps).

use brainlens::signal::Recording;
use brainlens::signal::filter::fir::{FirFilter, FirWindow};
use ndarray::Array1;
use ndarray_npy::NpzReader;
use std::path::Path;

const CASES: [(&str, &str, Option<f64>, Option<f64>); 6] = [
    ("test_subsecond.edf", "Fp1", Some(0.5), Some(40.0)),
    ("test_subsecond.edf", "Fp1", Some(1.0), None),
    ("test_subsecond.edf", "Fp1", None, Some(30.0)),
    ("mne_sample_eeg60.edf", "EEG 001", Some(0.5), Some(40.0)),
    ("mne_sample_eeg60.edf", "EEG 030", Some(1.0), Some(30.0)),
    ("mne_sample_eeg60.edf", "EOG 061", Some(0.1), None),
];

#[test]
fn fir_equals_mne_filter_data() {
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/filter_reference.npz").unwrap()).unwrap();
    for (k, (file, ch, lo, hi)) in CASES.iter().enumerate() {
        let rec = Recording::open(&Path::new("fixtures/eeg").join(file)).unwrap();
        let c = rec.channel_index(ch).unwrap();
        let d = rec.read(&[c], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0);
        let f = FirFilter::design(d.sample_rate, *lo, *hi, FirWindow::Hamming).unwrap();
        let taps: Array1<f64> = npz.by_name(&format!("case{k}_taps")).unwrap();
        assert_eq!(f.taps.len(), taps.len(), "case {k}: filter length");
        for (a, b) in f.taps.iter().zip(taps.iter()) {
            assert!((a - b).abs() < 1e-12, "case {k}: tap {a} vs {b}");
        }
        let y = f.apply(&d.values);
        let want: Array1<f64> = npz.by_name(&format!("case{k}")).unwrap();
        let got: Vec<f64> = y.iter().step_by(3).copied().collect();
        assert_eq!(got.len(), want.len());
        let diff = (got.iter().zip(want.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / got.len() as f64).sqrt();
        let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
        assert!(diff / rms < 1e-6, "case {k} {file} {ch} {lo:?}-{hi:?}: relative RMS difference {:e}", diff / rms);
    }
}

/// `brainlens filter --skip-by-annotation none` writes an EDF+ whose samples are MNE's straight-through
/// `filter_data` up to 16-bit quantisation, whose prefilter field names the band (read back by the Bench's
/// artifact check), and which keeps the annotations. By default (MNE's `raw.filter` default, checked against
/// MNE itself by scripts/reference/filter_skip_reference.py) the 0.024-s BAD_ACQ_SKIP at the end is left as
/// recorded.
#[test]
fn the_filter_command_writes_what_mne_computes() {
    let d = tempfile::tempdir().unwrap();
    let filtered = |skip: Option<&str>, name: &str| {
        let out = d.path().join(name);
        let mut args = vec!["filter", "fixtures/eeg/mne_sample_eeg60.edf", "--l-freq", "0.5", "--h-freq", "40"];
        if let Some(s) = skip {
            args.extend(["--skip-by-annotation", s]);
        }
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
            .args(args)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let last = |path: &Path| {
        let rec = Recording::open(path).unwrap();
        let c = rec.channel_index("EEG 001").unwrap();
        let d = rec.read(&[c], 23.976, 1.0).unwrap().remove(0);
        d.values
    };
    let source = last(Path::new("fixtures/eeg/mne_sample_eeg60.edf"));
    let by_default = last(&filtered(None, "default.edf"));
    assert_eq!(by_default.len(), 6);
    for (a, b) in by_default.iter().zip(&source) {
        assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "skipped samples left as recorded: {a} vs {b}");
    }
    let out = filtered(Some("none"), "filtered.edf");
    let rec = Recording::open(&out).unwrap();
    assert_eq!(rec.channels().len(), 61);
    assert_eq!(rec.annotations().unwrap().len(), 32);
    let c = rec.channel_index("EEG 001").unwrap();
    let y = rec.read(&[c], 0.0, 25.0).unwrap().remove(0).values;
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/filter_reference.npz").unwrap()).unwrap();
    let want: Array1<f64> = npz.by_name("case3").unwrap();
    let got: Vec<f64> = y.iter().step_by(3).copied().collect();
    let diff = (got.iter().zip(want.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / got.len() as f64).sqrt();
    let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
    // 16-bit samples over the filtered range: about 1e-4 of the RMS.
    assert!(diff / rms < 1e-3, "relative RMS difference {:e}", diff / rms);
    let art = brainlens::bench::signal_file::SignalFile::load(&out).unwrap();
    assert_eq!(art.bandpass, Some((0.5, 40.0)));
    // Refuses to overwrite its input.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["filter", out.to_str().unwrap(), "--h-freq", "30", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to overwrite"));
}

/// Zero-phase Butterworth (any order) and mains notch against scipy 1.17.1 `sosfiltfilt` of `butter(...,
/// output='sos')` and of stacked `iirnotch` sections (same reference file), 1e-6 relative RMS.
#[test]
fn iir_and_notch_equal_scipy() {
    use brainlens::signal::filter::butter::{butter_filtfilt, notch_filtfilt};
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/filter_reference.npz").unwrap()).unwrap();
    let read = |file: &str, ch: &str| {
        let rec = Recording::open(&Path::new("fixtures/eeg").join(file)).unwrap();
        let c = rec.channel_index(ch).unwrap();
        let d = rec.read(&[c], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0);
        (d.values, d.sample_rate)
    };
    let cases: [(&str, &str, usize, Option<f64>, Option<f64>); 4] = [
        ("test_subsecond.edf", "Fp1", 4, Some(0.5), Some(40.0)),
        ("test_subsecond.edf", "Fp1", 5, Some(1.0), None),
        ("mne_sample_eeg60.edf", "EEG 001", 2, None, Some(30.0)),
        ("mne_sample_eeg60.edf", "EEG 030", 3, Some(8.0), Some(12.0)),
    ];
    let check = |got: Vec<f64>, want: Array1<f64>, what: &str| {
        let got: Vec<f64> = got.iter().step_by(3).copied().collect();
        assert_eq!(got.len(), want.len());
        let diff = (got.iter().zip(want.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / got.len() as f64).sqrt();
        let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
        assert!(diff / rms < 1e-6, "{what}: relative RMS difference {:e}", diff / rms);
    };
    for (k, (file, ch, order, l, h)) in cases.iter().enumerate() {
        let (x, fs) = read(file, ch);
        check(
            butter_filtfilt(&x, fs, *l, *h, *order).unwrap(),
            npz.by_name(&format!("iir{k}")).unwrap(),
            &format!("iir case {k}"),
        );
    }
    let (x, fs) = read("mne_sample_eeg60.edf", "EEG 001");
    check(notch_filtfilt(&x, fs, 50.0, 30.0).unwrap(), npz.by_name("notch50").unwrap(), "notch 50 Hz + harmonics");
}

/// The agent tools' and the suite's views and the Recordings room's display filter split where MNE's
/// `raw.filter` splits: the 6 samples under the sample recording's BAD_ACQ_SKIP (23.976–24.0 s) stay as
/// recorded, while the samples before them are filtered.
#[test]
fn views_and_pages_leave_the_skipped_samples_as_recorded() {
    use brainlens::signal::filter::display::DisplayFilter;
    use brainlens::signal::montage::Derivation;
    use brainlens::signal::page::compute_page;
    use brainlens::signal::view::{Pick, View};
    let file = Path::new("fixtures/eeg/mne_sample_eeg60.edf");
    let v = View::load(file, Pick::Labels(&["EEG 001".to_string()])).unwrap();
    let n = v.n_times();
    assert_eq!(v.stretches, [0..n - 6]);
    let f = v.filter(Some(1.0), Some(40.0)).unwrap();
    assert_eq!(f.data[0][n - 6..], v.data[0][n - 6..]);
    assert!((f.data[0][n - 7] - v.data[0][n - 7]).abs() > 1e-7, "the sample before the skip is filtered");
    // Cropping keeps the split where it was.
    assert_eq!(v.crop(20.0, 30.0).unwrap().stretches, [0..994]);

    let rec = Recording::open(file).unwrap();
    let c = rec.channel_index("EEG 001").unwrap();
    let d = [Derivation { label: "EEG 001".into(), terms: vec![(c, 1.0)] }];
    let hp = DisplayFilter { highpass_hz: Some(1.0), ..Default::default() };
    let page = compute_page(&rec, &d, &hp, 20.0, 4.0).unwrap();
    let shown = &page[0].runs[0].values;
    let raw = rec.read(&[c], 20.0, 4.0).unwrap().remove(0).values;
    assert_eq!(shown.len(), raw.len());
    for (s, r) in shown[shown.len() - 6..].iter().zip(&raw[raw.len() - 6..]) {
        assert_eq!(*s, *r as f32);
    }
}
