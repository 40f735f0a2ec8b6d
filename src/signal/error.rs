//! What can go wrong in signal analysis: a recording that cannot be read (the EDF reader's error names the
//! byte offset and field), another file that cannot be read or whose content is not what its format expects
//! (a hypnogram, a label table), or a parameter that cannot be used as given (a band, a window, a rate, a
//! channel name), with what was expected.

use super::edf::EdfError;

#[derive(Debug, thiserror::Error)]
pub enum SignalError {
    #[error(transparent)]
    Edf(#[from] EdfError),
    #[error("{file}: cannot {action}: {err}")]
    Io { file: String, action: &'static str, err: std::io::Error },
    /// `problem` says where (line, column, record) and what was expected.
    #[error("{file}: {problem}")]
    Format { file: String, problem: String },
    /// A parameter or input that cannot be used; the text names it and the accepted values.
    #[error("{0}")]
    Invalid(String),
    /// Stopped by its `Cancel` token.
    #[error("cancelled")]
    Cancelled,
    /// What was being done when `source` happened (e.g. "writing out.edf").
    #[error("{context}: {source}")]
    Context { context: String, source: Box<SignalError> },
}

impl SignalError {
    pub fn context(self, context: impl Into<String>) -> Self {
        SignalError::Context { context: context.into(), source: Box::new(self) }
    }
}

pub type Result<T, E = SignalError> = std::result::Result<T, E>;

impl From<String> for SignalError {
    fn from(s: String) -> Self {
        SignalError::Invalid(s)
    }
}

impl From<&str> for SignalError {
    fn from(s: &str) -> Self {
        SignalError::Invalid(s.to_string())
    }
}

/// `map_err` for an I/O failure on `file` while trying to `action` it.
pub fn io(file: &impl std::fmt::Display, action: &'static str) -> impl FnOnce(std::io::Error) -> SignalError {
    let file = file.to_string();
    move |err| SignalError::Io { file, action, err }
}

/// A format problem in `file`.
pub fn format(file: &impl std::fmt::Display, problem: impl Into<String>) -> SignalError {
    SignalError::Format { file: file.to_string(), problem: problem.into() }
}

/// `SignalError::Invalid(format!(…))`.
macro_rules! invalid {
    ($($fmt:tt)+) => {
        $crate::signal::error::SignalError::Invalid(format!($($fmt)+))
    };
}

pub(crate) use invalid;

impl From<SignalError> for String {
    fn from(e: SignalError) -> String {
        e.to_string()
    }
}
