//! OpenAI-compatible `/v1/chat/completions` client (Ollama, llama.cpp's server, vLLM, LM Studio, cloud APIs,
//! `brainlens llm serve`): JSON mode and json_schema when the server takes them, the reply validated against
//! the schema with one corrective retry, retries with backoff on infrastructure failures, streaming (SSE).

pub mod logprobs;
pub mod retry;

use crate::llm::reply_json::extract_json;

use crate::llm::config::{ProviderConfig, Secret};
use crate::llm::error::{ErrorClass, LlmError};
use crate::llm::schema::Schema;
use crate::llm::types::{ChatModel, ChatRequest, ChatResponse, Message, ResponseFormat, Usage};
use crate::util::cancel::Cancel;
use retry::Backoff;
use serde_json::{Value, json};
use std::io::BufRead;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

const PROVIDER: &str = "openai";

/// How much structured output the server has accepted so far (downgraded when it refuses a level):
/// OpenAI's `json_schema`, then llama.cpp-python's `{"type": "json_object", "schema": …}`, then plain JSON mode.
const FORMAT_SCHEMA: u8 = 3;
const FORMAT_OBJECT_SCHEMA: u8 = 2;
const FORMAT_OBJECT: u8 = 1;

/// The level each endpoint (base URL) has accepted, learned once per process and shared by every client.
fn learned_levels() -> &'static std::sync::Mutex<std::collections::HashMap<String, u8>> {
    static LEVELS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, u8>>> =
        std::sync::OnceLock::new();
    LEVELS.get_or_init(Default::default)
}

/// Endpoints that refused `logprobs` (learned once per process and shared by every client).
fn without_logprobs() -> &'static std::sync::Mutex<std::collections::HashSet<String>> {
    static REFUSED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<String>>> =
        std::sync::OnceLock::new();
    REFUSED.get_or_init(Default::default)
}

pub struct OpenAiClient {
    base: String,
    model: String,
    key: Option<Secret>,
    agent: ureq::Agent,
    max_retries: u32,
    reasoning_effort: Option<String>,
    pub backoff: Backoff,
    format_level: AtomicU8,
    /// Whether to ask for `logprobs` where the reply has an enum (off once the endpoint refused them).
    logprobs: std::sync::atomic::AtomicBool,
}

/// `http://host:port`, `http://host:port/`, `http://host:port/v1` → `http://host:port/v1`.
pub fn normalise_base(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    if url.ends_with("/v1") || url.contains("/v1/") { url.to_string() } else { format!("{url}/v1") }
}

struct Attempt {
    text: String,
    usage: Usage,
    finish: String,
    model: String,
    /// The reply's tokens with their alternatives, when the endpoint gave `logprobs`.
    tokens: Vec<logprobs::Token>,
}

