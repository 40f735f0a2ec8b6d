//! OpenAI tool calling over any `ChatModel`: a request's `tools` and `tool_choice` become one JSON schema (an
//! `anyOf` of `{"name": const, "arguments": that function's parameters}`, plus a text branch under `auto`), so
//! a constrained model's call always parses and validates; the reply is turned back into `tool_calls`.
//! Used by `llm serve`; the schemas are the subset of `llm::schema` (a tool schema outside it is refused with
//! the function's name).

use super::schema::Schema;
use super::types::{ChatRequest, Message, ResponseFormat, Role};
use crate::llm::error::ParamError;
use serde_json::{Value, json};

/// The branch tag of a plain answer under `tool_choice: "auto"` (not a valid function name: it has spaces).
pub const TEXT_TAG: &str = "no tool: answer";

#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    Auto,
    None,
    Required,
    Named(String),
}

/// The tool part of a chat-completions request.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub functions: Vec<Function>,
    pub choice: Choice,
    pub parallel: bool,
}

/// One call the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub arguments: Value,
}

/// What the model answered: text, or calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Text(String),
    Calls(Vec<Call>),
}

/// Reads `tools`, `tool_choice` and `parallel_tool_calls`; None when the request has no tools. Every field is
/// checked against OpenAI's types (a `tool_choice` without `tools`, or naming a function not in them, is
/// refused, as OpenAI refuses it); the error names the parameter.
pub fn parse(body: &Value) -> Result<Option<ToolSpec>, ParamError> {
    let present = |key: &str| body.get(key).filter(|v| !v.is_null());
    let parallel = match present("parallel_tool_calls") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(ParamError::invalid_type("parallel_tool_calls", "a boolean", v)),
    };
    let Some(list) = present("tools") else {
        return match present("tool_choice") {
            None => Ok(None),
            Some(_) => Err(ParamError::invalid_value(
                "tool_choice",
                "'tool_choice' is only allowed when 'tools' are specified.",
            )),
        };
    };
    let list = list.as_array().ok_or_else(|| ParamError::invalid_type("tools", "an array", list))?;
    let mut functions = Vec::new();
    for (i, t) in list.iter().enumerate() {
        if !t.is_object() {
            return Err(ParamError::invalid_type(format!("tools[{i}]"), "an object", t));
        }
        match t.get("type") {
            None | Some(Value::Null) => {}
            Some(Value::String(k)) if k == "function" => {}
            Some(v) => {
                return Err(ParamError::invalid_value(format!("tools[{i}].type"), format!("{v} is not 'function'.")));
            }
        }
        let f = t.get("function").ok_or_else(|| ParamError::missing(format!("tools[{i}].function")))?;
        let name = match f.get("name") {
            Some(Value::String(n)) => n.as_str(),
            Some(v) => return Err(ParamError::invalid_type(format!("tools[{i}].function.name"), "a string", v)),
            None => return Err(ParamError::missing(format!("tools[{i}].function.name"))),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(ParamError::invalid_value(
                format!("tools[{i}].function.name"),
                format!("{name:?} must match ^[a-zA-Z0-9_-]+$."),
            ));
        }
        let description = match f.get("description") {
            None | Some(Value::Null) => "",
            Some(Value::String(d)) => d.as_str(),
            Some(v) => return Err(ParamError::invalid_type(format!("tools[{i}].function.description"), "a string", v)),
        };
        let parameters = f.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}}));
        Schema::compile(&parameters).map_err(|e| {
            ParamError::invalid_value(format!("tools[{i}].function.parameters"), format!("({name}): {e}"))
        })?;
        functions.push(Function { name: name.to_string(), description: description.to_string(), parameters });
    }
    let choice = match present("tool_choice") {
        None => Choice::Auto,
        Some(Value::String(s)) => match s.as_str() {
            "auto" => Choice::Auto,
            "none" => Choice::None,
            "required" => Choice::Required,
            o => {
                return Err(ParamError::invalid_value(
                    "tool_choice",
                    format!("{o:?} is not 'auto', 'none', 'required' or a function."),
                ));
            }
        },
        Some(v @ Value::Object(_)) => {
            let name = match v.pointer("/function/name") {
                Some(Value::String(n)) => n.as_str(),
                Some(other) => return Err(ParamError::invalid_type("tool_choice.function.name", "a string", other)),
                None => return Err(ParamError::missing("tool_choice.function.name")),
            };
            if !functions.iter().any(|f| f.name == name) {
                return Err(ParamError::invalid_value(
                    "tool_choice",
                    format!("names the function {name:?}, which is not in 'tools'."),
                ));
            }
            Choice::Named(name.to_string())
        }
        Some(v) => return Err(ParamError::invalid_type("tool_choice", "a string or an object", v)),
    };
    if functions.is_empty() && choice != Choice::None {
        return Err(ParamError::invalid_value("tools", "empty array: give at least one function."));
    }
    Ok(Some(ToolSpec { functions, choice, parallel }))
}

