//! Running the `brainlens` binary from integration tests.
#![allow(dead_code)]

pub mod codeact_scripted;
pub mod eeg_scripted;
#[cfg(feature = "gui")]
pub mod gui;
pub mod scripted;

use serde_json::Value;
use std::process::Command;

/// Exit code, stdout and stderr of `brainlens ARGS`.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON `brainlens ARGS` prints; the test fails when the command does.
pub fn json(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// The default local model (SmolLM2) when the model cache has it. Without it the caller skips, unless
/// BRAINLENS_REQUIRE_MODELS=1 (set by scripts/test.sh after fetching the models), where a missing model fails.
pub fn local_model() -> Option<std::path::PathBuf> {
    let path = brainlens::llm::config::default_model_path();
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("BRAINLENS_REQUIRE_MODELS").as_deref() == Ok("1") {
        panic!("{} is missing: run scripts/setup_models.sh", path.display());
    }
    eprintln!("skipped: {} is missing (run scripts/setup_models.sh)", path.display());
    None
}
