//! The provider-independent shape of a chat call.

use super::error::LlmError;
use crate::util::cancel::Cancel;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// Images shown with the text, as `data:image/png;base64,…` URLs (OpenAI's image input); only endpoints
    /// that take images can answer such a message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: Role::System, content: content.into(), images: Vec::new() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: Role::User, content: content.into(), images: Vec::new() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: content.into(), images: Vec::new() }
    }
    /// A user message with images (data URLs).
    pub fn user_with_images(content: impl Into<String>, images: Vec<String>) -> Self {
        Message { role: Role::User, content: content.into(), images }
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
    /// Free text that opens with one of the tags (`<execute>`, `<solution>`): the local model's reply is made
    /// to start with one of them (chosen by likelihood); remote endpoints get plain text.
    Tagged { tags: Vec<String> },
}

/// Repetition control of local sampling for free text (plain replies and JSON strings): logits of word tokens
/// seen in the last `last_n` are divided by `penalty` (llama.cpp's rule; punctuation, digits and spaces are
/// exempt), and a token that would repeat an
/// n-gram of `no_repeat_ngram` tokens already in the reply is excluded (Hugging Face's
/// `no_repeat_ngram_size`). Under a JSON schema, a string whose last 32 tokens average under 1.5 characters
/// is closed (degenerate text). `None` in a request means the model's own setting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Repetition {
    pub penalty: f32,
    pub last_n: u32,
    pub no_repeat_ngram: u32,
}

impl Default for Repetition {
    fn default() -> Self {
        Repetition { penalty: 1.1, last_n: 64, no_repeat_ngram: 6 }
    }
}

impl Repetition {
    /// No repetition control (code, where repeats are legitimate).
    pub fn off() -> Self {
        Repetition { penalty: 1.0, last_n: 0, no_repeat_ngram: 0 }
    }
    /// Any control at all (then, locally, a JSON string gone to single characters is also closed).
    pub fn is_on(&self) -> bool {
        (self.penalty > 1.0 && self.last_n > 0) || self.no_repeat_ngram > 0
    }
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.penalty > 1.0 && self.last_n > 0 {
            parts.push(format!("repeat_penalty {} over the last {} tokens", self.penalty, self.last_n));
        }
        if self.no_repeat_ngram > 0 {
            parts.push(format!("no_repeat_ngram {}", self.no_repeat_ngram));
        }
        if !self.is_on() {
            return "no repetition control".into();
        }
        parts.push("JSON strings closed when 32 tokens average under 1.5 characters".into());
        parts.join(", ")
    }
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
    /// Local sampling only; `None` = the model's own setting (the catalogue's, measured per model; else
    /// `Repetition::default()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<Repetition>,
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
            repetition: None,
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
    /// Prompt tokens whose keys/values came from the prefix cache (OpenAI's
    /// `prompt_tokens_details.cached_tokens`); 0 when the provider does not say.
    #[serde(default)]
    pub cached_tokens: u64,
    /// Of the cached tokens, those loaded from a prompt state saved on disk (local model only).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub disk_tokens: u64,
    /// Completion tokens proposed by speculative decoding (prompt lookup), and how many of them were the
    /// tokens chosen (local model only; the text is the same either way).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub drafted_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub accepted_tokens: u64,
}

/// For `skip_serializing_if` on token counts (the traces' too).
pub fn is_zero(n: &u64) -> bool {
    *n == 0
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
    /// The model's own probabilities of the options at each enum choice it made (local model: whole values
    /// scored by likelihood), in reply order. Empty for providers that cannot tell.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<EnumChoice>,
}

/// One enum choice: each option's JSON text and its probability (softmax of the options' total
/// log-likelihoods, so they sum to 1 over the options).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnumChoice {
    pub options: Vec<(String, f64)>,
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

impl Cancel {
    /// The error a call stopped by this flag returns: its reason, else "cancelled by the user".
    pub fn error(&self, provider: &str) -> LlmError {
        let mut e = LlmError::cancelled(provider);
        if let Some(r) = self.reason() {
            e.message = r;
        }
        e
    }
}

/// A chat model: the one seam agents, the bench runner and the GUI talk to.
pub trait ChatModel: Send + Sync {
    /// "provider:model", for logs and result files (never contains a key).
    fn name(&self) -> String;

    /// The `reasoning_effort` every request carries, when the provider sends one.
    fn reasoning_effort(&self) -> Option<String> {
        None
    }

    /// How free text is sampled when a request does not say (the local model's repetition control), for traces.
    fn sampling(&self) -> Option<String> {
        None
    }

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
