//! Text similarity behind one trait: an index over documents that scores a query against every document.

use crate::retrieval::error::{Result, RetrievalError};
pub mod bm25;
pub mod cache;
pub mod minilm;

use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub use bm25::Bm25;
pub use minilm::MiniLm;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TextMethod {
    /// Okapi BM25 over word tokens: needs no model file.
    Bm25,
    /// Cosine similarity of all-MiniLM-L6-v2 sentence embeddings.
    #[default]
    Minilm,
    /// Mean of BM25 scaled to [0, 1] by the best document's score and the MiniLM cosine.
    Hybrid,
}

impl TextMethod {
    pub fn parse(text: &str) -> Result<TextMethod, RetrievalError> {
        match text.to_ascii_lowercase().as_str() {
            "bm25" => Ok(TextMethod::Bm25),
            "minilm" => Ok(TextMethod::Minilm),
            "hybrid" => Ok(TextMethod::Hybrid),
            other => Err(format!("unknown text method \"{other}\" (bm25, minilm or hybrid)").into()),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            TextMethod::Bm25 => "bm25",
            TextMethod::Minilm => "minilm",
            TextMethod::Hybrid => "hybrid",
        }
    }
}

/// Scores a query against every indexed document (higher = more similar).
pub trait TextIndex: Send + Sync {
    fn method(&self) -> TextMethod;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn scores(&self, query: &str) -> Result<Vec<f32>, RetrievalError>;
}

/// Documents embedded once (the vectors come from the on-disk cache when the texts were seen before).
pub struct DenseIndex {
    model: Arc<MiniLm>,
    vectors: Vec<Vec<f32>>,
    /// Recent query embeddings (a panel re-asks the same text whenever a slider moves).
    recent: std::sync::Mutex<Vec<(String, Vec<f32>)>>,
}

const RECENT_QUERIES: usize = 16;

impl DenseIndex {
    pub fn new(model: Arc<MiniLm>, docs: &[String]) -> Result<DenseIndex, RetrievalError> {
        let vectors = cache::embeddings(&model, docs)?;
        Ok(DenseIndex { model, vectors, recent: Default::default() })
    }
}

/// Dot product with eight independent partial sums (lets the compiler vectorise; a single running f32 sum
/// cannot be reordered).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; 8];
    let chunks = n / 8;
    for c in 0..chunks {
        let (x, y) = (&a[c * 8..c * 8 + 8], &b[c * 8..c * 8 + 8]);
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f32 = a[chunks * 8..].iter().zip(&b[chunks * 8..]).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

impl TextIndex for DenseIndex {
    fn method(&self) -> TextMethod {
        TextMethod::Minilm
    }
    fn len(&self) -> usize {
        self.vectors.len()
    }
    fn scores(&self, query: &str) -> Result<Vec<f32>, RetrievalError> {
        let known = self.recent.lock().ok().and_then(|r| r.iter().find(|(t, _)| t == query).map(|(_, v)| v.clone()));
        let q = match known {
            Some(v) => v,
            None => {
                let v = self.model.embed(&[query])?.remove(0);
                if let Ok(mut r) = self.recent.lock() {
                    r.insert(0, (query.to_string(), v.clone()));
                    r.truncate(RECENT_QUERIES);
                }
                v
            }
        };
        Ok(self.vectors.iter().map(|v| dot(&q, v)).collect())
    }
}

pub struct HybridIndex {
    bm25: Bm25,
    dense: DenseIndex,
}

impl TextIndex for HybridIndex {
    fn method(&self) -> TextMethod {
        TextMethod::Hybrid
    }
    fn len(&self) -> usize {
        self.bm25.len()
    }
    fn scores(&self, query: &str) -> Result<Vec<f32>, RetrievalError> {
        let lexical = self.bm25.scores(query)?;
        let max = lexical.iter().cloned().fold(0.0f32, f32::max);
        let dense = self.dense.scores(query)?;
        Ok(lexical.iter().zip(dense).map(|(l, d)| 0.5 * if max > 0.0 { l / max } else { 0.0 } + 0.5 * d).collect())
    }
}

/// An index of `docs` with `method`; MiniLM and hybrid need the model (`MiniLm::shared`).
pub fn build_index(
    method: TextMethod,
    docs: &[String],
    model: Option<Arc<MiniLm>>,
) -> Result<Box<dyn TextIndex>, RetrievalError> {
    let need = || {
        model.clone().ok_or_else(|| {
            RetrievalError::from(format!(
                "the {} method needs the MiniLM model (scripts/setup_models.sh)",
                method.as_str()
            ))
        })
    };
    Ok(match method {
        TextMethod::Bm25 => Box::new(Bm25::new(docs)),
        TextMethod::Minilm => Box::new(DenseIndex::new(need()?, docs)?),
        TextMethod::Hybrid => Box::new(HybridIndex { bm25: Bm25::new(docs), dense: DenseIndex::new(need()?, docs)? }),
    })
}
