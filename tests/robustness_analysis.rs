//! Bad input never panics: thousands of mutated case and result JSON texts, random metric/prediction JSON
//! values through the scorer, random hypnogram texts, and degenerate signals (empty, constant, NaN, too
//! short) through every analysis. Each gives a value or an error — the test fails on a panic.

use brainlens::bench::case::Case;
use brainlens::bench::results::ResultFile;
use brainlens::bench::scoring::{Metric, ScoreContext, score_metric};
use brainlens::signal::connectivity::{Method, connectivity};
use brainlens::signal::sleep::{Codes, Hypnogram, sleep_statistics};
use brainlens::signal::spectrum::{WelchParams, band_power, welch};
use serde_json::{Value, json};

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn random_value(r: &mut Rng, depth: usize) -> Value {
    match r.below(if depth > 2 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => json!(r.below(2) == 0),
        2 => json!(r.below(1000) as i64 - 500),
        3 => json!((r.below(100000) as f64 - 50000.0) / 37.0),
        4 => json!(["a", "", "[x, y]", "NaN", "1e999", " 3 ", "é", "'q'"][r.below(8)]),
        5 => json!(f64::MAX),
        6 => Value::Array((0..r.below(4)).map(|_| random_value(r, depth + 1)).collect()),
        _ => {
            let keys = [
                "gt_value",
                "tolerance",
                "match_mode",
                "top_k",
                "position_weights",
                "allow_order_slip",
                "min_overlap",
                "score_per_hit",
                "judge_prompt",
                "validator_config",
                "weight",
                "value",
            ];
            Value::Object(
                (0..r.below(5)).map(|_| (keys[r.below(keys.len())].to_string(), random_value(r, depth + 1))).collect(),
            )
        }
    }
}

#[test]
fn the_scorer_and_case_validation_never_panic() {
    let mut r = Rng(0x9E3779B97F4A7C15);
    // The six units in their declared order, then two types no scorer knows.
    let types: Vec<&str> = brainlens::bench::scoring::UNIT_TYPES.iter().copied().chain(["nonsense", ""]).collect();
    let ws = tempfile::tempdir().unwrap();
    for _ in 0..5000 {
        let metric = json!({"metric_id": "m", "type": types[r.below(types.len())], "target_key": "k",
                            "weight": random_value(&mut r, 0), "params": random_value(&mut r, 0)});
        let parsed = json!({"k": random_value(&mut r, 0)});
        let m = Metric::from_value(&metric);
        let ctx =
            ScoreContext { workspace: Some(ws.path().to_path_buf()), strict: r.below(2) == 0, ..Default::default() };
        let s = score_metric(&parsed, "report", &m, &ctx);
        assert!((0.0..=1.0).contains(&s.raw_score));
        let case = json!({"meta_info": random_value(&mut r, 0), "agent_input": {"instruction": random_value(&mut r, 0)},
                          "eval_config": {"metrics": [metric, random_value(&mut r, 0)]}});
        let _ = Case::from_value(case, std::path::Path::new("case1/case1_1.json"));
    }
}

#[test]
fn mutated_result_files_are_errors_not_panics() {
    let demo = std::fs::read_to_string("fixtures/bench/demo/results/simulated-small_brainagent_run1.json").unwrap();
    let bytes = demo.as_bytes();
    let d = tempfile::tempdir().unwrap();
    let mut r = Rng(12345);
    for i in 0..300 {
        let mut b = bytes[..bytes.len().min(4000 + r.below(20000))].to_vec();
        for _ in 0..r.below(20) {
            let at = r.below(b.len());
            b[at] = [b'"', b'{', b'}', b'[', b']', b',', b':', b'0', b'N', b' ', 0xFF][r.below(11)];
        }
        let p = d.path().join(format!("m{i}.json"));
        std::fs::write(&p, &b).unwrap();
        if let Err(e) = ResultFile::load(&p) {
            assert!(e.to_string().contains(&format!("m{i}.json")), "{e}");
        }
    }
}

#[test]
fn hypnogram_texts_and_degenerate_signals() {
    let mut r = Rng(777);
    let tokens = ["W", "N1", "2", "3", "R", "?", "x", "", "-1", "9", "sbj01", ",", "reference", "0.5"];
    for _ in 0..2000 {
        let text: String = (0..r.below(30))
            .map(|_| format!("{}{}", tokens[r.below(tokens.len())], ["\n", ",", "\t"][r.below(3)]))
            .collect();
        if let Ok(h) = Hypnogram::from_text(&text, None, None, Codes::Yasa) {
            let _ = sleep_statistics(&h);
        }
    }
    let p = WelchParams::default();
    for x in [vec![], vec![1.0], vec![0.0; 10], vec![f64::NAN; 300], vec![1e308, -1e308, 1e308]] {
        if let Ok(psd) = welch(&x, 100.0, &p) {
            let _ = band_power(&psd, 8.0, 12.0, brainlens::signal::spectrum::Integration::Trapezoid);
        }
        let _ = welch(&x, 0.0, &p);
        let _ = brainlens::signal::physio::hrv(&brainlens::signal::physio::find_r_peaks(&x, 100.0), 100.0);
        let _ = brainlens::signal::spectrum::multitaper::multitaper_psd(&x, 100.0, None);
        let _ = brainlens::signal::resample::resample_poly(&x, 3, 2);
        let _ = brainlens::signal::filter::fir::FirFilter::design(
            100.0,
            Some(1.0),
            Some(40.0),
            brainlens::signal::filter::fir::FirWindow::Hamming,
        )
        .map(|f| f.apply(&x));
        for m in [Method::Corr, Method::Coh, Method::Plv, Method::Wpli] {
            let _ = connectivity(&[x.clone(), x.clone()], 100.0, m, Some((8.0, 12.0)), &p);
        }
    }
}