impl OpenAiClient {
    pub fn new(config: &ProviderConfig) -> Result<OpenAiClient, LlmError> {
        if config.base_url.trim().is_empty() {
            return Err(LlmError::config(PROVIDER, "no base URL (set it in Settings or BRAINLENS_BASE_URL)"));
        }
        let timeout = Duration::from_secs_f64(config.timeout_s.max(0.1));
        let agent =
            ureq::Agent::config_builder().timeout_global(Some(timeout)).http_status_as_error(false).build().new_agent();
        Ok(OpenAiClient {
            base: normalise_base(&config.base_url),
            model: config.model.trim().to_string(),
            key: config.api_key.clone(),
            agent,
            max_retries: config.max_retries,
            reasoning_effort: config.reasoning_effort.clone(),
            backoff: Backoff::default(),
            format_level: AtomicU8::new(
                learned_levels()
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&normalise_base(&config.base_url)).copied())
                    .unwrap_or(FORMAT_SCHEMA),
            ),
            logprobs: std::sync::atomic::AtomicBool::new(
                !without_logprobs().lock().is_ok_and(|m| m.contains(&normalise_base(&config.base_url))),
            ),
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Removes the key from any text that leaves this client (server error bodies may echo headers).
    fn redact(&self, text: &str) -> String {
        match &self.key {
            Some(k) if !k.expose().is_empty() => text.replace(k.expose(), "<redacted>"),
            _ => text.to_string(),
        }
    }

    fn body(&self, req: &ChatRequest, messages: &[Message], level: u8) -> Value {
        // Messages with images go out as OpenAI's content parts (text, then each image_url).
        let messages: Vec<Value> = messages
            .iter()
            .map(|m| {
                let mut v = json!({"role": m.role, "content": m.content});
                if !m.images.is_empty() {
                    let mut parts = vec![json!({"type": "text", "text": m.content})];
                    parts.extend(m.images.iter().map(|url| json!({"type": "image_url", "image_url": {"url": url}})));
                    v["content"] = Value::Array(parts);
                }
                v
            })
            .collect();
        let mut body = json!({
            "model": if self.model.is_empty() { "default" } else { &self.model },
            "messages": messages,
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
            "stream": req.stream,
        });
        if let Some(seed) = req.seed {
            body["seed"] = json!(seed);
        }
        if let Some(effort) = &self.reasoning_effort {
            body["reasoning_effort"] = json!(effort);
        }
        if !req.stop.is_empty() {
            body["stop"] = json!(req.stop);
        }
        if req.stream {
            body["stream_options"] = json!({"include_usage": true});
        }
        if self.logprobs.load(Ordering::SeqCst) && logprobs::wanted(&req.format) {
            body["logprobs"] = json!(true);
            body["top_logprobs"] = json!(logprobs::TOP);
        }
        match (&req.format, level) {
            (ResponseFormat::JsonSchema { name, schema }, FORMAT_SCHEMA) => {
                body["response_format"] =
                    json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": true}});
            }
            (ResponseFormat::JsonSchema { schema, .. }, FORMAT_OBJECT_SCHEMA) => {
                body["response_format"] = json!({"type": "json_object", "schema": schema});
            }
            (ResponseFormat::JsonSchema { .. } | ResponseFormat::JsonObject, FORMAT_OBJECT..=FORMAT_SCHEMA) => {
                body["response_format"] = json!({"type": "json_object"});
            }
            _ => {}
        }
        body
    }

    /// GET /models: the ids the endpoint serves.
    pub fn models(&self) -> Result<Vec<String>, LlmError> {
        let mut request = self.agent.get(format!("{}/models", self.base));
        if let Some(key) = &self.key {
            request = request.header("Authorization", format!("Bearer {}", key.expose()));
        }
        let mut response = request
            .call()
            .map_err(|e| LlmError::new(retry::classify_transport(&e), PROVIDER, self.redact(&e.to_string())))?;
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string().map_err(|e| LlmError::infra(PROVIDER, e.to_string()))?;
        if status != 200 {
            return Err(LlmError::new(
                retry::classify_status(status),
                PROVIDER,
                format!("HTTP {status}: {}", self.redact(&text)),
            ));
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| LlmError::infra(PROVIDER, format!("malformed /models reply: {e}")))?;
        Ok(value["data"]
            .as_array()
            .map(|a| a.iter().filter_map(|m| m["id"].as_str().map(String::from)).collect())
            .unwrap_or_default())
    }

    /// One HTTP exchange. Errors carry their class; `streamed` tells whether deltas already reached the caller.
    fn exchange(
        &self,
        body: &Value,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
        streamed: &mut bool,
    ) -> Result<Attempt, LlmError> {
        let mut request =
            self.agent.post(format!("{}/chat/completions", self.base)).header("Content-Type", "application/json");
        if let Some(key) = &self.key {
            request = request.header("Authorization", format!("Bearer {}", key.expose()));
        }
        let mut response = request
            .send(serde_json::to_vec(body).unwrap_or_default())
            .map_err(|e| LlmError::new(retry::classify_transport(&e), PROVIDER, self.redact(&e.to_string())))?;
        let status = response.status().as_u16();
        if status != 200 {
            let retry_after =
                response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(retry::parse_retry_after);
            let text = response.body_mut().read_to_string().unwrap_or_default();
            let mut error = LlmError::new(
                retry::classify_status(status),
                PROVIDER,
                format!("HTTP {status}: {}", self.redact(short(&text))),
            );
            error.retry_after = retry_after;
            error.status = Some(status);
            return Err(error);
        }
        let infra = |e: &dyn std::fmt::Display| LlmError::infra(PROVIDER, format!("reading the reply: {e}"));
        if body["stream"] == json!(true) {
            let reader = std::io::BufReader::new(response.body_mut().as_reader());
            let mut attempt = Attempt {
                text: String::new(),
                usage: Usage::default(),
                finish: "stop".into(),
                model: String::new(),
                tokens: Vec::new(),
            };
            let mut done = false;
            for line in reader.lines() {
                if cancel.is_cancelled() {
                    return Err(cancel.error(PROVIDER));
                }
                let line = line.map_err(|e| infra(&e))?;
                let Some(data) = line.strip_prefix("data:").map(str::trim) else { continue };
                if data == "[DONE]" {
                    done = true;
                    break;
                }
                let chunk: Value = serde_json::from_str(data)
                    .map_err(|e| LlmError::infra(PROVIDER, format!("malformed stream chunk: {e}")))?;
                if let Some(delta) = chunk["choices"][0]["delta"]["content"].as_str() {
                    *streamed = true;
                    on_delta(delta);
                    attempt.text.push_str(delta);
                }
                attempt.tokens.extend(logprobs::tokens(&chunk["choices"][0]));
                if let Some(f) = chunk["choices"][0]["finish_reason"].as_str() {
                    attempt.finish = f.to_string();
                }
                if let Some(m) = chunk["model"].as_str() {
                    attempt.model = m.to_string();
                }
                if chunk["usage"].is_object() {
                    attempt.usage = usage(&chunk["usage"]);
                }
            }
            if !done {
                return Err(LlmError::infra(PROVIDER, "the stream ended before [DONE] (connection closed)"));
            }
            return Ok(attempt);
        }
        let text = response.body_mut().read_to_string().map_err(|e| infra(&e))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            LlmError::infra(PROVIDER, format!("malformed reply body ({e}): {}", self.redact(short(&text))))
        })?;
        let choice = &value["choices"][0];
        let Some(content) = choice["message"]["content"].as_str() else {
            return Err(LlmError::model(
                PROVIDER,
                format!("the reply has no message content: {}", self.redact(short(&text))),
            ));
        };
        on_delta(content);
        Ok(Attempt {
            text: content.to_string(),
            usage: usage(&value["usage"]),
            finish: choice["finish_reason"].as_str().unwrap_or("stop").to_string(),
            model: value["model"].as_str().unwrap_or_default().to_string(),
            tokens: logprobs::tokens(choice),
        })
    }

    /// `exchange` with the retry policy: infrastructure failures retried with backoff, a refused
    /// response_format downgraded (json_schema → json_object → none), everything else returned.
    fn send(
        &self,
        req: &ChatRequest,
        messages: &[Message],
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
        attempts: &mut u32,
    ) -> Result<Attempt, LlmError> {
        let mut retries = 0;
        loop {
            if cancel.is_cancelled() {
                return Err(cancel.error(PROVIDER));
            }
            let level = self.format_level.load(Ordering::SeqCst);
            let body = self.body(req, messages, level);
            *attempts += 1;
            let mut streamed = false;
            let error = match self.exchange(&body, cancel, on_delta, &mut streamed) {
                Ok(a) => return Ok(a),
                Err(e) => e,
            };
            // Refused logprobs: a 400/422 that names them (remembered for the endpoint), or any 400/422 once no
            // format is left to lower (this client asks without them from now on; the endpoint is not marked,
            // since the 400 may have had another cause).
            if body.get("logprobs").is_some() && matches!(error.status, Some(400 | 422)) {
                let named = error.message.contains("logprob");
                if named || body.get("response_format").is_none() {
                    self.logprobs.store(false, Ordering::SeqCst);
                    if named && let Ok(mut m) = without_logprobs().lock() {
                        m.insert(self.base.clone());
                    }
                    continue;
                }
            }
            // A refused format: 400/422, or a 500 whose body names the format (llama-cpp-python's request
            // model rejects `json_schema` that way).
            let refused_format = body.get("response_format").is_some()
                && match error.status {
                    Some(400 | 422) => error.class == ErrorClass::ModelError,
                    Some(500) => error.message.contains("response_format") || error.message.contains("json_schema"),
                    _ => false,
                };
            if refused_format {
                let lower = level.saturating_sub(1);
                self.format_level.store(lower, Ordering::SeqCst);
                if let Ok(mut m) = learned_levels().lock() {
                    m.insert(self.base.clone(), lower);
                }
                continue;
            }
            let too_long = error.retry_after.is_some_and(|s| s > self.backoff.max_retry_after.as_secs_f64());
            if !error.class.retryable() || retries >= self.max_retries || streamed || too_long {
                return Err(LlmError { attempts: *attempts, ..error });
            }
            retry::sleep(self.backoff.delay(retries, error.retry_after), cancel, PROVIDER)?;
            retries += 1;
        }
    }
}

