//! What can go wrong reading, checking or writing a network: a file that cannot be read or written, a file
//! whose content is not what its format expects (with the row, line or entry), or a matrix, time series or
//! atlas that cannot be used as given.

/// A network-layer failure; its text names the file (or matrix) and the problem.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error("{file}: cannot {action}: {err}")]
    Io { file: String, action: &'static str, err: std::io::Error },
    /// `problem` says where (row, line, entry, array name) and what was expected.
    #[error("{file}: {problem}")]
    Format { file: String, problem: String },
    /// Stopped by its `Cancel` token.
    #[error("cancelled")]
    Cancelled,
    /// Arguments that cannot be used (too few time points, a singular matrix, an unknown atlas name).
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = NetworkError> = std::result::Result<T, E>;

/// `map_err` for an I/O failure on `file` while trying to `action` it.
pub fn io(file: &impl std::fmt::Display, action: &'static str) -> impl FnOnce(std::io::Error) -> NetworkError {
    let file = file.to_string();
    move |err| NetworkError::Io { file, action, err }
}

/// A format problem in `file`.
pub fn format(file: &impl std::fmt::Display, problem: impl Into<String>) -> NetworkError {
    NetworkError::Format { file: file.to_string(), problem: problem.into() }
}

/// `return Err(Format { file, problem: format!(…) })`.
macro_rules! fail {
    ($file:expr, $($fmt:tt)+) => {
        return Err($crate::network::error::format(&$file, format!($($fmt)+)))
    };
}

/// `return Err(Invalid(format!(…)))`.
macro_rules! invalid {
    ($($fmt:tt)+) => {
        return Err($crate::network::error::NetworkError::Invalid(format!($($fmt)+)))
    };
}

pub(crate) use {fail, invalid};
