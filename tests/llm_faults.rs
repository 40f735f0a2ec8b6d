//! The OpenAI-compatible client against a scripted local HTTP server: each fault (429 with Retry-After, 500,
//! a reply slower than the timeout, a malformed body, a closed connection, a 400) is classified and retried as
//! specified, counting attempts; schema-invalid replies get one corrective retry; the key never leaks; and
//! record/replay reproduce a call. No internet, no model.

mod common;

use brainlens::llm::config::{ProviderConfig, ProviderKind, Secret};
use brainlens::llm::openai::OpenAiClient;
use brainlens::llm::replay::{Recorder, Replay, request_hash};
use brainlens::llm::{ChatModel, ChatRequest, ErrorClass};
use common::fake_openai::{Reply, fake, ok_body};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-SECRET-4242";

fn client(url: &str, retries: u32, timeout_s: f64) -> OpenAiClient {
    let config = ProviderConfig {
        provider: ProviderKind::Openai,
        base_url: url.to_string(),
        model: "fake".into(),
        timeout_s,
        max_retries: retries,
        api_key: Secret::new(KEY),
        ..Default::default()
    };
    let mut c = OpenAiClient::new(&config).unwrap();
    c.backoff.base = Duration::from_millis(10);
    c
}

#[test]
fn rate_limit_waits_for_retry_after_then_succeeds() {
    let f = fake(vec![Reply::Status(429, "Retry-After: 1\r\n", "{}".into()), Reply::Ok(ok_body("fine"))]);
    let started = Instant::now();
    let r = client(&f.url, 3, 5.0).chat(&ChatRequest::user("hi")).unwrap();
    assert_eq!((r.text.as_str(), r.attempts), ("fine", 2));
    assert!(started.elapsed() >= Duration::from_millis(950), "Retry-After: 1 honoured ({:?})", started.elapsed());
    assert_eq!(r.usage.completion_tokens, 3);
    let requests = f.requests.lock().unwrap();
    assert!(requests[0].0.contains(&format!("Bearer {KEY}")), "the key is sent as a bearer token");
}

#[test]
fn server_errors_are_infrastructure_and_retried_until_the_limit() {
    let f = fake(vec![Reply::Status(500, "", "boom".into()); 3]);
    let e = client(&f.url, 2, 5.0).chat(&ChatRequest::user("hi")).unwrap_err();
    assert_eq!((e.class, e.attempts), (ErrorClass::ApiInfrastructureError, 3));
    assert!(e.to_string().contains("api_infrastructure_error") && e.message.contains("HTTP 500"), "{e}");
}

#[test]
fn a_reply_slower_than_the_timeout_is_retried() {
    let f = fake(vec![Reply::Slow(Duration::from_millis(1500)), Reply::Ok(ok_body("quick"))]);
    let started = Instant::now();
    let r = client(&f.url, 2, 0.5).chat(&ChatRequest::user("hi")).unwrap();
    assert_eq!((r.text.as_str(), r.attempts), ("quick", 2));
    assert!(started.elapsed() < Duration::from_millis(1400), "the first attempt was cut at the timeout");
}

#[test]
fn malformed_bodies_and_closed_connections_are_retried() {
    let f = fake(vec![Reply::Ok("{not json".into()), Reply::Close, Reply::Ok(ok_body("third time"))]);
    let r = client(&f.url, 3, 5.0).chat(&ChatRequest::user("hi")).unwrap();
    assert_eq!((r.text.as_str(), r.attempts), ("third time", 3));
    let f = fake(vec![Reply::Close, Reply::Close]);
    let e = client(&f.url, 1, 5.0).chat(&ChatRequest::user("hi")).unwrap_err();
    assert_eq!((e.class, e.attempts), (ErrorClass::ApiInfrastructureError, 2));
}

#[test]
fn a_bad_request_is_the_models_failure_and_not_retried_and_the_key_is_redacted() {
    let echo = format!("{{\"error\": {{\"message\": \"model 'x' not found; you sent Authorization: Bearer {KEY}\"}}}}");
    let f = fake(vec![Reply::Status(404, "", echo), Reply::Ok(ok_body("never"))]);
    let e = client(&f.url, 3, 5.0).chat(&ChatRequest::user("hi")).unwrap_err();
    assert_eq!((e.class, e.attempts), (ErrorClass::ModelError, 1));
    assert!(!e.to_string().contains(KEY) && e.message.contains("<redacted>"), "{e}");
    assert!(!format!("{e:?}").contains(KEY));
}

