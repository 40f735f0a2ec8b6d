//! `brainlens psd` / `brainlens bandpower` as users script them; numbers against the scipy/yasa reference
//! values in tests/expected/spectrum_reference.json (1e-6 relative), errors on stderr with exit code 1.

mod common;
use common::{json, run};
use serde_json::Value;

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string("tests/expected/spectrum_reference.json").unwrap()).unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() <= 1e-6 * b.abs(), "{a} vs {b}");
}

#[test]
fn psd_json_equals_scipy_welch() {
    // Reference case 1: nperseg 512, noverlap 100, nfft 1024, hamming, linear detrend, spectrum scaling, median.
    let r = reference();
    let want = &r["welch"][1];
    let v = json(&[
        "psd",
        "fixtures/eeg/test_subsecond.edf",
        "--channel",
        "Fp1",
        "--nperseg",
        "512",
        "--noverlap",
        "100",
        "--nfft",
        "1024",
        "--window",
        "hamming",
        "--detrend",
        "linear",
        "--scaling",
        "spectrum",
        "--average",
        "median",
        "--json",
    ]);
    assert_eq!(v["sample_rate"], 128.0);
    assert_eq!(v["nfft"], 1024);
    assert_eq!(v["freqs"].as_array().unwrap().len(), 513);
    assert_eq!(v["freqs"][2], 0.25);
    for (a, b) in v["psd"].as_array().unwrap().iter().zip(want["psd"].as_array().unwrap()) {
        close(a.as_f64().unwrap(), b.as_f64().unwrap());
    }
}

#[test]
fn bandpower_equals_the_references() {
    let r = reference();
    let bp = &r["bandpower"];
    let v = json(&[
        "bandpower",
        "fixtures/eeg/mne_sample_eeg60.edf",
        "--band",
        "8-12",
        "--relative",
        "--total",
        "1-40",
        "--nperseg",
        "500",
        "--json",
    ]);
    let chans = v["channels"].as_object().unwrap();
    assert_eq!(chans.len(), 61);
    for (label, value) in chans {
        close(value.as_f64().unwrap(), bp["trapezoid_rel"][label].as_f64().unwrap());
    }
    let mean: f64 = chans.values().map(|x| x.as_f64().unwrap()).sum::<f64>() / 61.0;
    close(v["mean"].as_f64().unwrap(), mean);
    // YASA's convention (yasa.bandpower, win_sec=4): absolute alpha of two channels.
    let v = json(&[
        "bandpower",
        "fixtures/eeg/mne_sample_eeg60.edf",
        "--band",
        "8-12",
        "--yasa",
        "--channels",
        "EEG 001,EOG 061",
        "--json",
    ]);
    for label in ["EEG 001", "EOG 061"] {
        close(v["channels"][label].as_f64().unwrap(), bp["yasa_alpha_abs"][label].as_f64().unwrap());
    }
    assert_eq!(v["integration"], "simpson");
    assert_eq!(v["nperseg"], 1000);
}

