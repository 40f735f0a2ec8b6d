//! The in-process model: a GGUF llama-architecture model on the CPU through llama.cpp (`engine`), BrainLens's
//! own tokenizer and chat template, and schema-constrained decoding. Default: SmolLM2-135M-Instruct from the model cache.

mod constrained;
pub mod engine;
pub mod error;
mod generate;
mod quantize;
mod template;
mod vocab;

pub use constrained::{Constrainer, Mask, TokenTrie};
pub use error::LocalError;

use crate::llm::error::LlmError;
use crate::llm::schema::grammar::Grammar;
use crate::llm::types::{ChatModel, ChatRequest, ChatResponse};
use crate::util::cancel::Cancel;
use candle_core::quantized::gguf_file;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const PROVIDER: &str = "local";

pub struct LocalModel {
    name: String,
    engine: Mutex<engine::Engine>,
    vocab: vocab::Vocab,
    trie: std::sync::Arc<TokenTrie>,
    /// Constrainers (grammar + mask cache) of recent schemas, by schema text.
    constrainers: Mutex<Vec<(String, Constrainer)>>,
    template: template::ChatTemplate,
    context: usize,
}

/// Positions one call may use (SmolLM2 was trained on 8,192; each of the engine's slots holds this many, so
/// it bounds the key/value memory: 2 slots × 4,608 positions ≈ 210 MB at f16 for SmolLM2-135M).
const MAX_CONTEXT: usize = 4608;

impl LocalModel {
    /// The model at `path`, loaded once per process and shared by every caller (the GUI, each run, each
    /// worker): a second call with the same file returns the same model, its key/value cache included.
    pub fn shared(path: &Path) -> Result<Arc<LocalModel>, LlmError> {
        static LOADED: Mutex<Option<HashMap<PathBuf, Arc<LocalModel>>>> = Mutex::new(None);
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        let map = loaded.get_or_insert_with(HashMap::new);
        if let Some(m) = map.get(&key) {
            return Ok(m.clone());
        }
        let m = Arc::new(LocalModel::load(path)?);
        map.insert(key, m.clone());
        Ok(m)
    }

    /// Loads a GGUF; a Q4 file is re-quantised once to Q8_0 beside it in the model cache (candle has only
    /// generic kernels for Q4_1: Q8_0 runs about twice as fast with near-identical text).
    pub fn load(path: &Path) -> Result<LocalModel, LlmError> {
        let fail = |msg: String| LlmError::config(PROVIDER, format!("{}: {msg}", path.display()));
        let failed = |e: super::local::LocalError| fail(e.to_string());
        if !path.is_file() {
            return Err(fail(
                "no such model file (run scripts/setup_models.sh, or set the model path in Settings)".into(),
            ));
        }
        let run_path = quantize::fast_copy(path).map_err(failed)?;
        let mut file = std::fs::File::open(&run_path).map_err(|e| fail(e.to_string()))?;
        let content =
            gguf_file::Content::read(&mut file).map_err(|e| fail(format!("not a readable GGUF file: {e}")))?;
        let arch =
            content.metadata.get("general.architecture").and_then(|v| v.to_string().ok().cloned()).unwrap_or_default();
        if arch != "llama" {
            return Err(fail(format!("architecture \"{arch}\" is not supported (llama only)")));
        }
        let vocab = vocab::Vocab::from_gguf(&content).map_err(failed)?;
        let source = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|v| v.to_string().ok().cloned())
            .ok_or_else(|| fail("the GGUF has no tokenizer.chat_template".into()))?;
        let token_text = |id: Option<u32>| id.and_then(|i| vocab.tokens.get(i as usize).cloned()).unwrap_or_default();
        let template = template::ChatTemplate::new(&source, &token_text(vocab.bos), &token_text(Some(vocab.eos)))
            .map_err(failed)?;
        let context = (content.metadata.get("llama.context_length").and_then(|v| v.to_u32().ok()).unwrap_or(2048)
            as usize)
            .min(MAX_CONTEXT);
        let name =
            path.file_name().map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string()).unwrap_or_default();
        drop(file);
        let engine = engine::Engine::load(&run_path, context).map_err(failed)?;
        let context = engine.n_ctx();
        let trie = std::sync::Arc::new(TokenTrie::new(&vocab.bytes));
        Ok(LocalModel {
            name,
            engine: Mutex::new(engine),
            vocab,
            trie,
            constrainers: Mutex::new(Vec::new()),
            template,
            context,
        })
    }
}

impl LocalModel {
    /// Prompt tokens taken from the key/value cache and computed, since the model was loaded.
    pub fn cache_stats(&self) -> (u64, u64) {
        let e = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        (e.reused_tokens, e.computed_tokens)
    }
}

/// Schemas whose constrainers are kept.
const KEEP_CONSTRAINERS: usize = 8;

impl LocalModel {
    /// The constrainer for a schema (`key` = its JSON text), reused when a recent call had the same schema.
    fn take_constrainer(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<Grammar, LlmError>,
    ) -> Result<Constrainer, LlmError> {
        let mut kept = self.constrainers.lock().unwrap_or_else(|p| p.into_inner());
        match kept.iter().position(|(k, _)| k == key) {
            Some(i) => Ok(kept.remove(i).1),
            None => Ok(Constrainer::new(make()?, self.trie.clone(), self.vocab.eos)),
        }
    }

    fn keep_constrainer(&self, key: String, constrainer: Constrainer) {
        let mut kept = self.constrainers.lock().unwrap_or_else(|p| p.into_inner());
        kept.insert(0, (key, constrainer));
        kept.truncate(KEEP_CONSTRAINERS);
    }
}

impl ChatModel for LocalModel {
    fn name(&self) -> String {
        format!("{PROVIDER}:{}", self.name)
    }

    fn chat_with(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<ChatResponse, LlmError> {
        if request.messages.iter().any(|m| !m.images.is_empty()) {
            return Err(LlmError::config(
                PROVIDER,
                "the local model reads text only and cannot see images: use an OpenAI-compatible vision endpoint",
            ));
        }
        generate::generate(self, request, cancel, on_delta)
    }
}
