//! Prompts and schemas for the constrained-decoding check (shared by tests/llm_local.rs and
//! examples/constrained_rate.rs): a label decision and a tool call, each varied over connectome findings.

use brainlens::llm::extract_json;
use brainlens::llm::schema::Schema;
use brainlens::llm::{ChatModel, ChatRequest, Message, ResponseFormat};
use serde_json::{Value, json};

pub fn label_schema() -> Value {
    json!({"type": "object", "properties": {
        "label": {"enum": ["ASD", "HC"]},
        "confidence": {"type": "number"},
        "rationale": {"type": "string"}
    }, "required": ["label", "confidence", "rationale"]})
}

pub fn tool_schema() -> Value {
    json!({"type": "object", "properties": {
        "tool": {"enum": ["retrieve_knowledge", "retrieve_case", "degree_centrality", "clustering_coefficient"]},
        "arguments": {"type": "object", "properties": {
            "query": {"type": "string"},
            "regions_q": {"type": "array", "items": {"type": "string"}},
            "k": {"type": "integer"}
        }, "required": ["query", "regions_q"]}
    }, "required": ["tool", "arguments"]})
}

const FINDINGS: &[&str] = &[
    "reduced long-range connectivity between frontal and posterior regions",
    "hyperconnectivity within the default mode network",
    "weaker coupling between the precuneus and the medial prefrontal cortex",
    "a normal small-world index and typical hub distribution",
    "increased local clustering in occipital cortex",
    "lower global efficiency than the cohort mean",
    "strong thalamo-cortical connections and intact rich club",
    "asymmetric temporal lobe degree with a left-hemisphere hub",
    "fragmented modules in the salience network",
    "typical integration and segregation measures",
];

const REGIONS: &[&str] = &[
    "Precuneus_L",
    "Angular_R",
    "Frontal_Sup_L",
    "Insula_R",
    "Thalamus_L",
    "Cingulum_Ant_R",
    "Temporal_Sup_L",
    "Occipital_Mid_R",
];

/// The i-th prompt of a kind ("label" or "tool"); the schema is spelled out in the prompt for both modes.
pub fn request(kind: &str, i: usize, constrained: bool, seed: u64) -> ChatRequest {
    let finding = FINDINGS[i % FINDINGS.len()];
    let (a, b) = (REGIONS[i % REGIONS.len()], REGIONS[(i * 3 + 1) % REGIONS.len()]);
    let (schema, prompt) = match kind {
        "label" => (
            label_schema(),
            format!(
                "A resting-state connectome shows {finding}, most clearly around {a} and {b}. Decide whether the subject is ASD or HC."
            ),
        ),
        _ => (
            tool_schema(),
            format!(
                "The connectome shows {finding}. Choose one tool to learn more about {a} and {b}, with its arguments."
            ),
        ),
    };
    let mut request = ChatRequest::new(vec![
        Message::system(format!(
            "You answer with one JSON object valid against this JSON Schema, and nothing else: {schema}"
        )),
        Message::user(prompt),
    ]);
    request.temperature = 0.7;
    request.seed = Some(seed);
    request.max_tokens = 96;
    if constrained {
        request.format = ResponseFormat::JsonSchema { name: kind.to_string(), schema };
    }
    request
}

/// Does the reply parse (after fence/prose extraction) and validate against the kind's schema?
pub fn valid(kind: &str, text: &str) -> Result<Value, String> {
    let schema = Schema::compile(&if kind == "label" { label_schema() } else { tool_schema() }).unwrap();
    let value = extract_json(text).ok_or_else(|| format!("not JSON: {text}"))?;
    schema.validate(&value).map(|_| value).map_err(|e| e.to_string())
}

pub struct Tally {
    pub total: usize,
    pub valid: usize,
    pub completion_tokens: u64,
    pub seconds: f64,
    pub labels: std::collections::BTreeMap<String, usize>,
    pub failures: Vec<String>,
}

/// Runs `n` generations of `kind`, constrained or not, and counts the valid replies.
pub fn run(model: &dyn ChatModel, kind: &str, n: usize, constrained: bool) -> Tally {
    let mut t =
        Tally { total: 0, valid: 0, completion_tokens: 0, seconds: 0.0, labels: Default::default(), failures: vec![] };
    for i in 0..n {
        let r = model.chat(&request(kind, i, constrained, i as u64)).expect("generation");
        t.total += 1;
        t.completion_tokens += r.usage.completion_tokens;
        t.seconds += r.latency_ms / 1000.0;
        match valid(kind, &r.text) {
            Ok(v) => {
                t.valid += 1;
                let key = if kind == "label" { v["label"].as_str() } else { v["tool"].as_str() };
                *t.labels.entry(key.unwrap_or("?").to_string()).or_default() += 1;
            }
            Err(e) => t.failures.push(e),
        }
    }
    t
}
