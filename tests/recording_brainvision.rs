//! The BrainVision reader behind the recording interface: MNE's own test file (`../shared/data/formats`,
//! tests only), files this test writes from the real MNE sample EEG in every layout the reader takes (INT_16,
//! INT_32, IEEE_FLOAT_32; multiplexed and vectorised; big-endian; per-channel resolution and unit; markers
//! and "New Segment" runs), and broken inputs, each refused with the file and the problem named.
//! scripts/reference/brainvision_reference.py checks the same reader against MNE's on whole files.

mod common;
use brainlens::signal::Recording;
use common::brainvision::{Layout, sample_channels, write_bv};
use std::path::Path;
use std::process::Command;

const NO: &str = "../shared/data/formats/test_NO.vhdr";

#[test]
fn mne_test_file_opens_with_mnes_channels_rate_and_values() {
    let rec = Recording::open(Path::new(NO)).unwrap();
    assert_eq!(rec.format_name(), "BrainVision (IEEE_FLOAT_32)");
    assert_eq!(rec.channels().len(), 65);
    assert_eq!(rec.channels()[64].label, "EMGleft");
    assert!(rec.channels().iter().all(|c| c.sample_rate == 5000.0 && c.physical_dimension == "µV"));
    assert!((rec.duration_s().unwrap() - 2238.0 / 5000.0).abs() < 1e-12);
    // MNE 1.13.2 read_raw_brainvision(test_NO.vhdr).get_data()[0, :5] × 1e6.
    let v = rec.read(&[0], 0.0, 5.0 / 5000.0).unwrap().remove(0).values;
    assert_eq!(v, [-427479.5, -427544.09375, -427578.21875, -427537.21875, -427490.5]);
    assert!(rec.annotations().unwrap().is_empty(), "its only marker is the first New Segment, which MNE drops");
}

#[test]
fn every_layout_reads_the_same_samples() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let res = 0.5;
    let quantised: Vec<Vec<f64>> = data.iter().map(|c| c.iter().map(|v| (v / res).round() * res).collect()).collect();
    for (format, vectorized, big_endian) in [
        ("INT_16", false, false),
        ("INT_16", true, true),
        ("INT_32", true, false),
        ("INT_32", false, true),
        ("IEEE_FLOAT_32", false, false),
        ("IEEE_FLOAT_32", true, true),
    ] {
        let name = format!("{format}_{vectorized}_{big_endian}");
        let path =
            write_bv(dir.path(), &name, &data, fs, Layout { format, vectorized, big_endian, resolution: res }, &[]);
        let rec = Recording::open(&path).unwrap();
        assert_eq!(rec.channels()[0].label, "E1,x", "\\1 in a name is a comma");
        // A window in the middle, and the whole file.
        let got = rec.read(&[2, 0], 10.0, 2.0).unwrap();
        let (i0, i1) = (2500, 3000);
        let want = if format == "IEEE_FLOAT_32" { &data } else { &quantised };
        for (g, c) in got.iter().zip([2, 0]) {
            assert_eq!(g.values.len(), i1 - i0, "{name}");
            for (a, b) in g.values.iter().zip(&want[c][i0..i1]) {
                // Float32 storage keeps 24 bits of the value ÷ resolution.
                assert!((a - b).abs() <= 1e-6 * b.abs().max(1.0), "{name}: {a} vs {b}");
            }
        }
        let all = rec.read(&[1], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0);
        assert_eq!(all.values.len(), data[1].len(), "{name}");
    }
}

#[test]
fn markers_become_mnes_annotations_and_new_segments_start_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let markers = [
        ("New Segment", "", 1, 1),
        ("Stimulus", "S  1", 251, 1),
        ("Comment", "eyes\\1closed", 1001, 250),
        ("New Segment", "", 2501, 1),
        ("Response", "R  2", 3000, 0),
    ];
    let path = write_bv(dir.path(), "markers", &data, fs, Layout::int16(), &markers);
    let rec = Recording::open(&path).unwrap();
    let a: Vec<(f64, Option<f64>, &str)> =
        rec.annotations().unwrap().iter().map(|a| (a.onset_s, a.duration_s, a.text.as_str())).collect();
    // As MNE: onset = (position − 1) / rate, duration = points / rate, "Type/Description", first New Segment dropped.
    assert_eq!(
        a,
        [
            (1.0, Some(1.0 / 250.0), "Stimulus/S  1"),
            (4.0, Some(1.0), "Comment/eyes,closed"),
            (10.0, Some(1.0 / 250.0), "New Segment/"),
            (11.996, Some(0.0), "Response/R  2"),
        ]
    );
    let d = rec.read(&[0], 9.0, 2.0).unwrap().remove(0);
    let runs: Vec<(f64, usize)> = d.segments.iter().map(|s| (s.onset_s, s.n_samples)).collect();
    assert_eq!(runs, [(9.0, 250), (10.0, 250)]);
}

