//! OpenAI chat-completions bodies read into our request. Every field the server reads is checked against the
//! API's types and ranges first (numbers, integers, enums, strings or arrays of strings); a field that fails is
//! an error naming it, which the server answers with 400 and OpenAI's error body. Fields it does not read are
//! accepted and left alone, as OpenAI accepts fields it does not know.

use crate::llm::error::ParamError;
use crate::llm::types::{ChatRequest, Message, ResponseFormat, Role};
use serde_json::{Map, Value, json};

/// A field that is present and not null (OpenAI treats an optional field set to null as absent).
fn present<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    body.get(key).filter(|v| !v.is_null())
}

/// A number in `lo..=hi`.
fn number(body: &Map<String, Value>, key: &str, lo: f64, hi: f64) -> Result<Option<f64>, ParamError> {
    let Some(v) = present(body, key) else { return Ok(None) };
    let x = v.as_f64().ok_or_else(|| ParamError::invalid_type(key, "a number", v))?;
    if !(lo..=hi).contains(&x) {
        return Err(ParamError::invalid_value(key, format!("expected a value from {lo} to {hi}, but got {x}.")));
    }
    Ok(Some(x))
}

/// An integer of at least `min`.
fn integer(body: &Map<String, Value>, key: &str, min: i64) -> Result<Option<i64>, ParamError> {
    let Some(v) = present(body, key) else { return Ok(None) };
    let n = match v.as_i64() {
        Some(n) => n,
        None if v.is_u64() => i64::MAX,
        None => return Err(ParamError::invalid_type(key, "an integer", v)),
    };
    if n < min {
        return Err(ParamError::invalid_value(
            key,
            format!("integer below minimum value: expected >= {min}, but got {n}."),
        ));
    }
    Ok(Some(n))
}

fn boolean(body: &Map<String, Value>, key: &str) -> Result<Option<bool>, ParamError> {
    let Some(v) = present(body, key) else { return Ok(None) };
    v.as_bool().map(Some).ok_or_else(|| ParamError::invalid_type(key, "a boolean", v))
}

/// `stop`: a string or an array of up to four strings.
fn stop(body: &Map<String, Value>) -> Result<Vec<String>, ParamError> {
    match present(body, "stop") {
        None => Ok(vec![]),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(list)) => {
            if list.len() > 4 {
                return Err(ParamError::invalid_value("stop", format!("at most 4 sequences, but got {}.", list.len())));
            }
            list.iter()
                .enumerate()
                .map(|(i, s)| {
                    s.as_str()
                        .map(String::from)
                        .ok_or_else(|| ParamError::invalid_type(format!("stop[{i}]"), "a string", s))
                })
                .collect()
        }
        Some(v) => Err(ParamError::invalid_type("stop", "a string or an array of strings", v)),
    }
}

fn message(i: usize, m: &Value) -> Result<Message, ParamError> {
    let at = |field: &str| format!("messages[{i}].{field}");
    let m = m.as_object().ok_or_else(|| ParamError::invalid_type(format!("messages[{i}]"), "an object", m))?;
    let role = match m.get("role") {
        Some(Value::String(r)) => r.as_str(),
        Some(v) => return Err(ParamError::invalid_type(at("role"), "a string", v)),
        None => return Err(ParamError::missing(at("role"))),
    };
    let calls = match m.get("tool_calls").filter(|c| !c.is_null()) {
        None => None,
        Some(Value::Array(c)) => Some(c).filter(|c| !c.is_empty()),
        Some(v) => return Err(ParamError::invalid_type(at("tool_calls"), "an array", v)),
    };
    let content = match (m.get("content"), calls) {
        (Some(Value::String(s)), _) => s.clone(),
        (Some(Value::Array(parts)), _) => {
            let mut text = String::new();
            for (j, p) in parts.iter().enumerate() {
                match p.get("text") {
                    Some(Value::String(t)) => text.push_str(t),
                    Some(v) => {
                        return Err(ParamError::invalid_type(
                            format!("messages[{i}].content[{j}].text"),
                            "a string",
                            v,
                        ));
                    }
                    None if p.is_object() => {}
                    None => {
                        return Err(ParamError::invalid_type(format!("messages[{i}].content[{j}]"), "an object", p));
                    }
                }
            }
            text
        }
        (None | Some(Value::Null), Some(_)) => String::new(),
        (None, None) => return Err(ParamError::missing(at("content"))),
        (Some(v), _) => {
            return Err(ParamError::invalid_type(at("content"), "a string or an array of content parts", v));
        }
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
        "system" | "developer" => (Role::System, content),
        "user" => (Role::User, content),
        "assistant" => (Role::Assistant, content),
        "tool" => {
            let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
            (Role::User, format!("Result of tool call {id}: {content}"))
        }
        other => {
            return Err(ParamError::invalid_value(
                at("role"),
                format!("{other:?} is not one of 'system', 'developer', 'user', 'assistant' or 'tool'."),
            ));
        }
    };
    Ok(Message { role, content, images: Vec::new() })
}

