//! The provider-independent shape of a chat call.

use super::error::LlmError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// What the reply must be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    #[default]
    Text,
    /// Any JSON object.
    JsonObject,
    /// A JSON value valid against `schema` (the subset in `llm::schema`).
    JsonSchema { name: String, schema: Value },
}

/// One chat call. `stream` only changes the transport (deltas reach the callback as they arrive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    #[serde(default)]
    pub format: ResponseFormat,
    /// 0 = greedy.
    pub temperature: f32,
    pub max_tokens: u32,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub stop: Vec<String>,
    #[serde(default, skip_serializing)]
    pub stream: bool,
}

impl ChatRequest {
    pub fn new(messages: Vec<Message>) -> Self {
        ChatRequest {
            messages,
            format: ResponseFormat::Text,
            temperature: 0.0,
            max_tokens: 512,
            seed: None,
            stop: Vec::new(),
            stream: false,
        }
    }
    pub fn user(prompt: impl Into<String>) -> Self {
        Self::new(vec![Message::user(prompt)])
    }
    pub fn with_schema(mut self, name: &str, schema: Value) -> Self {
        self.format = ResponseFormat::JsonSchema { name: name.to_string(), schema };
        self
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    pub text: String,
    /// The parsed reply when the request asked for JSON (already validated against the schema).
    #[serde(default)]
    pub json: Option<Value>,
    pub usage: Usage,
    /// Wall time of the whole call, retries included.
    pub latency_ms: f64,
    pub model: String,
    /// "stop" (the model or a stop string ended it) or "length" (max_tokens).
    pub finish_reason: String,
    /// HTTP attempts (1 for in-process models).
    #[serde(default = "one")]
    pub attempts: u32,
}

fn one() -> u32 {
    1
}

impl ChatResponse {
    /// Generated tokens per second of wall time (0 when nothing was generated).
    pub fn tokens_per_second(&self) -> f64 {
        if self.latency_ms <= 0.0 { 0.0 } else { self.usage.completion_tokens as f64 / (self.latency_ms / 1000.0) }
    }
}

/// Shared cancellation flag: set it from any thread; providers check it between tokens and between retries.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst)
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A chat model: the one seam agents, the bench runner and the GUI talk to.
pub trait ChatModel: Send + Sync {
    /// "provider:model", for logs and result files (never contains a key).
    fn name(&self) -> String;

    /// Runs one call; text deltas reach `on_delta` as they are produced when the provider can stream.
    fn chat_with(
        &self,
        request: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<ChatResponse, LlmError>;

    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.chat_with(request, &Cancel::default(), &mut |_| {})
    }
}
