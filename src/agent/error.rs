//! What can go wrong in an agent run: a task or trace file (named), a model call, a tool, the sandbox, the
//! network or recording it reads, retrieval, or a parameter.

use crate::util::error::{ContextError, message_conversions};

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// What was being done ("reading FILE", "FILE line 4") and what went wrong.
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
    #[error(transparent)]
    Network(#[from] crate::network::error::NetworkError),
    #[error(transparent)]
    Signal(#[from] crate::signal::SignalError),
    #[error(transparent)]
    Retrieval(#[from] crate::retrieval::error::RetrievalError),
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::error::SandboxError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// An input or parameter that cannot be used as given; the text names it and what was expected.
    #[error("{0}")]
    Invalid(String),
    /// Stopped by its `Cancel` token.
    #[error("cancelled")]
    Cancelled,
}

message_conversions!(AgentError);

pub type Result<T, E = AgentError> = std::result::Result<T, E>;