fn response_format(body: &Map<String, Value>) -> Result<ResponseFormat, ParamError> {
    let Some(format) = present(body, "response_format") else { return Ok(ResponseFormat::Text) };
    let format = format.as_object().ok_or_else(|| ParamError::invalid_type("response_format", "an object", format))?;
    let compile = |param: &str, schema: &Value| {
        crate::llm::schema::Schema::compile(schema).map_err(|e| ParamError::invalid_value(param, e))
    };
    match format.get("type") {
        Some(Value::String(t)) if t == "text" => Ok(ResponseFormat::Text),
        // llama.cpp's server form: a JSON object valid against `schema`.
        Some(Value::String(t)) if t == "json_object" => match format.get("schema").filter(|s| !s.is_null()) {
            Some(schema) => {
                compile("response_format.schema", schema)?;
                Ok(ResponseFormat::JsonSchema { name: "response".into(), schema: schema.clone() })
            }
            None => Ok(ResponseFormat::JsonObject),
        },
        Some(Value::String(t)) if t == "json_schema" => {
            let spec = format.get("json_schema").ok_or_else(|| ParamError::missing("response_format.json_schema"))?;
            let schema =
                spec.get("schema").cloned().ok_or_else(|| ParamError::missing("response_format.json_schema.schema"))?;
            compile("response_format.json_schema.schema", &schema)?;
            let name = match spec.get("name") {
                None | Some(Value::Null) => "response".to_string(),
                Some(Value::String(n)) => n.clone(),
                Some(v) => return Err(ParamError::invalid_type("response_format.json_schema.name", "a string", v)),
            };
            Ok(ResponseFormat::JsonSchema { name, schema })
        }
        Some(Value::String(other)) => Err(ParamError::invalid_value(
            "response_format.type",
            format!("{other:?} is not one of 'text', 'json_object' or 'json_schema'."),
        )),
        Some(v) => Err(ParamError::invalid_type("response_format.type", "a string", v)),
        None => Err(ParamError::missing("response_format.type")),
    }
}

