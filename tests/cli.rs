//! The command line as users script it: JSON shapes, errors on stderr with exit code 1.

mod common;
use common::{json, run};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg").join(name)
}

#[test]
fn info_reports_format_start_and_channels() {
    let f = fixture("test_subsecond.edf");
    let v = json(&["info", f.to_str().unwrap(), "--json"]);
    assert_eq!(v["format"], "EDF+C");
    // Header start 04:05:56 plus the first time-keeping TAL's +0.3945312 s.
    assert_eq!(v["start"], "2020-01-24T04:05:56.3945312");
    assert_eq!(v["record_count"], 698);
    assert_eq!(v["duration_s"], 698.0);
    assert_eq!(v["annotation_count"], 4);
    let c = &v["channels"][0];
    assert_eq!(c["label"], "Fp1");
    assert_eq!(c["sample_rate"], 128.0);
    assert_eq!(c["samples"], 698 * 128);
    // Inverted physical range is kept as written.
    assert!(c["physical_min"].as_f64().unwrap() > c["physical_max"].as_f64().unwrap());
    assert_eq!(v["repairs"].as_array().unwrap().len(), 0);
}

#[test]
fn samples_window_and_segments() {
    let f = fixture("test_generator.edf");
    let v = json(&[
        "samples",
        f.to_str().unwrap(),
        "--channel",
        "sine 8 Hz",
        "--start",
        "1.5",
        "--duration",
        "2",
        "--json",
    ]);
    assert_eq!(v["sample_rate"], 200.0);
    assert_eq!(v["values"].as_array().unwrap().len(), 400);
    assert_eq!(v["segments"], serde_json::json!([{"onset_s": 1.5, "n_samples": 400}]));
}

#[test]
fn annotations_keep_utf8() {
    let f = fixture("test_utf8.edf");
    let v = json(&["annotations", f.to_str().unwrap(), "--json"]);
    assert!(v.as_array().unwrap().iter().any(|a| a["text"] == "中文测试八个字"));
}