#[test]
fn broken_files_are_refused_with_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let path = write_bv(dir.path(), "ok", &data, fs, Layout::int16(), &[]);
    let header = std::fs::read_to_string(&path).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("missing_data", header.replace("DataFile=ok.eeg", "DataFile=gone.eeg"), "DataFile: "),
        ("not_bv", header.replace("Brain Vision Data Exchange", "Some Other"), "is not a BrainVision header line"),
        ("no_channels", header.replace("NumberOfChannels=3", "NumberOfChannels=x"), "NumberOfChannels"),
        ("bad_format", header.replace("BinaryFormat=INT_16", "BinaryFormat=INT_8"), "BinaryFormat"),
        ("ascii", header.replace("DataFormat=BINARY", "DataFormat=ASCII"), "only BINARY"),
        ("bad_interval", header.replace("SamplingInterval=4000", "SamplingInterval=0"), "SamplingInterval"),
        ("missing_channel", header.replace("Ch3=", "Xx3="), "[Channel Infos] Ch3: missing"),
    ];
    for (name, text, expected) in cases {
        let p = dir.path().join(format!("{name}.vhdr"));
        std::fs::write(&p, text).unwrap();
        let e = Recording::open(&p).unwrap_err().to_string();
        assert!(e.contains(&format!("{name}.vhdr")) && e.contains(expected), "{name}: {e}");
        // The CLI exits non-zero with the same message on stderr.
        let o = Command::new(env!("CARGO_BIN_EXE_brainlens")).arg("info").arg(&p).output().unwrap();
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains(expected), "{name}");
    }
    // A truncated data file opens with a repair note and the whole samples it holds.
    let eeg = dir.path().join("ok.eeg");
    let len = std::fs::metadata(&eeg).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&eeg).unwrap().set_len(len - 7).unwrap();
    let rec = Recording::open(&path).unwrap();
    assert_eq!(rec.read(&[0], 0.0, 100.0).unwrap()[0].values.len() as u64, (len - 7) / 6);
    assert!(rec.repairs().iter().any(|r| r.to_string().contains("not a whole number")), "{:?}", rec.repairs());
}

/// The commands that write a processed copy take BrainVision too: the copy is BDF+ (24-bit) in records that
/// divide the samples exactly, with the markers as annotations; saving annotations writes the same.
#[test]
fn processed_copies_of_a_brainvision_recording_are_bdf_plus() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let markers = [("New Segment", "", 1, 1), ("Stimulus", "S  1", 251, 1)];
    let path = write_bv(dir.path(), "src", &data, fs, Layout::int16(), &markers);
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    let p = path.to_str().unwrap();
    let half = dir.path().join("half.bdf");
    run(&["resample", p, "--sfreq", "125", "--out", half.to_str().unwrap()]);
    let r = Recording::open(&half).unwrap();
    assert_eq!(r.format_name(), "BDF+C");
    assert_eq!(r.channels()[0].sample_rate, 125.0);
    assert_eq!(r.read(&[0], 0.0, 100.0).unwrap()[0].values.len(), data[0].len() / 2);
    let filtered = dir.path().join("filtered.bdf");
    run(&["filter", p, "--l-freq", "1", "--h-freq", "40", "--out", filtered.to_str().unwrap()]);
    let r = Recording::open(&filtered).unwrap();
    assert_eq!(r.annotations().unwrap()[0].text, "Stimulus/S  1");
    assert_eq!(r.read(&[2], 0.0, 100.0).unwrap()[0].values.len(), data[2].len());
    // Saving with annotations: every sample as recorded, to 24-bit precision over the channel's range.
    let rec = Recording::open(&path).unwrap();
    let copy = dir.path().join("copy.bdf");
    brainlens::signal::edf::save::save_with_annotations(&rec, rec.annotations().unwrap(), &copy).unwrap();
    let c = Recording::open(&copy).unwrap();
    let (a, b) =
        (rec.read(&[0], 0.0, 100.0).unwrap().remove(0).values, c.read(&[0], 0.0, 100.0).unwrap().remove(0).values);
    let span = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= span * 2.0 / 8_388_607.0), "24-bit copy");
}

/// `brainlens convert` round trips: an INT_16 recording written again as INT_16 at its own resolution holds
/// the same integers (values equal exactly), a float32 recording written as float32 the same floats, and an
/// INT_16 recording through float32 keeps every value to float32 precision (2⁻²⁴ relative).
#[test]
fn brainvision_round_trips_are_exact_for_integers_and_float32() {
    let dir = tempfile::tempdir().unwrap();
    let (data, fs) = sample_channels();
    let markers = [("Stimulus", "S  1", 251, 1)];
    let convert = |src: &Path, out: &str, extra: &[&str]| {
        let out = dir.path().join(out);
        let o = Command::new(env!("CARGO_BIN_EXE_brainlens"))
            .args(["convert", src.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    };
    let values = |p: &Path| {
        let r = Recording::open(p).unwrap();
        let all: Vec<usize> = (0..r.channels().len()).collect();
        (
            r.read(&all, 0.0, 1e6).unwrap().into_iter().map(|d| d.values).collect::<Vec<_>>(),
            r.annotations().unwrap().to_vec(),
        )
    };
    let int16 = write_bv(dir.path(), "int16", &data, fs, Layout::int16(), &markers);
    let (src, src_ann) = values(&int16);
    let again = convert(&int16, "again.vhdr", &["--samples", "int16", "--resolution", "0.5"]);
    let (back, ann) = values(&again);
    assert_eq!(back, src, "INT_16 → INT_16 at the same resolution: the same integers");
    assert_eq!(ann, src_ann);
    let float = convert(&int16, "float.vhdr", &[]);
    let (f, _) = values(&float);
    for (a, b) in f.iter().flatten().zip(src.iter().flatten()) {
        assert!((a - b).abs() <= b.abs() * 2f64.powi(-24), "{a} vs {b}");
    }
    let float_again = convert(&float, "float_again.vhdr", &[]);
    assert_eq!(values(&float_again).0, f, "float32 → float32: the same floats");
}
