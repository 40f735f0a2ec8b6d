//! Neuroscan CNT, GDF and array files behind the recording interface: MNE's CNT and GDF test files
//! (`../shared/data/formats`, tests only) with the width MNE needs and without it, arrays written here in
//! every layout the reader takes, and broken inputs, each refused with the file and the problem named.
//! scripts/reference/formats_reference.py checks the same readers against MNE, NumPy and SciPy on whole files.

use brainlens::signal::Recording;
use brainlens::signal::open_options::{CntFormat, OpenOptions, needs_cnt_format, needs_rate};
use ndarray::{Array2, Array3};
use ndarray_npy::WriteNpyExt;
use std::path::Path;
use std::process::Command;

const CNT: &str = "../shared/data/formats/scan41_short.cnt";

fn int16() -> OpenOptions {
    OpenOptions { cnt_format: Some(CntFormat::Int16), ..Default::default() }
}

#[test]
fn mne_cnt_test_file_opens_with_mnes_channels_events_and_values() {
    let rec = Recording::open_with(Path::new(CNT), &int16()).unwrap();
    assert_eq!(rec.format_name(), "Neuroscan CNT (int16)");
    assert_eq!(rec.channels().len(), 128);
    assert!(rec.channels().iter().all(|c| c.sample_rate == 400.0 && c.physical_dimension == "µV"));
    assert!((rec.duration_s().unwrap() - 3070.0 / 400.0).abs() < 1e-12);
    assert_eq!(rec.bads(), ["LEFT_EAR", "VEOGR"]);
    // MNE 1.13.2: read_raw_cnt(f, data_format="int16").annotations.
    let a = rec.annotations().unwrap();
    let got: Vec<(f64, &str)> = a.iter().map(|a| (a.onset_s, a.text.as_str())).collect();
    assert_eq!(got, [(0.8325, "7"), (2.525, "7"), (4.16, "109"), (5.81, "7"), (7.46, "109"), (7.6725, "0")]);
    // MNE 1.13.2: get_data()[:2, :5] × 1e6, to 1e-9 relative.
    let v = rec.read(&[0, 1], 0.0, 5.0 / 400.0).unwrap();
    let want = [
        [74.18823242, 74.94354248, 76.70593262, 78.04870605, 74.44000244],
        [6.54602051, 5.87463379, 6.21032715, 9.23156738, 10.07080078],
    ];
    for (c, w) in v.iter().zip(want) {
        for (x, y) in c.values.iter().zip(w) {
            assert!((x - y).abs() < 1e-7, "{x} vs {y}");
        }
    }
    // Types by MNE's CNT label rule (read_raw_cnt(eog="auto", ...)): VEOGR and HEOG are EOG, the rest EEG.
    let kinds: Vec<(&str, &str)> =
        rec.channels().iter().filter(|c| c.kind.name() != "eeg").map(|c| (c.label.as_str(), c.kind.name())).collect();
    assert_eq!(kinds, [("VEOGR", "eog"), ("HEOG", "eog")]);
    // Positions: the header's x/y on MNE's unit sphere, EEG electrodes only; channel "1" from
    // get_montage().get_positions() (MNE computes in float32: 1e-6).
    let pos = rec.positions();
    assert_eq!(pos.len(), 126);
    assert_eq!(pos[0].0, "1");
    for (a, b) in pos[0].1.iter().zip([-0.1357342004776001, 0.25211453437805176, 0.9581307768821716]) {
        assert!((a - b).abs() < 1e-6, "{a} vs {b}");
    }
}

