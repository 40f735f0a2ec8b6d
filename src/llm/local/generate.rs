//! The decoding loop: prompt through the chat template, token by token with an optional grammar mask, whole
//! enum values chosen by their likelihood, stop strings, cancellation, and a token budget that closes a JSON
//! value validly instead of cutting it.

use super::engine::Engine;
use super::error::LocalError;
use super::{LocalModel, PROVIDER};
use crate::llm::error::LlmError;
use crate::llm::local::constrained::{Constrainer, Mask};
use crate::llm::schema::Schema;
use crate::llm::schema::grammar::{Grammar, State};
use crate::llm::types::{ChatRequest, ChatResponse, EnumChoice, Message, Repetition, ResponseFormat, Role, Usage};
use crate::util::cancel::Cancel;
use std::time::Instant;

/// SplitMix64: a seeded generator for sampling (same seed, same text).
struct Rng(u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        (crate::util::rng::splitmix64(&mut self.0) >> 11) as f64 / (1u64 << 53) as f64
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
/// `schema` is the compiled schema of a `JsonSchema` request (the constrainer's, compiled once).
fn with_schema_hint(messages: &[Message], format: &ResponseFormat, schema: Option<&Schema>) -> Vec<Message> {
    let hint = match (format, schema) {
        (ResponseFormat::Text | ResponseFormat::Tagged { .. }, _) => return messages.to_vec(),
        // An outline, not the schema itself: the grammar enforces every value, and a schema's enums (region
        // labels, ids, files) would cost hundreds of prompt tokens per step.
        (ResponseFormat::JsonSchema { .. }, Some(s)) => {
            format!("Reply with one JSON value only, shaped like: {}", s.outline())
        }
        _ => "Reply with one JSON object only.".to_string(),
    };
    // After the last message, so steps of one agent keep a common prefix through their shared text (a hint
    // in the system message would end the prefix-cache reuse of every call at the system prompt).
    let mut out = messages.to_vec();
    match out.last_mut() {
        Some(last) if last.role == Role::User => last.content = format!("{}\n\n{hint}", last.content),
        _ => out.push(Message::user(hint)),
    }
    out
}

/// An enum value chosen by its likelihood, with the logits after it (the engine has consumed its tokens).
struct Choice {
    ids: Vec<u32>,
    bytes: Vec<u8>,
    logits: Vec<f32>,
    /// Each option's text (the remainder scored) and its probability among the options.
    probabilities: Vec<(String, f64)>,
}

/// Enums with at most this many options are chosen by the whole value's likelihood (labels, tools, fixed
/// choices); larger ones (region labels, channels, files, evidence ids) are decoded token by token under the
/// mask, which keeps them valid at the cost of one forward pass per token instead of one per option.
const WHOLE_VALUE_OPTIONS: usize = 32;

/// Scores each remaining enum text by its total log-likelihood and returns the chosen one, its tokens appended
/// to the engine's sequence. Options are scored in token order, so a prefix shared with the option before is
/// computed once (a trie walked depth first). None when a remainder is not text (then the mask decides).
fn choose_enum(
    m: &LocalModel,
    engine: &mut Engine,
    logits: &[f32],
    remainders: Vec<Vec<u8>>,
    temperature: f32,
    rng: &mut Rng,
) -> Result<Option<Choice>, LlmError> {
    let fail = |e: LocalError| LlmError::model(PROVIDER, e);
    let mut options = Vec::with_capacity(remainders.len());
    for bytes in remainders {
        let Ok(text) = std::str::from_utf8(&bytes) else { return Ok(None) };
        let Some(ids) = m.vocab.encode_exact(text) else { return Ok(None) };
        options.push((ids, bytes));
    }
    let mut order: Vec<usize> = (0..options.len()).collect();
    order.sort_by(|&a, &b| options[a].0.cmp(&options[b].0));
    let base = engine.len();
    let mut scores = vec![0.0f32; options.len()];
    // Logits after each token of the previous option (index k = after its token k).
    let mut prev: (Vec<u32>, Vec<Vec<f32>>) = (Vec::new(), Vec::new());
    for &i in &order {
        let ids = &options[i].0;
        let shared = super::prefix::common_prefix(&prev.0, &ids[..ids.len() - 1]).min(prev.1.len());
        engine.truncate(base + shared).map_err(fail)?;
        let mut after = prev.1[..shared].to_vec();
        after.extend(engine.push_all(&ids[shared..ids.len() - 1], true).map_err(fail)?);
        let mut score = log_softmax_at(logits, ids[0]);
        for (k, &id) in ids.iter().enumerate().skip(1) {
            score += log_softmax_at(&after[k - 1], id);
        }
        scores[i] = score;
        prev = (ids[..ids.len() - 1].to_vec(), after);
    }
    let chosen = pick(&scores, temperature, rng);
    let top = scores.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let total: f64 = scores.iter().map(|&s| ((s - top) as f64).exp()).sum();
    let probabilities = options
        .iter()
        .zip(&scores)
        .map(|((_, b), &s)| (String::from_utf8_lossy(b).into_owned(), ((s - top) as f64).exp() / total))
        .collect();
    let (ids, bytes) = options.swap_remove(chosen);
    let shared = super::prefix::common_prefix(&prev.0, &ids).min(prev.1.len());
    engine.truncate(base + shared).map_err(fail)?;
    let logits = engine.push(&ids[shared..]).map_err(fail)?;
    let logits = if logits.is_empty() { prev.1[shared - 1].clone() } else { logits };
    Ok(Some(Choice { ids, bytes, logits, probabilities }))
}

pub(super) fn generate(
    m: &LocalModel,
    req: &ChatRequest,
    cancel: &Cancel,
    on_delta: &mut dyn FnMut(&str),
) -> Result<ChatResponse, LlmError> {
    let schema_key = match &req.format {
        ResponseFormat::Text | ResponseFormat::Tagged { .. } => None,
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
    let (prompt_ids, max_new) = prompt_ids(m, req, constrainer.as_ref())?;
    let stable = stable_tokens(m, &req.messages, &prompt_ids);
    let mut engine = m.engine.lock().unwrap_or_else(|p| p.into_inner());
    let fail = |e: LocalError| LlmError::model(PROVIDER, e);
    let prefilled = engine.prefill(&prompt_ids, stable).map_err(fail)?;
    let (mut logits, cached) = (prefilled.logits, prefilled.cached);
    let mut rng = Rng(req.seed.unwrap_or(0));
    let mut state = constrainer.as_ref().map(|c| c.grammar.start());
    let holdback = req.stop.iter().map(|s| s.len()).max().unwrap_or(1) - 1;
    let mut out: Vec<u8> = Vec::new();
    let mut sent = 0usize;
    let mut generated = 0usize;
    let mut finish = "length";
    // Repetition control applies to free text: the whole reply without a schema, strings inside JSON.
    let repetition = req.repetition.unwrap_or(m.repetition);
    let mut tokens: Vec<u32> = Vec::new();
    let mut choices: Vec<EnumChoice> = Vec::new();
    // Characters of each token of the free string being written (see `degenerate`).
    let mut string_chars: Vec<usize> = Vec::new();
    let mut emit = |out: &[u8], sent: &mut usize, upto: usize| emit_text(out, sent, upto, on_delta);
    // Prompt-lookup drafts waiting to be confirmed (see `lookup`).
    let mut pending = super::lookup::Pending::default();
    let speculate = m.lookup.load(std::sync::atomic::Ordering::Relaxed);

    if let Some(choice) = opening(m, &mut engine, req, &logits, &mut rng)? {
        out.extend(&choice.bytes);
        generated += choice.ids.len();
        tokens.extend(&choice.ids);
        logits = choice.logits;
        emit(&out, &mut sent, out.len());
    }

    while generated < max_new {
        if cancel.is_cancelled() {
            return Err(cancel.error(PROVIDER));
        }
        if let (Some(c), Some(s)) = (constrainer.as_mut(), state.as_mut()) {
            if s.finished() {
                finish = "stop";
                break;
            }
            let tail = c.grammar.completion(s);
            if generated + tail.len() >= max_new {
                generated += m.vocab.encode(&String::from_utf8_lossy(&tail)).len();
                out.extend(&tail);
                break;
            }
            if let Some((ids, bytes)) = forced_tokens(m, &c.grammar, s, max_new - generated)? {
                pending.discard(&mut engine).map_err(fail)?;
                if !c.grammar.feed_all(s, &bytes) {
                    return Err(LlmError::model(PROVIDER, "forced text left the grammar"));
                }
                // Forced text never lies inside a free string: the string before it has ended.
                string_chars.clear();
                out.extend(&bytes);
                tokens.extend(&ids);
                generated += ids.len();
                emit(&out, &mut sent, out.len().saturating_sub(holdback));
                logits = engine.push(&ids).map_err(fail)?;
                continue;
            }
            if c.grammar.at_enum_choice(s) {
                pending.discard(&mut engine).map_err(fail)?;
            }
            if let Some((choice, record)) = enum_value(m, &mut engine, c, s, &logits, req.temperature, &mut rng)? {
                choices.push(record);
                out.extend(&choice.bytes);
                generated += choice.ids.len();
                logits = choice.logits;
                emit(&out, &mut sent, out.len());
                continue;
            }
            constrain(m, c, s, &mut logits, &tokens, &repetition, &mut string_chars);
        } else {
            penalise(&mut logits, &tokens, &repetition, &m.vocab.bytes);
        }
        let token = pick(&logits, req.temperature, &mut rng) as u32;
        if m.vocab.ends[token as usize] {
            finish = "stop";
            break;
        }
        let bytes = &m.vocab.bytes[token as usize];
        if let (Some(c), Some(s)) = (constrainer.as_ref(), state.as_mut()) {
            accept(c, s, bytes, &mut string_chars)?;
        }
        out.extend(bytes);
        tokens.push(token);
        generated += 1;
        if let Some(cut) = find_stop(&out, &req.stop) {
            out.truncate(cut);
            finish = "stop";
            break;
        }
        emit(&out, &mut sent, out.len().saturating_sub(holdback));
        logits = if speculate {
            let history = [prompt_ids.as_slice(), tokens.as_slice()].concat();
            pending.advance(&mut engine, token, &history, max_new.saturating_sub(generated)).map_err(fail)?
        } else {
            engine.push(&[token]).map_err(fail)?
        };
    }
    pending.discard(&mut engine).map_err(fail)?;
    emit(&out, &mut sent, out.len());
    drop(engine);

    let text = String::from_utf8_lossy(&out).into_owned();
    let json = match constrainer.as_ref() {
        Some(c) => Some(checked_json(c, &text)?),
        None => None,
    };
    Ok(ChatResponse {
        text,
        json,
        usage: Usage {
            prompt_tokens: prompt_ids.len() as u64,
            completion_tokens: generated as u64,
            cached_tokens: cached as u64,
            disk_tokens: prefilled.from_disk as u64,
            drafted_tokens: pending.drafted as u64,
            accepted_tokens: pending.accepted as u64,
        },
        latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        model: m.name.clone(),
        finish_reason: finish.to_string(),
        attempts: 1,
        choices,
    })
}

/// A tagged reply (`ResponseFormat::Tagged`) opens with one of its tags, chosen by the whole tag's likelihood.
fn opening(
    m: &LocalModel,
    engine: &mut Engine,
    req: &ChatRequest,
    logits: &[f32],
    rng: &mut Rng,
) -> Result<Option<Choice>, LlmError> {
    match &req.format {
        ResponseFormat::Tagged { tags } if !tags.is_empty() => {
            let openings: Vec<Vec<u8>> = tags.iter().map(|t| format!("<{t}>").into_bytes()).collect();
            choose_enum(m, engine, logits, openings, req.temperature, rng)
        }
        _ => Ok(None),
    }
}

/// The rendered prompt's tokens and the most new tokens the context leaves room for.
fn prompt_ids(m: &LocalModel, req: &ChatRequest, c: Option<&Constrainer>) -> Result<(Vec<u32>, usize), LlmError> {
    let prompt = m
        .template
        .render(&with_schema_hint(&req.messages, &req.format, c.map(|c| c.grammar.schema())))
        .map_err(|e| LlmError::config(PROVIDER, e))?;
    let ids = m.vocab.encode_prompt(&prompt);
    if ids.len() + 1 >= m.context {
        return Err(LlmError::model(
            PROVIDER,
            LocalError::TooLong { tokens: ids.len(), context: m.context }.to_string(),
        ));
    }
    let max_new = (req.max_tokens as usize).min(m.context - ids.len() - 1);
    Ok((ids, max_new))
}

/// How many of the prompt's tokens are its stable head: the leading system messages, rendered alone (the
/// prompt's tokens up to where the two renderings part). A request without a system message has none.
fn stable_tokens(m: &LocalModel, messages: &[Message], ids: &[u32]) -> usize {
    let head: Vec<Message> = messages.iter().take_while(|x| x.role == Role::System).cloned().collect();
    if head.is_empty() || head.len() == messages.len() {
        return 0;
    }
    m.template.render(&head).map(|text| super::prefix::common_prefix(&m.vocab.encode_prompt(&text), ids)).unwrap_or(0)
}

/// Sends the complete UTF-8 text of `out[sent..upto]` to `on_delta` (a character cut by a token waits).
fn emit_text(out: &[u8], sent: &mut usize, upto: usize, on_delta: &mut dyn FnMut(&str)) {
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
}

/// At an enum with few options, the whole value chosen by its likelihood, fed to the grammar, with the
/// options' probabilities as the response records them (texts from where the choice started: an enum may be
/// entered mid-way).
fn enum_value(
    m: &LocalModel,
    engine: &mut Engine,
    c: &Constrainer,
    s: &mut State,
    logits: &[f32],
    temperature: f32,
    rng: &mut Rng,
) -> Result<Option<(Choice, EnumChoice)>, LlmError> {
    if !c.grammar.at_enum_choice(s) {
        return Ok(None);
    }
    let Some((at, texts)) = c.grammar.enum_texts(s).filter(|(_, t)| t.len() <= WHOLE_VALUE_OPTIONS) else {
        return Ok(None);
    };
    let remainders: Vec<Vec<u8>> = texts.iter().map(|t| t[at..].to_vec()).collect();
    let Some(choice) = choose_enum(m, engine, logits, remainders, temperature, rng)? else { return Ok(None) };
    let head = texts.first().map(|t| String::from_utf8_lossy(&t[..at]).into_owned()).unwrap_or_default();
    let record = EnumChoice { options: choice.probabilities.iter().map(|(o, p)| (format!("{head}{o}"), *p)).collect() };
    let ok = c.grammar.feed_all(s, &choice.bytes);
    debug_assert!(ok, "an enum text is valid by construction");
    Ok(Some((choice, record)))
}

/// Feeds a sampled token's bytes to the grammar (it was allowed by the mask, so it must fit), counting the
/// characters of a free string's tokens.
fn accept(c: &Constrainer, s: &mut State, bytes: &[u8], string_chars: &mut Vec<usize>) -> Result<(), LlmError> {
    if c.grammar.in_string(s) {
        string_chars.push(String::from_utf8_lossy(bytes).chars().count());
    }
    if !c.grammar.feed_all(s, bytes) {
        return Err(LlmError::model(PROVIDER, "constrained decoding chose a token outside the grammar"));
    }
    Ok(())
}

/// The constrained reply parsed and validated against its schema (a model error when it does not hold).
fn checked_json(c: &Constrainer, text: &str) -> Result<serde_json::Value, LlmError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| LlmError::model(PROVIDER, format!("constrained output did not parse ({e}): {text}")))?;
    c.grammar.schema().validate(&value).map_err(|e| LlmError::model(PROVIDER, e))?;
    Ok(value)
}

