//! Sleep statistics and scorer agreement on the real SRI hypnograms (14 subjects × 2 scorings) against
//! tests/expected/sleep_reference.json (scripts/reference/sleep_reference.py): yasa 0.8.1
//! `sleep_statistics` to 1e-9, SFI and SOL_5min to YASA's 4-decimal rounding, transition counts exactly;
//! scikit-learn `cohen_kappa_score` to 1e-12 and `confusion_matrix` exactly.

use brainlens::signal::sleep::{Codes, Hypnogram, agreement, sleep_statistics};
use serde_json::Value;
use std::path::Path;

#[test]
fn yasa_and_sklearn_agree_on_every_subject() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/sleep_reference.json").unwrap()).unwrap();
    let subjects = r["subjects"].as_object().unwrap();
    assert_eq!(subjects.len(), 14);
    let file = Path::new("fixtures/hypnograms/sample_data_sri.csv");
    for (subject, want) in subjects {
        let mut scorings = Vec::new();
        for col in ["reference", "device"] {
            let h = Hypnogram::load(file, Some(col), Some(subject), Codes::Sri).unwrap();
            let got = serde_json::to_value(sleep_statistics(&h).unwrap()).unwrap();
            let w = &want[col];
            for (key, wv) in w.as_object().unwrap() {
                let gv = &got[key];
                match key.as_str() {
                    "transition_counts" => assert_eq!(gv, wv, "{subject} {col} {key}"),
                    "SFI" | "SOL_5min" => {
                        let (g, w) = (gv.as_f64(), wv.as_f64());
                        assert_eq!(g.is_some(), w.is_some(), "{subject} {col} {key}");
                        if let (Some(g), Some(w)) = (g, w) {
                            assert!((g - w).abs() <= 5e-5, "{subject} {col} {key}: {g} vs {w}");
                        }
                    }
                    _ => match (gv.as_f64(), wv.as_f64()) {
                        (Some(g), Some(w)) => {
                            assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{subject} {col} {key}: {g} vs {w}")
                        }
                        (g, w) => assert_eq!(g, w, "{subject} {col} {key}"),
                    },
                }
            }
            scorings.push(h);
        }
        let a = agreement(&scorings[0], &scorings[1]).unwrap();
        assert!(
            (a.kappa - want["kappa"].as_f64().unwrap()).abs() < 1e-12,
            "{subject}: kappa {} vs {}",
            a.kappa,
            want["kappa"]
        );
        assert_eq!(serde_json::to_value(&a.confusion).unwrap(), want["confusion"], "{subject}");
    }
}

