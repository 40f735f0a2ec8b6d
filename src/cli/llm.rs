//! `brainlens llm …`: serve the local model over an OpenAI-compatible API, chat with any provider, list models.

use super::write_json;
use crate::llm::config::{ProviderConfig, ProviderKind, Purpose, cached_models};
use crate::llm::openai::OpenAiClient;
use crate::llm::server::Server;
use crate::llm::types::{ChatRequest, Message, ResponseFormat};
use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;

/// Which model to call. Flags override the environment (BRAINLENS_*, then BRAINBENCH_* / PARSER_*).
#[derive(Debug, Clone, Args, Default)]
pub struct ProviderArgs {
    /// local (in-process GGUF), openai (any OpenAI-compatible endpoint) or replay (answer from a transcript).
    #[arg(long)]
    pub provider: Option<String>,
    /// OpenAI-compatible base URL (implies --provider openai).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model: for the local provider a catalogue name (`brainlens models list`, e.g. smollm2-135m) or a
    /// GGUF file; for an OpenAI-compatible endpoint the name sent to it.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// GGUF file for the local provider (default: the capable catalogue model when fetched, else SmolLM2;
    /// BRAINLENS_MODEL_PATH overrides).
    #[arg(long, value_name = "GGUF")]
    pub model_path: Option<PathBuf>,
    /// Seconds before an HTTP call times out.
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// Retries of infrastructure failures (connection errors, 429, 5xx, timeouts).
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// Replay from this transcript (with --provider replay), or record every call to it (with --record).
    #[arg(long, value_name = "JSONL")]
    pub transcript: Option<PathBuf>,
    /// Append every request/response to --transcript (keys redacted).
    #[arg(long)]
    pub record: bool,
    /// OpenAI's reasoning_effort for an OpenAI-compatible endpoint (none, minimal, low, medium, high, xhigh):
    /// sent with every request and recorded in result files.
    #[arg(long, value_name = "LEVEL")]
    pub reasoning_effort: Option<String>,
}

impl ProviderArgs {
    pub fn config(&self, purpose: Purpose) -> Result<ProviderConfig> {
        let mut c = ProviderConfig::from_env(purpose);
        if let Some(url) = &self.base_url {
            c.base_url = url.clone();
            c.provider = ProviderKind::Openai;
        }
        if let Some(p) = &self.provider {
            c.provider = ProviderKind::parse(p).map_err(|e| anyhow!(e))?;
        }
        if let Some(m) = &self.model {
            c.model = m.clone();
        }
        if let Some(p) = &self.model_path {
            c.model_path = p.display().to_string();
        }
        if let Some(t) = self.timeout {
            c.timeout_s = t;
        }
        if let Some(r) = self.retries {
            c.max_retries = r;
        }
        if let Some(t) = &self.transcript {
            c.transcript = t.display().to_string();
        }
        c.record = self.record;
        if let Some(e) = &self.reasoning_effort {
            c.reasoning_effort = Some(crate::llm::config::reasoning_effort(e).map_err(|e| anyhow!(e))?);
        }
        if c.reasoning_effort.is_some() && c.provider != ProviderKind::Openai {
            return Err(anyhow!(
                "--reasoning-effort is sent to an OpenAI-compatible endpoint (--base-url); the local model and replays have none"
            ));
        }
        if c.record && c.transcript.is_empty() {
            return Err(anyhow!("--record needs --transcript FILE"));
        }
        if c.provider == ProviderKind::Replay && c.transcript.is_empty() {
            return Err(anyhow!("--provider replay needs --transcript FILE"));
        }
        c.resolve_local_model().map_err(|e| anyhow!(e))?;
        Ok(c)
    }
}