/// Masks `logits` to the tokens the grammar allows at `s`. Inside a free string the repetition penalty
/// applies; a string gone to single characters (the way a small model degenerates) is closed — only tokens
/// that end it stay allowed, when there are any; and within `WRAP_CHARS` of a `maxLength`, where the model's
/// best next token starts a new word the string closes instead, so a bounded text ends after a whole word
/// rather than mid-word at its last allowed character.
fn constrain(
    m: &LocalModel,
    c: &mut Constrainer,
    s: &State,
    logits: &mut [f32],
    tokens: &[u32],
    repetition: &Repetition,
    string_chars: &mut Vec<usize>,
) {
    let in_string = c.grammar.in_string(s);
    if in_string {
        penalise(logits, tokens, repetition, &m.vocab.bytes);
    } else {
        string_chars.clear();
    }
    let mask = c.allowed(s);
    let can_close =
        || (0..m.vocab.bytes.len()).any(|i| mask.allows(i as u32) && m.vocab.bytes[i].first() == Some(&b'"'));
    // Near the bound, the string closes where the model would start a new word: it ends after a whole word.
    let new_word_near_end = in_string
        && c.grammar.string_left(s).is_some_and(|left| left <= WRAP_CHARS)
        && !string_chars.is_empty()
        && best_allowed(logits, &mask).is_some_and(|t| matches!(m.vocab.bytes[t].first(), Some(b' ' | b'\n')));
    let close = in_string && ((repetition.is_on() && degenerate(string_chars)) || new_word_near_end) && can_close();
    for (i, l) in logits.iter_mut().enumerate() {
        if !mask.allows(i as u32) || (close && m.vocab.bytes[i].first() != Some(&b'"')) {
            *l = f32::NEG_INFINITY;
        }
    }
}

