//! What can go wrong in the benchmark layer below the runner: generating a suite (a data file, a template),
//! reading a signal file a case names, or a parameter.

use crate::util::error::{ContextError, message_conversions};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// What was being done ("reading FILE", "FILE line 4") and what went wrong.
    #[error(transparent)]
    Context(#[from] ContextError),
    #[error(transparent)]
    Signal(#[from] crate::signal::SignalError),
    #[error(transparent)]
    Network(#[from] crate::network::error::NetworkError),
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

message_conversions!(BenchError);

pub type Result<T, E = BenchError> = std::result::Result<T, E>;
