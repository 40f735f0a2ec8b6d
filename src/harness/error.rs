//! What can go wrong driving agents over a suite: the case set, the result file (named), the agents, the
//! sandbox, a model, or a run option.

use crate::util::error::{ContextError, message_conversions};

#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// What was being done ("reading FILE", "FILE line 4") and what went wrong.
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error(transparent)]
    Agent(#[from] crate::agent::error::AgentError),
    #[error(transparent)]
    Llm(#[from] crate::llm::LlmError),
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::error::SandboxError),
    #[error(transparent)]
    Slurm(#[from] crate::harness::slurm::SlurmError),
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

message_conversions!(HarnessError);

pub type Result<T, E = HarnessError> = std::result::Result<T, E>;