#[test]
fn errors_name_the_problem() {
    let (code, _, err) = run(&["psd", "fixtures/eeg/test_subsecond.edf", "--channel", "Cz"]);
    assert_eq!(code, 1);
    assert!(err.contains("no channel 'Cz'") && err.contains("Fp1"), "{err}");
    let (code, _, err) = run(&["bandpower", "fixtures/eeg/test_subsecond.edf", "--band", "12-8"]);
    assert_eq!(code, 1);
    assert!(err.contains("need 0 ≤ LO < HI"), "{err}");
    let (code, _, err) = run(&["bandpower", "fixtures/eeg/test_subsecond.edf", "--band", "10-10.2"]);
    assert_eq!(code, 1);
    assert!(err.contains("holds 1 frequency bin") || err.contains("holds 0 frequency bin"), "{err}");
    let (code, _, err) =
        run(&["psd", "fixtures/eeg/test_subsecond.edf", "--channel", "Fp1", "--noverlap", "300", "--nperseg", "256"]);
    assert_eq!(code, 1);
    assert!(err.contains("noverlap=300 must be less than nperseg=256"), "{err}");
    let (code, _, err) = run(&["psd", "fixtures/eeg/test_subsecond.edf", "--channel", "Fp1", "--window", "kaiser"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown window"), "{err}");
}

#[test]
fn topomap_uses_the_recordings_positions_and_band_power() {
    let v = json(&["topomap", "fixtures/eeg/mne_sample_eeg60.edf", "--band", "8-12", "--nperseg", "500", "--json"]);
    // 60 EEG electrodes in mne_sample_eeg60_positions.csv; the EOG channel has no position.
    let labels = v["labels"].as_array().unwrap();
    assert_eq!(labels.len(), 60);
    assert!(!labels.iter().any(|l| l == "EOG 061"));
    let bp = json(&["bandpower", "fixtures/eeg/mne_sample_eeg60.edf", "--band", "8-12", "--nperseg", "500", "--json"]);
    for (l, val) in labels.iter().zip(v["values"].as_array().unwrap()) {
        assert_eq!(val, &bp["channels"][l.as_str().unwrap()]);
    }
    // Projected positions lie about the unit head circle.
    assert!(v["xy"].as_array().unwrap().iter().all(|p| p[0].as_f64().unwrap().hypot(p[1].as_f64().unwrap()) < 1.4));
    let (code, _, err) = run(&["topomap", "fixtures/eeg/test_subsecond.edf", "--band", "8-12"]);
    assert_eq!(code, 1);
    assert!(err.contains("fewer than 3 channels have electrode positions"), "{err}");
}

/// The remaining analysis commands through the CLI: `stats` equals the numpy/scipy reference, `sleep
/// bandpower` equals yasa.bandpower (synthetic hypnogram, as in tests/signal_sleep.rs), `topomap --png`
/// writes the map, `eog` and `spo2` report or fail with the file named.
#[test]
fn stats_sleep_bandpower_topomap_eog_spo2_commands() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/stats_reference.json").unwrap()).unwrap();
    let v = json(&["stats", "fixtures/eeg/mne_sample_eeg60.edf", "--json"]);
    for (g, w) in
        v["channels"].as_array().unwrap().iter().zip(r["files"]["mne_sample_eeg60.edf"]["channels"].as_array().unwrap())
    {
        assert_eq!(g["status"], w["status"], "{}", g["label"]);
        close(g["kurtosis"].as_f64().unwrap(), w["kurtosis"].as_f64().unwrap());
    }
    let sp: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/stage_power_reference.json").unwrap()).unwrap();
    let d = tempfile::tempdir().unwrap();
    let hyp = d.path().join("synthetic_hypnogram.txt");
    let lines: Vec<String> = sp["stages"].as_array().unwrap().iter().map(|s| s.to_string()).collect();
    std::fs::write(&hyp, lines.join("\n")).unwrap();
    let v = json(&[
        "sleep",
        "bandpower",
        "fixtures/eeg/test_subsecond.edf",
        "--hypnogram",
        hyp.to_str().unwrap(),
        "--channel",
        "Fp1",
        "--band",
        "1-4",
        "--band",
        "8-12",
        "--json",
    ]);
    let stages = v["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 5);
    for (s, code) in stages.iter().zip(["0", "1", "2", "3", "4"]) {
        for b in 0..2 {
            close(s["values"][b].as_f64().unwrap(), sp["absolute"][code][b].as_f64().unwrap());
        }
    }
    let png = d.path().join("alpha.png");
    json(&["topomap", "fixtures/eeg/mne_sample_eeg60.edf", "--band", "8-12", "--png", png.to_str().unwrap(), "--json"]);
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    let v = json(&["eog", "fixtures/eeg/mne_sample_eeg60.edf", "--channel", "EOG 061", "--json"]);
    assert!(v["rms"].as_f64().unwrap() > 0.0 && v["threshold"].as_f64().unwrap() > 0.0);
    let (code, _, err) = run(&["spo2", "fixtures/eeg/mne_sample_eeg60.edf", "--channel", "SpO2"]);
    assert_eq!(code, 1);
    assert!(err.contains("mne_sample_eeg60.edf") && err.contains("no channel 'SpO2'"), "{err}");
    let (code, _, err) = run(&["eog", "fixtures/eeg/test_subsecond.edf", "--channel", "EOG"]);
    assert_eq!(code, 1);
    assert!(err.contains("no channel 'EOG'"), "{err}");
}

/// `sleep epoch-power` equals yasa.bandpower on the 23 whole 30-s epochs (tests/expected/
/// epoch_power_reference.json, 1e-6 relative); a channel that is not there, or less than an epoch of signal,
/// fails naming the file.
#[test]
fn sleep_epoch_power_equals_yasa_per_epoch() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/epoch_power_reference.json").unwrap()).unwrap();
    let args = ["sleep", "epoch-power", "fixtures/eeg/test_subsecond.edf", "--channel", "Fp1", "--band", "1-4"];
    let v = json(&[&args[..], &["--band", "8-12", "--relative", "--json"]].concat());
    let rows = v["result"]["values"].as_array().unwrap();
    assert_eq!(rows.len(), 23);
    for (g, w) in rows.iter().zip(r["relative"].as_array().unwrap()) {
        for b in 0..2 {
            close(g[b].as_f64().unwrap(), w[b].as_f64().unwrap());
        }
    }
    let (code, _, err) = run(&["sleep", "epoch-power", "fixtures/eeg/test_subsecond.edf", "--channel", "Cz"]);
    assert_eq!(code, 1);
    assert!(err.contains("test_subsecond.edf") && err.contains("no channel 'Cz'"), "{err}");
    let (code, _, err) =
        run(&["sleep", "epoch-power", "fixtures/eeg/mne_sample_eeg60.edf", "--channel", "EEG 001", "--epoch", "30"]);
    assert_eq!(code, 1);
    assert!(err.contains("mne_sample_eeg60.edf") && err.contains("not one whole epoch"), "{err}");
}