#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// Serve a GGUF model as an OpenAI-compatible API on loopback (/v1/chat/completions with tool calling,
    /// /v1/models, /health).
    Serve {
        /// A catalogue name (`brainlens models list`) or a GGUF file (default: the default local model, as for
        /// the agents).
        #[arg(long, value_name = "NAME|GGUF")]
        model: Option<String>,
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Address to bind; loopback unless you mean to share the model on a network.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Require `Authorization: Bearer KEY` on every request (needed to serve beyond loopback); default
        /// BRAINLENS_SERVE_KEY. Never printed.
        #[arg(long, value_name = "KEY", env = "BRAINLENS_SERVE_KEY", hide_env_values = true)]
        api_key: Option<String>,
        /// Requests that may wait for the model while one runs; past it, 429 with Retry-After.
        #[arg(long, default_value_t = 32)]
        max_waiting: usize,
        /// Open connections at most; past it, 503 with Retry-After.
        #[arg(long, default_value_t = 64)]
        max_connections: usize,
        /// Seconds a client has to send its request head (then 408).
        #[arg(long, default_value_t = 10.0)]
        head_timeout: f64,
        /// Seconds a client has to send its request body after the head (then 408).
        #[arg(long, default_value_t = 30.0)]
        body_timeout: f64,
        /// On Ctrl-C or SIGTERM, seconds the running request may go on before it is cancelled.
        #[arg(long, default_value_t = 30.0)]
        grace: f64,
    },
    /// One chat turn: prints the reply (streamed as it is generated), or the whole response with --json.
    Chat {
        prompt: String,
        #[command(flatten)]
        provider: ProviderArgs,
        /// System message.
        #[arg(long)]
        system: Option<String>,
        /// Reply must be valid against this JSON Schema (a file, or inline JSON).
        #[arg(long, value_name = "FILE|JSON")]
        schema: Option<String>,
        /// Reply must be a JSON object.
        #[arg(long)]
        json_mode: bool,
        #[arg(long, default_value_t = 0.0)]
        temperature: f32,
        #[arg(long, default_value_t = 256)]
        max_tokens: u32,
        #[arg(long)]
        seed: Option<u64>,
        #[arg(long)]
        stop: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Tokens of a text (or of each string of a JSON array, --corpus) as the GGUF's own tokenizer gives them
    /// (llama.cpp's `llama_tokenize` for that model): ids, and each token's text with --json.
    Tokenize {
        /// The text (or use --corpus).
        text: Option<String>,
        /// A JSON file holding an array of strings: each is tokenized.
        #[arg(long, value_name = "JSON")]
        corpus: Option<PathBuf>,
        /// A catalogue name (`brainlens models list`) or a GGUF file (default: the default local model).
        #[arg(long, value_name = "NAME|GGUF")]
        model: Option<String>,
        /// Add the model's BOS/EOS as its GGUF asks (llama.cpp's add_special).
        #[arg(long)]
        add_special: bool,
        /// Read special-token names in the text as those tokens (llama.cpp's parse_special).
        #[arg(long)]
        parse_special: bool,
        #[arg(long)]
        json: bool,
    },
    /// Models in the local cache, and those the configured endpoint serves.
    Models {
        #[command(flatten)]
        provider: ProviderArgs,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: LlmCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        LlmCommand::Serve {
            model,
            port,
            host,
            api_key,
            max_waiting,
            max_connections,
            head_timeout,
            body_timeout,
            grace,
        } => {
            let seconds = |s: f64, what: &str| {
                if s.is_finite() && s > 0.0 {
                    Ok(std::time::Duration::from_secs_f64(s))
                } else {
                    Err(anyhow!("--{what} must be a positive number of seconds"))
                }
            };
            let mut options = crate::llm::server::Options {
                max_waiting,
                max_connections: max_connections.max(1),
                grace: seconds(grace, "grace")?,
                ..Default::default()
            };
            options.http.head_timeout = seconds(head_timeout, "head-timeout")?;
            options.http.body_timeout = seconds(body_timeout, "body-timeout")?;
            serve(model, port, &host, api_key.and_then(crate::llm::config::Secret::new), options, out)
        }
        LlmCommand::Chat { prompt, provider, system, schema, json_mode, temperature, max_tokens, seed, stop, json } => {
            let mut messages = Vec::new();
            if let Some(s) = system {
                messages.push(Message::system(s));
            }
            messages.push(Message::user(prompt));
            let mut request = ChatRequest::new(messages);
            request.temperature = temperature;
            request.max_tokens = max_tokens;
            request.seed = seed;
            request.stop = stop;
            request.stream = !json;
            if let Some(schema) = schema {
                request.format = ResponseFormat::JsonSchema { name: "response".into(), schema: read_schema(&schema)? };
            } else if json_mode {
                request.format = ResponseFormat::JsonObject;
            }
            chat(&provider.config(Purpose::Agent)?, &request, json, out)
        }
        LlmCommand::Tokenize { text, corpus, model, add_special, parse_special, json } => {
            tokenize(text, corpus, model, add_special, parse_special, json, out)
        }
        LlmCommand::Models { provider, json } => models(&provider.config(Purpose::Agent)?, json, out),
    }
}

/// A `--model NAME|GGUF` of the commands that load a GGUF themselves; none is the default local model.
fn local_model(spec: Option<&str>) -> Result<PathBuf> {
    match spec {
        Some(s) => crate::llm::catalogue::resolve(s).map_err(|e| anyhow!(e)),
        None => Ok(crate::llm::config::default_model_path()),
    }
}

fn tokenize(
    text: Option<String>,
    corpus: Option<PathBuf>,
    model: Option<String>,
    add_special: bool,
    parse_special: bool,
    json: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let texts: Vec<String> = match (text, &corpus) {
        (Some(t), None) => vec![t],
        (None, Some(path)) => {
            let body = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
            serde_json::from_str(&body).with_context(|| format!("{}: not a JSON array of strings", path.display()))?
        }
        _ => return Err(anyhow!("give a text or --corpus FILE (not both)")),
    };
    let path = local_model(model.as_deref())?;
    let vocab = crate::llm::local::tokenizer(&path).map_err(|e| anyhow!("{e}"))?;
    let ids: Vec<Vec<u32>> = texts.iter().map(|t| vocab.tokenize_with(t, add_special, parse_special)).collect();
    if json {
        let pieces: Vec<Vec<String>> = ids
            .iter()
            .map(|t| t.iter().map(|&i| String::from_utf8_lossy(&vocab.bytes[i as usize]).into_owned()).collect())
            .collect();
        return write_json(
            out,
            &json!({"model": path, "add_special": add_special, "parse_special": parse_special, "ids": ids, "pieces": pieces}),
        );
    }
    for t in &ids {
        writeln!(out, "{}", t.iter().map(u32::to_string).collect::<Vec<_>>().join(" "))?;
    }
    Ok(())
}

