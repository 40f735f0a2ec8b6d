//! OpenAI chat-completions bodies read into our request.

use crate::llm::error::RequestError;
use crate::llm::types::{ChatRequest, Message, ResponseFormat};
use serde_json::{Value, json};

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
                "system" | "developer" => crate::llm::types::Role::System,
                "user" => crate::llm::types::Role::User,
                "assistant" => crate::llm::types::Role::Assistant,
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
                crate::llm::schema::Schema::compile(&schema).map_err(|e| format!("response_format schema: {e}"))?;
                ResponseFormat::JsonSchema { name: "response".into(), schema }
            }
            Some("json_object") => ResponseFormat::JsonObject,
            Some("json_schema") => {
                let spec = format.get("json_schema").ok_or("response_format.json_schema missing")?;
                let schema = spec.get("schema").cloned().ok_or("response_format.json_schema.schema missing")?;
                crate::llm::schema::Schema::compile(&schema).map_err(|e| format!("response_format schema: {e}"))?;
                let name = spec.get("name").and_then(Value::as_str).unwrap_or("response").to_string();
                ResponseFormat::JsonSchema { name, schema }
            }
            other => return Err(format!("response_format type {other:?} is not supported").into()),
        },
    };
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

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
