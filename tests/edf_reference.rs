//! Header fields, samples and annotations of every fixture equal pyedflib 0.1.42 (and MNE 1.13.2 for the
//! plain-EDF annotation file), to 1e-9 relative in physical units. Expected values:
//! tests/expected/edf_reference.json, written by `scripts/reference/edf_reference.py --write`.

use brainlens::signal::Recording;
use serde_json::Value;
use std::path::Path;

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-9 * scale.max(b.abs()) + 1e-12
}

#[test]
fn every_fixture_matches_pyedflib() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/expected/edf_reference.json")).unwrap())
            .unwrap();
    let files = expected["files"].as_object().unwrap();
    assert_eq!(files.len(), 8, "one entry per fixture");
    for (name, exp) in files {
        let rec = Recording::open(&root.join("fixtures/eeg").join(name)).unwrap();
        let h = rec.header().unwrap();
        assert_eq!(h.format.name(), exp["format"].as_str().unwrap(), "{name}: format");
        assert!(rec.header().unwrap().start.iso8601().starts_with(exp["start"].as_str().unwrap()), "{name}: start");
        assert!((h.start.subsecond - exp["subsecond"].as_f64().unwrap()).abs() < 1e-7, "{name}: subsecond");
        assert_eq!(h.record_count, exp["record_count"].as_u64().unwrap(), "{name}: records");
        assert_eq!(h.record_duration, exp["record_duration_s"].as_f64().unwrap(), "{name}: record duration");
        let chans = exp["channels"].as_array().unwrap();
        assert_eq!(rec.channels().len(), chans.len(), "{name}: channel count");
        for (i, ec) in chans.iter().enumerate() {
            let c = &rec.channels()[i];
            let s = &h.signals[c.signal];
            assert_eq!(c.label, ec["label"].as_str().unwrap(), "{name}: label");
            let label = &c.label;
            assert_eq!(c.sample_rate, ec["sample_rate"].as_f64().unwrap(), "{name} {label}: rate");
            assert_eq!(s.physical_dimension, ec["physical_dimension"].as_str().unwrap(), "{name} {label}");
            assert!(close(s.physical_min, ec["physical_min"].as_f64().unwrap(), 0.0), "{name} {label}");
            assert!(close(s.physical_max, ec["physical_max"].as_f64().unwrap(), 0.0), "{name} {label}");
            assert_eq!(s.digital_min, ec["digital_min"].as_i64().unwrap(), "{name} {label}");
            assert_eq!(s.digital_max, ec["digital_max"].as_i64().unwrap(), "{name} {label}");
            assert_eq!(s.prefilter, ec["prefilter"].as_str().unwrap(), "{name} {label}");
            assert_eq!(s.transducer, ec["transducer"].as_str().unwrap(), "{name} {label}");
            let data = rec.read(&[i], 0.0, f64::INFINITY).unwrap().remove(0);
            let sum = &ec["summary"];
            assert_eq!(data.values.len() as u64, sum["n"].as_u64().unwrap(), "{name} {label}: n");
            let scale = data.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for (idx, v) in sum["index"].as_array().unwrap().iter().zip(sum["values"].as_array().unwrap()) {
                let (idx, v) = (idx.as_u64().unwrap() as usize, v.as_f64().unwrap());
                assert!(close(data.values[idx], v, 0.0), "{name} {label}[{idx}]: {} vs {v}", data.values[idx]);
            }
            let n = data.values.len() as f64;
            let total: f64 = data.values.iter().sum();
            assert!(close(total, sum["sum"].as_f64().unwrap(), scale * n), "{name} {label}: sum");
            let sq: f64 = data.values.iter().map(|v| v * v).sum();
            assert!(close(sq, sum["sum_sq"].as_f64().unwrap(), scale * scale * n), "{name} {label}: sum of squares");
        }
        let ann = rec.annotations().unwrap();
        let eann = exp["annotations"].as_array().unwrap();
        assert_eq!(ann.len(), eann.len(), "{name}: annotation count");
        for (a, e) in ann.iter().zip(eann) {
            assert_eq!(a.text, e["text"].as_str().unwrap(), "{name}");
            assert!((a.onset_s - e["onset_s"].as_f64().unwrap()).abs() < 1e-6, "{name} {}: onset", a.text);
            assert_eq!(a.duration_s, e["duration_s"].as_f64(), "{name} {}: duration", a.text);
        }
    }
}
