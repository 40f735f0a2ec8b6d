//! ECG R-peaks and HRV on the real 5-min ECG (fixtures/physio/ecg_360hz.npz, scipy's electrocardiogram
//! record) against neurokit2 0.3.0 (tests/expected/hrv_reference.json, scripts/reference/hrv_reference.py):
//! the same R-peaks (every reference peak found within ±1 sample, none extra) and HR, SDNN, RMSSD, pNN50
//! within 1 %.

use brainlens::signal::physio::{ecg_clean, find_r_peaks, hrv};
use ndarray::Array1;
use ndarray_npy::NpzReader;
use serde_json::Value;

#[test]
fn r_peaks_and_hrv_equal_neurokit2() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/hrv_reference.json").unwrap()).unwrap();
    let mut npz = NpzReader::new(std::fs::File::open("fixtures/physio/ecg_360hz.npz").unwrap()).unwrap();
    let ecg: Array1<f64> = npz.by_name("ecg").unwrap();
    let fs = 360.0;
    let clean = ecg_clean(ecg.as_slice().unwrap(), fs, 50.0).unwrap();
    let peaks = find_r_peaks(&clean, fs);
    let want: Vec<usize> = r["peaks"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
    let missed: Vec<usize> = want.iter().copied().filter(|w| !peaks.iter().any(|p| p.abs_diff(*w) <= 1)).collect();
    let extra: Vec<usize> = peaks.iter().copied().filter(|p| !want.iter().any(|w| p.abs_diff(*w) <= 1)).collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "{} peaks vs {}: missed {missed:?}, extra {extra:?}",
        peaks.len(),
        want.len()
    );
    let h = hrv(&peaks, fs).unwrap();
    for (key, got) in [("HR", h.HR), ("SDNN", h.SDNN), ("RMSSD", h.RMSSD), ("pNN50", h.pNN50), ("MeanNN", h.MeanNN)] {
        let w = r[key].as_f64().unwrap();
        assert!((got - w).abs() <= 0.01 * w.abs(), "{key}: {got} vs {w}");
    }
}

#[test]
fn the_hrv_command_reports_the_same_numbers() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/hrv_reference.json").unwrap()).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["hrv", "fixtures/physio/ecg_360hz.npz", "--fs", "360", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["r_peaks"].as_array().unwrap().len(), r["peaks"].as_array().unwrap().len());
    let rmssd = v["hrv"]["RMSSD"].as_f64().unwrap();
    assert!((rmssd - r["RMSSD"].as_f64().unwrap()).abs() < 0.01 * rmssd);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["hrv", "fixtures/physio/ecg_360hz.npz"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--fs"));
}

/// Synthetic EOG (labelled so): a flat baseline with small noise and five 300-µV blinks 2 s apart.
#[test]
fn eog_blinks_are_counted() {
    let fs = 250.0;
    let mut x: Vec<f64> = (0..(14.0 * fs) as usize).map(|i| ((i * 7919 % 113) as f64 - 56.0) * 0.2).collect();
    for b in 0..5 {
        let c = ((2.0 + 2.0 * b as f64) * fs) as usize;
        for i in 0..50 {
            x[c + i] += 300.0 * (std::f64::consts::PI * i as f64 / 50.0).sin();
        }
    }
    let a = brainlens::signal::physio::eog_activity(&x, fs, 5.0).unwrap();
    assert_eq!(a.events, 5, "{a:?}");
}

/// Synthetic SpO2 (labelled so): 97 % baseline at 1 Hz for 30 min with three dips — to 92 % for 20 s (an
/// event), to 93.5 % for 30 s (an event), to 95 % for 60 s (only 2 points: not an event).
#[test]
fn desaturations_of_three_points_are_counted() {
    let mut x = vec![97.0; 1800];
    x[300..320].fill(92.0);
    x[800..830].fill(93.5);
    x[1200..1260].fill(95.0);
    x[1500] = 0.0; // a dropout, ignored
    let s = brainlens::signal::physio::saturation_summary(&x, 1.0, 3.0).unwrap();
    assert_eq!(s.desaturations, 2);
    assert_eq!(s.min, 92.0);
    assert!((s.odi - 4.0).abs() < 1e-12, "2 events in 0.5 h");
}
