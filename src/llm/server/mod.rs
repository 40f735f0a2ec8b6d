//! An OpenAI-compatible HTTP server over any `ChatModel` (normally the local GGUF), for loopback use: several
//! tools share one loaded model, and the `openai` client is tested against a real server.
//! Routes: GET /v1/models, GET /health (requests running and waiting), POST /v1/chat/completions
//! (response_format text / json_object / json_schema, OpenAI tool calling — `tools`, `tool_choice`,
//! `parallel_tool_calls`, arguments decoded under each function's schema —, stream with SSE). With an API key
//! every request needs `Authorization: Bearer KEY` (401 otherwise); the key is never logged. Requests run
//! one at a time on the model and wait meanwhile, up to a bound (then 429 with `Retry-After`); a client that
//! sends its request slowly is cut off at a deadline (408) before it reaches the model; a shutdown refuses
//! what waits (503) and lets the running request finish.

mod gate;
mod http;
mod request;

pub use gate::{Counts, Gate, Refused};
pub use http::Limits;
pub use request::parse_request;

use super::config::Secret;
use super::error::ErrorClass;
use super::tools::{self, Reply, ToolSpec};
use super::types::{ChatModel, ChatRequest};
use crate::llm::error::RequestError;
use crate::util::cancel::Cancel;
use serde_json::{Value, json};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the server allows: requests waiting for the model, open connections, and the HTTP limits.
#[derive(Debug, Clone)]
pub struct Options {
    /// Requests that may wait while one runs; past it, 429 with `Retry-After`.
    pub max_waiting: usize,
    /// Connections being read, waiting or answered; past it, 503 with `Retry-After` at once.
    pub max_connections: usize,
    pub http: Limits,
    /// On shutdown, how long the running request may go on before it is cancelled (and answered 503).
    pub grace: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options { max_waiting: 32, max_connections: 64, http: Limits::default(), grace: Duration::from_secs(30) }
    }
}

pub struct Server {
    listener: TcpListener,
    shared: Arc<Shared>,
}

/// What every connection's thread shares.
struct Shared {
    model: Arc<dyn ChatModel>,
    id: String,
    key: Option<Secret>,
    gate: Gate,
    options: Options,
    connections: AtomicUsize,
    /// Cancels the running generation when the grace period after a shutdown has passed.
    stop: Cancel,
}

/// Stops a running server from another thread: no new connections, waiting requests refused (503), the
/// running one finished (or cancelled after the grace period).
#[derive(Clone)]
pub struct Shutdown {
    shared: Arc<Shared>,
    addr: std::net::SocketAddr,
}

