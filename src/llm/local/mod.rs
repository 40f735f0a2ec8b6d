//! The in-process model: any GGUF llama.cpp runs, on the CPU (`engine`), tokenized by llama.cpp's own
//! tokenizer for that model (`vocab`), prompted through the GGUF's chat template (`template`), with
//! schema-constrained decoding. Default: the capable model of the catalogue when it is in the cache, else SmolLM2.

mod constrained;
pub mod engine;
pub mod error;
mod generate;
mod gguf_check;
mod lookup;
pub mod prefix;
pub mod prompt_states;
mod quantize;
mod template;
pub mod threads;
pub mod vocab;

pub use constrained::{Constrainer, Mask, TokenTrie};
pub use error::{FileProblem, LocalError};

use crate::llm::error::LlmError;
use crate::llm::schema::grammar::Grammar;
use crate::llm::types::{ChatModel, ChatRequest, ChatResponse};
use crate::util::cancel::Cancel;
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
    /// Repetition control when a request sets none: the catalogue's choice for this model, else the default.
    pub repetition: crate::llm::Repetition,
    /// Speculative decoding by prompt lookup: off unless BRAINLENS_LOOKUP=1 (measured here it does not pay on
    /// 2 cores, and llama.cpp's batched logits differ from single-token ones: see `lookup`).
    pub lookup: std::sync::atomic::AtomicBool,
}

/// Positions one call may use (each of the engine's slots holds this many, so it bounds the key/value memory:
/// 2 slots × 4,608 positions ≈ 210 MB at f16 for SmolLM2-135M, 264 MB for Qwen2.5-Coder-1.5B).
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

    /// Loads a GGUF: any architecture llama.cpp runs, with the tokenizer and chat template it carries. A file
    /// that cannot serve chat is refused with a classified reason before any context memory is taken.
    pub fn load(path: &Path) -> Result<LocalModel, LlmError> {
        Self::load_with_states(path, &prompt_states::default_root(), prompt_states::limit_from_env())
    }

    /// `load` with saved prompt states under `root`, bounded to `limit_bytes` (0: none).
    pub fn load_with_states(path: &Path, root: &Path, limit_bytes: u64) -> Result<LocalModel, LlmError> {
        let failed = |e: LocalError| LlmError::config(PROVIDER, e.to_string());
        check_file(path).map_err(failed)?;
        let run_path = quantize::fast_copy(path).map_err(failed)?;
        let model = engine::Engine::load_model(&run_path, false).map_err(failed)?;
        // Checked before the model is kept: a file refused here leaves nothing loaded.
        if vocab::chat_template(&model).is_none() {
            return Err(failed(no_template(path)));
        }
        let model: &'static llama_cpp_2::model::LlamaModel = Box::leak(Box::new(model));
        let vocab = vocab::Vocab::new(model);
        let template = chat_template(path, &vocab).map_err(failed)?;
        let mut engine = engine::Engine::new(model, MAX_CONTEXT).map_err(failed)?;
        if let Some(states) = open_states(root, limit_bytes, &run_path, &engine) {
            engine.attach_disk(states);
        }
        let context = engine.n_ctx();
        let name =
            path.file_name().map(|n| n.to_string_lossy().trim_end_matches(".gguf").to_string()).unwrap_or_default();
        let trie = std::sync::Arc::new(TokenTrie::new(&vocab.bytes));
        Ok(LocalModel {
            name,
            engine: Mutex::new(engine),
            vocab,
            trie,
            constrainers: Mutex::new(Vec::new()),
            template,
            context,
            repetition: crate::llm::catalogue::entry_for(path).map_or_else(Default::default, |e| e.repetition),
            lookup: std::sync::atomic::AtomicBool::new(std::env::var("BRAINLENS_LOOKUP").as_deref() == Ok("1")),
        })
    }
}