/// The highest-scoring token the mask allows.
fn best_allowed(logits: &[f32], mask: &Mask) -> Option<usize> {
    (0..logits.len()).filter(|&i| mask.allows(i as u32)).max_by(|&a, &b| logits[a].total_cmp(&logits[b]))
}

/// Characters before a bounded string's end within which it closes at the next word boundary (longer than
/// almost every word; the agents' budgets are 80–400 characters).
const WRAP_CHARS: usize = 16;

/// A free string whose last `DEGENERATE_WINDOW` tokens average fewer than `DEGENERATE_CHARS` characters each
/// has degenerated (English runs at about four; SmolLM2's gibberish at one).
const DEGENERATE_WINDOW: usize = 32;
const DEGENERATE_CHARS: f32 = 1.5;

fn degenerate(chars: &[usize]) -> bool {
    chars.len() >= DEGENERATE_WINDOW
        && (chars[chars.len() - DEGENERATE_WINDOW..].iter().sum::<usize>() as f32)
            < DEGENERATE_CHARS * DEGENERATE_WINDOW as f32
}

/// Longest forced run taken in one batch.
const FORCED_BYTES: usize = 256;

/// The text the grammar fixes from `s` (whole characters only) and its tokens, when there is any and it fits
/// in `budget`. Those bytes (keys, punctuation, an enum's last candidate) go in as one batch: a forward pass
/// over several tokens costs about what one token does, where asking the model for each would cost one pass
/// per token.
fn forced_tokens(
    m: &LocalModel,
    g: &Grammar,
    s: &State,
    budget: usize,
) -> Result<Option<(Vec<u32>, Vec<u8>)>, LlmError> {
    let mut forced = g.forced(s, FORCED_BYTES);
    if let Err(e) = std::str::from_utf8(&forced) {
        forced.truncate(e.valid_up_to());
    }
    let Ok(text) = std::str::from_utf8(&forced) else { return Ok(None) };
    if text.is_empty() {
        return Ok(None);
    }
    // Tokens that do not spell the text back exactly are left to the model.
    Ok(m.vocab.encode_exact(text).filter(|ids| ids.len() < budget).map(|ids| (ids, forced)))
}