fn usage(value: &Value) -> Usage {
    Usage {
        prompt_tokens: value["prompt_tokens"].as_u64().unwrap_or(0),
        completion_tokens: value["completion_tokens"].as_u64().unwrap_or(0),
        cached_tokens: value["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0),
        ..Default::default()
    }
}

fn short(text: &str) -> &str {
    match text.char_indices().nth(300) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

impl ChatModel for OpenAiClient {
    fn name(&self) -> String {
        format!("{PROVIDER}:{}", if self.model.is_empty() { "default" } else { &self.model })
    }

    fn reasoning_effort(&self) -> Option<String> {
        self.reasoning_effort.clone()
    }

    fn chat_with(
        &self,
        req: &ChatRequest,
        cancel: &Cancel,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let schema = match &req.format {
            ResponseFormat::Text | ResponseFormat::Tagged { .. } => None,
            ResponseFormat::JsonObject => Some(Schema::any_object()),
            // Size bounds are asked for, not enforced on a reply (`without_bounds`): a longer text is an answer.
            ResponseFormat::JsonSchema { schema, .. } => Some(
                Schema::compile(&crate::llm::schema::without_bounds(schema))
                    .map_err(|e| LlmError::config(PROVIDER, format!("response schema: {e}")))?,
            ),
        };
        let mut attempts = 0;
        let mut messages = req.messages.clone();
        let mut usage_total = Usage::default();
        for corrective in [false, true] {
            let attempt = self.send(req, &messages, cancel, on_delta, &mut attempts)?;
            usage_total.prompt_tokens += attempt.usage.prompt_tokens;
            usage_total.completion_tokens += attempt.usage.completion_tokens;
            usage_total.cached_tokens += attempt.usage.cached_tokens;
            let json = match &schema {
                None => None,
                Some(schema) => {
                    let checked = extract_json(&attempt.text)
                        .ok_or_else(|| "the reply is not JSON".to_string())
                        .and_then(|v| schema.validate(&v).map(|_| v).map_err(|e| e.to_string()));
                    match checked {
                        Ok(v) => Some(v),
                        Err(problem) if !corrective => {
                            messages.push(Message::assistant(attempt.text.clone()));
                            messages.push(Message::user(format!(
                                "That reply is invalid: {problem}. Answer again with only the JSON value, valid against the schema."
                            )));
                            continue;
                        }
                        Err(problem) => {
                            let mut e = LlmError::model(
                                PROVIDER,
                                format!(
                                    "reply invalid against the schema after a corrective retry: {problem} (finish \
                                     reason {}, {} completion tokens; the reply began {:?})",
                                    attempt.finish,
                                    attempt.usage.completion_tokens,
                                    short(&attempt.text)
                                ),
                            );
                            e.attempts = attempts;
                            return Err(e);
                        }
                    }
                }
            };
            // The options' probabilities where the endpoint gave logprobs for this reply.
            let choices = match (&req.format, &json) {
                (ResponseFormat::JsonSchema { schema, .. }, Some(v)) => {
                    logprobs::enum_choices(schema, v, &attempt.text, &attempt.tokens)
                }
                _ => Vec::new(),
            };
            return Ok(ChatResponse {
                text: attempt.text,
                json,
                usage: usage_total,
                latency_ms: started.elapsed().as_secs_f64() * 1000.0,
                model: if attempt.model.is_empty() { self.model.clone() } else { attempt.model },
                finish_reason: attempt.finish,
                attempts,
                choices,
            });
        }
        unreachable!("the second pass always returns")
    }
}
