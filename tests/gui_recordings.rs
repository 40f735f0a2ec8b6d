//! GUI behaviour of the Recordings room, driven by label with egui_kittest: open a fixture, page forward,
//! change gain, switch montage, add and undo an annotation, save as a new file.
#![cfg(feature = "gui")]

mod common;
use brainlens::signal::Recording;
use brainlens::signal::edf::{EdfFormat, SignalHeader, StartTime, WriteSpec, write_edf};
use brainlens::signal::montage::Montage;
use brainlens::ui::app::BrainLensApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg").join(name)
}

fn harness(path: PathBuf) -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(path);
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(4);
    h
}

#[test]
fn opens_pages_and_changes_gain() {
    let mut h = harness(fixture("mne_sample_eeg60.edf"));
    {
        let o = h.state().recordings.current.as_ref().expect("recording open");
        assert_eq!(o.rec.channels().len(), 61);
        assert_eq!(o.view.start_s, 0.0);
        assert_eq!(o.traces.len(), 61);
    }
    h.key_press(egui::Key::PageDown);
    h.run_steps(2);
    assert_eq!(h.state().recordings.current.as_ref().unwrap().view.start_s, 10.0);
    h.get_by_label("Page >").click();
    h.run_steps(2);
    // 24-s recording, 10-s pages: the last page starts at 14 s.
    assert_eq!(h.state().recordings.current.as_ref().unwrap().view.start_s, 14.0);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert!((o.traces[0].runs[0].onset_s - 14.0).abs() < 1e-9);

    let before = h.state().recordings.current.as_ref().unwrap().view.sensitivity;
    h.get_by_label("+").click();
    h.run_steps(2);
    let after = h.state().recordings.current.as_ref().unwrap().view.sensitivity;
    assert!(after < before, "+ makes traces larger: {before} µV/mm → {after} µV/mm");
    h.key_press(egui::Key::Minus);
    h.run_steps(2);
    assert_eq!(h.state().recordings.current.as_ref().unwrap().view.sensitivity, before);
}

#[test]
fn switches_to_average_reference() {
    let mut h = harness(fixture("mne_sample_eeg60.edf"));
    h.get_by_label("Montage").click();
    h.run_steps(2);
    h.get_by_label("Average reference").click();
    h.run_steps(2);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert_eq!(o.view.montage, Montage::AverageReference);
    assert_eq!(o.traces[0].label, "EEG 001-AVG");
    // The EOG channel stays as recorded.
    assert_eq!(o.traces[60].label, "EOG 061");
    // At every sample the 60 re-referenced EEG traces sum to zero.
    let n = o.traces[0].runs[0].values.len();
    for i in (0..n).step_by(97) {
        let s: f64 = o.traces[..60].iter().map(|t| t.runs[0].values[i] as f64).sum();
        assert!(s.abs() < 1e-2, "sum at {i}: {s}");
    }
}

#[test]
fn adds_undoes_and_saves_an_annotation() {
    let mut h = harness(fixture("test_subsecond.edf"));
    assert_eq!(h.state().recordings.current.as_ref().unwrap().annotations.items().len(), 4);
    h.get_by_label("Add annotation").click();
    h.run_steps(2);
    assert_eq!(h.state().recordings.current.as_ref().unwrap().annotations.items().len(), 5);
    h.get_by_label("Undo").click();
    h.run_steps(2);
    assert_eq!(h.state().recordings.current.as_ref().unwrap().annotations.items().len(), 4);
    h.get_by_label("Redo").click();
    h.run_steps(2);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("edited.edf");
    h.state_mut().recordings.current.as_mut().unwrap().save_path = out.display().to_string();
    h.get_by_label("Save as").click();
    h.run_steps(2);
    let saved = Recording::open(&out).unwrap();
    let texts: Vec<String> = saved.annotations().unwrap().iter().map(|a| a.text.clone()).collect();
    assert_eq!(texts.len(), 5, "{texts:?}");
    assert!(texts.contains(&"Event".to_string()));
    assert!(!h.state().recordings.current.as_ref().unwrap().annotations.is_dirty());
}

