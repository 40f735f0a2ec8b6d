//! Spectra against their references on the real fixtures (values in tests/expected/spectrum_reference.json,
//! written by scripts/reference/spectrum_reference.py): scipy 1.17.1 `scipy.signal.welch` (PSD within 1e-6
//! relative per bin), numpy `trapezoid` / scipy `simpson` band power and yasa 0.8.1 `bandpower` (1e-6
//! relative), peak frequency and spectral edge (exact bin), antropy `spectral_entropy` (1e-6).

use brainlens::signal::Recording;
use brainlens::signal::spectrum::*;
use serde_json::Value;
use std::path::Path;

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string("tests/expected/spectrum_reference.json").unwrap()).unwrap()
}

fn channel(file: &str, label: &str) -> (f64, Vec<f64>) {
    let rec = Recording::open(&Path::new("fixtures/eeg").join(file)).unwrap();
    let i = rec.channel_index(label).unwrap();
    let d = rec.read(&[i], 0.0, rec.duration_s().unwrap() + 1.0).unwrap().remove(0);
    (d.sample_rate, d.values)
}

fn params(p: &Value) -> WelchParams {
    let u = |k: &str| p.get(k).and_then(Value::as_u64).map(|v| v as usize);
    WelchParams {
        nperseg: u("nperseg"),
        noverlap: u("noverlap"),
        nfft: u("nfft"),
        window: Window::parse(p.get("window").and_then(Value::as_str).unwrap_or("hann")).unwrap(),
        detrend: match p.get("detrend") {
            Some(Value::Bool(false)) => Detrend::None,
            Some(Value::String(s)) => Detrend::parse(s).unwrap(),
            _ => Detrend::Constant,
        },
        scaling: Scaling::parse(p.get("scaling").and_then(Value::as_str).unwrap_or("density")).unwrap(),
        average: Average::parse(p.get("average").and_then(Value::as_str).unwrap_or("mean")).unwrap(),
    }
}

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}