/// Repetition control on the next token's logits (see `Repetition`). The penalty falls on word tokens only:
/// punctuation, digits and spaces recur in any text, and penalising them pushes a small model onto their
/// look-alikes (full-width commas and digits) and from there into gibberish.
fn penalise(logits: &mut [f32], tokens: &[u32], r: &Repetition, spelling: &[Vec<u8>]) {
    if r.penalty > 1.0 && r.last_n > 0 {
        let recent = &tokens[tokens.len().saturating_sub(r.last_n as usize)..];
        let mut seen = std::collections::HashSet::new();
        for &t in recent {
            let wordlike =
                spelling.get(t as usize).is_some_and(|b| String::from_utf8_lossy(b).chars().any(|c| c.is_alphabetic()));
            if wordlike
                && seen.insert(t)
                && let Some(l) = logits.get_mut(t as usize)
            {
                *l = if *l > 0.0 { *l / r.penalty } else { *l * r.penalty };
            }
        }
    }
    let n = r.no_repeat_ngram as usize;
    if n > 0 && tokens.len() >= n {
        let prefix = &tokens[tokens.len() - (n - 1)..];
        for w in tokens.windows(n) {
            if &w[..n - 1] == prefix
                && let Some(l) = logits.get_mut(w[n - 1] as usize)
            {
                *l = f32::NEG_INFINITY;
            }
        }
    }
}

fn find_stop(out: &[u8], stops: &[String]) -> Option<usize> {
    stops.iter().filter(|s| !s.is_empty()).filter_map(|s| out.windows(s.len()).position(|w| w == s.as_bytes())).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_of_single_characters_is_degenerate_and_english_is_not() {
        assert!(!degenerate(&[1; DEGENERATE_WINDOW - 1]), "too short to tell");
        assert!(degenerate(&[1; DEGENERATE_WINDOW]));
        let english: Vec<usize> = "The hubs sit in the dorsal attention and somatomotor networks, as the table shows"
            .split_inclusive(' ')
            .map(|w| w.chars().count())
            .cycle()
            .take(40)
            .collect();
        assert!(!degenerate(&english));
    }
}
