//! An OpenAI-compatible HTTP server over any `ChatModel` (normally the local GGUF), for loopback use: several
//! tools share one loaded model, and the `openai` client is tested against a real server.
//! Routes: GET /v1/models, GET /health (requests running and waiting), POST /v1/chat/completions
//! (response_format text / json_object / json_schema, OpenAI tool calling — `tools`, `tool_choice`,
//! `parallel_tool_calls`, arguments decoded under each function's schema —, stream with SSE). With an API key
//! every request needs `Authorization: Bearer KEY` (401 otherwise); the key is never logged. Requests run
//! one at a time on the model and queue meanwhile.

use super::config::Secret;
use super::error::ErrorClass;
use super::tools::{self, Reply, ToolSpec};
use super::types::{ChatModel, ChatRequest, Message, ResponseFormat};
use crate::llm::error::RequestError;
use crate::util::cancel::Cancel;
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

pub struct Server {
    http: Arc<tiny_http::Server>,
    model: Arc<dyn ChatModel>,
    id: String,
    key: Option<Secret>,
    queue: Arc<Queue>,
}

/// Chat requests in flight: `waiting` for the model, `running` on it (one at a time).
#[derive(Default)]
pub struct Queue {
    waiting: AtomicUsize,
    running: AtomicUsize,
    served: AtomicUsize,
    gate: std::sync::Mutex<()>,
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header")
}

fn json_response(status: u16, body: &Value) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    tiny_http::Response::from_data(serde_json::to_vec(body).unwrap_or_default())
        .with_status_code(status)
        .with_header(header("Content-Type", "application/json"))
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({"error": {"message": message, "type": kind}})
}

/// OpenAI's usage object, with the prompt tokens served from the prefix cache.
fn usage_of(u: &super::types::Usage) -> Value {
    json!({"prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
           "total_tokens": u.prompt_tokens + u.completion_tokens,
           "prompt_tokens_details": {"cached_tokens": u.cached_tokens}})
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Reads an OpenAI chat-completions body into our request.
pub fn parse_request(body: &Value) -> Result<ChatRequest, RequestError> {
    let messages: Vec<Message> = body
        .get("messages")
        .and_then(Value::as_array)
        .ok_or("\"messages\" must be an array")?
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let role = m.get("role").and_then(Value::as_str).ok_or(format!("messages[{i}].role missing"))?;
            let calls = m.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty());
            let content = match (m.get("content"), calls) {
                (Some(Value::String(s)), _) => s.clone(),
                (Some(Value::Array(parts)), _) => {
                    parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
                }
                (None | Some(Value::Null), Some(_)) => String::new(),
                _ => return Err(format!("messages[{i}].content must be a string").into()),
            };
            // Earlier calls and their results go back to the model as the text it would have written/read.
            let content = match calls {
                Some(calls) => {
                    let list: Vec<Value> = calls
                        .iter()
                        .map(|c| {
                            let args = c.pointer("/function/arguments").and_then(Value::as_str).unwrap_or("{}");
                            json!({"name": c.pointer("/function/name"), "arguments": serde_json::from_str::<Value>(args).unwrap_or(json!(args))})
                        })
                        .collect();
                    format!("{content}{}", Value::Array(list))
                }
                None => content,
            };
            let (role, content) = match role {
                "tool" => {
                    let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                    ("user", format!("Result of tool call {id}: {content}"))
                }
                r => (r, content),
            };
            let role = match role {
                "system" | "developer" => super::types::Role::System,
                "user" => super::types::Role::User,
                "assistant" => super::types::Role::Assistant,
                other => return Err(format!("messages[{i}].role \"{other}\" is not supported").into()),
            };
            Ok(Message { role, content, images: Vec::new() })
        })
        .collect::<Result<_, RequestError>>()?;
    if messages.is_empty() {
        return Err("\"messages\" is empty".into());
    }
    let mut request = ChatRequest::new(messages);
    if let Some(t) = body.get("temperature").and_then(Value::as_f64) {
        request.temperature = t as f32;
    }
    if let Some(n) = body.get("max_completion_tokens").or(body.get("max_tokens")).and_then(Value::as_u64) {
        request.max_tokens = n.min(u32::MAX as u64) as u32;
    }
    request.seed = body.get("seed").and_then(Value::as_u64);
    request.stop = match body.get("stop") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => list.iter().filter_map(|s| s.as_str().map(String::from)).collect(),
        _ => vec![],
    };
    request.stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    request.format = match body.get("response_format") {
        None | Some(Value::Null) => ResponseFormat::Text,
        Some(format) => match format.get("type").and_then(Value::as_str) {
            Some("text") => ResponseFormat::Text,
            // llama.cpp's server form: a JSON object valid against `schema`.
            Some("json_object") if format.get("schema").is_some_and(|s| !s.is_null()) => {
                let schema = format["schema"].clone();
                super::schema::Schema::compile(&schema).map_err(|e| format!("response_format schema: {e}"))?;
                ResponseFormat::JsonSchema { name: "response".into(), schema }
            }
            Some("json_object") => ResponseFormat::JsonObject,
            Some("json_schema") => {
                let spec = format.get("json_schema").ok_or("response_format.json_schema missing")?;
                let schema = spec.get("schema").cloned().ok_or("response_format.json_schema.schema missing")?;
                super::schema::Schema::compile(&schema).map_err(|e| format!("response_format schema: {e}"))?;
                let name = spec.get("name").and_then(Value::as_str).unwrap_or("response").to_string();
                ResponseFormat::JsonSchema { name, schema }
            }
            other => return Err(format!("response_format type {other:?} is not supported").into()),
        },
    };
    Ok(request)
}