#[test]
fn page_applies_montage_and_filter() {
    let f = fixture("mne_sample_eeg60.edf");
    let v = json(&[
        "page",
        f.to_str().unwrap(),
        "--start",
        "5",
        "--duration",
        "4",
        "--montage",
        "EEG 001-EEG 002",
        "--highpass",
        "1",
        "--json",
    ]);
    let traces = v["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0]["label"], "EEG 001-EEG 002");
    assert_eq!(traces[0]["runs"][0]["values"].as_array().unwrap().len(), 1000);
}

#[test]
fn errors_go_to_stderr_with_exit_1() {
    let (code, out, err) = run(&["info", "/nonexistent/night.edf"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("/nonexistent/night.edf"), "{err}");
    let f = fixture("test_subsecond.edf");
    let (code, _, err) = run(&["samples", f.to_str().unwrap(), "--channel", "Cz"]);
    assert_eq!(code, 1);
    assert!(err.contains("no channel 'Cz'") && err.contains("Fp1"), "{err}");
    let (code, _, err) = run(&["page", f.to_str().unwrap(), "--montage", "double-banana"]);
    assert_eq!(code, 1);
    assert!(err.contains("too few 10-20 labels"), "{err}");
}

#[test]
fn network_metrics_json_and_bad_matrices() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = root.join("fixtures/networks/group-train706_fc.npz");
    let v = json(&["network", "metrics", f.to_str().unwrap(), "--threshold-proportional", "0.2", "--json"]);
    assert_eq!(v["n_nodes"], 100);
    // round(9900 · 0.2 / 2) = 990 links of 4950.
    assert!((v["density"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 100);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("asym.csv");
    std::fs::write(&bad, "0,1,2\n1,0,3\n2,4,0\n").unwrap();
    let (code, _, err) = run(&["network", "metrics", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("asym.csv: matrix is not symmetric: [1, 2] = 3 but [2, 1] = 4"), "{err}");
    let (code, out, err) = run(&["network", "metrics", bad.to_str().unwrap(), "--symmetrize", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("symmetrised"), "the fix is reported: {err}");
    assert!(out.contains("\"n_nodes\": 3"));
    let nan = dir.path().join("nan.tsv");
    std::fs::write(&nan, "0\tnan\nnan\t0\n").unwrap();
    let (code, _, err) = run(&["network", "metrics", nan.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("nan.tsv: entry [0, 1] is NaN"), "{err}");
}

#[test]
fn network_small_world_on_the_largest_component() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = root.join("fixtures/networks/group-train706_fc.npz");
    let v = json(&[
        "network",
        "metrics",
        f.to_str().unwrap(),
        "--threshold-proportional",
        "0.2",
        "--binary",
        "--smallworld",
        "--nrand",
        "2",
        "--json",
    ]);
    let sw = &v["small_world"];
    // At 20 % density the HCP group FC has 5 components; the largest holds 96 regions.
    assert_eq!(sw["nodes_used"], 96);
    // A brain network is small-world: σ > 1 and ω between −0.5 and 0.5.
    assert!(sw["sigma"].as_f64().unwrap() > 1.0);
    assert!(sw["omega"].as_f64().unwrap().abs() < 0.5);
}

#[test]
fn network_describe_levels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = root.join("fixtures/networks/group-train706_fc.npz");
    let v = json(&["network", "describe", f.to_str().unwrap(), "--atlas", "schaefer100", "--json"]);
    assert_eq!(v["triplets"].as_array().unwrap().len(), 990);
    let t = &v["triplets"][0];
    // The first triplet starts at the highest-degree region (LH_Vis_7, degree 43 at 20 % density).
    assert_eq!(t["src"], "LH_Vis_7");
    assert_eq!(v["hubs"].as_array().unwrap().len(), 15);
    assert_eq!(v["networks"].as_array().unwrap().len(), 7);
    assert!(v["graph"]["sigma"].is_null(), "σ only with --smallworld");
    let (code, text, _) = run(&["network", "describe", f.to_str().unwrap(), "--max-links", "3"]);
    assert_eq!(code, 0);
    assert!(text.starts_with("Graph: 100 regions, density 0.200"));
    assert!(text.contains("Links (source, target, weight), 3 of 990"));
}

#[test]
fn atlas_auto_is_the_networks_rooms_guess_and_says_so() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let f = root.join("fixtures/networks/group-train706_fc.npz");
    let (code, text, err) = run(&["network", "describe", f.to_str().unwrap(), "--atlas", "auto", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("Schaefer-100 (Yeo-7) assumed from the 100 regions"), "{err}");
    let auto: serde_json::Value = serde_json::from_str(&text).unwrap();
    let named = json(&["network", "describe", f.to_str().unwrap(), "--atlas", "schaefer100", "--json"]);
    assert_eq!(auto, named, "auto on 100 regions is schaefer100");
    // The same rule the GUI uses, from the core.
    let (atlas, note) = brainlens::network::atlas::infer(&f, 100);
    assert_eq!(atlas.unwrap().name, brainlens::network::atlas::Atlas::builtin("schaefer100").unwrap().name);
    assert!(note.contains("assumed from the 100 regions"));
    assert!(brainlens::network::atlas::infer(&f, 37).0.is_none());
}

#[test]
fn network_export_brainnet_round_trip() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    // A 90-region matrix cut from the real group FC, labelled with AAL-90 only to exercise the format.
    let fc = root.join("fixtures/networks/group-train706_fc.npz");
    let csv = dir.path().join("fc.csv");
    json(&["network", "metrics", fc.to_str().unwrap(), "--json"]);
    let (code, _, err) = run(&[
        "network",
        "export",
        fc.to_str().unwrap(),
        "--out",
        csv.to_str().unwrap(),
        "--threshold-proportional",
        "0.2",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows.len(), 101, "header + 100 rows");
    let edge = dir.path().join("fc.edge");
    let (code, out, err) =
        run(&["network", "export", fc.to_str().unwrap(), "--out", edge.to_str().unwrap(), "--atlas", "schaefer100"]);
    assert_eq!(code, 0, "{err}");
    // Schaefer-100 has coordinates (surface centroids on conte69): the BrainNet .node is written beside.
    assert!(out.contains(".node"), "{out}");
    let node = std::fs::read_to_string(dir.path().join("fc.node")).unwrap();
    assert_eq!(node.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count(), 100, "{node}");
    let v = json(&["network", "metrics", edge.to_str().unwrap(), "--threshold-proportional", "0.2", "--json"]);
    let w = json(&["network", "metrics", fc.to_str().unwrap(), "--threshold-proportional", "0.2", "--json"]);
    assert_eq!(v["global_efficiency"], w["global_efficiency"], ".edge keeps every weight exactly");
    let (code, _, err) =
        run(&["network", "export", fc.to_str().unwrap(), "--out", edge.to_str().unwrap(), "--atlas", "aal90"]);
    assert_eq!(code, 1);
    assert!(err.contains("100 regions but atlas AAL-90 has 90 labels"), "{err}");
}

#[test]
fn network_mat_file_equals_npz() {
    use brainlens::network::connectome::Asymmetry;
    use brainlens::network::io::load;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks");
    // The same real SC matrix saved by scipy.io.savemat (variable CIJ, beside a 1 × 3 array 'note').
    let a = load(&root.join("sub-100307_sc-strength.mat"), Asymmetry::Error).unwrap();
    let b = load(&root.join("sub-100307_sc-strength.npz"), Asymmetry::Error).unwrap();
    assert_eq!(a.w, b.w);
}

#[test]
fn from_timeseries_windows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.npy");
    let ts = root.join("sub-100206_REST1_LR_bold.npz");
    let (code, text, err) = run(&[
        "network",
        "from-timeseries",
        ts.to_str().unwrap(),
        "--first",
        "400",
        "--count",
        "400",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("from 400 time points"));
    // Same bytes as the committed window fixture made by scripts/make_network_fixtures.sh.
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(root.join("fc/sub-100206_REST1_win1_fc.npy")).unwrap());
    let (code, _, err) = run(&[
        "network",
        "from-timeseries",
        ts.to_str().unwrap(),
        "--first",
        "1100",
        "--count",
        "400",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("window 1100..1500 outside the 1200 time points"), "{err}");
}

#[test]
fn network_files_that_cannot_be_read_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // A MATLAB v7.3 file is HDF5: refused with a clear message, not misread.
    let mat = dir.path().join("v73.mat");
    let mut bytes =
        b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 HDF5 schema 1.00 .".to_vec();
    bytes.resize(512, 0);
    bytes.extend_from_slice(b"\x89HDF\r\n\x1a\n");
    std::fs::write(&mat, &bytes).unwrap();
    let (code, _, err) = run(&["network", "metrics", mat.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("v73.mat: not a MATLAB v5 .mat file") && err.contains("v7.3 (HDF5) files are not supported"),
        "{err}"
    );
    let npz = dir.path().join("bad.npz");
    std::fs::write(&npz, b"not a zip").unwrap();
    let (code, _, err) = run(&["network", "metrics", npz.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.npz: not a .npz archive"), "{err}");
    let ragged = dir.path().join("ragged.csv");
    std::fs::write(&ragged, "0,1,2\n1,0\n2,3,0\n").unwrap();
    let (code, _, err) = run(&["network", "metrics", ragged.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("ragged.csv: row 2 has 2 values, the first row has 3"), "{err}");
}