/// A synthetic 19-channel 10-20 file (labelled synthetic in its recording field) for the bipolar preset.
fn write_ten_twenty(path: &Path) {
    let names = [
        "Fp1", "Fp2", "F7", "F3", "Fz", "F4", "F8", "T3", "C3", "Cz", "C4", "T4", "T5", "P3", "Pz", "P4", "T6", "O1",
        "O2",
    ];
    let signals: Vec<SignalHeader> = names
        .iter()
        .map(|n| SignalHeader {
            label: format!("EEG {n}-REF"),
            transducer: String::new(),
            physical_dimension: "uV".into(),
            physical_min: -500.0,
            physical_max: 500.0,
            digital_min: -32768,
            digital_max: 32767,
            prefilter: String::new(),
            samples_per_record: 128,
            reserved: String::new(),
            is_annotation: false,
        })
        .collect();
    let spec = WriteSpec {
        format: EdfFormat::EdfPlusC,
        patient: String::new(),
        recording: "SYNTHETIC test signal".into(),
        start: StartTime { year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecond: 0.0 },
        record_duration: 1.0,
        record_count: 20,
        signals,
        annotations: vec![],
        record_onsets: None,
    };
    write_edf(path, &spec, |r, bufs| {
        for (s, b) in bufs.iter_mut().enumerate() {
            b.extend((0..128).map(|i| (((r * 128 + i) as f64 * 0.05 * (s + 1) as f64).sin() * 3000.0) as i32));
        }
        Ok(())
    })
    .unwrap();
}

#[test]
fn double_banana_on_ten_twenty_labels() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synthetic_1020.edf");
    write_ten_twenty(&path);
    let mut h = harness(path);
    h.get_by_label("Montage").click();
    h.run_steps(2);
    h.get_by_label("Double banana").click();
    h.run_steps(2);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert_eq!(o.traces.len(), 18);
    assert_eq!(o.traces[0].label, "Fp1-F7");
    // Fp1-F7 equals Fp1 minus F7 read directly.
    let rec = &o.rec;
    let (fp1, f7) = (rec.channel_index("EEG Fp1-REF").unwrap(), rec.channel_index("EEG F7-REF").unwrap());
    let raw = rec.read(&[fp1, f7], 0.0, 10.0).unwrap();
    for i in (0..1280).step_by(61) {
        let want = raw[0].values[i] - raw[1].values[i];
        assert!((o.traces[0].runs[0].values[i] as f64 - want).abs() < 1e-3);
    }
}

#[test]
fn a_broken_file_shows_an_error_and_keeps_the_open_recording() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.edf");
    std::fs::write(&bad, b"0       not an edf file").unwrap();
    let mut h = harness(fixture("test_subsecond.edf"));
    h.state_mut().recordings.path_field = bad.display().to_string();
    h.get_by_label("Open path").click();
    h.run_steps(2);
    let err = h.state().recordings.error.clone().expect("error shown");
    assert!(err.contains("broken.edf"), "{err}");
    assert!(h.state().recordings.current.as_ref().unwrap().rec.path().ends_with("test_subsecond.edf"));
}

