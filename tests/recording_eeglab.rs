//! EEGLAB datasets behind the recording interface: MNE's test files (`../shared/data/formats`, tests only) —
//! samples in a `.fdt`, and inside the `.set` with event durations — and broken inputs, each refused with the
//! file and the problem named. scripts/reference/formats_reference.py checks whole files (and sets written
//! by mne.export, continuous and epoched) against MNE's readers.

use brainlens::signal::Recording;
use std::path::Path;

const FORMATS: &str = "../shared/data/formats";

#[test]
fn a_set_with_an_fdt_opens_with_mnes_channels_events_and_values() {
    let rec = Recording::open(&Path::new(FORMATS).join("test_raw_chanloc.set")).unwrap();
    assert_eq!(rec.format_name(), "EEGLAB (.set + .fdt)");
    let ch = rec.channels();
    assert_eq!((ch.len(), ch[0].label.as_str(), ch[60].label.as_str()), (61, "Fp1", "PO8"));
    assert!(ch.iter().all(|c| c.sample_rate == 128.0 && c.physical_dimension == "µV"));
    assert!((rec.duration_s().unwrap() - 385.0 / 128.0).abs() < 1e-12);
    // MNE 1.13.2 read_raw_eeglab: get_data()[:2, :3] × 1e6 and the annotations.
    let v = rec.read(&[0, 1], 0.0, 3.0 / 128.0).unwrap();
    assert_eq!(
        (v[0].values.as_slice(), v[1].values.as_slice()),
        ([0.0, 0.0, 0.0].as_slice(), [1.0, 0.0, 1.0].as_slice())
    );
    let a = rec.annotations().unwrap();
    assert_eq!(a.iter().map(|a| a.text.as_str()).collect::<Vec<_>>(), ["boundary", "S 12"]);
    assert!((a[1].onset_s - 0.014025).abs() < 1e-6);
}

#[test]
fn a_set_with_its_data_inside_and_event_durations() {
    let rec = Recording::open(&Path::new(FORMATS).join("test_raw_event_duration.set")).unwrap();
    assert_eq!(rec.format_name(), "EEGLAB (.set, data inside)");
    assert_eq!((rec.channels().len(), rec.channels()[0].label.as_str()), (1, "Cz"));
    let v = rec.read(&[0], 0.0, 3.0 / 128.0).unwrap().remove(0).values;
    // MNE's values are float32 (it casts data inside a .set): equal to 1e-6 relative.
    for (x, y) in v.iter().zip([14.99077034, 34.1840744, 25.09026337]) {
        assert!(((x - y) / y).abs() < 1e-6, "{x} vs {y}");
    }
    let a = rec.annotations().unwrap();
    let got: Vec<(&str, Option<f64>)> = a.iter().map(|a| (a.text.as_str(), a.duration_s)).collect();
    assert_eq!(got, [("square", Some(0.5)), ("square", Some(0.5)), ("rt", Some(0.5))]);
}

#[test]
fn broken_sets_name_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("text.set");
    std::fs::write(&text, "this is not MATLAB, just text that is long enough to hold a header of 128 bytes ........................................................").unwrap();
    let e = Recording::open(&text).unwrap_err().to_string();
    assert!(e.contains("text.set") && e.contains("not a MATLAB v5 file"), "{e}");
    // The .set without its .fdt.
    let set = dir.path().join("alone.set");
    std::fs::copy(Path::new(FORMATS).join("test_raw_chanloc.set"), &set).unwrap();
    let e = Recording::open(&set).unwrap_err().to_string();
    assert!(e.contains("alone.set") && e.contains("data file is missing") && e.contains("test_raw_chanloc.fdt"), "{e}");
    // A truncated .fdt: the samples present are read, and the repair says how many.
    let fdt = std::fs::read(Path::new(FORMATS).join("test_raw_chanloc.fdt")).unwrap();
    std::fs::write(dir.path().join("test_raw_chanloc.fdt"), &fdt[..61 * 4 * 100]).unwrap();
    let rec = Recording::open(&set).unwrap();
    assert!((rec.duration_s().unwrap() - 100.0 / 128.0).abs() < 1e-12);
    assert!(rec.repairs().iter().any(|r| r.to_string().contains("100 of the 385")), "{:?}", rec.repairs());
    // A cut .set: an element runs past the end.
    let bytes = std::fs::read(Path::new(FORMATS).join("test_raw_event_duration.set")).unwrap();
    let cut = dir.path().join("cut.set");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let e = Recording::open(&cut).unwrap_err().to_string();
    assert!(e.contains("cut.set") && e.contains("MATLAB file"), "{e}");
}