/// An EDF+ file whose annotations stage the night (synthetic signal, labelled so) read by `sleep stats`.
#[test]
fn edf_stage_annotations_through_the_cli() {
    use brainlens::signal::edf::{Annotation, EdfFormat, SignalHeader, StartTime, WriteSpec, write_edf};
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("staged_synthetic.edf");
    let sig = SignalHeader {
        label: "C3".into(),
        transducer: String::new(),
        physical_dimension: "uV".into(),
        physical_min: -100.0,
        physical_max: 100.0,
        digital_min: -32768,
        digital_max: 32767,
        prefilter: String::new(),
        samples_per_record: 10,
        reserved: String::new(),
        is_annotation: false,
    };
    let ann =
        |onset: f64, dur: f64, text: &str| Annotation { onset_s: onset, duration_s: Some(dur), text: text.into() };
    let spec = WriteSpec {
        format: EdfFormat::EdfPlusC,
        patient: "X X X X".into(),
        recording: "SYNTHETIC".into(),
        start: StartTime { year: 2024, month: 1, day: 1, hour: 23, minute: 0, second: 0, subsecond: 0.0 },
        record_duration: 30.0,
        record_count: 10,
        signals: vec![sig],
        // W W N1 N2 N2 N3 N3 R W R (30-s epochs).
        annotations: vec![
            ann(0.0, 60.0, "Sleep stage W"),
            ann(60.0, 30.0, "Sleep stage 1"),
            ann(90.0, 60.0, "Sleep stage 2"),
            ann(150.0, 60.0, "Sleep stage 4"),
            ann(210.0, 30.0, "Sleep stage R"),
            ann(240.0, 30.0, "Sleep stage W"),
            ann(270.0, 30.0, "Sleep stage R"),
        ],
        record_onsets: None,
    };
    write_edf(&path, &spec, |_, bufs| {
        bufs[0].extend(std::iter::repeat_n(0, 10));
        Ok(())
    })
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["sleep", "stats", path.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // TIB 5 min; sleep from epoch 2 to 9 → SPT 4 min, WASO 0.5, TST 3.5; SOL 1 min; Lat_REM 3.5 min; one awakening.
    assert_eq!(
        (v["TIB"].as_f64(), v["SPT"].as_f64(), v["WASO"].as_f64(), v["TST"].as_f64()),
        (Some(5.0), Some(4.0), Some(0.5), Some(3.5))
    );
    assert_eq!((v["SOL"].as_f64(), v["Lat_REM"].as_f64(), v["awakenings"].as_u64()), (Some(1.0), Some(3.5), Some(1)));
}

/// `sleep stats --codes sri` names a tracker's four stages as the file codes them: Light and Deep, whose
/// minutes, percentages and latencies are YASA's N2 and N3 of the SRI codes mapped to YASA's
/// (tests/expected/sleep_reference.json, exact to 1e-9), and no N1 entries.
#[test]
fn four_stage_scorings_show_light_and_deep_through_the_cli() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/sleep_reference.json").unwrap()).unwrap();
    let (subject, want) = r["subjects"].as_object().unwrap().iter().next().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args(["sleep", "stats", "fixtures/hypnograms/sample_data_sri.csv", "--column", "reference"])
        .args(["--subject", subject, "--codes", "sri", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = &want["reference"];
    for (shown, yasa) in [("Light", "N2"), ("Deep", "N3"), ("%Light", "%N2"), ("%Deep", "%N3"), ("REM", "REM")] {
        let (g, w) = (v[shown].as_f64().unwrap(), want[yasa].as_f64().unwrap());
        assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{subject} {shown}: {g} vs YASA {yasa} {w}");
    }
    assert!(v.get("N1").is_none() && v.get("N2").is_none() && v.get("%N3").is_none(), "{v}");
}

/// Band power per stage = yasa 0.8.1 `bandpower(data, sf, hypno=…)` on the real EEG of test_subsecond.edf
/// with a SYNTHETIC hypnogram (tests/expected/stage_power_reference.json), 1e-6 relative.
#[test]
fn stage_band_power_equals_yasa() {
    use brainlens::signal::Recording;
    use brainlens::signal::sleep::stage_power::stage_band_power;
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/stage_power_reference.json").unwrap()).unwrap();
    let codes: Vec<i64> = r["stages"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    let stages = codes.iter().map(|&c| brainlens::signal::sleep::Stage::ALL[(c + 2) as usize]).collect();
    let h = Hypnogram { epoch_s: 30.0, stages, scale: Default::default() };
    let rec = Recording::open(Path::new("fixtures/eeg/test_subsecond.edf")).unwrap();
    let d = rec.read(&[0], 0.0, 700.0).unwrap().remove(0);
    for (key, rel) in [("absolute", false), ("relative", true)] {
        let got = stage_band_power(&d.values, d.sample_rate, &h, &[(1.0, 4.0), (8.0, 12.0)], rel).unwrap();
        let want = r[key].as_object().unwrap();
        assert_eq!(got.len(), want.len(), "{key}");
        for sp in &got {
            let code = brainlens::signal::sleep::Stage::ALL.iter().find(|s| s.label() == sp.stage).unwrap().code();
            let w = &want[&code.to_string()];
            for (b, v) in sp.values.iter().enumerate() {
                let wv = w[b].as_f64().unwrap();
                assert!((v - wv).abs() <= 1e-6 * wv.abs(), "{key} {} band {b}: {v} vs {wv}", sp.stage);
            }
        }
    }
}

/// Band power per 30-s epoch = yasa 0.8.1 `bandpower(epochs, sf, …)` on the 23 whole epochs of the real EEG
/// of test_subsecond.edf (tests/expected/epoch_power_reference.json), 1e-6 relative, absolute and relative.
#[test]
fn epoch_band_power_equals_yasa() {
    use brainlens::signal::Recording;
    use brainlens::signal::sleep::epoch_power::epoch_band_power;
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/epoch_power_reference.json").unwrap()).unwrap();
    let rec = Recording::open(Path::new("fixtures/eeg/test_subsecond.edf")).unwrap();
    let d = rec.read(&[0], 0.0, 700.0).unwrap().remove(0);
    for (key, rel) in [("absolute", false), ("relative", true)] {
        let got = epoch_band_power(&d.values, d.sample_rate, 30.0, &[(1.0, 4.0), (8.0, 12.0)], rel).unwrap();
        let want = r[key].as_array().unwrap();
        assert_eq!(got.values.len(), 23);
        assert_eq!(got.values.len(), want.len(), "{key}");
        for (e, (g, w)) in got.values.iter().zip(want).enumerate() {
            for (b, v) in g.iter().enumerate() {
                let wv = w[b].as_f64().unwrap();
                assert!((v - wv).abs() <= 1e-6 * wv.abs(), "{key} epoch {e} band {b}: {v} vs {wv}");
            }
        }
    }
    // Less than one epoch of signal is an error that says so.
    let e = epoch_band_power(&d.values[..100], d.sample_rate, 30.0, &[(1.0, 4.0)], true).unwrap_err().to_string();
    assert!(e.contains("not one whole epoch"), "{e}");
}
