//! Which model to talk to: settings, environment, and the model cache. An API key lives only in memory (from
//! the environment or typed into the session); it is never serialised — `Secret` has no serde impl and its
//! Debug prints a redaction.

use crate::llm::error::RequestError;
use crate::util::paths::models_dir;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The local model used when none is named: `BRAINLENS_MODEL_PATH` when set, else the catalogue's capable model
/// (Qwen2.5-Coder-1.5B) when it is in the cache whole, else the fast one (SmolLM2-135M).
pub fn default_model_path() -> PathBuf {
    if let Some(p) = env("BRAINLENS_MODEL_PATH") {
        return PathBuf::from(p);
    }
    crate::llm::catalogue::capable_path().unwrap_or_else(crate::llm::catalogue::fast_path)
}

/// GGUF files in the model cache (llama.cpp's Q8_0 copies of Q4_0/Q4_1 files left out: they are the same
/// model), sorted by name.
pub fn cached_models() -> Vec<PathBuf> {
    let all: Vec<PathBuf> = std::fs::read_dir(models_dir())
        .map(|entries| {
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "gguf")).collect()
        })
        .unwrap_or_default();
    let copies: Vec<PathBuf> = all.iter().map(|p| crate::llm::catalogue::q8_copy_path(p)).collect();
    let mut found: Vec<PathBuf> = all.iter().filter(|p| !copies.contains(p)).cloned().collect();
    found.sort();
    found
}

/// An API key: in memory only.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    pub fn new(key: impl Into<String>) -> Option<Secret> {
        let key = key.into();
        (!key.trim().is_empty()).then(|| Secret(key.trim().to_string()))
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    #[default]
    Local,
    Openai,
    Replay,
}

impl ProviderKind {
    pub fn parse(text: &str) -> Result<ProviderKind, RequestError> {
        match text.to_ascii_lowercase().as_str() {
            "local" => Ok(ProviderKind::Local),
            "openai" => Ok(ProviderKind::Openai),
            "replay" => Ok(ProviderKind::Replay),
            other => Err(format!("unknown provider \"{other}\" (local, openai or replay)").into()),
        }
    }
}

/// What the model is for: BrainBench reads the target's endpoint from `BRAINBENCH_*` and the parser's from
/// `PARSER_*`; `BRAINLENS_*` overrides both for the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Agent,
    Parser,
}

/// Everything needed to build a provider. Serialisable settings never include the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProviderConfig {
    pub provider: ProviderKind,
    /// OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1 (with or without the /v1).
    pub base_url: String,
    pub model: String,
    /// GGUF for the local provider; empty = the default model in the cache.
    pub model_path: String,
    pub timeout_s: f64,
    pub max_retries: u32,
    /// Replay: the transcript to answer from. With `record`, the transcript every call is appended to.
    pub transcript: String,
    pub record: bool,
    /// OpenAI's `reasoning_effort`, sent with every request to an OpenAI-compatible endpoint and recorded in
    /// result files (one of [`REASONING_EFFORTS`]).
    pub reasoning_effort: Option<String>,
    #[serde(skip)]
    pub api_key: Option<Secret>,
}

/// The `reasoning_effort` values OpenAI-compatible endpoints take, lowest first.
pub const REASONING_EFFORTS: [&str; 6] = ["none", "minimal", "low", "medium", "high", "xhigh"];

/// Where an effort sorts: lowest first, unknown values last.
pub fn reasoning_effort_rank(effort: &str) -> usize {
    REASONING_EFFORTS.iter().position(|x| *x == effort).unwrap_or(REASONING_EFFORTS.len())
}

/// A `reasoning_effort` value, lower-cased, if it is one of [`REASONING_EFFORTS`].
pub fn reasoning_effort(text: &str) -> Result<String, RequestError> {
    let t = text.trim().to_ascii_lowercase();
    if REASONING_EFFORTS.contains(&t.as_str()) {
        Ok(t)
    } else {
        Err(format!("unknown reasoning effort \"{}\" ({})", text.trim(), REASONING_EFFORTS.join(", ")).into())
    }
}

