//! The parser agent and the semantic judge: language-model roles of the evaluation, each call recorded in the
//! instance's audit with its tokens and time.

use crate::bench::case::Case;
use crate::bench::scoring::{Judge, VisionJudge};
use crate::harness::error::Result;
use crate::llm::extract_json;
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, ResponseFormat};
use crate::util::cancel::Cancel;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Mutex;

/// Tokens and seconds of one role in one instance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spent {
    pub tokens: u64,
    pub seconds: f64,
}

/// The JSON schema of a case's parser output: one property per metric target key (except `full_text`), typed
/// by the metric's unit (number, list of strings, string) and always nullable, so the parser can say a value
/// is absent instead of inventing one.
pub fn parser_schema(case: &Case) -> Value {
    let mut props = Map::new();
    for m in &case.metrics {
        if let Some(k) = m.target_key.as_deref().filter(|k| *k != "full_text") {
            let t = match m.kind.as_str() {
                "numeric_check" => json!({"type": ["number", "null"]}),
                "set_match_check" | "sequence_match_check" => {
                    json!({"type": ["array", "null"], "items": {"type": "string"}})
                }
                // A categorical truth may be a boolean, a number or a string: leave it open.
                "categorical_check" => json!({}),
                _ => json!({"type": ["string", "null"]}),
            };
            props.insert(k.to_string(), t);
        }
    }
    if props.is_empty() {
        props.insert("answer".into(), json!({"type": ["string", "null"]}));
    }
    let required: Vec<&String> = props.keys().collect();
    json!({"type": "object", "properties": props, "required": required})
}

pub struct ParserOutcome {
    pub parsed: Value,
    pub spent: Spent,
    pub audit: Value,
    /// `parser_error: …` when the reply was unusable (the instance scores what it can).
    pub error: Option<String>,
}

/// The parser: the case's `parser_prompt` as system message, the report as user message, JSON back.
pub fn parse(
    model: &dyn ChatModel,
    case: &Case,
    report: &str,
    cancel: &Cancel,
    max_tokens: u32,
) -> Result<ParserOutcome, LlmError> {
    let schema = parser_schema(case);
    let system = format!(
        "{}\nCopy values from the report only; use null for a value the report does not state. Never invent values.",
        case.parser_prompt
    );
    let req = ChatRequest {
        temperature: 0.0,
        max_tokens,
        seed: Some(0),
        format: ResponseFormat::JsonSchema { name: "parser_output".into(), schema },
        // The markers of struck sentences are BrainLens's, not the report's: the parser reads the agent's text.
        ..ChatRequest::new(vec![
            Message::system(system),
            Message::user(format!("Report:\n{}", crate::agent::grounding::unmarked(report))),
        ])
    };
    let r = model.chat_with(&req, cancel, &mut |_| {})?;
    let spent = Spent { tokens: r.usage.prompt_tokens + r.usage.completion_tokens, seconds: r.latency_ms / 1000.0 };
    let parsed = r.json.clone().or_else(|| extract_json(&r.text)).filter(Value::is_object);
    let audit = json!({"model": r.model, "raw": r.text, "prompt_tokens": r.usage.prompt_tokens,
                       "completion_tokens": r.usage.completion_tokens, "latency_ms": r.latency_ms});
    Ok(match parsed {
        Some(p) => ParserOutcome { parsed: p, spent, audit, error: None },
        None => ParserOutcome {
            parsed: json!({}),
            spent,
            audit,
            error: Some("parser_error: the parser's reply is not a JSON object".into()),
        },
    })
}

/// A language-model judge for the semantic units; every call is kept for the audit.
pub struct LlmJudge<'a> {
    pub model: &'a dyn ChatModel,
    pub cancel: &'a Cancel,
    pub calls: Mutex<Vec<Value>>,
    pub spent: Mutex<Spent>,
    /// An infrastructure failure of the judge (the instance is then rerun as a whole).
    pub infra: Mutex<Option<LlmError>>,
}

