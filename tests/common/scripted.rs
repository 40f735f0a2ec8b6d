//! A scripted chat model for agent tests: answers each step by its schema name (understanding, step,
//! analysis, reflection, interpretability) with fixed, valid JSON; a test overrides any answer (an
//! out-of-set label, prose instead of JSON, a timeout) with `with`. Wrapped in a `Recorder`, it writes the
//! transcript the `replay` provider answers from.
#![allow(dead_code)]

use brainlens::llm::{ChatModel, ChatRequest, ChatResponse, ErrorClass, LlmError, ResponseFormat, Usage};
use brainlens::util::cancel::Cancel;
use serde_json::{Value, json};

pub type Override = dyn Fn(&str, &ChatRequest) -> Option<Result<Value, LlmError>> + Send + Sync;

pub struct Scripted {
    pub over: Box<Override>,
}

impl Default for Scripted {
    fn default() -> Self {
        Scripted { over: Box::new(|_, _| None) }
    }
}

impl Scripted {
    pub fn with(f: impl Fn(&str, &ChatRequest) -> Option<Result<Value, LlmError>> + Send + Sync + 'static) -> Scripted {
        Scripted { over: Box::new(f) }
    }
}

pub fn timeout() -> LlmError {
    LlmError::new(ErrorClass::ApiInfrastructureError, "scripted", "timed out after 0.5 s")
}

/// The round number a step prompt is for.
pub fn round_of(r: &ChatRequest) -> usize {
    let text = &r.messages.last().map(|m| m.content.clone()).unwrap_or_default();
    text.split("Round ").filter_map(|t| t.split(' ').next()?.parse().ok()).last().unwrap_or(0)
}

pub fn schema_name(r: &ChatRequest) -> String {
    match &r.format {
        ResponseFormat::JsonSchema { name, .. } => name.clone(),
        _ => String::new(),
    }
}

/// The strings of an enum in the request's schema, at a JSON pointer (the tool menu, the label set).
fn enum_at(r: &ChatRequest, pointer: &str) -> Vec<String> {
    match &r.format {
        ResponseFormat::JsonSchema { schema, .. } => schema
            .pointer(pointer)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            .unwrap_or_default(),
        _ => vec![],
    }
}

/// The default answer of each step.
pub fn answer(r: &ChatRequest) -> Value {
    let label = enum_at(r, "/properties/label/enum").first().cloned().unwrap_or_default();
    match schema_name(r).as_str() {
        "understanding" => json!({
            "region_level": {"hubs": ["RH_DorsAttn_6", "LH_SomMot_3"], "salient_regions": "attention and somatomotor hubs"},
            "subgraph_level": {"modules": "8 modules", "functional_networks": "salience and dorsal attention are the most cohesive"},
            "graph_level": {"integration": "global efficiency 0.278", "segregation": "modularity 0.320", "small_world": "not computed"}
        }),
        "step" => {
            // The menu: each `anyOf` branch of the action names one tool (its `const`).
            let m: Vec<String> = match &r.format {
                ResponseFormat::JsonSchema { schema, .. } => schema
                    .pointer("/properties/action/anyOf")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|b| b.pointer("/properties/tool/const")?.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
                _ => vec![],
            };
            let pick = |t: &str, args: Value| json!({"think": format!("I need {t}"), "report": format!("Round {} report: salience network hubs dominate; modularity 0.320.", round_of(r)), "action": {"tool": t, "arguments": args}});
            if m.iter().any(|t| t == "retrieve_knowledge") {
                pick(
                    "retrieve_knowledge",
                    json!({"query_t": "salience network hubs", "regions_t": ["RH_SalVentAttn_2", 3]}),
                )
            } else if m.iter().any(|t| t == "retrieve_case") {
                pick(
                    "retrieve_case",
                    json!({"query": "hubs in salience and dorsal attention networks, modularity 0.32"}),
                )
            } else if m.iter().any(|t| t == "hubs") {
                pick("hubs", json!({"by": "degree", "k": 3}))
            } else {
                pick("finish", json!({}))
            }
        }
        "analysis" => json!({
            "reasoning": "The nearest cases and the hubs agree.",
            "label": label, "confidence": 0.7,
            "claims": [
                {"claim": "Hubs RH_DorsAttn_6 and LH_SomMot_3 [R:RH_DorsAttn_6].", "evidence": ["R:RH_DorsAttn_6"]},
                {"claim": "Modularity is 0.32; the salience network is the most cohesive.", "evidence": ["G:modularity"]}
            ]
        }),
        "reflection" => json!({
            "critique": "The rationale cites real hubs and the measured modularity, but the confidence is high for three cases of mixed labels.",
            "revise": true, "label": label, "confidence": 0.6,
            "claims": [
                {"claim": "Hubs RH_DorsAttn_6 [R:RH_DorsAttn_6].", "evidence": []},
                {"claim": "Modularity 0.32 [G:modularity]; confidence lowered.", "evidence": ["G:modularity"]}
            ]
        }),
        // Arguments asked again with one tool's schema: fill what it asks for.
        "arguments" => {
            let props = match &r.format {
                ResponseFormat::JsonSchema { schema, .. } => {
                    schema["properties"].as_object().cloned().unwrap_or_default()
                }
                _ => Default::default(),
            };
            let mut out = serde_json::Map::new();
            for k in props.keys() {
                let v = match k.as_str() {
                    "by" => json!("degree"),
                    "k" => json!(3),
                    "regions_q" => json!([1, 2]),
                    "region" => json!("LH_Vis_1"),
                    _ => json!("salience network hubs"),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        "interpretability" => {
            json!({"domain_awareness": 5, "completeness": 7, "reflection_depth": 6, "region_insight": 8, "subgraph_insight": 6, "graph_insight": 7, "comment": "scripted"})
        }
        other => json!({"unexpected_schema": other}),
    }
}

impl ChatModel for Scripted {
    fn name(&self) -> String {
        "scripted:test".into()
    }

    fn chat_with(&self, r: &ChatRequest, _c: &Cancel, _d: &mut dyn FnMut(&str)) -> Result<ChatResponse, LlmError> {
        let name = schema_name(r);
        let v = match (self.over)(&name, r) {
            Some(Err(e)) => return Err(e),
            Some(Ok(v)) => v,
            None => answer(r),
        };
        Ok(respond(v))
    }
}

/// A scripted reply: a string is prose (no JSON), anything else is the JSON answer; fixed usage and latency.
pub fn respond(v: Value) -> ChatResponse {
    let (text, json) = match &v {
        Value::String(s) => (s.clone(), None),
        other => (other.to_string(), Some(other.clone())),
    };
    ChatResponse {
        text,
        json,
        usage: Usage { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 0, ..Default::default() },
        latency_ms: 1.0,
        model: "scripted".into(),
        finish_reason: "stop".into(),
        attempts: 1,
        choices: Vec::new(),
    }
}
