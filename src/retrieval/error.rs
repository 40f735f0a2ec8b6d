//! What can go wrong in retrieval: a knowledge base, case memory, label table or graph-encoder file that
//! cannot be read (named, with the line or key), a model call, a network, or a parameter.

use crate::util::error::{ContextError, message_conversions};

#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    /// What was being done ("reading FILE", "FILE line 4") and what went wrong.
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
    #[error(transparent)]
    Network(#[from] crate::network::error::NetworkError),
    #[error(transparent)]
    Local(#[from] crate::llm::local::LocalError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The graph encoder's tensors (candle).
    #[error("graph encoder: {0}")]
    Tensor(#[from] candle_core::Error),
    /// An input or parameter that cannot be used as given; the text names it and what was expected.
    #[error("{0}")]
    Invalid(String),
    /// Stopped by its `Cancel` token.
    #[error("cancelled")]
    Cancelled,
}

message_conversions!(RetrievalError);

pub type Result<T, E = RetrievalError> = std::result::Result<T, E>;
