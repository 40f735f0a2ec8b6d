//! Retrieval speed in release on this machine: MiniLM sentences/s (1,000 sentences, one at a time and in
//! batches of 32), a HARK query over 2,000 knowledge items (MiniLM, BM25, hybrid; item embeddings cached)
//! and a CARD ranking over 5,000 cases (graph + text partial scores already computed, as in the panel).
//! The 2,000 items and 5,000 cases are the shipped ones repeated with numbered variants (synthetic load).
//! Run: `cargo run --release --example retrieval_speed`.

use brainlens::network::atlas::Atlas;
use brainlens::retrieval::cases::CaseMemory;
use brainlens::retrieval::knowledge::{Hark, KnowledgeBase, default_dir, parse_regions};
use brainlens::retrieval::text::{MiniLm, TextMethod};
use std::sync::Arc;
use std::time::Instant;

fn median_ms(mut f: impl FnMut(), runs: usize) -> f64 {
    f();
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[runs / 2]
}

fn main() {
    let model = Arc::new(MiniLm::load_default().expect("scripts/setup_models.sh"));
    let base = KnowledgeBase::load(&default_dir()).unwrap();
    let sentences: Vec<String> =
        (0..1000).map(|i| format!("{} (variant {i})", base.items[i % base.items.len()].text)).collect();
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let s = Instant::now();
    model.embed(&refs).unwrap();
    let batched = 1000.0 / s.elapsed().as_secs_f64();
    let s = Instant::now();
    for r in refs.iter().take(200) {
        model.embed(&[r]).unwrap();
    }
    let single = 200.0 / s.elapsed().as_secs_f64();
    println!("MiniLM: {batched:.0} sentences/s in batches of 32, {single:.0} sentences/s one at a time");

    let mut items = Vec::new();
    for i in 0..2000 {
        let mut item = base.items[i % base.items.len()].clone();
        item.id = format!("{}-{i}", item.id);
        item.text = format!("{} (variant {i})", item.text);
        items.push(item);
    }
    let aal = Atlas::builtin("aal90").unwrap();
    let q = parse_regions("Precuneus_L,Precuneus_R,Frontal_Sup_Medial_L,Frontal_Sup_Medial_R", &aal).unwrap();
    for method in [TextMethod::Bm25, TextMethod::Minilm, TextMethod::Hybrid] {
        let hark = Hark::new(KnowledgeBase { items: items.clone() }, method, Some(model.clone())).unwrap();
        let mut n = 0;
        let first = median_ms(
            || {
                n += 1;
                drop(
                    hark.query(&format!("reduced default mode connectivity in autism {n}"), &q, &aal, "asd", 0.5, 5)
                        .unwrap(),
                )
            },
            21,
        );
        let again = median_ms(
            || drop(hark.query("reduced default mode connectivity in autism", &q, &aal, "asd", 0.5, 5).unwrap()),
            21,
        );
        println!(
            "HARK over 2,000 items ({}): new query text {first:.2} ms, same text again (slider moved) {again:.2} ms (medians of 21)",
            method.as_str()
        );
    }

    let memory = CaseMemory::load(std::path::Path::new("assets/cases/hcp_fingerprint")).unwrap();
    let mut big = memory.clone();
    big.cases = (0..5000)
        .map(|i| {
            let mut c = memory.cases[i % memory.cases.len()].clone();
            c.id = format!("{}-{i}", c.id);
            c
        })
        .collect();
    let query = big.cases[7].graph_embedding.clone();
    let text: Vec<f32> = (0..5000).map(|i| (i % 97) as f32 / 97.0).collect();
    let ms = median_ms(|| drop(big.rank(&query, &text, 0.5, 3, None).unwrap()), 21);
    println!("CARD ranking over 5,000 cases ({}-d graph embeddings): {ms:.2} ms (median of 21)", query.len());
    let report = big.cases[3].report_text.clone();
    let ms = median_ms(|| drop(big.text_scores(&report, Some(&model)).unwrap()), 11);
    println!("CARD text similarity of a new report to 5,000 cases (MiniLM, embeds the query report): {ms:.2} ms");
}