fn label_request() -> ChatRequest {
    ChatRequest::user("classify").with_schema(
        "label",
        json!({"type": "object", "properties": {"label": {"enum": ["ASD", "HC"]}}, "required": ["label"]}),
    )
}

#[test]
fn schema_invalid_replies_get_one_corrective_retry() {
    let f = fake(vec![
        Reply::Ok(ok_body("{\"label\": \"autism\"}")),
        Reply::Ok(ok_body("```json\n{\"label\": \"ASD\"}\n```")),
    ]);
    let r = client(&f.url, 0, 5.0).chat(&label_request()).unwrap();
    assert_eq!((r.json, r.attempts), (Some(json!({"label": "ASD"})), 2));
    let requests = f.requests.lock().unwrap();
    assert_eq!(requests[0].1["response_format"]["type"], "json_schema");
    let correction =
        requests[1].1["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(correction.contains("$.label"), "the corrective message names the problem: {correction}");
    assert_eq!(r.usage.completion_tokens, 6, "usage of both calls");

    let f = fake(vec![Reply::Ok(ok_body("HC")), Reply::Ok(ok_body("{\"label\": \"TD\"}"))]);
    let e = client(&f.url, 3, 5.0).chat(&label_request()).unwrap_err();
    assert_eq!((e.class, e.attempts), (ErrorClass::ModelError, 2), "{e}");
}

#[test]
fn a_server_without_json_schema_support_gets_json_mode() {
    let f = fake(vec![
        Reply::Status(400, "", "{\"error\": {\"message\": \"response_format json_schema unsupported\"}}".into()),
        Reply::Ok(ok_body("{\"label\": \"HC\"}")),
        Reply::Ok(ok_body("{\"label\": \"ASD\"}")),
    ]);
    let c = client(&f.url, 0, 5.0);
    assert_eq!(c.chat(&label_request()).unwrap().json, Some(json!({"label": "HC"})));
    assert_eq!(c.chat(&label_request()).unwrap().json, Some(json!({"label": "ASD"})));
    let requests = f.requests.lock().unwrap();
    let kinds: Vec<&str> = requests.iter().map(|r| r.1["response_format"]["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["json_schema", "json_object", "json_object"], "the downgrade is remembered");
    assert_eq!(requests[1].1["response_format"]["schema"]["required"], json!(["label"]), "the schema goes along");
}

/// llama-cpp-python's server answers `json_schema` with HTTP 500 (its request model knows only `text` and
/// `json_object` with a `schema`): that is a refused format, not an infrastructure failure to retry, and the
/// level it accepts is remembered for the endpoint — by a new client too.
#[test]
fn a_500_that_names_the_format_downgrades_to_json_object_with_schema() {
    let f = fake(vec![
        Reply::Status(500, "", "{\"error\": {\"message\": \"1 validation error: response_format.type: Input should be 'text' or 'json_object'\"}}".into()),
        Reply::Ok(ok_body("{\"label\": \"HC\"}")),
        Reply::Ok(ok_body("{\"label\": \"ASD\"}")),
    ]);
    let r = client(&f.url, 3, 5.0).chat(&label_request()).unwrap();
    assert_eq!((r.json, r.attempts), (Some(json!({"label": "HC"})), 2));
    assert_eq!(client(&f.url, 3, 5.0).chat(&label_request()).unwrap().json, Some(json!({"label": "ASD"})));
    let requests = f.requests.lock().unwrap();
    let formats: Vec<Value> = requests.iter().map(|r| r.1["response_format"].clone()).collect();
    assert_eq!(formats[0]["type"], "json_schema");
    for f in &formats[1..] {
        assert_eq!((f["type"].as_str(), f["schema"]["required"].clone()), (Some("json_object"), json!(["label"])));
    }
}

#[test]
fn streaming_delivers_deltas_and_usage() {
    let chunk =
        |c: &str| json!({"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": null}]}).to_string();
    let last = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}).to_string();
    let f =
        fake(vec![Reply::Sse(vec![chunk("Hel"), chunk("lo"), last, "[DONE]".into()]), Reply::Sse(vec![chunk("cut")])]);
    let c = client(&f.url, 0, 5.0);
    let mut request = ChatRequest::user("hi");
    request.stream = true;
    let mut deltas = Vec::new();
    let r = c.chat_with(&request, &Default::default(), &mut |d| deltas.push(d.to_string())).unwrap();
    assert_eq!(
        (deltas, r.text.as_str(), r.usage.completion_tokens),
        (vec!["Hel".to_string(), "lo".into()], "Hello", 2)
    );
    let e = c.chat_with(&request, &Default::default(), &mut |_| {}).unwrap_err();
    assert_eq!(e.class, ErrorClass::ApiInfrastructureError, "a stream without [DONE] is a broken connection: {e}");
}

