//! Channel statistics against tests/expected/stats_reference.json (scripts/reference/stats_reference.py:
//! numpy var/RMS, scipy.stats.kurtosis, Welch line-noise ratio, numpy-percentile IQR rule) on two real
//! fixtures; 1e-9 relative (1e-6 for the Welch-based ratio), statuses exactly.

use brainlens::signal::Recording;
use brainlens::signal::channel_stats::channel_stats;
use serde_json::Value;
use std::path::Path;

#[test]
fn statistics_and_iqr_flags_equal_numpy_and_scipy() {
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string("tests/expected/stats_reference.json").unwrap()).unwrap();
    for (file, want) in r["files"].as_object().unwrap() {
        let rec = Recording::open(&Path::new("fixtures/eeg").join(file)).unwrap();
        let all: Vec<usize> = (0..rec.channels().len()).collect();
        let data = rec.read(&all, 0.0, rec.duration_s().unwrap() + 1.0).unwrap();
        let input: Vec<(String, Vec<f64>, f64)> =
            rec.channels().iter().zip(data).map(|(c, d)| (c.label.clone(), d.values, d.sample_rate)).collect();
        let got = channel_stats(&input, 50.0).unwrap();
        let close = |a: f64, b: f64, tol: f64, what: &str| {
            assert!((a - b).abs() <= tol * b.abs().max(1e-12), "{file} {what}: {a} vs {b}")
        };
        close(got.lower, want["lower"].as_f64().unwrap(), 1e-9, "lower");
        close(got.upper, want["upper"].as_f64().unwrap(), 1e-9, "upper");
        let wc = want["channels"].as_array().unwrap();
        assert_eq!(got.channels.len(), wc.len());
        for (g, w) in got.channels.iter().zip(wc) {
            assert_eq!(g.label, w["label"].as_str().unwrap());
            close(g.variance, w["variance"].as_f64().unwrap(), 1e-9, &format!("{} variance", g.label));
            close(g.rms, w["rms"].as_f64().unwrap(), 1e-9, &format!("{} rms", g.label));
            close(g.kurtosis, w["kurtosis"].as_f64().unwrap(), 1e-9, &format!("{} kurtosis", g.label));
            close(
                g.line_noise_ratio.unwrap(),
                w["line_noise_ratio"].as_f64().unwrap(),
                1e-6,
                &format!("{} line", g.label),
            );
            assert_eq!(g.status, w["status"].as_str().unwrap(), "{file} {}", g.label);
        }
    }
}
