//! Polyphase resampling against scipy 1.17.1 `scipy.signal.resample_poly` (tests/expected/
//! resample_reference.npz, scripts/reference/resample_reference.py): length exactly, samples to 1e-9 of the
//! signal's RMS (every third sample, as the reference keeps).

use brainlens::signal::Recording;
use brainlens::signal::resample::resample_poly;
use ndarray::Array1;
use ndarray_npy::NpzReader;
use std::path::Path;

#[test]
fn resample_poly_equals_scipy() {
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/resample_reference.npz").unwrap()).unwrap();
    for (k, (file, ch, up, down)) in [
        ("test_subsecond.edf", "Fp1", 25, 32),
        ("mne_sample_eeg60.edf", "EEG 001", 2, 5),
        ("mne_sample_eeg60.edf", "EEG 030", 2, 1),
    ]
    .iter()
    .enumerate()
    {
        let rec = Recording::open(&Path::new("fixtures/eeg").join(file)).unwrap();
        let c = rec.channel_index(ch).unwrap();
        let x = rec.read(&[c], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0).values;
        let y = resample_poly(&x, *up, *down).unwrap();
        let want: Array1<f64> = npz.by_name(&format!("case{k}")).unwrap();
        let len: Array1<i64> = npz.by_name(&format!("case{k}_len")).unwrap();
        assert_eq!(y.len() as i64, len[0], "case {k}");
        let y: Vec<f64> = y.iter().step_by(3).copied().collect();
        assert_eq!(y.len(), want.len());
        let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
        let worst = y.iter().zip(want.iter()).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(worst <= 1e-9 * rms, "case {k}: worst difference {worst} (RMS {rms})");
    }
}

#[test]
fn the_resample_command_writes_the_new_rate() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r100.edf");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["resample", "fixtures/eeg/mne_sample_eeg60.edf", "--sfreq", "100", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rec = Recording::open(&out).unwrap();
    assert!(rec.channels().iter().all(|c| c.sample_rate == 100.0));
    let c = rec.channel_index("EEG 001").unwrap();
    let y = rec.read(&[c], 0.0, 30.0).unwrap().remove(0).values;
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/resample_reference.npz").unwrap()).unwrap();
    let want: Array1<f64> = npz.by_name("case1").unwrap();
    let got: Vec<f64> = y.iter().step_by(3).copied().collect();
    let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
    let diff = (got.iter().zip(want.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / want.len() as f64).sqrt();
    assert!(diff / rms < 1e-3, "16-bit output: relative RMS difference {:e}", diff / rms);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["resample", "fixtures/eeg/mne_sample_eeg60.edf", "--sfreq", "100.5", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a whole number of samples per record"));
}