impl<'a> LlmJudge<'a> {
    pub fn new(model: &'a dyn ChatModel, cancel: &'a Cancel) -> Self {
        LlmJudge {
            model,
            cancel,
            calls: Mutex::new(Vec::new()),
            spent: Mutex::new(Spent::default()),
            infra: Mutex::new(None),
        }
    }
}

/// A judge call: the case's prompt as system message, `user` (the answer or the image), `{score, reason}` back.
fn judge_request(prompt: &str, user: Message) -> ChatRequest {
    let schema = json!({"type": "object", "properties": {"score": {"type": "number"}, "reason": {"type": "string", "maxLength": 200}},
                        "required": ["score", "reason"]});
    ChatRequest {
        temperature: 0.0,
        max_tokens: 96,
        seed: Some(0),
        format: ResponseFormat::JsonSchema { name: "judge".into(), schema },
        ..ChatRequest::new(vec![Message::system(format!("{prompt}\nScores are between 0 and 1.")), user])
    }
}

impl Judge for LlmJudge<'_> {
    fn judge(&self, input: &Value, prompt: &str) -> Result<Value, crate::bench::error::BenchError> {
        let text = input.as_str().map_or_else(|| input.to_string(), str::to_string);
        self.ask(&judge_request(prompt, Message::user(format!("Answer to judge:\n{text}"))), prompt)
    }
}

impl LlmJudge<'_> {
    /// One judge call: the answer's JSON, with tokens, time and the call kept for the audit; a retryable
    /// failure is remembered as the instance's infrastructure failure.
    fn ask(&self, req: &ChatRequest, prompt: &str) -> Result<Value, crate::bench::error::BenchError> {
        match self.model.chat_with(req, self.cancel, &mut |_| {}) {
            Ok(r) => {
                let mut s = self.spent.lock().unwrap_or_else(|p| p.into_inner());
                s.tokens += r.usage.prompt_tokens + r.usage.completion_tokens;
                s.seconds += r.latency_ms / 1000.0;
                let answer = r.json.clone().or_else(|| extract_json(&r.text));
                self.calls
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(json!({"prompt": prompt, "raw": r.text, "answer": answer}));
                answer.ok_or_else(|| "the judge's reply is not JSON".into())
            }
            Err(e) => {
                self.calls
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(json!({"prompt": prompt, "error": e.to_string()}));
                if e.class.retryable() {
                    *self.infra.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.clone());
                }
                Err(e.to_string().into())
            }
        }
    }
}

/// The largest image a vision judge is sent (bytes).
const MAX_IMAGE_BYTES: u64 = 20 << 20;

impl VisionJudge for LlmJudge<'_> {
    /// The image as an OpenAI image input (a data URL) with the case's `vlm_prompt`; the answer as the text
    /// judge's (`{"score", "reason"}`).
    fn judge_image(&self, image: &Path, prompt: &str) -> Result<Value, crate::bench::error::BenchError> {
        use base64::Engine;
        let ext = image.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        let mime = match ext.as_str() {
            "png" => "image/png",
            "jpg" | "jpeg" => "image/jpeg",
            "gif" => "image/gif",
            "webp" => "image/webp",
            other => return Err(format!("{}: not an image the judge can be shown (.{other})", image.display()).into()),
        };
        let size = std::fs::metadata(image).map_err(|e| format!("{}: {e}", image.display()))?.len();
        if size > MAX_IMAGE_BYTES {
            return Err(
                format!("{}: {size} bytes, more than the judge is sent ({MAX_IMAGE_BYTES})", image.display()).into()
            );
        }
        let bytes = std::fs::read(image).map_err(|e| format!("{}: {e}", image.display()))?;
        let url = format!("data:{mime};base64,{}", base64::engine::general_purpose::STANDARD.encode(bytes));
        let name = image.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let user = Message::user_with_images(format!("Image to judge: {name}"), vec![url]);
        self.ask(&judge_request(prompt, user), prompt)
    }
}
