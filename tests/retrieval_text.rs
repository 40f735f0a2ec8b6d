//! Text retrieval: MiniLM embeddings equal the numpy reference (scripts/reference/minilm_reference.py →
//! tests/expected/minilm_vectors.json) to 1e-4 on six sentences; the cache returns the same vectors; dense,
//! BM25 and hybrid indexes rank a hand-checkable query; `brainlens embed` prints both representations.

mod common;

use brainlens::retrieval::text::{MiniLm, TextMethod, build_index};
use serde_json::Value;
use std::sync::Arc;

fn model() -> Option<MiniLm> {
    let dir = MiniLm::default_dir();
    if !dir.join("model.safetensors").is_file() {
        assert_ne!(std::env::var("BRAINLENS_REQUIRE_MODELS").as_deref(), Ok("1"), "{} missing", dir.display());
        eprintln!("skipped: {} missing (scripts/setup_models.sh)", dir.display());
        return None;
    }
    Some(MiniLm::load(&dir).unwrap())
}

#[test]
fn minilm_equals_the_numpy_reference() {
    let Some(m) = model() else { return };
    let expected: Value = serde_json::from_str(include_str!("expected/minilm_vectors.json")).unwrap();
    let rows = expected["sentences"].as_array().unwrap();
    let texts: Vec<&str> = rows.iter().map(|r| r["text"].as_str().unwrap()).collect();
    let got = m.embed(&texts).unwrap();
    for (row, v) in rows.iter().zip(&got) {
        let want: Vec<f64> = row["vector"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        assert_eq!(v.len(), 384);
        let worst = want.iter().zip(v).map(|(a, b)| (a - *b as f64).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-4, "{}: max |Δ| {worst}", row["text"]);
    }
    // One at a time (no padding) equals the batch (padding masked).
    let single = m.embed(&[texts[3]]).unwrap().remove(0);
    assert!(single.iter().zip(&got[3]).all(|(a, b)| (a - b).abs() < 1e-5));
}

#[test]
fn each_method_ranks_the_matching_fact_first() {
    let docs: Vec<String> = [
        "Sleep spindles are 11-16 Hz bursts that mark N2 sleep.",
        "The precuneus and posterior cingulate are core hubs of the default mode network.",
        "Alpha power over occipital electrodes rises when the eyes close.",
        "Rich-club regions are densely interconnected high-degree hubs.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let bm25 = build_index(TextMethod::Bm25, &docs, None).unwrap();
    let best = |s: Vec<f32>| s.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
    assert_eq!(best(bm25.scores("default mode network hubs").unwrap()), 1);
    let e = build_index(TextMethod::Minilm, &docs, None).err().unwrap().to_string();
    assert!(e.contains("MiniLM"), "{e}");
    let Some(m) = model() else { return };
    let m = Arc::new(m);
    for method in [TextMethod::Minilm, TextMethod::Hybrid] {
        let index = build_index(method, &docs, Some(m.clone())).unwrap();
        assert_eq!(best(index.scores("What happens to the EEG when the eyes are shut?").unwrap()), 2, "{method:?}");
        assert_eq!(best(index.scores("spindle activity in stage 2").unwrap()), 0, "{method:?}");
    }
    // Cached: a second index over the same texts reads the vectors back bit for bit.
    let a = brainlens::retrieval::text::cache::embeddings(&m, &docs).unwrap();
    let b = brainlens::retrieval::text::cache::embeddings(&m, &docs).unwrap();
    assert_eq!(a, b);
}

#[test]
fn embed_cli() {
    let v = common::json(&["embed", "Sleep spindles, spindles and N2", "--model", "bm25", "--json"]);
    assert_eq!(v["terms"]["spindles"], 2);
    if model().is_none() {
        return;
    }
    let v = common::json(&["embed", "This is an example sentence", "--json"]);
    assert_eq!(v["dim"], 384);
    assert!((v["vector"][0].as_f64().unwrap() - 0.067657).abs() < 1e-4);
    let (code, _, err) = common::run(&["embed", "x", "--model", "word2vec"]);
    assert!(code == 1 && err.contains("word2vec"), "{err}");
}