/// A BrainVision recording (written from the real MNE sample EEG, with markers) opens in the room, pages and
/// lists its markers as annotations; a BrainVision header whose data file is missing is refused by name and
/// the open recording stays.
#[test]
fn a_brainvision_recording_opens_pages_and_lists_its_markers() {
    use common::brainvision::{Layout, sample_channels, write_bv};
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let markers = [("New Segment", "", 1, 1), ("Stimulus", "S  1", 251, 1), ("Comment", "eyes closed", 3001, 250)];
    let path = write_bv(dir.path(), "sample", &data, fs, Layout::int16(), &markers);
    let mut h = harness(path.clone());
    {
        let o = h.state().recordings.current.as_ref().expect("recording open");
        assert_eq!(o.rec.format_name(), "BrainVision (INT_16)");
        assert_eq!(o.traces.len(), 3);
        assert_eq!(o.annotations.items().len(), 2);
    }
    h.get_by_label_contains("Comment/eyes closed");
    h.get_by_label("Page >").click();
    h.run_steps(2);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert_eq!(o.view.start_s, 10.0);
    assert!((o.traces[0].runs[0].values[0] as f64 - (data[0][2500] / 0.5).round() * 0.5).abs() < 1e-3);

    std::fs::write(
        dir.path().join("broken.vhdr"),
        std::fs::read_to_string(&path).unwrap().replace("sample.eeg", "gone.eeg"),
    )
    .unwrap();
    h.state_mut().recordings.path_field = dir.path().join("broken.vhdr").display().to_string();
    h.get_by_label("Open path").click();
    h.run_steps(2);
    let err = h.state().recordings.error.clone().expect("error shown");
    assert!(err.contains("broken.vhdr") && err.contains("DataFile"), "{err}");
    assert!(h.state().recordings.current.as_ref().unwrap().rec.path().ends_with("sample.vhdr"));
}

/// A Neuroscan CNT file whose header leaves the sample width open (MNE's test file, tests only) asks for it
/// and opens with the choice; a `.npy` array asks for its sampling rate, refuses a rate that is not one, and
/// opens with a good one; Cancel keeps the recording that was open.
#[test]
fn a_cnt_file_asks_its_sample_width_and_an_array_its_rate() {
    let cnt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/formats/scan41_short.cnt");
    let mut h = harness(cnt);
    assert!(h.state().recordings.current.is_none());
    assert!(h.state().recordings.prompt.as_ref().is_some_and(|p| p.asks_cnt_format && !p.asks_rate));
    h.get_by_label("32-bit (int32)").click();
    h.run_steps(1);
    h.get_by_label("16-bit (int16)").click();
    h.run_steps(1);
    h.get_by_label("Open").click();
    h.run_steps(3);
    {
        let o = h.state().recordings.current.as_ref().expect("CNT open");
        assert_eq!(o.rec.format_name(), "Neuroscan CNT (int16)");
        assert_eq!(o.traces.len(), 128);
        assert_eq!(o.annotations.items().len(), 6);
        assert!(h.state().recordings.prompt.is_none());
    }

    let dir = tempfile::tempdir().unwrap();
    let npy = dir.path().join("x.npy");
    let x = ndarray::Array2::from_shape_fn((4, 2000), |(c, i)| ((i as f64) * 0.05 * (c + 1) as f64).sin());
    ndarray_npy::WriteNpyExt::write_npy(&x, std::fs::File::create(&npy).unwrap()).unwrap();
    h.state_mut().recordings.path_field = npy.display().to_string();
    h.get_by_label("Open path").click();
    h.run_steps(4);
    assert!(h.state().recordings.prompt.as_ref().is_some_and(|p| p.asks_rate));
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(h.state().recordings.prompt.is_none());
    assert!(h.state().recordings.current.as_ref().unwrap().rec.path().ends_with("scan41_short.cnt"));

    h.get_by_label("Open path").click();
    h.run_steps(4);
    h.state_mut().recordings.prompt.as_mut().unwrap().rate_text = "fast".into();
    h.get_by_label("Open").click();
    h.run_steps(2);
    assert!(h.state().recordings.prompt.as_ref().unwrap().input_error.as_ref().unwrap().contains("fast"));
    h.state_mut().recordings.prompt.as_mut().unwrap().rate_text = "200".into();
    h.get_by_label("Open").click();
    h.run_steps(3);
    let o = h.state().recordings.current.as_ref().expect("array open");
    assert!(o.rec.path().ends_with("x.npy"));
    assert_eq!((o.traces.len(), o.rec.channels()[0].sample_rate), (4, 200.0));
    assert!((o.duration_s - 10.0).abs() < 1e-12);
}