#[test]
fn record_then_replay_without_the_key_and_a_missing_entry_names_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("calls.jsonl");
    let f = fake(vec![Reply::Ok(ok_body(&format!("echo {KEY}")))]);
    let inner: Arc<dyn ChatModel> = Arc::new(client(&f.url, 0, 5.0));
    let recorder = Recorder::new(inner, &transcript, vec![KEY.to_string()]).unwrap();
    let live = recorder.chat(&ChatRequest::user("hi")).unwrap();
    let text = std::fs::read_to_string(&transcript).unwrap();
    assert!(!text.contains(KEY) && text.contains("<redacted>"), "{text}");

    let replay = Replay::open(&transcript).unwrap();
    let again = replay.chat(&ChatRequest::user("hi")).unwrap();
    assert_eq!((again.usage, again.text.as_str()), (live.usage, "echo <redacted>"));
    let other = ChatRequest::user("something else");
    let e = replay.chat(&other).unwrap_err();
    assert!(e.message.contains(&request_hash(&other)) && e.message.contains("calls.jsonl"), "{e}");

    let config = ProviderConfig {
        provider: ProviderKind::Replay,
        transcript: transcript.display().to_string(),
        ..Default::default()
    };
    assert_eq!(config.build().unwrap().chat(&ChatRequest::user("hi")).unwrap().text, "echo <redacted>");
}

