//! Okapi BM25 (k1 = 1.5, b = 0.75) with the always-positive idf ln(1 + (N − n + 0.5)/(n + 0.5)) of Lucene.

use super::{TextIndex, TextMethod};
use crate::retrieval::error::{Result, RetrievalError};
use std::collections::HashMap;

const K1: f32 = 1.5;
const B: f32 = 0.75;

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on",
    "or", "that", "the", "this", "to", "was", "were", "with", "which", "than", "these", "those", "into",
];

/// Lower-cased alphanumeric words, stopwords dropped.
pub fn tokenize(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect()
}

pub struct Bm25 {
    docs: Vec<HashMap<String, f32>>,
    lengths: Vec<f32>,
    avg_len: f32,
    idf: HashMap<String, f32>,
}

impl Bm25 {
    pub fn new(docs: &[String]) -> Bm25 {
        let mut counts = Vec::with_capacity(docs.len());
        let mut lengths = Vec::with_capacity(docs.len());
        let mut df: HashMap<String, f32> = HashMap::new();
        for d in docs {
            let tokens = tokenize(d);
            lengths.push(tokens.len() as f32);
            let mut tf: HashMap<String, f32> = HashMap::new();
            for t in tokens {
                *tf.entry(t).or_default() += 1.0;
            }
            for t in tf.keys() {
                *df.entry(t.clone()).or_default() += 1.0;
            }
            counts.push(tf);
        }
        let n = docs.len() as f32;
        let idf = df.into_iter().map(|(t, f)| (t, (1.0 + (n - f + 0.5) / (f + 0.5)).ln())).collect();
        let avg_len = if docs.is_empty() { 0.0 } else { lengths.iter().sum::<f32>() / n };
        Bm25 { docs: counts, lengths, avg_len, idf }
    }

    /// The query's terms with their idf (what `brainlens embed --model bm25` shows).
    pub fn query_terms(&self, query: &str) -> Vec<(String, f32)> {
        tokenize(query)
            .into_iter()
            .map(|t| {
                let w = self.idf.get(&t).copied().unwrap_or(0.0);
                (t, w)
            })
            .collect()
    }
}

impl TextIndex for Bm25 {
    fn method(&self) -> TextMethod {
        TextMethod::Bm25
    }
    fn len(&self) -> usize {
        self.docs.len()
    }
    fn scores(&self, query: &str) -> Result<Vec<f32>, RetrievalError> {
        let terms = tokenize(query);
        Ok(self
            .docs
            .iter()
            .zip(&self.lengths)
            .map(|(tf, &len)| {
                terms
                    .iter()
                    .map(|t| match (tf.get(t), self.idf.get(t)) {
                        (Some(&f), Some(&idf)) => {
                            idf * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * len / self.avg_len.max(1e-9)))
                        }
                        _ => 0.0,
                    })
                    .sum()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm25_by_hand() {
        let docs: Vec<String> =
            ["alpha power occipital", "alpha alpha", "sleep spindles"].iter().map(|s| s.to_string()).collect();
        let index = Bm25::new(&docs);
        let s = index.scores("alpha").unwrap();
        // N = 3, n(alpha) = 2: idf = ln(1 + 1.5/2.5) = ln 1.6; avg length 7/3.
        let idf = 1.6f32.ln();
        let doc = |f: f32, len: f32| idf * f * 2.5 / (f + 1.5 * (0.25 + 0.75 * len / (7.0 / 3.0)));
        assert!((s[0] - doc(1.0, 3.0)).abs() < 1e-6 && (s[1] - doc(2.0, 2.0)).abs() < 1e-6 && s[2] == 0.0, "{s:?}");
        assert_eq!(tokenize("The Alpha-band, of EEG"), ["alpha", "band", "eeg"]);
    }
}