/// Reads an OpenAI chat-completions body into our request.
pub fn parse_request(body: &Value) -> Result<ChatRequest, ParamError> {
    let body = body.as_object().ok_or_else(|| ParamError::body("The request body must be a JSON object."))?;
    if let Some(m) = present(body, "model").filter(|m| !m.is_string()) {
        return Err(ParamError::invalid_type("model", "a string", m));
    }
    let list = match body.get("messages") {
        Some(Value::Array(list)) => list,
        Some(v) if !v.is_null() => return Err(ParamError::invalid_type("messages", "an array", v)),
        _ => return Err(ParamError::missing("messages")),
    };
    if list.is_empty() {
        return Err(ParamError::invalid_value("messages", "empty array: expected at least one message."));
    }
    let messages = list.iter().enumerate().map(|(i, m)| message(i, m)).collect::<Result<Vec<_>, _>>()?;
    let mut request = ChatRequest::new(messages);
    if let Some(t) = number(body, "temperature", 0.0, 2.0)? {
        request.temperature = t as f32;
    }
    // Read for their types and ranges; the local engine samples without them.
    number(body, "top_p", 0.0, 1.0)?;
    number(body, "frequency_penalty", -2.0, 2.0)?;
    number(body, "presence_penalty", -2.0, 2.0)?;
    let max_tokens = integer(body, "max_tokens", 1)?;
    if let Some(n) = integer(body, "max_completion_tokens", 1)?.or(max_tokens) {
        request.max_tokens = n.min(u32::MAX as i64) as u32;
    }
    if let Some(n) = integer(body, "n", 1)?.filter(|n| *n != 1) {
        return Err(ParamError::invalid_value(
            "n",
            format!("this server returns one choice: expected 1, but got {n}."),
        ));
    }
    request.seed = match present(body, "seed") {
        None => None,
        Some(v) => Some(
            v.as_i64()
                .map(|s| s as u64)
                .or_else(|| v.as_u64())
                .ok_or_else(|| ParamError::invalid_type("seed", "an integer", v))?,
        ),
    };
    request.stop = stop(body)?;
    request.stream = boolean(body, "stream")?.unwrap_or(false);
    if let Some(o) = present(body, "stream_options") {
        let o = o.as_object().ok_or_else(|| ParamError::invalid_type("stream_options", "an object", o))?;
        if let Some(v) = o.get("include_usage").filter(|v| !v.is_null() && !v.is_boolean()) {
            return Err(ParamError::invalid_type("stream_options.include_usage", "a boolean", v));
        }
    }
    request.format = response_format(body)?;
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

    /// Each body is refused, naming the parameter (the cases a black-box storm sent, answered 200 before).
    #[test]
    fn fields_of_the_wrong_type_or_range_are_refused_naming_the_parameter() {
        let hi = || json!([{"role": "user", "content": "hi"}]);
        let with = |k: &str, v: Value| {
            let mut b = json!({"messages": hi()});
            b[k] = v;
            b
        };
        for (body, param, code) in [
            (with("max_tokens", json!(-5)), "max_tokens", "invalid_value"),
            (with("max_tokens", json!("many")), "max_tokens", "invalid_type"),
            (with("max_tokens", json!(2.5)), "max_tokens", "invalid_type"),
            (with("max_completion_tokens", json!(0)), "max_completion_tokens", "invalid_value"),
            (with("temperature", json!("hot")), "temperature", "invalid_type"),
            (with("temperature", json!(-3)), "temperature", "invalid_value"),
            (with("temperature", json!(2.5)), "temperature", "invalid_value"),
            (with("top_p", json!(7)), "top_p", "invalid_value"),
            (with("stop", json!(5)), "stop", "invalid_type"),
            (with("stop", json!(["a", 5])), "stop[1]", "invalid_type"),
            (with("stop", json!(["a", "b", "c", "d", "e"])), "stop", "invalid_value"),
            (with("stream", json!("yes")), "stream", "invalid_type"),
            (with("seed", json!("x")), "seed", "invalid_type"),
            (with("n", json!(3)), "n", "invalid_value"),
            (with("model", json!(5)), "model", "invalid_type"),
            (with("response_format", json!({"type": "yaml"})), "response_format.type", "invalid_value"),
            (with("response_format", json!("json")), "response_format", "invalid_type"),
            (with("stream_options", json!({"include_usage": 1})), "stream_options.include_usage", "invalid_type"),
            (json!({"messages": "hi"}), "messages", "invalid_type"),
            (json!({}), "messages", "missing_required_parameter"),
            (json!({"messages": []}), "messages", "invalid_value"),
            (json!({"messages": [{"role": "king", "content": "hi"}]}), "messages[0].role", "invalid_value"),
            (json!({"messages": [{"role": "user", "content": 5}]}), "messages[0].content", "invalid_type"),
            (json!({"messages": [{"content": "hi"}]}), "messages[0].role", "missing_required_parameter"),
        ] {
            let e = parse_request(&body).unwrap_err();
            assert_eq!((e.param.as_deref(), e.code), (Some(param), code), "{body}: {e}");
            assert!(e.message.contains(param), "{e}");
        }
        assert_eq!(parse_request(&json!([1])).unwrap_err().param, None);
        // Nulls are absent, unknown fields are accepted, values in range are read.
        let ok = json!({"messages": hi(), "temperature": 2, "max_tokens": 7, "stop": null, "seed": -1,
                        "n": 1, "logit_bias": {"1": 2}, "user": "me", "metadata": {"x": 1}});
        let r = parse_request(&ok).unwrap();
        assert_eq!((r.temperature, r.max_tokens, r.stop.len()), (2.0, 7, 0));
    }
}