impl Default for ProviderConfig {
    fn default() -> Self {
        ProviderConfig {
            provider: ProviderKind::Local,
            base_url: String::new(),
            model: String::new(),
            model_path: String::new(),
            timeout_s: 120.0,
            max_retries: 4,
            transcript: String::new(),
            record: false,
            reasoning_effort: None,
            api_key: None,
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl ProviderConfig {
    /// Settings from the environment (`BRAINLENS_PROVIDER`, `BRAINLENS_BASE_URL`, `BRAINLENS_MODEL`,
    /// `BRAINLENS_API_KEY`, `BRAINLENS_TRANSCRIPT` (for replay), `BRAINLENS_REASONING_EFFORT`, then BrainBench's `BRAINBENCH_*` for the agent or `PARSER_*` for the parser). A
    /// base URL without a provider means `openai`; nothing set means the local default model.
    pub fn from_env(purpose: Purpose) -> ProviderConfig {
        let prefixes: &[&str] = match purpose {
            Purpose::Agent => &["BRAINLENS_", "BRAINBENCH_"],
            Purpose::Parser => &["PARSER_", "BRAINLENS_", "BRAINBENCH_"],
        };
        let lookup = |suffix: &str| prefixes.iter().find_map(|p| env(&format!("{p}{suffix}")));
        let mut config = ProviderConfig::default();
        if let Some(url) = lookup("BASE_URL") {
            config.base_url = url;
            config.provider = ProviderKind::Openai;
        }
        if let Some(kind) = lookup("PROVIDER").and_then(|k| ProviderKind::parse(&k).ok()) {
            config.provider = kind;
        }
        if let Some(model) = lookup("MODEL") {
            config.model = model;
        }
        if let Some(t) = lookup("TRANSCRIPT") {
            config.transcript = t;
        }
        config.reasoning_effort = lookup("REASONING_EFFORT").and_then(|e| reasoning_effort(&e).ok());
        config.api_key = lookup("API_KEY").and_then(Secret::new);
        config
    }

    /// The `bench run`/`llm chat` options that build this provider again in another process (a Slurm task).
    /// The API key is never among them: such a process takes it from BRAINLENS_API_KEY in its environment.
    pub fn cli_args(&self) -> Vec<String> {
        let name = match self.provider {
            ProviderKind::Local => "local",
            ProviderKind::Openai => "openai",
            ProviderKind::Replay => "replay",
        };
        let mut a = vec!["--provider".to_string(), name.to_string()];
        let mut push = |k: &str, v: &str| {
            if !v.trim().is_empty() {
                a.extend([k.to_string(), v.trim().to_string()]);
            }
        };
        match self.provider {
            ProviderKind::Local => push("--model-path", &self.model_path),
            ProviderKind::Openai => {
                push("--base-url", &self.base_url);
                push("--model", &self.model);
                push("--reasoning-effort", self.reasoning_effort.as_deref().unwrap_or(""));
            }
            ProviderKind::Replay => push("--transcript", &self.transcript),
        }
        a.extend(["--timeout".into(), self.timeout_s.to_string(), "--retries".into(), self.max_retries.to_string()]);
        a
    }

    /// For the local provider, `model` is a catalogue name (`--model smollm2-135m`): it becomes the GGUF the
    /// provider loads, or an error naming the catalogue and the `models fetch` line. A name and a different
    /// `model_path` together are an error, never one silently preferred.
    pub fn resolve_local_model(&mut self) -> Result<(), RequestError> {
        if self.provider != ProviderKind::Local || self.model.trim().is_empty() {
            return Ok(());
        }
        let path = crate::llm::catalogue::resolve(&self.model).map_err(|e| RequestError(e.to_string()))?;
        let given = self.model_path.trim();
        if !given.is_empty() && std::path::Path::new(given) != path {
            return Err(RequestError(format!(
                "--model {} is {}, but --model-path names {given}: give one of them",
                self.model.trim(),
                path.display()
            )));
        }
        self.model_path = path.display().to_string();
        Ok(())
    }

    /// The model these settings call, as a user names it: the local GGUF (with its catalogue name), the
    /// endpoint's model name, or the replayed transcript.
    pub fn describe_model(&self) -> String {
        match self.provider {
            ProviderKind::Local => {
                let path = self.local_model_path();
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                match crate::llm::catalogue::entry_for(&path) {
                    Some(e) => format!("local {} ({file})", e.name),
                    None => format!("local {}", path.display()),
                }
            }
            ProviderKind::Openai => format!("{} at {}", self.model, self.base_url),
            ProviderKind::Replay => format!("replay of {}", self.transcript),
        }
    }

    /// The GGUF the local provider loads.
    pub fn local_model_path(&self) -> PathBuf {
        if self.model_path.trim().is_empty() { default_model_path() } else { PathBuf::from(self.model_path.trim()) }
    }
}
