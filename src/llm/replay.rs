//! Record and replay. `Recorder` wraps any provider and appends every call to a JSONL transcript
//! (`{hash, model, request, response | error}`, secrets redacted); `Replay` answers from such a transcript by
//! request hash, so agent and runner tests are deterministic and need no model.

use super::error::{ErrorClass, LlmError};
use super::types::{ChatModel, ChatRequest, ChatResponse};
use crate::util::cancel::Cancel;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// SHA-256 of the request's canonical JSON (messages, format, temperature, max_tokens, seed, stop; not the
/// transport's `stream` flag).
pub fn request_hash(request: &ChatRequest) -> String {
    let text = serde_json::to_string(request).unwrap_or_default();
    crate::util::hash::sha256_hex(text.as_bytes())
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RecordedError {
    class: ErrorClass,
    message: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    hash: String,
    model: String,
    request: ChatRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response: Option<ChatResponse>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<RecordedError>,
}

pub struct Recorder {
    inner: Arc<dyn ChatModel>,
    path: PathBuf,
    secrets: Vec<String>,
    file: Mutex<std::fs::File>,
}

impl Recorder {
    pub fn new(inner: Arc<dyn ChatModel>, path: &Path, secrets: Vec<String>) -> Result<Recorder, LlmError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| LlmError::config("replay", format!("{}: {e}", dir.display())))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| LlmError::config("replay", format!("{}: {e}", path.display())))?;
        Ok(Recorder {
            inner,
            path: path.to_path_buf(),
            secrets: secrets.into_iter().filter(|s| !s.is_empty()).collect(),
            file: Mutex::new(file),
        })
    }

    fn append(&self, entry: &Entry) -> Result<(), LlmError> {
        let mut line = serde_json::to_string(entry).unwrap_or_default();
        for secret in &self.secrets {
            line = line.replace(secret.as_str(), "<redacted>");
        }
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        writeln!(file, "{line}").map_err(|e| LlmError::config("replay", format!("{}: {e}", self.path.display())))
    }
}

impl ChatModel for Recorder {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn reasoning_effort(&self) -> Option<String> {
        self.inner.reasoning_effort()
    }

    fn sampling(&self) -> Option<String> {
        self.inner.sampling()
    }

    fn chat_with(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<ChatResponse, LlmError> {
        let result = self.inner.chat_with(request, cancel, on_delta);
        if matches!(&result, Err(e) if e.class == ErrorClass::Cancelled) {
            return result;
        }
        let entry = Entry {
            hash: request_hash(request),
            model: self.inner.name(),
            request: request.clone(),
            response: result.as_ref().ok().cloned(),
            error: result.as_ref().err().map(|e| RecordedError { class: e.class, message: e.message.clone() }),
        };
        self.append(&entry)?;
        result
    }
}

/// Answers from a transcript; several entries for one hash are replayed in order (the last one repeats).
pub struct Replay {
    path: PathBuf,
    model: String,
    entries: Mutex<HashMap<String, (usize, Vec<Entry>)>>,
    /// `BRAINLENS_REPLAY_DELAY_MS`: each call waits this long (cancellable), to measure a runner's
    /// concurrency against a model of known latency without a model.
    delay: std::time::Duration,
}

impl Replay {
    pub fn open(path: &Path) -> Result<Replay, LlmError> {
        let fail = |m: String| LlmError::config("replay", format!("{}: {m}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        let mut entries: HashMap<String, (usize, Vec<Entry>)> = HashMap::new();
        let mut model = String::new();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let entry: Entry = serde_json::from_str(line).map_err(|e| fail(format!("line {}: {e}", n + 1)))?;
            model = entry.model.clone();
            entries.entry(entry.hash.clone()).or_default().1.push(entry);
        }
        let delay_ms =
            std::env::var("BRAINLENS_REPLAY_DELAY_MS").ok().and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
        Ok(Replay {
            path: path.to_path_buf(),
            model,
            entries: Mutex::new(entries),
            delay: std::time::Duration::from_millis(delay_ms),
        })
    }
}

impl ChatModel for Replay {
    fn name(&self) -> String {
        format!("replay:{}", self.model)
    }

    fn chat_with(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<ChatResponse, LlmError> {
        let until = std::time::Instant::now() + self.delay;
        while std::time::Instant::now() < until {
            if cancel.is_cancelled() {
                return Err(cancel.error("replay"));
            }
            std::thread::sleep((until - std::time::Instant::now()).min(std::time::Duration::from_millis(10)));
        }
        let hash = request_hash(request);
        let entry = {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            let Some((next, list)) = entries.get_mut(&hash) else {
                return Err(LlmError::config(
                    "replay",
                    format!("{}: no recorded response for request {hash}", self.path.display()),
                ));
            };
            let entry = list[(*next).min(list.len() - 1)].clone();
            *next += 1;
            entry
        };
        match (entry.response, entry.error) {
            (Some(response), _) => {
                on_delta(&response.text);
                Ok(response)
            }
            (None, Some(error)) => Err(LlmError::new(error.class, "replay", error.message)),
            (None, None) => Err(LlmError::config(
                "replay",
                format!("{}: entry {hash} has neither response nor error", self.path.display()),
            )),
        }
    }
}
