//! `brainlens reref` against MNE 1.13.2 (tests/expected/reref_reference.npz, scripts/reference/
//! reref_reference.py): average reference (EOG left out of the average and as recorded), a single reference
//! channel, a bipolar pair. The written EDF holds 16-bit samples, so the tolerance is 1e-3 of the RMS.

use brainlens::signal::Recording;
use ndarray::Array1;
use ndarray_npy::NpzReader;
use std::process::Command;

fn reref(args: &[&str], out: &std::path::Path) -> Recording {
    let mut a = vec!["reref", "fixtures/eeg/mne_sample_eeg60.edf"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--out", out.to_str().unwrap()]);
    let o = Command::new(env!("CARGO_BIN_EXE_brainlens")).args(&a).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Recording::open(out).unwrap()
}

fn check(rec: &Recording, label: &str, want: Array1<f64>) {
    let c = rec.channel_index(label).unwrap_or_else(|| panic!("no {label}"));
    let y = rec.read(&[c], 0.0, 30.0).unwrap().remove(0).values;
    let got: Vec<f64> = y.iter().step_by(3).copied().collect();
    assert_eq!(got.len(), want.len());
    let diff = (got.iter().zip(want.iter()).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / got.len() as f64).sqrt();
    let rms = (want.iter().map(|v| v * v).sum::<f64>() / want.len() as f64).sqrt();
    assert!(diff / rms < 1e-3, "{label}: relative RMS difference {:e}", diff / rms);
}

#[test]
fn rereferencing_equals_mne() {
    let d = tempfile::tempdir().unwrap();
    let mut npz = NpzReader::new(std::fs::File::open("tests/expected/reref_reference.npz").unwrap()).unwrap();
    let avg = reref(&["--ref", "average"], &d.path().join("avg.edf"));
    check(&avg, "EEG 001-AVG", npz.by_name("avg_eeg001").unwrap());
    check(&avg, "EOG 061", npz.by_name("avg_eog061").unwrap());
    let single = reref(&["--ref", "EEG 030"], &d.path().join("r30.edf"));
    check(&single, "EEG 001-EEG 030", npz.by_name("ref30_eeg001").unwrap());
    let bip = reref(&["--ref", "bipolar", "--pairs", "EEG 001-EEG 002"], &d.path().join("bip.edf"));
    assert_eq!(bip.channels().len(), 1);
    check(&bip, "EEG 001-EEG 002", npz.by_name("bip_001_002").unwrap());
}
