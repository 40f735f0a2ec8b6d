//! The decoding loop: prompt through the chat template, token by token with an optional grammar mask, whole
//! enum values chosen by their likelihood, stop strings, cancellation, and a token budget that closes a JSON
//! value validly instead of cutting it.

use super::{LocalModel, PROVIDER};
use crate::llm::error::LlmError;
use crate::llm::local::constrained::Constrainer;
use crate::llm::schema::Schema;
use crate::llm::schema::grammar::Grammar;
use crate::llm::types::{Cancel, ChatRequest, ChatResponse, Message, ResponseFormat, Role, Usage};
use candle_core::{DType, Device, Tensor};
use candle_transformers::models::quantized_llama::ModelWeights;
use std::time::Instant;

fn forward(w: &mut ModelWeights, ids: &[u32], pos: usize) -> Result<Vec<f32>, LlmError> {
    let mut run = || -> candle_core::Result<Vec<f32>> {
        let x = Tensor::new(ids, &Device::Cpu)?.unsqueeze(0)?;
        w.forward(&x, pos)?.squeeze(0)?.to_dtype(DType::F32)?.to_vec1()
    };
    run().map_err(|e| LlmError::model(PROVIDER, format!("inference failed: {e}")))
}

/// SplitMix64: a seeded generator for sampling (same seed, same text).
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        (crate::network::rng::splitmix64(&mut self.0) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Index drawn from softmax(scores / temperature); the argmax at temperature 0.
fn pick(scores: &[f32], temperature: f32, rng: &mut Rng) -> usize {
    let best = scores.iter().enumerate().fold(0, |b, (i, &s)| if s > scores[b] { i } else { b });
    if temperature <= 0.0 {
        return best;
    }
    let max = scores[best];
    let weights: Vec<f64> = scores.iter().map(|&s| (((s - max) / temperature) as f64).exp()).collect();
    let mut r = rng.next_f64() * weights.iter().sum::<f64>();
    for (i, w) in weights.iter().enumerate() {
        r -= w;
        if r <= 0.0 && *w > 0.0 {
            return i;
        }
    }
    best
}

fn log_softmax_at(logits: &[f32], id: u32) -> f32 {
    let max = logits.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = logits.iter().map(|l| (l - max).exp()).sum();
    logits[id as usize] - max - sum.ln()
}

/// The schema as an instruction (the mask enforces it; the model still needs to know what the fields mean).
fn with_schema_hint(messages: &[Message], format: &ResponseFormat) -> Vec<Message> {
    let hint = match format {
        ResponseFormat::Text => return messages.to_vec(),
        ResponseFormat::JsonObject => "Reply with one JSON object only.".to_string(),
        ResponseFormat::JsonSchema { schema, .. } => {
            format!("Reply with one JSON value only, valid against this JSON Schema: {schema}")
        }
    };
    let mut out = messages.to_vec();
    match out.first_mut() {
        Some(first) if first.role == Role::System => first.content = format!("{}\n\n{hint}", first.content),
        _ => out.insert(0, Message::system(hint)),
    }
    out
}

struct Choice {
    ids: Vec<u32>,
    bytes: Vec<u8>,
    weights: ModelWeights,
    logits: Vec<f32>,
}

/// Scores each remaining enum text by its total log-likelihood (run on copies of the model) and returns the
/// chosen one with the model state after it. None when a remainder is not text (then the mask decides).
fn choose_enum(
    m: &LocalModel,
    weights: &ModelWeights,
    logits: &[f32],
    pos: usize,
    remainders: Vec<Vec<u8>>,
    temperature: f32,
    rng: &mut Rng,
) -> Result<Option<Choice>, LlmError> {
    let mut choices = Vec::new();
    let mut scores = Vec::new();
    for bytes in remainders {
        let Ok(text) = std::str::from_utf8(&bytes) else { return Ok(None) };
        let ids = m.vocab.encode(text).map_err(|e| LlmError::model(PROVIDER, e))?;
        let mut w = weights.clone();
        let mut l = logits.to_vec();
        let mut score = 0.0;
        for (k, &id) in ids.iter().enumerate() {
            score += log_softmax_at(&l, id);
            l = forward(&mut w, &[id], pos + k)?;
        }
        scores.push(score);
        choices.push(Choice { ids, bytes, weights: w, logits: l });
    }
    let chosen = pick(&scores, temperature, rng);
    Ok(Some(choices.swap_remove(chosen)))
}

/// Where the final turn starts: the third-last control token (ChatML: `<|im_start|>` of the last user
/// message, before its `<|im_end|>` and the assistant's `<|im_start|>`); 0 when there is none.
fn turn_boundary(ids: &[u32], control: &[bool]) -> usize {
    let marks: Vec<usize> = ids.iter().enumerate().filter(|(_, t)| control[**t as usize]).map(|(i, _)| i).collect();
    if marks.len() >= 3 { marks[marks.len() - 3] } else { 0 }
}

/// Runs the prompt through the model and returns the next-token logits. The key/value cache of everything
/// before the final turn (system prompt, schema, earlier turns) is kept and reused by the next call that
/// starts with the same tokens, so a repeated system prompt is computed once. The prompt is always split
/// at the same boundary, cached or not, so a cache hit gives the same numbers as a miss.
fn prefill(m: &LocalModel, weights: &mut ModelWeights, ids: &[u32]) -> Result<Vec<f32>, LlmError> {
    let boundary = turn_boundary(ids, &m.vocab.control);
    let mut start = 0;
    let mut kept = m.prefix.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((tokens, snapshot)) = kept.as_ref() {
        if !tokens.is_empty() && tokens.len() <= boundary && ids.starts_with(tokens) {
            *weights = snapshot.clone();
            start = tokens.len();
        }
    }
    if boundary > start {
        forward(weights, &ids[start..boundary], start)?;
        *kept = Some((ids[..boundary].to_vec(), weights.clone()));
        start = boundary;
    }
    drop(kept);
    forward(weights, &ids[start..], start)
}

pub(super) fn generate(
    m: &LocalModel,
    req: &ChatRequest,
    cancel: &Cancel,
    on_delta: &mut dyn FnMut(&str),
) -> Result<ChatResponse, LlmError> {
    let schema_key = match &req.format {
        ResponseFormat::Text => None,
        ResponseFormat::JsonObject => Some("json_object".to_string()),
        ResponseFormat::JsonSchema { schema, .. } => Some(schema.to_string()),
    };
    let mut constrainer = match &schema_key {
        None => None,
        Some(key) => Some(m.take_constrainer(key, || {
            match &req.format {
                ResponseFormat::JsonSchema { schema, .. } => Schema::compile(schema)
                    .map(Grammar::new)
                    .map_err(|e| LlmError::config(PROVIDER, format!("response schema: {e}"))),
                _ => Ok(Grammar::new(Schema::any_object())),
            }
        })?),
    };
    let result = decode(m, req, cancel, on_delta, &mut constrainer);
    if let (Some(key), Some(c)) = (schema_key, constrainer) {
        m.keep_constrainer(key, c);
    }
    result
}

fn decode(
    m: &LocalModel,
    req: &ChatRequest,
    cancel: &Cancel,
    on_delta: &mut dyn FnMut(&str),
    constrainer: &mut Option<Constrainer>,
) -> Result<ChatResponse, LlmError> {
    let started = Instant::now();
    let prompt =
        m.template.render(&with_schema_hint(&req.messages, &req.format)).map_err(|e| LlmError::config(PROVIDER, e))?;
    let prompt_ids = m.vocab.encode(&prompt).map_err(|e| LlmError::model(PROVIDER, e))?;
    if prompt_ids.len() + 1 >= m.context {
        return Err(LlmError::model(
            PROVIDER,
            format!("the prompt has {} tokens; the model's context holds {}", prompt_ids.len(), m.context),
        ));
    }
    let max_new = (req.max_tokens as usize).min(m.context - prompt_ids.len() - 1);
    let mut weights = m.weights.lock().unwrap_or_else(|p| p.into_inner());
    let mut logits = prefill(m, &mut weights, &prompt_ids)?;
    let mut pos = prompt_ids.len();
    let mut rng = Rng(req.seed.unwrap_or(0));
    let mut state = constrainer.as_ref().map(|c| c.grammar.start());
    let holdback = req.stop.iter().map(|s| s.len()).max().unwrap_or(1) - 1;
    let mut out: Vec<u8> = Vec::new();
    let mut sent = 0usize;
    let mut generated = 0usize;
    let mut finish = "length";
    let mut emit = |out: &[u8], sent: &mut usize, upto: usize| {
        if upto > *sent {
            let valid = match std::str::from_utf8(&out[*sent..upto]) {
                Ok(s) => s.len(),
                Err(e) => e.valid_up_to(),
            };
            if valid > 0 {
                on_delta(std::str::from_utf8(&out[*sent..*sent + valid]).unwrap_or_default());
                *sent += valid;
            }
        }
    };

    while generated < max_new {
        if cancel.is_cancelled() {
            return Err(LlmError::cancelled(PROVIDER));
        }
        if let (Some(c), Some(s)) = (constrainer.as_mut(), state.as_mut()) {
            if s.finished() {
                finish = "stop";
                break;
            }
            let tail = c.grammar.completion(s);
            if generated + tail.len() >= max_new {
                generated += m.vocab.encode(&String::from_utf8_lossy(&tail)).map_or(tail.len(), |t| t.len());
                out.extend(&tail);
                break;
            }
            if c.grammar.at_enum_choice(s) {
                if let Some((at, texts)) = c.grammar.enum_texts(s) {
                    let remainders: Vec<Vec<u8>> = texts.iter().map(|t| t[at..].to_vec()).collect();
                    if let Some(choice) = choose_enum(m, &weights, &logits, pos, remainders, req.temperature, &mut rng)?
                    {
                        let ok = c.grammar.feed_all(s, &choice.bytes);
                        debug_assert!(ok, "an enum text is valid by construction");
                        out.extend(&choice.bytes);
                        generated += choice.ids.len();
                        pos += choice.ids.len();
                        *weights = choice.weights;
                        logits = choice.logits;
                        emit(&out, &mut sent, out.len());
                        continue;
                    }
                }
            }
            let mask = c.allowed(s);
            for (i, l) in logits.iter_mut().enumerate() {
                if !mask.allows(i as u32) {
                    *l = f32::NEG_INFINITY;
                }
            }
        }
        let token = pick(&logits, req.temperature, &mut rng) as u32;
        if token == m.vocab.eos || m.vocab.control[token as usize] {
            finish = "stop";
            break;
        }
        let bytes = &m.vocab.bytes[token as usize];
        if let (Some(c), Some(s)) = (constrainer.as_ref(), state.as_mut()) {
            if !c.grammar.feed_all(s, bytes) {
                return Err(LlmError::model(PROVIDER, "constrained decoding chose a token outside the grammar"));
            }
        }
        out.extend(bytes);
        generated += 1;
        if let Some(cut) = find_stop(&out, &req.stop) {
            out.truncate(cut);
            finish = "stop";
            break;
        }
        emit(&out, &mut sent, out.len().saturating_sub(holdback));
        logits = forward(&mut weights, &[token], pos)?;
        pos += 1;
    }
    emit(&out, &mut sent, out.len());
    drop(weights);

    let text = String::from_utf8_lossy(&out).into_owned();
    let json = match constrainer.as_ref() {
        Some(c) => {
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| LlmError::model(PROVIDER, format!("constrained output did not parse ({e}): {text}")))?;
            c.grammar.schema().validate(&value).map_err(|e| LlmError::model(PROVIDER, e))?;
            Some(value)
        }
        None => None,
    };
    Ok(ChatResponse {
        text,
        json,
        usage: Usage { prompt_tokens: prompt_ids.len() as u64, completion_tokens: generated as u64 },
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        model: m.name.clone(),
        finish_reason: finish.to_string(),
        attempts: 1,
    })
}

fn find_stop(out: &[u8], stops: &[String]) -> Option<usize> {
    stops.iter().filter(|s| !s.is_empty()).filter_map(|s| out.windows(s.len()).position(|w| w == s.as_bytes())).min()
}