/// The saved prompt states of the file that runs (`run_path`: the model or its Q8_0 copy) with this engine's
/// settings; none when the bound is 0 or the file cannot be hashed.
fn open_states(
    root: &Path,
    limit_bytes: u64,
    run_path: &Path,
    engine: &engine::Engine,
) -> Option<prompt_states::PromptStates> {
    if limit_bytes == 0 {
        return None;
    }
    let sha = prompt_states::model_sha256(root, run_path).ok()?;
    let identity = prompt_states::Identity {
        model_file: run_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        model_sha256: sha,
        settings: engine.settings(),
        build: prompt_states::llama_build(),
    };
    prompt_states::PromptStates::open(root, identity, limit_bytes)
}

/// A missing file or a folder is named before llama.cpp is asked.
fn check_file(path: &Path) -> Result<(), LocalError> {
    if !path.is_file() {
        return Err(LocalError::file(
            path,
            FileProblem::Missing,
            "no such model file (run `brainlens models fetch NAME` or scripts/setup_models.sh, or set the model path in Settings)",
        ));
    }
    Ok(())
}

fn no_template(path: &Path) -> LocalError {
    LocalError::file(
        path,
        FileProblem::NoChatTemplate,
        "the GGUF has no chat template (tokenizer.chat_template): a base model, not a chat model",
    )
}

/// The GGUF's chat template with the model's BOS and EOS texts.
fn chat_template(path: &Path, vocab: &vocab::Vocab) -> Result<template::ChatTemplate, LocalError> {
    let source = vocab.chat_template().ok_or_else(|| no_template(path))?;
    template::ChatTemplate::new(&source, &vocab.token_text(vocab.bos), &vocab.token_text(vocab.eos))
        .map_err(|e| LocalError::file(path, FileProblem::Unreadable, e.to_string()))
}

/// The prompt text the GGUF's chat template makes of `messages` and `tools` (what `LocalModel` tokenizes), from
/// the file's vocabulary and template alone.
pub fn render_prompt(
    path: &Path,
    messages: &[crate::llm::Message],
    tools: &[serde_json::Value],
) -> Result<String, LlmError> {
    let failed = |e: LocalError| LlmError::config(PROVIDER, e.to_string());
    let vocab = tokenizer(path)?;
    chat_template(path, &vocab).and_then(|t| t.render_with_tools(messages, tools)).map_err(failed)
}

/// A GGUF's own tokenizer without its weights (llama.cpp's `vocab_only`): what `brainlens llm tokenize` and the
/// tokenizer checks use, for any GGUF, chat template or not. Loaded once per file and process.
pub fn tokenizer(path: &Path) -> Result<Arc<vocab::Vocab>, LlmError> {
    static LOADED: Mutex<Option<HashMap<PathBuf, Arc<vocab::Vocab>>>> = Mutex::new(None);
    let failed = |e: LocalError| LlmError::config(PROVIDER, e.to_string());
    check_file(path).map_err(failed)?;
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let mut loaded = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    let map = loaded.get_or_insert_with(HashMap::new);
    if let Some(v) = map.get(&key) {
        return Ok(v.clone());
    }
    let model = engine::Engine::load_model(path, true).map_err(failed)?;
    let v = Arc::new(vocab::Vocab::new(Box::leak(Box::new(model))));
    map.insert(key, v.clone());
    Ok(v)
}

pub use vocab::Vocab;

impl LocalModel {
    /// Prompt tokens taken from the key/value cache and computed, since the model was loaded.
    pub fn cache_stats(&self) -> (u64, u64) {
        let e = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        (e.reused_tokens, e.computed_tokens)
    }

    /// Prompt tokens loaded from saved states on disk since the model was loaded, and the warnings the disk
    /// cache gave.
    pub fn disk_stats(&self) -> (u64, Vec<String>) {
        let e = self.engine.lock().unwrap_or_else(|p| p.into_inner());
        (e.disk_tokens, e.disk_warnings())
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
            None => Ok(Constrainer::new(make()?, self.trie.clone(), self.vocab.end)),
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

    fn sampling(&self) -> Option<String> {
        Some(format!("{} (this model's setting; a request may override it)", self.repetition.describe()))
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