fn read_schema(text: &str) -> Result<Value> {
    let path = PathBuf::from(text);
    if path.is_file() {
        let body = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
        return serde_json::from_str(&body).with_context(|| format!("{}: not JSON", path.display()));
    }
    serde_json::from_str(text).context("--schema is neither a file nor inline JSON")
}

fn serve(
    model: Option<String>,
    port: u16,
    host: &str,
    key: Option<crate::llm::config::Secret>,
    options: crate::llm::server::Options,
    out: &mut dyn Write,
) -> Result<()> {
    let config =
        ProviderConfig { model_path: local_model(model.as_deref())?.display().to_string(), ..Default::default() };
    let model = config.build().map_err(|e| anyhow!("{e}"))?;
    let keyed = key.is_some();
    let server = Server::bind(model.clone(), &format!("{host}:{port}"), key, options).map_err(|e| anyhow!(e))?;
    writeln!(
        out,
        "serving {} on http://{}/v1{} (Ctrl-C to stop)",
        model.name(),
        server.addr(),
        if keyed { " with an API key" } else { "" }
    )?;
    out.flush()?;
    // Ctrl-C or SIGTERM: the handler only sets a flag; a watcher thread shuts the server down.
    let stop = crate::util::cancel::Cancel::default();
    super::on_signals(stop.clone());
    let handle = server.shutdown_handle().map_err(|e| anyhow!(e))?;
    std::thread::spawn(move || {
        while !stop.is_cancelled() {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("brainlens: shutting down: waiting requests refused, the running one finishes");
        handle.shutdown();
    });
    server.run();
    eprintln!("brainlens: stopped");
    Ok(())
}

fn chat(config: &ProviderConfig, request: &ChatRequest, json: bool, out: &mut dyn Write) -> Result<()> {
    let model = config.build().map_err(|e| anyhow!("{e}"))?;
    let mut write_error = None;
    let response = model
        .chat_with(request, &Default::default(), &mut |delta| {
            if request.stream && write_error.is_none() {
                write_error = out.write_all(delta.as_bytes()).and_then(|_| out.flush()).err();
            }
        })
        .map_err(|e| anyhow!("{e}"))?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if json {
        write_json(
            out,
            &json!({"provider": model.name(), "response": response, "tokens_per_second": response.tokens_per_second()}),
        )
    } else {
        writeln!(out)?;
        out.flush()?;
        eprintln!(
            "[{}: {} prompt + {} completion tokens, {:.0} ms, {:.1} tokens/s, finish {}]",
            model.name(),
            response.usage.prompt_tokens,
            response.usage.completion_tokens,
            response.latency_ms,
            response.tokens_per_second(),
            response.finish_reason
        );
        Ok(())
    }
}

fn models(config: &ProviderConfig, json: bool, out: &mut dyn Write) -> Result<()> {
    let local: Vec<Value> = cached_models()
        .iter()
        .map(|p| json!({"path": p, "size_bytes": std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)}))
        .collect();
    let remote = if config.base_url.is_empty() {
        None
    } else {
        let client = OpenAiClient::new(config).map_err(|e| anyhow!("{e}"))?;
        Some(match client.models() {
            Ok(ids) => json!({"base_url": client.base_url(), "models": ids}),
            Err(e) => json!({"base_url": client.base_url(), "error": e.to_string()}),
        })
    };
    if json {
        return write_json(
            out,
            &json!({"cache": crate::util::paths::models_dir(), "local": local, "endpoint": remote}),
        );
    }
    writeln!(out, "model cache: {}", crate::util::paths::models_dir().display())?;
    if local.is_empty() {
        writeln!(out, "  (no GGUF files: run scripts/setup_models.sh)")?;
    }
    for m in &local {
        writeln!(
            out,
            "  {}  ({:.1} MB)",
            m["path"].as_str().unwrap_or(""),
            m["size_bytes"].as_f64().unwrap_or(0.0) / 1e6
        )?;
    }
    if let Some(r) = remote {
        writeln!(out, "endpoint {}:", r["base_url"].as_str().unwrap_or(""))?;
        match r.get("error") {
            Some(e) => writeln!(out, "  error: {}", e.as_str().unwrap_or(""))?,
            None => {
                for id in r["models"].as_array().into_iter().flatten() {
                    writeln!(out, "  {}", id.as_str().unwrap_or(""))?;
                }
            }
        }
    }
    Ok(())
}
