//! The one tool framework both agents build on: a tool is a name, what it does, its parameters (each agent
//! has its own parameter kinds and their schemas) and the handler that runs it — registered in the same
//! table entry, so a listed tool always has its handler. The menu line, the argument names check and the
//! `anyOf` branch told apart by a `const` tool name are written once here.

use crate::agent::error::{AgentError, Result};
use serde_json::{Map, Value, json};

/// A tool call that failed: what the model reads as the observation and the trace records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

crate::util::error::text_conversions!(ToolError, ToolError);

/// A tool's failure is the observation the model reads: the lower layers' errors become its text.
macro_rules! tool_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for ToolError {
            fn from(e: $t) -> Self {
                ToolError(e.to_string())
            }
        }
    )*};
}

tool_error_from!(
    crate::signal::SignalError,
    crate::signal::edf::EdfError,
    crate::network::error::NetworkError,
    crate::retrieval::error::RetrievalError,
    crate::agent::error::AgentError,
    crate::util::error::ContextError
);

/// One parameter: its name, kind (the agent's own), whether it is required, and the help the menu shows.
#[derive(Debug, Clone, Copy)]
pub struct Param<K: 'static> {
    pub name: &'static str,
    pub kind: K,
    pub required: bool,
    pub about: &'static str,
}

/// A tool: name, what it does, the group it belongs to (the EEG agent's domain; `()` for the graph agent),
/// its parameters and its handler.
#[derive(Clone, Copy)]
pub struct Tool<K: 'static, G, H> {
    pub name: &'static str,
    pub group: G,
    pub about: &'static str,
    pub params: &'static [Param<K>],
    pub run: H,
}

impl<K, G, H> Tool<K, G, H> {
    /// `- name(p: help; q?: help) — what it does` (a `?` marks an optional parameter).
    pub fn menu_line(&self) -> String {
        let ps: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}{}: {}", p.name, if p.required { "" } else { "?" }, p.about))
            .collect();
        format!("- {}({}) — {}", self.name, ps.join("; "), self.about)
    }

    /// The closed argument object over `properties` (one schema per parameter, in order).
    pub fn args_object(&self, properties: Map<String, Value>) -> Value {
        let required: Vec<&str> = self.params.iter().filter(|p| p.required).map(|p| p.name).collect();
        json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
    }

    /// One `anyOf` branch: `{"tool": <this name>, <args_key>: <args>}`.
    pub fn branch(&self, args_key: &str, args: Value) -> Value {
        let mut properties = Map::new();
        properties.insert("tool".into(), json!({"const": self.name}));
        properties.insert(args_key.into(), args);
        json!({"type": "object", "properties": properties, "required": ["tool", args_key]})
    }

    /// Names in `args` that are not parameters, then required parameters missing (null counts as missing).
    pub fn check_names(&self, args: &Map<String, Value>) -> Result<(), AgentError> {
        if let Some(k) = args.keys().find(|k| !self.params.iter().any(|p| p.name == k.as_str())) {
            return Err(format!("{}: unknown argument {k:?}", self.name).into());
        }
        if let Some(p) = self.params.iter().find(|p| p.required && args.get(p.name).is_none_or(Value::is_null)) {
            return Err(format!("{}: missing argument {:?}", self.name, p.name).into());
        }
        Ok(())
    }
}

/// The tool named `name` in `tools`.
pub fn find<'a, K, G, H>(tools: &'a [Tool<K, G, H>], name: &str) -> Option<&'a Tool<K, G, H>> {
    tools.iter().find(|t| t.name == name)
}

/// The menu: one line per tool.
pub fn menu<'a, K: 'static, G: 'a, H: 'a>(tools: impl IntoIterator<Item = &'a Tool<K, G, H>>) -> String {
    tools.into_iter().map(Tool::menu_line).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing(_: &()) -> Result<(), AgentError> {
        Ok(())
    }

    const T: Tool<u8, (), fn(&()) -> Result<(), AgentError>> = Tool {
        name: "hubs",
        group: (),
        about: "top regions",
        params: &[
            Param { name: "by", kind: 0, required: true, about: "centrality" },
            Param { name: "k", kind: 1, required: false, about: "how many" },
        ],
        run: nothing,
    };

    #[test]
    fn menu_line_schema_branch_and_name_checks() {
        assert_eq!(T.menu_line(), "- hubs(by: centrality; k?: how many) — top regions");
        let obj = T.args_object(Map::new());
        assert_eq!(obj["required"], json!(["by"]));
        assert_eq!(obj["additionalProperties"], json!(false));
        assert_eq!(T.branch("args", obj)["properties"]["tool"], json!({"const": "hubs"}));
        let args = |v: Value| v.as_object().cloned().unwrap();
        assert!(T.check_names(&args(json!({"by": "degree"}))).is_ok());
        assert!(
            T.check_names(&args(json!({"by": "degree", "x": 1})))
                .unwrap_err()
                .to_string()
                .contains("unknown argument \"x\"")
        );
        assert!(T.check_names(&args(json!({"by": null}))).unwrap_err().to_string().contains("missing argument \"by\""));
        assert!(find(&[T], "hubs").is_some() && find(&[T], "nope").is_none());
        assert!((T.run)(&()).is_ok());
    }
}