#[test]
fn the_cli_never_prints_the_key_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("cli.jsonl");
    let f = fake(vec![Reply::Ok(ok_body(&format!("the key was {KEY}")))]);
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
            .args(args)
            .env("BRAINLENS_API_KEY", KEY)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
    };
    let (code, text) = run(&[
        "llm",
        "chat",
        "--base-url",
        &f.url,
        "--json",
        "--record",
        "--transcript",
        transcript.to_str().unwrap(),
        "hi",
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(!std::fs::read_to_string(&transcript).unwrap().contains(KEY));
    assert!(f.requests.lock().unwrap()[0].0.contains(KEY), "the key from BRAINLENS_API_KEY was sent");
    let (code, text) = run(&["llm", "chat", "--base-url", "http://127.0.0.1:9/v1", "--retries", "0", "hi"]);
    assert_eq!(code, Some(1));
    assert!(text.contains("api_infrastructure_error") && !text.contains(KEY), "{text}");
}

#[test]
fn local_and_server_setup_errors_name_the_file_or_address() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run(&["llm", "chat", "--provider", "local", "--model-path", "/nonexistent/model.gguf", "hi"]);
    assert!(code == Some(1) && err.contains("/nonexistent/model.gguf") && err.contains("configuration_error"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("notes.gguf");
    std::fs::write(&fake, "this is not a GGUF file").unwrap();
    let (code, err) = run(&["llm", "chat", "--model-path", fake.to_str().unwrap(), "hi"]);
    assert!(code == Some(1) && err.contains("notes.gguf") && err.contains("[not_gguf]"), "{err}");
    assert!(err.contains("invalid magic"), "llama.cpp's own reason: {err}");
    let (code, err) = run(&["llm", "serve", "--model", fake.to_str().unwrap(), "--port", "0"]);
    assert!(code == Some(1) && err.contains("[not_gguf]"), "{err}");
    // Found by cargo-fuzz (gguf_metadata): a tensor table llama.cpp's reader accepts but ggml then aborts the
    // process on (an element count at ggml's boundary). Refused before llama.cpp sees it; the process lives.
    let mut table = b"GGUF".to_vec();
    table.extend(3u32.to_le_bytes());
    table.extend(1u64.to_le_bytes()); // one tensor
    table.extend(0u64.to_le_bytes()); // no key/value pairs
    table.extend(0u64.to_le_bytes()); // an empty name
    table.extend(4u32.to_le_bytes());
    for n in [43264i64, 0, 5888, 11540474045136896] {
        table.extend(n.to_le_bytes());
    }
    table.extend(0u32.to_le_bytes());
    table.extend(0u64.to_le_bytes());
    let bad = dir.path().join("table.gguf");
    std::fs::write(&bad, &table).unwrap();
    let (code, err) = run(&["llm", "chat", "--model-path", bad.to_str().unwrap(), "hi"]);
    assert!(
        code == Some(1) && err.contains("table.gguf") && err.contains("[malformed]") && err.contains("overflow"),
        "{err}"
    );
    // A cut-short GGUF and one of an architecture llama.cpp lacks, made from SmolLM2 when the cache has it.
    if let Some(model) = common::local_model() {
        let bytes = std::fs::read(&model).unwrap();
        let cut = dir.path().join("cut.gguf");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let (code, err) = run(&["llm", "chat", "--model-path", cut.to_str().unwrap(), "hi"]);
        assert!(code == Some(1) && err.contains("cut.gguf") && err.contains("[truncated]"), "{err}");
        // general.architecture "llama" renamed "brain" (same length: the header stays valid).
        let key = b"general.architecture";
        let at = bytes.windows(key.len()).position(|w| w == key).unwrap() + key.len() + 4 + 8;
        assert_eq!(&bytes[at..at + 5], b"llama");
        let mut renamed = bytes.clone();
        renamed[at..at + 5].copy_from_slice(b"brain");
        let alien = dir.path().join("alien.gguf");
        std::fs::write(&alien, &renamed).unwrap();
        let (code, err) = run(&["llm", "chat", "--model-path", alien.to_str().unwrap(), "hi"]);
        assert!(code == Some(1) && err.contains("[unsupported_architecture]") && err.contains("brain"), "{err}");
        assert!(!dir.path().join("alien.q8_0.gguf").exists(), "nothing half-made is kept beside a refused file");
    }
    let (code, err) = run(&["llm", "chat", "--base-url", "http://127.0.0.1:9/v1", "--schema", "{\"oneOf\": []}", "hi"]);
    assert!(code == Some(1) && err.contains("oneOf"), "{err}");
    let (code, err) = run(&["llm", "chat", "--provider", "replay", "hi"]);
    assert!(code == Some(1) && err.contains("--transcript"), "{err}");
}

/// `reasoning_effort` goes into every request body when set (and only then); the CLI takes it for an
/// OpenAI-compatible endpoint only and refuses an unknown level.
#[test]
fn reasoning_effort_is_sent_when_set_and_refused_where_it_cannot_be() {
    let f = fake(vec![Reply::Ok(ok_body("a")), Reply::Ok(ok_body("b"))]);
    let mut config = ProviderConfig {
        provider: ProviderKind::Openai,
        base_url: f.url.clone(),
        model: "fake".into(),
        reasoning_effort: Some("high".into()),
        ..Default::default()
    };
    let c = OpenAiClient::new(&config).unwrap();
    assert_eq!(c.reasoning_effort().as_deref(), Some("high"));
    c.chat(&ChatRequest::user("hi")).unwrap();
    config.reasoning_effort = None;
    OpenAiClient::new(&config).unwrap().chat(&ChatRequest::user("hi")).unwrap();
    let seen = f.requests.lock().unwrap();
    assert_eq!(seen[0].1["reasoning_effort"], "high");
    assert!(seen[1].1.get("reasoning_effort").is_none());
    drop(seen);
    let (code, _, err) = common::run(&["llm", "chat", "hi", "--reasoning-effort", "high"]);
    assert!(code != 0 && err.contains("--reasoning-effort") && err.contains("local"), "{err}");
    let (code, _, err) = common::run(&["llm", "chat", "hi", "--base-url", &f.url, "--reasoning-effort", "extreme"]);
    assert!(code != 0 && err.contains("unknown reasoning effort") && err.contains("medium"), "{err}");
}

/// A reply body with `logprobs` for `{"label": "HC"}`: the value's first token `HC` (p 0.8) lists `AS` (0.15).
fn label_body_with_logprobs() -> String {
    let t = |token: &str, p: f64, top: Value| json!({"token": token, "logprob": p.ln(), "top_logprobs": top});
    let content = json!([
        t("{\"label\": \"", 1.0, json!([])),
        t("HC", 0.8, json!([{"token": "HC", "logprob": 0.8f64.ln()}, {"token": "AS", "logprob": 0.15f64.ln()}])),
        t("\"}", 1.0, json!([])),
    ]);
    json!({"model": "fake", "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"label\": \"HC\"}"},
            "logprobs": {"content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    .to_string()
}

/// A reply with an enum asks for `logprobs` and reads each option's probability from the alternatives at the
/// value's first token (here P(HC) = 0.8 / 0.95); a request without an enum does not ask; streamed chunks
/// carry them too.
#[test]
fn an_enum_reply_reads_its_options_probabilities_from_logprobs() {
    let f = fake(vec![Reply::Ok(label_body_with_logprobs()), Reply::Ok(ok_body("hello"))]);
    let c = client(&f.url, 0, 5.0);
    let r = c.chat(&label_request()).unwrap();
    assert_eq!(r.json, Some(json!({"label": "HC"})));
    assert_eq!(r.choices.len(), 1);
    let p: Vec<(String, f64)> = r.choices[0].options.clone();
    assert_eq!((p[0].0.as_str(), p[1].0.as_str()), ("\"ASD\"", "\"HC\""));
    assert!((p[1].1 - 0.8 / 0.95).abs() < 1e-9 && (p[0].1 - 0.15 / 0.95).abs() < 1e-9, "{p:?}");
    c.chat(&ChatRequest::user("hi")).unwrap();
    let requests = f.requests.lock().unwrap();
    assert_eq!((requests[0].1["logprobs"].clone(), requests[0].1["top_logprobs"].clone()), (json!(true), json!(10)));
    assert!(requests[1].1.get("logprobs").is_none(), "no enum, no logprobs asked");
    drop(requests);

    let body: Value = serde_json::from_str(&label_body_with_logprobs()).unwrap();
    let chunks: Vec<String> = body["choices"][0]["logprobs"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            json!({"choices": [{"index": 0, "delta": {"content": t["token"]}, "logprobs": {"content": [t]}, "finish_reason": null}]})
                .to_string()
        })
        .chain(["[DONE]".to_string()])
        .collect();
    let f = fake(vec![Reply::Sse(chunks)]);
    let mut request = label_request();
    request.stream = true;
    let r = client(&f.url, 0, 5.0).chat_with(&request, &Default::default(), &mut |_| {}).unwrap();
    assert!((r.choices[0].options[1].1 - 0.8 / 0.95).abs() < 1e-9, "{:?}", r.choices);
}

/// A server that refuses `logprobs` (HTTP 400 naming them) is asked again without them, keeps its json_schema
/// level, and is not asked for them again — by a new client either; the reply then has no probabilities.
#[test]
fn a_server_that_refuses_logprobs_is_asked_again_without_them() {
    let f = fake(vec![
        Reply::Status(400, "", "{\"error\": {\"message\": \"logprobs is not supported\"}}".into()),
        Reply::Ok(ok_body("{\"label\": \"HC\"}")),
        Reply::Ok(ok_body("{\"label\": \"ASD\"}")),
    ]);
    let r = client(&f.url, 0, 5.0).chat(&label_request()).unwrap();
    assert_eq!((r.json, r.attempts, r.choices.len()), (Some(json!({"label": "HC"})), 2, 0));
    client(&f.url, 0, 5.0).chat(&label_request()).unwrap();
    let requests = f.requests.lock().unwrap();
    let asked: Vec<bool> = requests.iter().map(|r| r.1.get("logprobs").is_some()).collect();
    assert_eq!(asked, [true, false, false]);
    assert!(requests.iter().all(|r| r.1["response_format"]["type"] == "json_schema"), "the format stays");
    drop(requests);

    // A 400 that names nothing: the format is lowered first; once none is left, this client asks without
    // logprobs, but the endpoint is not marked (the 400 may have had another cause): a new client asks again.
    let bad = || Reply::Status(400, "", "{\"error\": {\"message\": \"bad request\"}}".into());
    let f = fake(vec![
        bad(),
        bad(),
        bad(),
        bad(),
        Reply::Ok(ok_body("{\"label\": \"HC\"}")),
        Reply::Ok(ok_body("{\"label\": \"HC\"}")),
    ]);
    let r = client(&f.url, 0, 5.0).chat(&label_request()).unwrap();
    assert_eq!(r.attempts, 5);
    client(&f.url, 0, 5.0).chat(&label_request()).unwrap();
    let requests = f.requests.lock().unwrap();
    let asked: Vec<bool> = requests.iter().map(|r| r.1.get("logprobs").is_some()).collect();
    assert_eq!(asked, [true, true, true, true, false, true]);
}
