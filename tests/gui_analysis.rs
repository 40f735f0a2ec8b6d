//! GUI behaviour of the Recordings room's analysis windows with egui_kittest: sleep statistics and scorer
//! agreement from the real SRI hypnograms, HRV of the real ECG (re-packaged as an EDF channel here), and a
//! connectivity matrix of the sample page opened in the Networks room.
#![cfg(feature = "gui")]

use brainlens::ui::app::{BrainLensApp, Room};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness(file: &Path) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(file.to_path_buf());
    let mut h =
        Harness::builder().with_size([1280.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// Steps frames until the room's background jobs are done.
fn settle(h: &mut Harness<'static, BrainLensApp>) {
    h.run_steps(2);
    for _ in 0..500 {
        if h.state().recordings.settled() {
            h.run_steps(2);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
        h.run_steps(1);
    }
    panic!("jobs did not finish");
}

fn sample() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg/mne_sample_eeg60.edf")
}

#[test]
fn sleep_window_shows_yasa_statistics_and_kappa() {
    let mut h = harness(&sample());
    h.get_by_label("Sleep").click();
    h.run_steps(2);
    {
        let s = &mut h.state_mut().recordings.current.as_mut().unwrap().sleep;
        assert!(s.open);
        s.path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hypnograms/sample_data_sri.csv").display().to_string();
        s.column = "reference".into();
        s.second_column = "device".into();
        s.subject = "sbj01".into();
        s.sri_codes = true;
    }
    h.run_steps(1);
    h.get_by_label("Load").click();
    h.run_steps(2);
    let s = &h.state().recordings.current.as_ref().unwrap().sleep;
    assert!(s.error.is_none(), "{:?}", s.error);
    // yasa.sleep_statistics for sbj01's reference scoring: TST 400.5 min; sklearn kappa 0.30584.
    assert_eq!(s.stats.as_ref().unwrap().TST, 400.5);
    assert!((s.agreement.as_ref().unwrap().kappa - 0.30584360582260306).abs() < 1e-12);
    h.get_by_label_contains("Cohen's kappa 0.3058");
    // Band power per stage of EEG 001: the 24-s sample lies in sbj01's first (wake) epoch.
    h.state_mut().recordings.current.as_mut().unwrap().sleep.channel = Some(0);
    h.run_steps(1);
    h.get_by_label("Compute per stage").click();
    settle(&mut h);
    let rows = h.state().recordings.current.as_ref().unwrap().sleep.stage_power.clone().unwrap().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].stage, "W");
    assert!((rows[0].values.iter().sum::<f64>() - 1.0).abs() < 0.05, "relative powers of adjacent bands sum to ≈ 1");
}

#[test]
fn hrv_window_finds_the_real_ecg_beats() {
    use brainlens::signal::edf::{EdfFormat, SignalHeader, StartTime, WriteSpec, write_edf};
    use ndarray::Array1;
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open("fixtures/physio/ecg_360hz.npz").unwrap()).unwrap();
    let ecg: Array1<f64> = npz.by_name("ecg").unwrap();
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("ecg.edf");
    let (lo, hi) = ecg.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    let sig = SignalHeader {
        label: "ECG".into(),
        transducer: String::new(),
        physical_dimension: "mV".into(),
        physical_min: lo - 0.01,
        physical_max: hi + 0.01,
        digital_min: -32768,
        digital_max: 32767,
        prefilter: String::new(),
        samples_per_record: 360,
        reserved: String::new(),
        is_annotation: false,
    };
    let gain = (sig.physical_max - sig.physical_min) / 65535.0;
    let spec = WriteSpec {
        format: EdfFormat::EdfPlusC,
        patient: "X X X X".into(),
        recording: "ECG from scipy's electrocardiogram record".into(),
        start: StartTime { year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecond: 0.0 },
        record_duration: 1.0,
        record_count: 300,
        signals: vec![sig.clone()],
        annotations: vec![],
        record_onsets: None,
    };
    write_edf(&path, &spec, |r, bufs| {
        let s = r as usize * 360;
        bufs[0].extend(
            ecg.as_slice().unwrap()[s..s + 360]
                .iter()
                .map(|v| (((v - sig.physical_min) / gain).round() as i64 - 32768) as i32),
        );
        Ok(())
    })
    .unwrap();
    let mut h = harness(&path);
    h.get_by_label("HRV").click();
    h.run_steps(2);
    h.get_by_label("Compute").click();
    settle(&mut h);
    let w = &h.state().recordings.current.as_ref().unwrap().hrv;
    let r = w.result.as_ref().unwrap().as_ref().unwrap();
    // neurokit2 finds 503 R-peaks in this record (tests/expected/hrv_reference.json).
    assert_eq!(r.beats, 503);
    h.get_by_label_contains("503 beats");
}

#[test]
fn a_connectivity_matrix_opens_in_the_networks_room() {
    let mut h = harness(&sample());
    h.get_by_label("Connectivity").click();
    h.run_steps(2);
    h.get_by_label("Compute").click();
    settle(&mut h);
    {
        let w = &h.state().recordings.current.as_ref().unwrap().connectivity;
        let (labels, m, _) = w.result.as_ref().unwrap().as_ref().unwrap();
        assert_eq!(labels.len(), 61);
        assert_eq!(m.len(), 61 * 61);
    }
    h.get_by_label("Open in Networks").click();
    h.run_steps(3);
    assert_eq!(h.state().room, Room::Networks);
    let net = h.state().networks.current.as_ref().unwrap();
    assert_eq!(net.connectome.n, 61);
    assert_eq!(net.connectome.labels[0], "EEG 001");
}

#[test]
fn channel_statistics_flag_outliers_of_the_recording() {
    let mut h = harness(&sample());
    h.get_by_label("Channel stats").click();
    h.run_steps(2);
    h.state_mut().recordings.current.as_mut().unwrap().stats.whole = true;
    h.get_by_label("Compute statistics").click();
    settle(&mut h);
    let w = &h.state().recordings.current.as_ref().unwrap().stats;
    let r = w.result.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(r.channels.len(), 61);
    // The same flags as numpy/scipy give on the whole sample (tests/expected/stats_reference.json): EEG 053
    // flat, nine channels noisy.
    let flat: Vec<&str> = r.channels.iter().filter(|c| c.status == "flat").map(|c| c.label.as_str()).collect();
    assert_eq!(flat, ["EEG 053"]);
    assert_eq!(r.channels.iter().filter(|c| c.status == "noisy").count(), 9);
}
