//! Where BrainLens keeps what it fetches and computes: the cache folder and the model files in it.

use std::path::PathBuf;

/// The model cache: `$BRAINLENS_CACHE`, else `$XDG_CACHE_HOME/brainlens`, else `~/.cache/brainlens`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("BRAINLENS_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("brainlens");
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("brainlens")
}

/// The model files: `cache_dir()/models`.
pub fn models_dir() -> PathBuf {
    cache_dir().join("models")
}