#[test]
fn welch_equals_scipy() {
    let r = reference();
    let cases = r["welch"].as_array().unwrap();
    assert!(cases.len() >= 12);
    for c in cases {
        let (fs, x) = channel(c["file"].as_str().unwrap(), c["channel"].as_str().unwrap());
        let p = welch(&x, fs, &params(&c["params"])).unwrap();
        let want: Vec<f64> = c["psd"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert_eq!(p.psd.len(), want.len(), "{c:?}");
        // Relative per bin; a bin that is zero up to rounding (the DC bin after removing the mean with a boxcar
        // window) is compared to 1e-12 of the spectrum's peak instead.
        let floor = 1e-12 * want.iter().cloned().fold(0.0, f64::max);
        let max_rel = p.psd.iter().zip(&want).map(|(a, b)| (a - b).abs() / b.abs().max(floor)).fold(0.0, f64::max);
        assert!(max_rel < 1e-6, "{} {} {}: max relative error {max_rel:e}", c["file"], c["channel"], c["params"]);
    }
}

#[test]
fn band_power_peak_edge_and_entropy_equal_their_references() {
    let r = reference();
    let bp = &r["bandpower"];
    let rec = Recording::open(Path::new("fixtures/eeg/mne_sample_eeg60.edf")).unwrap();
    let all: Vec<usize> = (0..rec.channels().len()).collect();
    let data = rec.read(&all, 0.0, rec.duration_s().unwrap() + 1.0).unwrap();
    assert_eq!(data.len(), 61);
    for (ch, d) in rec.channels().iter().zip(&data) {
        let fs = d.sample_rate;
        let p = welch(&d.values, fs, &WelchParams { nperseg: Some(500), ..Default::default() }).unwrap();
        let label = ch.label.as_str();
        let want = |key: &str| bp[key][label].as_f64().unwrap_or_else(|| panic!("{key} {label}"));
        let check =
            |got: f64, key: &str| assert!(rel_close(got, want(key), 1e-6), "{label} {key}: {got} vs {}", want(key));
        let t = band_power(&p, 8.0, 12.0, Integration::Trapezoid).unwrap();
        check(t, "trapezoid_abs");
        check(t / band_power(&p, 1.0, 40.0, Integration::Trapezoid).unwrap(), "trapezoid_rel");
        let s = band_power(&p, 8.0, 12.0, Integration::Simpson).unwrap();
        check(s, "simpson_abs");
        check(s / band_power(&p, 1.0, 40.0, Integration::Simpson).unwrap(), "simpson_rel");
        assert_eq!(peak_frequency(&p, 7.0, 13.0), Some(want("peak_7_13")), "{label}");
        assert_eq!(spectral_edge(&p, 1.0, 40.0, 0.95), Some(want("sef95_1_40")), "{label}");
        let default = welch(&d.values, fs, &WelchParams::default()).unwrap();
        check(spectral_entropy(&default, 0.0, f64::INFINITY, true).unwrap(), "entropy_norm");
        // YASA's convention: Hamming, median, 4-s windows, Simpson; relative to the bands' range (1–30 Hz).
        let y = welch(
            &d.values,
            fs,
            &WelchParams {
                nperseg: Some((4.0 * fs) as usize),
                window: Window::Hamming,
                average: Average::Median,
                ..Default::default()
            },
        )
        .unwrap();
        let alpha = band_power(&y, 8.0, 12.0, Integration::Simpson).unwrap();
        check(alpha, "yasa_alpha_abs");
        check(alpha / band_power(&y, 1.0, 30.0, Integration::Simpson).unwrap(), "yasa_alpha_rel");
    }
}

/// `scipy.signal.spectrogram` (tests/expected/spectrogram_reference.npz): segment times exactly, every kept
/// segment's PSD within 1e-6 relative (bins at rounding-level zero against 1e-12 of the peak).
#[test]
fn spectrogram_equals_scipy() {
    use brainlens::signal::spectrum::spectrogram::spectrogram;
    use ndarray::{Array1, Array2};
    let mut npz =
        ndarray_npy::NpzReader::new(std::fs::File::open("tests/expected/spectrogram_reference.npz").unwrap()).unwrap();
    let (fs, x) = channel("test_subsecond.edf", "Fp1");
    let cases = [
        WelchParams { window: Window::Tukey25, ..Default::default() },
        WelchParams {
            window: Window::Hann,
            nperseg: Some(512),
            noverlap: Some(256),
            detrend: Detrend::Linear,
            ..Default::default()
        },
    ];
    for (k, p) in cases.iter().enumerate() {
        let s = spectrogram(&x, fs, p).unwrap();
        let times: Array1<f64> = npz.by_name(&format!("case{k}_times")).unwrap();
        assert_eq!(s.times.len(), times.len(), "case {k}");
        for (a, b) in s.times.iter().zip(times.iter()) {
            assert!((a - b).abs() < 1e-9, "case {k}: time {a} vs {b}");
        }
        let sxx: Array2<f64> = npz.by_name(&format!("case{k}_sxx")).unwrap();
        for (r, want) in sxx.outer_iter().enumerate() {
            let got = s.row(r * 5);
            let floor = 1e-12 * want.iter().cloned().fold(0.0, f64::max);
            for (a, b) in got.iter().zip(want.iter()) {
                assert!((a - b).abs() <= 1e-6 * b.abs().max(floor), "case {k} segment {}: {a} vs {b}", r * 5);
            }
        }
    }
}

/// DPSS tapers and concentration ratios = `scipy.signal.windows.dpss(1280, 4, 8, sym=False,
/// return_ratios=True)` (1e-9), and multitaper PSDs = MNE 1.13.2 `psd_array_multitaper(adaptive=False,
/// normalization='length')` on real segments (1e-6 relative per bin) — tests/expected/multitaper_reference.npz.
#[test]
fn multitaper_equals_mne() {
    use brainlens::signal::spectrum::multitaper::{dpss, multitaper_psd};
    use ndarray::{Array1, Array2};
    let mut npz =
        ndarray_npy::NpzReader::new(std::fs::File::open("tests/expected/multitaper_reference.npz").unwrap()).unwrap();
    let (tapers, ratios) = dpss(1280, 4.0, 8);
    let want_t: Array2<f64> = npz.by_name("dpss_tapers").unwrap();
    let want_r: Array1<f64> = npz.by_name("dpss_ratios").unwrap();
    for k in 0..8 {
        assert!((ratios[k] - want_r[k]).abs() < 1e-9, "ratio {k}: {} vs {}", ratios[k], want_r[k]);
        for i in 0..1280 {
            assert!(
                (tapers[k][i] - want_t[[k, i]]).abs() < 1e-9,
                "taper {k}[{i}]: {} vs {}",
                tapers[k][i],
                want_t[[k, i]]
            );
        }
    }
    for (k, (file, ch, start, dur, bw)) in [
        ("test_subsecond.edf", "Fp1", 0.0, 10.0, None),
        ("test_subsecond.edf", "Fp1", 100.0, 30.0, Some(1.0)),
        ("mne_sample_eeg60.edf", "EEG 001", 0.0, 24.0, Some(2.0)),
    ]
    .iter()
    .enumerate()
    {
        let (fs, x) = channel(file, ch);
        let seg = &x[(start * fs) as usize..((start + dur) * fs) as usize];
        let p = multitaper_psd(seg, fs, *bw).unwrap();
        let want: Array1<f64> = npz.by_name(&format!("case{k}")).unwrap();
        assert_eq!(p.psd.len(), want.len());
        let floor = 1e-12 * want.iter().cloned().fold(0.0, f64::max);
        for (a, b) in p.psd.iter().zip(want.iter()) {
            assert!((a - b).abs() <= 1e-6 * b.abs().max(floor), "case {k}: {a} vs {b}");
        }
    }
}

/// The compressed spectral array is the multitaper PSD of each epoch.
#[test]
fn cdsa_is_the_multitaper_psd_of_each_epoch() {
    use brainlens::signal::spectrum::multitaper::multitaper_psd;
    use brainlens::signal::spectrum::spectrogram::multitaper_cdsa;
    let (fs, x) = channel("mne_sample_eeg60.edf", "EEG 001");
    let c = multitaper_cdsa(&x, fs, 6.0, Some(2.0)).unwrap();
    assert_eq!(c.times, [3.0, 9.0, 15.0, 21.0]);
    for e in 0..4 {
        let p = multitaper_psd(&x[e * 1500..(e + 1) * 1500], fs, Some(2.0)).unwrap();
        assert_eq!(c.row(e), &p.psd[..]);
    }
}