impl Server {
    /// Binds `addr` (e.g. "127.0.0.1:8080"; port 0 picks a free one).
    /// Without a key the server binds loopback addresses only.
    pub fn bind(model: Arc<dyn ChatModel>, addr: &str, key: Option<Secret>) -> Result<Server, RequestError> {
        let http = tiny_http::Server::http(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let loopback = http.server_addr().to_ip().is_some_and(|a| a.ip().is_loopback());
        if !loopback && key.is_none() {
            return Err(format!(
                "{addr} is reachable from other machines: serving beyond loopback needs --api-key (or BRAINLENS_SERVE_KEY)"
            ).into());
        }
        let id = model.name().split_once(':').map(|(_, m)| m.to_string()).unwrap_or_else(|| model.name());
        Ok(Server { http: Arc::new(http), model, id, key, queue: Arc::new(Queue::default()) })
    }

    /// The bound address, e.g. "127.0.0.1:41234".
    pub fn addr(&self) -> String {
        self.http.server_addr().to_ip().map(|a| a.to_string()).unwrap_or_default()
    }

    /// Serves until the process ends (one thread per request; the model serialises generation itself).
    pub fn run(&self) {
        for request in self.http.incoming_requests() {
            let model = self.model.clone();
            let id = self.id.clone();
            let key = self.key.clone();
            let queue = self.queue.clone();
            std::thread::spawn(move || handle(request, model.as_ref(), &id, key.as_ref(), &queue));
        }
    }
}

fn authorised(request: &tiny_http::Request, key: Option<&Secret>) -> bool {
    let Some(key) = key else { return true };
    request.headers().iter().any(|h| {
        h.field.equiv("Authorization")
            && h.value.as_str().strip_prefix("Bearer ").is_some_and(|v| v.trim() == key.expose())
    })
}

fn handle(mut request: tiny_http::Request, model: &dyn ChatModel, id: &str, key: Option<&Secret>, queue: &Queue) {
    let path = request.url().split('?').next().unwrap_or("").trim_end_matches('/').to_string();
    let method = request.method().clone();
    if !authorised(&request, key) {
        let body = error_body("invalid_api_key", "missing or wrong API key (Authorization: Bearer …)");
        let _ = request.respond(json_response(401, &body));
        return;
    }
    let response = match (method, path.as_str()) {
        (tiny_http::Method::Get, "/health" | "/v1/health") => json_response(
            200,
            &json!({"status": "ok", "model": id, "running": queue.running.load(Ordering::SeqCst),
                    "waiting": queue.waiting.load(Ordering::SeqCst), "served": queue.served.load(Ordering::SeqCst)}),
        ),
        (tiny_http::Method::Get, "/v1/models" | "/models") => json_response(
            200,
            &json!({"object": "list", "data": [{"id": id, "object": "model", "created": 0, "owned_by": "brainlens"}]}),
        ),
        (tiny_http::Method::Post, "/v1/chat/completions" | "/chat/completions") => {
            let mut text = String::new();
            if let Err(e) = request.as_reader().read_to_string(&mut text) {
                let _ = request.respond(json_response(400, &error_body("invalid_request_error", &e.to_string())));
                return;
            }
            let parsed = serde_json::from_str::<Value>(&text)
                .map_err(|e| RequestError::from(format!("body is not JSON: {e}")))
                .and_then(|b| Ok((parse_request(&b)?, tools::parse(&b)?)));
            match parsed {
                Err(message) => json_response(400, &error_body("invalid_request_error", &message.to_string())),
                Ok((mut chat, spec)) => {
                    if let Some(t) = &spec {
                        t.apply(&mut chat);
                    }
                    queue.waiting.fetch_add(1, Ordering::SeqCst);
                    let _turn = queue.gate.lock().unwrap_or_else(|p| p.into_inner());
                    queue.waiting.fetch_sub(1, Ordering::SeqCst);
                    queue.running.fetch_add(1, Ordering::SeqCst);
                    if chat.stream {
                        stream(request, model, id, chat, spec.as_ref());
                    } else {
                        let _ = request.respond(complete(model, id, &chat, spec.as_ref()));
                    }
                    queue.running.fetch_sub(1, Ordering::SeqCst);
                    queue.served.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            }
        }
        _ => json_response(404, &error_body("not_found", &format!("no route {path}"))),
    };
    let _ = request.respond(response);
}

/// The assistant message and finish reason of a reply: content, or tool calls under a tool request.
fn message_of(r: &super::types::ChatResponse, spec: Option<&ToolSpec>) -> (Value, String) {
    let reply = spec.map(|t| t.reply(r.json.as_ref().unwrap_or(&Value::Null), &r.text));
    match reply {
        Some(Reply::Calls(calls)) => (
            json!({"role": "assistant", "content": null, "tool_calls": tools::tool_calls_json(&calls, now())}),
            "tool_calls".into(),
        ),
        Some(Reply::Text(t)) => (json!({"role": "assistant", "content": t}), r.finish_reason.clone()),
        None => (json!({"role": "assistant", "content": r.text}), r.finish_reason.clone()),
    }
}

fn complete(
    model: &dyn ChatModel,
    id: &str,
    chat: &ChatRequest,
    spec: Option<&ToolSpec>,
) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    match model.chat(chat) {
        Ok(r) => {
            let (message, finish) = message_of(&r, spec);
            json_response(
                200,
                &json!({
                    "id": format!("chatcmpl-{}", now()), "object": "chat.completion", "created": now(), "model": id,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage_of(&r.usage),
                }),
            )
        }
        Err(e) => {
            let status = if e.class == ErrorClass::Configuration { 400 } else { 500 };
            json_response(status, &error_body(e.class.as_str(), &e.message))
        }
    }
}

/// Server-sent events written straight to the socket, one HTTP chunk per event, flushed at once (tiny_http's
/// own chunked writer buffers 8 KiB, which would deliver a short reply in one burst).
fn stream(request: tiny_http::Request, model: &dyn ChatModel, id: &str, chat: ChatRequest, spec: Option<&ToolSpec>) {
    let mut w = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    if w.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut send = |event: &str| -> std::io::Result<()> {
        let data = format!("data: {event}\n\n");
        write!(w, "{:x}\r\n{data}\r\n", data.len())?;
        w.flush()
    };
    let created = now();
    let chunk = |delta: Value, finish: Value, usage: Option<Value>| {
        let mut c = json!({"id": format!("chatcmpl-{created}"), "object": "chat.completion.chunk", "created": created,
                           "model": id, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        if let Some(u) = usage {
            c["usage"] = u;
        }
        c.to_string()
    };
    if send(&chunk(json!({"role": "assistant"}), Value::Null, None)).is_err() {
        return;
    }
    let cancel = Cancel::default();
    // Under a tool request the reply is JSON for us, not text for the client: it is sent once decoded.
    let result = model.chat_with(&chat, &cancel, &mut |delta| {
        if spec.is_none() && send(&chunk(json!({"content": delta}), Value::Null, None)).is_err() {
            cancel.cancel();
        }
    });
    let _ = match result {
        Ok(r) => {
            let usage = usage_of(&r.usage);
            let (message, finish) = message_of(&r, spec);
            let sent = match (spec, message.get("tool_calls").and_then(Value::as_array)) {
                // Streamed tool calls: each call's id and name, then its arguments, as OpenAI sends them.
                (Some(_), Some(calls)) => calls.iter().enumerate().try_for_each(|(i, c)| {
                    send(&chunk(
                        json!({"tool_calls": [{"index": i, "id": c["id"], "type": "function",
                                               "function": {"name": c["function"]["name"], "arguments": ""}}]}),
                        Value::Null,
                        None,
                    ))?;
                    send(&chunk(
                        json!({"tool_calls": [{"index": i, "function": {"arguments": c["function"]["arguments"]}}]}),
                        Value::Null,
                        None,
                    ))
                }),
                (Some(_), None) => send(&chunk(json!({"content": message["content"]}), Value::Null, None)),
                _ => Ok(()),
            };
            sent.and_then(|_| send(&chunk(json!({}), json!(finish), Some(usage)))).and_then(|_| send("[DONE]"))
        }
        Err(e) => send(&error_body(e.class.as_str(), &e.message).to_string()),
    };
    let _ = w.write_all(b"0\r\n\r\n").and_then(|_| w.flush());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn response_formats_of_both_servers_parse() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let base = |f: Value| json!({"messages": [{"role": "user", "content": "hi"}], "response_format": f});
        for f in [
            json!({"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}),
            json!({"type": "json_object", "schema": schema}),
        ] {
            let r = parse_request(&base(f.clone())).unwrap();
            assert!(matches!(&r.format, ResponseFormat::JsonSchema { schema: s, .. } if *s == schema), "{f}");
        }
        let r = parse_request(&base(json!({"type": "json_object"}))).unwrap();
        assert_eq!(r.format, ResponseFormat::JsonObject);
        let e = parse_request(&base(json!({"type": "json_object", "schema": {"allOf": []}}))).unwrap_err().to_string();
        assert!(e.contains("allOf"), "{e}");
    }
}