#[test]
fn a_cnt_whose_width_cannot_be_decided_is_refused_as_mne_refuses_it() {
    let e = Recording::open_with(Path::new(CNT), &OpenOptions::default()).unwrap_err();
    assert!(needs_cnt_format(&e), "{e}");
    let msg = e.to_string();
    assert!(msg.contains("scan41_short.cnt") && msg.contains("0 samples") && msg.contains("--cnt-format"), "{msg}");
    // The CLI: refused without the flag, read with it.
    let bin = env!("CARGO_BIN_EXE_brainlens");
    let out = Command::new(bin).args(["info", CNT]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("sample width"));
    let out = Command::new(bin).args(["info", CNT, "--cnt-format", "int16", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["bads"], serde_json::json!(["LEFT_EAR", "VEOGR"]));
}

#[test]
fn broken_cnt_files_name_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(CNT).unwrap();
    let cut = dir.path().join("cut.cnt");
    std::fs::write(&cut, &bytes[..5000]).unwrap();
    let e = Recording::open_with(&cut, &int16()).unwrap_err().to_string();
    assert!(e.contains("cut.cnt") && e.contains("truncated"), "{e}");
    let tiny = dir.path().join("tiny.cnt");
    std::fs::write(&tiny, b"not a cnt").unwrap();
    let e = Recording::open_with(&tiny, &int16()).unwrap_err().to_string();
    assert!(e.contains("tiny.cnt") && e.contains("not a Neuroscan CNT"), "{e}");
    // Data cut short after the channel headers: the samples present are read, and the repair says so.
    let short = dir.path().join("short.cnt");
    std::fs::write(&short, &bytes[..900 + 75 * 128 + 256 * 100]).unwrap();
    let rec = Recording::open_with(&short, &int16()).unwrap();
    assert!((rec.duration_s().unwrap() - 100.0 / 400.0).abs() < 1e-12);
    assert!(rec.repairs().iter().any(|r| r.to_string().contains("event table")), "{:?}", rec.repairs());
}

#[test]
fn arrays_in_every_layout_read_the_same_channels() {
    let dir = tempfile::tempdir().unwrap();
    // 3 channels × 8 samples: channel c, sample i = 10c + i.
    let x = Array2::from_shape_fn((3, 8), |(c, i)| (10 * c + i) as f64);
    let want: Vec<Vec<f64>> = x.rows().into_iter().map(|r| r.to_vec()).collect();
    let rate = OpenOptions { rate: Some(4.0), ..Default::default() };
    let write = |name: &str, f: &dyn Fn(std::fs::File)| {
        let p = dir.path().join(name);
        f(std::fs::File::create(&p).unwrap());
        p
    };
    let files = [
        write("c.npy", &|f| x.write_npy(f).unwrap()),
        write("t.npy", &|f| x.t().to_owned().write_npy(f).unwrap()),
        write("fortran.npy", &|f| x.t().as_standard_layout().t().write_npy(f).unwrap()),
        write("f32.npy", &|f| x.mapv(|v| v as f32).write_npy(f).unwrap()),
        write("i16.npy", &|f| x.mapv(|v| v as i16).write_npy(f).unwrap()),
    ];
    for p in &files {
        let rec = Recording::open_with(p, &rate).unwrap();
        assert_eq!(rec.channels().len(), 3, "{}", p.display());
        let got: Vec<Vec<f64>> = rec.read(&[0, 1, 2], 0.0, 2.0).unwrap().into_iter().map(|d| d.values).collect();
        assert_eq!(got, want, "{}", p.display());
    }
    let transposed = Recording::open_with(&files[1], &rate).unwrap();
    assert!(transposed.repairs().iter().any(|r| r.to_string().contains("8 samples × 3 channels")));
    let csv = dir.path().join("x.csv");
    let rows: Vec<String> = (0..8).map(|i| format!("{},{},{},{}", i as f64 / 4.0, i, 10 + i, 20 + i)).collect();
    std::fs::write(&csv, format!("time,Fz,Cz,Pz\n{}\n", rows.join("\n"))).unwrap();
    let rec = Recording::open(&csv).unwrap();
    assert_eq!(rec.channels()[1].label, "Cz");
    assert_eq!(rec.channels()[0].sample_rate, 4.0);
    let got: Vec<Vec<f64>> = rec.read(&[0, 1, 2], 0.0, 2.0).unwrap().into_iter().map(|d| d.values).collect();
    assert_eq!(got, want);
}

#[test]
fn epochs_are_laid_end_to_end_with_a_run_per_epoch() {
    let dir = tempfile::tempdir().unwrap();
    // 3 epochs × 2 channels × 4 samples: value = 100 e + 10 c + i.
    let x = Array3::from_shape_fn((3, 2, 4), |(e, c, i)| (100 * e + 10 * c + i) as f64);
    let p = dir.path().join("ep.npy");
    x.write_npy(std::fs::File::create(&p).unwrap()).unwrap();
    let rec = Recording::open_with(&p, &OpenOptions { rate: Some(4.0), ..Default::default() }).unwrap();
    let d = rec.read(&[1], 0.75, 1.0).unwrap().remove(0);
    // Samples 3..7 of channel 1: epoch 0's last, then epoch 1's first three — two runs.
    assert_eq!(d.values, [13.0, 110.0, 111.0, 112.0]);
    assert_eq!(d.segments.iter().map(|s| (s.onset_s, s.n_samples)).collect::<Vec<_>>(), [(0.75, 1), (1.0, 3)]);
}

