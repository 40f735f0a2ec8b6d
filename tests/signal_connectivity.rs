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
