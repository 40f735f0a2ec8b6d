//! Version and git commit embedded by build.rs, shown in the About box and `--version`.

/// Crate version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Git commit the binary was built from ("unknown" outside a checkout).
pub const GIT_COMMIT: &str = env!("BRAINLENS_GIT_COMMIT");
/// "0.1.0 (abc1234)".
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("BRAINLENS_GIT_COMMIT"), ")");