#[test]
fn arrays_without_a_rate_or_with_bad_content_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.npy");
    Array2::<f64>::zeros((2, 5)).write_npy(std::fs::File::create(&p).unwrap()).unwrap();
    let e = Recording::open_with(&p, &OpenOptions::default()).unwrap_err();
    assert!(needs_rate(&e) && e.to_string().contains("x.npy") && e.to_string().contains("--rate"), "{e}");
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 8]).unwrap();
    let e = Recording::open_with(&p, &OpenOptions { rate: Some(1.0), ..Default::default() }).unwrap_err().to_string();
    assert!(e.contains("x.npy") && e.contains("truncated"), "{e}");
    let csv = dir.path().join("bad.csv");
    std::fs::write(&csv, "1,2\n3,x\n").unwrap();
    let e = Recording::open_with(&csv, &OpenOptions { rate: Some(1.0), ..Default::default() }).unwrap_err().to_string();
    assert!(e.contains("bad.csv") && e.contains("line 2, column 2") && e.contains("\"x\""), "{e}");
    let mat = dir.path().join("not.mat");
    std::fs::write(&mat, "MATLAB 7.3 MAT-file, HDF5").unwrap();
    let e = Recording::open_with(&mat, &OpenOptions { rate: Some(1.0), ..Default::default() }).unwrap_err().to_string();
    assert!(e.contains("not.mat") && e.contains("v7.3") && e.contains("re-save"), "{e}");
    // The CLI takes the rate from --rate.
    let bin = env!("CARGO_BIN_EXE_brainlens");
    let good = dir.path().join("g.npy");
    Array2::<f64>::zeros((2, 5)).write_npy(std::fs::File::create(&good).unwrap()).unwrap();
    let out = Command::new(bin).args(["info", good.to_str().unwrap(), "--rate", "5", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["duration_s"], 1.0);
}

#[test]
fn mne_gdf_test_file_opens_with_mnes_channel_and_values() {
    let rec = Recording::open(Path::new("../shared/data/formats/test_1ch.gdf")).unwrap();
    assert_eq!(rec.format_name(), "GDF 2.10");
    let c = &rec.channels()[0];
    assert_eq!((c.label.as_str(), c.sample_rate, c.physical_dimension.as_str()), ("ECG", 150.0, "mV"));
    assert!((rec.duration_s().unwrap() - 30.0).abs() < 1e-12);
    // MNE 1.13.2 read_raw_gdf(test_1ch.gdf).get_data()[0, :3] (volts) in mV.
    let v = rec.read(&[0], 0.0, 3.0 / 150.0).unwrap().remove(0).values;
    for (x, y) in v.iter().zip([-9.67200007e-06, -9.67200007e-06, -8.86599999e-06]) {
        assert!((x * 1e-3 - y).abs() < 1e-14, "{x} mV vs {y} V");
    }
    let bytes = std::fs::read("../shared/data/formats/test_1ch.gdf").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.gdf");
    std::fs::write(&cut, &bytes[..300]).unwrap();
    let e = Recording::open(&cut).unwrap_err().to_string();
    assert!(e.contains("cut.gdf") && e.contains("truncated"), "{e}");
}

/// Found by cargo-fuzz: a `.npy` whose shape's byte count overflows is a clear error naming the file. (The
/// `.mat` case the fuzzer found — dimensions that overflow the matfile crate — is util::mat5's unit test:
/// `.mat` recordings are now read by it.)
#[test]
fn arrays_with_overflowing_or_inconsistent_shapes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rate = OpenOptions { rate: Some(100.0), ..Default::default() };
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 8), }\n";
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    npy.extend_from_slice(dict.as_bytes());
    let p = dir.path().join("huge.npy");
    std::fs::write(&p, &npy).unwrap();
    let e = Recording::open_with(&p, &rate).unwrap_err().to_string();
    assert!(e.contains("huge.npy") && e.contains("more than 2^64"), "{e}");
}
