//! `brainlens embed`: the text representations retrieval compares.

use super::write_json;
use crate::retrieval::text::bm25::tokenize;
use crate::retrieval::text::{MiniLm, TextMethod};
use anyhow::{Result, anyhow, bail};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;

/// `embed TEXT --model minilm|bm25`: the unit-length MiniLM vector, or BM25's bag of words.
pub fn embed(text: &str, model: &str, json: bool, out: &mut dyn Write) -> Result<()> {
    match TextMethod::parse(model).map_err(|e| anyhow!(e))? {
        TextMethod::Minilm => {
            let m = MiniLm::load_default().map_err(|e| anyhow!(e))?;
            let v = m.embed(&[text]).map_err(|e| anyhow!(e))?.remove(0);
            if json {
                return write_json(out, &json!({"model": m.name, "dim": v.len(), "vector": v}));
            }
            let head: Vec<String> = v.iter().take(8).map(|x| format!("{x:.6}")).collect();
            writeln!(out, "{} ({} dimensions, unit length): {} …", m.name, v.len(), head.join(" "))?;
        }
        TextMethod::Bm25 => {
            let mut counts: BTreeMap<String, usize> = BTreeMap::new();
            for t in tokenize(text) {
                *counts.entry(t).or_default() += 1;
            }
            if json {
                return write_json(out, &json!({"model": "bm25", "terms": counts}));
            }
            let terms: Vec<String> = counts.iter().map(|(t, n)| format!("{t}×{n}")).collect();
            writeln!(out, "bm25 terms: {}", terms.join(" "))?;
        }
        TextMethod::Hybrid => bail!("hybrid combines bm25 and minilm scores; embed one of them"),
    }
    Ok(())
}
