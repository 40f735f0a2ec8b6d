//! Channel connectivity against tests/expected/connectivity_reference.json
//! (scripts/reference/connectivity_reference.py: numpy corrcoef, scipy.signal.coherence, MNE FIR band-pass +
//! scipy.signal.hilbert PLV and wPLI) on the first 8 EEG channels of the real 60-channel sample, 1e-6.

use brainlens::signal::Recording;
use brainlens::signal::connectivity::{Method, connectivity};
use brainlens::signal::spectrum::WelchParams;
use serde_json::Value;
use std::path::Path;

#[test]
fn every_method_equals_its_reference() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/connectivity_reference.json").unwrap()).unwrap();
    let rec = Recording::open(Path::new("fixtures/eeg/mne_sample_eeg60.edf")).unwrap();
    let chans: Vec<usize> = (0..8).collect();
    let data: Vec<Vec<f64>> = rec.read(&chans, 0.0, 30.0).unwrap().into_iter().map(|d| d.values).collect();
    let welch = WelchParams { nperseg: Some(250), ..Default::default() };
    for (name, method) in [("corr", Method::Corr), ("coh", Method::Coh), ("plv", Method::Plv), ("wpli", Method::Wpli)] {
        let m = connectivity(&data, 250.0, method, Some((8.0, 12.0)), &welch).unwrap();
        for i in 0..8 {
            for j in 0..8 {
                let want = r[name][i][j].as_f64().unwrap();
                let got = m[i * 8 + j];
                assert!((got - want).abs() <= 1e-6 * want.abs().max(1e-3), "{name} [{i}][{j}]: {got} vs {want}");
            }
        }
    }
}

/// `brainlens connectivity` writes the matrix (CSV with channel labels) and, with electrode positions, the
/// atlas beside it that the Networks room picks up.
#[test]
fn the_cli_writes_a_matrix_and_its_electrode_atlas() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/connectivity_reference.json").unwrap()).unwrap();
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("coh.csv");
    let chans = "EEG 001,EEG 002,EEG 003,EEG 004,EEG 005,EEG 006,EEG 007,EEG 008";
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args([
            "connectivity",
            "fixtures/eeg/mne_sample_eeg60.edf",
            "--method",
            "coh",
            "--band",
            "8-12",
            "--nperseg",
            "250",
            "--channels",
            chans,
            "--positions",
            "fixtures/eeg/mne_sample_eeg60_positions.csv",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = brainlens::network::io::load(&out, brainlens::network::connectome::Asymmetry::Error).unwrap();
    assert_eq!(c.labels[0], "EEG 001");
    for i in 0..8 {
        for j in 0..8 {
            if i != j {
                let want = r["coh"][i][j].as_f64().unwrap();
                assert!((c.w[i * 8 + j] - want).abs() < 1e-6 * want, "[{i}][{j}]");
            }
        }
    }
    let atlas = brainlens::network::atlas::Atlas::load(&d.path().join("coh.atlas.csv").display().to_string()).unwrap();
    assert_eq!(atlas.labels.len(), 8);
    // EEG 001 at (−0.037370, 0.105680, 0.073339) m in the positions file.
    assert_eq!(atlas.coords.unwrap()[0], [-37.37, 105.68, 73.339]);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["connectivity", "fixtures/eeg/mne_sample_eeg60.edf", "--method", "plv", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs a band"));
}
