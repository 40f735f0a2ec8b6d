//! Failures of a model call, classified the way BrainBench classifies them: infrastructure failures are
//! retried (by the provider, and rerun by the bench runner); model failures are the model's answer and are kept.

use serde::{Deserialize, Serialize};

/// Who failed: the service (retryable) or the model (kept as the model's result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Connection refused/reset/closed, timeout, HTTP 429 and 5xx: BrainBench's `api_infrastructure_error`.
    ApiInfrastructureError,
    /// The endpoint answered but the answer is unusable: malformed JSON, reply invalid against the schema after
    /// the corrective retry, empty reply, a 4xx other than 429 (bad model name, bad request).
    ModelError,
    /// The caller cancelled the call.
    Cancelled,
    /// Local setup: model file missing or unreadable, bad settings, replay transcript without the request.
    Configuration,
}

impl ErrorClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::ApiInfrastructureError => "api_infrastructure_error",
            ErrorClass::ModelError => "model_error",
            ErrorClass::Cancelled => "cancelled",
            ErrorClass::Configuration => "configuration_error",
        }
    }
    pub fn retryable(self) -> bool {
        self == ErrorClass::ApiInfrastructureError
    }
}

/// A classified failure with a message for the user, and how many attempts were made.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{} ({}, after {attempts} attempt{}): {message}", .class.as_str(), .provider, if *.attempts == 1 { "" } else { "s" })]
pub struct LlmError {
    pub class: ErrorClass,
    pub provider: String,
    pub message: String,
    pub attempts: u32,
    /// Seconds the server asked us to wait (HTTP Retry-After), when it said.
    pub retry_after: Option<f64>,
    /// The HTTP status, when the endpoint answered with one.
    pub status: Option<u16>,
}

impl LlmError {
    pub fn new(class: ErrorClass, provider: impl Into<String>, message: impl Into<String>) -> Self {
        LlmError {
            class,
            provider: provider.into(),
            message: message.into(),
            attempts: 1,
            retry_after: None,
            status: None,
        }
    }
    pub fn infra(provider: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorClass::ApiInfrastructureError, provider, message)
    }
    pub fn model(provider: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorClass::ModelError, provider, message)
    }
    pub fn config(provider: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorClass::Configuration, provider, message)
    }
    pub fn cancelled(provider: &str) -> Self {
        Self::new(ErrorClass::Cancelled, provider, "cancelled by the user")
    }
}

/// A request, tool list or setting that cannot be used as given (an OpenAI-style request body, a tool
/// schema, a provider name); the text names the field and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct RequestError(pub String);

/// A chat-completions request field that cannot be used as given, named as OpenAI's API names it (`param`,
/// e.g. `max_tokens` or `messages[2].role`), with OpenAI's `code` (`invalid_type`, `invalid_value`,
/// `missing_required_parameter`); `llm serve` answers it with 400 and OpenAI's error body.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    pub param: Option<String>,
    pub code: &'static str,
    pub message: String,
}

impl ParamError {
    /// A value of the wrong JSON type: "Invalid type for 'max_tokens': expected an integer, but got a string."
    pub fn invalid_type(param: impl Into<String>, expected: &str, got: &serde_json::Value) -> Self {
        let param = param.into();
        let message = format!("Invalid type for '{param}': expected {expected}, but got {}.", json_kind(got));
        ParamError { param: Some(param), code: "invalid_type", message }
    }
    /// A value of the right type that is out of range or not one of the allowed ones.
    pub fn invalid_value(param: impl Into<String>, message: impl std::fmt::Display) -> Self {
        let param = param.into();
        ParamError { message: format!("Invalid '{param}': {message}"), param: Some(param), code: "invalid_value" }
    }
    pub fn missing(param: impl Into<String>) -> Self {
        let param = param.into();
        ParamError {
            message: format!("Missing required parameter: '{param}'."),
            param: Some(param),
            code: "missing_required_parameter",
        }
    }
    /// A problem with the body as a whole (not JSON, not an object).
    pub fn body(message: impl Into<String>) -> Self {
        ParamError { param: None, code: "invalid_value", message: message.into() }
    }
}

/// "a string", "an integer", "a number", … for an error message.
pub fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a decimal number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl From<crate::llm::schema::SchemaError> for RequestError {
    fn from(e: crate::llm::schema::SchemaError) -> Self {
        RequestError(e.to_string())
    }
}

crate::util::error::text_conversions!(RequestError, RequestError);