impl Shutdown {
    pub fn shutdown(&self) {
        if !self.shared.gate.close() {
            return;
        }
        // Wake the accept loop.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

fn json_bytes(body: &Value) -> Vec<u8> {
    serde_json::to_vec(body).unwrap_or_default()
}

fn respond_json(stream: &TcpStream, status: u16, headers: &[(&str, String)], body: &Value) {
    http::respond(stream, status, headers, "application/json", &json_bytes(body));
}

/// OpenAI's error body: `message`, `type`, and the `param` and `code` (null where none applies).
fn error_body(kind: &str, message: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}

/// A request field refused: 400's body names the parameter, as OpenAI's does.
fn param_error_body(e: &crate::llm::error::ParamError) -> Value {
    json!({"error": {"message": e.message, "type": "invalid_request_error", "param": e.param, "code": e.code}})
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

impl Server {
    /// Binds `addr` (e.g. "127.0.0.1:8080"; port 0 picks a free one).
    /// Without a key the server binds loopback addresses only.
    pub fn bind(
        model: Arc<dyn ChatModel>,
        addr: &str,
        key: Option<Secret>,
        options: Options,
    ) -> Result<Server, RequestError> {
        let listener = TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let loopback = listener.local_addr().is_ok_and(|a| a.ip().is_loopback());
        if !loopback && key.is_none() {
            return Err(format!(
                "{addr} is reachable from other machines: serving beyond loopback needs --api-key (or BRAINLENS_SERVE_KEY)"
            ).into());
        }
        let id = model.name().split_once(':').map(|(_, m)| m.to_string()).unwrap_or_else(|| model.name());
        let shared = Shared {
            model,
            id,
            key,
            gate: Gate::new(options.max_waiting),
            options,
            connections: AtomicUsize::new(0),
            stop: Cancel::default(),
        };
        Ok(Server { listener, shared: Arc::new(shared) })
    }

    /// The bound address, e.g. "127.0.0.1:41234".
    pub fn addr(&self) -> String {
        self.listener.local_addr().map(|a| a.to_string()).unwrap_or_default()
    }

    pub fn shutdown_handle(&self) -> Result<Shutdown, RequestError> {
        let addr = self.listener.local_addr().map_err(|e| e.to_string())?;
        Ok(Shutdown { shared: self.shared.clone(), addr })
    }

    /// Serves until [`Shutdown::shutdown`]: a thread per connection, at most `max_connections` at once. Then
    /// waits for the connections in flight: the running request finishes, or is cancelled after the grace
    /// period; returns once every connection is answered (or 5 s after the cancellation).
    pub fn run(&self) {
        for stream in self.listener.incoming() {
            if self.shared.gate.is_closing() {
                break;
            }
            let Ok(stream) = stream else { continue };
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::SeqCst) >= shared.options.max_connections {
                shared.connections.fetch_sub(1, Ordering::SeqCst);
                let body = error_body("server_busy", "too many open connections; try again shortly");
                // Answered from its own thread: the accept loop never waits on a client.
                std::thread::spawn(move || respond_json(&stream, 503, &[("Retry-After", "1".into())], &body));
                continue;
            }
            std::thread::spawn(move || {
                connection(&stream, &shared);
                shared.connections.fetch_sub(1, Ordering::SeqCst);
            });
        }
        let grace_end = Instant::now() + self.shared.options.grace;
        while self.shared.connections.load(Ordering::SeqCst) > 0 {
            if Instant::now() >= grace_end {
                self.shared.stop.cancel_because("the server is shutting down");
                let hard_end = Instant::now() + Duration::from_secs(5);
                while self.shared.connections.load(Ordering::SeqCst) > 0 && Instant::now() < hard_end {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn authorised(request: &http::Request, key: Option<&Secret>) -> bool {
    let Some(key) = key else { return true };
    request.header("authorization").and_then(|v| v.strip_prefix("Bearer ")).is_some_and(|v| v.trim() == key.expose())
}

/// One connection: its request read within the limits, routed, answered, closed.
fn connection(stream: &TcpStream, shared: &Shared) {
    let _ = stream.set_write_timeout(Some(shared.options.http.write_timeout));
    let _ = stream.set_nodelay(true);
    let request = match http::read_request(stream, &shared.options.http) {
        Ok(r) => r,
        Err(f) if f.status == 0 => return,
        Err(f) => {
            let kind = if f.status == 408 { "request_timeout" } else { "invalid_request_error" };
            return respond_json(stream, f.status, &[], &error_body(kind, &f.message));
        }
    };
    if !authorised(&request, shared.key.as_ref()) {
        let body = error_body("invalid_api_key", "missing or wrong API key (Authorization: Bearer …)");
        return respond_json(stream, 401, &[], &body);
    }
    let path = request.path.trim_end_matches('/');
    match (request.method.as_str(), path) {
        ("GET", "/health" | "/v1/health") => {
            let c = shared.gate.counts();
            let status = if shared.gate.is_closing() { "closing" } else { "ok" };
            respond_json(
                stream,
                200,
                &[],
                &json!({"status": status, "model": shared.id, "running": c.running, "waiting": c.waiting,
                        "served": c.served, "max_waiting": shared.options.max_waiting}),
            )
        }
        ("GET", "/v1/models" | "/models") => respond_json(
            stream,
            200,
            &[],
            &json!({"object": "list", "data": [{"id": shared.id, "object": "model", "created": 0, "owned_by": "brainlens"}]}),
        ),
        ("POST", "/v1/chat/completions" | "/chat/completions") => chat_completion(stream, shared, &request.body),
        (_, "/health" | "/v1/health" | "/v1/models" | "/models" | "/v1/chat/completions" | "/chat/completions") => {
            respond_json(stream, 405, &[], &error_body("invalid_request_error", &format!("{} {path}", request.method)))
        }
        _ => respond_json(stream, 404, &[], &error_body("not_found", &format!("no route {path}"))),
    }
}

fn chat_completion(stream: &TcpStream, shared: &Shared, body: &[u8]) {
    let parsed = serde_json::from_slice::<Value>(body)
        .map_err(|e| crate::llm::error::ParamError::body(format!("The body is not JSON: {e}")))
        .and_then(|b| Ok((parse_request(&b)?, tools::parse(&b)?)));
    let (mut chat, spec) = match parsed {
        Ok(p) => p,
        Err(message) => {
            return respond_json(stream, 400, &[], &param_error_body(&message));
        }
    };
    if let Some(t) = &spec {
        t.apply(&mut chat);
    }
    let _turn = match shared.gate.enter() {
        Ok(turn) => turn,
        Err(Refused::Full { retry_after_s }) => {
            let message = format!(
                "{} requests are waiting for the model already; try again in {retry_after_s} s",
                shared.options.max_waiting
            );
            return respond_json(
                stream,
                429,
                &[("Retry-After", retry_after_s.to_string())],
                &error_body("rate_limit_exceeded", &message),
            );
        }
        Err(Refused::Closing) => {
            return respond_json(stream, 503, &[], &error_body("server_closing", "the server is shutting down"));
        }
    };
    if chat.stream {
        sse(stream, shared, chat, spec.as_ref());
    } else {
        complete(stream, shared, &chat, spec.as_ref());
    }
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

/// The status for a failed generation: the request's fault (400), the shutdown's (503), the model's (500).
fn error_status(class: ErrorClass) -> u16 {
    match class {
        ErrorClass::Configuration => 400,
        ErrorClass::Cancelled => 503,
        _ => 500,
    }
}

fn complete(stream: &TcpStream, shared: &Shared, chat: &ChatRequest, spec: Option<&ToolSpec>) {
    match shared.model.chat_with(chat, &shared.stop, &mut |_| {}) {
        Ok(r) => {
            let (message, finish) = message_of(&r, spec);
            respond_json(
                stream,
                200,
                &[],
                &json!({
                    "id": format!("chatcmpl-{}", now()), "object": "chat.completion", "created": now(),
                    "model": shared.id,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage_of(&r.usage),
                }),
            )
        }
        Err(e) => respond_json(stream, error_status(e.class), &[], &error_body(e.class.as_str(), &e.message)),
    }
}

/// Server-sent events written straight to the socket, one HTTP chunk per event, flushed at once. A client
/// that stops reading (a write times out) or leaves cancels the generation.
fn sse(stream: &TcpStream, shared: &Shared, chat: ChatRequest, spec: Option<&ToolSpec>) {
    let mut w = stream;
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
    let id = shared.id.as_str();
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
    // This request's own cancel (the client left), also set when the server's grace period ends.
    let cancel = Cancel::default();
    let stop = &shared.stop;
    // Under a tool request the reply is JSON for us, not text for the client: it is sent once decoded.
    let result = shared.model.chat_with(&chat, &cancel, &mut |delta| {
        if stop.is_cancelled()
            || (spec.is_none() && send(&chunk(json!({"content": delta}), Value::Null, None)).is_err())
        {
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
    http::close(stream);
}
