//! What can stop sandboxed code from running: a path that cannot be made or read, a process that cannot be
//! started, isolation this machine cannot give, a bad request, a block past its time limit, a kernel gone.

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("{path}: {err}")]
    Io { path: String, err: std::io::Error },
    /// `what` is "sandbox" or "kernel".
    #[error("cannot start the {what}: {err}")]
    Start { what: &'static str, err: std::io::Error },
    /// No bubblewrap, no user namespaces, no way to limit processes as root: says what to do instead.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Invalid(String),
    /// The block ran past its limit (seconds) and was stopped.
    #[error("the block did not stop at its {0} s limit")]
    Timeout(f64),
    /// The kernel exited or broke its protocol.
    #[error("{0}")]
    Kernel(String),
}

/// `map_err` for an I/O failure on `path`.
pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> SandboxError + '_ {
    move |err| SandboxError::Io { path: path.display().to_string(), err }
}
