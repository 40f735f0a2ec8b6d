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
    // A four-stage scoring is shown in its own names: yasa's %N3 of the mapped codes, 16.1049, as %Deep.
    h.get_by_label("%Deep");
    h.get_by_label("16.10");
    assert!(h.query_by_label("%N3").is_none() && h.query_by_label("N1").is_none());
    // Band power per stage of EEG 001: the 24-s sample lies in sbj01's first (wake) epoch.
    h.state_mut().recordings.current.as_mut().unwrap().sleep.channel = Some(0);
    h.run_steps(1);
    h.get_by_label("Compute per stage").click();
    settle(&mut h);
    let rows = h.state().recordings.current.as_ref().unwrap().sleep.stage_power.clone().unwrap().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].stage, "W");
    assert!((rows[0].values.iter().sum::<f64>() - 1.0).abs() < 0.05, "relative powers of adjacent bands sum to ≈ 1");
    // The band power through the night needs one whole 30-s epoch: the 24-s sample has none, and the window
    // says so (the per-stage table above still stands).
    h.get_by_label_contains("band power through the night: 24.0 s of signal: not one whole epoch of 30 s");
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
    // The tachogram is explored: the read-out names the beat under the cursor, its RR and rate; a zoom narrows
    // the time range around the cursor.
    let rr = r.rr_ms.clone();
    let before = w.view.expect("the tachogram was drawn");
    let t100 = brainlens::ui::recordings::hrv_window::beat_times(&rr)[100];
    h.event(egui::Event::PointerMoved(before.screen(t100, rr[100])));
    h.run_steps(2);
    let w = &h.state().recordings.current.as_ref().unwrap().hrv;
    let t = w.cursor_s.expect("the cursor was over the tachogram");
    assert!((t - t100).abs() < 0.01 * (before.x.1 - before.x.0), "{t} vs {t100}");
    let line = h.get_by_label_contains("RR ").value().unwrap_or_default();
    let k =
        brainlens::ui::widgets::explore::nearest(&brainlens::ui::recordings::hrv_window::beat_times(&rr), t).unwrap();
    assert!(line.contains(&format!("RR {:.0} ms ({:.1} bpm)", rr[k], 60_000.0 / rr[k])), "{line}");
    h.event(egui::Event::Zoom(4.0));
    h.run_steps(3);
    let after = h.state().recordings.current.as_ref().unwrap().hrv.view.unwrap();
    assert!(after.x.1 - after.x.0 < 0.5 * (before.x.1 - before.x.0), "{before:?} → {after:?}");
    assert!(after.x.0 < t100 && t100 < after.x.1);
}

/// The Sleep window's hypnogram and the band power through the night (yasa.bandpower per 30-s epoch of the
/// real EEG of test_subsecond.edf) share a linked time axis: zooming the hypnogram zooms the power plot to
/// the same time range; the read-out gives the epoch under the cursor, its stage and its band powers.
#[test]
fn the_hypnogram_and_the_night_power_share_a_zoomable_time_axis() {
    let mut h = harness(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg/test_subsecond.edf"));
    h.get_by_label("Sleep").click();
    h.run_steps(2);
    {
        let s = &mut h.state_mut().recordings.current.as_mut().unwrap().sleep;
        s.path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hypnograms/sample_data_sri.csv").display().to_string();
        s.column = "reference".into();
        s.subject = "sbj01".into();
        s.sri_codes = true;
        s.channel = Some(0);
    }
    h.run_steps(1);
    h.get_by_label("Load").click();
    h.run_steps(2);
    h.get_by_label("Compute per stage").click();
    settle(&mut h);
    let (hyp, night, want) = {
        let s = &h.state().recordings.current.as_ref().unwrap().sleep;
        let n = s.night_power.as_ref().expect("computed").as_ref().expect("no error");
        // 698 s of EEG: 23 whole 30-s epochs, five relative band powers each.
        assert_eq!((n.values.len(), n.values[0].len()), (23, 5));
        (s.hypnogram_view.unwrap(), s.night_view.expect("the night plot is drawn"), n.values[4].clone())
    };
    assert_eq!(hyp.x, night.x, "linked time axes");
    // Zoom the hypnogram around 135 s; the cursor then in epoch 5 (120–150 s).
    h.event(egui::Event::PointerMoved(hyp.screen(135.0, 2.0)));
    h.run_steps(2);
    h.event(egui::Event::Zoom(8.0));
    h.run_steps(4);
    let (hz, nz) = {
        let s = &h.state().recordings.current.as_ref().unwrap().sleep;
        (s.hypnogram_view.unwrap(), s.night_view.unwrap())
    };
    assert!(hz.x.1 - hz.x.0 < 0.5 * (hyp.x.1 - hyp.x.0), "zoomed: {hyp:?} → {hz:?}");
    h.event(egui::Event::PointerMoved(hz.screen(135.0, 2.0)));
    h.run_steps(2);
    let line = h.get_by_label_contains("epoch 5:").value().unwrap_or_default();
    assert!(line.contains(&format!("δ {:.1} %", 100.0 * want[0])), "{line}");
    assert!((hz.x.0 - nz.x.0).abs() < 1e-6 && (hz.x.1 - nz.x.1).abs() < 1e-6, "the power plot follows: {hz:?} {nz:?}");
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