/// An EEGLAB dataset (MNE's test file, tests only) opens, pages and lists its events as annotations.
#[test]
fn an_eeglab_set_opens_pages_and_lists_its_events() {
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/formats/test_raw_event_duration.set");
    let mut h = harness(set);
    {
        let o = h.state().recordings.current.as_ref().expect("set open");
        assert_eq!(o.rec.format_name(), "EEGLAB (.set, data inside)");
        assert_eq!(o.annotations.items().len(), 3);
    }
    assert!(h.query_all_by_label_contains("square").count() >= 2);
    h.state_mut().recordings.current.as_mut().unwrap().view.page_s = 1.0;
    h.get_by_label("Page >").click();
    h.run_steps(2);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert_eq!(o.view.start_s, 1.0);
    assert_eq!(o.traces[0].runs[0].values.len(), 128);
}

/// The BIDS window exports the open recording (with an annotation added in the GUI) into a dataset, lists it
/// by subject and session, and opens the exported run with its events.tsv as annotations.
#[test]
fn bids_export_from_the_gui_and_open_from_the_dataset_tree() {
    use brainlens::signal::edf::Annotation;
    let dir = tempfile::tempdir().unwrap();
    let mut h = harness(fixture("mne_sample_eeg60.edf"));
    let before = h.state().recordings.current.as_ref().unwrap().annotations.items().len();
    h.state_mut().recordings.commands.push(brainlens::ui::recordings::Cmd::AddAnnotation(Annotation {
        onset_s: 3.0,
        duration_s: Some(1.0),
        text: "added in the GUI".into(),
    }));
    h.run_steps(2);
    h.get_by_label("BIDS…").click();
    h.run_steps(4);
    {
        let b = &mut h.state_mut().recordings.bids;
        b.root = dir.path().display().to_string();
        b.subject = "07".into();
        b.session = "2".into();
        b.task = "audvis".into();
    }
    h.get_by_label("Export to BIDS").click();
    h.run_steps(4);
    {
        let b = &h.state().recordings.bids;
        assert!(b.error.is_none(), "{:?}", b.error);
        assert_eq!(b.listed.len(), 1);
    }
    assert!(dir.path().join("sub-07/ses-2/eeg/sub-07_ses-2_task-audvis_events.tsv").is_file());
    h.get_by_label("sub-07");
    h.get_by_label("ses-2");
    h.get_by_label("task-audvis (edf)").click();
    h.run_steps(4);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert!(o.rec.path().ends_with("sub-07_ses-2_task-audvis_eeg.edf"));
    assert_eq!(o.annotations.items().len(), before + 1);
    assert!(o.annotations.items().iter().any(|a| a.text == "added in the GUI"));
}

/// A FIF raw file (written tag by tag, with an acquisition skip) and MNE's GDF test file (tests only) open and
/// page; the FIF skip is listed as a BAD_ACQ_SKIP annotation.
#[test]
fn fif_and_gdf_recordings_open_and_page() {
    use common::fif::{Fif, rows};
    let dir = tempfile::tempdir().unwrap();
    let mut f = Fif::new();
    f.info("");
    f.start(102);
    f.buffer(&rows(0.0, 400));
    f.int(301, 1);
    f.buffer(&rows(0.0, 400));
    f.end(102);
    f.end(100);
    let path = dir.path().join("g_raw.fif");
    std::fs::write(&path, &f.0).unwrap();
    let mut h = harness(path);
    {
        let o = h.state().recordings.current.as_ref().expect("FIF open");
        assert_eq!((o.rec.format_name().as_str(), o.traces.len()), ("FIF", 2));
        assert!((o.duration_s - 12.0).abs() < 1e-9);
    }
    h.get_by_label_contains("BAD_ACQ_SKIP");
    let gdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/formats/test_1ch.gdf");
    h.state_mut().recordings.path_field = gdf.display().to_string();
    h.get_by_label("Open path").click();
    h.run_steps(3);
    h.get_by_label("Page >").click();
    h.run_steps(2);
    let o = h.state().recordings.current.as_ref().unwrap();
    assert_eq!(o.rec.format_name(), "GDF 2.10");
    assert_eq!((o.view.start_s, o.traces[0].runs[0].values.len()), (10.0, 1500));
}