fn branch(tag: &str, arguments: &Value) -> Value {
    json!({"type": "object", "properties": {"name": {"const": tag}, "arguments": arguments}, "required": ["name", "arguments"]})
}

impl ToolSpec {
    /// The reply schema, or None when the model answers in plain text (`tool_choice: "none"`).
    pub fn schema(&self) -> Option<Value> {
        let calls: Vec<Value> = self
            .functions
            .iter()
            .filter(|f| match &self.choice {
                Choice::Named(n) => &f.name == n,
                _ => true,
            })
            .map(|f| branch(&f.name, &f.parameters))
            .collect();
        match self.choice {
            Choice::None => None,
            Choice::Named(_) => Some(json!({"anyOf": calls})),
            Choice::Required if self.parallel => Some(
                json!({"type": "object", "properties": {"tool_calls": {"type": "array", "items": {"anyOf": calls}}}, "required": ["tool_calls"]}),
            ),
            Choice::Required => Some(json!({"anyOf": calls})),
            Choice::Auto => {
                let mut all = vec![branch(
                    TEXT_TAG,
                    &json!({"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}),
                )];
                all.extend(calls);
                Some(json!({"anyOf": all}))
            }
        }
    }

    /// The system text that tells the model which functions exist and how to answer.
    pub fn instructions(&self) -> String {
        let list: Vec<String> = self
            .functions
            .iter()
            .map(|f| format!("- {}: {} Parameters (JSON Schema): {}", f.name, f.description, f.parameters))
            .collect();
        let how = match &self.choice {
            Choice::None => "Do not call a function; answer in text.".to_string(),
            Choice::Named(n) => format!("Call the function {n}: reply {{\"name\": \"{n}\", \"arguments\": {{...}}}}."),
            Choice::Required if self.parallel => {
                "Call one or more functions: reply {\"tool_calls\": [{\"name\": function, \"arguments\": {...}}]}."
                    .into()
            }
            Choice::Required => "Call one function: reply {\"name\": function, \"arguments\": {...}}.".into(),
            Choice::Auto => format!(
                "To call a function reply {{\"name\": function, \"arguments\": {{...}}}}; to answer without one reply {{\"name\": \"{TEXT_TAG}\", \"arguments\": {{\"content\": your answer}}}}."
            ),
        };
        format!("You can call these functions:\n{}\n{how}", list.join("\n"))
    }

    /// The request the model gets: the instructions before the conversation, the reply constrained.
    pub fn apply(&self, request: &mut ChatRequest) {
        let text = self.instructions();
        match request.messages.first_mut() {
            Some(first) if first.role == Role::System => first.content = format!("{}\n\n{text}", first.content),
            _ => request.messages.insert(0, Message::system(text)),
        }
        if let Some(schema) = self.schema() {
            request.format = ResponseFormat::JsonSchema { name: "tool_call".into(), schema };
        }
    }

    /// The model's validated reply as text or calls.
    pub fn reply(&self, value: &Value, text: &str) -> Reply {
        let call = |v: &Value| Call {
            name: v["name"].as_str().unwrap_or("").to_string(),
            arguments: v.get("arguments").cloned().unwrap_or_else(|| json!({})),
        };
        match self.choice {
            Choice::None => Reply::Text(text.to_string()),
            Choice::Required if self.parallel => {
                Reply::Calls(value["tool_calls"].as_array().map(|a| a.iter().map(call).collect()).unwrap_or_default())
            }
            _ if value["name"] == TEXT_TAG => {
                Reply::Text(value.pointer("/arguments/content").and_then(Value::as_str).unwrap_or("").to_string())
            }
            _ => Reply::Calls(vec![call(value)]),
        }
    }
}

/// The OpenAI `tool_calls` array of a reply (`arguments` as a JSON string, as the API sends them).
pub fn tool_calls_json(calls: &[Call], stamp: u64) -> Value {
    Value::Array(
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({"id": format!("call_{stamp}_{i}"), "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments.to_string()}})
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(choice: Value, parallel: bool) -> Value {
        json!({"tools": [
            {"type": "function", "function": {"name": "band_power", "description": "Band power.",
             "parameters": {"type": "object", "properties": {"band": {"enum": ["alpha", "beta"]}}, "required": ["band"]}}},
            {"type": "function", "function": {"name": "hubs", "parameters": {"type": "object", "properties": {"k": {"type": "integer"}}}}}
        ], "tool_choice": choice, "parallel_tool_calls": parallel})
    }

    #[test]
    fn choices_give_schemas_whose_replies_are_calls() {
        let t = parse(&body(json!("required"), false)).unwrap().unwrap();
        let s = Schema::compile(&t.schema().unwrap()).unwrap();
        let v = json!({"name": "band_power", "arguments": {"band": "alpha"}});
        s.validate(&v).unwrap();
        assert!(s.validate(&json!({"name": "band_power", "arguments": {"band": "gamma"}})).is_err());
        assert!(s.validate(&json!({"name": "nope", "arguments": {}})).is_err());
        assert_eq!(
            t.reply(&v, ""),
            Reply::Calls(vec![Call { name: "band_power".into(), arguments: json!({"band": "alpha"}) }])
        );
        let auto = parse(&body(json!("auto"), true)).unwrap().unwrap();
        let text = json!({"name": TEXT_TAG, "arguments": {"content": "hi"}});
        Schema::compile(&auto.schema().unwrap()).unwrap().validate(&text).unwrap();
        assert_eq!(auto.reply(&text, ""), Reply::Text("hi".into()));
        let named = parse(&body(json!({"type": "function", "function": {"name": "hubs"}}), true)).unwrap().unwrap();
        let s = Schema::compile(&named.schema().unwrap()).unwrap();
        assert!(s.validate(&v).is_err() && s.validate(&json!({"name": "hubs", "arguments": {"k": 3}})).is_ok());
        let par = parse(&body(json!("required"), true)).unwrap().unwrap();
        let two = json!({"tool_calls": [v, {"name": "hubs", "arguments": {}}]});
        Schema::compile(&par.schema().unwrap()).unwrap().validate(&two).unwrap();
        assert!(matches!(par.reply(&two, ""), Reply::Calls(c) if c.len() == 2));
        assert_eq!(parse(&body(json!("none"), true)).unwrap().unwrap().schema(), None);
    }

    #[test]
    fn bad_tools_are_refused_with_the_function_named() {
        let e = parse(&json!({"tools": [{"type": "function", "function": {"name": "f",
            "parameters": {"type": "object", "properties": {"x": {"allOf": []}}}}}]}))
        .unwrap_err()
        .to_string();
        assert!(e.contains("(f)") && e.contains("allOf"), "{e}");
        let p = |b: Value| parse(&b).unwrap_err().param.unwrap_or_default();
        assert_eq!(p(json!({"tool_choice": {"type": "function", "function": {"name": "g"}}})), "tool_choice");
        assert_eq!(p(json!({"tools": [{"function": {"name": "f"}}], "tool_choice": 3})), "tool_choice");
        assert_eq!(p(json!({"tools": "f"})), "tools");
        assert_eq!(p(json!({"tools": [{"function": {"name": 7}}]})), "tools[0].function.name");
        assert_eq!(
            p(json!({"tools": [{"function": {"name": "f"}}], "parallel_tool_calls": "yes"})),
            "parallel_tool_calls"
        );
        assert!(
            parse(&json!({"tools": [{"function": {"name": "a b"}}]})).unwrap_err().to_string().contains("must match")
        );
        let e = parse(&json!({"tools": [{"function": {"name": "f"}}], "tool_choice": {"function": {"name": "g"}}}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"g\""), "{e}");
    }
}
