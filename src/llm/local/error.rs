//! What can go wrong loading and running a local GGUF model: the file (missing, not a GGUF, a tensor or
//! metadata key it lacks), the chat template, the tokenizer, or llama.cpp's context (a decode that fails, a
//! prompt longer than the context window).

#[derive(Debug, Clone, thiserror::Error)]
pub enum LocalError {
    /// The model file, with what is wrong in it.
    #[error("{file}: {problem}")]
    File { file: String, problem: String },
    /// The engine (llama.cpp backend, context, batch decode, key/value cache).
    #[error("{0}")]
    Engine(String),
}

crate::util::error::text_conversions!(LocalError, LocalError::Engine);
